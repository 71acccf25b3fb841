//! `citegate regenerate` and `citegate retrieve`.

use std::path::PathBuf;
use std::process::ExitCode;

use citegate::args::*;
use citegate::escape::printable;
use citegate::fix;
use citegate::llm;
use citegate::regenerate;

use super::common::*;

pub fn regenerate_command(args: RegenerateArgs) -> ExitCode {
    let mut audit = args.selection.options();
    audit.progress = progress_bar(false);
    let llm = args.llm.map(|url| llm::LlmOptions {
        url,
        model: args.model.unwrap_or_default(),
        timeout: std::time::Duration::from_secs(args.timeout.max(1)),
        retries: args.retries,
        concurrency: args.concurrency as usize,
    });
    let opts = regenerate::Options {
        audit,
        top_k: args.top_k,
        llm,
    };
    let run = match regenerate::run(&opts) {
        Ok(run) => run,
        Err(e) => return failed(chain(&e)),
    };
    let mut failed = false;
    let mut out = String::new();
    for doc in &run.docs {
        if !args.write {
            if args.format == RegenerateFormat::Diff {
                out.push_str(&printable(
                    &fix::unified_diff(&doc.name, &doc.before, &doc.after),
                    true,
                ));
            }
            continue;
        }
        match fix::write_atomic(&doc.fs_path, doc.before.as_bytes(), doc.after.as_bytes()) {
            Ok(()) => eprintln!("{}: rewritten", printable(&doc.name, false)),
            Err(e) => {
                failed = true;
                eprintln!("citegate: error: {}: {e}", doc.fs_path.display());
            }
        }
    }
    if let Some(path) = &args.trace {
        let text = regenerate::trace::to_jsonl(&run.traces);
        if let Err(e) = citegate::output::replace(path, text.as_bytes()) {
            failed = true;
            eprintln!("citegate: error: {}: {e}", path.display());
        }
    }
    if args.format == RegenerateFormat::Json {
        out = citegate::regenerate::report::report(&run);
    }
    let c = &run.counts;
    let model = match c.model_calls {
        0 => String::new(),
        n => format!(
            " ({n} model request{}, {} + {} tokens)",
            plural(n),
            c.prompt_tokens,
            c.completion_tokens
        ),
    };
    if args.format == RegenerateFormat::Diff {
        eprint!(
            "{}",
            printable(&citegate::regenerate::report::refusals(&run), true)
        );
    }
    // What is refused is written as a refusal, or listed and left as written: both said, so
    // the counts are what `--write` writes.
    let left = c.refused - c.refusals_written;
    let refused = match left {
        0 => format!("{} refused", c.refused),
        _ => format!("{} refused ({left} left as written)", c.refused),
    };
    eprintln!(
        "{} kept, {} re-grounded, {refused} at {}{model}",
        c.kept,
        c.regrounded,
        citegate::model::report::short(&run.revision)
    );
    if let Some(why) = &run.endpoint_failure {
        failed = true;
        let why = printable(why, false);
        eprintln!("citegate: error: --llm: the model endpoint failed: {why}");
    }
    let exit = match (failed, args.fail_on, c.refused) {
        (true, _, _) => ExitCode::from(2),
        (false, RegenerateFailOn::Refused, 1..) => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    };
    print_out(&out, exit)
}

pub fn retrieve_command(args: RetrieveArgs) -> ExitCode {
    let fail = |e: String| failed(format_args!("{e}"));
    let start = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let repo = match citegate::resolve::CodeRepo::discover(&start) {
        Ok(r) => r,
        Err(e) => return fail(format!("{}: {}", start.display(), e.message())),
    };
    let rev = args.target.as_deref().unwrap_or("HEAD");
    let target = match repo
        .open()
        .map_err(|e| e.message().to_string())
        .and_then(|git| repo.resolve(&git, rev).map_err(|e| target_error(&e, rev)))
    {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let index = match citegate::retrieve::Index::at(&repo, target) {
        Ok(i) => i,
        Err(e) => return fail(e.message().to_string()),
    };
    if let Some(why) = &index.rejected_cache {
        eprintln!(
            "citegate: warning: retrieval cache {}",
            citegate::escape::printable(why, false)
        );
    }
    let query = citegate::retrieve::Query {
        text: args.query,
        paths: args.path,
        ..Default::default()
    };
    let hits = index.search(&query, args.top_k);
    let out = citegate::regenerate::report::hits(&repo, &index, &hits, args.show, args.json);
    print_out(&out, ExitCode::SUCCESS)
}
