//! A report's summary in words: the closing line of the human output, the Markdown summary
//! and `citegate mdbook`'s log (no terminal styling here; `human` adds it).

use citegate_engine::model::Report;

/// What does not count and what `fix` would repair, when there is any: `2 baselined, 1
/// suppressed (not counted); 1 baseline entry fixed (citegate baseline --prune); 3 fixable
/// (citegate fix)`.
pub fn adoption_line(report: &Report) -> String {
    let s = &report.summary;
    let mut parts = Vec::new();
    let set_aside: Vec<String> = (s.suppressed.iter())
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    if !set_aside.is_empty() {
        parts.push(format!("{} (not counted)", set_aside.join(", ")));
    }
    if s.baseline_fixed > 0 {
        let n = s.baseline_fixed;
        let entries = if n == 1 { "entry" } else { "entries" };
        parts.push(format!(
            "{n} baseline {entries} fixed (citegate baseline --prune)"
        ));
    }
    let fixable = fixable(report);
    if fixable > 0 {
        parts.push(format!("{fixable} fixable (citegate fix)"));
    }
    match parts.is_empty() {
        true => String::new(),
        false => format!(
            "{}
",
            parts.join("; ")
        ),
    }
}

/// The findings that count whose fix `citegate fix` applies (safe, not held back).
pub fn fixable(report: &Report) -> usize {
    (report.findings.iter())
        .filter(|f| f.offered_fix().is_some() && f.safe_fix().is_some())
        .count()
}

/// `12 citations in 3 docs (1 skipped) at abcd1234: 2 errors, 1 warning, 0 notes`.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let count = |k: &str| s.by_severity.get(k).copied().unwrap_or(0);
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut skipped = if s.skipped > 0 {
        format!(", {} skipped", s.skipped)
    } else {
        String::new()
    };
    if s.approximate > 0 {
        let refs = plural(s.approximate, "approximate line reference");
        skipped.push_str(&format!(" ({refs} not read)"));
    }
    format!(
        "{} in {}{skipped} at {}: {}, {}, {}\n",
        plural(s.citations, "citation"),
        plural(s.docs, "doc"),
        citegate_engine::model::report::short(&report.revision),
        plural(count("error"), "error"),
        plural(count("warning"), "warning"),
        plural(count("note"), "note"),
    )
}
