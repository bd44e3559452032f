//! Number and text formatting shared by the writers. Every function here is deterministic:
//! the same input gives the same text on every platform.

/// Rounds to 6 significant decimal digits (so JSON text is stable); non-finite values pass through.
pub fn round_sig(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return if x == 0.0 { 0.0 } else { x };
    }
    let r: f64 = format!("{x:.5e}").parse().unwrap_or(x);
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// Fixed-point text with at most 6 decimals, trailing zeros trimmed ("1.5", "0.000001", "3").
/// Non-finite values give an empty string (an empty CSV cell).
pub fn fixed(x: f64) -> String {
    if !x.is_finite() {
        return String::new();
    }
    trim_zeros(format!("{x:.6}"))
}

/// Human-readable size in decimal units: "512B", "1.5KB", "2MB", "1.25GB".
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1_000, "KB"),
    ];
    for (div, unit) in UNITS {
        if b >= div {
            return format!("{}{unit}", short(b as f64 / div as f64));
        }
    }
    format!("{b}B")
}

/// Human-readable duration from nanoseconds: "850ns", "12.3us", "1.25ms", "2s".
pub(crate) fn human_ns(ns: u64) -> String {
    if ns >= 1_000_000_000 {
        format!("{}s", short(ns as f64 / 1e9))
    } else if ns >= 1_000_000 {
        format!("{}ms", short(ns as f64 / 1e6))
    } else if ns >= 1_000 {
        format!("{}us", short(ns as f64 / 1e3))
    } else {
        format!("{ns}ns")
    }
}

/// Human-readable count: "950", "12.5K", "3.2M", "1.1G".
pub(crate) fn human_count(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_string();
    }
    if x >= 1e9 {
        format!("{}G", short(x / 1e9))
    } else if x >= 1e6 {
        format!("{}M", short(x / 1e6))
    } else if x >= 1e3 {
        format!("{}K", short(x / 1e3))
    } else {
        short(x)
    }
}

/// At most 3 significant digits for values >= 1 (two decimals below 10, one below 100), trimmed.
pub(crate) fn short(x: f64) -> String {
    let decimals = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{x:.decimals$}");
    trim_zeros(s)
}

/// Removes trailing zeros after a decimal point, and the point itself if nothing follows.
pub(crate) fn trim_zeros(mut s: String) -> String {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".to_string();
    }
    s
}

/// Escapes text for HTML element content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_sig_keeps_six_digits() {
        assert_eq!(round_sig(12.345_678_9), 12.3457);
        assert_eq!(round_sig(0.000_123_456_78), 0.000_123_457);
        assert_eq!(round_sig(-0.0), 0.0);
        assert_eq!(round_sig(39.062_5), 39.0625);
    }

    #[test]
    fn fixed_trims() {
        assert_eq!(fixed(1.5), "1.5");
        assert_eq!(fixed(3.0), "3");
        assert_eq!(fixed(0.123_456_789), "0.123457");
        assert_eq!(fixed(-0.000_000_1), "0");
        assert_eq!(fixed(f64::NAN), "");
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(512), "512B");
        assert_eq!(human_bytes(1_500_000), "1.5MB");
        assert_eq!(human_bytes(2_000), "2KB");
        assert_eq!(human_ns(850), "850ns");
        assert_eq!(human_ns(12_345), "12.3us");
        assert_eq!(human_ns(1_250_000), "1.25ms");
        assert_eq!(human_count(2_500_000.0), "2.5M");
        assert_eq!(esc("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
    }
}
