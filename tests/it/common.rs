//! What the test files share: reading `tests/cases/*.case` files, running the binary in a
//! fixture, writing a file there. Not every test file uses every helper.
#![allow(dead_code)]

/// Harness lines of a case file: the command, its exit code, the citation count, the findings.
const HARNESS: [&str; 4] = ["@@@ args ", "@@@ exit ", "@@@ citations ", "@@@ expect "];

/// The fixture repository part of a case file (see `citegate::fixture`): everything but the
/// leading `#` comment lines and the harness lines.
pub fn fixture_spec(case: &str) -> String {
    let mut spec = String::new();
    for line in case.lines() {
        if HARNESS.iter().any(|h| line.starts_with(h)) || (spec.is_empty() && line.starts_with('#'))
        {
            continue;
        }
        spec.push_str(line);
        spec.push('\n');
    }
    spec
}

/// The `citegate` binary, to be run in `dir` (colours off), for a test to add its arguments and
/// its standard input.
pub fn command(dir: &std::path::Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("citegate").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

/// `citegate ARGS` run in `dir`.
pub fn citegate(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    command(dir).args(args).output().unwrap()
}

/// Write `text` at `path` under `dir`, making its folders.
pub fn write(dir: &std::path::Path, path: &str, text: impl AsRef<[u8]>) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// The text of the file `path` in a case file's fixture (`@@@ file PATH` up to the next `@@@`
/// line), for a test to send the same answers through another surface.
pub fn case_file(case: &str, path: &str) -> String {
    let header = format!("@@@ file {path}");
    let mut lines = case.lines().skip_while(|l| *l != header).skip(1);
    let body: Vec<&str> = lines
        .by_ref()
        .take_while(|l| !l.starts_with("@@@ "))
        .collect();
    assert!(!body.is_empty(), "the case has no file {path}");
    body.join("\n") + "\n"
}

/// The answers of `tests/cases/refusals.case` (issue 31: a refusal is a refusal), one JSON text
/// each, in order, for the gate and the MCP server to check as the audit does.
pub fn refusal_answers() -> (String, Vec<String>) {
    let case = include_str!("../cases/refusals.case");
    let file = case_file(case, "answers/refusals.json");
    let answers: Vec<serde_json::Value> = serde_json::from_str(&file).unwrap();
    (
        fixture_spec(case),
        answers.iter().map(|a| a.to_string()).collect(),
    )
}

/// Run `tests/FOLDER/FILE` with pytest (asyncio mode, no cache) against the `citegate` binary
/// `bin` and the fixture repository `repo` (as `CITEGATE_BIN` and `CITEGATE_REPO`); returns
/// pytest's output, having asserted that it passed with `passed` tests (none skipped).
pub fn pytest(
    folder: &str,
    file: &str,
    bin: &str,
    repo: &std::path::Path,
    passed: usize,
) -> String {
    let dir = format!("{}/tests/{folder}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(["-o", "asyncio_mode=auto"])
        .args(["-o", "asyncio_default_fixture_loop_scope=function"])
        .arg(format!("--rootdir={dir}"))
        .arg(format!("{dir}/{file}"))
        .env("CITEGATE_BIN", bin)
        .env("CITEGATE_REPO", repo)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{file} failed (its clients are installed by scripts/test-clients.sh):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&format!("{passed} passed")), "{stdout}");
    stdout
}

/// The bundled example (`fixtures/example.fixture`, what `scripts/example.sh` builds) as a
/// repository `shop` in a fresh folder.
pub fn example() -> (tempfile::TempDir, std::path::PathBuf) {
    let spec = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example.fixture"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("shop");
    citegate::fixture::build(&spec, &repo).unwrap();
    (dir, repo)
}

/// A stand-in `gh` (the script `text`) in its own folder; returns a PATH that finds it first.
pub fn fake_gh(dir: &std::path::Path, text: &str) -> String {
    let fake_bin = dir.join("bin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    let gh = fake_bin.join("gh");
    std::fs::write(&gh, text).unwrap();
    let mut perms = std::fs::metadata(&gh).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&gh, perms).unwrap();
    format!("{}:{}", fake_bin.display(), std::env::var("PATH").unwrap())
}

/// The cache folder the test tools and the bindings' builds live in
/// (`$CITEGATE_CI_CACHE`, else `$XDG_CACHE_HOME/citegate-ci`, else `~/.cache/citegate-ci`), as
/// `scripts/test-clients.sh` fills it.
pub fn ci_cache() -> std::path::PathBuf {
    use std::path::PathBuf;
    std::env::var_os("CITEGATE_CI_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME").map(|c| PathBuf::from(c).join("citegate-ci"))
        })
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/citegate-ci")))
        .expect("HOME is set")
}

/// `path` when it exists. Missing, a test that needs it fails in CI (`CI` set) and says what
/// installs it; elsewhere it is skipped with the same message (`None`).
pub fn tool(path: std::path::PathBuf, what: &str) -> Option<std::path::PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let why = format!(
        "{what} is missing at {} (scripts/test-clients.sh installs it)",
        path.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// Run `command`; its standard output, or a failure with both outputs.
pub fn run(command: &mut std::process::Command, what: &str) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A proptest configuration running `PROPTEST_CASES` cases when set (a longer run by hand), else
/// `default`.
pub fn proptest_cases(default: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    proptest::test_runner::Config {
        cases,
        ..proptest::test_runner::Config::default()
    }
}

/// The standard output of `git ARGS` in `dir`, with no configuration of this machine read (an
/// oracle must not depend on it); the test fails with git's own message when git does.
pub fn git_oracle(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
