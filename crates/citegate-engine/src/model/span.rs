//! Where things are in a doc: byte spans, and byte offsets turned into 1-based lines and columns.

/// A byte range `[start, end)` in a doc's text. Spans travel untouched from extraction to the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// The offset of its first byte in the doc's text.
    pub start: usize,
    /// The offset just past its last byte.
    pub end: usize,
}

impl Span {
    /// The bytes `[start, end)`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// How many bytes it covers (0 when `end` is before `start`).
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Whether it covers no byte.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `other` lies inside this span (an empty span at either end included).
    pub fn contains(&self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// Whether the two spans share a byte.
    pub fn overlaps(&self, other: Span) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// This span moved by `offset` bytes (for spans found inside a sub-slice of the doc).
    pub fn shifted(self, offset: usize) -> Self {
        Span::new(self.start + offset, self.end + offset)
    }
}

/// Byte offset → 1-based line and column (columns count characters, as editors do).
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// In lines longer than [`CHECKPOINT`] bytes: (byte offset, characters from its line's start)
    /// every `CHECKPOINT` bytes, so that a column is counted from near its offset, not from the
    /// line's start (a doc written on one line holds thousands of findings).
    checkpoints: Vec<(usize, usize)>,
}

/// Bytes between column checkpoints in long lines.
const CHECKPOINT: usize = 4096;

impl LineIndex {
    /// The line starts of `text` (and the column checkpoints of its long lines).
    pub fn new(text: &str) -> Self {
        // Source lines are short: one memchr pass over the bytes beats a char searcher per line.
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let mut checkpoints = Vec::new();
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).map_or(text.len(), |&next| next - 1);
            if end.saturating_sub(start) <= CHECKPOINT {
                continue;
            }
            let (mut at, mut chars) = (start, 0);
            while at + CHECKPOINT < end {
                let mut next = at + CHECKPOINT;
                while !text.is_char_boundary(next) {
                    next += 1;
                }
                chars += text[at..next].chars().count();
                checkpoints.push((next, chars));
                at = next;
            }
        }
        LineIndex {
            starts,
            checkpoints,
        }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }

    /// 1-based (line, column) of a byte offset in `text` (the text this index was built from).
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line(offset);
        let mut start = self.starts[line - 1];
        let mut before = 0;
        let at = self.checkpoints.partition_point(|&(o, _)| o <= offset);
        if let Some(&(o, chars)) = at.checked_sub(1).map(|i| &self.checkpoints[i]) {
            if o >= start {
                (start, before) = (o, chars);
            }
        }
        let col = text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        (line, before + col + 1)
    }

    /// Lines in `text` (the text this index was built from), as editors count them: a trailing
    /// newline ends the last line.
    pub fn line_count(&self, text: &str) -> usize {
        match text.is_empty() || text.ends_with('\n') {
            true => self.starts.len() - 1,
            false => self.starts.len(),
        }
    }

    /// Byte offset where 1-based `line` starts.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.checked_sub(1)?).copied()
    }

    /// The 1-based inclusive lines `start..=end` of `text` (clamped to what exists), without
    /// their final newline.
    pub fn slice<'a>(&self, text: &'a str, start: usize, end: usize) -> &'a str {
        let Some(&from) = self.starts.get(start.max(1) - 1) else {
            return "";
        };
        let to = match self.starts.get(end.max(start.max(1))) {
            Some(&next) => next - 1,
            None => text.len(),
        };
        text.get(from..to.max(from)).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_as_editors_do() {
        for (text, n) in [
            ("", 0),
            ("a", 1),
            ("a\n", 1),
            ("a\nb", 2),
            ("a\nb\n", 2),
            ("\n\n", 2),
        ] {
            assert_eq!(LineIndex::new(text).line_count(text), n, "{text:?}");
        }
    }

    #[test]
    fn line_col_counts_characters_from_one() {
        let text = "ab\nçd x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), (1, 1));
        assert_eq!(idx.line_col(text, 3), (2, 1));
        // 'x' is after a two-byte character: column counts characters.
        assert_eq!(idx.line_col(text, text.find('x').unwrap()), (2, 4));
    }

    #[test]
    fn columns_in_long_lines_count_characters_from_the_line_start() {
        let text = format!("x\n{}é{}\nz", "a".repeat(10_000), "b".repeat(10_000));
        let idx = LineIndex::new(&text);
        let offset = text.rfind('b').unwrap();
        let naive = text[2..offset].chars().count() + 1;
        assert_eq!(idx.line_col(&text, offset), (2, naive));
        assert_eq!(idx.line_col(&text, text.len()), (3, 2));
        assert_eq!(idx.line_col(&text, 2 + 5000), (2, 5001));
    }

    #[test]
    fn slices_lines() {
        let text = "a\nb\nc\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.slice(text, 2, 3), "b\nc");
        assert_eq!(idx.slice(text, 1, 1), "a");
        let text = "a\nb\nc";
        let idx = LineIndex::new(text);
        assert_eq!(idx.slice(text, 3, 9), "c");
        assert_eq!(idx.slice(text, 7, 9), "");
    }
}
