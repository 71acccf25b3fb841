//! Every rule's catalogue example is run in process: its failing doc must trigger the rule, its
//! passing doc must not, and what the failing doc produces (message, help, fix) is snapshotted.

use citegate::audit::AuditOptions;
use citegate::model::Report;
use citegate::registry::RuleId;
use citegate::testing::Fixture;

/// The findings of one doc, one block each: rule, place, message, help, and the fix's edit.
fn render(report: &Report, doc: &str) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let d = &report.docs[f.doc].doc;
        if d.name != doc {
            continue;
        }
        let (line, column) = d.lines.line_col(&d.text, f.span.start);
        out.push_str(&format!(
            "{} {}:{line}:{column}\n  {}\n",
            f.rule, d.name, f.message
        ));
        if let Some(help) = &f.help {
            out.push_str(&format!("  help: {help}\n"));
        }
        if let Some(fix) = &f.fix {
            let before = &d.text[fix.edit.byte_start..fix.edit.byte_end];
            out.push_str(&format!(
                "  fix: {before:?} -> {:?}\n",
                fix.edit.replacement
            ));
        }
    }
    out
}

#[test]
fn every_rule_example_fails_and_passes_as_documented() {
    let mut problems = Vec::new();
    for rule in RuleId::ALL {
        let example = &rule.info().example;
        let fixture = Fixture::build(&example.repo).unwrap();
        let ext = example.doc.rsplit('.').next().unwrap();
        std::fs::create_dir_all(fixture.path().join("docs")).unwrap();
        for (name, text) in [("fail", &example.fail), ("pass", &example.pass)] {
            let text = fixture.substitute(text).unwrap();
            std::fs::write(fixture.path().join(format!("docs/{name}.{ext}")), text).unwrap();
        }
        let report = fixture
            .audit(&["docs"], AuditOptions::default())
            .unwrap_or_else(|e| panic!("{rule}: {e}"));
        let fired = |doc: &str| {
            report.findings.iter().any(|f| {
                f.rule == rule && report.docs[f.doc].doc.name == format!("docs/{doc}.{ext}")
            })
        };
        if !fired("fail") {
            problems.push(format!(
                "{rule}: the failing example is not flagged: {}",
                render(&report, &format!("docs/fail.{ext}"))
            ));
        }
        if fired("pass") {
            problems.push(format!("{rule}: the passing example is flagged"));
        }
        insta::assert_snapshot!(
            format!("example_{}", rule.as_str().replace('-', "_")),
            render(&report, &format!("docs/fail.{ext}"))
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
