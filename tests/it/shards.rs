//! `--shard I/N` and `merge`: the shards never overlap, their union is the whole run, and the merged
//! report equals the unsharded one in every format that `merge` renders.

use crate::common;

use std::path::Path;

use assert_cmd::Command;
use citegate::testing::Fixture;

fn spec() -> String {
    let mut spec = String::from(
        "@@@ remote origin https://github.com/acme/shard\n@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c() {}\n",
    );
    for i in 0..14 {
        let body = match i % 4 {
            0 => format!("Doc {i}: missing src/nope{i}.rs:1 and fine src/a.rs:1.\n"),
            1 => format!("Doc {i}: past the end src/a.rs:{}.\n", 10 + i),
            2 => format!("Doc {i}: quoted src/a.rs:1\n```rust\nfn b() {{}}\n```\n"),
            _ => format!("Doc {i}: `LITERAL_{i}` is in src/a.rs:2.\n"),
        };
        spec.push_str(&format!("@@@ file docs/d{i:02}.md\n{body}"));
    }
    spec
}

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = common::citegate(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() != Some(2), "{args:?}: {stderr}");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn merged_shards_equal_the_unsharded_report_in_every_format() {
    let fx = Fixture::build(&spec()).unwrap();
    let mut reports = Vec::new();
    let mut audited = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let (_, json) = run(
            fx.path(),
            &["audit", "docs", "--shard", &shard, "--format", "json"],
        );
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        audited.push(report["summary"]["docs"].as_u64().unwrap());
        let path = fx.path().join(format!("shard-{i}.json"));
        std::fs::write(&path, json).unwrap();
        reports.push(path.display().to_string());
    }
    assert!(
        audited.iter().all(|&n| n > 0),
        "every shard has docs: {audited:?}"
    );
    assert_eq!(
        audited.iter().sum::<u64>(),
        14,
        "disjoint, and together all of them"
    );
    for format in ["json", "markdown", "sarif", "github"] {
        let whole = run(fx.path(), &["audit", "docs", "--format", format]);
        let mut args = vec!["merge", "--format", format];
        args.extend(reports.iter().map(String::as_str));
        let merged = run(fx.path(), &args);
        assert_eq!(merged.0, whole.0, "{format}: exit code");
        assert_eq!(merged.1, whole.1, "{format}: the merged report differs");
    }
}

#[test]
fn bad_shards_and_mixed_revisions_are_refused() {
    let fx = Fixture::build(&spec()).unwrap();
    for bad in ["0/3", "4/3", "1/0", "x/2", "2"] {
        let out = Command::cargo_bin("citegate")
            .unwrap()
            .args(["audit", "--shard", bad])
            .current_dir(fx.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--shard {bad}");
    }
    let report = fx.path().join("r.json");
    let (_, json) = run(fx.path(), &["audit", "docs", "--format", "json"]);
    std::fs::write(
        &report,
        json.replace(&fx.labels["v1"].to_string(), &"0".repeat(40)),
    )
    .unwrap();
    let (_, json) = run(fx.path(), &["audit", "docs", "--format", "json"]);
    let other = fx.path().join("s.json");
    std::fs::write(&other, json).unwrap();
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .args(["merge", report.to_str().unwrap(), other.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different revisions"));
}

/// `citegate merge ARGS` in `dir`: the exit code and standard error.
fn merge(dir: &Path, reports: &[&Path], extra: &[&str]) -> (Option<i32>, String) {
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .arg("merge")
        .args(extra)
        .args(reports)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn shard_report(fx: &Fixture, name: &str, args: &[&str]) -> std::path::PathBuf {
    let mut all = vec!["audit", "docs", "--format", "json"];
    all.extend_from_slice(args);
    let (_, json) = run(fx.path(), &all);
    let path = fx.path().join(name);
    std::fs::write(&path, json).unwrap();
    path
}

#[test]
fn shards_that_are_not_one_run_are_refused_by_name() {
    let fx = Fixture::build(&spec()).unwrap();
    let s1 = shard_report(&fx, "s1.json", &["--shard", "1/2"]);
    let s2 = shard_report(&fx, "s2.json", &["--shard", "2/2"]);
    let t1 = shard_report(&fx, "t1.json", &["--shard", "1/3"]);
    let narrow = shard_report(&fx, "n2.json", &["--shard", "2/2", "--max-span-lines", "1"]);
    let whole = shard_report(&fx, "whole.json", &[]);
    let again = shard_report(&fx, "again.json", &[]);
    assert_eq!(merge(fx.path(), &[&s1, &s2], &[]).0, Some(1));
    for (pair, says) in [
        ([&s1, &s1], "the same shard 1/2"),
        ([&s1, &t1], "different shard counts"),
        ([&s1, &narrow], "different settings"),
        ([&whole, &again], "both audited"),
    ] {
        let (code, stderr) = merge(fx.path(), &[pair[0].as_path(), pair[1].as_path()], &[]);
        assert_eq!(code, Some(2), "{pair:?}: {stderr}");
        assert!(stderr.contains(says), "{pair:?}: {stderr}");
        assert!(
            stderr.contains(pair[1].file_name().unwrap().to_str().unwrap()),
            "{stderr}"
        );
    }
}

#[test]
fn a_report_with_a_short_revision_is_an_error_not_a_panic() {
    let fx = Fixture::build(&spec()).unwrap();
    let s1 = shard_report(&fx, "s1.json", &["--shard", "1/2"]);
    let text = std::fs::read_to_string(&s1).unwrap();
    std::fs::write(&s1, text.replace(&fx.labels["v1"].to_string(), "abc")).unwrap();
    let (code, stderr) = merge(fx.path(), &[&s1], &["--format", "markdown"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a full commit ID"), "{stderr}");
}

/// The org-wide sweep (`.github/workflows/org-sweep.yml`): two repositories, each audited in
/// shards, merged per repository into its own report (with its HTML dashboard); shards of two
/// repositories are never merged into one.
#[test]
fn shards_of_two_repositories_merge_into_a_report_each() {
    let a = Fixture::build(&spec()).unwrap();
    let other = spec()
        .replace("acme/shard", "acme/other")
        .replace("fn c() {}", "fn c() {}\nfn d() {}");
    let b = Fixture::build(&other).unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut merged = Vec::new();
    for (name, fx) in [("a", &a), ("b", &b)] {
        let s1 = shard_report(fx, &format!("{name}1.json"), &["--shard", "1/2"]);
        let s2 = shard_report(fx, &format!("{name}2.json"), &["--shard", "2/2"]);
        let html = out.path().join(format!("html-{name}"));
        let cmd = Command::cargo_bin("citegate")
            .unwrap()
            .args(["merge", "--format", "json", "--html"])
            .arg(&html)
            .args([&s1, &s2])
            .output()
            .unwrap();
        assert_eq!(
            cmd.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&cmd.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&cmd.stdout).unwrap();
        let (_, whole) = run(fx.path(), &["audit", "docs", "--format", "json"]);
        let whole: serde_json::Value = serde_json::from_str(&whole).unwrap();
        assert_eq!(report["findings"], whole["findings"], "{name}");
        assert_eq!(
            report["web_url"],
            format!(
                "https://github.com/acme/{}",
                if name == "a" { "shard" } else { "other" }
            )
        );
        assert!(html.join("index.html").is_file());
        merged.push((s1, s2));
    }
    // One shard of each repository: refused, never one report of both.
    let (code, stderr) = merge(a.path(), &[&merged[0].0, &merged[1].1], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("different revisions"), "{stderr}");
}

/// The `run:` script of the step named `step` in `job` of the org-wide sweep workflow.
fn workflow_step(job: &str, step: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/workflows/org-sweep.yml");
    let wf: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let steps = wf["jobs"][job]["steps"].as_sequence().unwrap();
    let found = steps.iter().find(|s| s["name"].as_str() == Some(step));
    let run = found.unwrap_or_else(|| panic!("{job}: no step {step}"))["run"].as_str();
    let run = run.unwrap().to_string();
    assert!(!run.contains("${{"), "{step}: values come in through env");
    run
}

/// Run a workflow step's script with bash in `dir`, `citegate` installed in `$RUNNER_TEMP` as
/// the workflow installs it; returns what it wrote to `$GITHUB_OUTPUT`.
fn run_step(script: &str, dir: &Path, runner_temp: &Path, env: &[(&str, &str)]) -> String {
    std::fs::create_dir_all(runner_temp).unwrap();
    let bin = runner_temp.join("citegate");
    if !bin.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_citegate"), &bin).unwrap();
    }
    let output = runner_temp.join("github_output");
    let out = std::process::Command::new("bash")
        // As GitHub runs a `run:` step.
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("RUNNER_TEMP", runner_temp)
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", runner_temp.join("summary.md"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}\n{out:?}");
    std::fs::read_to_string(&output).unwrap_or_default()
}

/// A repository whose `.citegate.yaml` is broken fails its shards, and only its own: each
/// shard records why as its artifact, the merge step reports that repository as failed (for its
/// dashboard issue) and merges the other one as usual.
#[cfg(unix)]
#[test]
fn one_bad_repository_is_reported_failed_and_the_others_are_merged() {
    let good = Fixture::build(&spec()).unwrap();
    let bad_spec = spec().replace(
        "@@@ file src/a.rs",
        "@@@ file .citegate.yaml\nrules:\n  no-such-rule: error\n@@@ file src/a.rs",
    );
    let bad = Fixture::build(&bad_spec).unwrap();
    let (shard, merge) = (
        workflow_step("shard", "Audit one shard"),
        workflow_step("merge", "Merge this repository's shards"),
    );
    let ci = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for (slug, fx) in [("acme__good", &good), ("acme__bad", &bad)] {
        let work = ci.path().join(slug);
        for i in 1..=2 {
            // One job per shard, each with its own runner; its artifact downloaded by name.
            let temp = ci.path().join(format!("runner-{slug}-{i}"));
            let shard_of = format!("{i}/2");
            run_step(
                &shard,
                fx.path(),
                &temp,
                &[("SHARD", &shard_of), ("REPO", slug)],
            );
            let artifact = work.join(format!("reports/report-{slug}-{i}"));
            std::fs::create_dir_all(&artifact).unwrap();
            for entry in std::fs::read_dir(temp.join("out")).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), artifact.join(entry.file_name())).unwrap();
            }
        }
        std::fs::create_dir_all(work.join("history")).unwrap();
        let temp = ci.path().join(format!("runner-{slug}-merge"));
        let env = [("SLUG", slug), ("SHARDS", "2"), ("REPO", slug)];
        outputs.push((work.clone(), run_step(&merge, &work, &temp, &env)));
    }
    let (good_dir, good_out) = &outputs[0];
    assert!(good_out.contains("report=sweep.md"), "{good_out}");
    assert!(!good_out.contains("findings=failed"), "{good_out}");
    assert!(good_dir.join("html-acme__good/index.html").is_file());
    assert!(std::fs::read_to_string(good_dir.join("sweep.md"))
        .unwrap()
        .contains("citegate"));
    let (bad_dir, bad_out) = &outputs[1];
    assert!(bad_out.contains("findings=failed"), "{bad_out}");
    assert!(bad_out.contains("report=failed.txt"), "{bad_out}");
    let why = std::fs::read_to_string(bad_dir.join("failed.txt")).unwrap();
    assert!(why.contains("shard 1/2: citegate exited 2"), "{why}");
    assert!(why.contains("shard 2/2: citegate exited 2"), "{why}");
    assert!(
        why.contains(".citegate.yaml") && why.contains("no-such-rule"),
        "{why}"
    );
    assert!(!bad_dir.join("merged.json").exists());
}

/// Issue 59: a run with findings baselined, suppressed by a comment and waived, sharded and
/// merged, is the unsharded run: the same `suppressed` findings with their `suppression`, the
/// same counts and fixed entries, the same exit code, in JSON and SARIF (its `suppressions`).
#[test]
fn merged_shards_keep_what_is_baselined_suppressed_and_waived() {
    let fx = Fixture::build(&spec()).unwrap();
    let dir = fx.path();
    // A baseline of some docs, one of whose findings is then fixed (a fixed entry).
    run(
        dir,
        &["baseline", "docs/d00.md", "docs/d01.md", "docs/d05.md"],
    );
    common::write(dir, "docs/d05.md", "Doc 5: fixed src/a.rs:1.\n");
    common::write(
        dir,
        "docs/d04.md",
        "Doc 4: missing src/nope4.rs:1. <!-- citegate-ignore invented-path: a reader's file -->\n",
    );
    common::write(
        dir,
        ".citegate.yaml",
        "waivers:\n  - doc: \"docs/d1*.md\"\n    rules: [invented-lines, invented-path]\n    until: 2099-12-31\n    reason: \"old pages\"\n",
    );
    let mut reports = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let (_, json) = run(
            dir,
            &["audit", "docs", "--shard", &shard, "--format", "json"],
        );
        let path = dir.join(format!("shard-{i}.json"));
        std::fs::write(&path, json).unwrap();
        reports.push(path.display().to_string());
    }
    let (_, whole) = run(dir, &["audit", "docs", "--format", "json"]);
    let whole: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let kinds = &whole["summary"]["suppressed"];
    for kind in ["baselined", "suppressed", "waived"] {
        assert!(kinds[kind].as_u64() > Some(0), "{kind}: {kinds}");
    }
    assert_eq!(
        whole["summary"]["baseline_fixed"], 1,
        "{:#}",
        whole["summary"]
    );
    for format in ["json", "sarif"] {
        let all = run(dir, &["audit", "docs", "--format", format]);
        let mut args = vec!["merge", "--format", format];
        args.extend(reports.iter().map(String::as_str));
        let merged = run(dir, &args);
        assert_eq!(merged.0, all.0, "{format}: exit code");
        assert_eq!(merged.1, all.1, "{format}: the merged report differs");
    }
}
