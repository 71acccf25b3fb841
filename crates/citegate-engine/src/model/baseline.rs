//! The baseline: `.citegate-baseline.json`, the findings a repository has agreed to live with
//! for now (ruff's `--add-noqa` file, eslint's suppressions file). Each is keyed by its content
//! fingerprint ([`super::fingerprint`]), never by its line, so lines moving above a finding do not
//! re-open it; a changed finding (another rule, another citation) has another fingerprint and is
//! new. Only `citegate baseline` adds to the file; `citegate baseline --prune` only takes away
//! what no finding matches any more. The file is sorted and pretty-printed, one entry per
//! fingerprint, so that a review reads its diff.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::finding::Finding;
use crate::registry::{Family, RuleId};

/// The file looked for at the repository root.
pub const FILE_NAME: &str = ".citegate-baseline.json";

/// The file format's version: another way of computing fingerprints is another version.
pub const VERSION: u32 = 1;

/// The longest snippet written beside an entry (characters), for the reader of a diff.
const SNIPPET_CHARS: usize = 80;

/// The baseline as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// The file format's version: [`VERSION`].
    pub version: u32,
    /// Sorted by doc, rule and fingerprint.
    pub findings: Vec<Entry>,
}

/// One baselined finding (or `count` alike ones).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The doc the finding is in, by its name in reports.
    pub doc: String,
    /// The rule that made it.
    pub rule: RuleId,
    /// The finding's fingerprint (16 hex digits).
    pub fingerprint: String,
    /// How many findings of the run carry it (two identical findings read back from merged
    /// reports); 1 is not written.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: usize,
    /// The doc text the finding covers (shortened): what a reviewer reads. Never matched on.
    #[serde(default)]
    pub snippet: String,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// Why a baseline file cannot be read: where (1-based line and column; 0 when the whole file)
/// and what. A malformed baseline fails the run: ignoring it would fail every finding it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineError {
    /// The 1-based line of the file where it cannot be read; 0 when the whole file.
    pub line: usize,
    /// The 1-based column on that line; 0 when the whole file.
    pub column: usize,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, " {}", self.message),
            line => write!(f, "{line}:{}: {}", self.column, self.message),
        }
    }
}

impl std::error::Error for BaselineError {}

/// Whether a finding of `rule` may be baselined (or suppressed at all): not an `input` rule (a
/// doc that cannot be read or a history cut short hides every citation under it, so it is never
/// accepted as it is), nor `unused-suppression` (about the suppressions themselves).
pub fn can_suppress(rule: RuleId) -> bool {
    rule.info().family != Family::Input && rule != RuleId::UnusedSuppression
}

impl Baseline {
    /// Read a baseline file's text: its version, each entry's fields (unknown keys refused), 16
    /// hex digits per fingerprint, no fingerprint twice.
    pub fn parse(text: &str) -> Result<Baseline, BaselineError> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| BaselineError {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let at = |needle: &str, message: String| {
            let offset = text.find(needle).unwrap_or(0);
            let before = &text[..offset];
            BaselineError {
                line: before.matches('\n').count() + 1,
                column: before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1,
                message,
            }
        };
        if b.version != VERSION {
            return Err(at(
                "\"version\"",
                format!(
                    "version {} is not {VERSION}: written by another citegate",
                    b.version
                ),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for e in &b.findings {
            let hex =
                e.fingerprint.len() == 16 && e.fingerprint.bytes().all(|c| c.is_ascii_hexdigit());
            if !hex {
                let message = format!("fingerprint `{}` is not 16 hex digits", e.fingerprint);
                return Err(at(&e.fingerprint, message));
            }
            if e.count == 0 {
                return Err(at(
                    &e.fingerprint,
                    "count 0: an entry counts at least one finding".into(),
                ));
            }
            if !seen.insert(e.fingerprint.as_str()) {
                let message = format!("fingerprint `{}` is listed twice", e.fingerprint);
                let second = text.rfind(&e.fingerprint).unwrap_or(0);
                return Err(at(&text[second..], message));
            }
        }
        Ok(b)
    }

    /// The baseline of `findings` (each with its doc's name): one entry per fingerprint, counted,
    /// sorted. Findings that cannot be suppressed ([`can_suppress`]) are left out.
    pub fn of<'a>(findings: impl IntoIterator<Item = (&'a str, &'a Finding)>) -> Baseline {
        let mut entries: BTreeMap<(&str, RuleId, &str), Entry> = BTreeMap::new();
        for (doc, f) in findings {
            if !can_suppress(f.rule) {
                continue;
            }
            let key = (doc, f.rule, f.at.fingerprint.as_str());
            entries
                .entry(key)
                .and_modify(|e| e.count += 1)
                .or_insert_with(|| Entry {
                    doc: doc.to_string(),
                    rule: f.rule,
                    fingerprint: f.at.fingerprint.clone(),
                    count: 1,
                    snippet: shorten(&f.at.snippet),
                });
        }
        Baseline {
            version: VERSION,
            findings: entries.into_values().collect(),
        }
    }

    /// The file's text: pretty-printed, sorted, ending with a line end.
    pub fn render(&self) -> String {
        let mut sorted = self.clone();
        sorted.findings.sort();
        let mut text = serde_json::to_string_pretty(&sorted).expect("a baseline serialises");
        text.push('\n');
        text
    }

    /// Fingerprint → how many findings it still covers: built once per run, looked up per finding.
    pub fn counts(&self) -> HashMap<&str, usize> {
        let mut out = HashMap::with_capacity(self.findings.len());
        for e in &self.findings {
            *out.entry(e.fingerprint.as_str()).or_default() += e.count;
        }
        out
    }
}

/// `s`'s words joined by one space, at most [`SNIPPET_CHARS`] characters (then `…`).
fn shorten(s: &str) -> String {
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match words.char_indices().nth(SNIPPET_CHARS) {
        Some((at, _)) => format!("{}…", &words[..at]),
        None => words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_baseline_is_located() {
        let e = Baseline::parse("{\"version\": 1,\n \"findings\": [}").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = Baseline::parse("{\"version\": 2, \"findings\": []}").unwrap_err();
        assert!(e.message.contains("version 2"), "{e}");
        let text = "{\"version\": 1, \"findings\": [\n{\"doc\": \"a.md\", \"rule\": \"invented-path\", \"fingerprint\": \"xyz\"}]}";
        let e = Baseline::parse(text).unwrap_err();
        assert_eq!((e.line, e.message.contains("16 hex")), (2, true), "{e}");
        let e = Baseline::parse("{\"version\": 1, \"findings\": [{\"doc\": \"a.md\", \"rule\": \"no-such\", \"fingerprint\": \"0123456789abcdef\"}]}").unwrap_err();
        assert!(e.message.contains("no-such"), "{e}");
        let entry = "{\"doc\": \"a.md\", \"rule\": \"invented-path\", \"fingerprint\": \"0123456789abcdef\"}";
        let twice = format!("{{\"version\": 1, \"findings\": [\n{entry},\n{entry}]}}");
        let e = Baseline::parse(&twice).unwrap_err();
        assert_eq!((e.line, e.message.contains("twice")), (3, true), "{e}");
        let e = Baseline::parse("{\"version\": 1, \"findings\": [], \"extra\": 1}").unwrap_err();
        assert!(e.message.contains("extra"), "{e}");
    }

    #[test]
    fn a_baseline_reads_back_what_it_writes() {
        let b = Baseline {
            version: VERSION,
            findings: vec![Entry {
                doc: "docs/a.md".into(),
                rule: RuleId::InventedPath,
                fingerprint: "0123456789abcdef".into(),
                count: 2,
                snippet: "src/a.rs:1 \"quoted\"".into(),
            }],
        };
        assert_eq!(Baseline::parse(&b.render()).unwrap(), b);
        assert_eq!(b.counts()["0123456789abcdef"], 2);
        assert_eq!(
            shorten(&"word ".repeat(40)).chars().count(),
            SNIPPET_CHARS + 1
        );
    }
}
