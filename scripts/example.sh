#!/usr/bin/env bash
# Build the bundled example repository from fixtures/example.fixture (a small shop with a wiki and
# AI answers, fixed author and dates so commit IDs are stable) and audit it. Extra arguments go to
# `citegate audit`, e.g. `scripts/example.sh --format json`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
  echo "example: cargo is missing; install Rust (rustup) first" >&2
  exit 2
fi
# Without CMake, libgit2 is built with the system's zlib instead of zlib-ng (same verdicts, a
# little slower).
features=(--features testing)
if ! command -v cmake >/dev/null 2>&1; then
  features=(--no-default-features --features testing,mcp,lsp,llm)
fi
# Said before it starts, and cargo's own progress shown: the first build is minutes of silence
# otherwise (7 minutes on 2 cores, 2.3 GB under target/; then seconds).
if [ ! -x "${CARGO_TARGET_DIR:-target}/debug/citegate" ]; then
  echo "example: building citegate and the fixture builder (a debug build: the first takes minutes" \
    "and about 2.3 GB under ${CARGO_TARGET_DIR:-target}/)" >&2
fi
cargo build --locked --bins --example fixture "${features[@]}"
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug"
dir="${CARGO_TARGET_DIR:-target}/example"
rm -rf "$dir"
"$bin/examples/fixture" fixtures/example.fixture "$dir"
cd "$dir"
set +e
"$bin/citegate" audit "$@"
code=$?
set -e
if [ "$code" -eq 1 ]; then
  echo "(citegate exited 1: the example holds invented and unsupported citations on purpose)" >&2
  exit 0
fi
exit "$code"
