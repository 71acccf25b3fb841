//! What the commands share: the progress bar, running an audit, printing to a pipe that may be
//! closed, and the exit code of a failed run.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use citegate::args::Selection;
use citegate::model::Report;
use citegate::report::human;

/// A progress bar on stderr, only when stderr is a terminal and not in CI.
struct Bar(indicatif::ProgressBar);

impl citegate::audit::Progress for Bar {
    fn stage(&self, name: &'static str, total: usize) {
        self.0.set_message(name);
        self.0.set_length(total as u64);
        self.0.set_position(0);
    }

    fn advance(&self, steps: usize) {
        self.0.inc(steps as u64);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

pub fn progress_bar(quiet: bool) -> citegate::audit::ProgressSink {
    if quiet || !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
        return citegate::audit::ProgressSink::default();
    }
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg:20} [{bar:40}] {pos}/{len} {elapsed}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    citegate::audit::ProgressSink(Some(std::sync::Arc::new(Bar(bar))))
}

pub fn run_audit(selection: Selection, quiet: bool) -> Result<Report, ExitCode> {
    let mut options = selection.options();
    options.progress = progress_bar(quiet);
    let report = citegate::audit::run(&options).map_err(|e| audit_failed(&e))?;
    warn_renames_skipped(&report);
    Ok(report)
}

/// An audit in a session kept open (`fix` audits again what it changes).
pub fn audit_in_session(
    selection: Selection,
    quiet: bool,
    repins: bool,
) -> Result<(citegate::audit::Session, Report), ExitCode> {
    let mut options = selection.options();
    options.progress = progress_bar(quiet);
    options.repins = repins;
    let session = citegate::audit::Session::open(&options).map_err(|e| audit_failed(&e))?;
    let report = citegate::audit::run_in(&session, &options).map_err(|e| audit_failed(&e))?;
    warn_renames_skipped(&report);
    Ok((session, report))
}

/// Past git's rename limit (in `--since`'s range, or in a commit a cited file was followed
/// through): say so, as `git diff` does, rather than leave a reader to wonder why a moved file's
/// citations read as deleted ones.
fn warn_renames_skipped(report: &Report) {
    let Some(s) = report.renames_skipped else {
        return;
    };
    let (place, outcome) = match s.commit {
        None => (
            "--since: rename detection was skipped for too many files".to_string(),
            "a file renamed with an edit counts as deleted, and every doc citing its old path \
             was selected",
        ),
        Some(c) => (
            format!(
                "rename detection was skipped for too many files in commit {}",
                &c.to_string()[..8]
            ),
            "a cited file that commit renamed with an edit reads as deleted",
        ),
    };
    eprintln!(
        "citegate: warning: {place} (diff.renameLimit is {}); {outcome}\n  help: set \
         diff.renameLimit to at least {} (git config diff.renameLimit {}) to follow those renames",
        s.limit, s.needed, s.needed
    );
}

/// Say why an audit could not run; exit 2.
pub fn audit_failed(e: &citegate::audit::AuditError) -> ExitCode {
    match e {
        citegate::audit::AuditError::Config(c) if !c.text.is_empty() => {
            eprintln!("{}", human::config_error(c))
        }
        e => eprintln!("citegate: error: {}", chain(e)),
    }
    ExitCode::from(2)
}

/// A `--target` that names no usable commit, with what to do about it (a shallow clone).
pub fn target_error(e: &citegate::resolve::RevError, rev: &str) -> String {
    match e.describe(rev) {
        (message, Some(hint)) => format!("--target {rev}: {message}\n  help: {hint}"),
        (message, None) => format!("--target {rev}: {message}"),
    }
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Write to stdout; a closed pipe (`citegate audit | head`) ends quietly.
pub fn print_out(text: &str, code: ExitCode) -> ExitCode {
    print_with(code, |out| out.write_all(text.as_bytes()))
}

/// [`print_out`] for output written piece by piece (a large JSON report, streamed).
pub fn print_with(
    code: ExitCode,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> ExitCode {
    let mut stdout = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    match write(&mut stdout).and_then(|_| stdout.flush()) {
        Ok(()) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => failed(format_args!("cannot write the report: {e}")),
    }
}

/// A run that failed: say why on stderr, exit 2.
pub fn failed(why: impl std::fmt::Display) -> ExitCode {
    eprintln!("citegate: error: {why}");
    ExitCode::from(2)
}

pub use citegate::error::chain;
