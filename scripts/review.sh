#!/usr/bin/env bash
# The Action's optional pull-request review (input `review: true`): the safe fixes on lines the
# pull request changed, as suggested changes. citegate writes the request body (`audit
# --format github-review`); this script only posts it through `gh` and the workflow token.
# On each push the earlier review is replaced: the review comments this token's own identity
# wrote (they start with the marker) are deleted and its earlier reviews' bodies are marked as
# superseded. Nothing anyone else wrote is touched, nothing is dismissed.
# Usage: review.sh REVIEW.json   (needs GH_TOKEN, GITHUB_REPOSITORY and GITHUB_EVENT_PATH)
set -euo pipefail
review="$1"
marker="<!-- citegate-review -->"
superseded="$marker
citegate: superseded by a newer review."
number="$(python3 -c 'import json,sys; print((json.load(open(sys.argv[1])).get("pull_request") or {}).get("number") or "")' "$GITHUB_EVENT_PATH")"
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
  gh api --method POST "repos/$GITHUB_REPOSITORY/pulls/$number/reviews" --input "$review" >/dev/null
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
