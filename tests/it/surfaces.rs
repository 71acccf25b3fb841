//! One input, one verdict and one edit on every surface: `tests/surfaces/test_surfaces.py`
//! drives `citegate audit`, `fix`, `gate`, `regenerate`, the language server (pytest-lsp) and the
//! MCP server (the official MCP Python SDK) over one fixture and compares what each says and
//! offers with the audit's JSON report and with what `citegate fix` writes.
#![cfg(all(feature = "lsp", feature = "mcp"))]

use crate::common;

use citegate::testing::Fixture;

/// Code that moves and changes after the docs were written: moved citations (safe fixes), a
/// changed one, an invented path and a move held back (its line holds a changed citation) in a
/// wiki page; an answer from a cache (untracked, as an
/// answer leaving an API: checked at the target, as the gate checks it) with a quote at other
/// lines (a safe fix) and an invented path.
const SPEC: &str = "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ file src/price.rs
pub const VAT: u32 = 20;
@@@ commit docs the wiki
@@@ file docs/wiki.md
# Cache

The TTL is set in src/cache.rs:2, and read in src/cache.rs:4-6.

The VAT is in src/price.rs:1.

A guess: src/nope.rs:3.

On one line, src/cache.rs:2 and src/price.rs:1: the move is held back.
@@@ commit v2 the cache moves down, the VAT changes
@@@ file src/cache.rs
// The cache.

/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ file src/price.rs
pub const VAT: u32 = 21;
@@@ untracked answers/a.json
{\"summary\": \"The TTL is 30 seconds.\", \"citations\": [{\"path\": \"src/cache.rs\", \"startLine\": 2, \"endLine\": 2, \"quote\": \"pub const TTL_SECONDS: u64 = 30;\"}, {\"path\": \"src/ttl.rs\", \"startLine\": 2, \"endLine\": 2, \"quote\": \"TTL\"}]}
";

#[test]
fn every_surface_says_and_offers_what_the_audit_and_fix_do() {
    let fixture = Fixture::build(SPEC).unwrap();
    let bin = env!("CARGO_BIN_EXE_citegate");
    common::pytest("surfaces", "test_surfaces.py", bin, fixture.path(), 7);
}
