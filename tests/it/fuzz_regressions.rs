//! Inputs the fuzzers found crashing (`fuzz/`, see FUZZING.md), kept as regression tests on stable:
//! each file in `tests/fuzz-regressions/TARGET/` goes through the checks of its fuzz target.

use std::path::Path;

use citegate::testing;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn every_kept_crash_now_passes_its_target() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for target in ["markdown", "answer", "links", "config", "markdown_escape"] {
        for (name, bytes) in inputs(target) {
            seen += 1;
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let result = match target {
                "links" => testing::parse_links(text),
                "markdown_escape" => testing::markdown_inert(text),
                "config" => {
                    match citegate::config::Config::parse(".citegate.yaml".as_ref(), text) {
                        Err(e) if e.at > text.len() => {
                            Err(format!("error at {} of {}", e.at, text.len()))
                        }
                        _ => Ok(()),
                    }
                }
                _ => testing::extract_all_kinds(text),
            };
            if let Err(e) = result {
                failures.push(format!("{target}/{name}: {e}"));
            }
        }
    }
    assert!(seen > 0, "no kept crashes found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
