//! The `citegate` binary: parses the command line (`citegate::args`), runs the command
//! (`commands/`, one module each) and exits with its code (0: no error finding, 1: error
//! findings, 2: the run failed).

mod commands;

use std::process::ExitCode;

use citegate::args::Command;
use clap::Parser;

fn main() -> ExitCode {
    let command = citegate::args::Cli::parse().command;
    if !serves(&command) {
        widen_heap_growth();
    }
    // An interrupt during `fix` or `regenerate --write` leaves no temporary file behind (the
    // docs themselves are only ever replaced whole, by a rename).
    let _ = ctrlc::set_handler(|| {
        citegate::output::remove_in_flight();
        std::process::exit(130);
    });
    commands::run(command)
}

/// The long-running servers (`lsp`, `mcp`): they keep glibc's default heap growth, which gives
/// freed memory back between requests.
fn serves(command: &Command) -> bool {
    match command {
        #[cfg(feature = "lsp")]
        Command::Lsp(_) => true,
        #[cfg(feature = "mcp")]
        Command::Mcp(_) => true,
        _ => false,
    }
}

/// glibc grows a worker thread's heap a page at a time, each step a `mprotect` call: a run over
/// a long history (every object read allocates zlib's state) made 13,646 of them, and without
/// them its system time is 10-15% lower (benchmarks/HISTORY.md, issue 38's fourteenth part).
/// With this pad a thread's heap is made usable whole when it is created (64 MiB, its size;
/// pages not touched take no memory) and the main heap grows in steps as large, and keeps as much
/// of what is freed (a batch run ends soon after its peak).
#[allow(unsafe_code)]
fn widen_heap_growth() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a malloc parameter; no thread has started yet.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}
