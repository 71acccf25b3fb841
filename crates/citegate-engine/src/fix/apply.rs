//! Applying fixes to docs without losing a byte: edits only inside their spans, overlapping edits
//! left to the next run, atomic writes that refuse a doc changed since it was read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::model::{
    Applicability, CiteId, CiteRef, DocId, Edit, Finding, Fix, PinMove, Report, Span,
};

/// The edits `citegate fix` makes to one doc.
#[derive(Debug)]
pub struct DocFix {
    /// Index into [`Report::docs`].
    pub doc: DocId,
    /// The doc's whole text with the edits made.
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
    /// The docs that change, each with its new text.
    pub docs: Vec<DocFix>,
    /// The edits held back, by doc.
    pub blocked: Vec<(DocId, Blocked)>,
}

/// An edit held back, and the fix it belongs to (`None`: a doc pin's own edit, or a rewritten
/// paragraph's).
#[derive(Debug, Clone)]
pub struct Blocked {
    /// The edit held back.
    pub edit: Edit,
    /// The fix it belongs to; `None`: a doc pin's own edit, or a rewritten paragraph's.
    pub fix: Option<Fix>,
}

/// An edit of the plan and the fix it belongs to, if any.
#[derive(Clone, Copy)]
struct Item<'r> {
    edit: &'r Edit,
    fix: Option<&'r Fix>,
}

/// The edits of a pin move: its citations' fixes, then the pin's own edit.
fn move_items(m: &PinMove) -> impl Iterator<Item = Item<'_>> {
    let moved = m.moves.iter().map(|f| Item {
        edit: &f.edit,
        fix: Some(f),
    });
    moved.chain(m.pin.iter().map(|edit| Item { edit, fix: None }))
}

/// An edit that wins over the report's fixes it overlaps: a rewritten paragraph, or a fix made
/// outside the audit (`regenerate`'s relocation), which moves its own citation only.
#[derive(Debug, Clone)]
pub enum First {
    /// A rewritten paragraph's edit.
    Edit(Edit),
    /// A fix made outside the audit (`regenerate`'s relocation).
    Fix(Fix),
}

impl First {
    fn item(&self) -> Item<'_> {
        match self {
            First::Edit(edit) => Item { edit, fix: None },
            First::Fix(fix) => Item {
                edit: &fix.edit,
                fix: Some(fix),
            },
        }
    }
}

/// Every safe fix of a report, grouped by doc, and the opt-in ones (re-pins) when `opt_in`. A
/// fix's applicability is its own: safe fixes rest on content found again, exactly and uniquely.
pub fn plan(report: &Report, opt_in: bool) -> Plan {
    plan_with(report, opt_in, &BTreeMap::new())
}

/// [`plan`] with `first`: edits by doc that win over the report's fixes they overlap.
pub fn plan_with(report: &Report, opt_in: bool, first: &BTreeMap<DocId, Vec<First>>) -> Plan {
    let wanted = |fix: &Fix| match fix.applicability {
        Applicability::Safe => true,
        Applicability::OptIn => opt_in,
    };
    let mut by_doc: BTreeMap<DocId, Vec<Item<'_>>> = BTreeMap::new();
    for (doc, edits) in first {
        by_doc
            .entry(*doc)
            .or_default()
            .extend(edits.iter().map(First::item));
    }
    let mut pins: BTreeMap<DocId, usize> = BTreeMap::new();
    let attached = report
        .findings
        .iter()
        .filter_map(|f| Some((f.doc, f.fix.as_ref()?)));
    let repins = report.repins.iter().map(|(doc, fix)| (*doc, fix));
    for (doc, fix) in attached.chain(repins) {
        let taken = first
            .get(&doc)
            .is_some_and(|f| f.iter().any(|e| e.item().edit.overlaps(&fix.edit)));
        if wanted(fix) && !taken {
            let item = Item {
                edit: &fix.edit,
                fix: Some(fix),
            };
            by_doc.entry(doc).or_default().push(item);
        }
    }
    // A doc pin moves with all its citations or not at all (see `audit::pins`): a move any of
    // whose edits would overlap another is left for the next run, whole.
    for m in report.pin_moves.iter().filter(|m| !m.blocked()) {
        let items = by_doc.entry(m.doc).or_default();
        if !m.edits().any(|e| items.iter().any(|i| i.edit.overlaps(e))) {
            items.extend(move_items(m));
            *pins.entry(m.doc).or_default() += 1;
        }
    }
    let mut blocked = Vec::new();
    let docs = by_doc
        .into_iter()
        .filter_map(|(doc, mut items)| {
            let mut held = hold_failing_lines(report, doc, &mut items);
            // A doc pin moves with all its citations or not at all.
            let mut pins = pins.get(&doc).copied().unwrap_or(0);
            for m in report
                .pin_moves
                .iter()
                .filter(|m| m.doc == doc && !m.blocked())
            {
                let is_held =
                    |held: &[Item<'_>], e: &Edit| held.iter().any(|h| std::ptr::eq(h.edit, e));
                if m.edits().any(|e| is_held(&held, e)) {
                    items.retain(|i| !m.edits().any(|e| std::ptr::eq(i.edit, e)));
                    let rest: Vec<Item<'_>> =
                        move_items(m).filter(|i| !is_held(&held, i.edit)).collect();
                    held.extend(rest);
                    pins = pins.saturating_sub(1);
                }
            }
            blocked.extend(held.into_iter().map(|i| {
                let edit = i.edit.clone();
                (
                    doc,
                    Blocked {
                        edit,
                        fix: i.fix.cloned(),
                    },
                )
            }));
            let edits: Vec<&Edit> = items.iter().map(|i| i.edit).collect();
            let (after, applied) = apply(&report.docs[doc].doc.text, &edits);
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

/// Drop the edits that touch a line holding a citation which stays failing (no kept fix of its
/// own, and no kept edit of no citation, a rewritten paragraph, over it) and resolves by the
/// line's history (it was checked at its implied pin): editing the line would make its last
/// commit the new one, and the failing citation would be checked as if written there, hidden
/// from the next audit. Another citation's fix is no cover, even over the same span
/// (`[a.rs:1, 2]()` is two citations). Dropping an edit can leave its own citation failing, so
/// this runs to a fixpoint. Returns the dropped edits.
fn hold_failing_lines<'r>(report: &Report, doc: DocId, items: &mut Vec<Item<'r>>) -> Vec<Item<'r>> {
    let d = &report.docs[doc];
    let lines = |start: usize, end: usize| {
        d.doc.lines.line(start)..=d.doc.lines.line(end.saturating_sub(1).max(start))
    };
    let failing: Vec<&Finding> = report
        .findings_of(doc)
        .filter(|f| f.rule.says_wrong(f.severity))
        .filter(|f| {
            let implied = |index| report.implied.contains_key(&CiteRef { doc, index });
            f.cite.is_some_and(implied)
        })
        .collect();
    let mut dropped = Vec::new();
    loop {
        // The kept edits by start, with the furthest end so far: whether one overlaps a span is
        // a binary search (a doc may hold thousands of citations).
        let moved: BTreeSet<CiteId> = items.iter().filter_map(|i| i.fix?.cite).collect();
        let mut ranges: Vec<(usize, usize)> = (items.iter())
            .filter(|i| i.fix.is_none_or(|x| x.cite.is_none()))
            .map(|i| (i.edit.byte_start, i.edit.byte_end))
            .collect();
        ranges.sort_unstable();
        let reach: Vec<usize> = ranges
            .iter()
            .scan(0, |far, &(_, end)| {
                *far = end.max(*far);
                Some(*far)
            })
            .collect();
        let covered = |f: &Finding| {
            if f.cite.is_some_and(|c| moved.contains(&c)) {
                return true;
            }
            let end = f.span.end.max(f.span.start + 1);
            let before = ranges.partition_point(|&(start, _)| start < end);
            before > 0 && reach[before - 1] > f.span.start
        };
        let held: BTreeSet<usize> = failing
            .iter()
            .filter(|f| !covered(f))
            .flat_map(|f| lines(f.span.start, f.span.end))
            .collect();
        let touches = |i: &Item<'_>| {
            let e = i.edit;
            held.range(lines(e.byte_start, e.byte_end)).next().is_some()
        };
        let (hit, kept): (Vec<Item<'r>>, Vec<Item<'r>>) = items.iter().partition(|i| touches(i));
        if hit.is_empty() {
            return dropped;
        }
        dropped.extend(hit);
        *items = kept;
    }
}

/// A unified diff of a doc before and after its fixes (two lines of context; empty when they
/// are the same). The diff is git's default, Myers with the indent heuristic (`gix-imara-diff`,
/// whose Myers bounds its cost: 48,000 changed lines of one doc take a fraction of a second),
/// printed as `diff -u` prints it.
pub fn unified_diff(name: &str, before: &str, after: &str) -> String {
    use gix_imara_diff::{Algorithm, Diff, InternedInput, UnifiedDiffConfig};
    let input = InternedInput::new(before, after);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    let mut config = UnifiedDiffConfig::default();
    config.context_len(2);
    let printer = DiffPrinter(&input.interner);
    let body = diff.unified_diff(&printer, config, &input).to_string();
    if body.is_empty() {
        return body;
    }
    format!("--- a/{name}\n+++ b/{name}\n{body}")
}

/// Prints a hunk as `diff -u` does: a range of one line as its number alone, an empty one at the
/// line before it, and a last line without its line end marked `\ No newline at end of file`.
struct DiffPrinter<'a>(&'a gix_imara_diff::Interner<&'a str>);

impl DiffPrinter<'_> {
    fn line(
        &self,
        mut f: impl std::fmt::Write,
        tag: char,
        token: gix_imara_diff::Token,
    ) -> std::fmt::Result {
        let line = self.0[token];
        write!(f, "{tag}{line}")?;
        if !line.ends_with('\n') {
            write!(f, "\n\\ No newline at end of file\n")?;
        }
        Ok(())
    }
}

/// A hunk's range as `diff -u` writes it (`start` 0-based).
fn hunk_range(start: u32, len: u32) -> String {
    match len {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{len}", start + 1),
    }
}

impl gix_imara_diff::UnifiedDiffPrinter for DiffPrinter<'_> {
    fn display_header(
        &self,
        mut f: impl std::fmt::Write,
        start_before: u32,
        start_after: u32,
        len_before: u32,
        len_after: u32,
    ) -> std::fmt::Result {
        let (old, new) = (
            hunk_range(start_before, len_before),
            hunk_range(start_after, len_after),
        );
        writeln!(f, "@@ -{old} +{new} @@")
    }

    fn display_context_token(
        &self,
        f: impl std::fmt::Write,
        token: gix_imara_diff::Token,
    ) -> std::fmt::Result {
        self.line(f, ' ', token)
    }

    fn display_hunk(
        &self,
        mut f: impl std::fmt::Write,
        before: &[gix_imara_diff::Token],
        after: &[gix_imara_diff::Token],
    ) -> std::fmt::Result {
        for &t in before {
            self.line(&mut f, '-', t)?;
        }
        for &t in after {
            self.line(&mut f, '+', t)?;
        }
        Ok(())
    }
}

/// `text` with the edits applied. Overlapping edits after the first are skipped (a second run
/// picks them up); returns the new text and how many were applied.
pub fn apply(text: &str, edits: &[&Edit]) -> (String, usize) {
    let (out, applied, _) = apply_spans(text, edits, &[]);
    (out, applied)
}

/// [`apply`], and where each of `spans` (of `text`) is in the new text: an edit inside a span
/// moves its end, edits before it move it whole.
pub fn apply_spans(text: &str, edits: &[&Edit], spans: &[Span]) -> (String, usize, Vec<Span>) {
    let mut sorted: Vec<&Edit> = edits.to_vec();
    sorted.sort_by_key(|e| (e.byte_start, e.byte_end));
    sorted.dedup_by(|a, b| a == b);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    // Each applied edit's end in the old text, and the growth up to and including it.
    let mut grown: Vec<(usize, isize)> = Vec::new();
    let mut total: isize = 0;
    for e in sorted {
        if e.byte_start < at || e.byte_end > text.len() {
            continue;
        }
        out.push_str(&text[at..e.byte_start]);
        out.push_str(&e.replacement);
        at = e.byte_end;
        total += e.replacement.len() as isize - (e.byte_end - e.byte_start) as isize;
        grown.push((e.byte_end, total));
    }
    out.push_str(&text[at..]);
    // An offset moves by the growth of every edit that ends at or before it.
    let moved = |p: usize, inclusive: bool| {
        let n = grown.partition_point(|&(end, _)| end < p || (inclusive && end == p));
        let shift = n.checked_sub(1).map_or(0, |i| grown[i].1);
        (p as isize + shift) as usize
    };
    let spans = spans
        .iter()
        .map(|s| Span::new(moved(s.start, false), moved(s.end, true)))
        .collect();
    (out, grown.len(), spans)
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
    let perms = std::fs::metadata(path)?.permissions();
    // Again right before the rename: an edit made while the new content was being written is
    // not lost (the temporary file is removed instead).
    crate::output::swap_in(path, content, Some(perms), unchanged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(start: usize, end: usize, text: &str) -> Edit {
        Edit::new(Span::new(start, end), text)
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

    #[test]
    fn spans_move_with_the_edits_before_and_inside_them() {
        let text = "see a.rs:1-2 and b.rs:3.";
        let grow = fix(9, 12, "10-20"); // inside the first citation
        let shrink = fix(22, 23, "4"); // inside the second
        let spans = [Span::new(4, 12), Span::new(17, 23)];
        let (out, n, moved) = apply_spans(text, &[&shrink, &grow], &spans);
        assert_eq!((out.as_str(), n), ("see a.rs:10-20 and b.rs:4.", 2));
        assert_eq!(&out[moved[0].start..moved[0].end], "a.rs:10-20");
        assert_eq!(&out[moved[1].start..moved[1].end], "b.rs:4");
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

#[cfg(test)]
mod diff_tests {
    use super::unified_diff;

    /// What `unified_diff` printed before (`similar`'s Myers), for edits where the two diffs
    /// align the same lines.
    fn similar_diff(name: &str, before: &str, after: &str) -> String {
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .context_radius(2)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string()
    }

    #[test]
    fn prints_what_similar_printed_for_in_place_and_line_edits() {
        let doc: String = (1..=30)
            .map(|i| format!("line {i} (src/a.rs:{i})\n"))
            .collect();
        let cases = [
            (doc.clone(), doc.replace("src/a.rs:7)", "src/a.rs:8)")),
            (doc.clone(), doc.replace("(src/a.rs:1)", "(src/b.rs:1)")),
            (
                doc.clone(),
                doc.replace("src/a.rs:3)", "src/a.rs:4)")
                    .replace("src/a.rs:9)", "src/a.rs:10)"),
            ),
            (doc.clone(), doc.replace("line 5 ", "<!-- x -->\nline 5 ")),
            (doc.clone(), doc.replace("line 12 (src/a.rs:12)\n", "")),
            ("a\nb".to_string(), "a\nc".to_string()),
            (String::new(), "a\n".to_string()),
            ("a\n".to_string(), "a\n".to_string()),
        ];
        for (before, after) in cases {
            assert_eq!(
                unified_diff("docs/x.md", &before, &after),
                similar_diff("docs/x.md", &before, &after),
                "{before:?} -> {after:?}"
            );
        }
    }

    #[test]
    fn every_line_changed_is_one_hunk_of_removals_then_additions() {
        let before: String = (1..=48_000)
            .map(|i| format!("- C{i} (a.rs:{i})\n"))
            .collect();
        let after: String = (1..=48_000)
            .map(|i| format!("- C{i} (a.rs:{})\n", i + 1))
            .collect();
        let diff = unified_diff("doc.md", &before, &after);
        assert!(diff.starts_with("--- a/doc.md\n+++ b/doc.md\n@@ -1,48000 +1,48000 @@\n"));
        assert_eq!(diff.lines().filter(|l| l.starts_with('-')).count(), 48_001);
        assert_eq!(diff.lines().filter(|l| l.starts_with('+')).count(), 48_001);
    }
}
