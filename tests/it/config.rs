//! The configuration's committed JSON Schema is current, the guide's example configuration is
//! valid, and a bad configuration is a located error with exit code 2.

use assert_cmd::Command;

const SCHEMA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/citegate.schema.json");

#[test]
fn committed_schema_is_generated_from_the_config_types() {
    let generated = citegate::config::json_schema();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(SCHEMA, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(SCHEMA).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/citegate.schema.json is stale: run `UPDATE_SCHEMA=1 cargo test --test config`"
    );
}

#[test]
fn guide_example_configuration_is_valid() {
    let chapter = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/configuration.md"
    ))
    .unwrap();
    let start = chapter
        .find("```yaml\n# .citegate.yaml")
        .expect("docs/src/configuration.md has the example")
        + 8;
    let end = chapter[start..].find("```").unwrap() + start;
    citegate::config::Config::parse(
        std::path::Path::new("docs/src/configuration.md"),
        &chapter[start..end],
    )
    .unwrap_or_else(|e| panic!("docs/src/configuration.md example: {e}"));
}

#[test]
fn configuration_changes_severities_syntaxes_and_targets() {
    let spec = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\n@@@ file docs/a.md\nBad src/a.rs:9 and `nope` in src/a.rs:1.\n\
                @@@ file docs/gen/b.md\nBad src/a.rs:7.\n@@@ file answers/a.json\n{\"summary\": \"s\", \"citations\": []}\n\
                @@@ file .citegate.yaml\nrules: {unsupported-literal: off}\noverrides:\n  - paths: ['docs/gen/**']\n    rules: {invented-lines: warning}\nsyntaxes: {json: false}\nexclude: ['answers/**']\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .args(["audit", "--format", "json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["doc"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("docs/a.md".to_string(), "error".to_string()),
            ("docs/gen/b.md".to_string(), "warning".to_string()),
        ]
    );

    // A flag overrides the file; a broken file is exit 2 with its line.
    std::fs::write(dir.path().join(".citegate.yaml"), "max-span-lines: 0\n").unwrap();
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .arg("audit")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("max-span-lines must be at least 1") && err.contains(".citegate.yaml:1:1"),
        "{err}"
    );
}

#[test]
fn a_remap_that_leaves_the_repository_is_a_located_configuration_error() {
    for repo in ["../outside/", "services/../api/", "/etc/", "'..'"] {
        let spec = format!(
            "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {{}}\n@@@ file wiki/a.md\nSee src/a.rs:1.\n\
             @@@ file .citegate.yaml\ninclude: ['**']\nremap:\n  - docs: wiki/\n    repo: {repo}\n"
        );
        let dir = tempfile::tempdir().unwrap();
        citegate::fixture::build(&spec, dir.path()).unwrap();
        let out = Command::cargo_bin("citegate")
            .unwrap()
            .args(["audit", "wiki"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{repo}: {stderr}");
        assert!(stderr.contains("remap `repo`"), "{repo}: {stderr}");
        assert!(stderr.contains(".citegate.yaml:4:"), "{repo}: {stderr}");
        assert!(!stderr.contains("fetch"), "{repo}: {stderr}");
    }
}
