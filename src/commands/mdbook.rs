//! `citegate mdbook`: an mdBook preprocessor that gates the book's build on its citations. mdBook
//! runs `citegate mdbook supports RENDERER` (every renderer is: nothing is changed), then gives
//! `[context, book]` as JSON on standard input and reads the book back on standard output. The
//! book's source folder is audited from disk, as `citegate audit` audits it (line numbers are the
//! files', not those of chapters other preprocessors have already expanded); the findings go to
//! stderr one per line, and at `fail-on` (`[preprocessor.citegate]`, default `error`) the command
//! exits 1, which fails the build. Otherwise the book's JSON text is written back byte for byte.
//!
//! The book's JSON is only checked to be JSON, never read: the preprocessor does not depend on
//! mdBook's book format, which changed in 0.5 (`sections` became `items`), so no `mdbook` crate.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;

use citegate::args::{FailOn, MdbookArgs, MdbookSupports};
use citegate::audit::AuditOptions;
use citegate::model::Report;

use super::common::{audit_failed, failed, print_out};

/// The most bytes of standard input read: a book of thousands of chapters is a few tens of MiB of
/// JSON; more is not a book, and is refused rather than held in memory.
const MAX_BOOK_BYTES: u64 = 512 << 20;

/// What mdBook says about the build (its `PreprocessorContext`; only what is used here).
#[derive(Deserialize)]
struct Context {
    root: PathBuf,
    config: BookToml,
}

#[derive(Deserialize)]
struct BookToml {
    #[serde(default)]
    book: BookSection,
    #[serde(default)]
    preprocessor: serde_json::Map<String, Value>,
}

#[derive(Deserialize, Default)]
struct BookSection {
    src: Option<PathBuf>,
}

/// `[preprocessor.citegate]`: its own key, and the keys mdBook reads there itself.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Section {
    #[serde(default)]
    fail_on: Level,
    #[serde(rename = "command")]
    _command: Option<IgnoredAny>,
    #[serde(rename = "renderers")]
    _renderers: Option<IgnoredAny>,
    #[serde(rename = "before")]
    _before: Option<IgnoredAny>,
    #[serde(rename = "after")]
    _after: Option<IgnoredAny>,
    #[serde(rename = "optional")]
    _optional: Option<IgnoredAny>,
}

/// `fail-on`: the values of `citegate audit --fail-on`.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Level {
    #[default]
    Error,
    Warning,
    Never,
}

impl From<Level> for FailOn {
    fn from(level: Level) -> FailOn {
        match level {
            Level::Error => FailOn::Error,
            Level::Warning => FailOn::Warning,
            Level::Never => FailOn::Never,
        }
    }
}

pub fn mdbook_command(args: MdbookArgs) -> ExitCode {
    if let Some(MdbookSupports::Supports { .. }) = args.supports {
        return ExitCode::SUCCESS;
    }
    let input = match read_input(std::io::stdin().lock()) {
        Ok(text) => text,
        Err(why) => return failed(format_args!("mdbook: {why}")),
    };
    let (src, fail_on, book) = match parse(&input) {
        Ok(parsed) => parsed,
        Err(why) => return failed(format_args!("mdbook: {why}")),
    };
    let options = AuditOptions {
        paths: vec![src.clone()],
        repo: Some(src),
        repins: false,
        ..AuditOptions::default()
    };
    // Why an audit cannot run is said as `citegate audit` says it (a configuration error with
    // its place in `.citegate.yaml`).
    let report = match citegate::audit::run(&options) {
        Ok(report) => report,
        Err(e) => return audit_failed(&e),
    };
    eprint!("{}", findings(&report));
    if fail_on.fails(&report) {
        return ExitCode::from(1);
    }
    print_out(book, ExitCode::SUCCESS)
}

/// What goes to stderr: each finding on its line, `severity: doc:line:column: rule: message` (the
/// engine's one line, as the other site builds log it, after its level, as mdBook's log lines
/// start), then the audit's summary line.
fn findings(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let line = citegate::report::one_line(report, f);
        let line = citegate::escape::printable(&line, false);
        out.push_str(&format!("{}: {line}\n", f.severity.as_str()));
    }
    out + &citegate::report::summary::summary_line(report)
}

/// Standard input as text, at most [`MAX_BOOK_BYTES`].
fn read_input(input: impl Read) -> Result<String, String> {
    let mut bytes = Vec::new();
    let read = input.take(MAX_BOOK_BYTES + 1).read_to_end(&mut bytes);
    read.map_err(|e| format!("cannot read the book on standard input: {e}"))?;
    if bytes.len() as u64 > MAX_BOOK_BYTES {
        return Err(format!(
            "the book on standard input is over {} MiB: refused",
            MAX_BOOK_BYTES >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("the book on standard input is not UTF-8 (at byte {at})")
    })
}

/// The source folder to audit, the level that fails the build, and the book's JSON text as given:
/// `input` is `[context, book]` (mdBook's protocol), checked whole as JSON first, so every error
/// names its line and column in what mdBook sent (serde_json refuses nesting past 128 levels).
fn parse(input: &str) -> Result<(PathBuf, FailOn, &str), String> {
    let (context, _): (Context, IgnoredAny) = serde_json::from_str(input)
        .map_err(|e| format!("standard input is not mdBook's `[context, book]` JSON: {e}"))?;
    let section = match context.config.preprocessor.get("citegate") {
        Some(value) => Section::deserialize(value)
            .map_err(|e| format!("book.toml, [preprocessor.citegate]: {e}"))?,
        None => Section::default(),
    };
    let src = context.config.book.src.unwrap_or_else(|| "src".into());
    let book = book_text(input).ok_or("the book could not be read back from standard input")?;
    // `root/src`, as mdBook joins them (an absolute `src` stays itself).
    Ok((context.root.join(src), section.fail_on.into(), book))
}

/// The second element of the JSON array `input` (already checked to be `[context, book]`), as it
/// is written there.
fn book_text(input: &str) -> Option<&str> {
    let rest = input.trim_start().strip_prefix('[')?;
    let mut context = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
    context.next()?.ok()?;
    let rest = rest[context.byte_offset()..]
        .trim_start()
        .strip_prefix(',')?;
    let rest = rest.trim_start();
    let mut book = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
    book.next()?.ok()?;
    Some(&rest[..book.byte_offset()])
}
