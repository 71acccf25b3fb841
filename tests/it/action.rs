//! The Action's shell step, run as GitHub runs it: the event payload with the pull request's base,
//! `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT` and the `INPUT_*` variables, over a fixture repository
//! with a docs change. Only the docs the change can affect are annotated.

use crate::common;
use std::path::Path;
use std::process::Command;

const SPEC: &str = "@@@ commit base code and docs
@@@ file src/a.rs
fn a() {}
fn b() {}
@@@ file docs/old.md
Untouched and broken, but not part of this change: src/a.rs:40.
@@@ commit head the pull request's change
@@@ file docs/new.md
Broken in this change: src/a.rs:9.
Fine: src/a.rs:1.
";

/// The outputs a step wrote to `$GITHUB_OUTPUT`, as GitHub reads them: `name=value` lines and
/// `name<<DELIMITER` blocks.
fn outputs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                value.push(l);
            }
            out.push((name.to_string(), value.join("\n")));
        } else if let Some((name, value)) = line.split_once('=') {
            out.push((name.to_string(), value.to_string()));
        }
    }
    out
}

/// Run `scripts/action.sh` in `repo` with the variables GitHub sets and `inputs`.
fn action(
    repo: &Path,
    temp: &Path,
    event: Option<&Path>,
    inputs: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = Command::new("bash");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh"))
        .current_dir(repo)
        .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
        .env("RUNNER_TEMP", temp)
        .env("GITHUB_STEP_SUMMARY", temp.join("summary.md"))
        .env("GITHUB_OUTPUT", temp.join("output.txt"));
    if let Some(event) = event {
        cmd.env("GITHUB_EVENT_PATH", event);
    }
    for (k, v) in inputs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn action_step_annotates_the_change_writes_the_summary_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let labels = citegate::fixture::build(SPEC, &repo).unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(
        &event,
        format!(
            r#"{{"pull_request": {{"base": {{"ref": "main", "sha": "{}"}}, "head": {{"sha": "{}"}}}}}}"#,
            labels["base"], labels["head"]
        ),
    )
    .unwrap();
    let temp = dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let (summary, output) = (temp.join("summary.md"), temp.join("output.txt"));
    let inputs = [
        ("INPUT_PATHS", "docs"),
        ("INPUT_FAIL_ON", "error"),
        ("INPUT_SARIF", "true"),
    ];
    let out = action(&repo, &temp, Some(&event), &inputs);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 1, "{stdout}");
    assert!(
        annotations[0].starts_with(
            "::error file=docs/new.md,line=1,col=24,endColumn=34,title=citegate invented-lines::"
        ),
        "{}",
        annotations[0]
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("## citegate audit"), "{md}");
    assert!(md.contains("`docs/new.md:1`"), "{md}");
    assert!(!md.contains("docs/old.md"), "{md}");
    let written = outputs(&std::fs::read_to_string(&output).unwrap());
    for (name, value) in [
        ("errors", "1"),
        ("warnings", "0"),
        ("findings", "1"),
        ("docs", "1"),
    ] {
        assert!(
            written.iter().any(|(n, v)| n == name && v == value),
            "{name}={value} in {written:?}"
        );
    }
    // The SARIF is written under RUNNER_TEMP, never into the work tree.
    let sarif = &written.iter().find(|(n, _)| n == "sarif").unwrap().1;
    assert!(Path::new(sarif).starts_with(&temp), "{sarif}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sarif).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "invented-lines");
}

#[test]
fn action_step_says_what_to_fetch_when_the_base_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(SPEC, &repo).unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(
        &event,
        r#"{"pull_request": {"base": {"sha": "1111111111111111111111111111111111111111"}}}"#,
    )
    .unwrap();
    let out = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh"))
        .current_dir(&repo)
        .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
        .env("GITHUB_EVENT_PATH", &event)
        .env("INPUT_PATHS", "docs")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("::error title=citegate::") && stdout.contains("fetch-depth: 0"),
        "{stdout}"
    );
}

/// A pull request commits `citegate.sarif` as a link to a script a later step runs (the
/// Action's own `comment.sh`) and asks for SARIF at that name: nothing is written through the
/// link, and the reports are under RUNNER_TEMP.
#[cfg(unix)]
#[test]
fn a_committed_symlink_where_a_report_goes_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("comment.sh");
    std::fs::write(&victim, "echo the action's own script\n").unwrap();
    let spec = format!(
        "{SPEC}@@@ symlink citegate.sarif {}\n@@@ symlink report.md {}\n",
        victim.display(),
        victim.display()
    );
    let repo = dir.path().join("repo");
    citegate::fixture::build(&spec, &repo).unwrap();
    let temp = dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let out = action(
        &repo,
        &temp,
        None,
        &[("INPUT_PATHS", "docs"), ("INPUT_SARIF", "citegate.sarif")],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "echo the action's own script\n"
    );
    for link in ["citegate.sarif", "report.md"] {
        let meta = std::fs::symlink_metadata(repo.join(link)).unwrap();
        assert!(
            meta.file_type().is_symlink(),
            "{link} was replaced in the work tree"
        );
    }
}

#[test]
fn action_paths_are_one_per_line_and_never_options() {
    let dir = tempfile::tempdir().unwrap();
    let spec = format!("{SPEC}@@@ file answers/a.md\nAlso broken: src/a.rs:99.\n");
    let repo = dir.path().join("repo");
    citegate::fixture::build(&spec, &repo).unwrap();
    let temp = dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    // Two lines, two folders: both audited.
    let out = action(&repo, &temp, None, &[("INPUT_PATHS", "docs\nanswers\n")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("file=docs/new.md"), "{stdout}");
    assert!(stdout.contains("file=answers/a.md"), "{stdout}");
    // An option smuggled into a path, or a path that looks like an option: refused, exit 2,
    // and no file planted.
    for paths in ["docs\n--shard=7/1000000", "--write=json=planted.json"] {
        let out = action(&repo, &temp, None, &[("INPUT_PATHS", paths)]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{paths:?}: {stdout}");
        assert!(stdout.contains("must not start with '-'"), "{stdout}");
    }
    assert!(!repo.join("planted.json").exists());
    // An option after a value on the same line is part of the path: no such path, exit 2.
    let out = action(
        &repo,
        &temp,
        None,
        &[("INPUT_PATHS", "docs --shard=7/1000000")],
    );
    assert_eq!(out.status.code(), Some(2));
    // Other inputs are values too.
    let out = action(&repo, &temp, None, &[("INPUT_TARGET", "--worktree")]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn outputs_use_a_random_delimiter_that_no_value_can_close() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(SPEC, &repo).unwrap();
    let mut delims = Vec::new();
    for run in 0..2 {
        let temp = dir.path().join(format!("temp{run}"));
        std::fs::create_dir_all(&temp).unwrap();
        action(&repo, &temp, None, &[("INPUT_PATHS", "docs")]);
        let text = std::fs::read_to_string(temp.join("output.txt")).unwrap();
        let first = text.lines().next().unwrap().to_string();
        let (name, delim) = first.split_once("<<").unwrap();
        assert_eq!(name, "errors");
        assert!(delim.len() > 30, "{delim}");
        delims.push(delim.to_string());
        let written = outputs(&text);
        assert!(
            written.iter().any(|(n, v)| n == "errors" && v == "2"),
            "{written:?}"
        );
    }
    assert_ne!(delims[0], delims[1]);
}

/// A folder standing in for a GitHub release: `v0.1.0/citegate-TARGET.tar.gz` (holding a stand-in
/// `citegate` that prints which asset it came from) and `citegate-TARGET.sha256`.
fn fake_release(dir: &Path, targets: &[&str], corrupt: bool) -> std::path::PathBuf {
    let release = dir.join("releases");
    let version = release.join("v0.1.0");
    std::fs::create_dir_all(&version).unwrap();
    for target in targets {
        let stage = dir.join(format!("stage-{target}"));
        std::fs::create_dir_all(&stage).unwrap();
        let bin = stage.join("citegate");
        std::fs::write(
            &bin,
            format!("#!/bin/sh\necho \"citegate 0.1.0 ({target})\"\n"),
        )
        .unwrap();
        let mut perms = std::fs::metadata(&bin).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&bin, perms).unwrap();
        let asset = format!("citegate-{target}.tar.gz");
        let ok = Command::new("tar")
            .args([
                "-czf",
                version.join(&asset).to_str().unwrap(),
                "-C",
                stage.to_str().unwrap(),
                "citegate",
            ])
            .status()
            .unwrap();
        assert!(ok.success());
        let sum = Command::new("sha256sum")
            .arg(version.join(&asset))
            .output()
            .unwrap();
        let mut hash = String::from_utf8_lossy(&sum.stdout)
            .split_whitespace()
            .next()
            .unwrap()
            .to_string();
        if corrupt {
            hash = hash.replace(|c: char| c != '0', "0");
        }
        std::fs::write(
            version.join(format!("citegate-{target}.sha256")),
            format!("{hash}  {asset}\n"),
        )
        .unwrap();
    }
    release
}

fn install(
    dir: &Path,
    release: &Path,
    os: &str,
    arch: &str,
    version: &str,
) -> std::process::Output {
    let fake_bin = fake_bin(dir);
    // CMake is there: the fallback builds the default features (zlib-ng included).
    script(&fake_bin.join("cmake"), "#!/bin/sh\nexit 0\n");
    let path = format!("{}:{}", fake_bin.display(), std::env::var("PATH").unwrap());
    run_install(dir, release, (os, arch, version), &path)
}

/// A folder of stand-ins: a `cargo` that records how the fallback build is asked for.
fn fake_bin(dir: &Path) -> std::path::PathBuf {
    let fake_bin = dir.join("fake-bin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    script(
        &fake_bin.join("cargo"),
        &format!(
            "#!/bin/sh\necho \"$@\" > {}\nroot=\"$4\"\nmkdir -p \"$root/bin\"\nprintf '#!/bin/sh\\necho citegate source\\n' > \"$root/bin/citegate\"\nchmod +x \"$root/bin/citegate\"\n",
            dir.join("cargo-args").display()
        ),
    );
    fake_bin
}

fn script(file: &Path, text: &str) {
    std::fs::write(file, text).unwrap();
    let mut perms = std::fs::metadata(file).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(file, perms).unwrap();
}

fn run_install(
    dir: &Path,
    release: &Path,
    (os, arch, version): (&str, &str, &str),
    path: &str,
) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install.sh");
    Command::new(which("bash"))
        .arg(script)
        .env("PATH", path)
        .env("RUNNER_OS", os)
        .env("RUNNER_ARCH", arch)
        .env("GITHUB_ACTION_REF", version)
        .env("GITHUB_ACTION_PATH", "/the/action")
        .env("CITEGATE_RELEASE_URL", release)
        .env("CITEGATE_ROOT", dir.join("root"))
        .env("GITHUB_PATH", dir.join("github-path"))
        .output()
        .unwrap()
}

/// Where `tool` is on the test's own PATH.
fn which(tool: &str) -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join(tool))
        .find(|f| f.is_file())
        .unwrap_or_else(|| panic!("{tool} is not on the PATH"))
}

#[test]
fn install_step_picks_the_asset_for_the_runner_and_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let release = fake_release(
        dir.path(),
        &["x86_64-unknown-linux-musl", "aarch64-unknown-linux-musl"],
        false,
    );
    let out = install(dir.path(), &release, "Linux", "ARM64", "v0.1.0");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("citegate 0.1.0 (aarch64-unknown-linux-musl)"),
        "{stdout}"
    );
    let path = std::fs::read_to_string(dir.path().join("github-path")).unwrap();
    assert_eq!(
        path.trim(),
        dir.path().join("root/bin").display().to_string()
    );
    assert!(!dir.path().join("cargo-args").exists(), "no source build");
}

#[test]
fn install_step_refuses_an_asset_that_fails_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let release = fake_release(dir.path(), &["x86_64-unknown-linux-musl"], true);
    let out = install(dir.path(), &release, "Linux", "X64", "v0.1.0");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not match its SHA-256 checksum"));
    assert!(
        !dir.path().join("root/bin/citegate").exists(),
        "nothing installed"
    );
    assert!(
        !dir.path().join("cargo-args").exists(),
        "no silent source build either"
    );
}

#[test]
fn install_step_refuses_an_asset_without_its_checksum_file() {
    let dir = tempfile::tempdir().unwrap();
    let release = fake_release(dir.path(), &["x86_64-unknown-linux-musl"], false);
    std::fs::remove_file(release.join("v0.1.0/citegate-x86_64-unknown-linux-musl.sha256")).unwrap();
    let out = install(dir.path(), &release, "Linux", "X64", "v0.1.0");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no checksum file"));
    assert!(!dir.path().join("root/bin/citegate").exists());
    assert!(
        !dir.path().join("cargo-args").exists(),
        "no silent source build"
    );
}

#[test]
fn install_step_builds_from_source_only_when_no_asset_fits() {
    for (os, arch, version) in [
        ("Linux", "X64", "main"),
        ("Linux", "X64", "v9.9.9"),
        ("FreeBSD", "X64", "v0.1.0"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let release = fake_release(dir.path(), &["x86_64-unknown-linux-musl"], false);
        let out = install(dir.path(), &release, os, arch, version);
        assert!(
            out.status.success(),
            "{os}/{arch}@{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let args = std::fs::read_to_string(dir.path().join("cargo-args")).unwrap();
        assert_eq!(
            args.trim(),
            format!(
                "install --locked --root {} --path /the/action",
                dir.path().join("root").display()
            ),
            "{os}/{arch}@{version}"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("citegate source"));
    }
}

#[test]
fn install_step_builds_without_zlib_ng_where_cmake_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let release = fake_release(dir.path(), &["x86_64-unknown-linux-musl"], false);
    let fake_bin = fake_bin(dir.path());
    // A PATH with the stand-in cargo and the two tools it runs, and no CMake.
    let tools = dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    for tool in ["mkdir", "chmod"] {
        std::os::unix::fs::symlink(which(tool), tools.join(tool)).unwrap();
    }
    let path = format!("{}:{}", fake_bin.display(), tools.display());
    let out = run_install(dir.path(), &release, ("FreeBSD", "X64", "v0.1.0"), &path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let args = std::fs::read_to_string(dir.path().join("cargo-args")).unwrap();
    assert_eq!(
        args.trim(),
        format!(
            "install --locked --root {} --path /the/action --no-default-features --features mcp,lsp,llm",
            dir.path().join("root").display()
        )
    );
}

#[test]
fn the_report_comment_is_created_once_then_updated() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gh.log");
    let state = dir.path().join("comment-id");
    // A stand-in `gh`: lists a stranger's comment that starts with the marker, and ours once it
    // exists (two pages); records every write. Only ours is ever edited.
    let path = common::fake_gh(
        dir.path(),
        &format!(
            "#!/bin/sh\necho \"$@\" >> {log}\ncase \"$*\" in\n  *--method\\ POST*) echo 4242 > {state} ;;\n  *--paginate*) printf '[{{\"id\": 666, \"user\": {{\"login\": \"mallory\"}}, \"body\": \"<!-- citegate-report --> pwned\"}}]'; if [ -f {state} ]; then printf '[{{\"id\": %s, \"user\": {{\"login\": \"github-actions[bot]\"}}, \"body\": \"<!-- citegate-report -->\"}}]' \"$(cat {state})\"; fi ;;\nesac\n",
            log = log.display(),
            state = state.display()
        ),
    );
    let event = dir.path().join("event.json");
    std::fs::write(&event, r#"{"pull_request": {"number": 7}}"#).unwrap();
    let report = dir.path().join("report.md");
    std::fs::write(&report, "## citegate audit\n").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/comment.sh");
    for _ in 0..2 {
        let out = Command::new("bash")
            .arg(&script)
            .arg(&report)
            .env("PATH", &path)
            .env("GITHUB_REPOSITORY", "acme/docs")
            .env("GITHUB_EVENT_PATH", &event)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let calls = std::fs::read_to_string(&log).unwrap();
    let writes: Vec<&str> = calls.lines().filter(|l| l.contains("--method")).collect();
    assert_eq!(writes.len(), 2, "{calls}");
    assert!(
        writes[0].starts_with("api --method POST repos/acme/docs/issues/7/comments"),
        "{calls}"
    );
    assert!(
        writes[1].starts_with("api --method PATCH repos/acme/docs/issues/comments/4242"),
        "{calls}"
    );
}

#[test]
fn the_sweep_issue_is_one_per_repository_updated_reopened_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gh.log");
    let state = dir.path().join("issue.json");
    // A stand-in `gh api`: the issue list holds a stranger's issue that starts with the marker,
    // and ours once it was created (with the state the last write gave it); every call is logged.
    let path = common::fake_gh(
        dir.path(),
        &format!(
            r#"#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
open({log:?}, "a").write(" ".join(args) + "\n")
state = {state:?}
if "graphql" in args:
    print("github-actions[bot]")
elif "--paginate" in args:
    issues = [{{"number": 666, "state": "open", "user": {{"login": "mallory"}}, "body": "<!-- citegate-sweep --> pwned"}}]
    if os.path.exists(state):
        issues.append(json.load(open(state)))
    print(json.dumps(issues))
elif "POST" in args:
    json.dump({{"number": 12, "state": "open", "user": {{"login": "github-actions[bot]"}}, "body": "<!-- citegate-sweep -->"}}, open(state, "w"))
elif "PATCH" in args:
    issue = json.load(open(state))
    issue["state"] = "closed" if "state=closed" in args else "open"
    json.dump(issue, open(state, "w"))
"#,
            log = log.display().to_string(),
            state = state.display().to_string()
        ),
    );
    let report = dir.path().join("sweep.md");
    std::fs::write(&report, "## citegate sweep\n").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sweep_issue.py");
    let run = |findings: &str| {
        let out = Command::new("python3")
            .arg(&script)
            .arg(&report)
            .arg(findings)
            .arg("https://github.com/acme/docs/actions/runs/1")
            .env("PATH", &path)
            .env("GITHUB_REPOSITORY", "acme/docs")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(run("3").contains("opened"));
    assert!(run("2").contains("updated #12"));
    assert!(run("0").contains("closed #12"));
    assert_eq!(run("0").trim(), "", "already closed: nothing to do");
    assert!(run("1").contains("updated #12"), "reopened, not duplicated");
    let calls = std::fs::read_to_string(&log).unwrap();
    let writes: Vec<&str> = calls.lines().filter(|l| l.contains("--method")).collect();
    assert_eq!(
        writes.iter().filter(|w| w.contains("POST")).count(),
        1,
        "{calls}"
    );
    assert!(
        !calls.contains("issues/666"),
        "a stranger's issue is never touched: {calls}"
    );
    assert_eq!(
        writes.len(),
        4,
        "create, update, close, reopen; nothing on a clean run when closed: {calls}"
    );
    assert!(
        writes[2].contains("state=closed") && writes[3].contains("state=open"),
        "{calls}"
    );
}

#[test]
fn a_sweep_issue_edited_in_the_web_ui_with_crlf_is_still_ours_not_duplicated() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gh.log");
    let state = dir.path().join("issue.json");
    // Our issue, after someone edited it in the browser: GitHub sends the body back with CRLF.
    std::fs::write(
        &state,
        r#"{"number": 12, "state": "open", "user": {"login": "github-actions[bot]"}, "body": "<!-- citegate-sweep -->\r\n## citegate sweep\r\nedited by hand\r\n"}"#,
    )
    .unwrap();
    let path = common::fake_gh(
        dir.path(),
        &format!(
            r#"#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
open({log:?}, "a").write(" ".join(args) + "\n")
state = {state:?}
if "graphql" in args:
    print("github-actions[bot]")
elif "--paginate" in args:
    issues = [{{"number": 666, "state": "open", "user": {{"login": "mallory"}}, "body": "<!-- citegate-sweep --> pwned"}}]
    if os.path.exists(state):
        issues.append(json.load(open(state)))
    print(json.dumps(issues))
elif "POST" in args:
    json.dump({{"number": 12, "state": "open", "user": {{"login": "github-actions[bot]"}}, "body": "<!-- citegate-sweep -->"}}, open(state, "w"))
elif "PATCH" in args:
    issue = json.load(open(state))
    issue["state"] = "closed" if "state=closed" in args else "open"
    json.dump(issue, open(state, "w"))
"#,
            log = log.display().to_string(),
            state = state.display().to_string()
        ),
    );
    let report = dir.path().join("sweep.md");
    std::fs::write(&report, "## citegate sweep\n").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sweep_issue.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&report)
        .arg("2")
        .env("PATH", &path)
        .env("GITHUB_REPOSITORY", "acme/docs")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("updated #12"));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        !calls.contains("POST"),
        "a second issue was opened: {calls}"
    );
}

#[test]
fn a_failed_sweep_is_reported_in_its_own_issue_inert() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gh.log");
    let bodies = dir.path().join("bodies");
    std::fs::create_dir_all(&bodies).unwrap();
    // A stand-in `gh api`: no issue yet; each body written is kept (`-F body=@FILE`).
    let path = common::fake_gh(
        dir.path(),
        &format!(
            r#"#!/usr/bin/env python3
import os, shutil, sys
args = sys.argv[1:]
open({log:?}, "a").write(" ".join(args) + "\n")
if "graphql" in args:
    print("github-actions[bot]")
elif "--paginate" in args:
    print("[]")
for a in args:
    if a.startswith("body=@"):
        shutil.copy(a[6:], os.path.join({bodies:?}, str(len(os.listdir({bodies:?})))))
"#,
            log = log.display().to_string(),
            bodies = bodies.display().to_string()
        ),
    );
    // Why shard 2/4 failed, as the workflow records it: citegate's error quoting the stranger's
    // configuration, with a fence and a mention in it.
    let failed = dir.path().join("failed.txt");
    std::fs::write(
        &failed,
        "shard 2/4: citegate exited 2\n.citegate.yaml:3:1: unknown key ```` @octocat\n",
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sweep_issue.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&failed)
        .arg("failed")
        .env("PATH", &path)
        .env("GITHUB_REPOSITORY", "acme/central")
        .env("SWEEP_FOR", "acme/docs")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("opened the sweep issue (the sweep failed)")
    );
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls.contains("--method POST repos/acme/central/issues"),
        "{calls}"
    );
    assert!(calls.contains("title=Citation sweep: acme/docs"), "{calls}");
    let body = std::fs::read_to_string(bodies.join("0")).unwrap();
    assert!(
        body.starts_with("<!-- citegate-sweep acme/docs -->\n## Citation sweep failed"),
        "{body}"
    );
    assert!(
        body.contains("\n`````text\nshard 2/4: citegate exited 2\n"),
        "{body}"
    );
    assert!(
        body.contains("unknown key ```` @\u{200b}octocat\n`````\n"),
        "{body}"
    );
}

#[test]
fn the_action_fails_closed_on_a_shallow_checkout_unless_history_is_off_on_purpose() {
    // Issue 32: actions/checkout's default is a depth-1 clone, where a stale citation used to
    // pass silently. The Action now fails with `history-cut`; `history: false` is the way to
    // say history is off on purpose.
    let spec = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c() {}\n\
                @@@ commit docs the doc\n@@@ file docs/a.md\nThe third function is src/a.rs:3.\n\
                @@@ commit v2 line 3 changes\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c2() {}\n";
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    citegate::fixture::build(spec, &full).unwrap();
    let repo = dir.path().join("checkout");
    let status = Command::new("git")
        .args(["clone", "-q", "--depth", "1"])
        .arg(format!("file://{}", full.display()))
        .arg(&repo)
        .status()
        .unwrap();
    assert!(status.success());
    let run = |history: &str| {
        let temp = dir.path().join(format!("temp-{history}"));
        std::fs::create_dir_all(&temp).unwrap();
        let inputs = [
            ("INPUT_PATHS", "docs"),
            ("INPUT_HISTORY", history),
            ("INPUT_FAIL_ON", "error"),
            ("INPUT_FORMAT", "github"),
        ];
        let out = action(&repo, &temp, None, &inputs);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, stdout) = run("true");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("history-cut"), "{stdout}");
    assert!(stdout.contains("fetch-depth: 0"), "{stdout}");
    let (code, stdout) = run("false");
    assert_eq!(code, Some(0), "{stdout}");
    let (code, _) = run("maybe");
    assert_eq!(code, Some(2));
}

/// Issue 59: the `baseline` input. Empty, the repository's `.citegate-baseline.json` is read (its
/// findings baselined, the step green); `false`, none is (they fail again); a path, that file;
/// an option-looking value is refused.
#[test]
fn the_baseline_input_reads_the_repository_s_file_another_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(SPEC, &repo).unwrap();
    let made = common::citegate(&repo, &["baseline", "docs"]);
    assert!(made.status.success(), "{made:?}");
    let run = |name: &str, baseline: &str| {
        let temp = dir.path().join(format!("temp-{name}"));
        std::fs::create_dir_all(&temp).unwrap();
        let inputs = [
            ("INPUT_PATHS", "docs"),
            ("INPUT_FAIL_ON", "error"),
            ("INPUT_BASELINE", baseline),
        ];
        let out = action(&repo, &temp, None, &inputs);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let written = std::fs::read_to_string(temp.join("output.txt")).unwrap_or_default();
        let errors = (outputs(&written).into_iter())
            .find(|(n, _)| n == "errors")
            .map(|(_, v)| v);
        (out.status.code(), stdout, errors)
    };
    // The default: the repository's baseline holds both findings.
    let (code, stdout, errors) = run("default", "");
    assert_eq!((code, errors.as_deref()), (Some(0), Some("0")), "{stdout}");
    assert!(!stdout.contains("::error"), "{stdout}");
    // `false`: no baseline, both fail; the repository's file is not touched.
    let before = std::fs::read(repo.join(".citegate-baseline.json")).unwrap();
    let (code, stdout, errors) = run("none", "false");
    assert_eq!((code, errors.as_deref()), (Some(1), Some("2")), "{stdout}");
    assert_eq!(stdout.matches("::error file=docs/").count(), 2, "{stdout}");
    assert_eq!(
        std::fs::read(repo.join(".citegate-baseline.json")).unwrap(),
        before
    );
    // A path: that file (here the repository's, moved).
    std::fs::rename(
        repo.join(".citegate-baseline.json"),
        repo.join("ci-baseline.json"),
    )
    .unwrap();
    assert_eq!(
        run("moved-default", "").0,
        Some(1),
        "no file at the root now"
    );
    let (code, stdout, _) = run("path", "ci-baseline.json");
    assert_eq!(code, Some(0), "{stdout}");
    // A missing file named on purpose is an error, never an empty baseline.
    assert_eq!(run("missing", "nowhere.json").0, Some(2));
    let (code, stdout, _) = run("option", "--prune");
    assert_eq!(code, Some(2));
    assert!(
        stdout.contains("input baseline must not start with '-'"),
        "{stdout}"
    );
}
