//! The README stays true: its rule table is the catalogue and its usage block is `--help`.

use assert_cmd::Command;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let a = text
        .find(start)
        .unwrap_or_else(|| panic!("{start} in README"))
        + start.len();
    let b = text[a..]
        .find(end)
        .unwrap_or_else(|| panic!("{end} in README"))
        + a;
    text[a..b].trim()
}

#[test]
fn rule_table_matches_the_catalogue() {
    let mut table =
        String::from("| rule | family | default severity | what it flags |\n|---|---|---|---|\n");
    for rule in citegate::registry::RuleId::ALL {
        let info = rule.info();
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            rule.as_str(),
            info.family.as_str(),
            info.severity.as_str(),
            info.summary
        ));
    }
    assert_eq!(
        between(&readme(), "<!-- rules:start -->", "<!-- rules:end -->"),
        table.trim()
    );
}

#[test]
fn usage_block_is_the_help_text() {
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .args(["audit", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let readme = readme();
    let block = between(&readme, "<!-- usage:start -->", "<!-- usage:end -->");
    let block = block
        .strip_prefix("```text")
        .and_then(|b| b.strip_suffix("```"))
        .expect("a text fence");
    assert_eq!(block.trim(), help.trim());
}
