//! How long reading `REV:PATH` objects takes with libgit2 on one thread and on several, each
//! thread with a repository handle of its own (benchmarks/HISTORY.md, issue 38's ninth part; the
//! reason `resolve::reads` reads on every core): `cargo run --release --example read_speed --
//! REPO LIST [ROUNDS]`, where LIST holds one `REV:PATH` per line (the object-read floor's input).

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use git2::{Oid, Repository};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (repo, list, rounds) = match args.as_slice() {
        [repo, list] => (repo, list, 5),
        [repo, list, n] => match n.parse::<usize>() {
            Ok(n) if n > 0 => (repo, list, n),
            _ => return usage(),
        },
        _ => return usage(),
    };
    let items = match std::fs::read_to_string(list) {
        Ok(text) => text
            .lines()
            .filter_map(|l| l.split_once(':'))
            .filter_map(|(rev, path)| Some((Oid::from_str(rev).ok()?, path.to_string())))
            .collect::<Vec<_>>(),
        Err(e) => {
            eprintln!("read_speed: {list}: {e}");
            return ExitCode::from(2);
        }
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    println!("{} objects; median of {rounds} rounds", items.len());
    for n in [1, threads] {
        let mut times: Vec<Duration> = Vec::new();
        let mut bytes = 0;
        for _ in 0..rounds {
            let start = Instant::now();
            bytes = match read_all(Path::new(repo), &items, n) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("read_speed: {repo}: {}", e.message());
                    return ExitCode::from(2);
                }
            };
            times.push(start.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        println!("{n} thread(s): {median:.2?} ({bytes} bytes)");
    }
    ExitCode::SUCCESS
}

/// Read every item's blob on `threads` threads, each over a contiguous share with its own handle.
fn read_all(repo: &Path, items: &[(Oid, String)], threads: usize) -> Result<usize, git2::Error> {
    let share = items.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let jobs: Vec<_> = items
            .chunks(share)
            .map(|part| s.spawn(move || read_part(repo, part)))
            .collect();
        jobs.into_iter()
            .map(|j| j.join().expect("reader thread"))
            .sum()
    })
}

fn read_part(repo: &Path, part: &[(Oid, String)]) -> Result<usize, git2::Error> {
    let git = Repository::open(repo)?;
    let mut bytes = 0;
    for (rev, path) in part {
        let tree = git.find_commit(*rev)?.tree()?;
        if let Ok(entry) = tree.get_path(Path::new(path)) {
            bytes += git.find_blob(entry.id()).map_or(0, |b| b.content().len());
        }
    }
    Ok(bytes)
}

fn usage() -> ExitCode {
    eprintln!("usage: read_speed REPO LIST [ROUNDS]");
    ExitCode::from(2)
}
