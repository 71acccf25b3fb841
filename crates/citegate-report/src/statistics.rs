//! `citegate audit --statistics` (ruff's name): how many findings count, by rule, by doc and by
//! folder, the share `citegate fix` repairs, what does not count, and the command to run next.
//! For a first audit of a large wiki, where the report itself is too long to read. Every table
//! is sorted by count (most first), then by name, so the output is the same on every run.

use std::collections::BTreeMap;

use citegate_engine::escape::printable;
use citegate_engine::model::Report;

use super::summary::fixable;

/// The statistics of `report`, as plain text.
pub fn render(report: &Report) -> String {
    let findings = &report.findings;
    let mut by_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut by_doc: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_folder: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        let fixes = usize::from(f.offered_fix().is_some() && f.safe_fix().is_some());
        let rule = by_rule.entry(f.rule.as_str()).or_default();
        rule.0 += 1;
        rule.1 += fixes;
        let name = report.docs[f.doc].doc.name.as_str();
        *by_doc.entry(name).or_default() += 1;
        *by_folder.entry(folder(name)).or_default() += 1;
    }
    let total = findings.len();
    let fixable = fixable(report);
    let mut out = format!(
        "{total} finding{} in {} of {} doc{} at {}; {fixable} fixable ({}%)\n",
        plural(total),
        by_doc.len(),
        report.summary.docs,
        plural(report.summary.docs),
        citegate_engine::model::report::short(&report.revision),
        percent(fixable, total),
    );
    if total > 0 {
        let rules: Vec<(&str, usize, String)> = (by_rule.into_iter())
            .map(|(name, (n, fixes))| (name, n, format!("{fixes} fixable")))
            .collect();
        table(&mut out, "rule", rules);
        let docs = by_doc.into_iter().map(|(d, n)| (d, n, String::new()));
        table(&mut out, "doc", docs.collect());
        let folders = by_folder.into_iter().map(|(d, n)| (d, n, String::new()));
        table(&mut out, "folder", folders.collect());
    }
    let s = &report.summary;
    let set_aside: usize = s.suppressed.values().sum();
    if set_aside > 0 {
        let kinds: Vec<String> = (s.suppressed.iter())
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        out.push_str(&format!("\nnot counted: {}\n", kinds.join(", ")));
    }
    out.push_str(&format!(
        "\nnext: {}\n",
        next(total, fixable, set_aside, s.baseline_fixed)
    ));
    out
}

/// The command to run next: repair what can be, baseline the rest, prune what got fixed.
fn next(total: usize, fixable: usize, set_aside: usize, baseline_fixed: usize) -> String {
    let left = total - fixable;
    match (fixable, left) {
        (0, 0) if baseline_fixed > 0 => format!(
            "citegate baseline --prune ({baseline_fixed} baseline entr{} fixed)",
            if baseline_fixed == 1 { "y" } else { "ies" }
        ),
        (0, 0) if set_aside > 0 => {
            format!("nothing new; {set_aside} not counted are left to fix (citegate fix, then citegate baseline --prune)")
        }
        (0, 0) => "nothing: every citation holds".to_string(),
        (0, left) => format!(
            "citegate baseline (to accept the {left} finding{} and gate new ones)",
            plural(left)
        ),
        (fixable, 0) => format!("citegate fix (repairs all {fixable})"),
        (fixable, left) => {
            format!("citegate fix (repairs {fixable}), then citegate baseline (the {left} left)")
        }
    }
}

/// A table under a header: one row per name, the count right-aligned, most first then by name;
/// the names (doc paths, untrusted) escaped for the terminal.
fn table(out: &mut String, header: &str, mut rows: Vec<(&str, usize, String)>) {
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let names: Vec<String> = (rows.iter())
        .map(|(name, ..)| printable(name, false).into_owned())
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let width = width.max(header.len());
    let digits = rows
        .iter()
        .map(|r| r.1.to_string().len())
        .max()
        .unwrap_or(1);
    out.push_str(&format!("\nby {header}:\n"));
    for (name, (_, n, extra)) in names.iter().zip(&rows) {
        let line = format!("  {n:>digits$}  {name:<width$}  {extra}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// The folder a doc is in (`docs/guide/`), `./` for one at the top.
fn folder(name: &str) -> &str {
    match name.rfind('/') {
        Some(i) => &name[..=i],
        None => "./",
    }
}

fn percent(part: usize, whole: usize) -> usize {
    (part * 100).checked_div(whole).unwrap_or(0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_command_follows_what_is_left() {
        assert_eq!(
            next(5, 2, 0, 0),
            "citegate fix (repairs 2), then citegate baseline (the 3 left)"
        );
        assert_eq!(next(2, 2, 0, 0), "citegate fix (repairs all 2)");
        assert!(next(3, 0, 0, 0).starts_with("citegate baseline (to accept the 3 findings"));
        assert!(next(0, 0, 0, 1).starts_with("citegate baseline --prune (1 baseline entry"));
        assert!(next(0, 0, 4, 0).starts_with("nothing new; 4 not counted"));
        assert_eq!(folder("README.md"), "./");
        assert_eq!(folder("docs/guide/a.md"), "docs/guide/");
    }
}
