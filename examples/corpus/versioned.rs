//! The `versioned` shape (issue 38): a Docusaurus site whose permalinks pin many revisions of a
//! long history. `--files` source files (default 2,000) and `--commits` commits (default 3,000)
//! on `main` that edit, rename, move across folders and delete code (`evolve`, plus a move with
//! an edit every 25 commits); about 20 minor releases tagged `vX.Y.0` (annotated) on `main`, every
//! other one with a release branch `release/vX.Y.x` that forks at its tag, gets commits of its
//! own on a few files (edits, and a rename into another folder), patch tags `vX.Y.1` and `vX.Y.2`
//! (lightweight), is merged back into `main` (a merge commit whose second parent carries the
//! rename) and gets one more commit after the merge; every 97th commit of `main` is cited by its
//! full SHA. The docs commit writes `docs/` (the current version, pinned at `main` or a full
//! SHA), `versioned_docs/version-X.Y/` (pinned at that minor's tags, branch and SHAs) and
//! `versions.json`: `--docs` pages (default 550) of one to three GitHub permalinks each (about
//! 1,100), as links, bare URLs, links followed by a quote fence, or claims with an inline-code
//! literal, with `--mix` of valid, stale, invented and unsupported at the pinned revision (most
//! pinned citations then drift against the target, as real versioned docs do).

use std::fmt::Write as _;
use std::path::Path;

use git2::{Oid, Repository};

use super::{
    edit, evolve, live_and_older, pick, text_of, Args, Kind, Snapshot, Writer, EXTENSIONS, FILLER,
};

/// A revision the docs pin: its name in a permalink, its commit and files, the files alive in
/// it, and the minor version whose docs cite it (`minors`: the current docs).
struct Rev {
    name: String,
    at: (Oid, Snapshot),
    live: Vec<usize>,
    version: usize,
}

impl Rev {
    fn new(name: String, id: Oid, files: &Snapshot, version: usize) -> Rev {
        let at = (id, files.clone());
        let (live, _) = live_and_older(std::slice::from_ref(&at));
        Rev {
            name,
            at,
            live,
            version,
        }
    }
}

/// A release branch while it is worked on: its own writer (an index of its own) and files, the
/// files it changes (left alone on `main` until the merge), and how many commits it has.
struct Branch<'a> {
    w: Writer<'a>,
    files: Snapshot,
    locked: Vec<usize>,
    minor: usize,
    commits: usize,
}

/// The release schedule: `minors` minor versions, tagged evenly along `main`.
struct Schedule {
    minors: usize,
    commits: usize,
}

impl Schedule {
    /// The commit of `main` that minor `m`'s `.0` tag is on.
    fn tag_at(&self, m: usize) -> usize {
        (m + 1) * self.commits / (self.minors + 1)
    }

    /// Main commits between two commits of a release branch.
    fn step(&self) -> usize {
        (self.commits / (self.minors + 1) / 8).max(1)
    }
}

/// `X.Y` of minor `m`.
fn version(m: usize) -> String {
    format!("{}.{}", 1 + m / 10, m % 10)
}

pub fn run(mut args: Args) -> Result<(), Box<dyn std::error::Error>> {
    if !args.commits_given {
        args.commits = 3_000;
    }
    if !args.docs_given {
        args.docs = 550;
    }
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
    let mut files = w.first_files(&mut rng, args.files)?;
    w.commit("initial import")?;
    let plan = Schedule {
        minors: (args.commits / 150).clamp(2, 20),
        commits: args.commits,
    };
    let mut notes = Notes {
        left: if args.history_docs { NOTES } else { 0 },
        rng: fastrand::Rng::with_seed(args.seed ^ 0x6e6f_7465),
        rows: String::new(),
    };
    let mut revs = history(
        &repo, &mut w, &mut files, &mut rng, &plan, &mut notes, &args,
    )?;
    let head = w.parent.expect("a commit");
    revs.push(Rev::new("main".into(), head, &files, plan.minors));
    let (mut rows, written) = write_docs(&mut w, &args, &mut rng, &plan, &revs)?;
    rows.push_str(&notes.rows);
    w.commit("docs")?;
    finish(w, &args, rows)?;
    let distinct: std::collections::BTreeSet<Oid> = revs.iter().map(|r| r.at.0).collect();
    println!(
        "{}: {} files, {} commits, {} tags, {} revisions named ({} commits), {written} citations in {} docs",
        dir.display(),
        files.iter().flatten().count(),
        commit_count(&repo)?,
        repo.tag_names(None)?.len(),
        revs.len(),
        distinct.len(),
        args.docs
    );
    Ok(())
}

/// How many notes `--history-docs` commits across the history.
const NOTES: usize = 18;

/// The notes still to write across the history (`--history-docs`), drawn from their own random
/// sequence so the rest of the corpus is the same with or without them, and their TSV rows.
struct Notes {
    left: usize,
    rng: fastrand::Rng,
    rows: String,
}

impl Notes {
    /// After commit `c` (`id`): the next note, citing that commit's code without a revision,
    /// staged to be committed with the next change, when one is due.
    fn after(
        &mut self,
        w: &mut Writer<'_>,
        args: &Args,
        plan: &Schedule,
        (c, id): (usize, Oid),
        files: &Snapshot,
    ) -> Result<(), git2::Error> {
        let every = (plan.commits / (NOTES + 1)).max(1);
        if self.left == 0 || !c.is_multiple_of(every) {
            return Ok(());
        }
        self.left -= 1;
        let r = Rev::new(id.to_string(), id, files, 0);
        let mut md = format!("# Note {c}\n\n{}\n\n", FILLER[c % FILLER.len()]);
        for k in 0..2 + self.rng.usize(..3) {
            let at = std::slice::from_ref(&r.at);
            let p = pick(k, args, &mut self.rng, Some(id), at, &r.live, 1);
            let _ = writeln!(md, "The code is in `{}:{}-{}`.\n", p.path, p.s, p.e);
            let quoted = serde_json::to_string(&p.quote).unwrap_or_default();
            let _ = writeln!(self.rows, "{id}\t{}\t{}\t{}\t{quoted}", p.path, p.s, p.e);
        }
        w.put(&format!("docs/notes/note-{c:05}.md"), &md)
    }
}

/// The number of commits reachable from HEAD.
fn commit_count(repo: &Repository) -> Result<usize, git2::Error> {
    let mut walk = repo.revwalk()?;
    walk.push_head()?;
    Ok(walk.count())
}

/// `main`'s history with its releases: every revision a permalink will name.
fn history<'a>(
    repo: &'a Repository,
    w: &mut Writer<'a>,
    files: &mut Snapshot,
    rng: &mut fastrand::Rng,
    plan: &Schedule,
    notes: &mut Notes,
    args: &Args,
) -> Result<Vec<Rev>, Box<dyn std::error::Error>> {
    let mut revs = Vec::new();
    let mut branch: Option<Branch<'a>> = None;
    let mut minor = 0;
    for c in 1..plan.commits {
        let locked = (branch.as_ref())
            .filter(|b| b.commits < 6)
            .map(|b| b.locked.clone())
            .unwrap_or_default();
        evolve(w, files, rng, c, &locked)?;
        if c.is_multiple_of(25) {
            move_across(w, files, rng, c, &locked)?;
        }
        let id = w.commit(&format!("change {c}"))?;
        notes.after(w, args, plan, (c, id), files)?;
        if c.is_multiple_of(97) {
            // Cited by the docs of the last release before it (the current docs before the first
            // and after the last).
            let v = match minor {
                0 => plan.minors,
                m if m == plan.minors => m,
                m => m - 1,
            };
            revs.push(Rev::new(id.to_string(), id, files, v));
        }
        if branch.is_some() && c.is_multiple_of(plan.step()) {
            let done = branch_commit(repo, w, files, branch.as_mut().expect("a branch"), rng, c)?;
            revs.extend(done);
            if branch.as_ref().is_some_and(|b| b.commits == 7) {
                branch = None;
            }
        }
        if minor < plan.minors && c == plan.tag_at(minor) {
            let name = format!("v{}.0", version(minor));
            let when = git2::Time::new(1_767_225_600 + c as i64 * 3600, 0);
            let sig = git2::Signature::new("citegate corpus", "corpus@citegate.invalid", &when)?;
            repo.tag(&name, &repo.find_object(id, None)?, &sig, &name, false)?;
            revs.push(Rev::new(name, id, files, minor));
            if minor % 2 == 1 && branch.is_none() {
                branch = Some(fork(repo, w, files, rng, minor)?);
            }
            minor += 1;
        }
    }
    Ok(revs)
}

/// Move one file of `main` into another folder, with an edit (a rename git still detects).
fn move_across(
    w: &mut Writer<'_>,
    files: &mut Snapshot,
    rng: &mut fastrand::Rng,
    c: usize,
    locked: &[usize],
) -> Result<(), git2::Error> {
    let i = rng.usize(..files.len());
    let Some(f) = files[i].as_mut().filter(|_| !locked.contains(&i)) else {
        return Ok(());
    };
    w.index.remove_path(Path::new(&f.path))?;
    let ext = f.path.rsplit('.').next().unwrap_or("rs").to_string();
    f.path = format!("src/mod{:02}/moved{i:05}_{c}.{ext}", rng.usize(..64));
    edit(w, f, rng, c)
}

/// A release branch of minor `m` forking at `main`'s last commit, with eight of its files to
/// change.
fn fork<'a>(
    repo: &'a Repository,
    w: &Writer<'a>,
    files: &Snapshot,
    rng: &mut fastrand::Rng,
    m: usize,
) -> Result<Branch<'a>, git2::Error> {
    let mut index = git2::Index::new()?;
    for e in w.index.iter() {
        index.add(&e)?;
    }
    let live: Vec<usize> = (0..files.len()).filter(|i| files[*i].is_some()).collect();
    let mut locked: Vec<usize> = (0..8).map(|_| live[rng.usize(..live.len())]).collect();
    locked.sort_unstable();
    locked.dedup();
    Ok(Branch {
        w: Writer {
            repo,
            index,
            parent: w.parent,
            count: w.count,
        },
        files: files.clone(),
        locked,
        minor: m,
        commits: 0,
    })
}

/// The branch's next commit (main is at commit `c`): edits to its files, a rename into another
/// folder at the second, patch tags at the third and sixth, the merge into `main` after the
/// sixth; the seventh comes after the merge and ends the branch. The revisions it names.
fn branch_commit<'a>(
    repo: &'a Repository,
    w: &mut Writer<'a>,
    files: &mut Snapshot,
    b: &mut Branch<'a>,
    rng: &mut fastrand::Rng,
    c: usize,
) -> Result<Vec<Rev>, Box<dyn std::error::Error>> {
    b.commits += 1;
    let name = format!("release/v{}.x", version(b.minor));
    for _ in 0..2 {
        let i = b.locked[rng.usize(..b.locked.len())];
        if let Some(f) = b.files[i].as_mut() {
            edit(&mut b.w, f, rng, c)?;
        }
    }
    if b.commits == 2 {
        let i = b.locked[0];
        if let Some(f) = b.files[i].as_mut() {
            b.w.index.remove_path(Path::new(&f.path))?;
            f.path = format!("src/release{}/kept{i:05}.{}", b.minor, EXTENSIONS[i % 5]);
            b.w.put(&f.path, &text_of(&f.lines))?;
        }
    }
    let message = format!("{name}: fix {}", b.commits);
    let id =
        b.w.commit_to(&format!("refs/heads/{name}"), &message, None)?;
    let mut revs = Vec::new();
    if matches!(b.commits, 3 | 6) {
        let tag = format!("v{}.{}", version(b.minor), b.commits / 3);
        repo.tag_lightweight(&tag, &repo.find_object(id, None)?, false)?;
        revs.push(Rev::new(tag, id, &b.files, b.minor));
    }
    if b.commits == 6 {
        for &i in &b.locked {
            if let Some(f) = &files[i] {
                w.index.remove_path(Path::new(&f.path))?;
            }
            if let Some(f) = &b.files[i] {
                w.put(&f.path, &text_of(&f.lines))?;
            }
            files[i] = b.files[i].clone();
        }
        w.commit_to("HEAD", &format!("Merge branch '{name}'"), Some(id))?;
    }
    if b.commits == 7 {
        revs.push(Rev::new(name, id, &b.files, b.minor));
    }
    Ok(revs)
}

/// The site's pages: page `d` belongs to version `d % (minors + 1)` (the last: the current docs)
/// and cites one to three files at that version's revisions. The TSV rows and the citations.
fn write_docs(
    w: &mut Writer<'_>,
    args: &Args,
    rng: &mut fastrand::Rng,
    plan: &Schedule,
    revs: &[Rev],
) -> Result<(String, usize), git2::Error> {
    let mut rows = String::new();
    let mut written = 0;
    let versions: Vec<String> = (0..plan.minors).rev().map(version).collect();
    w.put(
        "versions.json",
        &(serde_json::to_string_pretty(&versions).unwrap_or_default() + "\n"),
    )?;
    for d in 0..args.docs {
        let v = d % (plan.minors + 1);
        let cands: Vec<&Rev> = revs.iter().filter(|r| r.version == v).collect();
        let section = ["guides", "reference", "api", "internals"][d / (plan.minors + 1) % 4];
        let path = match v == plan.minors {
            true => format!("docs/{section}/page-{d:04}.md"),
            false => format!(
                "versioned_docs/version-{}/{section}/page-{d:04}.md",
                version(v)
            ),
        };
        let mut md = format!(
            "---\nid: page-{d:04}\ntitle: Page {d}\nsidebar_position: {}\n---\n\n# Page {d}\n\n{}\n\n",
            d / (plan.minors + 1),
            FILLER[d % FILLER.len()]
        );
        for k in 0..1 + rng.usize(..3) {
            let r = cands[rng.usize(..cands.len())];
            let (text, row) = citation(k, args, rng, r);
            let _ = writeln!(md, "{} {text}\n", FILLER[(d + k + 1) % FILLER.len()]);
            rows.push_str(&row);
            written += 1;
        }
        w.put(&path, &md)?;
    }
    Ok((rows, written))
}

/// Citation `k` at revision `r`: its Markdown (a permalink as a link, a bare URL, a link and its
/// quote fence, or a claim with a literal; unsupported ones always carry a quote or a literal)
/// and its TSV row.
fn citation(k: usize, args: &Args, rng: &mut fastrand::Rng, r: &Rev) -> (String, String) {
    let p = pick(
        k,
        args,
        rng,
        Some(r.at.0),
        std::slice::from_ref(&r.at),
        &r.live,
        1,
    );
    let url = format!(
        "https://github.com/citegate/corpus/blob/{}/{}#L{}-L{}",
        r.name, p.path, p.s, p.e
    );
    let base = p.path.rsplit('/').next().unwrap_or(&p.path);
    let syntax = match p.kind {
        Kind::Unsupported if p.literal.is_empty() || k.is_multiple_of(2) => 1,
        Kind::Unsupported => 2,
        _ => k % 4,
    };
    let text = match syntax {
        1 if !p.quote.is_empty() => format!("See [{base}]({url}):\n\n```\n{}\n```", p.quote),
        2 if !p.literal.is_empty() => {
            format!("The value `{}` is set in [{base}]({url}).", p.literal)
        }
        3 => format!("See {url}."),
        _ => format!("See [{base}]({url})."),
    };
    let quoted = serde_json::to_string(&p.quote).unwrap_or_default();
    let row = format!("{}\t{}\t{}\t{}\t{quoted}\n", r.at.0, p.path, p.s, p.e);
    (text, row)
}

/// Check the docs out, write the TSV and pack the repository.
fn finish(w: Writer<'_>, args: &Args, rows: String) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::write(
        format!("{}.citations.tsv", args.dir.trim_end_matches('/')),
        rows,
    )?;
    w.check_out_and_pack(Path::new(&args.dir), false)?;
    Ok(())
}
