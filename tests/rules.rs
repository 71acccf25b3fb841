//! Every rule's catalogue example is run: its failing doc must trigger the rule, its passing doc
//! must not.

use assert_cmd::Command;
use citegate::rules::RuleId;

#[test]
fn every_rule_example_fails_and_passes_as_documented() {
    let mut problems = Vec::new();
    for rule in RuleId::ALL {
        let example = &rule.info().example;
        let dir = tempfile::tempdir().unwrap();
        let labels = citegate::fixture::build(&example.repo, dir.path()).unwrap();
        let ext = example.doc.rsplit('.').next().unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        for (name, text) in [("fail", &example.fail), ("pass", &example.pass)] {
            let text = citegate::fixture::substitute(text, &labels).unwrap();
            std::fs::write(dir.path().join(format!("docs/{name}.{ext}")), text).unwrap();
        }
        let out = Command::cargo_bin("citegate")
            .unwrap()
            .args(["audit", "docs", "--format", "json"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{rule}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let fired = |doc: &str| {
            report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["rule"] == rule.as_str() && f["doc"] == format!("docs/{doc}.{ext}"))
        };
        if !fired("fail") {
            problems.push(format!(
                "{rule}: the failing example is not flagged: {}",
                report["findings"]
            ));
        }
        if fired("pass") {
            problems.push(format!("{rule}: the passing example is flagged"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
