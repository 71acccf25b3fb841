//! Findings that do not count, in the editor: a baselined, suppressed or waived finding is greyed
//! out, not hidden (severity hint, tag `unnecessary`, its message saying why), unless the client's
//! settings say `"suppressed": "hide"`; and the quick fix "citegate: suppress with reason", which
//! writes the comment `citegate suppress` writes (`fix::suppress`), with a placeholder reason the
//! user replaces. Like every edit citegate offers, it is checked before it is offered: the doc
//! with the comment is checked again, and the finding must be suppressed there.

use std::sync::Arc;

use lsp_types::{Diagnostic, DiagnosticSeverity, DiagnosticTag, Range, TextEdit};
use serde_json::Value;

use super::project::{Project, Snapshot};
use super::text::Positions;
use citegate_engine::escape::printable;
use citegate_engine::fix::suppress::{comment, insertion, PLACEHOLDER_REASON};
use citegate_engine::model::baseline::can_suppress;
use citegate_engine::model::{DocKind, Finding, Report, Suppressed};

/// A finding that does not count (`d`: its diagnostic) as a greyed-out hint saying why.
pub(super) fn set_aside(f: &Finding, mut d: Diagnostic) -> Diagnostic {
    let why = match &f.suppressed {
        Some(Suppressed::Baseline) | None => "baselined".to_string(),
        Some(Suppressed::Inline { reason }) => {
            format!("suppressed ({})", printable(reason, false))
        }
        Some(Suppressed::Waiver { until, reason }) => {
            format!("waived until {until} ({})", printable(reason, false))
        }
    };
    d.message = format!("{why}: {}", d.message);
    d.severity = Some(DiagnosticSeverity::HINT);
    d.tags = Some(vec![DiagnosticTag::UNNECESSARY]);
    d
}

/// Whether set-aside findings are shown, by the client's settings (`initializationOptions`, or
/// `workspace/didChangeConfiguration`'s `settings`): `{"suppressed": "show" | "hide"}`, at the
/// top or under `citegate`. `None`: the settings do not say.
pub(super) fn shows_set_aside(settings: &Value) -> Option<bool> {
    let value = settings
        .get("citegate")
        .and_then(|c| c.get("suppressed"))
        .or_else(|| settings.get("suppressed"))?;
    match value.as_str()? {
        "show" => Some(true),
        "hide" => Some(false),
        _ => None,
    }
}

/// The edit of "citegate: suppress with reason" for each finding of a Markdown doc meeting the
/// range whose rule can be suppressed, when the doc with the comment, checked again, has it
/// suppressed.
pub(super) fn edits<'r>(
    report: &'r Report,
    snapshot: &Arc<Snapshot>,
    meets: impl Fn(usize, usize) -> bool,
    at: &mut Positions<'_>,
) -> Vec<(&'r Finding, TextEdit)> {
    let doc = &report.docs[0].doc;
    if doc.kind != DocKind::Markdown {
        return Vec::new();
    }
    let mut out = Vec::new();
    for f in report.findings.iter() {
        if !can_suppress(f.rule) || !meets(f.span.start, f.span.end) {
            continue;
        }
        let comment = comment(&[f.rule], PLACEHOLDER_REASON);
        let Some((offset, inserted)) = insertion(&doc.text, f.at.line, &comment) else {
            continue;
        };
        let mut after = doc.text.clone();
        after.insert_str(offset, &inserted);
        let again = Project::check(snapshot.clone(), &doc.fs_path, doc.kind, after);
        let suppressed = again.report.suppressed.iter().any(|g| {
            g.rule == f.rule
                && g.message == f.message
                && matches!(g.suppressed, Some(Suppressed::Inline { .. }))
        });
        if suppressed {
            let here = at.position(offset);
            out.push((f, TextEdit::new(Range::new(here, here), inserted)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_setting_is_read_at_the_top_or_under_citegate() {
        assert_eq!(shows_set_aside(&json!({"suppressed": "hide"})), Some(false));
        assert_eq!(
            shows_set_aside(&json!({"citegate": {"suppressed": "show"}})),
            Some(true)
        );
        assert_eq!(shows_set_aside(&json!({"suppressed": 3})), None);
        assert_eq!(shows_set_aside(&Value::Null), None);
    }
}
