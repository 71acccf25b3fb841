//! The `citegate` binary: parses the command line (`citegate::args`), runs the command
//! (`commands/`, one module each) and exits with its code (0: no error finding, 1: error
//! findings, 2: the run failed).

mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // An interrupt during `fix` or `regenerate --write` leaves no temporary file behind (the
    // docs themselves are only ever replaced whole, by a rename).
    let _ = ctrlc::set_handler(|| {
        citegate::output::remove_in_flight();
        std::process::exit(130);
    });
    commands::run(citegate::args::Cli::parse().command)
}
