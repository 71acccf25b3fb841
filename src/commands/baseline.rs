//! `citegate baseline` (write or prune the baseline) and `citegate suppress` (write suppression
//! comments for the findings of chosen rules, then audit again).

use std::path::PathBuf;
use std::process::ExitCode;

use citegate::args::*;
use citegate::escape::printable;
use citegate::model::baseline::{self, Baseline};
use citegate::registry::RuleId;

use super::common::*;

pub fn baseline_command(mut args: BaselineArgs) -> ExitCode {
    let chosen = args.selection.baseline.clone();
    // A file named with --baseline that is not there yet is the one to write, not one to read.
    let fresh = chosen
        .as_ref()
        .is_some_and(|p| std::fs::symlink_metadata(p).is_err());
    if fresh {
        args.selection.baseline = None;
    }
    let (session, report) = match audit_in_session(args.selection, true, false) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let path = match (chosen, &session.repo.workdir) {
        (Some(p), _) => p,
        (None, Some(w)) => w.join(baseline::FILE_NAME),
        (None, None) => return failed("a bare repository: name the file with --baseline FILE"),
    };
    let old = session.settings.baseline.as_deref().filter(|_| !fresh);
    let new = match (args.prune, old) {
        (true, Some(old)) => citegate::audit::suppress::pruned(old, &report),
        (true, None) => return failed(format_args!("--prune: no baseline at {}", path.display())),
        (false, _) => citegate::audit::suppress::renewed(old, &report),
    };
    let count = |b: &Baseline| b.findings.iter().map(|e| e.count).sum::<usize>();
    let before = old.map_or(0, count);
    let text = new.render();
    let unchanged = old.is_some_and(|o| o.render() == text);
    if !unchanged {
        if let Err(e) = citegate::output::replace(&path, text.as_bytes()) {
            return failed(format_args!("{}: {e}", path.display()));
        }
    }
    let name = shown(&path).display().to_string();
    let shown = printable(&name, false);
    let after = count(&new);
    let change = match unchanged {
        true => "unchanged".to_string(),
        false => format!("{before} before"),
    };
    print_out(
        &format!("{shown}: {after} finding{} ({change})\n", plural(after)),
        ExitCode::SUCCESS,
    )
}

/// The path as the user knows it: relative to the current folder when inside it.
fn shown(path: &std::path::Path) -> PathBuf {
    let here = std::env::current_dir().ok();
    here.and_then(|h| path.strip_prefix(h).ok().map(PathBuf::from))
        .unwrap_or_else(|| path.to_path_buf())
}

/// How many findings of `rules` in Markdown docs `suppress` writes a comment for.
fn targeted(report: &citegate::model::Report, rules: &[RuleId]) -> usize {
    (report.findings.iter())
        .filter(|f| rules.contains(&f.rule))
        .filter(|f| report.docs[f.doc].doc.kind == citegate::model::DocKind::Markdown)
        .count()
}

pub fn suppress_command(args: SuppressArgs) -> ExitCode {
    let mut rules = Vec::new();
    for name in &args.rule {
        match RuleId::from_id(name) {
            Some(r) if baseline::can_suppress(r) => rules.push(r),
            Some(r) => {
                return failed(format_args!(
                    "--rule {r}: an `input` rule is never suppressed"
                ))
            }
            None => {
                return failed(format_args!(
                    "--rule {name}: no such rule (`citegate rules` lists them)"
                ))
            }
        }
    }
    if args.reason.trim().is_empty() {
        return failed("--reason: a suppression needs a reason");
    }
    let options = args.selection.options();
    let report = match citegate::audit::run(&options) {
        Ok(r) => r,
        Err(e) => return failed(chain(&e)),
    };
    let (docs, not_markdown) = citegate::fix::suppress::plan(&report, &rules, &args.reason);
    let mut out = String::new();
    for s in &docs {
        let doc = &report.docs[s.doc].doc;
        if s.lines == 0 {
            continue;
        }
        if let Err(e) =
            citegate::fix::write_atomic(&doc.fs_path, doc.text.as_bytes(), s.after.as_bytes())
        {
            return failed(format_args!("{}: {e}", printable(&doc.name, false)));
        }
        out.push_str(&format!(
            "{}: suppressed on {} line{}\n",
            printable(&doc.name, false),
            s.lines,
            plural(s.lines)
        ));
    }
    if not_markdown > 0 {
        out.push_str(&format!(
            "{not_markdown} finding{} in JSON answers left: suppression comments are Markdown's\n",
            plural(not_markdown)
        ));
    }
    // Proof: the same audit again finds none of them counting.
    let again = match citegate::audit::run(&options) {
        Ok(r) => r,
        Err(e) => return failed(chain(&e)),
    };
    let left = (again.findings.iter())
        .filter(|f| {
            rules.contains(&f.rule)
                && again.docs[f.doc].doc.kind == citegate::model::DocKind::Markdown
        })
        .count();
    // Suppressed, not merely gone: a comment written at the end of a line makes that line
    // uncommitted, and a citation checked at the commit that wrote its line is then checked at
    // the target instead, where its finding may vanish and the comment suppress nothing.
    let by_comment = |r: &citegate::model::Report| {
        (r.suppressed.iter())
            .filter(|f| rules.contains(&f.rule))
            .filter(|f| {
                matches!(
                    f.suppressed,
                    Some(citegate::model::Suppressed::Inline { .. })
                )
            })
            .count()
    };
    // Each finding targeted is now suppressed by its comment, still counting, or gone.
    let newly = by_comment(&again).saturating_sub(by_comment(&report));
    let idle = (targeted(&report, &rules))
        .saturating_sub(left)
        .saturating_sub(newly);
    if left > 0 {
        out.push_str(&format!(
            "{left} finding{} still counting after the rewrite\n",
            plural(left)
        ));
    }
    if idle > 0 {
        out.push_str(&format!(
            "{idle} finding{} not suppressed but gone: it went away with the edited line (now \
             checked at the target, not at the commit that wrote it), and its comment suppresses \
             nothing (unused-suppression); review them\n",
            plural(idle)
        ));
    }
    match left + idle {
        0 => print_out(&out, ExitCode::SUCCESS),
        _ => print_out(&out, ExitCode::from(1)),
    }
}
