//! Finding fingerprints (SARIF `partialFingerprints`, `sweep --history`): the same finding keeps
//! its fingerprint when lines are added above it in the doc or in the cited code; different
//! citations get different ones.

use std::collections::BTreeMap;

use citegate::audit::AuditOptions;
use citegate::testing::Fixture;

const SPEC: &str = "@@@ commit v1 code
@@@ file src/a.rs
fn a() {
    let ttl = 30;
}
@@@ untracked docs/a.md
The TTL is `45` (src/a.rs:2).
It is `45` again (src/a.rs:2).
Invented: src/nowhere.rs:1.
";

/// rule → fingerprints, of an audit of `docs/a.md` written as `doc`, with `code` as src/a.rs.
fn fingerprints(doc: &str, code: &str) -> BTreeMap<String, Vec<String>> {
    let spec = SPEC
        .replace("The TTL is", &format!("{doc}The TTL is"))
        .replace("fn a() {\n", &format!("{code}fn a() {{\n"));
    let fixture = Fixture::build(&spec).unwrap();
    let report = fixture.audit(&["docs"], AuditOptions::default()).unwrap();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &report.findings {
        assert_eq!(f.at.fingerprint.len(), 16, "{:?}", f.at);
        out.entry(f.rule.as_str().to_string())
            .or_default()
            .push(f.at.fingerprint.clone());
    }
    out
}

#[test]
fn fingerprints_survive_line_shifts_and_tell_citations_apart() {
    let base = fingerprints("", "");
    assert_eq!(base["unsupported-literal"].len(), 2, "{base:?}");
    assert_eq!(base["invented-path"].len(), 1);
    // Two alike-looking findings on different lines are different findings.
    assert_ne!(
        base["unsupported-literal"][0],
        base["unsupported-literal"][1]
    );
    // Lines added above, in the doc and in the cited code: the same fingerprints.
    let doc_shifted = fingerprints("# Title\n\nIntro.\n\n", "");
    assert_eq!(doc_shifted, base);
    let code_shifted = fingerprints("", "// header\n// more\n");
    assert_eq!(code_shifted, base);
    // A citation written differently is another finding.
    let edited = {
        let spec = SPEC.replace("src/nowhere.rs:1", "src/elsewhere.rs:1");
        let fixture = Fixture::build(&spec).unwrap();
        let report = fixture.audit(&["docs"], AuditOptions::default()).unwrap();
        let f = report
            .findings
            .iter()
            .find(|f| f.rule.as_str() == "invented-path")
            .unwrap();
        f.at.fingerprint.clone()
    };
    assert_ne!(edited, base["invented-path"][0]);
}

#[test]
fn fingerprints_travel_through_the_json_report_into_sarif() {
    let fixture = Fixture::build(SPEC).unwrap();
    let report = fixture.audit(&["docs"], AuditOptions::default()).unwrap();
    let json = citegate::report::json::render(&report);
    let back = citegate::report::json::read(&json).unwrap();
    let sarif: serde_json::Value =
        serde_json::from_str(&citegate::report::sarif::render(&back)).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), report.findings.len());
    for (r, f) in results.iter().zip(&report.findings) {
        assert_eq!(
            r["partialFingerprints"]["citegate/v1"],
            f.at.fingerprint.as_str()
        );
    }
}
