//! The VS Code extension (`editors/vscode/`) packaged with `@vscode/vsce` and run in a real VS
//! Code: code-server (on Node 24) with the `.vsix` installed, driven by headless Chromium through
//! puppeteer-core (`editors/vscode/test/e2e.mjs`), on the bundled example
//! (`fixtures/example.fixture`). The oracles are the CLI's: the Problems panel lists what
//! `citegate audit --format json` reports, and the doc's bytes after the quick fix, and after
//! "citegate: Fix all citations in this doc", are those `citegate fix` writes.
//!
//! `scripts/test-clients.sh` installs the tools (the extension's npm packages, and Node 24,
//! code-server and puppeteer-core into `$CITEGATE_CI_CACHE/vscode`, by default
//! `~/.cache/citegate-ci/vscode`); when one is missing this test fails and says so.
#![cfg(feature = "lsp")]

use std::path::{Path, PathBuf};
use std::process::Command;

use citegate::testing::Fixture;
use serde_json::Value;

use crate::common::{self, run};

const DOC: &str = "docs/wiki/cache.md";

fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode")
}

/// Where `scripts/test-clients.sh` puts Node 24, code-server and puppeteer-core.
fn tools() -> PathBuf {
    if let Some(dir) = std::env::var_os("CITEGATE_VSCODE_TOOLS") {
        return PathBuf::from(dir);
    }
    common::ci_cache().join("vscode")
}

/// `path`, or a failure naming what installs it.
fn needed(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{what} is missing at {} (scripts/test-clients.sh installs it)",
        path.display()
    );
    path
}

/// PATH with Node 24 first (code-server needs it).
fn node_path(tools: &Path) -> std::ffi::OsString {
    let bin = tools.join("node24/node_modules/.bin");
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH joins")
}

/// Compile and package the extension; returns the `.vsix`.
fn package(tools: &Path, out: &Path) -> PathBuf {
    let dir = extension_dir();
    needed(
        dir.join("node_modules/@vscode/vsce"),
        "the extension's npm packages (npm ci)",
    );
    run(
        Command::new("npm")
            .args(["run", "--silent", "package"])
            .current_dir(&dir)
            .env("PATH", node_path(tools)),
        "npm run package (tsc, vsce)",
    );
    let vsix = out.join("citegate.vsix");
    std::fs::copy(dir.join("citegate.vsix"), &vsix).expect("the .vsix is written");
    vsix
}

/// The manifest inside the packaged `.vsix` (a zip; read with Python's zipfile).
fn packaged_manifest(vsix: &Path) -> Value {
    let script = "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('extension/package.json').decode())";
    let text = run(
        Command::new("python3").args(["-c", script]).arg(vsix),
        "reading the .vsix",
    );
    serde_json::from_str(&text).expect("the packaged package.json is JSON")
}

fn check_manifest(manifest: &Value) {
    let events: Vec<&str> = (manifest["activationEvents"].as_array().unwrap().iter())
        .map(|e| e.as_str().unwrap())
        .collect();
    for language in ["markdown", "mdx", "json", "jsonl"] {
        assert!(
            events.contains(&format!("onLanguage:{language}").as_str()),
            "{events:?}"
        );
    }
    let commands: Vec<(&str, &str)> = (manifest["contributes"]["commands"].as_array().unwrap())
        .iter()
        .map(|c| (c["command"].as_str().unwrap(), c["title"].as_str().unwrap()))
        .collect();
    assert!(commands.contains(&("citegate.fixAll", "Fix all citations in this doc")));
    assert!(commands.contains(&("citegate.auditWorkspace", "Audit the workspace")));
    let settings = &manifest["contributes"]["configuration"]["properties"];
    assert_eq!(settings["citegate.path"]["type"], "string");
    // A workspace's settings cannot name the program the extension runs.
    assert_eq!(settings["citegate.path"]["scope"], "machine");
    assert_eq!(
        settings["citegate.trace.server"]["enum"],
        serde_json::json!(["off", "messages", "verbose"])
    );
    assert_eq!(manifest["main"], "./out/extension.js");
    // Nothing Microsoft-only: no proposed API, no extension dependencies.
    assert!(manifest.get("enabledApiProposals").is_none());
    assert!(manifest.get("extensionDependencies").is_none());
}

/// A finding as the Problems panel shows it: (doc, severity, rule, line, column).
type Row = (String, String, String, u64, u64);

fn audit_rows(repo: &Path, doc: Option<&str>) -> Vec<Row> {
    let out = Command::new(env!("CARGO_BIN_EXE_citegate"))
        .args(["audit", "--format", "json"])
        .current_dir(repo)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).expect("audit JSON");
    let mut rows: Vec<Row> = (report["findings"].as_array().unwrap().iter())
        .filter(|f| doc.is_none_or(|d| f["doc"] == d))
        .map(|f| {
            let severity = match f["severity"].as_str().unwrap() {
                "error" => "Error",
                "warning" => "Warning",
                _ => "Info",
            };
            (
                f["doc"].as_str().unwrap().to_string(),
                severity.to_string(),
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect();
    rows.sort();
    rows
}

fn panel_rows(rows: &Value) -> Vec<Row> {
    let mut out: Vec<Row> = (rows.as_array().unwrap().iter())
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_string(),
                r["severity"].as_str().unwrap().to_string(),
                r["code"].as_str().unwrap_or("").to_string(),
                r["line"].as_u64().unwrap(),
                r["column"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The doc's bytes after `citegate fix`, in a copy of the repository.
fn fixed_by_cli(repo: &Path) -> String {
    let copy = tempfile::tempdir().unwrap();
    run(
        Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", repo.display()))
            .arg(copy.path()),
        "copying the example",
    );
    Command::new(env!("CARGO_BIN_EXE_citegate"))
        .arg("fix")
        .current_dir(copy.path())
        .output()
        .unwrap();
    std::fs::read_to_string(copy.path().join(DOC)).unwrap()
}

#[test]
fn the_extension_in_code_server_shows_the_audit_and_writes_the_fix() {
    let tools = tools();
    let node = needed(
        tools.join("node24/node_modules/.bin/node"),
        "Node 24 (npm node@24)",
    );
    needed(tools.join("code-server/.installed"), "code-server (npm)");
    let code_server = tools.join("code-server/node_modules/.bin/code-server");
    let puppeteer = needed(tools.join("puppeteer"), "puppeteer-core (npm)");
    needed(
        puppeteer.join("node_modules/puppeteer-core"),
        "puppeteer-core (npm)",
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string());
    needed(PathBuf::from(&chromium), "Debian's chromium");

    let work = tempfile::tempdir().unwrap();
    let vsix = package(&tools, work.path());
    check_manifest(&packaged_manifest(&vsix));
    run(
        Command::new(&node)
            .args(["--test", "test/binary.test.mjs"])
            .current_dir(extension_dir()),
        "the extension's unit tests (node --test)",
    );

    let spec = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example.fixture"),
    )
    .unwrap();
    let example = Fixture::build(&spec).unwrap();
    let repo = example.path().canonicalize().unwrap();
    let all = audit_rows(&repo, None);
    let doc = audit_rows(&repo, Some(DOC));
    let fixed = fixed_by_cli(&repo);
    let original = std::fs::read_to_string(repo.join(DOC)).unwrap();
    assert_ne!(fixed, original, "the example has a safe fix in {DOC}");

    let scratch = work.path().join("code-server");
    std::fs::create_dir_all(scratch.join("bin")).unwrap();
    // A copy of the binary: the script replaces it to see the server restart.
    let binary = scratch.join("bin/citegate");
    std::fs::copy(env!("CARGO_BIN_EXE_citegate"), &binary).unwrap();
    let out = Command::new(&node)
        .arg(extension_dir().join("test/e2e.mjs"))
        .env("PATH", node_path(&tools))
        .env("CODE_SERVER", &code_server)
        .env("CHROMIUM", &chromium)
        .env("PUPPETEER", &puppeteer)
        .env("VSIX", &vsix)
        .env("CITEGATE_BIN", &binary)
        .env("REPO", &repo)
        .env("WORK", &scratch)
        .env("EXPECT_ALL", all.len().to_string())
        .env("EXPECT_DOC", doc.len().to_string())
        .output()
        .expect("node runs the e2e script");
    if !out.status.success() {
        let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vscode-failure.png");
        let _ = std::fs::copy(scratch.join("failure.png"), &shot);
        panic!(
            "the code-server run failed (screenshot: {}):\n{}",
            shot.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let seen: Value = serde_json::from_slice(&out.stdout).expect("the e2e script prints JSON");

    // "Audit the workspace": every doc's findings, as the CLI reports them.
    assert_eq!(panel_rows(&seen["workspace"]), all);
    let docs = all
        .iter()
        .map(|r| &r.0)
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(
        seen["auditMessage"],
        format!("citegate: {} findings in {} docs.", all.len(), docs.len())
    );
    // The doc opened: its diagnostics are the audit's.
    assert_eq!(panel_rows(&seen["opened"]), doc);
    // The quick fix: the CLI's fix, and its diagnostic goes.
    assert_eq!(
        seen["quickFixTitle"],
        "Cite src/cache.rs:16-17 (unsupported-quote)"
    );
    assert_eq!(seen["afterQuickFix"], fixed.as_str());
    let mut left = doc.clone();
    left.retain(|r| !(r.2 == "unsupported-quote" && r.3 == 20));
    assert_eq!(left.len(), doc.len() - 1);
    assert_eq!(panel_rows(&seen["afterFix"]), left);
    // Undone, then "Fix all citations in this doc": the same bytes.
    assert_eq!(seen["undoneIsOriginal"], true);
    assert_eq!(seen["afterFixAll"], fixed.as_str());
    let shown = seen["notifications"].to_string();
    assert!(
        shown.contains("citegate: the safe fixes are applied (save to keep them)."),
        "{shown}"
    );
    // `citegate.path` changed to no program: the server stops and the error names the setting
    // and the install command; changed back: the doc is checked again.
    let missing = scratch.join("no-such-citegate");
    assert_eq!(
        seen["missingSaid"],
        format!(
            "citegate: citegate.path is \"{}\", which is not an executable file. Install citegate \
             with `cargo install --locked citegate` (or a release binary: \
             https://github.com/citegate/citegate/releases), or set citegate.path to the binary.",
            missing.display()
        )
    );
    assert_eq!(seen["stopped"], "gone");
    assert_eq!(panel_rows(&seen["restarted"]), left);
    // The binary replaced (as `cargo install` does): the server restarts on it.
    assert_eq!(seen["restartedOnReplace"], "restarted");
    assert_eq!(panel_rows(&seen["afterReplace"]), left);
}
