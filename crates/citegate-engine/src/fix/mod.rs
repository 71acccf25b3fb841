//! Fixes, in two layers: [`edit`] builds a citation's fix (below the rules, which attach it to
//! their findings) and [`mod@apply`] applies a report's fixes to the docs (above the audit).

pub mod apply;
pub mod edit;
pub mod suppress;

pub use apply::{
    apply, apply_spans, plan, plan_with, unified_diff, write_atomic, Blocked, DocFix, First, Plan,
};
pub use edit::{build, lines_held_by_text, Relocation};
