//! `dead-doc-anchor` (warning): a link to a heading (`other.md#section`, `#section`, a
//! permalink to a page with a fragment) whose page defines no such anchor, by the slugs of the
//! site generator that renders it. The verdict is exact; the closest headings are help only.
//!
//! What it checks, why, and its fix safety: `rules/dead-doc-anchor.yaml` (`citegate explain dead-doc-anchor`).

use rapidfuzz::distance::levenshtein;

use crate::check::anchors::AnchorFacts;
use crate::extract::anchors::Heading;
use crate::model::{Applicability, Edit, Finding, Fix};
use crate::registry::{RuleId, Severity};

/// Anchors every page has: `#top` scrolls to the top where no element is called `top`.
const BUILT_IN: [&str; 1] = ["top"];

/// At most this many headings are named as the closest.
const SUGGESTIONS: usize = 3;

pub(super) fn check(f: &AnchorFacts<'_>) -> Option<Finding> {
    let written = f.link.fragment.as_str();
    // GitHub prefixes the ids it renders (`user-content-`) and finds a fragment with or without.
    let frag = match f.slugger.any_case() {
        true => written.strip_prefix("user-content-").unwrap_or(written),
        false => written,
    };
    if f.anchors.ids.contains(frag) || BUILT_IN.contains(&frag) {
        return None;
    }
    let lower = frag.to_lowercase();
    let mut by_case: Vec<&str> = (f.anchors.ids.iter())
        .filter(|id| id.to_lowercase() == lower)
        .map(String::as_str)
        .collect();
    by_case.sort_unstable();
    if by_case.is_empty() && f.anchors.incomplete {
        // A heading whose id is not known here may be the one.
        return None;
    }
    let at = match f.commit {
        Some(c) => format!(" at {}", crate::model::report::short(&c.to_string())),
        None => String::new(),
    };
    let span = f.link.fragment_span.unwrap_or(f.link.span);
    let page = &f.page;
    let generator = f.slugger.name();
    if let [id, ..] = by_case[..] {
        let mut finding = Finding::new(
            RuleId::DeadDocAnchor,
            f.doc,
            span,
            format!("the anchor `#{written}` differs from `#{id}` in `{page}`{at} only by case"),
        );
        let help = match f.slugger.any_case() {
            true => {
                // GitHub's page script finds it; other renderers (editors' previews, GitLab,
                // static sites) match fragments exactly.
                finding.severity = Severity::Note;
                format!("GitHub finds it whatever the case, other renderers do not: write `#{id}`")
            }
            false => format!("{generator} matches anchors exactly: write `#{id}`"),
        };
        finding.fix = exact_case(f, &by_case);
        return Some(finding.help(help));
    }
    let finding = Finding::new(
        RuleId::DeadDocAnchor,
        f.doc,
        span,
        format!(
            "no heading or anchor `#{written}` in `{page}`{at} ({} anchors)",
            f.naming
        ),
    );
    Some(match closest(frag, &f.anchors.headings) {
        Some(help) => finding.help(help),
        None => finding,
    })
}

/// The fix of an anchor off only by case: the fragment rewritten to the page's one anchor it
/// names whatever the case. Safe: the page was read and defines that anchor exactly, and the
/// edit rewrites the fragment alone, written without escapes. Several anchors alike but for
/// case (`#API`, `#api`): no fix, the reader chooses.
fn exact_case(f: &AnchorFacts<'_>, by_case: &[&str]) -> Option<Fix> {
    let ([id], Some(span)) = (by_case, f.link.fragment_span) else {
        return None;
    };
    Some(Fix {
        path: f.page.clone(),
        start_line: 0,
        end_line: 0,
        edit: Edit::new(span, *id),
        applicability: Applicability::Safe,
        cite: None,
    })
}

/// The headings whose ids are closest to `frag` (within half its length, or holding it), as
/// help.
fn closest(frag: &str, headings: &[Heading]) -> Option<String> {
    let limit = (frag.chars().count() / 2).max(2);
    let near = levenshtein::BatchComparator::new(frag.chars());
    let holds = |id: &str| frag.chars().count() >= 3 && (id.contains(frag) || frag.contains(id));
    let mut found: Vec<(usize, usize, &Heading)> = (headings.iter().enumerate())
        .filter_map(|(i, h)| {
            let d = near.distance(h.id.chars());
            (d <= limit || holds(&h.id)).then_some((d, i, h))
        })
        .collect();
    found.sort_by_key(|&(d, i, _)| (d, i));
    let named: Vec<String> = (found.iter().take(SUGGESTIONS))
        .map(|(_, _, h)| format!("`#{}` ({})", h.id, h.text))
        .collect();
    match named.len() {
        0 => None,
        1 => Some(format!("did you mean {}?", named[0])),
        _ => Some(format!("did you mean one of {}?", named.join(", "))),
    }
}
