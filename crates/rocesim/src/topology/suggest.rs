//! "Did you mean ...?" suggestions for misspelled names (nodes, keys, selectors).
//!
//! The distance is the optimal-string-alignment edit distance (insertions, deletions,
//! substitutions and swaps of two adjacent characters each cost 1), compared case-insensitively.

/// The candidate closest to `word`, if it is close enough to be a plausible typo.
///
/// "Close enough" means an edit distance of at most `max(1, len / 3)` where `len` is the number
/// of characters in `word` (so `S9` → `S1`, `linkz` → `links`, `spine12` → `spine1`). Case
/// differences cost nothing (`s1` → `S1`). Ties go to the earliest candidate, so the answer is
/// deterministic. A candidate equal to `word` is never suggested.
///
/// ```
/// use rocesim::topology::suggest::suggest;
/// assert_eq!(suggest("S9", ["S1", "A", "R"]), Some("S1".to_string()));
/// assert_eq!(suggest("spine", ["leaf0", "host"]), None);
/// ```
pub fn suggest<I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let w: Vec<char> = word.to_lowercase().chars().collect();
    let limit = (w.len() / 3).max(1);
    let mut best: Option<(usize, String)> = None;
    for cand in candidates {
        let cand = cand.as_ref();
        if cand == word {
            continue;
        }
        let c: Vec<char> = cand.to_lowercase().chars().collect();
        // Cheap bound: the distance is at least the length difference.
        if w.len().abs_diff(c.len()) > limit {
            continue;
        }
        let d = distance(&w, &c);
        if d <= limit && best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            best = Some((d, cand.to_string()));
        }
    }
    best.map(|(_, s)| s)
}

/// Optimal-string-alignment edit distance between two character sequences.
fn distance(a: &[char], b: &[char]) -> usize {
    let n = b.len();
    // Three rows: i-2, i-1, i.
    let mut prev2: Vec<usize> = vec![0; n + 1];
    let mut prev: Vec<usize> = (0..=n).collect();
    let mut cur: Vec<usize> = vec![0; n + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=n {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[n]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        distance(&a, &b)
    }

    #[test]
    fn distances() {
        assert_eq!(d("", ""), 0);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("", "ab"), 2);
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("S9", "S1"), 1);
        assert_eq!(d("linkz", "links"), 1);
        assert_eq!(d("ab", "ba"), 1); // adjacent swap
        assert_eq!(d("spine1", "spine12"), 1);
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("S9", ["S1", "S2"]), Some("S1".into()));
        assert_eq!(
            suggest("linkz", ["hosts", "links", "link"]),
            Some("links".into())
        );
        assert_eq!(
            suggest("s1", vec!["A".to_string(), "S1".to_string()]),
            Some("S1".into())
        );
        assert_eq!(suggest("tor", ["leaf0", "spine0"]), None);
        assert_eq!(suggest("x", Vec::<String>::new()), None);
        // Exact match is not a suggestion.
        assert_eq!(suggest("S1", ["S1"]), None);
        // The closer candidate wins even when it comes later.
        assert_eq!(
            suggest("spine12", ["spine21x", "spine1"]),
            Some("spine1".into())
        );
        assert_eq!(suggest("lefa0", ["leaf0"]), Some("leaf0".into()));
    }
}
