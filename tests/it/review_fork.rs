//! Issue 57, item 4: the Action's review and report comment on ordinary pull requests. A fork's
//! read-only token, a checkout that is GitHub's merge commit (the base branch moved the doc), a
//! doc line longer than a comment takes, a report longer than a comment takes: each is run
//! through `scripts/action.sh` and the posting scripts against a stand-in `gh` that answers as
//! GitHub does (HTTP 403 for a read-only token; HTTP 422 for a body over 65,536 characters, a
//! comment off the head's diff or a `commit_id` that is not the head).

use crate::common;
use crate::review::{schema, suggested, validate_json};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The code, the doc as the pull request branched from it, the pull request's head (a paragraph
/// whose citation is one line too low: a safe fix on line 9), the base branch moving on (six
/// lines added above everything), and GitHub's merge commit of the two, which is checked out.
const MERGED: &str = "@@@ commit base code and docs
@@@ file src/a.rs
// header
fn a() {
    one();
}
fn b() {
    two();
}
@@@ file docs/guide.md
# Guide

src/a.rs:1-2
```rust
fn a() {
    one();
```
@@@ commit head the pull request's change
@@@ file docs/guide.md
# Guide

src/a.rs:1-2
```rust
fn a() {
    one();
```

New here, src/a.rs:6-7
```rust
fn b() {
    two();
```
@@@ commit main the base branch adds an introduction after the pull request branched
@@@ parents base
@@@ file docs/guide.md
An introduction
the base branch wrote
in five lines
after the pull request
branched.

# Guide

src/a.rs:1-2
```rust
fn a() {
    one();
```
@@@ commit merge GitHub's merge commit
@@@ parents main head
@@@ file docs/guide.md
An introduction
the base branch wrote
in five lines
after the pull request
branched.

# Guide

src/a.rs:1-2
```rust
fn a() {
    one();
```

New here, src/a.rs:6-7
```rust
fn b() {
    two();
```
";

/// A stand-in `gh` for the pull request `base...head` of the repository `repo`, as GitHub
/// answers: reads list nothing; with `GH_READ_ONLY` set every write is refused with HTTP 403;
/// with `GH_DOWN` set with HTTP 502; a body (review, review comment or issue comment) over 65,536
/// characters, a review comment on a line that is not in the head's diff and a `commit_id` that
/// is not the head are refused with HTTP 422. Every call is logged, what is taken is kept.
struct Gh {
    path: String,
    log: PathBuf,
    posted: PathBuf,
}

fn fake_gh(dir: &Path, repo: &Path, base: &str, head: &str) -> Gh {
    let (log, posted) = (dir.join("gh.log"), dir.join("posted"));
    let text = format!(
        r#"#!/usr/bin/env python3
import json, os, re, shutil, subprocess, sys
args = sys.argv[1:]
open({log:?}, "a").write(" ".join(args) + "\n")
MAX = 65536
def refuse(status, message):
    sys.stderr.write(f"gh: {{message}} (HTTP {{status}})\n")
    sys.exit(1)
def diff_lines(path):
    diff = subprocess.run(["git", "-C", {repo:?}, "diff", "-U0", "{base}...{head}", "--", path],
                          capture_output=True, text=True, check=True).stdout
    lines = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.M):
        start, n = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + n))
    return lines
if "graphql" in args:
    sys.exit(1)
if "--paginate" in args:
    print("[]")
    sys.exit(0)
if os.environ.get("GH_READ_ONLY"):
    refuse(403, "Resource not accessible by integration")
if os.environ.get("GH_DOWN"):
    refuse(502, "Bad Gateway")
if "--input" in args:
    src = args[args.index("--input") + 1]
    review = json.load(open(src))
    if len(review["body"]) > MAX:
        refuse(422, "Validation Failed: body is too long (maximum is 65536 characters)")
    if review.get("commit_id", "{head}") != "{head}":
        refuse(422, "Validation Failed: commit_id is not part of the pull request")
    for c in review["comments"]:
        if len(c["body"]) > MAX:
            refuse(422, "Validation Failed: body is too long (maximum is 65536 characters)")
        lines = diff_lines(c["path"])
        if any(l not in lines for l in range(c.get("start_line", c["line"]), c["line"] + 1)):
            refuse(422, "Validation Failed: pull_request_review_thread.line must be part of the diff")
    shutil.copy(src, {posted:?})
for a in args:
    if a.startswith("body=@"):
        if len(open(a[6:], encoding="utf-8").read()) > MAX:
            refuse(422, "Validation Failed: body is too long (maximum is 65536 characters)")
        shutil.copy(a[6:], {posted:?})
"#,
        log = log.display().to_string(),
        posted = posted.display().to_string(),
        repo = repo.display().to_string(),
    );
    Gh {
        path: common::fake_gh(dir, &text),
        log,
        posted,
    }
}

/// A pull request checked out in `repo` (built from `spec`) with its event payload: number 7,
/// its base branch at `base`, its head at `head` in `from` (`None`: a deleted fork).
struct Pr {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    repo: PathBuf,
    event: PathBuf,
    temp: PathBuf,
    labels: citegate::fixture::Labels,
}

fn pr(spec: &str, base: &str, from: Option<&str>) -> Pr {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let repo = root.join("repo");
    let labels = citegate::fixture::build(spec, &repo).unwrap();
    let event = root.join("event.json");
    let payload = serde_json::json!({"pull_request": {
        "number": 7,
        "base": {"ref": "main", "sha": labels[base].to_string()},
        "head": {"sha": labels["head"].to_string(), "repo": from.map(|f| serde_json::json!({"full_name": f}))},
    }});
    std::fs::write(&event, payload.to_string()).unwrap();
    let temp = root.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    Pr {
        _dir: dir,
        dir: root,
        repo,
        event,
        temp,
        labels,
    }
}

impl Pr {
    /// The audit step (`scripts/action.sh`, review on), and the review file it wrote.
    fn audit(&self) -> PathBuf {
        let out = Command::new("bash")
            .arg(script("action.sh"))
            .current_dir(&self.repo)
            .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
            .env("RUNNER_TEMP", &self.temp)
            .env("GITHUB_STEP_SUMMARY", self.temp.join("audit-summary.md"))
            .env("GITHUB_OUTPUT", self.temp.join("output.txt"))
            .env("GITHUB_EVENT_PATH", &self.event)
            .env("INPUT_PATHS", "docs")
            .env("INPUT_REVIEW", "true")
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let outputs = std::fs::read_to_string(self.temp.join("output.txt")).unwrap();
        let review = outputs
            .lines()
            .skip_while(|l| !l.starts_with("review<<"))
            .nth(1)
            .expect("a review output");
        PathBuf::from(review)
    }

    /// `scripts/NAME FILE` (review.sh or comment.sh) with `gh` on the PATH, as GitHub runs the
    /// step for `acme/docs`; `env` adds variables (the stand-in's answers).
    fn post(&self, name: &str, file: &Path, gh: &Gh, env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new("bash");
        cmd.arg(script(name))
            .arg(file)
            .env("PATH", &gh.path)
            .env("GITHUB_REPOSITORY", "acme/docs")
            .env("GITHUB_EVENT_PATH", &self.event)
            .env("GITHUB_STEP_SUMMARY", self.temp.join("summary.md"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn gh(&self, base: &str) -> Gh {
        let head = self.labels["head"].to_string();
        fake_gh(&self.dir, &self.repo, &self.labels[base].to_string(), &head)
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.temp.join("summary.md")).unwrap_or_default()
    }
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name)
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The stand-in's write calls.
fn writes(gh: &Gh) -> Vec<String> {
    let calls = std::fs::read_to_string(&gh.log).unwrap_or_default();
    calls
        .lines()
        .filter(|l| l.contains("--method"))
        .map(str::to_string)
        .collect()
}

#[test]
fn suggestions_sit_on_the_heads_lines_when_the_base_branch_added_lines_above() {
    let pr = pr(MERGED, "main", Some("acme/docs"));
    let review = pr.audit();
    let gh = pr.gh("main");
    let out = pr.post("review.sh", &review, &gh, &[]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let request: Value =
        serde_json::from_str(&std::fs::read_to_string(&gh.posted).unwrap()).unwrap();
    validate_json(&request, &schema("github-pulls-create-review.json"), false);
    assert_eq!(request["commit_id"], pr.labels["head"].to_string().as_str());
    // One suggestion, on the head's line 9 (the merge commit's line 15). The same fix on the
    // paragraph from before (the head's line 3, not in its diff) is not suggested.
    let comments = request["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 1, "{request}");
    assert_eq!(comments[0]["path"], "docs/guide.md");
    assert_eq!(comments[0]["line"], 9, "{request}");
    assert!(comments[0].get("start_line").is_none(), "{request}");
    // Applied to the head's doc, it writes the line `citegate fix` writes in the merge commit.
    let (new, _) = suggested(comments[0]["body"].as_str().unwrap());
    assert_eq!(new, "New here, src/a.rs:5-6");
    let out = common::citegate(&pr.repo, &["fix", "docs"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let fixed = std::fs::read_to_string(pr.repo.join("docs/guide.md")).unwrap();
    assert_eq!(fixed.lines().nth(14), Some(new.as_str()));
}

#[test]
fn without_the_head_a_github_review_keeps_the_audited_line_numbers() {
    // `--review-head` is what moves the comments: without it, the merge commit's numbers.
    let pr = pr(MERGED, "main", Some("acme/docs"));
    let base = pr.labels["main"].to_string();
    let review = |extra: &[&str]| {
        let mut args = vec!["audit", "--since", &base, "--format", "github-review"];
        args.extend(extra);
        args.push("docs");
        let out = common::citegate(&pr.repo, &args);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out).1);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let plain = review(&[]);
    assert!(plain.get("commit_id").is_none(), "{plain}");
    assert_eq!(plain["comments"][0]["line"], 15, "{plain}");
    let head = pr.labels["head"].to_string();
    let placed = review(&["--review-head", &head]);
    assert_eq!(placed["comments"][0]["line"], 9, "{placed}");
    // Only for a review.
    let out = common::citegate(&pr.repo, &["audit", "--review-head", &head, "docs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("--review-head"), "{}", text(&out).1);
}

#[test]
fn a_fork_pull_request_gets_its_suggestions_in_the_job_summary_and_passes() {
    // A fork's name as an event could hold it, with what a workflow command would act on.
    for from in [Some("mallory/docs\n::error::pwned %0A"), None] {
        let pr = pr(MERGED, "main", from);
        let review = pr.audit();
        let gh = pr.gh("main");
        let out = pr.post("review.sh", &review, &gh, &[("GH_READ_ONLY", "1")]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        assert!(writes(&gh).is_empty(), "nothing posted: {:?}", writes(&gh));
        let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
        assert_eq!(commands.len(), 1, "{stdout}");
        assert!(
            commands[0].starts_with("::notice title=citegate::citegate: the review was not posted on #7: it comes from "),
            "{stdout}"
        );
        let expected = match from {
            Some(_) => {
                "mallory/docs ::error::pwned %250A, and a fork's workflow token is read-only"
            }
            None => "a deleted fork, and",
        };
        assert!(commands[0].contains(expected), "{stdout}");
        let summary = pr.summary();
        assert!(
            summary.contains("### docs/guide\\.md line 9\n"),
            "{summary}"
        );
        assert!(
            summary.contains("```suggestion\nNew here, src/a.rs:5-6\n```"),
            "{summary}"
        );
        // The report comment: not attempted either.
        let report = pr.dir.join("report.md");
        std::fs::write(&report, "## citegate audit\n").unwrap();
        let out = pr.post("comment.sh", &report, &gh, &[("GH_READ_ONLY", "1")]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        assert!(writes(&gh).is_empty(), "{:?}", writes(&gh));
        assert!(
            stdout.starts_with(
                "::notice title=citegate::citegate: the report comment was not posted on #7"
            ),
            "{stdout}"
        );
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
    }
}

#[test]
fn a_refusal_for_want_of_permission_is_a_notice_and_any_other_failure_fails() {
    let pr = pr(MERGED, "main", Some("acme/docs"));
    let review = pr.audit();
    let report = pr.dir.join("report.md");
    std::fs::write(&report, "## citegate audit\n").unwrap();
    let gh = pr.gh("main");
    // Not a fork, but the token cannot write (a workflow without `pull-requests: write`).
    let out = pr.post("review.sh", &review, &gh, &[("GH_READ_ONLY", "1")]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("::notice title=citegate::citegate: the review was not posted on #7: GitHub refused the workflow token (HTTP 403"), "{stdout}");
    assert!(
        pr.summary().contains("New here, src/a.rs:5-6"),
        "{}",
        pr.summary()
    );
    let out = pr.post("comment.sh", &report, &gh, &[("GH_READ_ONLY", "1")]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout
            .contains("::notice title=citegate::citegate: the report comment was not posted on #7"),
        "{stdout}"
    );
    // One POST each, refused; nothing after it.
    let tried = writes(&gh);
    assert_eq!(tried.len(), 2, "{tried:?}");
    assert!(
        tried.iter().all(|w| w.contains("--method POST")),
        "{tried:?}"
    );
    // GitHub down: the step fails.
    for (name, file) in [("review.sh", &review), ("comment.sh", &report)] {
        let out = pr.post(name, file, &gh, &[("GH_DOWN", "1")]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {stdout}{stderr}");
        assert!(stderr.contains("HTTP 502"), "{stderr}");
        assert!(!stdout.contains("::notice"), "{stdout}");
    }
}

#[test]
fn a_line_longer_than_a_comment_takes_drops_its_suggestion_not_the_review() {
    // A doc whose one long line (a one-line JSON answer, say) holds a fixable citation, beside
    // an ordinary paragraph with the same fix.
    let long = format!("Long {} src/a.rs:6-7", "x".repeat(70_000));
    let spec = format!(
        "@@@ commit base code\n@@@ file src/a.rs\n// header\nfn a() {{\n    one();\n}}\nfn b() {{\n    two();\n}}\n\
         @@@ commit head the pull request's docs\n@@@ file docs/guide.md\n# Guide\n\n{long}\n```rust\nfn b() {{\n    two();\n```\n\n\
         Short, src/a.rs:6-7\n```rust\nfn b() {{\n    two();\n```\n"
    );
    let pr = pr(&spec, "base", Some("acme/docs"));
    let review = pr.audit();
    let gh = pr.gh("base");
    let out = pr.post("review.sh", &review, &gh, &[]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let request: Value =
        serde_json::from_str(&std::fs::read_to_string(&gh.posted).unwrap()).unwrap();
    let comments = request["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 1, "{}", request["body"]);
    assert_eq!(comments[0]["line"], 9);
    let body = request["body"].as_str().unwrap();
    assert!(
        body.contains("1 fix not suggested: the comment would be longer than GitHub takes \\(65536 characters\\): run `citegate fix`"),
        "{body}"
    );
    assert!(body.chars().count() <= 65_536);
    // `fix` does rewrite the long line: the fix was there to suggest.
    let out = common::citegate(&pr.repo, &["fix", "docs"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let fixed = std::fs::read_to_string(pr.repo.join("docs/guide.md")).unwrap();
    assert!(
        fixed.contains(" src/a.rs:5-6\n```rust"),
        "the long line's fix"
    );
}

#[test]
fn a_report_longer_than_a_comment_takes_is_cut_to_fit_and_says_so() {
    let pr = pr(MERGED, "main", Some("acme/docs"));
    let gh = pr.gh("main");
    // A report of collapsed sections, longer than a comment takes.
    let mut report = String::from("## citegate audit\n\n");
    for doc in 0..400 {
        report.push_str(&format!(
            "<details><summary>docs/{doc}.md: 1 error</summary>\n\n"
        ));
        report.push_str(&format!("- `docs/{doc}.md:1` {}\n", "é".repeat(100)));
        report.push_str("\n</details>\n\n");
    }
    assert!(report.len() > 70_000);
    let file = pr.dir.join("report.md");
    std::fs::write(&file, &report).unwrap();
    let out = pr.post("comment.sh", &file, &gh, &[]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let body = std::fs::read_to_string(&gh.posted).unwrap();
    assert!(body.len() <= 65_536, "{}", body.len());
    assert!(body.starts_with("<!-- citegate-report -->\n## citegate audit\n"));
    assert!(
        body.ends_with("\n\n**citegate**: this report was cut to fit a comment \\(GitHub takes 65536 characters\\); the full report is in the job summary of this run\\.\n"),
        "{}",
        &body[body.len() - 300..]
    );
    // Cut at a line, the collapsed section it was cut in closed.
    assert_eq!(
        body.matches("<details>").count(),
        body.matches("</details>").count()
    );
    let kept = &body[..body.find("\n\n**citegate**").unwrap()];
    assert!(report.starts_with(
        kept.strip_prefix("<!-- citegate-report -->\n")
            .unwrap()
            .trim_end_matches("\n</details>\n")
    ));
}
