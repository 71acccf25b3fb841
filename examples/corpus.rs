//! Benchmark corpus generator: a Git repository with a realistic history (thousands of source
//! files, a few hundred commits that edit, move, rename and delete code) and a docs tree with N
//! citations in the syntaxes `audit` reads, with a chosen mix of valid, stale, invented and
//! unsupported citations. Deterministic from a seed.
//!
//! `cargo run --release --example corpus -- DIR --citations N [--files F] [--commits C] [--seed S] [--mix V,S,I,U]`
//! (percentages of valid, stale, invented, unsupported; default 70,10,10,10) also writes
//! `DIR.citations.tsv` (revision, path, start, end, quote) for the naive baseline and the floor.

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
        let id = w.commit(&format!("change {c}"))?;
        history.push((id, files.clone()));
    }
    let head = history.last().expect("history").0;

    // Docs: 100 citations each, in every syntax, with the mix below.
    let per_doc = 100;
    let docs = args.citations.div_ceil(per_doc);
    let mut rows = String::new();
    let mut written = 0;
    let live: Vec<usize> = (0..files.len()).filter(|i| files[*i].is_some()).collect();
    for d in 0..docs {
        let json = d % 5 == 4;
        let mut md = format!("# Page {d}\n\n");
        let mut answers: Vec<String> = Vec::new();
        let n = per_doc.min(args.citations - written);
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
            // Stale citations are pinned at an older commit; the others cite the target.
            let (rev, snapshot) = match kind {
                Kind::Stale => {
                    let (id, snap) = &history[rng.usize(..history.len() / 2)];
                    (*id, snap)
                }
                _ => (head, &history.last().expect("history").1),
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
            let _ = writeln!(
                rows,
                "{rev}\t{path}\t{s}\t{e}\t{}",
                serde_json::to_string(&quote).unwrap_or_default()
            );
            if json {
                let q = if quote.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", \"quote\": {}",
                        serde_json::to_string(&quote).unwrap_or_default()
                    )
                };
                let pin = if matches!(kind, Kind::Stale) {
                    format!(", \"revision\": \"{rev}\"")
                } else {
                    String::new()
                };
                answers.push(format!(
                    "{{\"summary\": \"answer {k}\"{pin}, \"citations\": [{{\"path\": \"{path}\", \"startLine\": {s}, \"endLine\": {e}{q}}}]}}"
                ));
                continue;
            }
            let short = &rev.to_string()[..8];
            let syntax = if matches!(kind, Kind::Stale) {
                2
            } else {
                k % 4
            };
            match (syntax, quote.is_empty()) {
                (2, _) => {
                    let _ = writeln!(
                        md,
                        "Claim {k} [source](https://github.com/citegate/corpus/blob/{short}/{path}#L{s}-L{e}).\n"
                    );
                }
                (_, false) => {
                    let _ = writeln!(md, "Claim {k}, quoted: {path}:{s}-{e}\n```\n{quote}\n```\n");
                }
                (0, true) => {
                    let _ = writeln!(md, "Claim {k} is in {path}:{s}-{e}.\n");
                }
                (1, true) => {
                    let _ = writeln!(md, "Claim {k} is in [the code](../../{path}#L{s}-L{e}).\n");
                }
                _ => {
                    let _ = writeln!(md, "Claim {k} is in `{path}:{s}-{e}`.\n");
                }
            }
        }
        written += n;
        if json {
            w.put(
                &format!("docs/answers{:03}/answer{d:05}.jsonl", d / 100),
                &(answers.join("\n") + "\n"),
            )?;
        } else {
            w.put(&format!("docs/page{:03}/page{d:05}.md", d / 100), &md)?;
        }
    }
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
        live.len(),
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
