//! The data model: plain data that travels between the stages (docs, spans, citations, claims,
//! answers, findings, fixes, the report). It depends on nothing in the crate but the rule
//! [`crate::registry`]; every stage depends on it.

pub mod baseline;
mod citation;
mod doc;
mod extracted;
mod finding;
pub mod hash;
mod ids;
pub mod report;
mod span;
mod surface;

pub use citation::{
    Citation, CitedPath, Claim, Foreign, IncludePart, LineRange, LineStyle, Literal, LiteralKind,
    Markers, PathStyle, PinSource, Quote, Syntax, TextMark,
};
pub use doc::{Doc, DocKind, FileStat};
pub use extracted::{
    AnchorLink, AnchorPage, Answer, AnswerObject, AnswerUnit, AuditedDoc, CiteRef, DocList,
    DocProblem, Extracted, InlineSuppression, Marker, ObjectAt, Refuse, Retrieved, SourceEntry,
    Sources, Unusable, UnusableCitation, MAX_CITATIONS_PER_DOC,
};
pub use finding::{fingerprint, Applicability, Edit, Finding, Fix, Position, Suppressed};
pub use ids::{AnswerId, CiteId, ClaimId, DocId, IndexVec};
pub use report::{PinMove, Reason, RenamesSkipped, Report, Summary};
pub use span::{LineIndex, Span};
pub use surface::Surface;
