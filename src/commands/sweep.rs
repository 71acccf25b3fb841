//! `citegate sweep` and `citegate merge`: the scheduled pass, shards joined, the dashboard and
//! its history.

use std::process::ExitCode;

use citegate::args::*;
use citegate::escape::printable;
use citegate::model::Report;
use citegate::report::json;
use citegate::sweep;

use super::audit::render;
use super::common::*;

pub fn sweep_command(args: SweepArgs) -> ExitCode {
    let report = match run_audit(args.selection, false) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let drift = match args
        .manifest
        .as_deref()
        .map(|m| sweep::read_manifest(m).and_then(|manifest| sweep::drift(&report, &manifest)))
    {
        None => None,
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => {
            return failed(e);
        }
    };
    let since = match dashboard(&report, &args.dashboard) {
        Ok(since) => since,
        Err(code) => return code,
    };
    let text = sweep::render(
        &report,
        drift.as_ref(),
        since.as_ref(),
        args.limits.max_bytes,
    );
    let fail = args.limits.fail_on.fails(&report);
    let code = if fail {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if let Some(path) = &args.json {
        if let Err(e) = citegate::output::replace(path, json::render(&report).as_bytes()) {
            return failed(format_args!("{}: {e}", path.display()));
        }
    }
    match &args.markdown {
        Some(path) => {
            // Appending suits $GITHUB_STEP_SUMMARY, which other steps write to as well.
            if let Err(e) = citegate::output::append(path, text.as_bytes()) {
                return failed(format_args!("{}: {e}", path.display()));
            }
            code
        }
        None => print_out(&text, code),
    }
}

/// `--html DIR` and `--history FILE` of `sweep` and `merge`: read the trend, write the HTML
/// report, record the run. Returns what changed since the last run recorded.
fn dashboard(
    report: &citegate::model::Report,
    args: &DashboardArgs,
) -> Result<Option<sweep::history::Since>, ExitCode> {
    let (html, history) = (args.html.as_deref(), args.history.as_deref());
    let date = sweep::history::now();
    let trend = match history.map(sweep::history::read) {
        None => None,
        Some(Ok(mut trend)) => {
            for line in &trend.skipped {
                eprintln!("citegate: warning: {} (skipped)", printable(line, false));
            }
            trend
                .runs
                .push(sweep::history::run_of(report, date.clone()));
            Some(trend)
        }
        Some(Err(e)) => return Err(failed(chain(&e))),
    };
    if let Some(dir) = html {
        let extras = sweep::extras(report, trend.as_ref(), date);
        let pages = citegate::report::html::render(report, &extras);
        sweep::write_html(dir, &pages).map_err(failed)?;
    }
    let recorded = trend.as_ref().and_then(|t| t.runs.last());
    if let (Some(path), Some(run)) = (history, recorded) {
        sweep::history::append(path, run).map_err(|e| failed(chain(&e)))?;
    }
    Ok(trend.and_then(|t| t.since()))
}

pub fn merge_command(args: MergeArgs) -> ExitCode {
    if matches!(args.format, Format::Human | Format::GithubReview) {
        return failed("merge renders json, markdown, sarif, github, rdjson, gitlab or junit");
    }
    let mut reports = Vec::new();
    for path in &args.reports {
        let read = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| json::read(&text).map_err(|e| chain(&e)));
        match read {
            Ok(r) => reports.push((path.display().to_string(), r)),
            Err(e) => {
                return failed(format_args!("{}: {e}", path.display()));
            }
        }
    }
    let report = match Report::merge(reports) {
        Ok(r) => r,
        Err(e) => {
            // It can name a doc, whose name a stranger chose: shown without terminal controls.
            return failed(format_args!("{}", printable(&e.to_string(), false)));
        }
    };
    if let Err(code) = dashboard(&report, &args.dashboard) {
        return code;
    }
    let code = if args.limits.fail_on.fails(&report) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    print_out(
        &render(&report, args.format, Color::Never, args.limits.max_bytes),
        code,
    )
}
