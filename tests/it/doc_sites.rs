//! Issue 58: the lines citegate says a code include cites are the lines the built page shows. A
//! tiny site per toolchain (MkDocs with pymdownx.snippets, Sphinx with MyST, Asciidoctor) is built
//! with the real toolchain, each code block of the page is read back from the HTML, and it must
//! equal the lines citegate resolves the include on it to, read from the file at HEAD: a line
//! range as `audit --dump` prints it, a named section as the audit finds it
//! (`check::sections::lines`; the dump, which reads no code, leaves a section's lines null).
//!
//! Issue 58, item 4b: the anchors citegate computes for a page's headings are the `id`s of the
//! headings of the page MkDocs and mdBook build (the generator found from the site's
//! configuration, as `dead-doc-anchor` finds it).
//!
//! The toolchains come from `scripts/test-clients.sh` (the MkDocs and Sphinx venv in the CI
//! cache, Debian's `asciidoctor`); when one is missing the test fails in CI and is skipped
//! elsewhere, saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

use citegate::extract::{self, ExtractContext};
use citegate::model::{Doc, DocKind, IncludePart};

use crate::common;

/// A small Python file for MkDocs and Sphinx: no blank line at any cited range's edge (the
/// highlighter drops those), a snippets section and two Sphinx marker comments.
const APP_PY: &str = r#"import os
import sys
def main():
    print("hello")
    return 0

# --8<-- [start:helper]
def helper():
    return 1
# --8<-- [end:helper]

# start-here
def bye():
    return "bye"
# end-here
"#;

#[test]
fn mkdocs_shows_the_lines_citegate_says_a_snippet_includes() {
    let Some(mkdocs) = common::tool(doc_tools().join("mkdocs"), "MkDocs") else {
        return;
    };
    let spec = format!(
        "@@@ commit v1 a MkDocs site\n@@@ file src/app.py\n{APP_PY}@@@ file mkdocs.yml\n{}@@@ file docs/index.md\n{}",
        "site_name: demo\ntheme:\n  name: material\nmarkdown_extensions:\n  - pymdownx.superfences\n  - pymdownx.snippets:\n      check_paths: true\n",
        "# Demo\n\n```python\n--8<-- \"src/app.py:3:4\"\n```\n\n## Helper\n\n```python\n--8<-- \"src/app.py:helper\"\n```\n",
    );
    let (_dir, repo, html) = mkdocs_build(&mkdocs, &spec);
    assert_eq!(code_blocks(&html), cited(&repo, "docs/index.md", 2));
}

#[test]
fn sphinx_shows_the_lines_citegate_says_a_literalinclude_includes() {
    let Some(sphinx) = common::tool(doc_tools().join("sphinx-build"), "Sphinx") else {
        return;
    };
    let spec = format!(
        "@@@ commit v1 a Sphinx site\n@@@ file src/app.py\n{APP_PY}@@@ file docs/conf.py\n{}@@@ file docs/index.rst\n{}@@@ file docs/guide.md\n{}",
        "project = \"demo\"\nextensions = [\"myst_parser\"]\n",
        "Demo\n====\n\n.. literalinclude:: ../src/app.py\n   :language: python\n   :lines: 3-4\n\n.. literalinclude:: ../src/app.py\n   :pyobject: bye\n\n.. toctree::\n\n   guide\n",
        "# Guide\n\n```{literalinclude} ../src/app.py\n:language: python\n:start-after: start-here\n:end-before: end-here\n```\n",
    );
    let (_dir, repo, site) = sphinx_build(&sphinx, &spec);
    shows_what_is_cited(&repo, &site, 2);
}

/// docutils' `include` (issue 58 item 3), shown as code with `:literal:` and `:code:`: a line
/// slice and a section between two texts, in reStructuredText and MyST.
#[test]
fn sphinx_shows_the_lines_citegate_says_an_include_includes() {
    let Some(sphinx) = common::tool(doc_tools().join("sphinx-build"), "Sphinx") else {
        return;
    };
    let spec = format!(
        "@@@ commit v1 a Sphinx site\n@@@ file src/app.py\n{APP_PY}@@@ file docs/conf.py\n{}@@@ file docs/index.rst\n{}@@@ file docs/guide.md\n{}",
        "project = \"demo\"\nextensions = [\"myst_parser\"]\n",
        "Demo\n====\n\n.. include:: ../src/app.py\n   :literal:\n   :start-line: 2\n   :end-line: 4\n\n.. include:: /../src/app.py\n   :code: python\n   :start-after: # start-here\n   :end-before: # end-here\n\n.. toctree::\n\n   guide\n",
        "# Guide\n\n```{include} ../src/app.py\n:literal:\n:start-line: 7\n:end-line: 9\n```\n",
    );
    let (_dir, repo, site) = sphinx_build(&sphinx, &spec);
    shows_what_is_cited(&repo, &site, 2);
}

#[test]
fn asciidoctor_shows_the_lines_citegate_says_an_include_includes() {
    let Some(asciidoctor) = common::tool(on_path("asciidoctor"), "Asciidoctor") else {
        return;
    };
    let app = "# The app.\ndef main\n  puts \"hello\"\nend\n\n# tag::greet[]\ndef greet\n  \"hello\"\nend\n# end::greet[]\n";
    let page = "= Demo\n\n[source,ruby]\n----\ninclude::../src/app.rb[lines=2..3]\n----\n\n[source,ruby]\n----\ninclude::../src/app.rb[tag=greet]\n----\n";
    let spec = format!(
        "@@@ commit v1 an AsciiDoc page\n@@@ file src/app.rb\n{app}@@@ file docs/index.adoc\n{page}"
    );
    let (_dir, repo) = fixture(&spec);
    let site = tempfile::tempdir().unwrap();
    // The command line's safe mode is `unsafe`: a page may include files above its folder.
    common::run(
        Command::new(asciidoctor)
            .args(["--failure-level", "WARN", "-D"])
            .arg(site.path())
            .arg("docs/index.adoc")
            .current_dir(&repo),
        "asciidoctor",
    );
    let shown = code_blocks(&read(&site.path().join("index.html")));
    assert_eq!(shown, cited(&repo, "docs/index.adoc", 2));
}

/// pymdownx.snippets' `base_path` list is searched as citegate searches it, and with
/// `check_paths: false` the real build renders a missing file as nothing and passes `--strict`:
/// citegate reports it all the same.
#[test]
fn mkdocs_renders_a_missing_snippet_as_nothing_and_citegate_reports_it() {
    let Some(mkdocs) = common::tool(doc_tools().join("mkdocs"), "MkDocs") else {
        return;
    };
    let config = "site_name: demo\nmarkdown_extensions:\n  - pymdownx.superfences\n  - pymdownx.snippets:\n      base_path: [snippets, src]\n      check_paths: false\n";
    let page =
        "# Demo\n\n```python\n--8<-- \"app.py:3:4\"\n```\n\n```python\n--8<-- \"gone.py\"\n```\n";
    let spec = format!(
        "@@@ commit v1 a MkDocs site\n@@@ file src/app.py\n{APP_PY}@@@ file snippets/other.py\nx = 1\n@@@ file mkdocs.yml\n{config}@@@ file docs/index.md\n{page}"
    );
    let (_dir, repo, html) = mkdocs_build(&mkdocs, &spec);
    let shown = code_blocks(&html);
    let app: Vec<&str> = APP_PY.lines().collect();
    assert_eq!(shown, [app[2..4].join("\n"), String::new()], "{html}");
    let audit = common::citegate(&repo, &["audit", "--format", "json", "docs"]);
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let rules: Vec<(&str, &str)> = (findings.iter())
        .map(|f| (f["rule"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(rules, [("invented-path", "snippets/gone.py")], "{report:#}");
}

/// Issue 58 item 2: on the built page an admonition's, a collapsible block's and a content tab's
/// indented body is prose (each citation citegate reads there is in a `<p>`), a fence or a block
/// indented four more in it is code (what citegate does not read is in a `<pre>`).
#[test]
fn mkdocs_renders_as_prose_the_admonition_bodies_citegate_reads() {
    let Some(mkdocs) = common::tool(doc_tools().join("mkdocs"), "MkDocs") else {
        return;
    };
    let config = "site_name: demo\ntheme:\n  name: material\nmarkdown_extensions:\n  - admonition\n  - pymdownx.details\n  - pymdownx.superfences\n  - pymdownx.tabbed:\n      alternate_style: true\n";
    let page = "# Demo\n\n!!! note \"A note\"\n    First: src/app.py:1.\n\n    Second: src/app.py:2.\n\n    ```python\n    # src/app.py:7\n    ```\n\n    !!! warning\n\n        Nested: src/app.py:3.\n\n            indented: src/app.py:8\n\n???+ tip\n\n    Open: src/app.py:4.\n\n=== \"Python\"\n\n    Tab: src/app.py:5.\n\n=== \"Java\"\n\n    Other tab: src/app.py:6.\n\n        indented in the tab: src/app.py:9\n";
    let spec = format!(
        "@@@ commit v1 a MkDocs site\n@@@ file src/app.py\n{APP_PY}@@@ file mkdocs.yml\n{config}@@@ file docs/index.md\n{page}"
    );
    let (_dir, repo, html) = mkdocs_build(&mkdocs, &spec);
    let (prose, code) = (elements(&html, "p"), elements(&html, "pre"));
    let dump = common::citegate(&repo, &["audit", "--dump", "--format", "json", "docs"]);
    let dump: serde_json::Value = serde_json::from_slice(&dump.stdout).unwrap();
    let read_lines: Vec<u64> = (dump["citations"].as_array().unwrap().iter())
        .map(|c| c["start_line"].as_u64().unwrap())
        .collect();
    assert_eq!(read_lines, [1, 2, 3, 4, 5, 6], "{dump:#}");
    for line in 1..=9 {
        let cited = format!("src/app.py:{line}");
        let holds = |blocks: &[String]| blocks.iter().any(|b| b.contains(&cited));
        match line <= 6 {
            true => assert!(holds(&prose) && !holds(&code), "{cited} not prose:\n{html}"),
            false => assert!(holds(&code) && !holds(&prose), "{cited} not code:\n{html}"),
        }
    }
}

/// The fixture repository `spec` (a MkDocs site) and its page `index.html` as `mkdocs build
/// --strict` builds it.
fn mkdocs_build(mkdocs: &Path, spec: &str) -> (tempfile::TempDir, PathBuf, String) {
    let (dir, repo) = fixture(spec);
    let site = dir.path().join("built");
    common::run(
        Command::new(mkdocs)
            .args(["build", "--strict", "--quiet", "--site-dir"])
            .arg(&site)
            .current_dir(&repo),
        "mkdocs build --strict",
    );
    let html = read(&site.join("index.html"));
    (dir, repo, html)
}

/// The fixture repository `spec` (a Sphinx site in `docs/`) and the folder `sphinx-build -W`
/// builds its HTML into.
fn sphinx_build(sphinx: &Path, spec: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, repo) = fixture(spec);
    let site = dir.path().join("built");
    common::run(
        Command::new(sphinx)
            .args(["-W", "-q", "-b", "html", "docs"])
            .arg(&site)
            .current_dir(&repo),
        "sphinx-build -W -b html",
    );
    (dir, repo, site)
}

/// The code blocks of the Sphinx pages `index.html` (of `docs/index.rst`, with `index` includes)
/// and `guide.html` (of `docs/guide.md`, with one) are the lines citegate says they include.
fn shows_what_is_cited(repo: &Path, site: &Path, index: usize) {
    for (page, doc, count) in [
        ("index.html", "docs/index.rst", index),
        ("guide.html", "docs/guide.md", 1),
    ] {
        let shown = code_blocks(&read(&site.join(page)));
        assert_eq!(shown, cited(repo, doc, count), "{doc}");
    }
}

/// The venv's `bin` folder `scripts/test-clients.sh` installs MkDocs and Sphinx into.
fn doc_tools() -> PathBuf {
    common::ci_cache().join("doc-tools/bin")
}

/// `name` in a folder of `PATH`, else the bare name (which `common::tool` reports missing).
fn on_path(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The fixture repository `spec` in a fresh folder, its work tree at HEAD.
fn fixture(spec: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("site");
    citegate::fixture::build(spec, &repo).unwrap();
    (dir, repo)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of each `<pre>` block of a built page, tags stripped and entities decoded, without
/// its final newline.
fn code_blocks(html: &str) -> Vec<String> {
    elements(html, "pre")
}

/// The text of each `tag` element of a built page (not nested in one another), tags stripped and
/// entities decoded, without its final newline.
fn elements(html: &str, tag: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = html;
    let (open_tag, close_tag) = (format!("<{tag}"), format!("</{tag}>"));
    while let Some(open) = rest.find(&open_tag) {
        let body = &rest[open + open_tag.len()..];
        if !body.starts_with(['>', ' ']) {
            rest = body;
            continue;
        }
        let body = &body[body.find('>').unwrap() + 1..];
        let close = body.find(&close_tag).unwrap();
        let mut text = String::new();
        let mut in_tag = false;
        for ch in body[..close].chars() {
            match ch {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        let text = text
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&#x27;", "'")
            .replace("&amp;", "&");
        blocks.push(text.trim_end_matches('\n').to_string());
        rest = &body[close..];
    }
    blocks
}

/// The lines each of the `count` citations of `doc` covers, in doc order, read from its file at
/// HEAD: a line range as `audit --dump --format json` resolves it, a section as the audit finds
/// it in the file.
fn cited(repo: &Path, doc: &str, count: usize) -> Vec<String> {
    let dump = common::citegate(repo, &["audit", "--dump", "--format", "json", doc]);
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let dump: serde_json::Value = serde_json::from_slice(&dump.stdout).unwrap();
    let dumped = dump["citations"].as_array().unwrap();
    assert_eq!(dumped.len(), count, "{dump:#}");
    let text = std::fs::read_to_string(repo.join(doc)).unwrap();
    let kind = DocKind::from_path(Path::new(doc)).unwrap();
    let dir = Path::new(doc)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let parsed = Doc::new(repo.join(doc), doc.to_string(), Some(dir), kind, text);
    let ctx = ExtractContext {
        workdir: Some(repo.to_path_buf()),
        ..Default::default()
    };
    let extracted = extract::extract(&parsed, &ctx);
    let citations: Vec<_> = extracted.citations.iter().collect();
    assert_eq!(citations.len(), count);
    dumped
        .iter()
        .zip(citations)
        .map(|(d, c)| {
            let path = d["path"].as_str().unwrap();
            assert_eq!(Some(path), c.repo_path());
            let file =
                String::from_utf8(common::git_oracle(repo, &["show", &format!("HEAD:{path}")]))
                    .unwrap();
            let lines: Vec<&str> = file.lines().collect();
            let (start, end) = match (d["start_line"].as_u64(), d["end_line"].as_u64(), &c.include)
            {
                (Some(s), Some(e), _) => (s as usize, e as usize),
                (None, None, Some(IncludePart::Section(markers))) => {
                    citegate::check::sections::lines(&file, markers)
                        .unwrap_or_else(|| panic!("{path}: no section {}", markers.describe()))
                }
                _ => panic!("neither lines nor a section: {d:#}"),
            };
            lines[start - 1..end].join("\n")
        })
        .collect()
}

/// Headings whose slugs differ between generators: punctuation, emoji, repeats, runs of spaces
/// and `-`, `_`, digits, CJK, inline code, an explicit id (MkDocs' attribute list form is
/// written in its test).
const HEADINGS: &str = "# Demo\n\n## Hello, World!\n\n## Hello, World!\n\n## `run()` — the loop 🚀\n\n## C++ & Rust: a \"tour\"\n\n## Tune -- it {#tuning}\n\n## Under_score and 123\n\n## A  -  b\n\n## Step 1\n\n## Step 1\n\n## 日本 guide\n\n## The `foo_bar` API\n";

#[test]
fn mkdocs_gives_headings_the_ids_citegate_computes() {
    let config =
        "site_name: demo\nmarkdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n";
    mkdocs_ids_are_computed(config, &HEADINGS.replace("{#tuning}", "{: #tuning }"));
}

#[test]
fn mkdocs_slugify_unicode_gives_headings_the_ids_citegate_computes() {
    let config = "site_name: demo\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/name:markdown.extensions.toc.slugify_unicode\n";
    let page = format!("{HEADINGS}\n## Café au lait\n\n## Ünits — ÉTÉ\n");
    mkdocs_ids_are_computed(config, &page.replace("{#tuning}", ""));
}

/// Build `page` as `docs/index.md` of an MkDocs site configured by `config`: its headings' ids
/// are the ones citegate computes.
fn mkdocs_ids_are_computed(config: &str, page: &str) {
    let Some(mkdocs) = common::tool(doc_tools().join("mkdocs"), "MkDocs") else {
        return;
    };
    let spec = format!(
        "@@@ commit v1 a MkDocs site\n@@@ file mkdocs.yml\n{config}@@@ file docs/index.md\n{page}"
    );
    let (_dir, repo, html) = mkdocs_build(&mkdocs, &spec);
    let built = heading_ids(&html);
    assert_eq!(computed(&repo, "docs", page), built);
}

#[test]
fn mdbook_gives_headings_the_ids_citegate_computes() {
    let Some(mdbook) = common::tool(on_path("mdbook"), "mdBook") else {
        return;
    };
    let spec = format!(
        "@@@ commit v1 an mdBook\n@@@ file book.toml\n[book]\ntitle = \"demo\"\n@@@ file src/SUMMARY.md\n# Summary\n\n- [Chapter](chapter.md)\n@@@ file src/chapter.md\n{HEADINGS}"
    );
    let (_dir, repo) = fixture(&spec);
    let site = tempfile::tempdir().unwrap();
    common::run(
        Command::new(mdbook)
            .arg("build")
            .arg("--dest-dir")
            .arg(site.path())
            .current_dir(&repo),
        "mdbook build",
    );
    let built = heading_ids(&read(&site.path().join("chapter.html")));
    assert_eq!(computed(&repo, "src", HEADINGS), built);
}

/// The ids of a built page's headings (`<h2 id="…">`; the theme's own headings carry a class
/// first and are left out), in page order.
fn heading_ids(html: &str) -> Vec<String> {
    let re = regex::Regex::new(r#"<h[1-6] id="([^"]*)""#).unwrap();
    re.captures_iter(html).map(|c| c[1].to_string()).collect()
}

/// The ids citegate gives the headings of `page` in the folder `dir` of `repo`, by the
/// generator it finds there.
fn computed(repo: &Path, dir: &str, page: &str) -> Vec<String> {
    let slugger = citegate::extract::site::slugger(Some(repo), dir).expect("a known generator");
    let anchors = citegate::extract::anchors::markdown(page, slugger);
    assert!(!anchors.incomplete, "every heading's id is known");
    anchors.headings.into_iter().map(|h| h.id).collect()
}
