#!/usr/bin/env bash
# The Action's optional pull-request comment: one sticky comment holding the Markdown report,
# created on the first run and updated on every push after, through `gh` and the workflow token.
# Usage: comment.sh REPORT.md   (needs GH_TOKEN, GITHUB_REPOSITORY and GITHUB_EVENT_PATH)
set -euo pipefail
report="$1"
marker="<!-- citegate-report -->"
number="$(python3 -c 'import json,sys; print((json.load(open(sys.argv[1])).get("pull_request") or {}).get("number") or "")' "$GITHUB_EVENT_PATH")"
if [ -z "$number" ]; then
  echo "citegate: not a pull request: no comment" >&2
  exit 0
fi
body="$(mktemp)"
trap 'rm -f "$body"' EXIT
{ echo "$marker"; cat "$report"; } > "$body"
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
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" -F "body=@$body" >/dev/null
  echo "citegate: updated the report comment on #$number"
else
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$number/comments" -F "body=@$body" >/dev/null
  echo "citegate: commented the report on #$number"
fi
