//! Benchmark corpus generator: a Git repository with a realistic history (thousands of source
//! files, a few hundred commits that edit, move, rename and delete code) and a docs tree with N
//! citations in the syntaxes `audit` reads, with a chosen mix of valid, stale, invented and
//! unsupported citations. Deterministic from a seed.
//!
//! `cargo run --release --example corpus -- DIR --citations N [--files F] [--commits C] [--seed S] [--mix V,S,I,U]`
//! (percentages of valid, stale, invented, unsupported; default 70,10,10,10) `[--history-docs]`
//! also writes `DIR.citations.tsv` (revision, path, start, end, quote) for the naive baseline and
//! the floor. `--shape wiki [--docs 2400] [--answer-files 1500]`: a wiki plus an answer cache
//! (issue 38): Markdown pages in every syntax of `CITATIONS.md`, about 5 KB and 17 citations each,
//! and JSON/JSONL answer files with `retrieved` chunks; with `--real`, over the history of DIR, an
//! existing clone (`corpus/real.rs`). `--shape moved [--answers 2400]`: one-citation
//! answers pinned at a first commit whose functions all moved down two lines at HEAD (`regenerate`
//! re-grounds every one). `--shape versioned [--commits 3000] [--docs 550]`: a Docusaurus site
//! (`docs/`, `versioned_docs/version-X.Y/`) of permalinks into 40 tags, release branches named
//! `release/vX.Y.x` (forked, renamed on the branch side, merged back) and full SHAs of a long
//! history (`corpus/versioned.rs`). With `--history-docs` each doc is committed with one of the
//! history's commits and cites the code of that commit without a pin (stale ones keep an older
//! permalink), so every unpinned citation has an implied pin and code moved by later commits
//! drifts under it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;

use git2::{IndexEntry, IndexTime, Oid, Repository, Signature, Time};

#[path = "corpus/real.rs"]
mod real;
#[path = "corpus/versioned.rs"]
mod versioned;

struct Args {
    dir: String,
    citations: usize,
    files: usize,
    commits: usize,
    seed: u64,
    /// Percentages of valid, stale, invented and unsupported citations.
    mix: [u8; 4],
    /// Commit the docs across the history (each written against the code of its commit, unpinned,
    /// so every unpinned citation has an implied pin) instead of in one last commit.
    history_docs: bool,
    /// `wiki`: the shape of a real wiki plus answer cache (`--docs` Markdown pages in every
    /// syntax, `--answer-files` JSON and JSONL files) instead of 100-citation docs.
    wiki: bool,
    docs: usize,
    answer_files: usize,
    /// With `wiki`: DIR is an existing clone, and the docs cite its own history (`corpus/real.rs`).
    real: bool,
    /// `moved`: `--answers` one-citation answers pinned at the first commit, whose cited functions
    /// all moved down two lines at HEAD (every answer is re-grounded by `regenerate`).
    moved: bool,
    answers: usize,
    /// `versioned`: a Docusaurus site whose permalinks pin tags and release branches of a long
    /// history with merges (see `versioned.rs`); `--commits` defaults to 3,000 and `--docs` to 550.
    versioned: bool,
    /// Whether `--commits` / `--docs` were given (the shapes have their own defaults).
    commits_given: bool,
    docs_given: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut args = Args {
        dir: String::new(),
        citations: 10_000,
        files: 2_000,
        commits: 200,
        seed: 1,
        mix: [70, 10, 10, 10],
        history_docs: false,
        wiki: false,
        docs: 2_400,
        answer_files: 1_500,
        real: false,
        moved: false,
        answers: 2_400,
        versioned: false,
        commits_given: false,
        docs_given: false,
    };
    while let Some(a) = it.next() {
        let mut num = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.replace('_', "").parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match a.as_str() {
            "--citations" => args.citations = num("--citations")?,
            "--files" => args.files = num("--files")?,
            "--commits" => {
                args.commits = num("--commits")?;
                args.commits_given = true;
            }
            "--seed" => args.seed = num("--seed")? as u64,
            "--history-docs" => args.history_docs = true,
            "--real" => args.real = true,
            "--docs" => {
                args.docs = num("--docs")?;
                args.docs_given = true;
            }
            "--answer-files" => args.answer_files = num("--answer-files")?,
            "--answers" => args.answers = num("--answers")?,
            "--shape" => match it.next().as_deref() {
                Some("wiki") => args.wiki = true,
                Some("plain") => args.wiki = false,
                Some("moved") => args.moved = true,
                Some("versioned") => args.versioned = true,
                _ => return Err("--shape needs `wiki`, `moved`, `versioned` or `plain`".into()),
            },
            "--mix" => {
                let parts: Vec<u8> = it
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|p| p.parse().ok())
                    .collect();
                match parts[..] {
                    [a, b, c, d]
                        if u32::from(a) + u32::from(b) + u32::from(c) + u32::from(d) == 100 =>
                    {
                        args.mix = [a, b, c, d]
                    }
                    _ => {
                        return Err(
                            "--mix needs four percentages adding up to 100, e.g. 70,10,10,10"
                                .into(),
                        )
                    }
                }
            }
            d if !d.starts_with('-') && args.dir.is_empty() => args.dir = d.to_string(),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if args.dir.is_empty() {
        return Err("usage: corpus DIR --citations N [--files F] [--commits C] [--seed S]".into());
    }
    Ok(args)
}

/// A source file at one point in history; unchanged files are shared between snapshots.
#[derive(Clone)]
struct File {
    path: String,
    lines: Rc<Vec<String>>,
}

type Snapshot = Vec<Option<File>>;

const EXTENSIONS: [&str; 5] = ["rs", "py", "ts", "go", "java"];

fn source_line(rng: &mut fastrand::Rng, file: usize, n: usize) -> String {
    match rng.u8(0..10) {
        0 => String::new(),
        1 => "}".to_string(),
        2 => format!("    // note {file}.{n}: keep the cache warm"),
        3 => format!("fn handler_{file}_{n}(request: &Request) -> Response {{"),
        4 => format!("    let ttl_{n} = {};", rng.u32(1..100_000)),
        5 => format!("    return compute_{file}({n}, {});", rng.u16(..)),
        6 => format!("pub const LIMIT_{file}_{n}: usize = {};", rng.u32(..)),
        7 => format!("    if value_{n} > {} {{ fail(\"{file}\"); }}", rng.u16(..)),
        _ => format!("    state.update(\"key-{file}-{n}\", {});", rng.u32(..)),
    }
}

fn entry(path: &str, size: usize, id: Oid) -> IndexEntry {
    IndexEntry {
        ctime: IndexTime::new(0, 0),
        mtime: IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode: 0o100644,
        uid: 0,
        gid: 0,
        file_size: size as u32,
        id,
        flags: path.len().min(0xfff) as u16,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    }
}

struct Writer<'a> {
    repo: &'a Repository,
    index: git2::Index,
    parent: Option<Oid>,
    count: i64,
}

impl Writer<'_> {
    /// The first version of `n` source files, written to the index (not committed).
    fn first_files(&mut self, rng: &mut fastrand::Rng, n: usize) -> Result<Snapshot, git2::Error> {
        let mut files: Snapshot = Vec::with_capacity(n);
        for i in 0..n {
            let ext = EXTENSIONS[i % EXTENSIONS.len()];
            let path = format!("src/mod{:02}/file{i:05}.{ext}", i % 64);
            let len = 30 + rng.usize(..300);
            let lines: Vec<String> = (0..len).map(|n| source_line(rng, i, n)).collect();
            self.put(&path, &text_of(&lines))?;
            files.push(Some(File {
                path,
                lines: Rc::new(lines),
            }));
        }
        Ok(files)
    }

    /// Write the index, check it out in `dir`, and pack the repository (real repositories are
    /// packed; a corpus of loose objects would measure zlib, not citegate).
    fn check_out_and_pack(self, dir: &Path, aggressive: bool) -> Result<(), git2::Error> {
        let mut index = self.index;
        index.write()?;
        self.repo.checkout_index(
            Some(&mut index),
            Some(git2::build::CheckoutBuilder::new().force()),
        )?;
        let mut gc = vec!["gc", "--quiet", "--prune=now"];
        if aggressive {
            gc.push("--aggressive");
        }
        let packed = std::process::Command::new("git")
            .args(gc)
            .current_dir(dir)
            .status();
        if !packed.is_ok_and(|s| s.success()) {
            eprintln!("corpus: `git gc` failed: the corpus is left unpacked");
        }
        Ok(())
    }

    fn put(&mut self, path: &str, text: &str) -> Result<(), git2::Error> {
        let id = self.repo.blob(text.as_bytes())?;
        self.index.add(&entry(path, text.len(), id))
    }

    fn commit(&mut self, message: &str) -> Result<Oid, git2::Error> {
        self.commit_to("HEAD", message, None)
    }

    /// Commit the index on `reference` (created if need be), with `merged` as a second parent.
    fn commit_to(
        &mut self,
        reference: &str,
        message: &str,
        merged: Option<Oid>,
    ) -> Result<Oid, git2::Error> {
        let tree = self.repo.find_tree(self.index.write_tree_to(self.repo)?)?;
        let sig = Signature::new(
            "citegate corpus",
            "corpus@citegate.invalid",
            &Time::new(1_767_225_600 + self.count * 3600, 0),
        )?;
        self.count += 1;
        let parents: Vec<git2::Commit<'_>> = (self.parent.into_iter().chain(merged))
            .map(|p| self.repo.find_commit(p))
            .collect::<Result<_, _>>()?;
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let id = self
            .repo
            .commit(Some(reference), &sig, &sig, message, &tree, &refs)?;
        self.parent = Some(id);
        Ok(id)
    }
}

/// Commit `c`'s changes to `files` (in the index of `w`, not committed): six edits that insert
/// lines (moving code down) and sometimes change one, a rename every 10 commits, a deletion every
/// 15. Files in `locked` (being changed on a release branch) are left alone.
fn evolve(
    w: &mut Writer<'_>,
    files: &mut Snapshot,
    rng: &mut fastrand::Rng,
    c: usize,
    locked: &[usize],
) -> Result<(), git2::Error> {
    for _ in 0..6 {
        let i = rng.usize(..files.len());
        let Some(f) = files[i].as_mut().filter(|_| !locked.contains(&i)) else {
            continue;
        };
        edit(w, f, rng, c)?;
    }
    if c.is_multiple_of(10) {
        let i = rng.usize(..files.len());
        if let Some(f) = files[i].as_mut().filter(|_| !locked.contains(&i)) {
            w.index.remove_path(Path::new(&f.path))?;
            f.path = f.path.replace("/file", "/renamed");
            w.put(&f.path, &text_of(&f.lines))?;
        }
    }
    if c.is_multiple_of(15) {
        let i = rng.usize(..files.len());
        if !locked.contains(&i) {
            if let Some(f) = files[i].take() {
                w.index.remove_path(Path::new(&f.path))?;
            }
        }
    }
    Ok(())
}

/// Insert one to three lines at a random place of `f` (moving the code below down) and, one time
/// in three, change a line; written to the index of `w`.
fn edit(
    w: &mut Writer<'_>,
    f: &mut File,
    rng: &mut fastrand::Rng,
    c: usize,
) -> Result<(), git2::Error> {
    let mut lines = (*f.lines).clone();
    let at = rng.usize(..lines.len());
    for k in 0..rng.usize(1..4) {
        lines.insert(at, format!("    // added in commit {c}, {k}"));
    }
    if rng.u8(..3) == 0 {
        let j = rng.usize(..lines.len());
        lines[j] = format!("    let changed_{c} = {};", rng.u32(..));
    }
    w.put(&f.path, &text_of(&lines))?;
    f.lines = Rc::new(lines);
    Ok(())
}

fn text_of(lines: &[String]) -> String {
    let mut t = lines.join("\n");
    t.push('\n');
    t
}

/// How each citation is meant to turn out.
#[derive(Clone, Copy)]
enum Kind {
    Valid,
    Stale,
    Invented,
    Unsupported,
}

/// Citations per doc.
const PER_DOC: usize = 100;

/// A generated doc: where it goes, its text, and its citations for the TSV (`None` revision: the
/// commit the doc is written in, known once it is made).
struct GenDoc {
    path: String,
    text: String,
    citations: usize,
    rows: Vec<(Option<Oid>, String)>,
}

impl GenDoc {
    fn rows(&self, now: Oid) -> String {
        self.rows
            .iter()
            .map(|(rev, rest)| format!("{}\t{rest}\n", rev.unwrap_or(now)))
            .collect()
    }
}

/// One citation drawn from the history: how it is meant to turn out, where it points (`None`
/// revision: the doc's own commit), its quote (altered when unsupported) and an identifier of its
/// span to write as an inline-code literal.
struct Pick {
    kind: Kind,
    rev: Option<Oid>,
    path: String,
    s: usize,
    e: usize,
    quote: String,
    literal: String,
}

/// Draw citation `k`: a kind from the mix; stale ones pinned at a commit of the older half of the
/// history, the others at the doc's code (`now`, the last snapshot of `history`).
fn pick(
    k: usize,
    args: &Args,
    rng: &mut fastrand::Rng,
    now: Option<Oid>,
    history: &[(Oid, Snapshot)],
    live: &[usize],
    older: usize,
) -> Pick {
    let current = &history.last().expect("history").1;
    let roll = rng.u8(..100);
    let [valid, stale, invented, _] = args.mix;
    let kind = if roll < valid {
        Kind::Valid
    } else if roll < valid + stale {
        Kind::Stale
    } else if roll < valid + stale + invented {
        Kind::Invented
    } else {
        Kind::Unsupported
    };
    // Stale citations are pinned at an older commit; the others cite the doc's code.
    let (rev, snapshot) = match kind {
        Kind::Stale => {
            let (id, snap) = &history[rng.usize(..older)];
            (Some(*id), snap)
        }
        _ => (now, current),
    };
    let i = match kind {
        Kind::Stale => loop {
            let i = rng.usize(..snapshot.len());
            if snapshot[i].is_some() {
                break i;
            }
        },
        _ => live[rng.usize(..live.len())],
    };
    let f = snapshot[i].as_ref().expect("a file");
    let len = f.lines.len();
    let start = 1 + rng.usize(..len.saturating_sub(8).max(1));
    let end = (start + rng.usize(..6)).min(len);
    let mut path = f.path.clone();
    let (mut s, mut e) = (start, end);
    match kind {
        Kind::Invented if k.is_multiple_of(2) => path = path.replace(".", "_old."),
        Kind::Invented => {
            s = len + 5;
            e = len + 9;
        }
        _ => {}
    }
    let lines = &f.lines[start - 1..end];
    let mut quote: String = lines
        .iter()
        .find(|l| l.len() > 12)
        .cloned()
        .unwrap_or_default();
    let mut literal = lines
        .iter()
        .flat_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| w.contains('_'))
        .max_by_key(|w| w.len())
        .unwrap_or("")
        .to_string();
    if matches!(kind, Kind::Unsupported) {
        quote.push_str(" // paraphrased");
        if !literal.is_empty() {
            literal.push_str("_v2");
        }
    }
    Pick {
        kind,
        rev,
        path,
        s,
        e,
        quote,
        literal,
    }
}

/// Doc `d` with `n` citations, written against the last snapshot of `history` (the commit `now`,
/// or the one being made when `None`): unpinned citations cite that code, stale ones a permalink
/// into the older half of the history.
fn write_doc(
    d: usize,
    n: usize,
    args: &Args,
    rng: &mut fastrand::Rng,
    now: Option<Oid>,
    history: &[(Oid, Snapshot)],
) -> GenDoc {
    let json = d % 5 == 4;
    let (live, older) = live_and_older(history);
    let mut md = format!("# Page {d}\n\n");
    let mut answers: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for k in 0..n {
        let Pick {
            kind,
            rev,
            path,
            s,
            e,
            quote,
            ..
        } = pick(k, args, rng, now, history, &live, older);
        let quote = if matches!(kind, Kind::Unsupported) || k.is_multiple_of(3) {
            quote
        } else {
            String::new()
        };
        let quoted = serde_json::to_string(&quote).unwrap_or_default();
        rows.push((rev, format!("{path}\t{s}\t{e}\t{quoted}")));
        if json {
            let q = if quote.is_empty() {
                String::new()
            } else {
                format!(", \"quote\": {quoted}")
            };
            let pin = match (kind, rev) {
                (Kind::Stale, Some(rev)) => format!(", \"revision\": \"{rev}\""),
                _ => String::new(),
            };
            answers.push(format!(
                "{{\"summary\": \"answer {k}\"{pin}, \"citations\": [{{\"path\": \"{path}\", \"startLine\": {s}, \"endLine\": {e}{q}}}]}}"
            ));
            continue;
        }
        let syntax = if matches!(kind, Kind::Stale) {
            2
        } else {
            k % 4
        };
        match (syntax, quote.is_empty(), rev) {
            (2, _, Some(rev)) => {
                let short = &rev.to_string()[..8];
                let _ = writeln!(
                    md,
                    "Claim {k} [source](https://github.com/citegate/corpus/blob/{short}/{path}#L{s}-L{e}).\n"
                );
            }
            (_, false, _) => {
                let _ = writeln!(md, "Claim {k}, quoted: {path}:{s}-{e}\n```\n{quote}\n```\n");
            }
            (0, true, _) | (2, true, None) => {
                let _ = writeln!(md, "Claim {k} is in {path}:{s}-{e}.\n");
            }
            (1, true, _) => {
                let _ = writeln!(md, "Claim {k} is in [the code](../../{path}#L{s}-L{e}).\n");
            }
            _ => {
                let _ = writeln!(md, "Claim {k} is in `{path}:{s}-{e}`.\n");
            }
        }
    }
    let (path, text) = if json {
        (
            format!("docs/answers{:03}/answer{d:05}.jsonl", d / 100),
            answers.join("\n") + "\n",
        )
    } else {
        (format!("docs/page{:03}/page{d:05}.md", d / 100), md)
    };
    GenDoc {
        path,
        text,
        citations: n,
        rows,
    }
}

/// Prose between citations, so that a wiki page weighs what a real one does (about 5 KB).
const FILLER: [&str; 6] = [
    "The request path goes through the cache first; a miss falls back to the store, and the result is written back before the response leaves. Timeouts at 10:30 and hosts like localhost:8080 are configuration, not code.",
    "Errors are returned, not thrown: each layer adds what it knows (the key, the attempt) and the caller decides whether to retry. `std::io::Read` is the only trait the reader needs, and version 1.2.3 changed nothing here.",
    "Configuration is read once at start-up and shared read-only; a reload builds a new value and swaps it in, so a request never sees half of each.",
    "The limits are constants so that tests can name them; changing one is a deliberate act that shows up in review, with the reason in the commit message.",
    "State updates are keyed by the request's identifier and applied in order; the update function is idempotent, which is what makes a retry after a timeout safe.",
    "Handlers are small: parse, validate, call the service, render. Anything longer moves into the service, where it can be tested without a request.",
];

/// The files alive at the last commit of `history`, and how many of its commits are older pins.
fn live_and_older(history: &[(Oid, Snapshot)]) -> (Vec<usize>, usize) {
    let current = &history.last().expect("history").1;
    let live = (0..current.len())
        .filter(|i| current[*i].is_some())
        .collect();
    (live, history.len().saturating_sub(1).max(1).div_ceil(2))
}

/// A wiki page in every Markdown syntax of `CITATIONS.md`: front matter `sources:`, bare
/// `path:a-b` in prose and inline code, claims with inline-code literals, relative links,
/// permalinks (full and short, pinned at the head or, when stale, at an older commit), bare
/// permalink URLs, quote fences, Cursor and `title=` fences, `<details>` source blocks, prose line
/// references, Qoder `file://` links, mdBook includes, and per section a DeepWiki `Sources:`
/// paragraph, a deepwiki-open list of empty links or numbered `[n]` sources; a mermaid diagram
/// now and then. `n` citations in the running text, plus those of the closing paragraphs.
fn write_wiki_doc(
    d: usize,
    n: usize,
    args: &Args,
    rng: &mut fastrand::Rng,
    head: Oid,
    history: &[(Oid, Snapshot)],
) -> GenDoc {
    let (live, older) = live_and_older(history);
    let mut rows = Vec::new();
    let mut cited = 0;
    let mut draw = |k: usize, rng: &mut fastrand::Rng, rows: &mut Vec<(Option<Oid>, String)>| {
        let p = pick(k, args, rng, Some(head), history, &live, older);
        let quoted = serde_json::to_string(&p.quote).unwrap_or_default();
        rows.push((p.rev, format!("{}\t{}\t{}\t{quoted}", p.path, p.s, p.e)));
        cited += 1;
        p
    };
    let base = |path: &str| path.rsplit('/').next().unwrap_or(path).to_string();
    let url = |rev: Option<Oid>, short: usize, path: &str, s: usize, e: usize| {
        let rev = rev.unwrap_or(head).to_string();
        format!(
            "https://github.com/citegate/corpus/blob/{}/{path}#L{s}-L{e}",
            &rev[..short]
        )
    };
    // File-level provenance: two files of the head, cited whole.
    let (a, b) = (draw(0, rng, &mut rows), draw(1, rng, &mut rows));
    let mut md = format!(
        "---\ntitle: Page {d}\nsources: [{}, {}]\n---\n\n# Page {d}: the {} module\n\n{}\n\n",
        a.path,
        b.path,
        d % 64,
        FILLER[d % FILLER.len()]
    );
    for k in 0..n {
        if k.is_multiple_of(6) {
            let _ = writeln!(md, "## Part {}\n", k / 6 + 1);
        }
        let p = draw(k + 2, rng, &mut rows);
        let filler = format!(
            "{} {}",
            FILLER[(d + k) % FILLER.len()],
            FILLER[(d + k + 2) % FILLER.len()]
        );
        let (path, s, e, q, lit) = (&p.path, p.s, p.e, &p.quote, &p.literal);
        // Stale citations are pinned, in one of the pinned syntaxes.
        let syntax = match p.kind {
            Kind::Stale => [3, 10, 11][k % 3],
            _ => (d * 7 + k) % 14,
        };
        let text = match syntax {
            0 => format!("{filler} This is done in {path}:{s}-{e}."),
            1 if !lit.is_empty() => {
                format!("{filler} The value `{lit}` is set in `{path}:{s}-{e}`.")
            }
            1 => format!("{filler} See `{path}:{s}-{e}`."),
            2 => format!("{filler} See [the code](../../{path}#L{s}-L{e})."),
            3 => format!(
                "{filler} [{}]({}).",
                base(path),
                url(p.rev, 40, path, s, e)
            ),
            4 => format!("{filler} Quoted from {path}:{s}-{e}:\n\n```\n{q}\n```"),
            5 => format!("{filler}\n\n```{s}:{e}:{path}\n{q}\n```"),
            6 => format!("{filler}\n\n```text title=\"{path}\"\n{q}\n```"),
            7 => format!("{filler} The handler is in `{path}` lines {s}-{e}."),
            8 => format!("{filler} Lines {s}-{e} of `{path}` hold it."),
            9 => format!("{filler}\n\n**Section sources**\n- [{}](file://{path}#L{s}-L{e})", base(path)),
            10 => format!("{filler} See {}.", url(p.rev, 8, path, s, e)),
            11 => format!(
                "{filler}\n\n<details><summary>View Source (lines {s}-{e}) | <a href=\"{}\">GitHub</a></summary>\n\n```\n{q}\n```\n\n</details>",
                url(p.rev, 40, path, s, e)
            ),
            12 => format!("{filler}\n\n```text\n{{{{#include ../../{path}:{s}:{e}}}}}\n```"),
            _ => format!("{filler} Claim: `{lit}` ({path}:{s}-{e})."),
        };
        let _ = writeln!(md, "{text}\n");
        if k % 6 == 5 || k + 1 == n {
            // The section's closing sources, in the style of one generator or another.
            let (x, y) = (draw(k + 100, rng, &mut rows), draw(k + 101, rng, &mut rows));
            match (d + k / 6) % 3 {
                0 => {
                    let _ = writeln!(
                        md,
                        "Sources: [{} L{}-L{}]({}), [{} L{}-L{}]({})\n",
                        base(&x.path),
                        x.s,
                        x.e,
                        url(x.rev, 8, &x.path, x.s, x.e),
                        base(&y.path),
                        y.s,
                        y.e,
                        url(y.rev, 8, &y.path, y.s, y.e)
                    );
                }
                1 => {
                    let _ = writeln!(
                        md,
                        "**Sources:** [{}:{}-{}](), [{}:{}]()\n",
                        x.path, x.s, x.e, y.path, y.s
                    );
                }
                _ => {
                    let _ = writeln!(
                        md,
                        "Both sides are covered [1][2].\n\nSources:\n[1] {} (52%)\n[2] {} (41%)\n",
                        x.path, y.path
                    );
                }
            }
        }
        if k % 17 == 16 {
            md.push_str(
                "```mermaid\ngraph TD\n  A[request] --> B[cache]\n  B --> C[store]\n```\n\n",
            );
        }
    }
    GenDoc {
        path: format!("docs/wiki{:03}/page{d:05}.md", d / 100),
        text: md,
        citations: cited,
        rows,
    }
}

/// An answer file of the cache: `n` answers (JSON array or JSON lines), two citations each with
/// their quotes, or claims with literals, half of them with the `retrieved` chunks they came
/// from (one in ten not covering what is cited).
fn write_wiki_answers(
    f: usize,
    n: usize,
    args: &Args,
    rng: &mut fastrand::Rng,
    head: Oid,
    history: &[(Oid, Snapshot)],
) -> GenDoc {
    let (live, older) = live_and_older(history);
    let mut rows = Vec::new();
    let mut answers = Vec::new();
    for a in 0..n {
        let mut cites = Vec::new();
        let mut retrieved = Vec::new();
        let mut pin = String::new();
        for c in 0..2 {
            let p = pick(a * 2 + c, args, rng, Some(head), history, &live, older);
            let quoted = serde_json::to_string(&p.quote).unwrap_or_default();
            rows.push((p.rev, format!("{}\t{}\t{}\t{quoted}", p.path, p.s, p.e)));
            if let (Kind::Stale, Some(rev)) = (p.kind, p.rev) {
                pin = format!("\"revision\": \"{rev}\", ");
            }
            let (from, to) = match rng.u8(..10) {
                0 => (p.e + 20, p.e + 30),
                _ => (p.s.saturating_sub(5).max(1), p.e + 5),
            };
            retrieved.push(format!(
                "{{\"path\": \"{}\", \"start_line\": {from}, \"end_line\": {to}}}",
                p.path
            ));
            cites.push(if (f + a) % 4 == 3 {
                let lit =
                    serde_json::to_string(&format!("Sets `{}`.", p.literal)).unwrap_or_default();
                format!(
                    "{{\"text\": {lit}, \"path\": \"{}\", \"start_line\": {}, \"end_line\": {}}}",
                    p.path, p.s, p.e
                )
            } else {
                format!(
                    "{{\"path\": \"{}\", \"startLine\": {}, \"endLine\": {}, \"quote\": {quoted}}}",
                    p.path, p.s, p.e
                )
            });
        }
        // A stale citation pins its answer: the answer's other citation is read at that pin too.
        let summary = serde_json::to_string(&format!(
            "Answer {a} of file {f}. {}",
            (0..6)
                .map(|i| FILLER[(f + a + i) % FILLER.len()])
                .collect::<Vec<_>>()
                .join(" ")
        ))
        .unwrap_or_default();
        let body = if (f + a) % 4 == 3 {
            format!("\"claims\": [{}], \"open_questions\": []", cites.join(", "))
        } else {
            format!("\"citations\": [{}]", cites.join(", "))
        };
        let retrieved = match a % 2 {
            0 => format!(", \"retrieved\": [{}]", retrieved.join(", ")),
            _ => String::new(),
        };
        answers.push(format!(
            "{{\"summary\": {summary}, {pin}{body}{retrieved}}}"
        ));
    }
    let (path, text) = match f % 2 {
        0 => (
            format!("answers/cache{:03}/answer{f:05}.jsonl", f / 100),
            answers.join("\n") + "\n",
        ),
        _ => (
            format!("answers/cache{:03}/answer{f:05}.json", f / 100),
            format!("[\n{}\n]\n", answers.join(",\n")),
        ),
    };
    GenDoc {
        path,
        text,
        citations: n * 2,
        rows,
    }
}

/// The wiki pages and answer files of the `wiki` shape, written to the index of `w` against the
/// last commit of `history`: their citation rows and how many citations they hold. About 11
/// citations in a page's running text (plus its closing sources and front matter), 3 answers of
/// 2 citations per answer file.
fn write_wiki(
    w: &mut Writer<'_>,
    args: &Args,
    rng: &mut fastrand::Rng,
    history: &[(Oid, Snapshot)],
) -> Result<(String, usize), git2::Error> {
    let head = history.last().expect("history").0;
    let (mut rows, mut written) = (String::new(), 0);
    for d in 0..args.docs {
        let doc = write_wiki_doc(d, 8 + d % 7, args, rng, head, history);
        w.put(&doc.path, &doc.text)?;
        rows.push_str(&doc.rows(head));
        written += doc.citations;
    }
    for f in 0..args.answer_files {
        let doc = write_wiki_answers(f, 3, args, rng, head, history);
        w.put(&doc.path, &doc.text)?;
        rows.push_str(&doc.rows(head));
        written += doc.citations;
    }
    Ok((rows, written))
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(&args.dir);
    if dir.exists() {
        return Err(format!("{}: exists; remove it first", dir.display()).into());
    }
    let repo = Repository::init_opts(dir, git2::RepositoryInitOptions::new().initial_head("main"))?;
    repo.remote("origin", "https://github.com/citegate/corpus.git")?;
    let mut rng = fastrand::Rng::with_seed(args.seed);
    let mut w = Writer {
        repo: &repo,
        index: repo.index()?,
        parent: None,
        count: 0,
    };

    // The first version of every file.
    let mut files = w.first_files(&mut rng, args.files)?;
    let mut history: Vec<(Oid, Snapshot)> = vec![(w.commit("initial import")?, files.clone())];
    let mut history_rows = String::new();
    let mut history_written = 0;

    // A history that edits (and so moves code down), changes, renames and deletes.
    for c in 1..args.commits {
        evolve(&mut w, &mut files, &mut rng, c, &[])?;
        // With --history-docs, the docs whose turn it is are written against this commit's code.
        let mut pending = Vec::new();
        if args.history_docs {
            let docs = args.citations.div_ceil(PER_DOC);
            history.push((Oid::ZERO_SHA1, files.clone()));
            for d in (0..docs).filter(|d| 1 + d * (args.commits - 1) / docs == c) {
                let n = PER_DOC.min(args.citations - d * PER_DOC);
                let doc = write_doc(d, n, &args, &mut rng, None, &history);
                w.put(&doc.path, &doc.text)?;
                pending.push(doc);
            }
            history.pop();
        }
        let id = w.commit(&format!("change {c}"))?;
        for doc in pending {
            history_rows.push_str(&doc.rows(id));
            history_written += doc.citations;
        }
        history.push((id, files.clone()));
    }
    let head = history.last().expect("history").0;

    // Docs: 100 citations each, in every syntax, with the mix below.
    let docs = args.citations.div_ceil(PER_DOC);
    let mut rows = String::new();
    let mut written = 0;
    if args.wiki {
        (rows, written) = write_wiki(&mut w, &args, &mut rng, &history)?;
    } else if !args.history_docs {
        for d in 0..docs {
            let n = PER_DOC.min(args.citations - written);
            let doc = write_doc(d, n, &args, &mut rng, Some(head), &history);
            w.put(&doc.path, &doc.text)?;
            rows.push_str(&doc.rows(head));
            written += n;
        }
    }
    rows.push_str(&history_rows);
    written += history_written;
    let live = (0..files.len()).filter(|i| files[*i].is_some()).count();
    w.commit("docs")?;
    std::fs::write(
        format!("{}.citations.tsv", args.dir.trim_end_matches('/')),
        rows,
    )?;
    w.check_out_and_pack(dir, true)?;
    let docs = match args.wiki {
        true => args.docs + args.answer_files,
        false => docs,
    };
    println!(
        "{}: {} files, {} commits, {} citations in {} docs",
        dir.display(),
        live,
        history.len() + 1,
        written,
        docs
    );
    Ok(())
}

/// A source file of the `moved` shape: `functions` functions of six lines (signature, four body
/// lines, closing brace), each named after its file and index, so every one is found once.
fn moved_source(rng: &mut fastrand::Rng, file: usize, functions: usize) -> Vec<String> {
    let mut lines = vec![format!("// file {file}: request handlers"), String::new()];
    for k in 0..functions {
        lines.push(format!(
            "pub fn handler_{file}_{k}(request: &Request) -> Response {{"
        ));
        lines.push(format!("    let limit_{k} = {};", rng.u32(1..100_000)));
        lines.push(format!(
            "    state.update(\"key-{file}-{k}\", request.id());"
        ));
        lines.push(format!(
            "    if limit_{k} > request.len() {{ fail(\"{file}\"); }}"
        ));
        lines.push(format!("    compute_{file}(limit_{k}, {})", rng.u16(..)));
        lines.push("}".to_string());
        lines.push(String::new());
    }
    lines
}

/// The `moved` shape (issue 38): `--files` source files at a first commit, then a second commit
/// that adds two lines at the top of every file (every function moves down two lines) and writes
/// `--answers` one-citation answers, ten per JSONL file, pinned at the first commit with the
/// quote of its last statement. Every answer fails `stale-moved` and `regenerate` moves it.
fn run_moved(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(&args.dir);
    if dir.exists() {
        return Err(format!("{}: exists; remove it first", dir.display()).into());
    }
    let repo = Repository::init_opts(dir, git2::RepositoryInitOptions::new().initial_head("main"))?;
    let mut rng = fastrand::Rng::with_seed(args.seed);
    let mut w = Writer {
        repo: &repo,
        index: repo.index()?,
        parent: None,
        count: 0,
    };
    let mut files = Vec::with_capacity(args.files);
    for i in 0..args.files {
        let ext = EXTENSIONS[i % EXTENSIONS.len()];
        let path = format!("src/mod{:02}/file{i:05}.{ext}", i % 64);
        let functions = 8 + rng.usize(..16);
        let lines = moved_source(&mut rng, i, functions);
        w.put(&path, &text_of(&lines))?;
        files.push((path, lines));
    }
    let v1 = w.commit("v1")?;
    for (path, lines) in &mut files {
        lines.insert(0, String::new());
        lines.insert(0, "// moved down two lines".to_string());
        w.put(path, &text_of(lines))?;
    }
    let mut answers = String::new();
    for a in 0..args.answers {
        let f = rng.usize(..files.len());
        let (path, lines) = &files[f];
        let functions = (lines.len() - 4) / 7;
        let k = rng.usize(..functions);
        // At v1, function k starts at line 3 + 7k (1-based) and spans six lines.
        let (s, e) = (3 + 7 * k, 8 + 7 * k);
        // The quote is the function's last statement: at HEAD it is below the cited span.
        let quote = format!(", \"quote\": {}", serde_json::to_string(&lines[s + 5])?);
        let question =
            serde_json::to_string(&format!("Answer {a}: what does handler {f}.{k} do?"))?;
        answers.push_str(&format!(
            "{{\"question\": {question}, \"revision\": \"{v1}\", \"summary\": \"It updates the \
             state and computes the response.\", \"citations\": [{{\"path\": \"{path}\", \
             \"start_line\": {s}, \"end_line\": {e}{quote}}}]}}\n"
        ));
        if a % 10 == 9 || a + 1 == args.answers {
            w.put(&format!("answers/batch{:05}.jsonl", a / 10), &answers)?;
            answers.clear();
        }
    }
    w.commit("functions moved down two lines; answers")?;
    w.check_out_and_pack(dir, false)?;
    println!(
        "{}: {} files, 2 commits, {} answers pinned at {v1}",
        dir.display(),
        files.len(),
        args.answers
    );
    Ok(())
}

fn main() -> ExitCode {
    let run = |args: Args| match (args.moved, args.versioned) {
        (true, _) => run_moved(args),
        (_, true) => versioned::run(args),
        _ if args.real && args.wiki => real::run(args),
        _ if args.real => Err("--real goes with --shape wiki".into()),
        _ => run(args),
    };
    match parse_args().map_err(Into::into).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::from(2)
        }
    }
}
