//! `audit --dump` output: one line per citation (human), or the dump as JSON.

use std::fmt::Write;

use crate::audit::dump::Dump;

/// One line per citation: where it is, what it cites, and the revision it is checked at and why.
pub fn human(dump: &Dump) -> String {
    let mut out = String::new();
    let short = |r: &str| r.get(..8).unwrap_or(r).to_string();
    for c in &dump.citations {
        let lines = match (c.start_line, c.end_line) {
            (Some(s), Some(e)) if s == e => format!(":{s}"),
            (Some(s), Some(e)) => format!(":{s}-{e}"),
            _ => String::new(),
        };
        let path = c.path.as_deref().unwrap_or("(no path)");
        let at = match (&c.revision, &c.pin_line_commit) {
            (Some(r), Some(l)) if l != r => {
                format!("{} ({}; doc line by {})", short(r), c.pin, short(l))
            }
            (Some(r), _) => format!("{} ({})", short(r), c.pin),
            (None, _) => format!("unresolved ({})", c.pin),
        };
        let _ = writeln!(
            out,
            "{}:{}:{}\t{}\t{}{}\t{}",
            super::printable(&c.doc, false),
            c.line,
            c.column,
            c.syntax,
            super::printable(path, false),
            lines,
            at
        );
    }
    out
}

/// The dump as one JSON document.
pub fn json(dump: &Dump) -> String {
    let mut out = super::json_escapes(serde_json::to_string_pretty(dump).unwrap_or_default());
    out.push('\n');
    out
}
