//! The Python package (`bindings/python/`) as a user gets it: the wheel built by maturin,
//! `pip install`ed into a fresh virtual environment (offline: pytest, and MkDocs and Sphinx for
//! the site-build adapters, from the wheels `scripts/test-clients.sh` downloaded), and its pytest
//! suite run there against this build's
//! `citegate` binary on the shared fixtures (`tests/bindings/`). The wheel's build is cached
//! (`citegate-ci/python-target`): a warm run rebuilds only what changed.
//!
//! The tools (maturin, the pytest wheels) come from `scripts/test-clients.sh`; when one is
//! missing the test fails in CI and is skipped elsewhere, saying so.

use std::path::Path;
use std::process::Command;

use crate::common;

#[test]
fn the_wheel_installs_in_a_fresh_venv_and_its_tests_pass_there() {
    let cache = common::ci_cache();
    let Some(maturin) = common::tool(cache.join("py-tools/bin/maturin"), "maturin") else {
        return;
    };
    let Some(wheels) = common::tool(cache.join("py-wheels"), "the pytest wheels") else {
        return;
    };
    let binding = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/python");
    let work = tempfile::tempdir().unwrap();
    let dist = work.path().join("dist");
    common::run(
        Command::new(&maturin)
            .args(["build", "--quiet", "--locked", "--out"])
            .arg(&dist)
            .current_dir(&binding)
            .env("CARGO_TARGET_DIR", cache.join("python-target")),
        "maturin build",
    );
    let wheel = std::fs::read_dir(&dist)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // Issue 60: PyPI's `citegate` is another project; the distribution is `citegate-python`.
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("citegate_python-0.1.0-"), "{name}");
    let venv = work.path().join("venv");
    common::run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    );
    let python = venv.join("bin/python");
    common::run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-index",
                "--find-links",
            ])
            .arg(&wheels)
            .args(["pytest", "gunicorn"])
            // Issue 62: the site-build adapters' toolchains, through the wheel's own extras.
            .args(["mkdocs-material", "pymdown-extensions", "myst-parser"])
            .arg(format!("{}[mkdocs,sphinx]", wheel.display())),
        "pip install (the wheel with its extras, pytest, gunicorn, the doc toolchains)",
    );
    let out = common::run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
            .current_dir(&binding)
            .env("CITEGATE_BIN", env!("CARGO_BIN_EXE_citegate")),
        "pytest in the fresh venv",
    );
    assert!(out.contains(" passed") && !out.contains("skipped"), "{out}");
}
