//! `cite` with a quote (the MCP server's tool, the library's `Repo::cite`): where a text occurs,
//! found file by file in path order and stopped at [`MAX_PLACES`], so the work and the memory follow the reply, not the repository. (The audit's
//! own search, `check::quotes::locate`, wants every place at once to decide whether a moved
//! citation is unique; an agent asking where a quote is needs only the first few and whether
//! there are more.) A quote shorter than [`MIN_QUOTE_CHARS`] is refused: it occurs everywhere.

use git2::Oid;
use serde_json::{json, Value};

use super::MAX_FILE_BYTES;
use crate::model::LineRange;
use crate::normalize::NormalizedSource;
use crate::resolve::{CodeRepo, FileAt}; // as the audit's quote search, larger files are skipped

/// The most places one `cite` reply lists: the search stops at the next one.
pub const MAX_PLACES: usize = 100;
/// The fewest characters (whitespace-normalised) a quote must have.
pub const MIN_QUOTE_CHARS: usize = 3;

/// Where `quote` occurs at `target`, exactly (whitespace-normalised), in `path` or in every text
/// file: the first [`MAX_PLACES`] places in path then line order, and whether the search
/// stopped with more to find.
pub fn find(
    repo: &CodeRepo,
    target: Oid,
    quote: &str,
    path: Option<&str>,
) -> Result<Value, String> {
    let normalized = crate::normalize::normalize(quote);
    let chars = normalized.chars().count();
    if chars < MIN_QUOTE_CHARS {
        return Err(format!(
            "the quote has {chars} character{} (whitespace-normalised): give at least {MIN_QUOTE_CHARS}",
            if chars == 1 { "" } else { "s" }
        ));
    }
    if normalized.len() > MAX_FILE_BYTES {
        return Err(format!(
            "the quote is {} bytes: files are searched up to {MAX_FILE_BYTES} bytes",
            normalized.len()
        ));
    }
    let git = repo.open().map_err(|e| e.message().to_string())?;
    let (all, one);
    let paths: &[String] = match path {
        Some(p) => {
            one = [p.to_string()];
            &one
        }
        None => {
            all = repo.paths_at(&git, target);
            &all.paths
        }
    };
    // Normalising only touches whitespace: a file without the quote's longest word is skipped
    // unread past its bytes.
    let word = normalized
        .split(' ')
        .max_by_key(|w| w.len())
        .unwrap_or(&normalized);
    let mut places = Vec::new();
    let mut more = false;
    for p in paths {
        let Ok(FileAt::Text(text)) = repo.file_at(&git, target, p) else {
            continue;
        };
        if text.len() > MAX_FILE_BYTES || !text.contains(word) {
            continue;
        }
        let norm = NormalizedSource::new(&text);
        more = occurrences(&norm, &normalized, MAX_PLACES - places.len(), |lines| {
            places.push(json!({
                "citation": format!("{p}:{lines}"),
                "path": p,
                "start_line": lines.start,
                "end_line": lines.end,
            }))
        });
        if more {
            break;
        }
    }
    let mut out = json!({"revision": target.to_string(), "count": places.len(), "places": places});
    if more {
        out["stopped"] = json!(format!(
            "at the first {MAX_PLACES} places: the quote occurs more often (give a longer quote, or a `path`)"
        ));
    }
    Ok(out)
}

/// Hand each occurrence of `quote` in `norm` to `place`, at most `room` of them; true when there
/// is one more past them.
fn occurrences(
    norm: &NormalizedSource,
    quote: &str,
    room: usize,
    mut place: impl FnMut(LineRange),
) -> bool {
    // Overlapping occurrences count, as the audit counts them: the next search starts one
    // character on.
    let step = quote.chars().next().map_or(1, char::len_utf8);
    let (mut from, mut found) = (0, 0);
    while let Some(i) = norm.text[from..].find(quote) {
        if found == room {
            return true;
        }
        let (s, e) = norm.lines_of(from + i, from + i + quote.len());
        place(LineRange::new(s as i64, e as i64));
        found += 1;
        from += i + step;
    }
    false
}
