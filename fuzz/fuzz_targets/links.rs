//! The permalink, bare-citation and line-range parsers on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    citegate::testing::parse_links(text).unwrap();
});
