//! The Markdown extractor on arbitrary text: no panic, every span inside the doc.
#![no_main]

use citegate::model::{Doc, DocKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let doc = Doc::new(
        "docs/a.md".into(),
        "docs/a.md".into(),
        Some("docs".into()),
        DocKind::Markdown,
        text.to_string(),
    );
    let ext = citegate::extract::extract(&doc, &Default::default());
    citegate::testing::check_spans(text, &ext).unwrap();
});
