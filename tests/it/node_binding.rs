//! The npm package (`bindings/node/`) as a user gets it: the addon built by `@napi-rs/cli`, the
//! package `npm pack`ed, the tarball `npm install`ed into a fresh folder (offline: it has no
//! dependencies), and its `node --test` suite run there, through both entry points (ESM and
//! CommonJS), against this build's `citegate` binary on the shared fixtures (`tests/bindings/`).
//! The addon's build is cached (`citegate-ci/node-target`): a warm run rebuilds only what changed.
//!
//! The tools (Node and npm, `@napi-rs/cli` in `citegate-ci/node-tools`) come from
//! `scripts/test-clients.sh`; when one is missing the test fails in CI and is skipped elsewhere,
//! saying so.

use std::path::Path;
use std::process::Command;

use crate::common;

/// The Docusaurus plugin in a real site build: under this module, so that `--skip node_binding`
/// (what a run not about the bindings passes) skips it and its addon build too.
mod docusaurus;

/// The addon as `napi build --platform` left it in `bindings/node`: the `index.d.ts` committed
/// before the build and the one it generated.
pub struct Built {
    types: String,
    generated: String,
}

/// The addon, built once per test run (this test and the Docusaurus plugin's, `docusaurus`,
/// both load it from `bindings/node`; two builds at once would write the same files); `None`
/// when `@napi-rs/cli` is missing (a failure in CI).
pub fn addon() -> Option<&'static Built> {
    static BUILT: std::sync::OnceLock<Option<Built>> = std::sync::OnceLock::new();
    let build = || {
        let cache = common::ci_cache();
        let napi = cache.join("node-tools/node_modules/.bin/napi");
        let napi = common::tool(napi, "@napi-rs/cli")?;
        let binding = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/node");
        let types = std::fs::read_to_string(binding.join("index.d.ts")).unwrap_or_default();
        common::run(
            Command::new(&napi)
                .args(["build", "--platform"])
                .current_dir(&binding)
                .env("CARGO_TARGET_DIR", cache.join("node-target")),
            "napi build",
        );
        let generated = std::fs::read_to_string(binding.join("index.d.ts")).unwrap();
        Some(Built { types, generated })
    };
    BUILT.get_or_init(build).as_ref()
}

#[test]
fn the_packed_package_installs_in_a_fresh_folder_and_its_tests_pass_there() {
    let Some(built) = addon() else {
        return;
    };
    if Command::new("npm").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "npm is missing");
        eprintln!("skipped: npm is missing (scripts/test-clients.sh installs it)");
        return;
    }
    let binding = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/node");
    assert_eq!(
        built.types, built.generated,
        "bindings/node/index.d.ts is not the generated one: commit it"
    );
    let work = tempfile::tempdir().unwrap();
    let npm = |args: &[&str], dir: &Path, what: &str| {
        common::run(Command::new("npm").args(args).current_dir(dir), what)
    };
    let dest = work.path().to_str().unwrap();
    npm(
        &["pack", "--silent", "--pack-destination", dest],
        &binding,
        "npm pack",
    );
    let app = work.path().join("app");
    common::write(&app, "package.json", r#"{"name": "app", "private": true}"#);
    const TESTS: [&str; 4] = [
        "gate.test.mjs",
        "hardening.test.mjs",
        "cjs.test.cjs",
        "docusaurus.test.cjs",
    ];
    for test in [&["fixtures.mjs"][..], &TESTS].concat() {
        let text = std::fs::read(binding.join("test").join(test)).unwrap();
        common::write(&app, &format!("test/{test}"), text);
    }
    let tarball = work.path().join("citegate-node-0.1.0.tgz");
    let install = [
        "install",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--omit=optional",
    ];
    npm(
        &[&install[..], &[tarball.to_str().unwrap()]].concat(),
        &app,
        "npm install",
    );
    let out = common::run(
        Command::new("node")
            .arg("--test")
            .args(TESTS.map(|t| format!("test/{t}")))
            .current_dir(&app)
            .env(
                "CITEGATE_SHARED",
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bindings"),
            )
            .env("CITEGATE_BIN", env!("CARGO_BIN_EXE_citegate")),
        "node --test in the fresh folder",
    );
    assert!(
        out.contains("# fail 0") && out.contains("# skipped 0"),
        "{out}"
    );
}

/// Issue 60: in a clone, `npm install` in `bindings/node` succeeds without building the addon, and
/// `require` then failed with `Cannot find module 'citegate-linux-x64-gnu'` and no hint. The
/// package without any `.node` file, through both entry points: the error names the command.
#[test]
fn without_an_addon_the_package_says_to_run_npm_run_build() {
    if Command::new("node").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "node is missing");
        eprintln!("skipped: node is missing (scripts/test-clients.sh installs it)");
        return;
    }
    let binding = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/node");
    let package = tempfile::tempdir().unwrap();
    for file in [
        "package.json",
        "index.js",
        "index.cjs",
        "index.mjs",
        "index.d.ts",
    ] {
        std::fs::copy(binding.join(file), package.path().join(file)).unwrap();
    }
    let dir = package.path().to_str().unwrap();
    let cjs = format!("require({dir:?})");
    let esm = format!("await import({:?})", format!("{dir}/index.mjs"));
    for (what, args) in [
        ("require", vec!["-e", &cjs]),
        ("import", vec!["--input-type=module", "-e", &esm]),
    ] {
        let out = Command::new("node").args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{what}: loaded without an addon");
        assert!(
            err.contains("cd bindings/node && npm install && npm run build"),
            "{what}: {err}"
        );
    }
}
