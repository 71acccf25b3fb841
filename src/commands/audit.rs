//! `citegate audit` (and `--dump`): check the docs and print the report in its format.

use std::io::IsTerminal;
use std::process::ExitCode;

use citegate::args::*;
use citegate::audit::{self};
use citegate::model::Report;
use citegate::report::{github, human, json, markdown, sarif};

use super::common::*;

pub fn audit_command(args: AuditArgs) -> ExitCode {
    if args.dump {
        return dump_command(args);
    }
    let report = match run_audit(args.selection, args.quiet) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let code = if args.fail_on.fails(&report) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    for (format, path) in &args.write {
        let text = render(&report, *format, Color::Never, args.max_bytes);
        if let Err(e) = citegate::output::replace(path, text.as_bytes()) {
            return failed(format_args!("{}: {e}", path.display()));
        }
    }
    if args.quiet {
        return code;
    }
    let code = print_out(
        &render(&report, args.format, args.color, args.max_bytes),
        code,
    );
    // The process ends here: freeing a large report piece by piece only costs time (25 ms at
    // 100k citations); the operating system takes the memory back whole.
    std::mem::forget(report);
    code
}

/// `audit --dump`: every citation and where it resolves.
pub fn dump_command(args: AuditArgs) -> ExitCode {
    let mut options = args.selection.options();
    options.progress = progress_bar(false);
    let dump = match audit::dump(&options) {
        Ok(d) => d,
        Err(e) => return failed(chain(&e)),
    };
    let text = match args.format {
        Format::Human => citegate::report::dump::human(&dump),
        Format::Json => citegate::report::dump::json(&dump),
        other => {
            let other = format!("{other:?}").to_lowercase();
            return failed(format_args!("--dump prints human or json, not {other}"));
        }
    };
    print_out(&text, ExitCode::SUCCESS)
}

/// The report in one format (a Markdown report in at most `max_bytes`).
pub fn render(report: &Report, format: Format, color: Color, max_bytes: usize) -> String {
    match format {
        Format::Json => json::render(report),
        Format::Markdown => markdown::render(report, "citegate audit", max_bytes),
        Format::Sarif => sarif::render(report),
        Format::Github => github::render(report),
        Format::Human => {
            let color = match color {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            human::render(
                report,
                human::HumanStyle {
                    color,
                    unicode: true,
                    width: 100,
                },
            )
        }
    }
}
