//! `citegate audit` (and `--dump`): check the docs and print the report in its format.

use std::io::IsTerminal;
use std::process::ExitCode;

use citegate::args::*;
use citegate::audit::{self};
use citegate::model::Report;
use citegate::report::{github, gitlab, human, json, junit, markdown, rdjson, sarif};

use super::common::*;
use super::review;

pub fn audit_command(args: AuditArgs) -> ExitCode {
    if args.dump {
        return dump_command(args);
    }
    let wants_review = args.format == Format::GithubReview
        || args.write.iter().any(|(f, _)| *f == Format::GithubReview);
    let since = args.selection.since.clone();
    let jobs = args.selection.jobs;
    if wants_review && since.is_none() {
        return failed("--format github-review needs --since BASE (the pull request's base)");
    }
    if args.review_head.is_some() && !wants_review {
        return failed("--review-head places a github-review: it needs --format github-review");
    }
    let (session, report) = match audit_in_session(args.selection, args.quiet, false) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let review = match since.filter(|_| wants_review) {
        Some(since) => match review::body(&session, &report, &since, args.review_head.as_deref()) {
            Ok(review) => Some(review),
            Err(e) => return failed(e),
        },
        None => None,
    };
    // The report is rendered on as many threads as the run had (checked by the run).
    if let Some(n) = jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global();
    }
    let render = |report: &Report, format: Format, color: Color, max_bytes: usize| match &review {
        Some(text) if format == Format::GithubReview => text.clone(),
        _ => render(report, format, color, max_bytes),
    };
    let code = if args.limits.fail_on.fails(&report) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    for (format, path) in &args.write {
        let text = render(&report, *format, Color::Never, args.limits.max_bytes);
        if let Err(e) = citegate::output::replace(path, text.as_bytes()) {
            return failed(format_args!("{}: {e}", path.display()));
        }
    }
    let code = if args.quiet {
        code
    } else if args.statistics {
        print_out(&citegate::report::statistics::render(&report), code)
    } else if args.format == Format::Json {
        // The largest report, streamed rather than built whole first.
        print_with(code, |out| json::write(&report, out))
    } else {
        print_out(
            &render(&report, args.format, args.color, args.limits.max_bytes),
            code,
        )
    };
    // The process ends here: freeing a large report and the run's caches piece by piece only
    // costs time (25 ms at 100k citations, and it took a core from the report's rendering);
    // the operating system takes the memory back whole.
    std::mem::forget(report);
    std::mem::forget(session);
    code
}

/// `audit --dump`: every citation and where it resolves, printed as each is resolved.
pub fn dump_command(args: AuditArgs) -> ExitCode {
    use citegate::report::dump::{Human, Json};
    let mut options = args.selection.options();
    options.progress = progress_bar(false);
    let stdout = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout());
    let done = match args.format {
        Format::Human => audit::dump(&options, &mut Human(stdout)),
        Format::Json => audit::dump(&options, &mut Json::new(stdout)),
        other => {
            let other = format!("{other:?}").to_lowercase();
            return failed(format_args!("--dump prints human or json, not {other}"));
        }
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`| head`) is not an error.
        Err(audit::AuditError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => failed(chain(&e)),
    }
}

/// The report in one format (a Markdown report in at most `max_bytes`).
pub fn render(report: &Report, format: Format, color: Color, max_bytes: usize) -> String {
    match format {
        Format::Json => json::render(report),
        Format::Markdown => markdown::render(report, "citegate audit", max_bytes),
        Format::Sarif => sarif::render(report),
        Format::Github => github::render(report),
        Format::Rdjson => rdjson::render(report),
        Format::Gitlab => gitlab::render(report),
        Format::Junit => junit::render(report),
        // Without the pull request's diff and the fixed docs (a merged report): no comments.
        Format::GithubReview => {
            citegate::report::github_review::render(report, &Default::default())
        }
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
