//! Data-driven cases, run in process through `citegate::audit`: each `tests/cases/NAME.case`
//! describes a fixture repository (see `citegate::fixture`), the `citegate audit` arguments to
//! run in it, and every finding it must produce, as
//! `@@@ expect RULE DOC:LINE [text in the message or help]` (the severity follows the help, as
//! `[note]`). The set of findings must match
//! exactly, so each case's near misses (lines that must not be flagged) are checked too, and
//! `@@@ citations N` pins how many citations were extracted.

use crate::common;

use std::path::Path;

use citegate::args::{Cli, Command};
use citegate::audit::AuditOptions;
use citegate::testing::{self, Fixture};
use clap::Parser;

struct Case {
    args: Vec<String>,
    exit: i32,
    /// How many citations extraction must find, so that near misses cannot pass by being missed.
    citations: Option<u64>,
    expect: Vec<(String, Option<String>)>,
    spec: String,
}

fn parse_case(text: &str) -> Case {
    let mut case = Case {
        args: vec!["audit".into()],
        exit: 0,
        citations: None,
        expect: Vec::new(),
        spec: String::new(),
    };
    for line in text.lines() {
        if let Some(args) = line.strip_prefix("@@@ args ") {
            case.args = args.split_whitespace().map(str::to_string).collect();
        } else if let Some(code) = line.strip_prefix("@@@ exit ") {
            case.exit = code.trim().parse().expect("exit code");
        } else if let Some(n) = line.strip_prefix("@@@ citations ") {
            case.citations = Some(n.trim().parse().expect("citation count"));
        } else if let Some(e) = line.strip_prefix("@@@ expect ") {
            let mut parts = e.splitn(3, ' ');
            let rule = parts.next().unwrap_or_default();
            let at = parts.next().unwrap_or_default();
            let text = parts.next().map(str::to_string);
            case.expect.push((format!("{rule} {at}"), text));
        }
    }
    case.spec = common::fixture_spec(text);
    case
}

/// The case's `citegate audit` arguments as options, and the doc paths: parsed by the binary's
/// own command line types.
fn options(args: &[String]) -> (Vec<String>, AuditOptions) {
    let audit = (args.first().map(String::as_str) != Some("audit")).then_some("audit");
    let words = ["citegate"].into_iter().chain(audit).map(str::to_string);
    let cli = Cli::try_parse_from(words.chain(args.iter().cloned()))
        .unwrap_or_else(|e| panic!("the case's arguments: {e}"));
    let Command::Audit(audit) = cli.command else {
        panic!("a case runs `citegate audit`");
    };
    let paths = (audit.selection.paths.iter())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    (paths, audit.selection.options())
}

fn run_case(path: &Path) -> Result<(), String> {
    let case = parse_case(&std::fs::read_to_string(path).map_err(|e| e.to_string())?);
    let fixture = Fixture::build(&case.spec).map_err(|e| e.to_string())?;
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| fixture.substitute(a).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let (paths, opts) = options(&args);
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let result = fixture.audit(&paths, opts);
    let code = testing::exit_code(&result);
    let report = result.map_err(|e| format!("the run failed: {e}"))?;
    let got: Vec<(String, String)> = report
        .findings
        .iter()
        .map(|f| {
            let doc = &report.docs[f.doc].doc;
            let (line, _) = doc.lines.line_col(&doc.text, f.span.start);
            (
                format!("{} {}:{line}", f.rule, doc.name),
                format!(
                    "{} {} [{}]",
                    f.message,
                    f.help.as_deref().unwrap_or(""),
                    f.severity.as_str()
                ),
            )
        })
        .collect();
    let mut problems = Vec::new();
    let mut unmatched: Vec<&(String, String)> = got.iter().collect();
    for (want, text) in &case.expect {
        let pos = unmatched.iter().position(|(k, msg)| {
            k == want && text.as_ref().is_none_or(|t| msg.contains(t.as_str()))
        });
        match pos {
            Some(i) => {
                unmatched.remove(i);
            }
            None => problems.push(format!(
                "missing: {want}{}",
                text.as_ref().map(|t| format!(" «{t}»")).unwrap_or_default()
            )),
        }
    }
    for (k, msg) in unmatched {
        problems.push(format!("unexpected: {k} «{msg}»"));
    }
    if let Some(n) = case.citations {
        let found = report.summary.citations as u64;
        if found != n {
            problems.push(format!("{found} citations extracted, expected {n}"));
        }
    }
    if code != case.exit {
        problems.push(format!("exit code {code}, expected {}", case.exit));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n  "))
    }
}

#[test]
fn cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no cases in {}", dir.display());
    let filter = std::env::var("CASE").ok();
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        if let Err(e) = run_case(path) {
            failures.push(format!("{name}:\n  {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
