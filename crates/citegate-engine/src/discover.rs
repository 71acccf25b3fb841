//! Discovery: the doc files to audit. Folders are walked honouring `.gitignore` (and skipping
//! hidden files, except Cursor's `.cursor/` folder, where its rules live), keeping Markdown
//! (`*.md`, `*.mdx`, Cursor rules `*.mdc`) and answer files (`*.json`, `*.jsonl`).
//! Ignore rules apply to untracked files only, as in Git: a tracked doc that matches one is
//! audited all the same.
//! Files named explicitly are always audited (a symbolic link, a FIFO or a device among them is
//! reported by the loader, never read).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::WalkState;

use rayon::prelude::*;

use crate::model::DocKind;

/// A doc file to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DocFile {
    /// The file, as walked or as given.
    pub path: PathBuf,
    /// What kind of doc its extension says it is (a file named explicitly with another: Markdown).
    pub kind: DocKind,
}

/// A PATH argument that could not be walked.
#[derive(Debug)]
pub struct DiscoverError {
    /// The path as given.
    pub path: PathBuf,
    /// Why it could not be walked.
    pub error: String,
}

/// The docs under `paths`, sorted and without duplicates. Walked files must pass `wanted` (the
/// configuration's include/exclude globs, over the path as walked); files named explicitly are
/// always audited. `tracked` gives the absolute paths of the files Git tracks (the index), found
/// under a walked folder even where an ignore rule would skip them; it is called on another
/// thread of the current rayon pool while the folders are walked.
pub fn discover(
    paths: &[PathBuf],
    wanted: &(dyn Fn(&Path) -> bool + Sync),
    tracked: &(dyn Fn() -> Vec<PathBuf> + Sync),
) -> Result<Vec<DocFile>, DiscoverError> {
    let (walked, tracked) = rayon::join(|| walk(paths, wanted), tracked);
    let (mut out, folders) = walked?;
    // A tracked doc the walk found is already listed, as it would be from the index.
    let walked: HashSet<PathBuf> = out.iter().map(|f| f.path.clone()).collect();
    for root in folders {
        out.extend(tracked_under(root, &tracked, wanted, &walked));
    }
    out.par_sort();
    out.dedup_by(|a, b| a.path == b.path);
    Ok(out)
}

/// The files named in `paths` and the docs walked under its folders, with those folders.
fn walk<'a>(
    paths: &'a [PathBuf],
    wanted: &(dyn Fn(&Path) -> bool + Sync),
) -> Result<(Vec<DocFile>, Vec<&'a Path>), DiscoverError> {
    let mut out = Vec::new();
    let mut folders = Vec::new();
    for root in paths {
        // Not followed: a link named explicitly is reported by the loader, never read through.
        let meta = std::fs::symlink_metadata(root).map_err(|e| DiscoverError {
            path: root.clone(),
            error: e.to_string(),
        })?;
        if !meta.is_dir() {
            out.push(DocFile {
                path: root.clone(),
                kind: DocKind::from_path(root).unwrap_or(DocKind::Markdown),
            });
            continue;
        }
        out.extend(walk_folder(root, wanted)?);
        folders.push(root.as_path());
    }
    Ok((out, folders))
}

/// The docs under the folder `root`, walked on as many threads as the current rayon pool has
/// (the walker's own), in no order. Any entry that cannot be read fails the walk: the first of
/// their messages in sorted order is given, whichever thread met it first.
fn walk_folder(
    root: &Path,
    wanted: &(dyn Fn(&Path) -> bool + Sync),
) -> Result<Vec<DocFile>, DiscoverError> {
    let found = Mutex::new(Vec::new());
    let failed = Mutex::new(Vec::new());
    let visit = |entry: Result<ignore::DirEntry, ignore::Error>| {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                failed.lock().expect("walk errors").push(e.to_string());
                return WalkState::Continue;
            }
        };
        if entry.file_type().is_some_and(|t| t.is_file()) {
            let path = clean(entry.path());
            if let Some(kind) = walked_kind(&path).filter(|_| wanted(&path)) {
                found
                    .lock()
                    .expect("walked docs")
                    .push(DocFile { path, kind });
            }
        }
        WalkState::Continue
    };
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .follow_links(false)
        .hidden(false)
        .filter_entry(|e| e.depth() == 0 || !hidden(&e.file_name().to_string_lossy()))
        .threads(rayon::current_num_threads())
        .build_parallel()
        .run(|| Box::new(visit));
    let failed = failed.into_inner().expect("walk errors");
    match failed.into_iter().min() {
        Some(error) => Err(DiscoverError {
            path: root.to_path_buf(),
            error,
        }),
        None => Ok(found.into_inner().expect("walked docs")),
    }
}

/// The tracked docs under the folder `root` that the walk did not list (`walked`), named from it
/// as the walk names files; hidden files and folders are skipped as the walk skips them, and only
/// regular files are kept.
fn tracked_under<'a>(
    root: &'a Path,
    tracked: &'a [PathBuf],
    wanted: &'a dyn Fn(&Path) -> bool,
    walked: &'a HashSet<PathBuf>,
) -> impl Iterator<Item = DocFile> + 'a {
    let abs = root.canonicalize().ok();
    tracked.iter().filter_map(move |t| {
        let rel = t.strip_prefix(abs.as_ref()?).ok()?;
        let hidden = rel
            .components()
            .any(|c| hidden(&c.as_os_str().to_string_lossy()));
        let path = clean(&root.join(rel));
        if walked.contains(&path) {
            return None;
        }
        let kind = walked_kind(&path)?;
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        (!hidden && regular && wanted(&path)).then_some(DocFile { path, kind })
    })
}

/// Hidden folders the walk enters all the same: where coding agents keep the instructions they
/// read (Cursor's `.cursor/rules`, GitHub Copilot's `.github/copilot-instructions.md` and
/// `.github/instructions/`, Claude Code's `.claude/` commands, agents and skills, opencode's
/// `.opencode/`, Windsurf's `.windsurf/rules`, Cline's `.clinerules/`, Google Antigravity's
/// `.agent/rules` and `.agent/workflows`, Kiro's `.kiro/steering`, Roo Code's `.roo/rules`).
const AGENT_FOLDERS: [&str; 9] = [
    ".cursor",
    ".github",
    ".claude",
    ".opencode",
    ".windsurf",
    ".clinerules",
    ".agent",
    ".kiro",
    ".roo",
];

/// Agent instruction files without an extension, read as Markdown: Cline's `.clinerules` and
/// Windsurf's `.windsurfrules` (each may be a file instead of a folder).
const AGENT_FILES: [&str; 2] = [".clinerules", ".windsurfrules"];

/// The kind of a walked file, if it is a doc: under an agent's folder only Markdown (the
/// instructions), not the tools' JSON settings (`.cursor/mcp.json`, `.claude/settings.json`).
fn walked_kind(path: &Path) -> Option<DocKind> {
    let name = path.file_name()?.to_str()?;
    if AGENT_FILES.contains(&name) {
        return Some(DocKind::Markdown);
    }
    let kind = DocKind::from_path(path)?;
    let agents = (path.components()).any(|c| AGENT_FOLDERS.iter().any(|f| c.as_os_str() == *f));
    (!agents || kind == DocKind::Markdown).then_some(kind)
}

/// A hidden file or folder, which the walk skips: agents' folders and files ([`AGENT_FOLDERS`],
/// [`AGENT_FILES`]) are walked all the same, as what they hold are docs an agent reads.
fn hidden(name: &str) -> bool {
    name.starts_with('.') && !AGENT_FOLDERS.contains(&name) && !AGENT_FILES.contains(&name)
}

fn clean(path: &Path) -> PathBuf {
    path.strip_prefix("./").unwrap_or(path).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_walked_on_several_threads_lists_each_wanted_doc_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut expected = Vec::new();
        for f in 0..12 {
            for d in 0..9 {
                let folder = root.join(format!("wiki{f}"));
                std::fs::create_dir_all(&folder).unwrap();
                let doc = folder.join(format!("page{d}.md"));
                std::fs::write(&doc, "text").unwrap();
                std::fs::write(folder.join(format!("code{d}.rs")), "fn a() {}").unwrap();
                std::fs::write(folder.join(format!("skip{d}.md")), "text").unwrap();
                expected.push(doc);
            }
        }
        for hidden in [".git/x.md", ".hidden/y.md"] {
            let path = root.join(hidden);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "text").unwrap();
        }
        let cursor = root.join(".cursor/rules/r.mdc");
        std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
        std::fs::write(&cursor, "text").unwrap();
        std::fs::write(root.join(".cursor/mcp.json"), "{}").unwrap();
        expected.push(cursor);
        // Issue 58: where other agents keep their instructions; not their JSON settings.
        for agent in [
            ".github/copilot-instructions.md",
            ".github/instructions/rust.instructions.md",
            ".claude/commands/review.md",
            ".claude/skills/cite/SKILL.md",
            ".opencode/agent/docs.md",
            ".windsurf/rules/style.md",
            ".agent/workflows/resolve-conflict.md",
            ".kiro/steering/structure.md",
            ".roo/rules/style.md",
            ".clinerules",
            "sub/.windsurfrules",
            "deep/er/AGENTS.md",
        ] {
            let path = root.join(agent);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "text").unwrap();
            expected.push(path);
        }
        for settings in [".claude/settings.json", ".github/renovate.json"] {
            std::fs::write(root.join(settings), "{}").unwrap();
        }
        expected.sort();
        let wanted = |p: &Path| !p.to_string_lossy().contains("skip");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        for _ in 0..3 {
            let mut walked = pool.install(|| walk_folder(root, &wanted)).unwrap();
            walked.sort();
            let paths: Vec<&PathBuf> = walked.iter().map(|f| &f.path).collect();
            assert_eq!(paths, expected.iter().collect::<Vec<_>>());
        }
    }
}
