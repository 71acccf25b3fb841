//! The Markdown report's escaping on arbitrary text: it renders as plain text, never a link, an
//! image, HTML, emphasis or a mention (`citegate::testing::markdown_inert`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = citegate::testing::markdown_inert(text) {
        panic!("{e}");
    }
});
