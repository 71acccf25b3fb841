//! How the audit's parallel loops are split into rayon jobs.

/// Docs per rayon job, at most. Rayon splits a loop into a few pieces per thread and never
/// splits a piece it has started, so on two cores a thread that ran out of work waited for the
/// other to finish a quarter of the loop (5-8% of the wiki corpus's run, in tails at the end
/// of each stage); pieces this small are taken over.
pub(super) const DOCS_PER_JOB: usize = 4;

/// Citations, facts or findings per rayon job, at most (see [`DOCS_PER_JOB`]).
pub(super) const ITEMS_PER_JOB: usize = 64;
