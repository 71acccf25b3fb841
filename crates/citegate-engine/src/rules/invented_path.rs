//! `invented-path`: the cited file does not exist at the revision the citation resolves at.
//!
//! What it checks, why, and its fix safety: `rules/invented-path.yaml` (`citegate explain invented-path`).

use super::context::{did_you_mean, Subject};
use crate::check::{FileFacts, SameName};
use crate::fix::Relocation;
use crate::model::{CitedPath, Finding, Syntax};
use crate::registry::RuleId;

/// The cited file does not exist at the revision: with the closest existing paths as help.
pub(super) fn check(subject: &Subject<'_>, path: &str, file: &FileFacts) -> Option<Finding> {
    let FileFacts::Missing {
        suggestions,
        from_root,
        same_name,
    } = file
    else {
        return None;
    };
    let Some(root) = from_root else {
        return Some(match same_name {
            Some(same) => basename(subject, path, same),
            None => finding(subject, path, suggestions),
        });
    };
    // Written from the repository root in a nested folder: GitHub resolves it from the doc's
    // folder and it 404s. The file exists: the fix writes the link relative to the doc.
    let f = subject
        .finding(
            RuleId::InventedPath,
            format!("`{path}` does not exist at {}", subject.short_rev()),
        )
        .help(format!(
            "the link is written from the repository root: `{root}` exists, but links resolve from the doc's folder; the fix writes it relative to the doc"
        ));
    let to = Relocation {
        path: Some(root.clone()),
        ..Relocation::default()
    };
    Some(subject.with_fix(f, to))
}

/// A file cited by its name alone (`storage.go:33-36`), which one file of the revision has
/// (`cmd/bd/storage.go`): the help names it and says whether the cited lines are there; when
/// the citation's quote is in them, the full path is a safe fix (re-checked as every fix is).
fn basename(subject: &Subject<'_>, path: &str, same: &SameName) -> Finding {
    let rev = subject.short_rev();
    let name = path.rsplit('/').next().unwrap_or(path);
    let f = subject.finding(
        RuleId::InventedPath,
        format!("`{path}` does not exist at {rev}"),
    );
    let only = format!("`{}` is the only file named `{name}` at {rev}", same.path);
    let lines = subject.citation.lines;
    let holds = match (same.line_count, lines) {
        (None, _) => return f.help(format!("{only}, and it is not text")),
        (Some(_), None) => true,
        (Some(count), Some(r)) => r.start >= 1 && r.start <= r.end && r.end as usize <= count,
    };
    let cited = lines.map_or("the file".to_string(), |r| r.named());
    if !holds {
        let count = same.line_count.unwrap_or(0);
        return f.help(format!(
            "{only}, but it has only {count} lines (the citation cites {cited})"
        ));
    }
    if !same.verified {
        return f.help(format!(
            "{only}, and it has {cited}, but no quote shows they hold the cited content: write its full path if they do"
        ));
    }
    let f = f.help(format!(
        "{only}, and the quoted content is in its {cited}: the fix writes its full path"
    ));
    let to = Relocation {
        path: Some(same.path.clone()),
        ..Relocation::default()
    };
    subject.with_fix(f, to)
}

fn finding(subject: &Subject<'_>, path: &str, suggestions: &[String]) -> Finding {
    let f = subject.finding(
        RuleId::InventedPath,
        format!("`{path}` does not exist at {}", subject.short_rev()),
    );
    let mut f = did_you_mean(f, suggestions);
    if subject.citation.syntax == Syntax::Snippet {
        // pymdownx.snippets' `check_paths` is off unless the site turns it on: the build then
        // renders nothing where the file should be, and passes. Reported all the same.
        let unchecked = "the site build will not catch it unless pymdownx.snippets has `check_paths: true` in mkdocs.yml (off by default: the snippet renders as nothing)";
        let help = match f.help.take() {
            Some(h) => format!("{h}; {unchecked}"),
            None => unchecked.to_string(),
        };
        f = f.help(help);
    }
    f
}

/// The citation names no file at all (an exporter bug such as `blob/SHA/110-111`).
pub(super) fn check_no_path(subject: &Subject<'_>) -> Option<Finding> {
    if subject.citation.path != CitedPath::Missing {
        return None;
    }
    let f = subject
        .finding(
            RuleId::InventedPath,
            "this citation names no file, only lines",
        )
        .help("the link was exported without its file path: cite the file the lines are in");
    Some(f)
}
