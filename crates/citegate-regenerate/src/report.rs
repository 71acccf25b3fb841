//! `regenerate`'s outputs: its JSON report, its refusals for the terminal, and `citegate
//! retrieve`'s hits.

use serde_json::Value;

use crate::Regenerated;
use citegate_engine::escape::{json_escapes, printable};
use citegate_engine::resolve::CodeRepo;
use citegate_engine::retrieve::{Hit, Index};

/// The refusals of a run, one line each (`DOC answer N claim M: reason: why; violations`), for
/// the terminal: a diff shows what changes, this what did not and why. Not escaped here.
pub fn refusals(run: &Regenerated) -> String {
    let mut out = String::new();
    for (o, r) in (run.outcomes.iter()).filter_map(|o| Some((o, o.refusal()?))) {
        let mut at = o.at.doc.clone();
        if let Some(a) = o.at.answer {
            at.push_str(&format!(" answer {a}"));
        }
        if let Some(c) = o.at.claim {
            at.push_str(&format!(" claim {c}"));
        }
        if let Some(l) = o.at.line {
            at.push_str(&format!(":{l}"));
        }
        let mut line = format!("refused: {at}: {}: {}", r.reason.as_str(), r.why);
        let violations: Vec<String> = r
            .violations
            .iter()
            .map(|v| match &v.citation {
                Some(c) => format!("{} {c}", v.rule),
                None => v.rule.to_string(),
            })
            .collect();
        if !violations.is_empty() {
            line.push_str(&format!(" ({})", violations.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The JSON report of a run: the target, the counts, and each answer's, claim's or citation's
/// outcome (sorted by doc, answer, claim, line).
pub fn report(run: &Regenerated) -> String {
    let value = serde_json::json!({
        "revision": run.revision,
        "counts": run.counts,
        "outcomes": run.outcomes,
        "changed_docs": run.docs.iter().map(|d| &d.name).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// `citegate retrieve`'s output: one line per chunk (ID, score, symbol), its lines with `--show`,
/// or JSON.
pub fn hits(repo: &CodeRepo, index: &Index, hits: &[Hit], show: bool, json: bool) -> String {
    if json {
        let rows: Vec<Value> = hits
            .iter()
            .map(|h| {
                let c = &index.chunks[h.chunk];
                let mut row = serde_json::json!({
                    "id": index.id(h.chunk),
                    "path": c.path,
                    "start_line": c.start,
                    "end_line": c.end,
                    "symbol": c.symbol,
                    "score": (h.score * 1000.0).round() / 1000.0,
                });
                if show {
                    row["text"] = index.text(repo, h.chunk).unwrap_or_default().into();
                }
                row
            })
            .collect();
        return json_escapes(serde_json::to_string_pretty(&rows).unwrap_or_default()) + "\n";
    }
    let mut out = String::new();
    for h in hits {
        let c = &index.chunks[h.chunk];
        let symbol = c
            .symbol
            .as_deref()
            .map(|s| format!("  {s}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{}:{}-{}  {:.3}{}\n",
            printable(&c.path, false),
            c.start,
            c.end,
            h.score,
            printable(&symbol, false)
        ));
        if show {
            for (n, line) in index
                .text(repo, h.chunk)
                .unwrap_or_default()
                .lines()
                .enumerate()
            {
                out.push_str(&format!(
                    "{:>6} | {}\n",
                    c.start + n,
                    printable(line, false)
                ));
            }
        }
    }
    if hits.is_empty() {
        out.push_str("no chunk matches\n");
    }
    out
}
