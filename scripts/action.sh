#!/usr/bin/env bash
# The GitHub Action's audit step (action.yml runs it; tests/action.rs runs it with the variables
# GitHub sets). Reads INPUT_* and the event payload, audits the docs a pull request can affect
# (`--since` its base), prints annotations, appends the Markdown summary to $GITHUB_STEP_SUMMARY,
# optionally writes SARIF, records counts in $GITHUB_OUTPUT and exits by INPUT_FAIL_ON.
set -euo pipefail

citegate="${CITEGATE:-citegate}"
since="${INPUT_SINCE:-}"
if [ -z "$since" ] && [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
  # The pull request's base commit; empty for other events (then every doc is audited).
  since="$(python3 - "$GITHUB_EVENT_PATH" <<'PY'
import json, sys
event = json.load(open(sys.argv[1]))
base = (event.get("pull_request") or {}).get("base") or {}
print(base.get("sha") or base.get("ref") or "")
PY
)"
fi

args=(audit --format "${INPUT_FORMAT:-github}" --fail-on "${INPUT_FAIL_ON:-error}")
[ -n "$since" ] && args+=(--since "$since")
[ -n "${INPUT_TARGET:-}" ] && args+=(--target "$INPUT_TARGET")
[ -n "${INPUT_CONFIG:-}" ] && args+=(--config "$INPUT_CONFIG")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The Markdown report is kept for the comment step (RUNNER_TEMP outlives this step).
report_md="${RUNNER_TEMP:-$tmp}/citegate-report.md"
args+=(--write "markdown=$report_md" --write "json=$tmp/report.json")
[ -n "${INPUT_SARIF:-}" ] && args+=(--write "sarif=$INPUT_SARIF")
# Paths last, split on whitespace.
read -r -a paths <<< "${INPUT_PATHS:-.}"
args+=("${paths[@]}")

set +e
"$citegate" "${args[@]}"
code=$?
set -e

if [ "$code" -eq 2 ]; then
  echo "::error title=citegate::the audit could not run (see the log above); with --since, the checkout needs the base commit: use actions/checkout with fetch-depth: 0"
  exit 2
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$report_md" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  python3 - "$tmp/report.json" >> "$GITHUB_OUTPUT" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
for key in ("errors", "warnings", "notes", "findings", "citations", "docs"):
    print(f"{key}={s[key]}")
PY
  [ -n "${INPUT_SARIF:-}" ] && echo "sarif=$INPUT_SARIF" >> "$GITHUB_OUTPUT"
  [ -n "${RUNNER_TEMP:-}" ] && echo "report=$report_md" >> "$GITHUB_OUTPUT"
fi
exit "$code"
