//! The JSON answer reader and span finder (`.json` and `.jsonl`, and Markdown) on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    citegate::testing::extract_all_kinds(text).unwrap();
});
