#!/usr/bin/env bash
# The engine's public API (crates/citegate-engine) against the last release tag, with
# cargo-semver-checks: a change that breaks a user of the engine needs a new major version (a new
# minor one before 1.0). Before the first release there is nothing to compare with, and it says so.
#
#     scripts/semver.sh            # run by .github/workflows/ci.yml's engine-api job
set -euo pipefail
cd "$(dirname "$0")/.."

tag="$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || true)"
if [ -z "$tag" ]; then
  echo "semver: no release tag (v*) yet: the engine's API has no release to be compared with"
  exit 0
fi
if ! cargo semver-checks --version >/dev/null 2>&1; then
  cargo install --locked cargo-semver-checks
fi
echo "semver: citegate-engine against $tag"
cargo semver-checks check-release --package citegate-engine --baseline-rev "$tag"
