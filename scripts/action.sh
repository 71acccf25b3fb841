#!/usr/bin/env bash
# The GitHub Action's audit step (action.yml runs it; tests/it/action.rs runs it with the variables
# GitHub sets). Reads INPUT_* and the event payload, audits the docs a pull request can affect
# (`--since` its base), prints annotations, appends the Markdown summary to $GITHUB_STEP_SUMMARY,
# optionally writes SARIF and the pull-request review of the safe fixes (INPUT_REVIEW), records
# counts in $GITHUB_OUTPUT and exits by INPUT_FAIL_ON.
#
# A pull request from a stranger controls the work tree (docs, names, committed symbolic links):
# every file this step writes goes to a fresh folder under $RUNNER_TEMP, never into the work
# tree, and nothing from the work tree is run. Inputs are values, never options.
set -euo pipefail

citegate="${CITEGATE:-citegate}"

fail() {
  echo "::error title=citegate::$1"
  exit 2
}

# An input that must be a value: an option-looking one (`--shard=…`, `--write=…`) is refused.
value() {
  case "$2" in
    -*) fail "input $1 must not start with '-' (it would be read as an option)" ;;
  esac
}

since="${INPUT_SINCE:-}"
head=""
if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
  # The pull request's base commit and head commit; empty for other events (then every doc is
  # audited). The review is placed on the head's lines: the checkout is the merge commit.
  pr="$(python3 - "$GITHUB_EVENT_PATH" <<'PY'
import json, sys
pr = json.load(open(sys.argv[1])).get("pull_request") or {}
base, head = pr.get("base") or {}, pr.get("head") or {}
# One line each (a newline in a value would shift the next; GitHub's SHAs hold none).
print(" ".join(str(base.get("sha") or base.get("ref") or "").splitlines()))
print(" ".join(str(head.get("sha") or "").splitlines()))
PY
)"
  [ -z "$since" ] && since="$(sed -n 1p <<< "$pr")"
  head="$(sed -n 2p <<< "$pr")"
fi

for name in since head target config history fail-on format baseline; do
  var="INPUT_$(echo "$name" | tr 'a-z-' 'A-Z_')"
  case "$name" in since) val="$since" ;; head) val="$head" ;; *) val="${!var:-}" ;; esac
  value "$name" "$val"
  case "$val" in *$'\n'*) fail "input $name must be one line" ;; esac
done

args=(audit "--format=${INPUT_FORMAT:-github}" "--fail-on=${INPUT_FAIL_ON:-error}")
[ -n "$since" ] && args+=("--since=$since")
[ -n "${INPUT_TARGET:-}" ] && args+=("--target=$INPUT_TARGET")
[ -n "${INPUT_CONFIG:-}" ] && args+=("--config=$INPUT_CONFIG")
# The baseline: empty, citegate reads .citegate-baseline.json at the repository root when it is
# there; `false`, none is read (an empty baseline of the run's own); else the file named.
case "${INPUT_BASELINE:-}" in
  "") ;;
  false) ;;
  *) args+=("--baseline=$INPUT_BASELINE") ;;
esac
case "${INPUT_HISTORY:-true}" in
  true) ;;
  false) args+=("--no-history") ;;
  *) fail "input history must be true or false" ;;
esac

# Reports go to a folder of this run's own under RUNNER_TEMP (it outlives this step, for the
# comment and the SARIF upload), never into the checked-out work tree.
out="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/citegate.XXXXXXXX")"
report_md="$out/report.md"
if [ "${INPUT_BASELINE:-}" = false ]; then
  printf '{\n  "version": 1,\n  "findings": []\n}\n' > "$out/no-baseline.json"
  args+=("--baseline=$out/no-baseline.json")
fi
args+=("--write=markdown=$report_md" "--write=json=$out/report.json")
review=""
case "${INPUT_REVIEW:-false}" in
  true)
    if [ -n "$since" ]; then
      review="$out/review.json"
      args+=("--write=github-review=$review")
      [ -n "$head" ] && args+=("--review-head=$head")
    fi
    ;;
  false) ;;
  *) fail "input review must be true or false" ;;
esac
sarif=""
if [ -n "${INPUT_SARIF:-}" ] && [ "${INPUT_SARIF}" != "false" ]; then
  sarif="$out/citegate.sarif"
  args+=("--write=sarif=$sarif")
fi

# Paths: one per line (a path may hold spaces); each must be a path, not an option.
paths=()
while IFS= read -r line || [ -n "$line" ]; do
  line="${line%$'\r'}"
  [ -z "${line//[[:space:]]/}" ] && continue
  value paths "$line"
  paths+=("$line")
done <<< "${INPUT_PATHS:-.}"
[ "${#paths[@]}" -eq 0 ] && paths=(.)
args+=(-- "${paths[@]}")

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

# One output: `name<<DELIMITER`, the value, the delimiter; the delimiter is random, so no value
# can end the block early and inject another output.
output() {
  local delim
  delim="citegate_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  case "$2" in *"$delim"*) fail "an output value holds its delimiter" ;; esac
  printf '%s<<%s\n%s\n%s\n' "$1" "$delim" "$2" "$delim" >> "$GITHUB_OUTPUT"
}
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  counts="$(python3 - "$out/report.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
for key in ("errors", "warnings", "notes", "findings", "citations", "docs"):
    print(f"{key} {int(s[key])}")
PY
)"
  while read -r key n; do
    output "$key" "$n"
  done <<< "$counts"
  [ -n "$sarif" ] && output sarif "$sarif"
  [ -n "$review" ] && output review "$review"
  output report "$report_md"
fi
exit "$code"
