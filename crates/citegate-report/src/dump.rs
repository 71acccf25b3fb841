//! `audit --dump` output: one line per citation (human), or the dump as one JSON document,
//! written as each citation is resolved (the bytes of `serde_json`'s pretty printer over the
//! whole dump, without ever holding it).

use std::io::Write;

use citegate_engine::audit::dump::{Resolved, Sink, VERSION};

/// One line per citation: where it is, what it cites, and the revision it is checked at and why.
pub struct Human<W: Write>(pub W);

impl<W: Write> Sink for Human<W> {
    fn start(&mut self, _target: &str) -> std::io::Result<()> {
        Ok(())
    }

    fn citation(&mut self, c: &Resolved) -> std::io::Result<()> {
        let short = |r: &str| r.get(..8).unwrap_or(r).to_string();
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
        writeln!(
            self.0,
            "{}:{}:{}\t{}\t{}{}\t{}",
            citegate_engine::escape::printable(&c.doc, false),
            c.line,
            c.column,
            c.syntax,
            citegate_engine::escape::printable(path, false),
            lines,
            at
        )
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The dump as one JSON document: `{"version", "target", "citations": [...]}`, pretty-printed.
pub struct Json<W: Write> {
    out: W,
    /// Citations written so far.
    written: usize,
}

impl<W: Write> Json<W> {
    pub fn new(out: W) -> Json<W> {
        Json { out, written: 0 }
    }
}

impl<W: Write> Sink for Json<W> {
    fn start(&mut self, target: &str) -> std::io::Result<()> {
        let target = serde_json::to_string(target).map_err(std::io::Error::other)?;
        let head =
            format!("{{\n  \"version\": {VERSION},\n  \"target\": {target},\n  \"citations\": [");
        self.out
            .write_all(citegate_engine::escape::json_escapes(head).as_bytes())
    }

    fn citation(&mut self, c: &Resolved) -> std::io::Result<()> {
        let object = serde_json::to_string_pretty(c).map_err(std::io::Error::other)?;
        // One level inside the array, as the pretty printer indents it: no string holds a raw
        // newline, so every line of the object is indented alike.
        let mut item = String::with_capacity(object.len() + 64);
        item.push_str(if self.written == 0 { "\n" } else { ",\n" });
        for (i, line) in object.lines().enumerate() {
            if i > 0 {
                item.push('\n');
            }
            item.push_str("    ");
            item.push_str(line);
        }
        self.written += 1;
        self.out
            .write_all(citegate_engine::escape::json_escapes(item).as_bytes())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        let tail = if self.written == 0 {
            "]\n}\n"
        } else {
            "\n  ]\n}\n"
        };
        self.out.write_all(tail.as_bytes())?;
        self.out.flush()
    }
}
