//! What the test files share: reading `tests/cases/*.case` files.

/// Harness lines of a case file: the command, its exit code, the citation count, the findings.
const HARNESS: [&str; 4] = ["@@@ args ", "@@@ exit ", "@@@ citations ", "@@@ expect "];

/// The fixture repository part of a case file (see `citegate::fixture`): everything but the
/// leading `#` comment lines and the harness lines.
pub fn fixture_spec(case: &str) -> String {
    let mut spec = String::new();
    for line in case.lines() {
        if HARNESS.iter().any(|h| line.starts_with(h)) || (spec.is_empty() && line.starts_with('#'))
        {
            continue;
        }
        spec.push_str(line);
        spec.push('\n');
    }
    spec
}
