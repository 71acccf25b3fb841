//! Issue 62: the Node binding's Docusaurus plugin (`citegate-node/docusaurus`) in a real
//! `docusaurus build`. A tiny site (the classic preset, a doc and a versioned doc) in a fixture
//! repository, with the plugin as a user adds it: a broken citation fails the build with the doc's
//! path and line, its findings are `citegate audit`'s on the same folders, and a fixed site builds
//! (a warning below `failOn` is logged, not failed).
//!
//! Docusaurus and React come from `scripts/test-clients.sh` (`citegate-ci/docusaurus`), the
//! addon from the Node binding's build (`node_binding::addon`); when one is missing the test
//! fails in CI and is skipped elsewhere, saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;

/// The site, in `site/` of a repository whose code is `src/lib.rs`: `docs/intro.md` cites a file
/// that does not exist, `versioned_docs/version-1.0/intro.md` a blank line (a warning).
const SITE: &str = "@@@ commit v1 a site about the code
@@@ file src/lib.rs
pub fn answer() -> u32 {
    42
}

pub fn other() {}
@@@ file site/package.json
{\"name\": \"site\", \"private\": true}
@@@ file site/docusaurus.config.js
module.exports = {
  title: 'demo',
  url: 'https://example.com',
  baseUrl: '/',
  onBrokenLinks: 'warn',
  presets: [['classic', { blog: false, pages: false, theme: {} }]],
  plugins: [['citegate-node/docusaurus', { onBrokenCitations: 'throw' }]],
};
@@@ file site/versions.json
[\"1.0\"]
@@@ file site/docs/intro.md
# Intro

The answer is in `src/lib.rs:1-3`.

The cache lives in `src/nope.rs:3`.
@@@ file site/versioned_docs/version-1.0/intro.md
# Intro, 1.0

The blank line between them is `src/lib.rs:4`.
";

/// The fixture, with `site/node_modules` made of the CI cache's Docusaurus install and this
/// checkout's `bindings/node` as `citegate-node` (links, as `npm link` makes them); `None` when a
/// tool is missing.
fn site() -> Option<(tempfile::TempDir, PathBuf)> {
    let modules = common::ci_cache().join("docusaurus/node_modules");
    let docusaurus = common::tool(modules.join(".bin/docusaurus"), "Docusaurus")?;
    super::addon()?;
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(SITE, &repo).unwrap();
    let site = repo.join("site");
    let linked = site.join("node_modules");
    std::fs::create_dir(&linked).unwrap();
    for entry in std::fs::read_dir(&modules).unwrap() {
        let entry = entry.unwrap();
        std::os::unix::fs::symlink(entry.path(), linked.join(entry.file_name())).unwrap();
    }
    let binding = Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/node");
    std::os::unix::fs::symlink(binding, linked.join("citegate-node")).unwrap();
    assert!(docusaurus.exists());
    Some((dir, site))
}

/// `docusaurus build` in the site.
fn build(site: &Path) -> Output {
    Command::new(site.join("node_modules/.bin/docusaurus"))
        .args(["build", "--no-minify"])
        .current_dir(site)
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0")
        .env("DOCUSAURUS_TELEMETRY_DISABLED", "1")
        .output()
        .unwrap()
}

/// `citegate audit --format json FOLDERS` in the site, each finding as the plugin lists it.
fn audit_lines(site: &Path, folders: &[&str]) -> Vec<String> {
    let args = [&["audit", "--format", "json"][..], folders].concat();
    let out = common::citegate(site, &args);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = |f: &serde_json::Value| {
        let text = |key: &str| f[key].as_str().unwrap().to_string();
        let (line, column) = (&f["line"], &f["column"]);
        let (severity, doc, rule) = (text("severity"), text("doc"), text("rule"));
        format!(
            "- {severity}: {doc}:{line}:{column}: {rule}: {}",
            text("message")
        )
    };
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(line)
        .collect()
}

#[test]
fn a_broken_citation_fails_docusaurus_build_with_the_doc_and_line() {
    let Some((_dir, site)) = site() else {
        return;
    };
    let out = build(&site);
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "the build passed:\n{log}");
    assert!(
        log.contains("citegate: 1 finding at error or worse in docs, versioned_docs:"),
        "{log}"
    );
    let listed: Vec<String> = (log.lines().map(str::trim_start))
        .filter(|l| l.starts_with("- error: ") || l.starts_with("- warning: "))
        .map(str::to_string)
        .collect();
    let expected = "- error: site/docs/intro.md:5:21: invented-path: `src/nope.rs` does not exist";
    assert!(
        listed.len() == 1 && listed[0].starts_with(expected),
        "{log}"
    );
    // The audit of the same folders finds the same error, in the same words.
    let audit = audit_lines(&site, &["docs", "versioned_docs"]);
    let errors: Vec<&String> = audit
        .iter()
        .filter(|l| l.starts_with("- error: "))
        .collect();
    assert_eq!(errors, listed.iter().collect::<Vec<_>>());
    // The versioned doc's warning is logged, not failed.
    let warning = audit.iter().find(|l| l.starts_with("- warning: ")).unwrap();
    let logged = format!("citegate: {}", &warning[2..]);
    assert!(log.contains(&logged), "{logged:?} not in\n{log}");
    assert!(
        warning.contains("site/versioned_docs/version-1.0/intro.md:3:"),
        "{warning}"
    );
}

#[test]
fn a_fixed_site_builds() {
    let Some((_dir, site)) = site() else {
        return;
    };
    common::write(
        &site,
        "docs/intro.md",
        "# Intro\n\nThe answer is in `src/lib.rs:1-3`.\n",
    );
    let out = build(&site);
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the build failed:\n{log}");
    assert!(
        site.join("build/docs/next/intro/index.html").exists(),
        "{log}"
    );
    assert!(
        log.contains("citegate: warning: site/versioned_docs/version-1.0/intro.md:3:"),
        "{log}"
    );
}
