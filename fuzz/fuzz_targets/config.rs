//! The configuration loader on arbitrary YAML: a located error or a configuration, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = citegate::config::Config::parse(std::path::Path::new(".citegate.yaml"), text) {
        assert!(e.at <= text.len());
    }
});
