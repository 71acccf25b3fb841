//! Stale verdicts: a citation that held at its revision P is compared with the target T. The
//! cited content (the quote, else the cited lines at P) is searched for at T, exactly (whitespace
//! normalised): found at the same place is fine; found once elsewhere is `stale-moved` (or
//! `stale-renamed` when git's rename detection says the file moved), with a safe fix; found several
//! times is `stale-ambiguous`; not found is `stale-changed` with the span's diff; a file gone
//! without a rename is `stale-deleted`.

use git2::{Oid, Repository};

use crate::citation::{LineRange, PinSource};
use crate::doc::LineIndex;
use crate::finding::{Finding, Fix};
use crate::fix::{self, Relocation};
use crate::normalize::{self, NormalizedSource};
use crate::resolve::{CodeRepo, FileAt};
use crate::rules::{stale_ambiguous, stale_changed, stale_deleted, stale_moved, stale_renamed};

use super::{find_all, AuditedDoc, CiteRef, Held, Subject};

/// A citation that held at `from`, to compare with the target.
#[derive(Debug, Clone)]
pub struct StaleItem {
    pub cite: CiteRef,
    pub pin: PinSource,
    pub from: Oid,
    pub held: Held,
}

/// What comparing with the target found.
#[derive(Debug, Default)]
pub struct StaleOutcome {
    pub findings: Vec<Finding>,
    /// Citations whose content is unchanged at the same lines but whose own pin is older than
    /// the target: the fix that re-pins them (`citegate fix --repin`).
    pub repins: Vec<(usize, Fix)>,
}

/// Compare every held citation of one path with the target.
pub fn check_group(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    path: &str,
    items: &[StaleItem],
    docs: &[AuditedDoc],
) -> StaleOutcome {
    let subject = |item: &StaleItem| Subject {
        doc: item.cite.doc,
        doc_text: &docs[item.cite.doc].doc.text,
        citation: docs[item.cite.doc].citation(item.cite.index),
        revision: Some(item.from),
        pin: item.pin,
    };
    let mut out = StaleOutcome::default();
    // The same blob at the citation's revision and at the target: nothing moved, nothing to read.
    let now = repo.blob_id(git, target, path);
    let mut changed: Vec<&StaleItem> = Vec::with_capacity(items.len());
    for item in items {
        if now.is_some() && repo.blob_id(git, item.from, path) == now {
            unchanged(&mut out, &subject(item), target);
        } else {
            changed.push(item);
        }
    }
    if changed.is_empty() {
        return out;
    }
    match repo.file_at(git, target, path).unwrap_or(FileAt::Missing) {
        FileAt::Text(text) => {
            verdicts(&mut out, &changed, &text, path, None, target, &subject);
        }
        FileAt::Missing => {
            for item in changed {
                let renamed = repo.renamed(git, item.from, target, path);
                let s = subject(item);
                match renamed {
                    Some(new) => match repo.file_at(git, target, &new) {
                        Ok(FileAt::Text(text)) => {
                            verdicts(&mut out, &[item], &text, &new, Some(&new), target, &subject)
                        }
                        _ => {
                            out.findings
                                .push(stale_changed::finding(&s, target, Some(&new), None))
                        }
                    },
                    None => out.findings.push(stale_deleted::finding(&s, target, path)),
                }
            }
        }
        _ => {
            for item in changed {
                out.findings
                    .push(stale_changed::finding(&subject(item), target, None, None));
            }
        }
    }
    out
}

fn verdicts<'a>(
    out: &mut StaleOutcome,
    items: &[&'a StaleItem],
    text: &str,
    path: &str,
    renamed: Option<&str>,
    target: Oid,
    subject: &impl Fn(&'a StaleItem) -> Subject<'a>,
) {
    let norm = NormalizedSource::new(text);
    let patterns: Vec<&str> = items
        .iter()
        .map(|i| i.held.content.as_deref().unwrap_or(""))
        .collect();
    let wanted: Vec<&str> = patterns.iter().copied().filter(|p| !p.is_empty()).collect();
    let found_all = find_all(&norm, &wanted);
    let mut next = 0;
    for (item, pattern) in items.iter().zip(&patterns) {
        let s = subject(item);
        let range = s.citation.lines;
        if pattern.is_empty() {
            // A whole-file citation: only the path can go stale.
            if let Some(new) = renamed {
                out.findings
                    .push(stale_renamed::finding(&s, target, new, None));
            }
            continue;
        }
        let found = &found_all[next];
        next += 1;
        // The content at the same lines as when the citation held (a quote: anywhere in the range).
        let in_place = found
            .iter()
            .any(|f| match (s.citation.quote.is_some(), range) {
                (true, Some(r)) => r.contains(f),
                (false, Some(_)) => Some(*f) == item.held.anchor,
                (_, None) => true,
            });
        if in_place && renamed.is_none() {
            unchanged(out, &s, target);
            continue;
        }
        match found.as_slice() {
            [] => {
                let diff = item.held.lines_text.as_deref().zip(range).map(|(old, r)| {
                    let now = LineIndex::new(text).slice(
                        text,
                        r.start.max(1) as usize,
                        r.end.max(1) as usize,
                    );
                    span_diff(old, now, r)
                });
                out.findings
                    .push(stale_changed::finding(&s, target, renamed, diff));
            }
            [one] => {
                let to = relocate(range, item.held.anchor, *one, normalize::line_count(text));
                match renamed {
                    Some(new) => out
                        .findings
                        .push(stale_renamed::finding(&s, target, new, to)),
                    None => match to {
                        Some(to) => out.findings.push(stale_moved::finding(&s, target, to)),
                        None => out
                            .findings
                            .push(stale_changed::finding(&s, target, None, None)),
                    },
                }
            }
            many => out.findings.push(stale_ambiguous::finding(
                &s,
                target,
                renamed.unwrap_or(path),
                many,
            )),
        }
    }
}

/// Content unchanged at the same lines: fine, and a citation with its own older pin can be
/// re-pinned (`fix --repin`).
fn unchanged(out: &mut StaleOutcome, s: &Subject<'_>, target: Oid) {
    if s.pin == PinSource::Citation {
        let to = Relocation {
            rev: Some(target),
            ..Relocation::default()
        };
        if let Some(fix) = fix::build(s.doc_text, s.citation, s.pin, &to) {
            out.repins.push((s.doc, fix));
        }
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
    let mut out = format!("@@ lines {range} @@\n");
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
