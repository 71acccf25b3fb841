//! The commands: one module each, run from `main` by [`run`]; what they share is in `common`.

mod audit;
mod baseline;
mod common;
mod explain;
mod fix;
mod gate;
mod info;
mod mdbook;
mod regenerate;
mod review;
mod sweep;

use std::process::ExitCode;

use citegate::args::*;

use common::print_out;

/// Run one command; its exit code (0: no error finding, 1: error findings, 2: the run failed).
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Audit(args) => audit::audit_command(args),
        Command::Fix(args) => fix::fix_command(args),
        Command::Sweep(args) => sweep::sweep_command(args),
        Command::Baseline(args) => baseline::baseline_command(args),
        Command::Suppress(args) => baseline::suppress_command(args),
        Command::Merge(args) => sweep::merge_command(args),
        Command::Regenerate(args) => regenerate::regenerate_command(args),
        Command::Retrieve(args) => regenerate::retrieve_command(args),
        Command::Gate(args) => gate::gate_command(args),
        Command::Replay(args) => gate::replay_command(args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => info::mcp(args),
        #[cfg(feature = "lsp")]
        Command::Lsp(_) => info::lsp(),
        Command::Mdbook(args) => mdbook::mdbook_command(args),
        Command::Rules => info::rules(),
        Command::Completions { shell } => info::completions(shell),
        Command::Man => info::man(),
        Command::ConfigSchema => print_out(&citegate::config::json_schema(), ExitCode::SUCCESS),
        Command::Explain { id } => explain::explain(&id),
    }
}
