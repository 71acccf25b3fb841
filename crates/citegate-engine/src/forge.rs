//! Forge permalinks: GitHub `blob/REV/PATH#L10-L20` (with `?plain=1`; `tree/` alike), GitLab `/-/blob/REV/PATH#L10-20`,
//! Bitbucket `src/REV/PATH#lines-10:20`, Gitea/Forgejo `src/{commit,branch,tag}/REV/PATH#L10-L20`.

use crate::model::{LineRange, LineStyle};

/// The forges whose permalinks are read, each with its own URL layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forge {
    /// GitHub: `blob/REV/PATH#L10-L20`.
    GitHub,
    /// GitLab: `/-/blob/REV/PATH#L10-20`.
    GitLab,
    /// Bitbucket: `src/REV/PATH#lines-10:20`.
    Bitbucket,
    /// Gitea and Forgejo: `src/{commit,branch,tag}/REV/PATH#L10-L20`.
    Gitea,
}

/// A forge link to a file at a revision, optionally to lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForgeLink {
    /// The forge whose layout the URL has.
    pub forge: Forge,
    /// `host/owner/repo`, lowercase, for comparison with the audited repository's remotes.
    pub repo_id: String,
    /// The revision in the URL (a SHA, a branch, a tag), as written.
    pub rev: String,
    /// Still percent-encoded as in the URL.
    pub path: String,
    /// The cited lines; `None` for a whole file (or a line fragment that does not parse).
    pub lines: Option<LineRange>,
    /// A line fragment that does not parse (`L31-`, `Lfoo`, a number too large), as written.
    pub bad_lines: Option<String>,
    /// Byte range of the line spec within the URL, and how it is written.
    pub lines_at: Option<(usize, usize, LineStyle)>,
    /// Byte ranges of the revision and of the file path within the URL.
    pub rev_at: (usize, usize),
    /// The byte range of the file path within the URL.
    pub path_at: (usize, usize),
}

/// `host/owner/repo` for a remote URL in any of git's spellings (`https://…`, `ssh://git@…`,
/// `git@host:owner/repo.git`), or `None` for a local path.
pub fn repo_id(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/');
    let rest = if let Some((_, rest)) = url.split_once("://") {
        rest.rsplit_once('@')
            .map(|(_, r)| r)
            .filter(|_| !rest.split('/').next().unwrap_or("").is_empty())
            .unwrap_or(rest)
            .to_string()
    } else if let Some((userhost, path)) = url.split_once(':') {
        if !userhost.contains('@') && !userhost.contains('.') {
            return None;
        }
        let host = userhost.rsplit('@').next().unwrap_or(userhost);
        format!("{host}/{path}")
    } else {
        return None;
    };
    let (host, path) = rest.split_once('/')?;
    let host = host.split(':').next().unwrap_or(host);
    let path = path.trim_end_matches(".git");
    if path.is_empty() {
        return None;
    }
    Some(format!("{host}/{path}").to_ascii_lowercase())
}

/// Parse a forge URL. Returns `None` for URLs that are not links to a file at a revision.
pub fn parse(url: &str) -> Option<ForgeLink> {
    let (scheme_rest, fragment_at) = match url.find('#') {
        Some(i) => (&url[..i], Some(i + 1)),
        None => (url, None),
    };
    let after_scheme = scheme_rest
        .strip_prefix("https://")
        .or_else(|| scheme_rest.strip_prefix("http://"))?;
    let without_query = after_scheme.split('?').next().unwrap_or(after_scheme);
    let (host, path) = without_query.split_once('/')?;
    let host = host.to_ascii_lowercase();
    let segs: Vec<&str> = path.split('/').collect();

    let (forge, repo_end, rev_at) = if let Some(i) = find_seq(&segs, &["-", "blob"]) {
        (Forge::GitLab, i, i + 2)
    } else if let Some(i) = segs.iter().position(|s| *s == "src").filter(|&i| {
        matches!(
            segs.get(i + 1),
            Some(&"commit") | Some(&"branch") | Some(&"tag")
        ) && i >= 2
    }) {
        (Forge::Gitea, i, i + 2)
    } else if host == "bitbucket.org" && segs.get(2) == Some(&"src") {
        (Forge::Bitbucket, 2, 3)
    } else if segs.len() >= 4 && matches!(segs[2], "blob" | "tree") {
        // GitHub redirects `tree/REV/file` to `blob/`; `tree/REV/dir` is a folder's view.
        (Forge::GitHub, 2, 3)
    } else {
        return None;
    };
    if repo_end < 2 {
        return None;
    }
    let rev = segs.get(rev_at)?.to_string();
    let file: Vec<&str> = segs.get(rev_at + 1..)?.to_vec();
    if file.is_empty() {
        return None; // `blob/REV` names no file.
    }
    // Offsets in the URL: scheme, host and the segments before the revision, each with its '/'.
    let path_base = scheme_rest.len() - after_scheme.len() + host.len() + 1;
    let rev_start = path_base + segs[..rev_at].iter().map(|s| s.len() + 1).sum::<usize>();
    let rev_end = rev_start + segs[rev_at].len();
    let file_end = rev_end + 1 + file.join("/").len();
    let repo_id = format!("{host}/{}", segs[..repo_end].join("/")).to_ascii_lowercase();
    let mut link = ForgeLink {
        forge,
        repo_id,
        rev,
        path: file.join("/"),
        lines: None,
        bad_lines: None,
        lines_at: None,
        rev_at: (rev_start, rev_end),
        path_at: ((rev_end + 1).min(file_end), file_end),
    };
    if let Some(at) = fragment_at {
        let frag = &url[at..];
        let (spec, offset, style) = match forge {
            Forge::Bitbucket => {
                let Some(spec) = frag.strip_prefix("lines-") else {
                    return Some(link);
                };
                (spec.replace(':', "-"), at, LineStyle::Bitbucket)
            }
            Forge::GitLab => (frag.to_string(), at, LineStyle::PrefixedFirst),
            _ => (
                frag.to_string(),
                at,
                if frag.matches('L').count() >= 2 {
                    LineStyle::PrefixedBoth
                } else {
                    LineStyle::PrefixedFirst
                },
            ),
        };
        let heading = heading_anchor(file.last().copied().unwrap_or(""), frag);
        if (spec.starts_with('L') && !heading) || forge == Forge::Bitbucket {
            match LineRange::parse(&spec) {
                Some(range) => {
                    link.lines = Some(range);
                    link.lines_at = Some((offset, url.len(), style));
                }
                None => link.bad_lines = Some(frag.to_string()),
            }
        }
    }
    Some(link)
}

/// Pages a forge renders with an anchor per heading: on them a fragment that is not a line
/// number (`README.md#Latency-vs-Throughput`) names a heading, not lines.
const PAGES: [&str; 8] = [
    "md", "mdx", "markdown", "rst", "adoc", "asciidoc", "html", "htm",
];

/// Whether `frag` on the file `name` is a heading's anchor rather than a line fragment: the file
/// is a page ([`PAGES`]) and the fragment is not `L` and a digit (`L12`, `L12-L20`, `L12C3`).
/// On source files every `L` fragment stays a line fragment, one that does not parse
/// (`#Lfoo`) included.
pub(crate) fn heading_anchor(name: &str, frag: &str) -> bool {
    let page = name
        .rsplit_once('.')
        .is_some_and(|(_, ext)| PAGES.contains(&ext.to_ascii_lowercase().as_str()));
    let lines = frag
        .strip_prefix('L')
        .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
    page && !lines
}

/// A link to `path` (lines `lines`) at `rev` on the forge at `web` (`https://host/owner/repo`), in
/// that forge's own URL form.
pub fn blob_url(web: &str, rev: &str, path: &str, lines: Option<LineRange>) -> String {
    let host = web
        .split("://")
        .nth(1)
        .unwrap_or(web)
        .split('/')
        .next()
        .unwrap_or("");
    let (blob, frag) = if host.contains("gitlab") {
        ("-/blob", lines.map(|l| format!("#L{}-{}", l.start, l.end)))
    } else if host == "bitbucket.org" {
        (
            "src",
            lines.map(|l| format!("#lines-{}:{}", l.start, l.end)),
        )
    } else {
        ("blob", lines.map(|l| format!("#L{}-L{}", l.start, l.end)))
    };
    let frag = match lines {
        Some(l) if l.start == l.end && !host.contains("bitbucket") => format!("#L{}", l.start),
        Some(l) if l.start == l.end => format!("#lines-{}", l.start),
        _ => frag.unwrap_or_default(),
    };
    let path = crate::model::PathStyle::Url.render(path);
    format!("{web}/{blob}/{rev}/{path}{frag}")
}

fn find_seq(segs: &[&str], seq: &[&str]) -> Option<usize> {
    segs.windows(seq.len()).position(|w| w == seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_forge() {
        let gh = parse("https://github.com/O/R/blob/57b1f5ed/src/a.rs?plain=1#L36-L40").unwrap();
        assert_eq!(
            (gh.forge, gh.repo_id.as_str(), gh.rev.as_str()),
            (Forge::GitHub, "github.com/o/r", "57b1f5ed")
        );
        assert_eq!(
            (gh.path.as_str(), gh.lines),
            ("src/a.rs", Some(LineRange::new(36, 40)))
        );

        let gl = parse("https://gitlab.com/G/sub/R/-/blob/main/a.py#L10-20").unwrap();
        assert_eq!(gl.repo_id, "gitlab.com/g/sub/r");
        assert_eq!(gl.lines, Some(LineRange::new(10, 20)));

        let bb = parse("https://bitbucket.org/O/R/src/abc123/a.py#lines-10:20").unwrap();
        assert_eq!(
            (bb.forge, bb.lines),
            (Forge::Bitbucket, Some(LineRange::new(10, 20)))
        );

        let gt = parse("https://codeberg.org/O/R/src/commit/abc/x/y.go#L3").unwrap();
        assert_eq!((gt.forge, gt.path.as_str()), (Forge::Gitea, "x/y.go"));
        assert_eq!(gt.lines, Some(LineRange::single(3)));
    }

    #[test]
    fn a_link_without_a_file_is_not_a_permalink() {
        // Found by fuzzing: the path's place ran past the end of the URL.
        assert_eq!(
            parse("https://Lig.shields.i.io/badg/l.s/blob/maikefile)."),
            None
        );
        assert_eq!(parse("https://github.com/o/r/blob/main"), None);
    }

    #[test]
    fn deepwiki_broken_link_has_no_file_lines() {
        let l = parse("https://github.com/O/R/blob/abc1234/110-111").unwrap();
        assert_eq!((l.path.as_str(), l.lines), ("110-111", None));
    }

    #[test]
    fn github_tree_links_read_like_blob_links() {
        let t = parse("https://github.com/O/R/tree/v1/pkg/file.go#L10").unwrap();
        assert_eq!(
            (t.forge, t.rev.as_str(), t.path.as_str(), t.lines),
            (
                Forge::GitHub,
                "v1",
                "pkg/file.go",
                Some(LineRange::single(10))
            )
        );
        assert_eq!(parse("https://github.com/O/R/tree/main"), None);
    }

    #[test]
    fn other_urls_are_not_forge_links() {
        assert_eq!(parse("https://github.com/O/R/issues/3"), None);
        assert_eq!(parse("https://example.com/a.rs#L3"), None);
    }

    #[test]
    fn links_back_in_each_forge_form() {
        let r = Some(LineRange::new(3, 5));
        assert_eq!(
            blob_url("https://github.com/o/r", "abc", "a.rs", r),
            "https://github.com/o/r/blob/abc/a.rs#L3-L5"
        );
        assert_eq!(
            blob_url("https://gitlab.com/g/r", "abc", "a.rs", r),
            "https://gitlab.com/g/r/-/blob/abc/a.rs#L3-5"
        );
        assert_eq!(
            blob_url("https://bitbucket.org/o/r", "abc", "a.rs", r),
            "https://bitbucket.org/o/r/src/abc/a.rs#lines-3:5"
        );
        assert_eq!(
            blob_url(
                "https://github.com/o/r",
                "abc",
                "a.rs",
                Some(LineRange::single(4))
            ),
            "https://github.com/o/r/blob/abc/a.rs#L4"
        );
        assert_eq!(
            blob_url("https://github.com/o/r", "abc", "a.rs", None),
            "https://github.com/o/r/blob/abc/a.rs"
        );
        // Each link parses back to the same file and lines.
        let back = parse(&blob_url("https://gitlab.com/g/r", "abc", "a.rs", r)).unwrap();
        assert_eq!((back.path.as_str(), back.lines), ("a.rs", r));
    }

    #[test]
    fn normalises_remote_urls() {
        for url in [
            "https://github.com/O/R.git",
            "git@github.com:O/R.git",
            "ssh://git@github.com/O/R",
            "https://user@github.com/O/R/",
        ] {
            assert_eq!(repo_id(url).as_deref(), Some("github.com/o/r"), "{url}");
        }
        assert_eq!(repo_id("/srv/repos/x"), None);
    }
}
