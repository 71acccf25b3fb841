//! Benchmark corpus generator: a Git repository with a realistic history (thousands of source
//! files, a few hundred commits that edit, move, rename and delete code) and a docs tree with N
//! citations in the syntaxes `audit` reads, with a chosen mix of valid, stale, invented and
//! unsupported citations. Deterministic from a seed.
//!
//! `cargo run --release --example corpus -- DIR --citations N [--files F] [--commits C] [--seed S] [--mix V,S,I,U]`
//! (percentages of valid, stale, invented, unsupported; default 70,10,10,10) `[--history-docs]`
//! also writes `DIR.citations.tsv` (revision, path, start, end, quote) for the naive baseline and
//! the floor. With `--history-docs` each doc is committed with one of the history's commits and
//! cites the code of that commit without a pin (stale ones keep an older permalink), so every
//! unpinned citation has an implied pin and code moved by later commits drifts under it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;

use git2::{IndexEntry, IndexTime, Oid, Repository, Signature, Time};

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
            "--commits" => args.commits = num("--commits")?,
            "--seed" => args.seed = num("--seed")? as u64,
            "--history-docs" => args.history_docs = true,
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
    fn put(&mut self, path: &str, text: &str) -> Result<(), git2::Error> {
        let id = self.repo.blob(text.as_bytes())?;
        self.index.add(&entry(path, text.len(), id))
    }

    fn commit(&mut self, message: &str) -> Result<Oid, git2::Error> {
        let tree = self.repo.find_tree(self.index.write_tree()?)?;
        let sig = Signature::new(
            "citegate corpus",
            "corpus@citegate.invalid",
            &Time::new(1_767_225_600 + self.count * 3600, 0),
        )?;
        self.count += 1;
        let parents: Vec<git2::Commit<'_>> = self
            .parent
            .map(|p| self.repo.find_commit(p))
            .transpose()?
            .into_iter()
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let id = self
            .repo
            .commit(Some("HEAD"), &sig, &sig, message, &tree, &refs)?;
        self.parent = Some(id);
        Ok(id)
    }
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
    let current = &history.last().expect("history").1;
    let live: Vec<usize> = (0..current.len())
        .filter(|i| current[*i].is_some())
        .collect();
    let older = history.len().saturating_sub(1).max(1).div_ceil(2);
    let mut md = format!("# Page {d}\n\n");
    let mut answers: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for k in 0..n {
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
            Kind::Invented if k % 2 == 0 => path = path.replace(".", "_old."),
            Kind::Invented => {
                s = len + 5;
                e = len + 9;
            }
            _ => {}
        }
        let mut quote: String = f.lines[start - 1..end]
            .iter()
            .find(|l| l.len() > 12)
            .cloned()
            .unwrap_or_default();
        if matches!(kind, Kind::Unsupported) {
            quote.push_str(" // paraphrased");
        }
        let quote = if matches!(kind, Kind::Unsupported) || k % 3 == 0 {
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
    let mut files: Snapshot = Vec::with_capacity(args.files);
    for i in 0..args.files {
        let ext = EXTENSIONS[i % EXTENSIONS.len()];
        let path = format!("src/mod{:02}/file{i:05}.{ext}", i % 64);
        let len = 30 + rng.usize(..300);
        let lines: Vec<String> = (0..len).map(|n| source_line(&mut rng, i, n)).collect();
        w.put(&path, &text_of(&lines))?;
        files.push(Some(File {
            path,
            lines: Rc::new(lines),
        }));
    }
    let mut history: Vec<(Oid, Snapshot)> = vec![(w.commit("initial import")?, files.clone())];
    let mut history_rows = String::new();
    let mut history_written = 0;

    // A history that edits (and so moves code down), changes, renames and deletes.
    for c in 1..args.commits {
        for _ in 0..6 {
            let i = rng.usize(..files.len());
            let Some(f) = files[i].as_mut() else { continue };
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
        }
        if c % 10 == 0 {
            let i = rng.usize(..files.len());
            if let Some(f) = files[i].as_mut() {
                w.index.remove_path(Path::new(&f.path))?;
                f.path = f.path.replace("/file", "/renamed");
                w.put(&f.path, &text_of(&f.lines))?;
            }
        }
        if c % 15 == 0 {
            let i = rng.usize(..files.len());
            if let Some(f) = files[i].take() {
                w.index.remove_path(Path::new(&f.path))?;
            }
        }
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
    if !args.history_docs {
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
    let mut index = w.index;
    index.write()?;
    repo.checkout_index(
        Some(&mut index),
        Some(git2::build::CheckoutBuilder::new().force()),
    )?;
    std::fs::write(
        format!("{}.citations.tsv", args.dir.trim_end_matches('/')),
        rows,
    )?;
    // Real repositories are packed; a corpus of loose objects would measure zlib, not citegate.
    let packed = std::process::Command::new("git")
        .args(["gc", "--quiet", "--aggressive", "--prune=now"])
        .current_dir(dir)
        .status();
    if !packed.is_ok_and(|s| s.success()) {
        eprintln!("corpus: `git gc` failed: the corpus is left unpacked");
    }
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

fn main() -> ExitCode {
    match parse_args().map_err(Into::into).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::from(2)
        }
    }
}
