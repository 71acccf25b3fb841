//! Configuration: `.citegate.yaml` at the repository root (or `--config FILE`). Read into a raw
//! serde type that denies unknown keys, then validated into [`Config`] (globs compiled, rule IDs
//! and patterns checked), with every error located in the file. CLI flags override the file. The
//! JSON Schema in `schemas/citegate.schema.json` is generated from `RawConfig`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::model::Syntax;
use crate::registry::{RuleId, Severity};

/// The file looked for at the repository root.
pub const FILE_NAME: &str = ".citegate.yaml";

// The variants are documented in plain comments: a doc comment of its own would turn the JSON
// Schema's `enum` of four strings into a `oneOf` of four descriptions, and this doc comment is
// the schema's description; the published schema (`citegate config-schema`) stays as it is.
/// A rule's level: a severity, or `off`.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    // Its findings are errors (failing a run by default).
    Error,
    // Its findings are warnings (failing a run with `--fail-on warning`).
    Warning,
    // Its findings are notes (never failing a run).
    Note,
    // The rule is not run: it reports nothing.
    Off,
}

/// Which citation syntaxes are read (all are on by default).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawSyntaxes {
    /// `src/a.rs:10-20` in text and inline code.
    pub bare: Option<bool>,
    /// `[t](src/a.rs#L10-L20)`.
    pub markdown_link: Option<bool>,
    /// Forge permalinks (GitHub, GitLab, Bitbucket, Gitea).
    pub permalink: Option<bool>,
    /// deepwiki-open `[src/a.rs:10-20]()`.
    pub empty_link: Option<bool>,
    /// Fences whose info string names the span (Cursor, `title=`).
    pub fence_info: Option<bool>,
    /// `sources:` in front matter.
    pub front_matter: Option<bool>,
    /// `[n] path (52%)` under `Sources:`.
    pub source_list: Option<bool>,
    /// Citations in JSON answers.
    pub json: Option<bool>,
    /// `vscode://file/…:line`.
    pub editor_link: Option<bool>,
    /// The `patterns` below.
    pub pattern: Option<bool>,
    /// mdBook's `{{#include path:10:20}}` and `{{#rustdoc_include …}}`.
    pub mdbook_include: Option<bool>,
    /// MkDocs' `--8<-- "path:10:20"` (pymdownx.snippets).
    pub mkdocs_snippet: Option<bool>,
    /// Sphinx's `literalinclude` (reStructuredText and MyST).
    pub sphinx_literalinclude: Option<bool>,
    /// AsciiDoc's `include::path[lines=10..20]`.
    pub asciidoc_include: Option<bool>,
    /// Docusaurus' ```` ```js reference ```` permalinks and `file=./a.js#L1-L5` imports.
    pub docusaurus_code: Option<bool>,
}

/// Severities for the docs matching `paths`, over the top-level `rules`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawOverride {
    /// Globs over doc paths (repo-relative when the doc is inside the repository).
    pub paths: Vec<String>,
    /// Rule ID → level.
    pub rules: BTreeMap<String, Level>,
}

/// Docs under `docs` cite paths relative to `repo` (a monorepo subfolder, a wiki clone).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawRemap {
    /// A doc path prefix, e.g. `wiki/`.
    pub docs: String,
    /// The repository folder their citations are relative to, e.g. `services/api/`.
    pub repo: String,
}

/// An in-house citation syntax: a regex with named groups `path`, `start`, optional `end` and
/// `rev`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawPattern {
    pub name: String,
    pub regex: String,
}

/// Findings of `rules` in the docs matching `doc` are waived until `until`: reported as waived,
/// not failing; in the last [`WAIVER_WARNING_DAYS`] days a warning; after it, failing again.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawWaiver {
    /// A glob over doc paths, e.g. `docs/legacy/**`.
    pub doc: String,
    /// The rule IDs waived (not an `input` rule: those are never waived).
    pub rules: Vec<String>,
    /// The last day waived, `YYYY-MM-DD`.
    pub until: String,
    /// Why, for the reader of the report.
    pub reason: String,
}

/// `.citegate.yaml` as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawConfig {
    /// Globs of docs to audit inside the folders given (default: every Markdown and answer file).
    #[serde(default)]
    pub include: Vec<String>,
    /// Globs of docs to leave out.
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub syntaxes: RawSyntaxes,
    /// Rule ID → level (`error`, `warning`, `note`, `off`).
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
    #[serde(default)]
    pub overrides: Vec<RawOverride>,
    #[serde(default)]
    pub remap: Vec<RawRemap>,
    #[serde(default)]
    pub patterns: Vec<RawPattern>,
    /// `overbroad-span` threshold (default 200).
    pub max_span_lines: Option<usize>,
    /// The default target revision (default `HEAD`).
    pub target: Option<String>,
    /// Let `regenerate` retrieve docs (Markdown pages, answer files) as evidence, not only code
    /// (default false: a model grounded in a wiki page cites the wiki, not the code).
    pub retrieve_docs: Option<bool>,
    /// Globs of files generated at build time, not in the repository (an mdBook include of a
    /// generated page): a citation of one that does not exist is a note, not an error.
    #[serde(default)]
    pub generated: Vec<String>,
    /// Findings waived until a date (`{doc, rules, until, reason}`).
    #[serde(default)]
    pub waivers: Vec<RawWaiver>,
}

/// A configuration problem, located in the file (exit code 2).
#[derive(Debug, Clone)]
pub struct ConfigError {
    /// The configuration file the problem is in.
    pub path: PathBuf,
    /// The file's text, to find the line of `at` in (empty when it could not be read).
    pub text: String,
    /// Byte offset of the problem in `text`.
    pub at: usize,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = self.text[..self.at.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        write!(f, "{}:{line}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ConfigError {}

/// A compiled in-house pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern's name, as the configuration writes it.
    pub name: String,
    /// The compiled regex, with its named groups `path`, `start` and optionally `end` and `rev`.
    pub regex: Regex,
}

/// A validated waiver.
#[derive(Debug, Clone)]
pub struct Waiver {
    doc: GlobSet,
    /// The rules whose findings it waives.
    pub rules: Vec<RuleId>,
    /// The last day it waives them.
    pub until: Date,
    /// Why they are waived, as the report writes it.
    pub reason: String,
}

/// The days before a waiver's end when its findings are warnings.
pub(crate) const WAIVER_WARNING_DAYS: i64 = 14;

impl Waiver {
    /// Whether it waives `rule` in the doc named `doc` (on any day).
    pub fn covers(&self, rule: RuleId, doc: &str) -> bool {
        self.rules.contains(&rule) && self.doc.is_match(doc)
    }
}

/// A day of the proleptic Gregorian calendar (`YYYY-MM-DD`), as days since 1970-01-01.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date(i64);

impl Date {
    /// `YYYY-MM-DD`, a day that exists.
    pub fn parse(s: &str) -> Option<Date> {
        let mut parts = s.splitn(3, '-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
        let date = Date::from_civil(y, m, d);
        (date.civil() == (y, m, d)).then_some(date)
    }

    /// Today by the system clock (UTC).
    pub(crate) fn today() -> Date {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Date((secs / 86_400) as i64)
    }

    /// Days from `self` to `later`.
    pub(crate) fn days_until(self, later: Date) -> i64 {
        later.0 - self.0
    }

    // Howard Hinnant's `days_from_civil` and `civil_from_days`.
    fn from_civil(y: i64, m: i64, d: i64) -> Date {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Date(era * 146_097 + doe - 719_468)
    }

    fn civil(self) -> (i64, i64, i64) {
        let z = self.0 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        (yoe + era * 400 + i64::from(m <= 2), m, d)
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (y, m, d) = self.civil();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

#[derive(Debug, Clone)]
struct Override {
    paths: GlobSet,
    rules: BTreeMap<RuleId, Level>,
}

/// The largest configuration (or manifest) file read.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The deepest `[`/`{` nesting of YAML citegate reads (configuration, manifests, front matter):
/// the YAML parser's time grows faster than the text with nesting depth.
pub const MAX_YAML_DEPTH: usize = 64;

/// Where `[`/`{` nesting first goes deeper than [`MAX_YAML_DEPTH`], if it does: one linear pass
/// before the parser sees the text. Brackets inside quotes count too (in YAML a quote in a plain
/// scalar is not a quote, so skipping "strings" would let nesting through); real files are far
/// from the limit.
pub fn yaml_too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_YAML_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The configuration's YAML as written, or where and why it cannot be read.
fn read_raw(text: &str) -> Result<RawConfig, (usize, String)> {
    if let Some(at) = yaml_too_deep(text) {
        return Err((
            at,
            format!("nested deeper than {MAX_YAML_DEPTH} levels: not read"),
        ));
    }
    if text.trim().is_empty() {
        return Ok(RawConfig::default());
    }
    serde_yaml_ng::from_str(text).map_err(|e| {
        let at = e.location().map(|l| l.index()).unwrap_or(0);
        (at, e.to_string())
    })
}

/// The validated configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    disabled: Vec<Syntax>,
    rules: BTreeMap<RuleId, Level>,
    overrides: Vec<Override>,
    /// Docs whose citations are relative to a repository folder (`remap`).
    pub remap: Vec<RawRemap>,
    /// In-house citation syntaxes (`patterns`), compiled.
    pub patterns: Vec<Pattern>,
    /// The `overbroad-span` threshold the file sets; `--max-span-lines` wins over it.
    pub max_span_lines: Option<usize>,
    /// The target revision the file sets; `--target` wins over it.
    pub target: Option<String>,
    /// `regenerate` retrieves docs too (`retrieve-docs: true`).
    pub retrieve_docs: bool,
    generated: Option<GlobSet>,
    /// Findings waived until a date (`waivers`).
    pub waivers: Vec<Waiver>,
    /// A digest of the file's text (0 without a file): shards of one run share it.
    pub digest: u64,
}

impl Config {
    /// Read `path`; `Ok(None)` when `optional` and it does not exist.
    pub fn load(path: &Path, optional: bool) -> Result<Option<Config>, ConfigError> {
        let fail = |message: String| ConfigError {
            path: path.to_path_buf(),
            text: String::new(),
            at: 0,
            message,
        };
        // A committed `.citegate.yaml` is a stranger's in CI: a link is not followed (it could
        // show a file from outside the repository in an error), a FIFO is not opened (it would
        // hang), and a huge file is not read.
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(fail(e.to_string())),
        };
        if meta.file_type().is_symlink() {
            return Err(fail(
                "the configuration is a symbolic link: not followed".into(),
            ));
        }
        if !meta.file_type().is_file() {
            return Err(fail(
                "the configuration is not a regular file: not read".into(),
            ));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(fail(format!(
                "the configuration is over {} KiB: not read",
                MAX_FILE_BYTES >> 10
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        Config::parse(path, &text).map(Some)
    }

    /// Parse and validate configuration text.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let error = |at: usize, message: String| ConfigError {
            path: path.to_path_buf(),
            text: text.to_string(),
            at,
            message,
        };
        // Where a value is written, for errors found after parsing.
        let find = |needle: &str| text.find(needle).unwrap_or(0);
        let raw = read_raw(text).map_err(|(at, message)| error(at, message))?;
        let globs = |globs: &[String]| -> Result<Option<GlobSet>, ConfigError> {
            if globs.is_empty() {
                return Ok(None);
            }
            let mut b = GlobSetBuilder::new();
            for g in globs {
                b.add(Glob::new(g).map_err(|e| error(find(g), format!("bad glob `{g}`: {e}")))?);
            }
            b.build().map(Some).map_err(|e| error(0, e.to_string()))
        };
        let rules =
            |map: &BTreeMap<String, Level>| -> Result<BTreeMap<RuleId, Level>, ConfigError> {
                map.iter()
                    .map(|(id, level)| {
                        RuleId::from_id(id).map(|r| (r, *level)).ok_or_else(|| {
                            let near = RuleId::nearest(id)
                                .map(|r| format!("did you mean `{}`? ", r.as_str()))
                                .unwrap_or_default();
                            error(
                                find(id),
                                format!("unknown rule `{id}` ({near}`citegate rules` lists them)"),
                            )
                        })
                    })
                    .collect()
            };
        let disabled = disabled(&raw.syntaxes);
        let mut overrides = Vec::new();
        for o in &raw.overrides {
            overrides.push(Override {
                paths: globs(&o.paths)?.unwrap_or_else(GlobSet::empty),
                rules: rules(&o.rules)?,
            });
        }
        let mut patterns = Vec::new();
        for p in &raw.patterns {
            let regex = Regex::new(&p.regex)
                .map_err(|e| error(find(&p.regex), format!("pattern `{}`: {e}", p.name)))?;
            let names: Vec<&str> = regex.capture_names().flatten().collect();
            if !names.contains(&"path") || !names.contains(&"start") {
                return Err(error(
                    find(&p.regex),
                    format!("pattern `{}` needs named groups `path` and `start` (`end`, `rev` optional)", p.name),
                ));
            }
            patterns.push(Pattern {
                name: p.name.clone(),
                regex,
            });
        }
        check_remaps(&raw.remap, text).map_err(|(at, message)| error(at, message))?;
        if raw.max_span_lines == Some(0) {
            return Err(error(
                find("max-span-lines"),
                "max-span-lines must be at least 1".into(),
            ));
        }
        let (error, find, globs) = (&error, &find, &globs);
        Ok(Config {
            waivers: waivers(&raw.waivers, &Locate { error, find, globs })?,
            include: globs(&raw.include)?,
            exclude: globs(&raw.exclude)?,
            disabled,
            rules: rules(&raw.rules)?,
            overrides,
            remap: raw.remap.clone(),
            patterns,
            max_span_lines: raw.max_span_lines,
            target: raw.target.clone(),
            retrieve_docs: raw.retrieve_docs.unwrap_or(false),
            generated: globs(&raw.generated)?,
            digest: crate::model::hash::fnv1a(crate::model::hash::FNV_OFFSET, text.as_bytes()),
        })
    }

    /// Whether a walked doc (its path relative to where the walk started) is audited.
    pub fn wants_doc(&self, path: &str) -> bool {
        self.include.as_ref().is_none_or(|g| g.is_match(path))
            && !self.exclude.as_ref().is_some_and(|g| g.is_match(path))
    }

    /// Whether a cited path is generated at build time (`generated` globs, repo-relative).
    pub fn generated(&self, path: &str) -> bool {
        self.generated.as_ref().is_some_and(|g| g.is_match(path))
    }

    pub(crate) fn syntax_on(&self, syntax: Syntax) -> bool {
        !self.disabled.contains(&syntax)
    }

    /// The severity of `rule` in the doc `doc`, or `None` when it is off.
    pub fn severity(&self, rule: RuleId, doc: &str) -> Option<Severity> {
        let mut level = self.rules.get(&rule).copied();
        for o in &self.overrides {
            if o.paths.is_match(doc) {
                if let Some(l) = o.rules.get(&rule) {
                    level = Some(*l);
                }
            }
        }
        match level {
            None => Some(rule.info().severity),
            Some(Level::Off) => None,
            Some(Level::Error) => Some(Severity::Error),
            Some(Level::Warning) => Some(Severity::Warning),
            Some(Level::Note) => Some(Severity::Note),
        }
    }
}

/// How a waiver's problems are located: an error at a byte offset, where a value is written,
/// globs compiled and rule IDs checked as the rest of the file is.
struct Locate<'a> {
    error: &'a dyn Fn(usize, String) -> ConfigError,
    find: &'a dyn Fn(&str) -> usize,
    globs: &'a Globs<'a>,
}

/// Globs compiled, or where one is wrong.
type Globs<'a> = dyn Fn(&[String]) -> Result<Option<GlobSet>, ConfigError> + 'a;

/// The waivers validated: a glob, known rules that are not `input` rules, a real date, a reason.
fn waivers(raw: &[RawWaiver], at: &Locate<'_>) -> Result<Vec<Waiver>, ConfigError> {
    let mut out = Vec::new();
    for w in raw {
        let mut rules = Vec::new();
        for id in &w.rules {
            let Some(rule) = RuleId::from_id(id) else {
                let message = format!("unknown rule `{id}` (`citegate rules` lists them)");
                return Err((at.error)((at.find)(id), message));
            };
            if !crate::model::baseline::can_suppress(rule) {
                let message = format!(
                    "waiver of `{id}`: an `input` rule is never waived (the doc it is about is not checked at all)"
                );
                return Err((at.error)((at.find)(id), message));
            }
            rules.push(rule);
        }
        let Some(until) = Date::parse(&w.until) else {
            let message = format!("waiver `until: {}` is not a date (YYYY-MM-DD)", w.until);
            return Err((at.error)((at.find)(&w.until), message));
        };
        if w.reason.trim().is_empty() {
            let message = "a waiver needs a `reason`".to_string();
            return Err((at.error)((at.find)("reason"), message));
        }
        out.push(Waiver {
            doc: (at.globs)(std::slice::from_ref(&w.doc))?.unwrap_or_else(GlobSet::empty),
            rules,
            until,
            reason: w.reason.clone(),
        });
    }
    Ok(out)
}

/// Every remap's `repo` names a folder inside the repository; else where the first one that
/// does not is written, and why.
fn check_remaps(remaps: &[RawRemap], text: &str) -> Result<(), (usize, String)> {
    for r in remaps {
        if let Some(why) = outside_repository(&r.repo) {
            let at = text.find("remap").unwrap_or(0);
            return Err((
                at + text[at..].find(r.repo.as_str()).unwrap_or(0),
                format!(
                    "remap `repo` `{}` {why}: it names a folder of the repository, relative to its root",
                    r.repo
                ),
            ));
        }
    }
    Ok(())
}

/// Why a remap's `repo` cannot name a folder inside the repository (`None`: it can). A path
/// with `..` or a root would be looked up in the object database as written, and fail there as
/// if the database were corrupt.
fn outside_repository(repo: &str) -> Option<&'static str> {
    let rooted = repo.starts_with(['/', '\\']) || repo.as_bytes().get(1) == Some(&b':');
    if rooted {
        Some("starts at a root")
    } else if repo.split(['/', '\\']).any(|part| part == "..") {
        Some("goes up with `..`")
    } else {
        None
    }
}

/// The JSON Schema of `.citegate.yaml`, as committed in `schemas/citegate.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(RawConfig);
    let mut text = serde_json::to_string_pretty(&schema).expect("schema serialises");
    text.push('\n');
    text
}

/// The syntaxes the configuration turns off (`syntaxes: {bare: false}`).
fn disabled(s: &RawSyntaxes) -> Vec<Syntax> {
    [
        (s.bare, Syntax::Bare),
        (s.markdown_link, Syntax::MarkdownLink),
        (s.permalink, Syntax::Permalink),
        (s.empty_link, Syntax::EmptyLink),
        (s.fence_info, Syntax::FenceInfo),
        (s.front_matter, Syntax::FrontMatter),
        (s.source_list, Syntax::SourceList),
        (s.json, Syntax::Json),
        (s.editor_link, Syntax::EditorLink),
        (s.pattern, Syntax::Pattern),
        (s.mdbook_include, Syntax::Include),
        (s.mkdocs_snippet, Syntax::Snippet),
        (s.sphinx_literalinclude, Syntax::LiteralInclude),
        (s.asciidoc_include, Syntax::AsciidocInclude),
        (s.docusaurus_code, Syntax::CodeImport),
    ]
    .into_iter()
    .filter(|(on, _)| *on == Some(false))
    .map(|(_, syntax)| syntax)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new(".citegate.yaml"), text)
    }

    #[test]
    fn unknown_keys_and_bad_values_are_located() {
        let e = parse("include: [docs/**]\nrulez: {}\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with(".citegate.yaml:2: unknown field `rulez`"),
            "{e}"
        );
        let e = parse("rules:\n  invented-paht: off\n").unwrap_err();
        assert!(
            e.to_string().starts_with(
                ".citegate.yaml:2: unknown rule `invented-paht` (did you mean `invented-path`?"
            ),
            "{e}"
        );
        let e = parse("rules:\n  no-such-thing: off\n").unwrap_err();
        assert!(!e.to_string().contains("did you mean"), "{e}");
        let e = parse("rules:\n  invented-path: loud\n").unwrap_err();
        assert!(e.to_string().contains(":2:"), "{e}");
        let e = parse("patterns:\n  - name: x\n    regex: '(?P<path>a'\n").unwrap_err();
        assert!(
            e.to_string().starts_with(".citegate.yaml:3: pattern `x`"),
            "{e}"
        );
        let e = parse("syntaxes: {barre: false}\n").unwrap_err();
        assert!(e.to_string().contains("unknown field `barre`"), "{e}");
    }

    #[test]
    fn severities_follow_rules_then_overrides() {
        let c = parse(
            "rules: {unsupported-literal: off, overbroad-span: error}\n\
             overrides:\n  - paths: ['generated/**']\n    rules: {invented-path: warning, unsupported-literal: note}\n",
        )
        .unwrap();
        assert_eq!(c.severity(RuleId::UnsupportedLiteral, "docs/a.md"), None);
        assert_eq!(
            c.severity(RuleId::OverbroadSpan, "docs/a.md"),
            Some(Severity::Error)
        );
        assert_eq!(
            c.severity(RuleId::InventedPath, "generated/x.md"),
            Some(Severity::Warning)
        );
        assert_eq!(
            c.severity(RuleId::UnsupportedLiteral, "generated/x.md"),
            Some(Severity::Note)
        );
        assert_eq!(
            c.severity(RuleId::InventedLines, "a.md"),
            Some(Severity::Error)
        );
    }

    #[test]
    fn include_and_exclude_globs() {
        let c = parse("include: ['docs/**']\nexclude: ['docs/archive/**']\n").unwrap();
        assert!(c.wants_doc("docs/a.md"));
        assert!(!c.wants_doc("docs/archive/a.md"));
        assert!(!c.wants_doc("README.md"));
    }

    #[test]
    fn waivers_are_checked_and_located() {
        let ok = "waivers:\n  - doc: 'docs/legacy/**'\n    rules: [stale-changed]\n    until: 2027-03-31\n    reason: rewritten in Q1\n";
        let c = parse(ok).unwrap();
        assert!(c.waivers[0].covers(RuleId::StaleChanged, "docs/legacy/a.md"));
        assert!(!c.waivers[0].covers(RuleId::StaleChanged, "docs/a.md"));
        assert_eq!(c.waivers[0].until.to_string(), "2027-03-31");
        let e = parse(&ok.replace("2027-03-31", "2027-02-30")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(".citegate.yaml:4: waiver `until: 2027-02-30`"),
            "{e}"
        );
        let e = parse(&ok.replace("[stale-changed]", "[malformed-doc]")).unwrap_err();
        assert!(
            e.to_string().contains(":3: waiver of `malformed-doc`"),
            "{e}"
        );
        let e = parse(&ok.replace("rewritten in Q1", "''")).unwrap_err();
        assert!(e.to_string().contains("needs a `reason`"), "{e}");
    }

    #[test]
    fn dates_count_days() {
        let d = |s| Date::parse(s).unwrap();
        assert_eq!(d("1970-01-01").days_until(d("2000-03-01")), 11_017);
        assert_eq!(d("2024-02-29").to_string(), "2024-02-29");
        assert!(Date::parse("2023-02-29").is_none() && Date::parse("2027-3-31").is_none());
    }
}
