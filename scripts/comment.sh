#!/usr/bin/env bash
# The Action's optional pull-request comment: one sticky comment holding the Markdown report,
# created on the first run and updated on every push after, through `gh` and the workflow token.
# A report longer than GitHub takes in a comment is cut to fit, saying so and where the full one
# is. A pull request from a fork gets a read-only token (GitHub answers a write with HTTP 403):
# then nothing is posted, a notice says why (the report is in the job summary, which the audit
# step wrote) and the step passes; any other failure fails the step.
# Usage: comment.sh REPORT.md   (needs GH_TOKEN, GITHUB_REPOSITORY and GITHUB_EVENT_PATH)
set -euo pipefail
report="$1"
marker="<!-- citegate-report -->"
# The pull request's number, and where its head is: `fork: NAME` (another repository, or
# `fork:` when it was deleted), else nothing.
pr="$(python3 "$(dirname "$0")/pull_request.py" "$GITHUB_EVENT_PATH" "${GITHUB_REPOSITORY:-}")"
number="$(sed -n 1p <<< "$pr")"
fork="$(sed -n 2p <<< "$pr")"
if [ -z "$number" ]; then
  echo "citegate: not a pull request: no comment" >&2
  exit 0
fi

# Why the comment was not posted, as a notice (a workflow command: `%`, CR and LF escaped); the
# step passes.
not_posted() {
  local why="citegate: the report comment was not posted on #$number: $1; the report is in the job summary"
  why="${why//%/%25}"
  why="${why//$'\r'/%0D}"
  why="${why//$'\n'/%0A}"
  echo "::notice title=citegate::$why"
  exit 0
}
if [ -n "$fork" ]; then
  from="${fork#fork: }"
  not_posted "it comes from ${from:-a deleted fork}, and a fork's workflow token is read-only"
fi

body="$(mktemp)"
trap 'rm -f "$body" "$body.err"' EXIT
# GitHub refuses a comment body over 65,536 characters (HTTP 422): the marker and the report, cut
# at a line to fit (counted in bytes, never fewer than GitHub's characters), a collapsed section
# left open closed, and a last line saying it was cut and where the full report is.
python3 - "$report" "$marker" "$body" <<'PY'
import os, sys
MAX_BODY = 65_536
report, marker, out = open(sys.argv[1], "rb").read(), sys.argv[2].encode(), sys.argv[3]
body = marker + b"\n" + report
if len(body) > MAX_BODY:
    run, server, repo = (os.environ.get(k, "") for k in ("GITHUB_RUN_ID", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY"))
    where = "the job summary of this run"
    if run.isdigit() and server.startswith("https://") and repo:
        where = f"[the job summary of this run]({server}/{repo}/actions/runs/{run})"
    note = f"\n\n**citegate**: this report was cut to fit a comment \\(GitHub takes {MAX_BODY} characters\\); the full report is in {where}\\.\n".encode()
    # The report's collapsed sections are not nested: room for a few closings is plenty.
    close, closings = b"\n</details>\n", 8
    cut = body[: MAX_BODY - len(note) - closings * len(close)]
    cut = cut[: cut.rfind(b"\n") + 1 or len(cut)]
    left_open = cut.count(b"<details>") - cut.count(b"</details>")
    body = cut + close * min(max(left_open, 0), closings) + note
open(out, "wb").write(body.decode("utf-8", "ignore").encode())
PY

# `gh api ARGS…`, its output dropped; a refusal for want of permission (HTTP 403) is not the
# author's fault, any other failure fails the step.
write() {
  if gh api "$@" >/dev/null 2>"$body.err"; then
    return 0
  fi
  cat "$body.err" >&2
  if grep -q "(HTTP 403)" "$body.err"; then
    not_posted "GitHub refused the workflow token (HTTP 403: a pull request from a fork, or no permissions pull-requests: write)"
  fi
  exit 1
}

# Only a comment this token's own identity wrote is ever edited: anyone can post a comment that
# starts with the marker.
me="$(gh api graphql -f query='query { viewer { login } }' --jq .data.viewer.login 2>/dev/null || true)"
case "$me" in
  ""|*[!A-Za-z0-9_.\[\]-]*) me="github-actions[bot]" ;;
esac
existing="$(gh api "repos/$GITHUB_REPOSITORY/issues/$number/comments" --paginate \
  | python3 -c '
import json, sys
me, marker = sys.argv[1], sys.argv[2]
text, dec, at = sys.stdin.read(), json.JSONDecoder(), 0
while at < len(text):
    if text[at].isspace():
        at += 1
        continue
    page, at = dec.raw_decode(text, at)
    for c in page:
        if (c.get("user") or {}).get("login") == me and (c.get("body") or "").startswith(marker):
            print(c["id"])
            sys.exit(0)
' "$me" "$marker")"
if [ -n "$existing" ]; then
  write --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" -F "body=@$body"
  echo "citegate: updated the report comment on #$number"
else
  write --method POST "repos/$GITHUB_REPOSITORY/issues/$number/comments" -F "body=@$body"
  echo "citegate: commented the report on #$number"
fi
