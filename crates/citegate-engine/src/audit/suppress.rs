//! The last stage: findings that do not count are set aside, each with why. In order: a
//! suppression comment in the doc (`<!-- citegate-ignore RULE: reason -->`), a waiver in
//! `.citegate.yaml` that has not ended, the baseline. A finding of an `input` rule is never set
//! aside ([`crate::model::baseline::can_suppress`]). Then `unused-suppression` on every comment
//! that did not do its job, and the baseline entries of the audited docs no finding matched
//! (fixed). The baseline's lookup is one hash map built per run; no file is read per finding.

use std::collections::{BTreeSet, HashMap};

use crate::config::{Date, Waiver, WAIVER_WARNING_DAYS};
use crate::model::baseline::{can_suppress, Baseline, Entry};
use crate::model::{AuditedDoc, DocId, Finding, InlineSuppression, Report, Summary, Suppressed};
use crate::registry::{RuleId, Severity};
use crate::rules::unused_suppression::{self, Trouble};

use super::order::{place, sort_key};
use super::settings::Settings;

/// Set aside the findings of `report` that do not count, add `unused-suppression`, and count.
pub fn apply(report: &mut Report, settings: &Settings) {
    let nothing_to_do = settings.baseline.is_none()
        && settings.config.waivers.is_empty()
        && report
            .docs
            .iter()
            .all(|d| d.extracted.suppressions.is_empty());
    if nothing_to_do {
        return;
    }
    let mut baseline = settings
        .baseline
        .as_ref()
        .map(|b| b.counts())
        .unwrap_or_default();
    // Which comments suppressed something: (doc, index in its suppressions).
    let mut used: BTreeSet<(DocId, usize)> = BTreeSet::new();
    let mut active = Vec::with_capacity(report.findings.len());
    for mut f in std::mem::take(&mut report.findings) {
        let doc = &report.docs[f.doc];
        if can_suppress(f.rule) {
            f.suppressed = inline(doc, &f, &mut used)
                .or_else(|| waived(&settings.config.waivers, doc, &mut f, settings.today))
                .or_else(|| in_baseline(&mut baseline, &f));
        }
        match f.suppressed {
            Some(_) => report.suppressed.push(f),
            None => active.push(f),
        }
    }
    let mut added = unused(&report.docs, &used, settings);
    if !added.is_empty() {
        place(&report.docs, &mut added);
        active.append(&mut added);
        active.sort_by(|a, b| sort_key(a, &report.docs).cmp(&sort_key(b, &report.docs)));
    }
    report.findings = active;
    report.baseline_fixed = fixed(settings, &report.docs, &baseline);
    report.summary = Summary {
        approximate: report.summary.approximate,
        ..Summary::of(&report.findings, &report.docs)
    };
    report.summary.suppressed = Summary::of(&report.suppressed, &[]).suppressed;
    report.summary.baseline_fixed = report.baseline_fixed.len();
}

/// The first comment of the doc that suppresses `f` (its rule, on its first line), marked used.
fn inline(
    doc: &AuditedDoc,
    f: &Finding,
    used: &mut BTreeSet<(DocId, usize)>,
) -> Option<Suppressed> {
    let (i, s) = (doc.extracted.suppressions.iter().enumerate()).find(|(_, s)| {
        (s.lines.0..=s.lines.1).contains(&f.at.line) && s.rules.iter().any(|r| r == f.rule.as_str())
    })?;
    used.insert((f.doc, i));
    let reason = s.reason.clone().unwrap_or_else(|| "no reason given".into());
    Some(Suppressed::Inline { reason })
}

/// A waiver of `f` that has not ended. In its last [`WAIVER_WARNING_DAYS`] days the finding
/// counts again as a warning (not an error), its help saying when the waiver ends; after it, the
/// finding is as the rules made it, its help saying the waiver has ended.
fn waived(
    waivers: &[Waiver],
    doc: &AuditedDoc,
    f: &mut Finding,
    today: Date,
) -> Option<Suppressed> {
    let w = waivers.iter().find(|w| w.covers(f.rule, &doc.doc.name))?;
    let left = today.days_until(w.until);
    let note = |f: &mut Finding, text: String| {
        f.help = Some(match f.help.take() {
            Some(help) => format!("{help}; {text}"),
            None => text,
        });
    };
    if left < 0 {
        note(f, format!("its waiver ended on {} ({})", w.until, w.reason));
        return None;
    }
    if left < WAIVER_WARNING_DAYS {
        if f.severity == Severity::Error {
            f.severity = Severity::Warning;
        }
        note(
            f,
            format!(
                "waived until {} ({}): {left} day(s) left",
                w.until, w.reason
            ),
        );
        return None;
    }
    Some(Suppressed::Waiver {
        until: w.until.to_string(),
        reason: w.reason.clone(),
    })
}

/// The baseline holds `f`'s fingerprint, and has not counted it off yet.
fn in_baseline(baseline: &mut HashMap<&str, usize>, f: &Finding) -> Option<Suppressed> {
    let left = baseline
        .get_mut(f.at.fingerprint.as_str())
        .filter(|n| **n > 0)?;
    *left -= 1;
    Some(Suppressed::Baseline)
}

/// `unused-suppression` on each comment that suppressed nothing, was refused, or gives no reason.
fn unused(
    docs: &[AuditedDoc],
    used: &BTreeSet<(DocId, usize)>,
    settings: &Settings,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let doc = DocId::new(i);
        let Some(severity) = settings
            .config
            .severity(RuleId::UnusedSuppression, &d.doc.name)
        else {
            continue;
        };
        for (k, s) in d.extracted.suppressions.iter().enumerate() {
            if let Some(trouble) = trouble(s, used.contains(&(doc, k))) {
                let mut f = unused_suppression::check(doc, s, &trouble);
                f.severity = severity;
                out.push(f);
            }
        }
    }
    out
}

/// What is wrong with a suppression (`used`: it suppressed a finding), worst first.
fn trouble(s: &InlineSuppression, used: bool) -> Option<Trouble> {
    if s.rules.is_empty() {
        return Some(Trouble::NoRule);
    }
    for name in &s.rules {
        match RuleId::from_id(name) {
            None => return Some(Trouble::UnknownRule(name.clone())),
            Some(rule) if !can_suppress(rule) => return Some(Trouble::Refused(rule)),
            Some(_) => {}
        }
    }
    // The placeholder the language server's action writes is no reason until it is replaced.
    let placeholder = crate::fix::suppress::PLACEHOLDER_REASON;
    match (used, s.reason.as_deref()) {
        (false, _) => Some(Trouble::Unused),
        (true, None) => Some(Trouble::NoReason),
        (true, Some(r)) if r.trim() == placeholder => Some(Trouble::NoReason),
        (true, Some(_)) => None,
    }
}

/// The baseline entries of the audited docs that no finding matched, with how many are left.
fn fixed(settings: &Settings, docs: &[AuditedDoc], left: &HashMap<&str, usize>) -> Vec<Entry> {
    let Some(baseline) = &settings.baseline else {
        return Vec::new();
    };
    let audited: BTreeSet<&str> = docs.iter().map(|d| d.doc.name.as_str()).collect();
    let mut out: Vec<Entry> = (baseline.findings.iter())
        .filter(|e| audited.contains(e.doc.as_str()))
        .filter_map(|e| {
            let n = *left.get(e.fingerprint.as_str())?;
            (n > 0).then(|| Entry {
                count: n.min(e.count),
                ..e.clone()
            })
        })
        .collect();
    out.sort();
    out
}

/// `old` renewed by `report` (`citegate baseline`): every finding of the audited docs that
/// counts or is baselined, by fingerprint; entries of docs the run did not audit are kept.
/// Suppressed and waived findings are left to their comment or waiver.
pub fn renewed(old: Option<&Baseline>, report: &Report) -> Baseline {
    let audited: BTreeSet<&str> = report.docs.iter().map(|d| d.doc.name.as_str()).collect();
    fn named<'r>(report: &'r Report) -> impl Fn(&'r Finding) -> (&'r str, &'r Finding) {
        |f| (report.docs[f.doc].doc.name.as_str(), f)
    }
    let baselined = report
        .suppressed
        .iter()
        .filter(|f| f.suppressed == Some(Suppressed::Baseline));
    let mut out = Baseline::of(report.findings.iter().chain(baselined).map(named(report)));
    let kept = old
        .into_iter()
        .flat_map(|b| &b.findings)
        .filter(|e| !audited.contains(e.doc.as_str()));
    out.findings.extend(kept.cloned());
    out.findings.sort();
    out
}

/// `old` without what `report` found fixed (`citegate baseline --prune`): never an entry more.
pub fn pruned(old: &Baseline, report: &Report) -> Baseline {
    let fixed: HashMap<&str, usize> = (report.baseline_fixed.iter())
        .map(|e| (e.fingerprint.as_str(), e.count))
        .collect();
    let mut out = old.clone();
    out.findings
        .retain_mut(|e| match fixed.get(e.fingerprint.as_str()) {
            Some(&n) if n >= e.count => false,
            Some(&n) => {
                e.count -= n;
                true
            }
            None => true,
        });
    out.findings.sort();
    out
}
