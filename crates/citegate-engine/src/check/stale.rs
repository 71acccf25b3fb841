//! Stale verdicts: a citation that held at its revision P is compared with the target T. The
//! cited content (the quote, else the cited lines at P) is searched for at T, exactly (whitespace
//! normalised): found at the same place is fine; found once elsewhere is `stale-moved` (or
//! `stale-renamed` when git's rename detection says the file moved), with a safe fix; found several
//! times is `stale-ambiguous`; not found is `stale-changed` with the span's diff; a file gone
//! without a rename is `stale-deleted`.

use git2::{Oid, Repository};

use super::facts::Held;
use super::quotes::find_all;
use super::sections;
use crate::model::{
    AuditedDoc, Citation, CiteRef, IncludePart, LineIndex, LineRange, Markers, PinSource,
};
use crate::normalize::{normalize, NormalizedSource};
use crate::resolve::{CodeRepo, FileAt};

/// A citation that held at `from`, to compare with the target (what it held is borrowed from
/// its facts: never copied).
#[derive(Debug, Clone, Copy)]
pub struct StaleItem<'a> {
    /// The citation compared.
    pub cite: CiteRef,
    /// Where its revision came from: a fix re-pins only a citation's own pin.
    pub pin: PinSource,
    /// The revision it held at.
    pub from: Oid,
    /// What it held there: the content searched for at the target.
    pub held: &'a Held,
}

/// What comparing a citation that held at an older revision with the target found. Each
/// variant but [`StaleVerdict::Holds`] is one `stale-*` rule's finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaleVerdict {
    /// The content is where it was: nothing to report (a citation with its own older pin can be
    /// re-pinned).
    Holds,
    /// `stale-moved`: found once elsewhere in the same file.
    Moved {
        /// Where the content is at the target.
        to: LineRange,
    },
    /// `stale-renamed`: the file was renamed; the content is there (at `to`, when a range).
    Renamed {
        /// The file's path at the target.
        path: String,
        /// Where the content is in it; `None` when no range is written (a whole file, a section).
        to: Option<LineRange>,
    },
    /// `stale-changed`: the content no longer occurs (in the renamed file, when there is one).
    Changed {
        /// The path the file was renamed to, when it was.
        renamed_to: Option<String>,
        /// The span's unified diff from the citation's revision to the target.
        diff: Option<String>,
    },
    /// `stale-deleted`: the file is gone and was not renamed.
    Deleted {
        /// The cited path, gone at the target.
        path: String,
    },
    /// `stale-ambiguous`: the content occurs several times at the target.
    Ambiguous {
        /// The file the content was searched for in (the renamed one, when it was renamed).
        path: String,
        /// Every place the content occurs.
        found: Vec<LineRange>,
    },
}

/// What the object database says about one path for `classify`: which items' revisions have
/// the target's blob (nothing moved), and the target's file when any did not.
pub struct PathRead {
    same: Vec<bool>,
    now: Option<Result<FileAt, git2::Error>>,
}

/// Read what `classify` compares (blob IDs first: the target's file is read only when one of
/// the items' blobs differs from it).
pub fn read(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    path: &str,
    items: &[StaleItem<'_>],
) -> PathRead {
    let now = repo.blob_id(git, target, path);
    let same: Vec<bool> = items
        .iter()
        .map(|item| now.is_some() && repo.blob_id(git, item.from, path) == now)
        .collect();
    let now = same
        .iter()
        .any(|s| !s)
        .then(|| repo.file_at(git, target, path));
    PathRead { same, now }
}

/// Compare every held citation of one path with the target: a verdict per item (by index into
/// `items`), none for a whole-file citation whose file is still there. A file gone at the target
/// is followed through renames (with a handle lent by the repository: it is the rare case).
pub(crate) fn classify(
    repo: &CodeRepo,
    target: Oid,
    path: &str,
    items: &[StaleItem<'_>],
    docs: &[AuditedDoc],
    read: PathRead,
) -> Vec<(usize, StaleVerdict)> {
    let mut out = Vec::new();
    let mut changed: Vec<usize> = Vec::with_capacity(items.len());
    for (i, same) in read.same.iter().enumerate() {
        match same {
            true => out.push((i, StaleVerdict::Holds)),
            false => changed.push(i),
        }
    }
    if changed.is_empty() {
        return out;
    }
    let citation = |i: usize| docs[items[i].cite.doc].citation(items[i].cite.index);
    let now = read.now.and_then(Result::ok).unwrap_or(FileAt::Missing);
    match now {
        FileAt::Text(text) => {
            let compared: Vec<(usize, &Citation, &Held)> = changed
                .iter()
                .map(|&i| (i, citation(i), items[i].held))
                .collect();
            out.extend(verdicts(&compared, &text, path, None));
        }
        FileAt::Missing => {
            for i in changed {
                let followed = repo.with_handle(|git| {
                    let new = repo.renamed(git, items[i].from, target, path)?;
                    Some((repo.file_at(git, target, &new), new))
                });
                let verdict = match followed {
                    Some((file, new)) => match file {
                        Ok(FileAt::Text(text)) => {
                            let one = [(i, citation(i), items[i].held)];
                            out.extend(verdicts(&one, &text, &new, Some(&new)));
                            continue;
                        }
                        _ => StaleVerdict::Changed {
                            renamed_to: Some(new),
                            diff: None,
                        },
                    },
                    None => StaleVerdict::Deleted {
                        path: path.to_string(),
                    },
                };
                out.push((i, verdict));
            }
        }
        _ => out.extend(changed.into_iter().map(|i| {
            let verdict = StaleVerdict::Changed {
                renamed_to: None,
                diff: None,
            };
            (i, verdict)
        })),
    }
    out
}

/// The verdicts of citations of one file whose blob changed, against its text at the target.
fn verdicts(
    items: &[(usize, &Citation, &Held)],
    text: &str,
    path: &str,
    renamed: Option<&str>,
) -> Vec<(usize, StaleVerdict)> {
    let norm = NormalizedSource::new(text);
    let lines = LineIndex::new(text);
    let target = Target {
        text,
        line_count: lines.line_count(text),
        lines,
    };
    // A named section is compared with the same section at the target, not searched for.
    fn section(c: &Citation) -> Option<&Markers> {
        match &c.include {
            Some(IncludePart::Section(markers)) => Some(markers),
            _ => None,
        }
    }
    let patterns: Vec<&str> = items
        .iter()
        .map(|(_, c, held)| match section(c) {
            Some(_) => "",
            None => held.content.as_deref().unwrap_or(""),
        })
        .collect();
    let wanted: Vec<&str> = patterns.iter().copied().filter(|p| !p.is_empty()).collect();
    let mut found_all = find_all(&norm, &wanted).into_iter();
    let mut out = Vec::with_capacity(items.len());
    for (&(i, citation, held), pattern) in items.iter().zip(&patterns) {
        if let (Some(markers), Some(old)) = (section(citation), &held.content) {
            out.push((i, section_verdict(markers, held, old, &target, renamed)));
            continue;
        }
        if pattern.is_empty() {
            // A whole-file citation: only the path can go stale.
            if let Some(new) = renamed {
                let to = None;
                out.push((
                    i,
                    StaleVerdict::Renamed {
                        path: new.to_string(),
                        to,
                    },
                ));
            }
            continue;
        }
        let found = found_all.next().unwrap_or_default();
        out.push((i, verdict(citation, held, &found, &target, path, renamed)));
    }
    out
}

/// A named section's verdict: its content at the target against what it held (its markers may
/// have moved with it: the site shows the section wherever it is).
fn section_verdict(
    markers: &Markers,
    held: &Held,
    old: &str,
    target: &Target<'_>,
    renamed: Option<&str>,
) -> StaleVerdict {
    let now = sections::lines(target.text, markers).map(|(start, end)| match start <= end {
        true => target.lines.slice(target.text, start, end),
        false => "",
    });
    match (now, renamed) {
        (Some(now), None) if normalize(now) == old => StaleVerdict::Holds,
        (Some(now), Some(new)) if normalize(now) == old => StaleVerdict::Renamed {
            path: new.to_string(),
            to: None,
        },
        (now, renamed) => {
            let was = held.anchor.unwrap_or(LineRange::new(1, 1));
            let diff = held
                .lines_text
                .as_deref()
                .map(|old| span_diff(old, now.unwrap_or(""), was));
            StaleVerdict::Changed {
                renamed_to: renamed.map(str::to_string),
                diff,
            }
        }
    }
}

/// The file at the target, with what every verdict on it needs, computed once.
struct Target<'a> {
    text: &'a str,
    lines: LineIndex,
    line_count: usize,
}

/// One citation's verdict, from where its held content is found at the target.
fn verdict(
    citation: &Citation,
    held: &Held,
    found: &[LineRange],
    target: &Target<'_>,
    path: &str,
    renamed: Option<&str>,
) -> StaleVerdict {
    let range = citation.lines;
    // The content at the same lines as when the citation held (a quote: anywhere in the range).
    let in_place = found
        .iter()
        .any(|f| match (citation.quote.is_some(), range) {
            (true, Some(r)) => r.contains(f),
            (false, Some(_)) => Some(*f) == held.anchor,
            (_, None) => true,
        });
    if in_place && renamed.is_none() {
        return StaleVerdict::Holds;
    }
    match found {
        [] => {
            let diff = held.lines_text.as_deref().zip(range).map(|(old, r)| {
                let (start, end) = (r.start.max(1) as usize, r.end.max(1) as usize);
                span_diff(old, target.lines.slice(target.text, start, end), r)
            });
            StaleVerdict::Changed {
                renamed_to: renamed.map(str::to_string),
                diff,
            }
        }
        [one] => {
            let to = relocate(range, held.anchor, *one, target.line_count);
            match (renamed, to) {
                (Some(new), to) => StaleVerdict::Renamed {
                    path: new.to_string(),
                    to,
                },
                (None, Some(to)) => StaleVerdict::Moved { to },
                (None, None) => StaleVerdict::Changed {
                    renamed_to: None,
                    diff: None,
                },
            }
        }
        many => StaleVerdict::Ambiguous {
            path: renamed.unwrap_or(path).to_string(),
            found: many.to_vec(),
        },
    }
}

/// The cited range at the target: the range moved by as much as its content (`anchor` at the
/// citation's revision, `found` at the target) moved, within the file.
fn relocate(
    range: Option<LineRange>,
    anchor: Option<LineRange>,
    found: LineRange,
    lines: usize,
) -> Option<LineRange> {
    let range = range?;
    let shift = match anchor {
        Some(a) => found.start - a.start,
        None => found.start - range.start,
    };
    let moved = if anchor == Some(range) || anchor.is_none() {
        found
    } else {
        LineRange::new(range.start + shift, range.end + shift)
    };
    (moved.start >= 1 && moved.end <= lines as i64).then_some(moved)
}

/// A unified diff of the cited lines then and the same lines now.
fn span_diff(old: &str, now: &str, range: LineRange) -> String {
    let old = format!("{old}\n");
    let now = format!("{now}\n");
    let diff = similar::TextDiff::from_lines(&old, &now);
    let mut out = format!("@@ {} @@\n", range.named());
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Delete => '-',
            similar::ChangeTag::Insert => '+',
            similar::ChangeTag::Equal => ' ',
        };
        out.push(sign);
        out.push_str(change.value());
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relocation_keeps_the_context_around_a_quote() {
        // Cited 10-20, quote at 12-13; the quote is now at 32-33.
        let to = relocate(
            Some(LineRange::new(10, 20)),
            Some(LineRange::new(12, 13)),
            LineRange::new(32, 33),
            100,
        );
        assert_eq!(to, Some(LineRange::new(30, 40)));
        // Cited lines are the content: they move as found.
        let to = relocate(
            Some(LineRange::new(10, 12)),
            Some(LineRange::new(10, 12)),
            LineRange::new(15, 17),
            100,
        );
        assert_eq!(to, Some(LineRange::new(15, 17)));
        // Never past the end of the file.
        assert_eq!(
            relocate(
                Some(LineRange::new(1, 9)),
                Some(LineRange::new(8, 9)),
                LineRange::new(2, 3),
                5
            ),
            None
        );
    }
}
