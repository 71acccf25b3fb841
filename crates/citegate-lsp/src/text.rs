//! Where things are, in the protocol's terms: file URIs and paths, byte offsets and positions
//! (UTF-16 code units unless the client takes UTF-8), and the one edit between two texts.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, TextEdit, Uri};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};

use citegate_engine::model::LineIndex;

/// How positions count characters within a line, as negotiated at initialisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    #[default]
    Utf16,
    Utf8,
}

impl Encoding {
    fn width(self, c: char) -> u32 {
        match self {
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf8 => c.len_utf8() as u32,
        }
    }
}

/// The local path of a `file:` URI (percent-decoded); `None` for any other scheme.
pub(super) fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file://host/path` names another machine; only `file:///path` (and `localhost`) is ours.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    // A query or fragment is not part of the path (an encoded `%23` is).
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode_str(rest).decode_utf8().ok()?;
    // `file:///C:/x` on Windows.
    let bytes = decoded.as_bytes();
    if cfg!(windows) && bytes.len() > 2 && bytes[2] == b':' {
        return Some(PathBuf::from(&decoded[1..]));
    }
    Some(PathBuf::from(decoded.into_owned()))
}

/// What a path segment must escape in a `file:` URI.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The `file:` URI of an absolute path.
pub(super) fn path_uri(path: &Path) -> Option<Uri> {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = if text.starts_with('/') {
        text
    } else {
        format!("/{text}")
    };
    Uri::from_str(&format!("file://{}", utf8_percent_encode(&text, PATH))).ok()
}

/// Offsets to positions for one text, converting in any order (fast when offsets increase).
pub(super) struct Positions<'a> {
    text: &'a str,
    lines: &'a LineIndex,
    encoding: Encoding,
    /// The last conversion: (byte offset, its position), walked on from when the next offset is
    /// further along the same line.
    last: Option<(usize, Position)>,
}

impl<'a> Positions<'a> {
    pub(super) fn new(text: &'a str, lines: &'a LineIndex, encoding: Encoding) -> Positions<'a> {
        Positions {
            text,
            lines,
            encoding,
            last: None,
        }
    }

    pub(super) fn position(&mut self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.lines.line(offset);
        let start = self.lines.line_start(line).unwrap_or(0);
        let (from, mut character) = match self.last {
            Some((at, p)) if at >= start && at <= offset && p.line as usize == line - 1 => {
                (at, p.character)
            }
            _ => (start, 0),
        };
        character += self.text[from..offset]
            .chars()
            .map(|c| self.encoding.width(c))
            .sum::<u32>();
        let p = Position::new((line - 1) as u32, character);
        self.last = Some((offset, p));
        p
    }

    pub(super) fn range(&mut self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }
}

/// The byte offset of a position in `text` (clamped to its line's end, and to the text's end).
pub(super) fn offset(text: &str, lines: &LineIndex, encoding: Encoding, at: Position) -> usize {
    let Some(start) = lines.line_start(at.line as usize + 1) else {
        return text.len();
    };
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= at.character || c == '\n' || c == '\r' {
            return start + i;
        }
        units += encoding.width(c);
    }
    text.len()
}

/// The one edit that turns `before` into `after`: the bytes between their common prefix and
/// suffix replaced (a `fixAll` as one edit, touching nothing the fixes did not change).
pub(super) fn edit_between(before: &str, after: &str, encoding: Encoding) -> Option<TextEdit> {
    if before == after {
        return None;
    }
    let mut prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = before.len().min(after.len()) - prefix;
    let mut suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(before.len() - suffix)
        || !after.is_char_boundary(after.len() - suffix)
    {
        suffix -= 1;
    }
    let lines = LineIndex::new(before);
    let range = Positions::new(before, &lines, encoding).range(prefix, before.len() - suffix);
    Some(TextEdit::new(
        range,
        after[prefix..after.len() - suffix].to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_round_trip() {
        let text = "a\n𝄞é x\n";
        let lines = LineIndex::new(text);
        let mut p = Positions::new(text, &lines, Encoding::Utf16);
        let x = text.find('x').unwrap();
        assert_eq!(p.position(x), Position::new(1, 4));
        assert_eq!(
            offset(text, &lines, Encoding::Utf16, Position::new(1, 4)),
            x
        );
        let mut p8 = Positions::new(text, &lines, Encoding::Utf8);
        assert_eq!(p8.position(x), Position::new(1, 7));
        // Past a line's end is its end; past the text is the text's end.
        assert_eq!(
            offset(text, &lines, Encoding::Utf16, Position::new(0, 9)),
            1
        );
        assert_eq!(
            offset(text, &lines, Encoding::Utf16, Position::new(9, 0)),
            text.len()
        );
    }

    #[test]
    fn positions_walk_on_and_back() {
        let text = "ab é cd\nxy";
        let lines = LineIndex::new(text);
        let mut p = Positions::new(text, &lines, Encoding::Utf16);
        assert_eq!(p.position(6), Position::new(0, 5));
        assert_eq!(p.position(1), Position::new(0, 1));
        assert_eq!(p.position(10), Position::new(1, 1));
    }

    #[test]
    fn uris_and_paths_round_trip() {
        let path = Path::new("/tmp/a dir/é#1.md");
        let uri = path_uri(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/%C3%A9%231.md");
        assert_eq!(uri_path(&uri).unwrap(), path);
        let remote = Uri::from_str("file://server/share/a.md").unwrap();
        assert_eq!(uri_path(&remote), None);
        assert_eq!(uri_path(&Uri::from_str("untitled:1").unwrap()), None);
    }

    #[test]
    fn the_edit_between_two_texts_is_their_difference_only() {
        let e = edit_between("see a.rs:1-2 é\n", "see a.rs:4-5 é\n", Encoding::Utf16).unwrap();
        assert_eq!(
            e.range,
            Range::new(Position::new(0, 9), Position::new(0, 12))
        );
        assert_eq!(e.new_text, "4-5");
        assert_eq!(edit_between("x", "x", Encoding::Utf16), None);
        let e = edit_between("aa", "aaa", Encoding::Utf16).unwrap();
        assert_eq!(
            (e.range.start, e.new_text.as_str()),
            (Position::new(0, 2), "a")
        );
    }
}
