//! The workflows citegate runs and the ones its guide hands out (issue 57): every third-party action
//! is pinned to a full commit SHA with its tag in a comment (a tag can be moved to other code; a
//! commit cannot), and every `actions/checkout` step leaves the token out of `.git/config`
//! (`persist-credentials: false`): no step here pushes with it, and a later step (or the repository
//! code a step runs) would otherwise find it there.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The files with `uses:` lines: the repository's workflows, its Action, the README and the guide.
fn files() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut files = vec![root.join("action.yml"), root.join("README.md")];
    for dir in [".github/workflows", "docs/src"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str());
            if matches!(ext, Some("yml" | "yaml" | "md")) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The action a line uses, if it is a `uses:` line (a step's or a reusable workflow's).
fn uses(line: &str) -> Option<&str> {
    let rest = line.trim_start().trim_start_matches("- ").trim_start();
    rest.strip_prefix("uses:").map(str::trim)
}

/// Whether `value` (what follows `uses:`) is allowed: a local action or workflow (`./…`), citegate's
/// own by release tag (what a user of the guide installs), or `owner/repo@<40 hex> # tag`.
fn pinned(value: &str) -> bool {
    if value.starts_with("./") || value.starts_with("citegate/citegate") {
        return true;
    }
    let (action, comment) = value.split_once(" # ").unwrap_or((value, ""));
    let sha = action.rsplit_once('@').map_or("", |(_, r)| r);
    let hex = sha.len() == 40 && sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    hex && !comment.trim().is_empty()
}

/// The lines of the step that starts at `lines[at]` (a `- ` item), after its first.
fn step_body<'a>(lines: &[&'a str], at: usize) -> Vec<&'a str> {
    let dash = lines[at].find('-').unwrap_or(0);
    lines[at + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > dash)
        .copied()
        .collect()
}

/// What is wrong in one file's text: each unpinned `uses:` and each checkout that keeps the token.
fn problems(name: &str, text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(value) = uses(line) else { continue };
        if !pinned(value) {
            found.push(format!(
                "{name}:{}: not pinned to a commit SHA: {value}",
                i + 1
            ));
        }
        let checkout = value.starts_with("actions/checkout@");
        let body = if line.trim_start().starts_with("- ") {
            step_body(&lines, i)
        } else {
            // `uses:` under a step's first key (`- name: …` or `- if: …`): the step is the item above.
            let start = (0..i)
                .rev()
                .find(|&j| lines[j].trim_start().starts_with("- "));
            start.map_or_else(Vec::new, |s| step_body(&lines, s))
        };
        if checkout
            && !body
                .iter()
                .any(|l| l.contains("persist-credentials: false"))
        {
            found.push(format!(
                "{name}:{}: a checkout without persist-credentials: false",
                i + 1
            ));
        }
    }
    found
}

#[test]
fn every_action_is_pinned_by_sha_and_every_checkout_drops_its_token() {
    let mut found = Vec::new();
    for path in files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(ROOT).unwrap().display().to_string();
        found.extend(problems(&name, &text));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_catches_a_tag_a_missing_comment_and_a_checkout_that_keeps_its_token() {
    let sha = "11d5960a326750d5838078e36cf38b85af677262";
    let text = format!(
        "steps:\n  - uses: actions/checkout@v4\n    with:\n      fetch-depth: 0\n  - run: make\n\
         \x20 - uses: actions/checkout@{sha} # v4.4.0\n    with: {{fetch-depth: 0, persist-credentials: false}}\n\
         \x20 - if: always()\n    uses: github/codeql-action/upload-sarif@{sha}\n\
         \x20 - uses: citegate/citegate@v0.1.0\n  - uses: ./\n"
    );
    assert_eq!(
        problems("w.yml", &text),
        [
            "w.yml:2: not pinned to a commit SHA: actions/checkout@v4",
            "w.yml:2: a checkout without persist-credentials: false",
            &format!(
                "w.yml:9: not pinned to a commit SHA: github/codeql-action/upload-sarif@{sha}"
            ),
        ]
    );
}
