//! The commands that describe citegate (rules, completions, man page; `explain` has its own
//! file) and the servers (MCP, LSP).

use std::process::ExitCode;

use clap::CommandFactory;

use citegate::args::*;
use citegate::registry::RuleId;

use super::common::{failed, print_out};

pub fn rules() -> ExitCode {
    let mut out = String::new();
    for rule in RuleId::ALL {
        let info = rule.info();
        out.push_str(&format!(
            "{:<20} {:<12} {:<8} {}\n",
            rule.as_str(),
            info.family.as_str(),
            info.severity.as_str(),
            info.summary
        ));
    }
    print_out(&out, ExitCode::SUCCESS)
}

pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "citegate", &mut out);
    print_out(&String::from_utf8_lossy(&out), ExitCode::SUCCESS)
}

pub fn man() -> ExitCode {
    let mut out = Vec::new();
    match clap_mangen::Man::new(Cli::command()).render(&mut out) {
        Ok(()) => print_out(&String::from_utf8_lossy(&out), ExitCode::SUCCESS),
        Err(e) => failed(e),
    }
}

#[cfg(feature = "mcp")]
pub fn mcp(args: McpArgs) -> ExitCode {
    let root = args.repo.unwrap_or_else(|| std::path::PathBuf::from("."));
    match citegate::mcp::serve(root) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failed(format_args!("mcp: {e}")),
    }
}

#[cfg(feature = "lsp")]
pub fn lsp() -> ExitCode {
    match citegate::lsp::serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failed(format_args!("lsp: {}", citegate::error::chain(&e))),
    }
}
