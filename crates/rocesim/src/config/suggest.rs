//! "Did you mean" suggestions for misspelled keys, values and names.

/// Edit distance (Levenshtein, with adjacent transpositions counted as one edit) between two
/// strings, compared case-insensitively.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let (n, m) = (a.len(), b.len());
    // Three rows are enough for the transposition rule.
    let mut prev2 = vec![0usize; m + 1];
    let mut prev: Vec<usize> = (0..=m).collect();
    let mut cur = vec![0usize; m + 1];
    for i in 1..=n {
        cur[0] = i;
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(prev2[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[m]
}

/// The candidate closest to `word`, if it is close enough to be a plausible misspelling
/// (at most a third of the word's length in edits, at least one edit allowed, never all of
/// it), or if one
/// candidate differs from `word` only in case. Ties go to the candidate of the same length,
/// then to the earlier one.
pub fn suggest<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    // Very long inputs are not misspellings of short names; skip the quadratic work.
    if word.chars().count() > 200 {
        return None;
    }
    let limit = (word.chars().count() / 3).max(1);
    let wlen = word.chars().count();
    let mut best: Option<((usize, usize), &str)> = None;
    for c in candidates {
        if c == word || c.chars().count() > 200 {
            continue;
        }
        let d = distance(word, c);
        let ok = (d <= limit && d < wlen) || c.eq_ignore_ascii_case(word);
        // Among equally distant candidates prefer the one of the same length ("linkz" -> "links").
        let rank = (d, c.chars().count().abs_diff(wlen));
        let better = match best {
            None => true,
            Some((b, _)) => rank < b,
        };
        if ok && better {
            best = Some((rank, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// `"; did you mean `x`?"` when there is a suggestion, else an empty string.
pub fn hint<'a, I>(word: &str, candidates: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    match suggest(word, candidates) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    }
}
