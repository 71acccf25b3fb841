//! The Action's shell step, run as GitHub runs it: the event payload with the pull request's base,
//! `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT` and the `INPUT_*` variables, over a fixture repository
//! with a docs change. Only the docs the change can affect are annotated.

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
    let summary = dir.path().join("summary.md");
    let output = dir.path().join("output.txt");
    let sarif = dir.path().join("out.sarif");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh");
    let out = Command::new("bash")
        .arg(&script)
        .current_dir(&repo)
        .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .env("INPUT_PATHS", "docs")
        .env("INPUT_FAIL_ON", "error")
        .env("INPUT_SARIF", &sarif)
        .output()
        .unwrap();
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
    let outputs = std::fs::read_to_string(&output).unwrap();
    for line in ["errors=1", "warnings=0", "findings=1", "docs=1"] {
        assert!(outputs.lines().any(|l| l == line), "{line} in {outputs}");
    }
    assert!(outputs.contains(&format!("sarif={}", sarif.display())));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install.sh");
    // A stand-in `cargo` records how the fallback build is asked for.
    let fake_bin = dir.join("fake-bin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    let cargo = fake_bin.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho \"$@\" > {}\nroot=\"$4\"\nmkdir -p \"$root/bin\"\nprintf '#!/bin/sh\\necho citegate source\\n' > \"$root/bin/citegate\"\nchmod +x \"$root/bin/citegate\"\n",
            dir.join("cargo-args").display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&cargo, perms).unwrap();
    let path = format!("{}:{}", fake_bin.display(), std::env::var("PATH").unwrap());
    Command::new("bash")
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
fn the_report_comment_is_created_once_then_updated() {
    let dir = tempfile::tempdir().unwrap();
    let fake_bin = dir.path().join("bin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    let log = dir.path().join("gh.log");
    let state = dir.path().join("comment-id");
    // A stand-in `gh`: lists the marked comment once one exists, records every write.
    let gh = fake_bin.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/bin/sh\necho \"$@\" >> {log}\ncase \"$*\" in\n  *--method\\ POST*) echo 4242 > {state} ;;\n  *--paginate*) cat {state} 2>/dev/null || true ;;\nesac\n",
            log = log.display(),
            state = state.display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&gh).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&gh, perms).unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(&event, r#"{"pull_request": {"number": 7}}"#).unwrap();
    let report = dir.path().join("report.md");
    std::fs::write(&report, "## citegate audit\n").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/comment.sh");
    let path = format!("{}:{}", fake_bin.display(), std::env::var("PATH").unwrap());
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
