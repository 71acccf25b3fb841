//! `not-retrieved`: an answer carries its retrieval payload (`retrieved`) and a cited span is not
//! contained in any retrieved chunk (containment, not overlap); and, where a payload is required
//! (the gate without `--no-retrieval`), an answer without one, worded in the caller's own terms.
//!
//! What it checks, why, and its fix safety: `rules/not-retrieved.yaml` (`citegate explain not-retrieved`).

use super::context::Subject;
use crate::model::Finding;
use crate::model::LineRange;
use crate::model::Retrieved;
use crate::model::Surface;
use crate::registry::RuleId;

/// The `not-retrieved` finding on the citation of `path` (lines `range`), when no chunk of
/// `retrieved` holds its span (a whole-file citation is never held).
pub fn check(
    subject: &Subject<'_>,
    path: &str,
    range: Option<LineRange>,
    retrieved: &[Retrieved],
) -> Option<Finding> {
    let same_file: Vec<&Retrieved> = retrieved.iter().filter(|r| r.path == path).collect();
    let contained = match range {
        Some(range) => same_file.iter().any(|r| r.lines.contains(&range)),
        None => false,
    };
    if contained {
        return None;
    }
    let help = if same_file.is_empty() {
        let mut paths: Vec<&str> = retrieved.iter().map(|r| r.path.as_str()).collect();
        paths.dedup();
        format!("retrieved files: {}", paths.join(", "))
    } else {
        format!(
            "retrieved from `{path}`: lines {}",
            same_file
                .iter()
                .map(|r| r.lines.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Some(
        subject
            .finding(
                RuleId::NotRetrieved,
                format!(
                    "`{}` is not inside any retrieved chunk",
                    subject.citation.label()
                ),
            )
            .help(help),
    )
}

/// The message of an answer that carries no retrieval payload where one is required: what to
/// pass, named as the caller passes it (a flag on the command line, a tool parameter over MCP).
pub(crate) fn no_payload(surface: Surface) -> String {
    let (give, skip) = match surface {
        Surface::Cli => (
            "`retrieved`, or `--retrieved FILE`",
            "pass `--no-retrieval`",
        ),
        Surface::Mcp => (
            "the answer's `retrieved`, or the tool parameter `retrieved`",
            "set the tool parameter `no_retrieval` to true",
        ),
    };
    format!(
        "the answer carries no retrieval payload, so cited ⊆ retrieved cannot be checked: give \
         one ({give}), or {skip} to check the code only"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_payload_is_named_in_the_callers_words() {
        let cli = no_payload(Surface::Cli);
        assert!(cli.contains("`--retrieved FILE`") && cli.contains("`--no-retrieval`"));
        let mcp = no_payload(Surface::Mcp);
        assert!(mcp.contains("parameter `retrieved`") && mcp.contains("`no_retrieval`"));
        assert!(!mcp.contains("--"), "{mcp}");
    }
}
