//! How long citegate's Markdown extraction takes against the Markdown parser alone, on one
//! thread, over every `.md` file under a folder (benchmarks/HISTORY.md, issue 38's eighth part):
//! `cargo run --release --example extract_speed -- DIR [ROUNDS]`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use citegate::extract::{extract, ExtractContext};
use citegate::model::{Doc, DocKind};
use pulldown_cmark::Parser;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, rounds) = match args.as_slice() {
        [dir] => (dir, 5),
        [dir, n] => match n.parse::<usize>() {
            Ok(n) if n > 0 => (dir, n),
            _ => return usage(),
        },
        _ => return usage(),
    };
    let docs = match markdown_docs(Path::new(dir)) {
        Ok(docs) => docs,
        Err(e) => {
            eprintln!("extract_speed: {dir}: {e}");
            return ExitCode::from(2);
        }
    };
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let options = citegate::extract::markdown::parser_options();
    let ctx = ExtractContext::default();
    println!("{} docs, {:.1} MB", docs.len(), bytes as f64 / 1e6);
    for _ in 0..rounds {
        let t = Instant::now();
        let events: usize = (docs.iter())
            .map(|d| Parser::new_ext(&d.text, options).into_offset_iter().count())
            .sum();
        let parse = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let citations: usize = docs.iter().map(|d| extract(d, &ctx).citations.len()).sum();
        let whole = t.elapsed().as_secs_f64();
        println!(
            "parser alone {parse:.3} s ({events} events), extraction {whole:.3} s ({citations} citations): {:.1}x",
            whole / parse
        );
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: extract_speed DIR [ROUNDS]");
    ExitCode::from(2)
}

/// Every `.md` file under `dir` (not inside `.git`), read as a doc named by its path, in path order.
fn markdown_docs(dir: &Path) -> std::io::Result<Vec<Doc>> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                if entry.file_name() != ".git" {
                    folders.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)?;
            let name = path.display().to_string();
            Ok(Doc::new(path, name, None, DocKind::Markdown, text))
        })
        .collect()
}
