use super::context::ExtractContext;
use crate::model::{Doc, Extracted};
pub(super) fn directives(_doc: &Doc, _ctx: &ExtractContext, _ext: &mut Extracted) {}
pub(super) fn myst(_doc: &Doc, _ctx: &ExtractContext, _ext: &mut Extracted) {}
