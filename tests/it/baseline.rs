//! Adopting citegate on a repository with findings already (issue 59): the baseline (keyed by
//! fingerprint, surviving lines added above; a changed finding is new; fixed entries pruned),
//! suppression comments (with a reason; unused or refused ones warned of), waivers judged on an
//! injected day, and SARIF `suppressions` valid against the official schema.

use std::path::Path;

use serde_json::Value;

use crate::common;
use citegate::testing::Fixture;

const SPEC: &str = "@@@ commit v1 code
@@@ file src/a.rs
fn a() {
    let ttl = 30;
}
@@@ untracked docs/a.md
Invented: src/nowhere.rs:1.

Again invented: src/gone.rs:2.
";

/// `citegate ARGS` in `dir` with `CITEGATE_TODAY` set: (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::command(dir)
        .env("CITEGATE_TODAY", "2027-03-01")
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap(),
        text(out.stdout),
        text(out.stderr),
    )
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["audit", "--format", "json"];
    all.extend(args);
    let (_, out, err) = run(dir, &all);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"))
}

fn doc(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("docs/a.md")).unwrap()
}

#[test]
fn a_baseline_survives_lines_added_above_and_a_changed_finding_is_new() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    assert_eq!(run(dir, &["audit", "docs"]).0, 1);
    let (code, out, err) = run(dir, &["baseline", "docs"]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(dir.join(".citegate-baseline.json")).unwrap();
    let written: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(written["version"], 1);
    assert_eq!(written["findings"].as_array().unwrap().len(), 2, "{text}");
    // Sorted and stable: a second run writes the same bytes.
    run(dir, &["baseline", "docs"]);
    assert_eq!(
        std::fs::read_to_string(dir.join(".citegate-baseline.json")).unwrap(),
        text
    );
    let (code, out, _) = run(dir, &["audit", "docs"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 baselined (not counted)"), "{out}");
    // Ten lines above every finding: still baselined.
    let shifted = doc(dir)
        .replace("Invented", &format!("{}Invented", "Filler.\n".repeat(10)))
        .replace("Again", &format!("{}Again", "More.\n".repeat(10)));
    common::write(dir, "docs/a.md", &shifted);
    let report = json(dir, &["docs"]);
    assert_eq!(report["summary"]["findings"], 0, "{report:#}");
    assert_eq!(report["summary"]["suppressed"]["baselined"], 2);
    assert_eq!(report["suppressed"][0]["suppression"]["kind"], "baselined");
    // Another citation where one was: a new finding, and the old entry fixed.
    common::write(
        dir,
        "docs/a.md",
        shifted.replace("src/gone.rs:2", "src/elsewhere.rs:2"),
    );
    let report = json(dir, &["docs"]);
    assert_eq!(report["summary"]["findings"], 1, "{report:#}");
    assert_eq!(report["findings"][0]["snippet"], "src/elsewhere.rs:2");
    assert_eq!(report["summary"]["baseline_fixed"], 1);
    assert_eq!(run(dir, &["audit", "docs"]).0, 1);
    // --prune takes the fixed entry out and never adds the new finding.
    assert_eq!(run(dir, &["baseline", "--prune", "docs"]).0, 0);
    let pruned: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(".citegate-baseline.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        pruned["findings"].as_array().unwrap().len(),
        1,
        "{pruned:#}"
    );
    assert_eq!(pruned["findings"][0]["snippet"], "src/nowhere.rs:1");
    assert_eq!(
        run(dir, &["audit", "docs"]).0,
        1,
        "the new finding still fails"
    );
}

#[test]
fn a_baseline_named_with_baseline_is_written_there_and_read_from_there() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    // Not there yet: the file to write (it used to fail, reading it first).
    let (code, out, err) = run(dir, &["baseline", "--baseline", "ci/base.json", "docs"]);
    assert_eq!(code, 2, "no folder ci/: {out}{err}");
    std::fs::create_dir(dir.join("ci")).unwrap();
    let (code, out, err) = run(dir, &["baseline", "--baseline", "ci/base.json", "docs"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ci/base.json: 2 findings (0 before)"), "{out}");
    assert!(!dir.join(".citegate-baseline.json").exists());
    assert_eq!(
        run(dir, &["audit", "--baseline", "ci/base.json", "docs"]).0,
        0
    );
    // Reading one that is not there is still an error (a typo never passes a run).
    let (code, _, err) = run(dir, &["audit", "--baseline", "ci/typo.json", "docs"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn identical_findings_are_counted_and_a_malformed_baseline_fails_with_its_line() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    // Two findings alike in everything the fingerprint reads but their order.
    common::write(dir, "docs/a.md", "src/nowhere.rs:1\n\nsrc/nowhere.rs:1\n");
    run(dir, &["baseline", "docs"]);
    let report = json(dir, &["docs"]);
    assert_eq!(
        report["summary"]["suppressed"]["baselined"], 2,
        "{report:#}"
    );
    common::write(
        dir,
        "docs/a.md",
        "src/nowhere.rs:1\n\nsrc/nowhere.rs:1\n\nsrc/nowhere.rs:1\n",
    );
    assert_eq!(
        json(dir, &["docs"])["summary"]["findings"],
        1,
        "a third one is new"
    );
    common::write(
        dir,
        ".citegate-baseline.json",
        "{\"version\": 1,\n  \"findings\": [\n    {\"doc\": 1}\n]}\n",
    );
    let (code, _, err) = run(dir, &["audit", "docs"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(".citegate-baseline.json:3:"), "{err}");
}

#[test]
fn suppression_comments_need_a_reason_a_finding_and_a_rule_that_can_be_suppressed() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    common::write(
        dir,
        "docs/a.md",
        "<!-- citegate-ignore invented-path: cites the reader's file -->\nInvented: src/nowhere.rs:1.\n\n\
         Again: src/gone.rs:2. <!-- citegate-ignore invented-path -->\n\n\
         <!-- citegate-ignore stale-changed: nothing here -->\nPlain text.\n\n\
         <!-- citegate-disable malformed-doc: refused -->\n<!-- citegate-enable -->\n\n\
         ```text\n<!-- citegate-ignore invented-path: shown, not read -->\n```\n",
    );
    let report = json(dir, &["docs"]);
    assert_eq!(
        report["summary"]["suppressed"]["suppressed"], 2,
        "{report:#}"
    );
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["rule"], "unused-suppression");
            f["message"].as_str().unwrap()
        })
        .collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[0].contains("gives no reason"), "{messages:?}");
    assert!(
        messages[1].contains("suppresses nothing on lines 6-7"),
        "{messages:?}"
    );
    assert!(
        messages[2].contains("`malformed-doc` cannot be suppressed"),
        "{messages:?}"
    );
    let reason = &report["suppressed"][0]["suppression"]["reason"];
    assert_eq!(reason, "cites the reader's file");
}

#[test]
fn suppress_writes_comments_once_and_the_findings_are_suppressed() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    let args = [
        "suppress",
        "--rule",
        "invented-path",
        "--reason",
        "examples of the reader's files",
        "docs",
    ];
    let (code, out, err) = run(dir, &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("docs/a.md: suppressed on 2 lines"), "{out}");
    let once = doc(dir);
    assert!(once.starts_with("Invented: src/nowhere.rs:1. <!-- citegate-ignore invented-path: examples of the reader's files -->\n"), "{once}");
    let (code, out, _) = run(dir, &args);
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(doc(dir), once, "a second run changes nothing");
    assert_eq!(run(dir, &["audit", "docs"]).0, 0);
}

#[test]
fn a_waiver_holds_until_its_day_warns_before_and_fails_after() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    let waiver = |until: &str| {
        format!("waivers:\n  - doc: 'docs/**'\n    rules: [invented-path]\n    until: {until}\n    reason: rewritten next quarter\n")
    };
    // CITEGATE_TODAY is 2027-03-01.
    common::write(dir, ".citegate.yaml", waiver("2027-06-30"));
    let report = json(dir, &["docs"]);
    assert_eq!(report["summary"]["suppressed"]["waived"], 2, "{report:#}");
    assert_eq!(
        report["suppressed"][0]["suppression"]["until"],
        "2027-06-30"
    );
    common::write(dir, ".citegate.yaml", waiver("2027-03-10"));
    let report = json(dir, &["docs"]);
    assert_eq!(
        (
            report["summary"]["warnings"].as_u64(),
            report["summary"]["errors"].as_u64()
        ),
        (Some(2), Some(0)),
        "{report:#}"
    );
    assert!(
        report["findings"][0]["help"]
            .as_str()
            .unwrap()
            .contains("9 day(s) left"),
        "{report:#}"
    );
    common::write(dir, ".citegate.yaml", waiver("2027-02-28"));
    let (code, out, _) = run(dir, &["audit", "docs"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("its waiver ended on 2027-02-28"), "{out}");
    let (code, _, err) = common::command(dir)
        .env("CITEGATE_TODAY", "soon")
        .args(["audit", "docs"])
        .output()
        .map(|o| {
            (
                o.status.code().unwrap(),
                (),
                String::from_utf8(o.stderr).unwrap(),
            )
        })
        .unwrap();
    assert_eq!(code, 2);
    assert!(err.contains("CITEGATE_TODAY `soon`"), "{err}");
}

#[test]
fn sarif_with_suppressions_validates_against_the_official_schema() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    run(dir, &["baseline", "docs"]);
    common::write(
        dir,
        "docs/a.md",
        format!("{}\nNew: src/new.rs:1.\n", doc(dir)),
    );
    let (code, out, _) = run(dir, &["audit", "--format", "sarif", "docs"]);
    assert_eq!(code, 1, "the new finding fails");
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 2);
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "external");
    crate::review::validate_json(
        &sarif,
        &crate::review::schema("sarif-schema-2.1.0.json"),
        false,
    );
    // GitHub annotations leave the baselined findings out.
    let (_, github, _) = run(dir, &["audit", "--format", "github", "docs"]);
    assert_eq!(github.matches("::error").count(), 1, "{github}");
}

#[test]
fn a_suppressed_stale_citation_keeps_the_commit_that_wrote_its_line() {
    // A citation checked at the commit that wrote its line (stale-changed). The comment written
    // at the end of that line is not an edit of it: the line keeps its commit, so the finding
    // stays and is suppressed, before the comment is committed and after. (It used to make the
    // line uncommitted, the citation was then checked at the target, the finding was gone and
    // the comment suppressed nothing.)
    let spec = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c() {}\n\
                @@@ commit docs the doc\n@@@ file docs/a.md\nThe third function is src/a.rs:3.\n\n\
                | Where | What |\n|---|---|\n| src/a.rs:3 | the third |\n\
                @@@ commit v2 line 3 changes\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c2() {}\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let args = [
        "suppress",
        "--rule",
        "stale-changed",
        "--reason",
        "rewritten soon",
        "docs",
    ];
    let out = common::citegate(dir.path(), &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let doc = std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();
    assert_eq!(
        doc,
        "The third function is src/a.rs:3. <!-- citegate-ignore stale-changed: rewritten soon -->\n\n\
         | Where | What |\n|---|---|\n\
         | src/a.rs:3 | the third <!-- citegate-ignore stale-changed: rewritten soon --> |\n"
    );
    for committed in [false, true] {
        if committed {
            commit_all(dir.path(), "docs: suppress");
        }
        let (code, report, _) = run(dir.path(), &["audit", "--format", "json", "docs"]);
        assert_eq!(code, 0, "committed: {committed}: {report}");
        let report: Value = serde_json::from_str(&report).unwrap();
        assert_eq!(report["findings"], serde_json::json!([]), "{report}");
        let suppressed = report["suppressed"].as_array().unwrap();
        assert_eq!(suppressed.len(), 2, "committed: {committed}: {report}");
        for s in suppressed {
            assert_eq!(s["rule"], "stale-changed");
            assert_eq!(s["suppression"]["kind"], "suppressed");
        }
    }
    // A second run writes nothing.
    let again = common::citegate(dir.path(), &args);
    assert_eq!(again.status.code(), Some(0));
    let after = std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();
    assert_eq!(after, doc);
}

/// Commit every change in `dir`'s work tree.
fn commit_all(dir: &std::path::Path, message: &str) {
    let repo = git2::Repository::open(dir).unwrap();
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &[&head])
        .unwrap();
}
