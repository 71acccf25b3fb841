//! Applying fixes to docs without losing a byte: edits only inside their spans, overlapping edits
//! left to the next run, atomic writes that refuse a doc changed since it was read.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::Path;

use crate::model::{Applicability, Finding, Fix, Report, Span};

/// The edits `citegate fix` makes to one doc.
#[derive(Debug)]
pub struct DocFix {
    /// Index into [`Report::docs`].
    pub doc: usize,
    pub after: String,
    /// How many citations change.
    pub applied: usize,
    /// How many doc pins move (with their citations).
    pub pins: usize,
}

/// What `fix` (or `regenerate`) will change: the docs, and the edits held back because a line
/// they touch holds a citation that stays failing (by doc).
#[derive(Debug, Default)]
pub struct Plan {
    pub docs: Vec<DocFix>,
    pub blocked: Vec<(usize, Fix)>,
}

/// Every safe fix of a report, grouped by doc, and the opt-in ones (re-pins) when `opt_in`. A
/// fix's applicability is its own: safe fixes rest on content found again, exactly and uniquely.
pub fn plan(report: &Report, opt_in: bool) -> Plan {
    plan_with(report, opt_in, &BTreeMap::new())
}

/// [`plan`] with `first`: edits by doc (a rewritten paragraph) that win over the report's fixes
/// they overlap.
pub fn plan_with(report: &Report, opt_in: bool, first: &BTreeMap<usize, Vec<Fix>>) -> Plan {
    let wanted = |fix: &Fix| match fix.applicability {
        Applicability::Safe => true,
        Applicability::OptIn => opt_in,
    };
    let mut by_doc: BTreeMap<usize, Vec<&Fix>> = BTreeMap::new();
    for (doc, fixes) in first {
        by_doc.entry(*doc).or_default().extend(fixes.iter());
    }
    let overlaps = |a: &Fix, b: &Fix| a.byte_start < b.byte_end && b.byte_start < a.byte_end;
    let mut pins: BTreeMap<usize, usize> = BTreeMap::new();
    let attached = report
        .findings
        .iter()
        .filter_map(|f| Some((f.doc, f.fix.as_ref()?)));
    let repins = report.repins.iter().map(|(doc, fix)| (*doc, fix));
    for (doc, fix) in attached.chain(repins) {
        let taken = first
            .get(&doc)
            .is_some_and(|f| f.iter().any(|e| overlaps(e, fix)));
        if wanted(fix) && !taken {
            by_doc.entry(doc).or_default().push(fix);
        }
    }
    // A doc pin moves with all its citations or not at all (see `audit::pins`): a move any of
    // whose edits would overlap another is left for the next run, whole.
    for m in report.pin_moves.iter().filter(|m| !m.blocked()) {
        let fixes = by_doc.entry(m.doc).or_default();
        if !m.edits.iter().any(|e| fixes.iter().any(|f| overlaps(e, f))) {
            fixes.extend(m.edits.iter());
            *pins.entry(m.doc).or_default() += 1;
        }
    }
    let mut blocked = Vec::new();
    let docs = by_doc
        .into_iter()
        .filter_map(|(doc, mut fixes)| {
            let mut held = hold_failing_lines(report, doc, &mut fixes);
            // A doc pin moves with all its citations or not at all.
            let mut pins = pins.get(&doc).copied().unwrap_or(0);
            for m in report
                .pin_moves
                .iter()
                .filter(|m| m.doc == doc && !m.blocked())
            {
                let is_held = |held: &[&Fix], e: &Fix| held.iter().any(|h| std::ptr::eq(*h, e));
                if m.edits.iter().any(|e| is_held(&held, e)) {
                    fixes.retain(|f| !m.edits.iter().any(|e| std::ptr::eq(*f, e)));
                    let rest: Vec<&Fix> = m.edits.iter().filter(|e| !is_held(&held, e)).collect();
                    held.extend(rest);
                    pins = pins.saturating_sub(1);
                }
            }
            blocked.extend(held.into_iter().map(|f| (doc, f.clone())));
            let (after, applied) = apply(&report.docs[doc].doc.text, &fixes);
            (applied > 0).then_some(DocFix {
                doc,
                after,
                applied: applied.saturating_sub(pins),
                pins,
            })
        })
        .collect();
    Plan { docs, blocked }
}

/// Drop the edits that touch a line holding a citation which stays failing (no kept edit
/// covers it) and resolves by the line's history (no pin of its own or of its doc): editing
/// the line would make its last commit the new one, and the failing citation would be checked
/// as if written there, hidden from the next audit. Dropping an edit can leave its own citation
/// failing, so this runs to a fixpoint. Returns the dropped edits.
fn hold_failing_lines<'r>(report: &Report, doc: usize, fixes: &mut Vec<&'r Fix>) -> Vec<&'r Fix> {
    let d = &report.docs[doc];
    let by_span: HashMap<Span, usize> = (d.extracted.citations.iter().enumerate())
        .map(|(i, c)| (c.span, i))
        .collect();
    let lines = |start: usize, end: usize| {
        d.doc.lines.line(start)..=d.doc.lines.line(end.saturating_sub(1).max(start))
    };
    let failing: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.doc == doc && f.rule.says_wrong(f.severity))
        .filter(|f| {
            by_span
                .get(&f.span)
                .is_some_and(|&i| d.pin_of(i).0.is_none())
        })
        .collect();
    let mut dropped = Vec::new();
    loop {
        // The kept edits by start, with the furthest end so far: whether one overlaps a span is
        // a binary search (a doc may hold thousands of citations).
        let mut ranges: Vec<(usize, usize)> =
            fixes.iter().map(|x| (x.byte_start, x.byte_end)).collect();
        ranges.sort_unstable();
        let reach: Vec<usize> = ranges
            .iter()
            .scan(0, |far, &(_, end)| {
                *far = end.max(*far);
                Some(*far)
            })
            .collect();
        let covered = |f: &Finding| {
            let end = f.span.end.max(f.span.start + 1);
            let before = ranges.partition_point(|&(start, _)| start < end);
            before > 0 && reach[before - 1] > f.span.start
        };
        let held: BTreeSet<usize> = failing
            .iter()
            .filter(|f| !covered(f))
            .flat_map(|f| lines(f.span.start, f.span.end))
            .collect();
        let touches = |x: &Fix| held.range(lines(x.byte_start, x.byte_end)).next().is_some();
        let (hit, kept): (Vec<&Fix>, Vec<&Fix>) = fixes.iter().partition(|x| touches(x));
        if hit.is_empty() {
            return dropped;
        }
        dropped.extend(hit);
        *fixes = kept;
    }
}

/// A unified diff of a doc before and after its fixes.
pub fn unified_diff(name: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// `text` with the fixes applied. Overlapping fixes after the first are skipped (a second run
/// picks them up); returns the new text and how many were applied.
pub fn apply(text: &str, fixes: &[&Fix]) -> (String, usize) {
    let mut sorted: Vec<&Fix> = fixes.to_vec();
    sorted.sort_by_key(|f| (f.byte_start, f.byte_end));
    sorted.dedup_by(|a, b| a == b);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut applied = 0;
    for f in sorted {
        if f.byte_start < at || f.byte_end > text.len() {
            continue;
        }
        out.push_str(&text[at..f.byte_start]);
        out.push_str(&f.replacement);
        at = f.byte_end;
        applied += 1;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// Replace `path` with `content` atomically: a temporary file in the same folder, the original's
/// permissions, then a rename. Refuses when the file no longer holds `expected` (it changed since
/// it was read).
pub fn write_atomic(path: &Path, expected: &[u8], content: &[u8]) -> std::io::Result<()> {
    if let Err(e) = crate::output::refuse_links_on_the_way(path) {
        return Err(std::io::Error::other(e.to_string()));
    }
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other(
            "the doc is a symbolic link: never written through or replaced",
        ));
    }
    let unchanged = || -> std::io::Result<()> {
        if std::fs::read(path)? != expected {
            return Err(std::io::Error::other(
                "the doc changed since it was read; not overwritten",
            ));
        }
        Ok(())
    };
    unchanged()?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let _in_flight = crate::output::InFlight::new(tmp.path());
    tmp.write_all(content)?;
    tmp.as_file().sync_all()?;
    let perms = std::fs::metadata(path)?.permissions();
    std::fs::set_permissions(tmp.path(), perms)?;
    // Again right before the rename: an edit made while the new content was being written is
    // not lost (the temporary file is removed instead).
    unchanged()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(start: usize, end: usize, text: &str) -> Fix {
        Fix {
            path: "a".into(),
            start_line: 1,
            end_line: 1,
            replacement: text.into(),
            byte_start: start,
            byte_end: end,
            applicability: Applicability::Safe,
        }
    }

    #[test]
    fn applies_from_the_spans_and_keeps_every_other_byte() {
        let text = "\u{feff}a 10-12 b\r\n c 3\r\n";
        let f1 = fix(5, 10, "20-22");
        let f2 = fix(17, 18, "4");
        let (out, n) = apply(text, &[&f2, &f1]);
        assert_eq!(out, "\u{feff}a 20-22 b\r\n c 4\r\n");
        assert_eq!(n, 2);
        let overlapping = fix(6, 9, "x");
        assert_eq!(apply(text, &[&f1, &overlapping]).1, 1);
    }

    #[cfg(unix)]
    #[test]
    fn atomic_write_never_writes_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.md");
        std::fs::write(&outside, "old").unwrap();
        let link = dir.path().join("a.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(write_atomic(&link, b"old", b"fixed").is_err());
        assert_eq!(std::fs::read(&outside).unwrap(), b"old");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn atomic_write_refuses_a_doc_that_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "new").unwrap();
        assert!(write_atomic(&path, b"old", b"fixed").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        write_atomic(&path, b"new", b"fixed").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"fixed");
    }
}
