//! `citegate fix` in one run: a fix can free another (a citation fixed to hold at its doc's pin
//! lets the pin move with the others), so the docs a plan changes are audited again in memory
//! and planned again until nothing is left, at most [`ROUNDS`] times. Every fix of every round
//! was re-checked by the audit that offered it ([`crate::audit::verify`]); a second `citegate
//! fix` then has nothing to do.

use super::settings::Settings;
use super::{check_docs, load, Session};
use crate::fix::{self, DocFix, Plan};
use crate::model::Report;

/// Plans after the first, at most.
pub const ROUNDS: usize = 3;

/// [`crate::fix::plan`] of `report` (audited in `session`), carried to its fixpoint: the text each doc ends
/// with, how many citations and pins moved in all, and the edits held back in the first round.
pub fn plan(session: &Session, report: &Report, opt_in: bool) -> Plan {
    let mut first = fix::plan(report, opt_in);
    let settings = Settings {
        progress: Default::default(),
        ..session.settings.clone()
    };
    let ctx = &session.ctx;
    for _ in 0..ROUNDS {
        let docs = first
            .docs
            .iter()
            .map(|d| {
                load::with_text(
                    &report.docs[d.doc].doc,
                    d.after.clone(),
                    ctx,
                    &settings.config,
                )
            })
            .collect();
        let again = check_docs(&session.repo, session.target, docs, &settings);
        let next = fix::plan(&again, opt_in);
        if next.docs.is_empty() {
            break;
        }
        for DocFix {
            doc,
            after,
            applied,
            pins,
        } in next.docs
        {
            // The re-audit holds `first`'s docs in its order: its doc IDs index them.
            let d = &mut first.docs[doc.index()];
            d.after = after;
            d.applied += applied;
            d.pins += pins;
        }
    }
    first
}
