//! Data-driven CLI cases: each `tests/cases/NAME.case` describes a fixture repository (see
//! `citegate::fixture`), the command to run in it, and every finding it must produce, as
//! `@@@ expect RULE DOC:LINE [text in the message or help]`. The set of findings must match
//! exactly, so each case's near misses (lines that must not be flagged) are checked too, and
//! `@@@ citations N` pins how many citations were extracted.

mod common;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

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

fn run_case(path: &Path) -> Result<(), String> {
    let case = parse_case(&std::fs::read_to_string(path).map_err(|e| e.to_string())?);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let labels = citegate::fixture::build(&case.spec, dir.path()).map_err(|e| e.to_string())?;
    let mut args = case.args.clone();
    for a in &mut args {
        for (label, oid) in &labels {
            *a = a.replace(&format!("{{{{rev:{label}}}}}"), &oid.to_string());
        }
    }
    args.extend(["--format".to_string(), "json".to_string()]);
    let out = Command::cargo_bin("citegate")
        .map_err(|e| e.to_string())?
        .args(&args)
        .current_dir(dir.path())
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout).map_err(|e| {
        format!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let got: Vec<(String, String)> = findings
        .iter()
        .map(|f| {
            (
                format!(
                    "{} {}:{}",
                    f["rule"].as_str().unwrap_or(""),
                    f["doc"].as_str().unwrap_or(""),
                    f["line"]
                ),
                format!(
                    "{} {}",
                    f["message"].as_str().unwrap_or(""),
                    f["help"].as_str().unwrap_or("")
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
        let found = report["summary"]["citations"].as_u64().unwrap_or(0);
        if found != n {
            problems.push(format!("{found} citations extracted, expected {n}"));
        }
    }
    let code = out.status.code().unwrap_or(-1);
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
