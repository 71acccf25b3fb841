//! `scripts/structure.py` (run by CI) holds the library's layer table and fails on an upward
//! edge, a module in no layer, and an import circle; the real tree passes.

use std::path::Path;
use std::process::Command;

fn structure(src: Option<&Path>) -> std::process::Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/structure.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script);
    if let Some(src) = src {
        cmd.arg("--src").arg(src);
    }
    cmd.output().expect("python3 runs scripts/structure.py")
}

/// A source tree of `(path, text)` files in a fresh folder.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn the_real_tree_has_no_upward_edge() {
    let out = structure(None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("no upward edge"), "{stdout}");
}

#[test]
fn a_lower_layer_using_a_higher_one_fails() {
    // `model` (layer 2) using `audit` (layer 7): the edge the layers forbid.
    let dir = tree(&[
        ("lib.rs", "pub mod audit;\npub mod model;\n"),
        (
            "model/mod.rs",
            "use crate::audit::Session;\npub struct Doc;\n",
        ),
        (
            "audit/mod.rs",
            "use crate::model::Doc;\npub struct Session;\n",
        ),
    ]);
    let out = structure(Some(dir.path()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("upward edge: model (layer 2) uses audit (layer 7)"),
        "{stderr}"
    );

    // The same tree with the edge pointing down passes.
    let dir = tree(&[
        ("lib.rs", "pub mod audit;\npub mod model;\n"),
        ("model/mod.rs", "pub struct Doc;\n"),
        (
            "audit/mod.rs",
            "use crate::model::Doc;\npub struct Session;\n",
        ),
    ]);
    let out = structure(Some(dir.path()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_module_in_no_layer_and_a_circle_within_a_layer_fail() {
    let dir = tree(&[
        (
            "lib.rs",
            "pub mod extract;\npub mod contract;\npub mod novel;\n",
        ),
        (
            "extract.rs",
            "use crate::contract::Keys;\npub struct Found;\n",
        ),
        (
            "contract.rs",
            "use crate::extract::Found;\npub struct Keys;\n",
        ),
        ("novel.rs", "use crate::extract::Found;\n"),
    ]);
    let out = structure(Some(dir.path()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("module `novel` is in no layer"), "{stderr}");
    assert!(stderr.contains("import circle"), "{stderr}");
}
