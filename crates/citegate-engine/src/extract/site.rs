//! What a docs site's own configuration says about the docs under it: MkDocs' `mkdocs.yml`
//! (where pymdownx.snippets reads its paths from, and whether admonitions and content tabs are
//! on) and Sphinx's source root (the folder of `conf.py`, where `/path` includes start).
//!
//! Read from the work tree, as the docs are, the first time a doc of a folder asks, and kept for
//! the run: the nearest `mkdocs.yml` (or `mkdocs.yaml`) above a doc is its site's, as `mkdocs
//! build` is run beside it; none means pymdownx's defaults from the repository root.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_yaml_ng::Value;

use super::anchors::Slugger;
use crate::model::Doc;

/// The sites found so far, by the folder asked about.
#[derive(Debug, Clone, Default)]
pub struct Sites {
    mkdocs: Arc<Mutex<HashMap<String, Option<Arc<MkDocs>>>>>,
    sphinx: Arc<Mutex<HashMap<String, Option<String>>>>,
}

/// One MkDocs site, as far as citations go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MkDocs {
    /// Where pymdownx.snippets looks for a path, repo-relative (`""`: the root), first first.
    pub base_paths: Vec<String>,
    /// `restrict_base_path` (on by default): a path that leaves its base is not read.
    pub restrict: bool,
    /// Admonitions (`admonition`, `pymdownx.details`) or content tabs (`pymdownx.tabbed`) are
    /// on: their indented bodies are prose.
    pub indented_prose: bool,
}

impl MkDocs {
    /// The defaults, for a site run from `folder` (repo-relative) with no options.
    fn defaults(folder: &str) -> MkDocs {
        MkDocs {
            base_paths: vec![folder.to_string()],
            restrict: true,
            indented_prose: false,
        }
    }

    /// Read `mkdocs.yml`'s text; a file that is not YAML gives the defaults (the site cannot
    /// build, and its snippets are still read the default way).
    pub fn parse(folder: &str, text: &str) -> MkDocs {
        let mut site = MkDocs::defaults(folder);
        let Ok(yaml) = serde_yaml_ng::from_str::<Value>(text) else {
            return site;
        };
        let Some(extensions) = yaml.get("markdown_extensions").and_then(Value::as_sequence) else {
            return site;
        };
        for ext in extensions {
            let (name, options) = match ext {
                Value::String(name) => (name.as_str(), None),
                Value::Mapping(m) => match m.iter().next() {
                    Some((Value::String(name), options)) => (name.as_str(), Some(options)),
                    _ => continue,
                },
                _ => continue,
            };
            match name {
                "admonition" | "pymdownx.details" | "pymdownx.tabbed" => {
                    site.indented_prose = true;
                }
                "pymdownx.snippets" => site.snippets(folder, options),
                _ => {}
            }
        }
        site
    }

    /// pymdownx.snippets' `base_path` (a path or a list, relative to where MkDocs runs) and
    /// `restrict_base_path`.
    fn snippets(&mut self, folder: &str, options: Option<&Value>) {
        let Some(options) = options else {
            return;
        };
        let join = |p: &str| match crate::paths::resolve_path(p, Some(folder), false) {
            crate::model::CitedPath::Repo(p) => Some(p),
            crate::model::CitedPath::Missing => Some(String::new()),
            crate::model::CitedPath::Unsafe { .. } => None,
        };
        match options.get("base_path") {
            Some(Value::String(p)) => self.base_paths = join(p).into_iter().collect(),
            Some(Value::Sequence(list)) => {
                self.base_paths = list
                    .iter()
                    .filter_map(Value::as_str)
                    .filter_map(join)
                    .collect();
            }
            _ => {}
        }
        if let Some(restrict) = options.get("restrict_base_path").and_then(Value::as_bool) {
            self.restrict = restrict;
        }
    }
}

impl Sites {
    /// The MkDocs site of a doc in the repository, if it is under one.
    pub fn mkdocs(&self, workdir: Option<&Path>, doc: &Doc) -> Option<Arc<MkDocs>> {
        let (workdir, dir) = (workdir?, doc.repo_dir.as_deref()?);
        let mut cache = self.mkdocs.lock().ok()?;
        for folder in ancestors(dir) {
            if let Some(found) = cache.get(folder) {
                return found.clone();
            }
            let read = ["mkdocs.yml", "mkdocs.yaml"].iter().find_map(|name| {
                let path = workdir.join(folder).join(name);
                std::fs::read_to_string(path).ok()
            });
            if let Some(text) = read {
                let site = Some(Arc::new(MkDocs::parse(folder, &text)));
                cache.insert(folder.to_string(), site.clone());
                return site;
            }
        }
        cache.insert(dir.to_string(), None);
        None
    }

    /// The Sphinx source root of a doc (the nearest folder above it with a `conf.py`),
    /// repo-relative; `None` when there is none.
    pub(crate) fn sphinx_root(&self, workdir: Option<&Path>, doc: &Doc) -> Option<String> {
        let (workdir, dir) = (workdir?, doc.repo_dir.as_deref()?);
        let mut cache = self.sphinx.lock().ok()?;
        if let Some(found) = cache.get(dir) {
            return found.clone();
        }
        let root = ancestors(dir)
            .find(|f| workdir.join(f).join("conf.py").is_file())
            .map(str::to_string);
        cache.insert(dir.to_string(), root.clone());
        root
    }
}

/// The generator that renders the pages of `dir` (repo-relative), from the nearest site
/// configuration above it in the work tree: `mkdocs.yml` → MkDocs (its `toc` slugify),
/// `book.toml` → mdBook, `docusaurus.config.*` → Docusaurus; none → GitHub. `None`: a site
/// whose slugs are not known here (a custom `slugify`, a `separator`).
pub fn slugger(workdir: Option<&Path>, dir: &str) -> Option<Slugger> {
    let Some(workdir) = workdir else {
        return Some(Slugger::GitHub);
    };
    for folder in ancestors(dir) {
        let at = workdir.join(folder);
        let read = ["mkdocs.yml", "mkdocs.yaml"]
            .iter()
            .find_map(|name| std::fs::read_to_string(at.join(name)).ok());
        if let Some(text) = read {
            return mkdocs_slugger(&text);
        }
        if at.join("book.toml").is_file() {
            return Some(Slugger::MdBook);
        }
        let docusaurus = ["js", "ts", "mjs", "cjs", "mts", "cts"]
            .iter()
            .any(|ext| at.join(format!("docusaurus.config.{ext}")).is_file());
        if docusaurus {
            return Some(Slugger::Docusaurus);
        }
    }
    Some(Slugger::GitHub)
}

/// MkDocs' slugs, from `mkdocs.yml`'s `toc` options: the default `slugify`, or
/// `slugify_unicode`; any other function or a `separator` is not known here.
fn mkdocs_slugger(text: &str) -> Option<Slugger> {
    let ascii = Some(Slugger::MkDocs { unicode: false });
    let Ok(yaml) = serde_yaml_ng::from_str::<Value>(text) else {
        return ascii;
    };
    let extensions = yaml.get("markdown_extensions").and_then(Value::as_sequence);
    let toc = extensions.into_iter().flatten().find_map(|ext| match ext {
        Value::Mapping(m) => m.get("toc"),
        _ => None,
    });
    let Some(toc) = toc else {
        return ascii;
    };
    if toc.get("separator").is_some() {
        return None;
    }
    if toc.get("slugify").is_none() {
        return ascii;
    }
    // `slugify: !!python/name:markdown.extensions.toc.slugify_unicode`: the YAML reader keeps
    // no `!!` tag, so the function is read from the text.
    let named = text.lines().find_map(|l| {
        let value = l.trim_start().strip_prefix("slugify:")?.trim();
        value.strip_prefix("!!python/name:")
    });
    let name = named.unwrap_or("").trim();
    match name {
        "markdown.extensions.toc.slugify" => ascii,
        "markdown.extensions.toc.slugify_unicode" => Some(Slugger::MkDocs { unicode: true }),
        _ => None,
    }
}

/// A repo-relative folder and each folder above it, the root (`""`) last.
fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let dir = dir.trim_matches('/');
    let cuts = dir.match_indices('/').map(|(i, _)| i).rev();
    std::iter::once(dir)
        .chain(cuts.map(move |i| &dir[..i]))
        .chain((!dir.is_empty()).then_some(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_followed_by_each_above_it() {
        let all: Vec<&str> = ancestors("docs/guide/deep").collect();
        assert_eq!(all, ["docs/guide/deep", "docs/guide", "docs", ""]);
        assert_eq!(ancestors("").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn mkdocs_yml_gives_the_snippets_base_paths_and_whether_bodies_are_prose() {
        let text = "site_name: x\nmarkdown_extensions:\n  - admonition\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n  - pymdownx.snippets:\n      base_path: [snippets, '.']\n      check_paths: true\n";
        let site = MkDocs::parse("site", text);
        assert_eq!(site.base_paths, ["site/snippets", "site"]);
        assert!(site.restrict && site.indented_prose);
        let site = MkDocs::parse("", "markdown_extensions:\n  - pymdownx.snippets\n");
        assert_eq!(site, MkDocs::defaults(""));
        assert_eq!(MkDocs::parse("", "{{{"), MkDocs::defaults(""));
    }

    #[test]
    fn mkdocs_toc_options_give_its_slugs_or_none() {
        let ascii = Some(Slugger::MkDocs { unicode: false });
        assert_eq!(mkdocs_slugger("site_name: x\n"), ascii);
        assert_eq!(
            mkdocs_slugger("markdown_extensions:\n  - toc:\n      permalink: true\n"),
            ascii
        );
        let unicode = "markdown_extensions:\n  - toc:\n      slugify: !!python/name:markdown.extensions.toc.slugify_unicode\n";
        assert_eq!(
            mkdocs_slugger(unicode),
            Some(Slugger::MkDocs { unicode: true })
        );
        let custom = "markdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}\n";
        assert_eq!(mkdocs_slugger(custom), None);
        assert_eq!(
            mkdocs_slugger("markdown_extensions:\n  - toc:\n      separator: _\n"),
            None
        );
    }
}
