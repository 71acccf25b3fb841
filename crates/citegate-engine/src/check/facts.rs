//! The evidence gathered about a citation at one revision, from which the rules decide.

use git2::Oid;

use crate::model::{CiteRef, LineRange, PinSource};
use crate::resolve::FileAt;

/// What the cited path names at the revision.
#[derive(Debug, Clone)]
pub enum FileFacts {
    /// A text file with this many lines.
    Text {
        /// How many lines the file has.
        line_count: usize,
    },
    /// Nothing by that name; the closest existing paths, and the path the citation names when read
    /// from the repository root instead of the doc's folder, when that one exists.
    Missing {
        /// The closest paths that exist at the revision.
        suggestions: Vec<String>,
        /// The path read from the repository root instead of the doc's folder, when it exists.
        from_root: Option<String>,
        /// The one file elsewhere with the cited file's name, when there is exactly one.
        same_name: Option<SameName>,
    },
    /// A directory, submodule, symbolic link, binary or oversized blob.
    NotText(FileAt),
}

/// The one file at the revision with the name a citation gives without its folder
/// (`storage.go:33-36` written for `cmd/bd/storage.go`), and what the cited lines are there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SameName {
    /// The file's repo-relative path.
    pub path: String,
    /// Its line count, when it is text.
    pub line_count: Option<usize>,
    /// The citation's quote is in the cited lines there (the whole file, for no lines): the
    /// content is verified, so the full path is a safe fix.
    pub verified: bool,
}

/// Where a citation's quote occurs in its file.
#[derive(Debug, Clone)]
pub struct QuoteFacts {
    /// The whitespace-normalised quote.
    pub normalized: String,
    /// Where it occurs: its first place in the cited lines when it is there, else every place in
    /// the file.
    pub found: Vec<LineRange>,
    /// It occurs inside the cited lines (anywhere in the file, for a whole-file citation).
    pub in_span: bool,
    /// When it occurs nowhere in the file: another file that holds it (see
    /// [`super::quotes::elsewhere`]).
    pub elsewhere: Option<String>,
}

/// What the cited content was where the citation held, for the comparison with the target.
#[derive(Debug, Clone)]
pub struct Held {
    /// The normalised quote, or the normalised cited lines; `None` for whole-file citations.
    pub content: Option<String>,
    /// Where `content` was (the quote's lines, or the cited range).
    pub anchor: Option<LineRange>,
    /// The cited lines as written at the revision, for the diff shown when they changed.
    pub lines_text: Option<String>,
}

/// Everything known about one citation at one revision.
#[derive(Debug, Clone)]
pub struct CiteFacts {
    /// The citation the facts are about.
    pub cite: CiteRef,
    /// The revision it was read at, and where that revision came from.
    pub commit: Oid,
    /// Where `commit` came from: the citation's own pin, its doc's, an implied one, or the target.
    pub pin: PinSource,
    /// What the cited path names at `commit`.
    pub file: FileFacts,
    /// Set when the citation has a non-empty quote and the file is text within range.
    pub quote: Option<QuoteFacts>,
    /// The cited lines (at most a few), when the quote is not in them.
    pub evidence: Option<String>,
    /// Per literal of the citation's claim: whether the span supports it (when asked for).
    pub support: Option<Vec<bool>>,
    /// The path is a text file, the lines exist and the quote is inside them.
    pub holds: bool,
    /// A line range was cited and every line of it is blank.
    pub blank: bool,
    /// An mdBook include's anchor that the file does not hold (both `ANCHOR:` and `ANCHOR_END:`).
    pub anchor_missing: bool,
    /// What it held, when it holds at a revision other than the target (for the stale comparison).
    pub held: Option<Held>,
}
