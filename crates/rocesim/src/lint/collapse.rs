//! Lint output for large fabrics: a finding that repeats on many devices (the same rule, key,
//! message and fix on every ToR of a fat-tree, say) is printed once, with the count and a few
//! of the devices as examples.

use super::Finding;

/// How many devices a collapsed line names as examples.
const EXAMPLES: usize = 3;

/// The lines to print for `findings`: each group of findings that differ only in their
/// device becomes one line, ``[rule] 16 switches (`tor1`, `tor2`, `tor3`, …): key: message;
/// fix: fix``; a finding on one device prints as itself. Groups keep the order of their first
/// finding.
pub fn collapse(findings: &[Finding]) -> Vec<String> {
    let same = |a: &Finding, b: &Finding| {
        a.rule == b.rule
            && a.key == b.key
            && a.message == b.message
            && a.fix == b.fix
            && kind(&a.node).0 == kind(&b.node).0
    };
    let mut groups: Vec<Vec<&Finding>> = Vec::new();
    for f in findings {
        match groups.iter_mut().find(|g| same(g[0], f)) {
            Some(g) => g.push(f),
            None => groups.push(vec![f]),
        }
    }
    groups.iter().map(|g| line(g)).collect()
}

/// (`switch` | `NIC`, name with its backquotes) of a finding's device.
fn kind(node: &str) -> (&str, &str) {
    node.split_once(' ').unwrap_or(("", node))
}

fn line(g: &[&Finding]) -> String {
    let f = g[0];
    if g.len() == 1 {
        return f.to_string();
    }
    let (k, _) = kind(&f.node);
    let plural = match k {
        "switch" => "switches".to_string(),
        "" => "devices".to_string(),
        k => format!("{k}s"),
    };
    let mut names: Vec<&str> = g.iter().take(EXAMPLES).map(|f| kind(&f.node).1).collect();
    if g.len() > EXAMPLES {
        names.push("…");
    }
    format!(
        "[{}] {} {plural} ({}): {}: {}; fix: {}",
        f.rule,
        g.len(),
        names.join(", "),
        f.key,
        f.message,
        f.fix
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(node: &str, message: &str) -> Finding {
        Finding {
            rule: "ecn",
            node: node.into(),
            key: "switch.ecn".into(),
            message: message.into(),
            fix: "mark".into(),
        }
    }

    #[test]
    fn repeated_findings_become_one_line_with_the_count_and_examples() {
        let mut v: Vec<Finding> = (0..5)
            .map(|s| finding(&format!("switch `sw{s}`"), "no queue marks"))
            .collect();
        v.push(finding("switch `sw9`", "other"));
        v.push(finding("NIC `h0`", "no queue marks"));
        v.push(finding("NIC `h1`", "no queue marks"));
        let lines = collapse(&v);
        assert_eq!(
            lines,
            [
                "[ecn] 5 switches (`sw0`, `sw1`, `sw2`, …): switch.ecn: no queue marks; fix: mark",
                "[ecn] switch `sw9`: switch.ecn: other; fix: mark",
                "[ecn] 2 NICs (`h0`, `h1`): switch.ecn: no queue marks; fix: mark",
            ]
        );
        // Three devices are all named, without an ellipsis.
        assert!(collapse(&v[..3])[0].starts_with("[ecn] 3 switches (`sw0`, `sw1`, `sw2`): "));
    }
}
