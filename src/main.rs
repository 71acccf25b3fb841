//! The `citegate` binary: parses the command line, runs the library, prints the report and maps
//! the outcome to an exit code (0: no error finding, 1: error findings, 2: the run failed).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use citegate::audit::{self, AuditOptions};
use citegate::report::{human, json};
use citegate::rules::RuleId;

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
    /// List the rules (finding IDs) with their family and default severity
    Rules,
    /// Explain a rule: what it checks, why it matters, whether it has a fix
    Explain {
        /// A finding ID, e.g. invented-path
        id: String,
    },
}

#[derive(clap::Args, Debug)]
struct AuditArgs {
    /// Doc files or folders (Markdown *.md/*.mdx, answers *.json/*.jsonl) [default: .]
    paths: Vec<PathBuf>,
    /// The code repository [default: the Git repository holding the current folder]
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// What the docs are checked against; unpinned citations resolve here
    #[arg(
        long,
        visible_alias = "rev",
        value_name = "REV",
        default_value = "HEAD"
    )]
    target: String,
    /// Check each citation at its revision only: no stale verdicts, no blame
    #[arg(long)]
    no_history: bool,
    /// The audited repository's URL, when its remotes do not name it (for permalinks)
    #[arg(long, value_name = "URL")]
    repo_url: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Worker threads [default: one per core]
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Print nothing; the exit code tells the outcome
    #[arg(long, short = 'q')]
    quiet: bool,
    /// `overbroad-span` threshold: the most lines one citation may cover
    #[arg(long, value_name = "N", default_value_t = 200)]
    max_span_lines: usize,
    /// When to colour human output
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Format {
    Human,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Audit(args) => audit_command(args),
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
        Command::Explain { id } => match RuleId::from_id(&id) {
            Some(rule) => {
                let info = rule.info();
                let fix = match info.fix {
                    citegate::rules::FixSafety::Safe => {
                        "safe (the content was found again, exactly and uniquely)"
                    }
                    citegate::rules::FixSafety::None => "none",
                };
                let text = format!(
                    "{} ({}, {} by default)\n\n{}\n\n{}\n\nFix: {fix}\n",
                    rule.as_str(),
                    info.family.as_str(),
                    info.severity.as_str(),
                    info.description,
                    info.why,
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

fn audit_command(args: AuditArgs) -> ExitCode {
    let opts = AuditOptions {
        paths: if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths
        },
        repo: args.repo,
        target: args.target,
        history: !args.no_history,
        repo_url: args.repo_url,
        jobs: args.jobs,
        max_span_lines: args.max_span_lines,
    };
    let report = match audit::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("citegate: error: {e}");
            return ExitCode::from(2);
        }
    };
    let code = if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if args.quiet {
        return code;
    }
    let text = match args.format {
        Format::Json => json::render(&report),
        Format::Human => {
            let color = match args.color {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            human::render(
                &report,
                human::HumanStyle {
                    color,
                    unicode: true,
                    width: 100,
                },
            )
        }
    };
    print_out(&text, code)
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
