//! The command line's types: every subcommand's arguments, public so that tests and other
//! front ends parse flags exactly as the binary does (`Cli::try_parse_from`). Parsing only: the
//! commands themselves live in the binary (`src/commands/`), which prints.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::audit::{self, AuditOptions};
use crate::llm;
use crate::model::Report;
use crate::regenerate;
use crate::report::markdown;

/// Audit `path:line` code citations in Markdown wikis and AI answer files against the Git
/// revision they were written for.
#[derive(Parser, Debug)]
#[command(name = "citegate", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check every citation in the docs under PATHS
    Audit(AuditArgs),
    /// Apply the safe fixes: citations whose content was found again, exactly and uniquely
    Fix(FixArgs),
    /// The scheduled whole-repository pass: a Markdown report (and JSON), and what changed since
    /// an index was built
    Sweep(SweepArgs),
    /// Write the baseline (.citegate-baseline.json): the current findings, by content
    /// fingerprint; later runs report them as baselined and do not fail on them
    Baseline(BaselineArgs),
    /// Write a suppression comment with a reason for every current finding of the rules given
    /// (Markdown docs), then audit again to prove them suppressed
    Suppress(SuppressArgs),
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
    /// Check a book's chapters as mdBook builds it: a preprocessor (`[preprocessor.citegate]` in
    /// book.toml) that passes the book through unchanged, prints the findings on stderr and fails
    /// the build at `fail-on`
    Mdbook(MdbookArgs),
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
pub struct AuditArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Print nothing; the exit code tells the outcome
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// When to colour human output
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Also write the report in another format to a file, from the same run (repeatable)
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_write)]
    pub write: Vec<(Format, PathBuf)>,
    /// For github-review: the pull request's head commit. Its comments are placed on the head's
    /// lines and diff (`commit_id`), not the audited merge commit's; a fix on lines not the same
    /// at the head is not suggested
    #[arg(long, value_name = "REV")]
    pub review_head: Option<String>,
    #[command(flatten)]
    pub limits: Limits,
    /// Print every citation and the revision it is checked at (own, doc, implied or target pin),
    /// without checking (human or json format)
    #[arg(long, conflicts_with_all = ["write", "quiet"])]
    pub dump: bool,
    /// Print counts instead of the findings: by rule, doc and folder, the fixable share, and
    /// the command to run next (`fix`, then `baseline`)
    #[arg(long, conflicts_with_all = ["format", "quiet", "dump"])]
    pub statistics: bool,
}

/// `citegate mdbook`: run by mdBook, which asks `supports RENDERER` first, then gives the book on
/// standard input (`[context, book]`).
#[derive(clap::Args, Debug)]
pub struct MdbookArgs {
    #[command(subcommand)]
    pub supports: Option<MdbookSupports>,
}

#[derive(Subcommand, Debug)]
pub enum MdbookSupports {
    /// Exit 0: every renderer is supported (the book passes through unchanged)
    Supports { renderer: String },
}

#[derive(clap::Args, Debug)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Only take out the entries no finding matches any more (fixed); never add one
    #[arg(long)]
    pub prune: bool,
}

#[derive(clap::Args, Debug)]
pub struct SuppressArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// The rule whose findings are suppressed (repeatable)
    #[arg(long, required = true, value_name = "RULE")]
    pub rule: Vec<String>,
    /// Why: written into every comment
    #[arg(long, required = true)]
    pub reason: String,
}

#[derive(clap::Args, Debug)]
pub struct FixArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Print a unified diff of the fixes and write nothing (exit 1 when there is something to fix)
    #[arg(long)]
    pub diff: bool,
    /// Also re-pin citations whose content is unchanged at an older pin to the target
    #[arg(long)]
    pub repin: bool,
}

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// An index manifest (YAML `revision: SHA`): list docs and cited files changed since
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Write the Markdown report here (`$GITHUB_STEP_SUMMARY`) instead of standard output
    #[arg(long, value_name = "FILE", value_parser = summary_file)]
    pub markdown: Option<PathBuf>,
    /// Also write the JSON report here
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub limits: Limits,
    #[command(flatten)]
    pub dashboard: DashboardArgs,
}

/// When a report fails the run and how long its Markdown may be: shared by `audit`, `sweep` and
/// `merge`.
#[derive(clap::Args, Debug)]
pub struct Limits {
    /// Exit 1 when there is a finding of this severity or worse
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// The most bytes of a Markdown report (an issue or comment body takes 65,536 characters)
    #[arg(long, value_name = "N", default_value_t = markdown::DEFAULT_MAX_BYTES, value_parser = bounded::<1024, 1_073_741_824>)]
    pub max_bytes: usize,
}

/// The dashboard of a scheduled run: shared by `sweep` and `merge`.
#[derive(clap::Args, Debug)]
pub struct DashboardArgs {
    /// Write a static HTML report into this folder (index.html and a page per doc)
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Append this run's counts to this JSON-lines file, and show the trend and what is new or
    /// fixed since the last run recorded there
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' JSON reports (`citegate audit --shard I/N --format json`)
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Output format (human output needs the docs' text: use the others)
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    #[command(flatten)]
    pub limits: Limits,
    #[command(flatten)]
    pub dashboard: DashboardArgs,
}

#[derive(clap::Args, Debug)]
pub struct RegenerateArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Rewrite the docs in place (atomic, byte-preserving); without it, print a diff
    #[arg(long)]
    pub write: bool,
    /// `diff`: a unified diff of what would change; `json`: what happened to each answer
    #[arg(long, value_enum, default_value_t = RegenerateFormat::Diff)]
    pub format: RegenerateFormat,
    /// Chunks retrieved per answer (listed as searched when it is refused)
    #[arg(long, value_name = "N", default_value_t = regenerate::DEFAULT_TOP_K, value_parser = bounded::<0, 1000>)]
    pub top_k: usize,
    /// An OpenAI-compatible API base (`http://127.0.0.1:11434/v1`): ask it for what offline
    /// re-grounding cannot do; the key, if any, is read from CITEGATE_API_KEY
    #[arg(long, value_name = "URL", requires = "model", value_parser = llm_url)]
    pub llm: Option<String>,
    /// The model name sent to --llm
    #[arg(long, value_name = "NAME", requires = "llm")]
    pub model: Option<String>,
    /// Seconds before a model request is given up (then retried), at most an hour
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// Retries of a model request on 429, 5xx and connection errors (at most 10)
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// Model requests in flight at once (1 to 64)
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub concurrency: u64,
    /// Write one JSONL record per model exchange here (`citegate replay` reads it)
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// `refused`: exit 1 when any answer or citation was refused; `never` (default): exit 0 for
    /// a completed run (2 still means it could not complete: the model endpoint failed)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = RegenerateFailOn::Never)]
    pub fail_on: RegenerateFailOn,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A trace written by `regenerate --trace`
    pub trace: PathBuf,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum RegenerateFormat {
    Diff,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct RetrieveArgs {
    /// What to look for (identifiers, words)
    pub query: String,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The revision searched [default: HEAD]
    #[arg(long, visible_alias = "rev", value_name = "REV")]
    pub target: Option<String>,
    /// How many chunks
    #[arg(long, short = 'k', value_name = "N", default_value_t = regenerate::DEFAULT_TOP_K, value_parser = bounded::<0, 1000>)]
    pub top_k: usize,
    /// Rank chunks of this path higher (repeatable)
    #[arg(long, value_name = "PATH")]
    pub path: Vec<String>,
    /// Also print each chunk's lines
    #[arg(long)]
    pub show: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[cfg(feature = "mcp")]
#[derive(clap::Args, Debug)]
pub struct McpArgs {
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
}

#[cfg(feature = "lsp")]
#[derive(clap::Args, Debug)]
pub struct LspArgs {
    /// Speak over standard input and output (the only transport; accepted because editors'
    /// clients pass it)
    #[arg(long)]
    pub stdio: bool,
}

#[derive(clap::Args, Debug)]
pub struct GateArgs {
    /// The retrieval payload: `[{path, start_line, end_line}]` (else each answer's own
    /// `retrieved`; an answer without one is refused unless --no-retrieval)
    #[arg(long, value_name = "FILE")]
    pub retrieved: Option<PathBuf>,
    /// Check an answer that carries no retrieval payload against the code only (its verdict
    /// says `fidelity: code-only`); without this, such an answer is refused
    #[arg(long, conflicts_with = "retrieved")]
    pub no_retrieval: bool,
    /// The configuration file [default: .citegate.yaml at the repository root, when present]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The revision the answer is checked at [default: HEAD]
    #[arg(long, visible_alias = "rev", value_name = "REV")]
    pub target: Option<String>,
    /// One answer per line in, one line out per answer, flushed as it goes (a sidecar)
    #[arg(long)]
    pub jsonl: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum RegenerateFailOn {
    Refused,
    Never,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

impl FailOn {
    pub fn fails(self, report: &Report) -> bool {
        match self {
            FailOn::Error => report.has_errors(),
            FailOn::Warning => report
                .findings
                .iter()
                .any(|f| f.severity != crate::registry::Severity::Note),
            FailOn::Never => false,
        }
    }
}

/// What to audit: shared by `audit`, `fix` and `sweep`.
#[derive(clap::Args, Debug)]
pub struct Selection {
    /// Doc files or folders (Markdown *.md/*.mdx/*.mdc, answers *.json/*.jsonl) [default: .]
    pub paths: Vec<PathBuf>,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// What the docs are checked against; unpinned citations resolve here [default: HEAD]
    #[arg(long, visible_alias = "rev", value_name = "REV")]
    pub target: Option<String>,
    /// Check against the files on disk, uncommitted edits included, instead of a revision
    #[arg(long, conflicts_with = "target")]
    pub worktree: bool,
    /// The configuration file [default: .citegate.yaml at the repository root, when present]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// No implied pins: unpinned citations are checked at the target only
    #[arg(long)]
    pub no_history: bool,
    /// The audited repository's URL, when its remotes do not name it (for permalinks)
    #[arg(long, value_name = "URL")]
    pub repo_url: Option<String>,
    /// Only the docs that changed since merge-base(REF, target), or that cite code changed there
    #[arg(long, value_name = "REF")]
    pub since: Option<String>,
    /// Worker threads [default: one per core]
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// `overbroad-span` threshold: the most lines one citation may cover [default: 200]
    #[arg(long, value_name = "N", value_parser = bounded::<1, 10_000_000>)]
    pub max_span_lines: Option<usize>,
    /// Only shard I of N of the docs (a stable split by doc path, for a CI matrix; `merge` joins
    /// the shards' JSON reports)
    #[arg(long, value_name = "I/N")]
    pub shard: Option<audit::Shard>,
    /// The baseline: findings it holds are reported as baselined and do not fail the run
    /// [default: .citegate-baseline.json at the repository root, when present]
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

impl Selection {
    pub fn options(self) -> AuditOptions {
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
            baseline: self.baseline,
            progress: audit::ProgressSink::default(),
            // Only `fix --repin` offers them (see `AuditOptions::repins`).
            repins: false,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Human,
    Json,
    Markdown,
    Sarif,
    Github,
    // reviewdog's Diagnostic Format (`reviewdog -f=rdjson`).
    Rdjson,
    // GitLab Code Quality (`artifacts: reports: codequality`).
    Gitlab,
    // JUnit XML: one test case per doc.
    Junit,
    // A GitHub pull-request review of the safe fixes, as suggestions (needs `--since`).
    GithubReview,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// `FORMAT=PATH` for `--write`.
pub fn parse_write(arg: &str) -> Result<(Format, PathBuf), String> {
    let (format, path) = arg
        .split_once('=')
        .ok_or_else(|| format!("expected FORMAT=PATH, got `{arg}`"))?;
    let format = Format::from_str(format, false)?;
    if path.is_empty() {
        return Err("the PATH after `=` is empty".to_string());
    }
    Ok((format, PathBuf::from(path)))
}

/// A whole number from `LO` to `HI`, for options whose absurd values would exhaust memory or
/// overflow (checked before any work).
pub fn bounded<const LO: usize, const HI: usize>(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number from {LO} to {HI}"))?;
    if !(LO..=HI).contains(&n) {
        return Err(format!("{n} is out of range: from {LO} to {HI}"));
    }
    Ok(n)
}

/// `sweep --markdown FILE`: a path, checked before any work. An empty one is an unset variable
/// (`--markdown "$GITHUB_STEP_SUMMARY"` run outside GitHub Actions), and says so.
pub fn summary_file(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err(
            "the path is empty. `$GITHUB_STEP_SUMMARY` is set only in a GitHub Actions \
                    job: outside one, leave --markdown out to print the report, or name a file"
                .into(),
        );
    }
    Ok(PathBuf::from(s))
}

/// `--llm`: an http(s) URL, checked before any work.
pub fn llm_url(s: &str) -> Result<String, String> {
    llm::check_url(s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}
