#!/usr/bin/env bash
# The steps of the guide's "Adopting citegate on an existing repository" page, run on a clone of a
# real repository, checking what the page promises: after `fix` and `baseline` the audit is green,
# and a broken citation added afterwards fails it. The clone is changed (two commits: the fixes,
# the baseline); use a throwaway clone.
#
#   git clone https://github.com/steveyegge/beads /tmp/beads
#   scripts/adopting.sh /tmp/beads [path/to/citegate]
set -euo pipefail
repo="${1:?usage: scripts/adopting.sh CLONE [CITEGATE]}"
citegate="$(realpath "${2:-${CARGO_TARGET_DIR:-target}/release/citegate}")"
cd "$repo"
if [ -n "$(git status --porcelain)" ]; then
  echo "adopting: $repo has uncommitted changes; use a fresh clone" >&2
  exit 2
fi
commit() { git -c user.name=adopting -c user.email=adopting@example.invalid commit -qm "$1"; }

echo "== 1. citegate audit --statistics"
"$citegate" audit --statistics || true
echo "== 2. citegate fix"
"$citegate" fix
git add -A && commit "docs: citegate fix" || true
echo "== 3. citegate baseline"
"$citegate" baseline
git add .citegate-baseline.json && commit "docs: citegate baseline"
echo "== 4. citegate audit --fail-on warning (green)"
"$citegate" audit --fail-on warning >/dev/null || { echo "adopting: the audit is not green" >&2; exit 1; }
echo "green"
echo "== 5. a new broken citation fails it"
doc=README.md
[ -f "$doc" ] || doc="$(git ls-files '*.md' | grep -v '^\.\|/\.' | head -1)"
printf '\nSee `no/such/file.rs:10-12`.\n' >>"$doc"
if "$citegate" audit --fail-on warning >/dev/null 2>&1; then
  echo "adopting: a new broken citation in $doc did not fail the audit" >&2
  git checkout -q -- "$doc"
  exit 1
fi
git checkout -q -- "$doc"
echo "failed, as it must (the line added to $doc is taken back)"
