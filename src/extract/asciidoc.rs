use super::context::ExtractContext;
use crate::model::{Doc, Extracted};
pub(super) fn includes(_doc: &Doc, _ctx: &ExtractContext, _ext: &mut Extracted) {}
