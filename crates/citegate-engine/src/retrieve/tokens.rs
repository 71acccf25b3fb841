//! Identifier-aware tokens for retrieval: code is searched by the names in it, so `loadConfig`,
//! `load_config` and `LOAD_CONFIG` each give the whole identifier and its words.

/// The tokens of `text`: every identifier or number, lowercased and without underscores (so
/// `loadConfig`, `load_config` and `LOAD_CONFIG` are one token), and when it is made of several
/// words (`snake_case`, `camelCase`; `kebab-case` is two identifiers anyway), each word too.
pub(super) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for ident in text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|s| !s.is_empty())
    {
        let whole = ident.replace('_', "").to_lowercase();
        if whole.is_empty() {
            continue;
        }
        let parts = words(ident);
        if parts.len() > 1 {
            out.extend(parts.into_iter().filter(|p| p.len() > 1));
        }
        out.push(whole);
    }
    out
}

/// The words of one identifier, lowercased: split at `_` and at lower→upper and
/// upper→upper-then-lower boundaries (`HTTPServer` → `http`, `server`).
fn words(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in ident.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            let boundary = (prev.is_lowercase() && cur.is_uppercase())
                || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
                || (prev.is_alphabetic() != cur.is_alphabetic());
            if boundary {
                out.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        out.push(chars[start..].iter().collect::<String>().to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_give_themselves_and_their_words() {
        assert_eq!(tokens("loadConfig"), ["load", "config", "loadconfig"]);
        assert_eq!(tokens("load_config"), tokens("LOAD_CONFIG"));
        assert_eq!(tokens("load_config"), tokens("loadConfig"));
        assert_eq!(
            tokens("TTL_SECONDS = 30"),
            ["ttl", "seconds", "ttlseconds", "30"]
        );
        assert_eq!(tokens("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(tokens("x.y"), ["x", "y"]);
        assert_eq!(tokens("utf8"), ["utf", "utf8"]);
    }

    #[test]
    fn punctuation_and_underscores_alone_give_nothing() {
        assert!(tokens("__ -> { } ;").is_empty());
    }
}
