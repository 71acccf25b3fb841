//! The `citegate` binary: parses the command line, runs the library, prints the report and maps
//! the outcome to an exit code (0: no error finding, 1: error findings, 2: the run failed).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use citegate::audit::{self, AuditOptions};
use citegate::fix;
use citegate::model::Report;
use citegate::regenerate;
use citegate::registry::RuleId;
use citegate::report::{github, human, json, markdown, printable, sarif};
use citegate::sweep;

/// Audit `path:line` code citations in Markdown wikis and AI answer files against the Git
/// revision they were written for.
#[derive(Parser, Debug)]
#[command(name = "citegate", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every citation in the docs under PATHS
    Audit(AuditArgs),
    /// Apply the safe fixes: citations whose content was found again, exactly and uniquely
    Fix(FixArgs),
    /// The scheduled whole-repository pass: a Markdown report (and JSON), and what changed since
    /// an index was built
    Sweep(SweepArgs),
    /// Merge the JSON reports of shards of one run (`--shard I/N`) into one report
    Merge(MergeArgs),
    /// Re-ground failing answers and docs at the target: move citations whose content is found
    /// again exactly and uniquely, gate every answer, refuse the rest (a diff unless --write)
    Regenerate(RegenerateArgs),
    /// Print the chunks retrieval ranks first for a query at the target (what regenerate searches)
    Retrieve(RetrieveArgs),
    /// Gate one answer (standard input) at a revision: print it if every citation holds and lies
    /// in the retrieved chunks, else its refusal (exit 1)
    Gate(GateArgs),
    /// Re-run the gate on the model replies of a trace, offline, and count the failures by kind
    /// (exit 1 when a verdict differs from the recorded one)
    Replay(ReplayArgs),
    /// List the rules (finding IDs) with their family and default severity
    Rules,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions { shell: clap_complete::Shell },
    /// Print the man page (roff)
    Man,
    /// Serve the gate, the audit, citing and retrieval to coding agents over MCP (stdio)
    #[cfg(feature = "mcp")]
    Mcp(McpArgs),
    /// Check docs as they are edited: a language server (LSP) over stdio for any editor
    #[cfg(feature = "lsp")]
    Lsp(LspArgs),
    /// Print the JSON Schema of .citegate.yaml
    ConfigSchema,
    /// Explain a rule: what it checks, why it matters, whether it has a fix
    Explain {
        /// A finding ID, e.g. invented-path
        id: String,
    },
}

#[derive(clap::Args, Debug)]
struct AuditArgs {
    #[command(flatten)]
    selection: Selection,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Print nothing; the exit code tells the outcome
    #[arg(long, short = 'q')]
    quiet: bool,
    /// When to colour human output
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Also write the report in another format to a file, from the same run (repeatable)
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_write)]
    write: Vec<(Format, PathBuf)>,
    /// Exit 1 when there is a finding of this severity or worse
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// The most bytes of a Markdown report (an issue or comment body takes 65,536 characters)
    #[arg(long, value_name = "N", default_value_t = markdown::DEFAULT_MAX_BYTES, value_parser = bounded::<1024, 1_073_741_824>)]
    max_bytes: usize,
    /// Print every citation and the revision it is checked at (own, doc, implied or target pin),
    /// without checking (human or json format)
    #[arg(long, conflicts_with_all = ["write", "quiet"])]
    dump: bool,
}

#[derive(clap::Args, Debug)]
struct FixArgs {
    #[command(flatten)]
    selection: Selection,
    /// Print a unified diff of the fixes and write nothing (exit 1 when there is something to fix)
    #[arg(long)]
    diff: bool,
    /// Also re-pin citations whose content is unchanged at an older pin to the target
    #[arg(long)]
    repin: bool,
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    #[command(flatten)]
    selection: Selection,
    /// An index manifest (YAML `revision: SHA`): list docs and cited files changed since
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Write the Markdown report here (`$GITHUB_STEP_SUMMARY`) instead of standard output
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Also write the JSON report here
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Exit 1 when there is a finding of this severity or worse
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// The most bytes of the Markdown report (an issue body takes 65,536 characters)
    #[arg(long, value_name = "N", default_value_t = markdown::DEFAULT_MAX_BYTES, value_parser = bounded::<1024, 1_073_741_824>)]
    max_bytes: usize,
    /// Write a static HTML report into this folder (index.html and a page per doc)
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Append this run's counts to this JSON-lines file, and show the trend and what is new or
    /// fixed since the last run recorded there
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct MergeArgs {
    /// The shards' JSON reports (`citegate audit --shard I/N --format json`)
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Output format (human output needs the docs' text: use the others)
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Exit 1 when there is a finding of this severity or worse
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// The most bytes of a Markdown report
    #[arg(long, value_name = "N", default_value_t = markdown::DEFAULT_MAX_BYTES, value_parser = bounded::<1024, 1_073_741_824>)]
    max_bytes: usize,
    /// Also write the static HTML report of the merged run into this folder
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Append the merged run to this JSON-lines history (see `sweep --history`)
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct RegenerateArgs {
    #[command(flatten)]
    selection: Selection,
    /// Rewrite the docs in place (atomic, byte-preserving); without it, print a diff
    #[arg(long)]
    write: bool,
    /// `diff`: a unified diff of what would change; `json`: what happened to each answer
    #[arg(long, value_enum, default_value_t = RegenerateFormat::Diff)]
    format: RegenerateFormat,
    /// Chunks retrieved per answer (listed as searched when it is refused)
    #[arg(long, value_name = "N", default_value_t = regenerate::DEFAULT_TOP_K, value_parser = bounded::<0, 1000>)]
    top_k: usize,
    /// An OpenAI-compatible API base (`http://127.0.0.1:11434/v1`): ask it for what offline
    /// re-grounding cannot do; the key, if any, is read from CITEGATE_API_KEY
    #[arg(long, value_name = "URL", requires = "model", value_parser = llm_url)]
    llm: Option<String>,
    /// The model name sent to --llm
    #[arg(long, value_name = "NAME", requires = "llm")]
    model: Option<String>,
    /// Seconds before a model request is given up (then retried), at most an hour
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,
    /// Retries of a model request on 429, 5xx and connection errors (at most 10)
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=10))]
    retries: u32,
    /// Model requests in flight at once (1 to 64)
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    concurrency: u64,
    /// Write one JSONL record per model exchange here (`citegate replay` reads it)
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// `refused`: exit 1 when any answer or citation was refused; `never` (default): exit 0 for
    /// a completed run (2 still means it could not complete: the model endpoint failed)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = RegenerateFailOn::Never)]
    fail_on: RegenerateFailOn,
}

#[derive(clap::Args, Debug)]
struct ReplayArgs {
    /// A trace written by `regenerate --trace`
    trace: PathBuf,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum RegenerateFormat {
    Diff,
    Json,
}

#[derive(clap::Args, Debug)]
struct RetrieveArgs {
    /// What to look for (identifiers, words)
    query: String,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// The revision searched [default: HEAD]
    #[arg(long, visible_alias = "rev", value_name = "REV")]
    target: Option<String>,
    /// How many chunks
    #[arg(long, short = 'k', value_name = "N", default_value_t = regenerate::DEFAULT_TOP_K, value_parser = bounded::<0, 1000>)]
    top_k: usize,
    /// Rank chunks of this path higher (repeatable)
    #[arg(long, value_name = "PATH")]
    path: Vec<String>,
    /// Also print each chunk's lines
    #[arg(long)]
    show: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "mcp")]
#[derive(clap::Args, Debug)]
struct McpArgs {
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
}

#[cfg(feature = "lsp")]
#[derive(clap::Args, Debug)]
struct LspArgs {
    /// Speak over standard input and output (the only transport; accepted because editors'
    /// clients pass it)
    #[arg(long)]
    stdio: bool,
}

#[derive(clap::Args, Debug)]
struct GateArgs {
    /// The retrieval payload: `[{path, start_line, end_line}]` (else each answer's own
    /// `retrieved`; an answer without one is refused unless --no-retrieval)
    #[arg(long, value_name = "FILE")]
    retrieved: Option<PathBuf>,
    /// Check an answer that carries no retrieval payload against the code only (its verdict
    /// says `fidelity: code-only`); without this, such an answer is refused
    #[arg(long, conflicts_with = "retrieved")]
    no_retrieval: bool,
    /// The configuration file [default: .citegate.yaml at the repository root, when present]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// The revision the answer is checked at [default: HEAD]
    #[arg(long, visible_alias = "rev", value_name = "REV")]
    target: Option<String>,
    /// One answer per line in, one line out per answer, flushed as it goes (a sidecar)
    #[arg(long)]
    jsonl: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum RegenerateFailOn {
    Refused,
    Never,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum FailOn {
    Error,
    Warning,
    Never,
}

impl FailOn {
    fn fails(self, report: &Report) -> bool {
        match self {
            FailOn::Error => report.has_errors(),
            FailOn::Warning => report
                .findings
                .iter()
                .any(|f| f.severity != citegate::registry::Severity::Note),
            FailOn::Never => false,
        }
    }
}

/// What to audit: shared by `audit`, `fix` and `sweep`.
#[derive(clap::Args, Debug)]
struct Selection {
    /// Doc files or folders (Markdown *.md/*.mdx, answers *.json/*.jsonl) [default: .]
    paths: Vec<PathBuf>,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// What the docs are checked against; unpinned citations resolve here [default: HEAD]
    #[arg(long, visible_alias = "rev", value_name = "REV")]
    target: Option<String>,
    /// Check against the files on disk, uncommitted edits included, instead of a revision
    #[arg(long, conflicts_with = "target")]
    worktree: bool,
    /// The configuration file [default: .citegate.yaml at the repository root, when present]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// No implied pins: unpinned citations are checked at the target only
    #[arg(long)]
    no_history: bool,
    /// The audited repository's URL, when its remotes do not name it (for permalinks)
    #[arg(long, value_name = "URL")]
    repo_url: Option<String>,
    /// Only the docs that changed since merge-base(REF, target), or that cite code changed there
    #[arg(long, value_name = "REF")]
    since: Option<String>,
    /// Worker threads [default: one per core]
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// `overbroad-span` threshold: the most lines one citation may cover [default: 200]
    #[arg(long, value_name = "N", value_parser = bounded::<1, 10_000_000>)]
    max_span_lines: Option<usize>,
    /// Only shard I of N of the docs (a stable split by doc path, for a CI matrix; `merge` joins
    /// the shards' JSON reports)
    #[arg(long, value_name = "I/N")]
    shard: Option<audit::Shard>,
}

impl Selection {
    fn options(self) -> AuditOptions {
        AuditOptions {
            paths: if self.paths.is_empty() {
                vec![PathBuf::from(".")]
            } else {
                self.paths
            },
            repo: self.repo,
            target: self.target,
            worktree: self.worktree,
            history: !self.no_history,
            repo_url: self.repo_url,
            jobs: self.jobs,
            max_span_lines: self.max_span_lines,
            config: self.config,
            since: self.since,
            shard: self.shard,
            progress: audit::ProgressSink::default(),
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum Format {
    Human,
    Json,
    Markdown,
    Sarif,
    Github,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    // An interrupt during `fix` or `regenerate --write` leaves no temporary file behind (the
    // docs themselves are only ever replaced whole, by a rename).
    let _ = ctrlc::set_handler(|| {
        citegate::output::remove_in_flight();
        std::process::exit(130);
    });
    let cli = Cli::parse();
    match cli.command {
        Command::Audit(args) => audit_command(args),
        Command::Fix(args) => fix_command(args),
        Command::Sweep(args) => sweep_command(args),
        Command::Merge(args) => merge_command(args),
        Command::Regenerate(args) => regenerate_command(args),
        Command::Retrieve(args) => retrieve_command(args),
        Command::Gate(args) => gate_command(args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => {
            let root = args.repo.unwrap_or_else(|| PathBuf::from("."));
            match citegate::mcp::serve(root) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("citegate: error: mcp: {e}");
                    ExitCode::from(2)
                }
            }
        }
        #[cfg(feature = "lsp")]
        Command::Lsp(_) => match citegate::lsp::serve() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("citegate: error: lsp: {e}");
                ExitCode::from(2)
            }
        },
        Command::Replay(args) => replay_command(args),
        Command::Rules => {
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
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "citegate", &mut out);
            print_out(&String::from_utf8_lossy(&out), ExitCode::SUCCESS)
        }
        Command::Man => {
            let mut out = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut out) {
                Ok(()) => print_out(&String::from_utf8_lossy(&out), ExitCode::SUCCESS),
                Err(e) => {
                    eprintln!("citegate: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::ConfigSchema => print_out(&citegate::config::json_schema(), ExitCode::SUCCESS),
        Command::Explain { id } => match RuleId::from_id(&id) {
            Some(rule) => {
                let info = rule.info();
                let fix = match info.fix {
                    citegate::registry::FixSafety::Safe => {
                        "safe (the content was found again, exactly and uniquely)"
                    }
                    citegate::registry::FixSafety::None => "none",
                };
                let indent = |t: &str| t.lines().map(|l| format!("    {l}\n")).collect::<String>();
                let text = format!(
                    "{} ({}, {} by default)\n\n{}\n\n{}\n\nFix: {fix}\n\nFlagged ({}):\n{}\nNot flagged:\n{}",
                    rule.as_str(),
                    info.family.as_str(),
                    info.severity.as_str(),
                    info.description,
                    info.why,
                    info.example.doc,
                    indent(&info.example.fail),
                    indent(&info.example.pass),
                );
                print_out(&text, ExitCode::SUCCESS)
            }
            None => {
                eprintln!("citegate: error: no rule `{id}`; `citegate rules` lists them");
                ExitCode::from(2)
            }
        },
    }
}

/// A progress bar on stderr, only when stderr is a terminal and not in CI.
struct Bar(indicatif::ProgressBar);

impl audit::Progress for Bar {
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

fn progress_bar(quiet: bool) -> audit::ProgressSink {
    if quiet || !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
        return audit::ProgressSink::default();
    }
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{msg:20} [{bar:40}] {pos}/{len} {elapsed}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    audit::ProgressSink(Some(std::sync::Arc::new(Bar(bar))))
}

fn run_audit(selection: Selection, quiet: bool) -> Result<Report, ExitCode> {
    let mut options = selection.options();
    options.progress = progress_bar(quiet);
    audit::run(&options).map_err(|e| {
        match e {
            audit::AuditError::Config(c) if !c.text.is_empty() => {
                eprintln!("{}", human::config_error(&c))
            }
            e => eprintln!("citegate: error: {e}"),
        }
        ExitCode::from(2)
    })
}

fn audit_command(args: AuditArgs) -> ExitCode {
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
            eprintln!("citegate: error: {}: {e}", path.display());
            return ExitCode::from(2);
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
fn dump_command(args: AuditArgs) -> ExitCode {
    let mut options = args.selection.options();
    options.progress = progress_bar(false);
    let dump = match audit::dump(&options) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("citegate: error: {e}");
            return ExitCode::from(2);
        }
    };
    let text = match args.format {
        Format::Human => citegate::report::dump::human(&dump),
        Format::Json => citegate::report::dump::json(&dump),
        other => {
            let other = format!("{other:?}").to_lowercase();
            eprintln!("citegate: error: --dump prints human or json, not {other}");
            return ExitCode::from(2);
        }
    };
    print_out(&text, ExitCode::SUCCESS)
}

/// The report in one format (a Markdown report in at most `max_bytes`).
fn render(report: &Report, format: Format, color: Color, max_bytes: usize) -> String {
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

/// `FORMAT=PATH` for `--write`.
fn parse_write(arg: &str) -> Result<(Format, PathBuf), String> {
    let (format, path) = arg
        .split_once('=')
        .ok_or_else(|| format!("expected FORMAT=PATH, got `{arg}`"))?;
    let format = Format::from_str(format, false)?;
    if path.is_empty() {
        return Err("the PATH after `=` is empty".to_string());
    }
    Ok((format, PathBuf::from(path)))
}

fn fix_command(args: FixArgs) -> ExitCode {
    let report = match run_audit(args.selection, false) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let plan = fix::plan(&report, args.repin);
    let mut out = String::new();
    let mut failed = false;
    let mut fixed = 0;
    for doc_fix in &plan.docs {
        let doc = &report.docs[doc_fix.doc].doc;
        if args.diff {
            out.push_str(&printable(
                &fix::unified_diff(&doc.name, &doc.text, &doc_fix.after),
                true,
            ));
            continue;
        }
        match fix::write_atomic(&doc.fs_path, doc.text.as_bytes(), doc_fix.after.as_bytes()) {
            Ok(()) => {
                fixed += doc_fix.applied;
                let pins = match doc_fix.pins {
                    0 => String::new(),
                    n => format!(" and moved {n} pin{} to the target", plural(n)),
                };
                out.push_str(&format!(
                    "{}: fixed {} citation{}{pins}\n",
                    printable(&doc.name, false),
                    doc_fix.applied,
                    plural(doc_fix.applied)
                ));
            }
            Err(e) => {
                failed = true;
                eprintln!("citegate: error: {}: {e}", doc.fs_path.display());
            }
        }
    }
    for (doc, f) in &plan.blocked {
        let doc = &report.docs[*doc].doc;
        let line = doc.lines.line(f.byte_start);
        let to = match f.start_line {
            0 => f.path.clone(),
            _ => format!(
                "{}:{}",
                f.path,
                citegate::model::LineRange::new(f.start_line, f.end_line)
            ),
        };
        out.push_str(&format!(
            "{}:{line}: not moved to {}: a citation on this line stays failing, and editing the line would hide it\n",
            printable(&doc.name, false),
            printable(&to, false),
        ));
    }
    for m in report.pin_moves.iter().filter(|m| m.blocked()) {
        out.push_str(&format!(
            "{}: the doc's pin stays where it is: these citations cannot move with it: {}\n",
            printable(&report.docs[m.doc].doc.name, false),
            printable(&m.blocked_by.join(", "), false)
        ));
    }
    if !args.diff {
        out.push_str(&format!(
            "{fixed} citation{} fixed in {} doc{}\n",
            plural(fixed),
            plan.docs.len(),
            plural(plan.docs.len())
        ));
    }
    let code = if failed {
        ExitCode::from(2)
    } else if args.diff && !plan.docs.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    print_out(&out, code)
}

fn sweep_command(args: SweepArgs) -> ExitCode {
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
            eprintln!("citegate: error: {e}");
            return ExitCode::from(2);
        }
    };
    let since = match dashboard(&report, args.html.as_deref(), args.history.as_deref()) {
        Ok(since) => since,
        Err(code) => return code,
    };
    let text = sweep::render(&report, drift.as_ref(), since.as_ref(), args.max_bytes);
    let fail = args.fail_on.fails(&report);
    let code = if fail {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if let Some(path) = &args.json {
        if let Err(e) = citegate::output::replace(path, json::render(&report).as_bytes()) {
            eprintln!("citegate: error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    match &args.markdown {
        Some(path) => {
            // Appending suits $GITHUB_STEP_SUMMARY, which other steps write to as well.
            if let Err(e) = citegate::output::append(path, text.as_bytes()) {
                eprintln!("citegate: error: {}: {e}", path.display());
                return ExitCode::from(2);
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
    html: Option<&std::path::Path>,
    history: Option<&std::path::Path>,
) -> Result<Option<sweep::history::Since>, ExitCode> {
    let fail = |e: String| {
        eprintln!("citegate: error: {e}");
        ExitCode::from(2)
    };
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
        Some(Err(e)) => return Err(fail(e)),
    };
    if let Some(dir) = html {
        let extras = sweep::extras(report, trend.as_ref(), date);
        let pages = citegate::report::html::render(report, &extras);
        sweep::write_html(dir, &pages).map_err(|e| fail(e.to_string()))?;
    }
    let recorded = trend.as_ref().and_then(|t| t.runs.last());
    if let (Some(path), Some(run)) = (history, recorded) {
        sweep::history::append(path, run).map_err(fail)?;
    }
    Ok(trend.and_then(|t| t.since()))
}

fn merge_command(args: MergeArgs) -> ExitCode {
    if args.format == Format::Human {
        eprintln!("citegate: error: merge renders json, markdown, sarif or github");
        return ExitCode::from(2);
    }
    let mut reports = Vec::new();
    for path in &args.reports {
        let read = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| json::read(&text));
        match read {
            Ok(r) => reports.push((path.display().to_string(), r)),
            Err(e) => {
                eprintln!("citegate: error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    let report = match Report::merge(reports) {
        Ok(r) => r,
        Err(e) => {
            // It can name a doc, whose name a stranger chose: shown without terminal controls.
            eprintln!("citegate: error: {}", printable(&e, false));
            return ExitCode::from(2);
        }
    };
    if let Err(code) = dashboard(&report, args.html.as_deref(), args.history.as_deref()) {
        return code;
    }
    let code = if args.fail_on.fails(&report) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    print_out(
        &render(&report, args.format, Color::Never, args.max_bytes),
        code,
    )
}

fn regenerate_command(args: RegenerateArgs) -> ExitCode {
    let mut audit = args.selection.options();
    audit.progress = progress_bar(false);
    let llm = args.llm.map(|url| regenerate::llm::LlmOptions {
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
        Err(e) => {
            eprintln!("citegate: error: {e}");
            return ExitCode::from(2);
        }
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
        out = regenerate::render::report(&run);
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
        eprint!("{}", printable(&regenerate::render::refusals(&run), true));
    }
    eprintln!(
        "{} kept, {} re-grounded, {} refused at {}{model}",
        c.kept,
        c.regrounded,
        c.refused,
        &run.revision[..12.min(run.revision.len())]
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

fn retrieve_command(args: RetrieveArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("citegate: error: {e}");
        ExitCode::from(2)
    };
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
    let query = citegate::retrieve::Query {
        text: args.query,
        paths: args.path,
        ..Default::default()
    };
    let hits = index.search(&query, args.top_k);
    let out = regenerate::render::hits(&repo, &index, &hits, args.show, args.json);
    print_out(&out, ExitCode::SUCCESS)
}

fn gate_command(args: GateArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("citegate: error: {e}");
        ExitCode::from(2)
    };
    let opened = open_configured(
        args.repo.as_deref(),
        args.target.as_deref(),
        args.config.as_ref(),
    );
    let (repo, target, settings) = match opened {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let retrieved = match args.retrieved.as_deref().map(read_retrieved).transpose() {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let retrieval = match (&retrieved, args.no_retrieval) {
        (Some(r), _) => regenerate::gate::Retrieval::Given(r),
        (None, true) => regenerate::gate::Retrieval::Optional,
        (None, false) => regenerate::gate::Retrieval::Required,
    };
    let gate = regenerate::gate::Gate::new(&repo, target, &settings);
    let exit = |passed: bool| match passed {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    };
    if args.jsonl {
        let mut stdout = std::io::stdout().lock();
        return match regenerate::service::stream(&gate, std::io::stdin(), &mut stdout, retrieval) {
            Ok(passed) => exit(passed),
            Err(e) => fail(format!("standard input: {e}")),
        };
    }
    match regenerate::service::one(&gate, &mut std::io::stdin().lock(), retrieval) {
        Ok(g) => {
            if args.no_retrieval && g.passed {
                eprintln!("citegate: note: cited ⊆ retrieved was not checked (--no-retrieval)");
            }
            print_out(&g.output, exit(g.passed))
        }
        Err(e) => fail(e),
    }
}

/// The repository, the target and the settings (`--config`, else `.citegate.yaml`) of a command
/// that checks answers: `gate`, `replay`.
fn open_configured(
    repo: Option<&std::path::Path>,
    rev: Option<&str>,
    config: Option<&PathBuf>,
) -> Result<(citegate::resolve::CodeRepo, git2::Oid, audit::Settings), String> {
    let start = repo.unwrap_or(std::path::Path::new("."));
    audit::open(start, rev, config).map_err(|e| e.to_string())
}

fn replay_command(args: ReplayArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("citegate: error: {e}");
        ExitCode::from(2)
    };
    let (repo, _, settings) = match open_configured(args.repo.as_deref(), None, None) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let text = match std::fs::read_to_string(&args.trace) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: {e}", args.trace.display())),
    };
    let t = regenerate::trace::replay(&repo, &settings, &text);
    let out = match args.json {
        true => serde_json::to_string_pretty(&t).unwrap_or_default() + "\n",
        false => printable(&regenerate::trace::render(&t), true).into_owned(),
    };
    // A verdict that differs from the recorded one means the gate (or the code) changed.
    let exit = match t.verdicts_changed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    };
    print_out(&out, exit)
}

fn read_retrieved(path: &std::path::Path) -> Result<Vec<citegate::model::Retrieved>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
    regenerate::gate::retrieved_of(&value).map_err(|e| format!("{}: {e}", path.display()))
}

/// A whole number from `LO` to `HI`, for options whose absurd values would exhaust memory or
/// overflow (checked before any work).
fn bounded<const LO: usize, const HI: usize>(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number from {LO} to {HI}"))?;
    if !(LO..=HI).contains(&n) {
        return Err(format!("{n} is out of range: from {LO} to {HI}"));
    }
    Ok(n)
}

/// A `--target` that names no usable commit, with what to do about it (a shallow clone).
fn target_error(e: &citegate::resolve::RevError, rev: &str) -> String {
    match e.describe(rev) {
        (message, Some(hint)) => format!("--target {rev}: {message}\n  help: {hint}"),
        (message, None) => format!("--target {rev}: {message}"),
    }
}

/// `--llm`: an http(s) URL, checked before any work.
fn llm_url(s: &str) -> Result<String, String> {
    regenerate::llm::check_url(s).map(|()| s.to_string())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Write to stdout; a closed pipe (`citegate audit | head`) ends quietly.
fn print_out(text: &str, code: ExitCode) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("citegate: error: cannot write the report: {e}");
            ExitCode::from(2)
        }
    }
}
