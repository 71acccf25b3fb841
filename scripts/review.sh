#!/usr/bin/env bash
# The Action's optional pull-request review (input `review: true`): the safe fixes on lines the
# pull request changed, as suggested changes. citegate writes the request body (`audit
# --format github-review`); this script only posts it through `gh` and the workflow token.
# On each push the earlier review is replaced: the review comments this token's own identity
# wrote (they start with the marker) are deleted and its earlier reviews' bodies are marked as
# superseded. Nothing anyone else wrote is touched, nothing is dismissed.
# A pull request from a fork gets a read-only token (GitHub answers a write with HTTP 403): the
# suggestions go to the job summary instead, with a notice saying why, and the step passes (the
# audit step alone fails the job, on findings). Any other failure fails the step.
# Usage: review.sh REVIEW.json   (needs GH_TOKEN, GITHUB_REPOSITORY and GITHUB_EVENT_PATH)
set -euo pipefail
review="$1"
marker="<!-- citegate-review -->"
superseded="$marker
citegate: superseded by a newer review."
# The pull request's number, and where its head is: `fork: NAME` (another repository, or
# `fork:` when it was deleted), else nothing.
pr="$(python3 "$(dirname "$0")/pull_request.py" "$GITHUB_EVENT_PATH" "$GITHUB_REPOSITORY")"
number="$(sed -n 1p <<< "$pr")"
fork="$(sed -n 2p <<< "$pr")"
if [ -z "$number" ]; then
  echo "citegate: not a pull request: no review" >&2
  exit 0
fi
case "$number" in *[!0-9]*) echo "citegate: odd pull request number: no review" >&2; exit 2 ;; esac
comments="$(python3 -c '
import json, sys
review = json.load(open(sys.argv[1]))
assert isinstance(review.get("comments"), list), "the review body has no comments list"
print(len(review["comments"]))' "$review")"

# Why the review was not posted, as a notice (a workflow command: `%`, CR and LF escaped), and
# its suggestions in the job summary instead; the step passes.
not_posted() {
  local why="citegate: the review was not posted on #$number: $1; its $comments suggested fix(es) are in the job summary"
  why="${why//%/%25}"
  why="${why//$'\r'/%0D}"
  why="${why//$'\n'/%0A}"
  echo "::notice title=citegate::$why"
  summary >> "${GITHUB_STEP_SUMMARY:-/dev/stdout}"
  exit 0
}

# The review's suggestions as Markdown, for the job summary: each comment's body (written by
# citegate, its messages escaped) under its doc path and lines, the path escaped as plain text;
# within GitHub's 1 MiB for a step's summary.
summary() {
  python3 - "$review" <<'PY'
import json, re, sys
review = json.load(open(sys.argv[1]))
def text(s):
    s = re.sub(r"[\x00-\x1f\x7f\u202a-\u202e\u2066-\u2069]", "\ufffd", s)
    return re.sub(r"([\\`*_{}\[\]()#+!|<>~&.:^$])", r"\\\1", s).replace("@", "@&#8203;")
out = ["## citegate: suggested fixes\n",
       "GitHub did not take the review on this pull request; each block is what `citegate fix` "
       "writes on those lines of the pull request's head.\n"]
size, left = sum(map(len, out)), 0
for c in review["comments"]:
    lines = f"{c['start_line']}\u2013{c['line']}" if "start_line" in c else str(c["line"])
    part = f"### {text(c['path'])} line {lines}\n\n{c['body']}\n\n"
    if left or size + len(part.encode()) > 1_000_000:
        left += 1
        continue
    size += len(part.encode())
    out.append(part)
if left:
    out.append(f"{left} more suggested fix(es) not shown here: run `citegate fix`.\n")
sys.stdout.write("\n".join(out))
PY
}

# `gh api ARGS…` posting the review, its output dropped. A refusal for want of permission (HTTP
# 403: a fork's read-only token, or a workflow without `pull-requests: write`) is not the
# author's fault: the review goes to the summary instead. Any other failure fails the step.
post() {
  local err
  err="$(mktemp)"
  if gh api "$@" >/dev/null 2>"$err"; then
    rm -f "$err"
    return 0
  fi
  cat "$err" >&2
  if grep -q "(HTTP 403)" "$err"; then
    rm -f "$err"
    not_posted "GitHub refused the workflow token (HTTP 403: a pull request from a fork, or no permissions pull-requests: write)"
  fi
  rm -f "$err"
  exit 1
}

if [ -n "$fork" ] && [ "$comments" -eq 0 ]; then
  echo "citegate: no safe fix on lines this pull request changed: no review"
  exit 0
elif [ -n "$fork" ]; then
  from="${fork#fork: }"
  not_posted "it comes from ${from:-a deleted fork}, and a fork's workflow token is read-only"
fi

# Only what this token's own identity wrote is ever changed: anyone can write the marker.
me="$(gh api graphql -f query='query { viewer { login } }' --jq .data.viewer.login 2>/dev/null || true)"
case "$me" in
  ""|*[!A-Za-z0-9_.\[\]-]*) me="github-actions[bot]" ;;
esac
# The ids of the items (of every page `gh api --paginate` prints) by `me` whose body starts with
# the marker, except those whose body is exactly $3.
ours() {
  python3 -c '
import json, sys
me, marker, skip = sys.argv[1], sys.argv[2], sys.argv[3]
text, dec, at = sys.stdin.read(), json.JSONDecoder(), 0
while at < len(text):
    if text[at].isspace():
        at += 1
        continue
    page, at = dec.raw_decode(text, at)
    for c in page:
        body = c.get("body") or ""
        if (c.get("user") or {}).get("login") == me and body.startswith(marker) and body != skip:
            print(int(c["id"]))
' "$me" "$marker" "$1"
}
old_comments="$(gh api "repos/$GITHUB_REPOSITORY/pulls/$number/comments" --paginate | ours "")"
old_reviews="$(gh api "repos/$GITHUB_REPOSITORY/pulls/$number/reviews" --paginate | ours "$superseded")"

# The new review first: a failed post leaves the earlier one in place.
if [ "$comments" -gt 0 ]; then
  post --method POST "repos/$GITHUB_REPOSITORY/pulls/$number/reviews" --input "$review"
  echo "citegate: suggested $comments safe fix(es) on #$number"
else
  echo "citegate: no safe fix on lines this pull request changed: no review"
fi
for id in $old_comments; do
  gh api --method DELETE "repos/$GITHUB_REPOSITORY/pulls/comments/$id" >/dev/null
done
for id in $old_reviews; do
  gh api --method PUT "repos/$GITHUB_REPOSITORY/pulls/$number/reviews/$id" -f "body=$superseded" >/dev/null
done
