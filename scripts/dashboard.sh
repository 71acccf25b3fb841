#!/usr/bin/env bash
# The README's screenshot of `sweep --html`: a generated wiki of 1,000 citations (the benchmark
# corpus generator), swept twice a week apart with `fix` applied in between (so the trend shows
# fixed findings), rendered by headless Chromium.
#
#   scripts/dashboard.sh            # writes docs/src/dashboard.png
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet --bins --example corpus
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$PWD/target/release"
"$bin/examples/corpus" "$work/wiki" --citations 1000 --seed 7 >/dev/null
cd "$work/wiki"
SOURCE_DATE_EPOCH=1796112000 "$bin/citegate" sweep --history "$work/history.jsonl" >/dev/null || true
"$bin/citegate" fix docs >/dev/null || true
SOURCE_DATE_EPOCH=1796716800 "$bin/citegate" sweep --history "$work/history.jsonl" \
  --html "$work/report" >/dev/null || true
cd - >/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1500 \
  --screenshot="$PWD/docs/src/dashboard.png" "file://$work/report/index.html" 2>/dev/null
echo "docs/src/dashboard.png"
