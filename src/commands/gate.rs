//! `citegate gate` and `citegate replay`: answers checked as they leave, traces re-checked.

use std::path::PathBuf;
use std::process::ExitCode;

use citegate::args::*;
use citegate::audit::{self};
use citegate::escape::printable;
use citegate::gate;
use citegate::regenerate;

use super::common::*;

pub fn gate_command(args: GateArgs) -> ExitCode {
    let fail = |e: String| failed(format_args!("{e}"));
    let opened = open_configured(
        args.repo.as_deref(),
        args.target.as_deref(),
        args.config.as_ref(),
    );
    let (repo, target, settings) = match opened {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let retrieved = match args.retrieved.as_deref().map(read_retrieved).transpose() {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let retrieval = gate::Retrieval::asked(retrieved.as_deref(), args.no_retrieval);
    let gate = gate::Gate::new(&repo, target, &settings);
    let exit = |passed: bool| match passed {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    };
    if args.jsonl {
        let mut stdout = std::io::stdout().lock();
        return match gate::service::stream(&gate, std::io::stdin(), &mut stdout, retrieval) {
            Ok(passed) => exit(passed),
            Err(e) => fail(format!("standard input: {e}")),
        };
    }
    match gate::service::one(&gate, &mut std::io::stdin().lock(), retrieval) {
        Ok(g) => {
            if args.no_retrieval && g.passed {
                eprintln!("citegate: note: cited ⊆ retrieved was not checked (--no-retrieval)");
            }
            print_out(&g.output, exit(g.passed))
        }
        Err(e) => fail(e),
    }
}

/// The repository, the target and the settings (`--config`, else `.citegate.yaml`) of a command
/// that checks answers: `gate`, `replay`.
pub fn open_configured(
    repo: Option<&std::path::Path>,
    rev: Option<&str>,
    config: Option<&PathBuf>,
) -> Result<(citegate::resolve::CodeRepo, git2::Oid, audit::Settings), String> {
    let start = repo.unwrap_or(std::path::Path::new("."));
    let s = audit::Session::at(start, rev, config).map_err(|e| chain(&e))?;
    Ok((s.repo, s.target, s.settings))
}

pub fn replay_command(args: ReplayArgs) -> ExitCode {
    let fail = |e: String| failed(format_args!("{e}"));
    let (repo, _, settings) = match open_configured(args.repo.as_deref(), None, None) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let text = match std::fs::read_to_string(&args.trace) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: {e}", args.trace.display())),
    };
    let t = regenerate::trace::replay(&repo, &settings, &text);
    let out = match args.json {
        true => serde_json::to_string_pretty(&t).unwrap_or_default() + "\n",
        false => printable(&regenerate::trace::render(&t), true).into_owned(),
    };
    // A record not replayed (its revision is not here, an unreadable line) leaves the taxonomy
    // incomplete: exit 2. A verdict that differs from the recorded one means the gate (or the
    // code) changed: exit 1.
    let exit = match (t.incomplete(), t.verdicts_changed) {
        (true, _) => ExitCode::from(2),
        (false, 0) => ExitCode::SUCCESS,
        (false, _) => ExitCode::from(1),
    };
    print_out(&out, exit)
}

pub fn read_retrieved(path: &std::path::Path) -> Result<Vec<citegate::model::Retrieved>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
    // An entry's path is the payload writer's: shown without terminal controls.
    citegate::contract::payload_of(&value)
        .map_err(|e| format!("{}: {}", path.display(), printable(&e.to_string(), false)))
}
