#!/usr/bin/env bash
# Validate what citegate ships against the official schemas: its SARIF output with the official
# SARIF multitool (npm @microsoft/sarif-multitool-linux) and the OASIS schema, its rdjson, GitLab
# and JUnit output against the schemas vendored in schemas/, action.yml and the
# workflows with check-jsonschema's built-in GitHub schemas. Installs both tools into a cache
# folder when they are missing; never skips a check because a tool is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${CITEGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/citegate-ci}"
mkdir -p "$cache"

need() { command -v "$1" >/dev/null 2>&1; }
apt_install() {
  need apt-get || { echo "validate: cannot install $*: no apt-get" >&2; exit 1; }
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The SARIF multitool: a self-contained binary inside the npm package.
multitool="$cache/sarif/package/Sarif.Multitool"
if [ ! -x "$multitool" ]; then
  need npm || apt_install npm
  rm -rf "$cache/sarif" && mkdir -p "$cache/sarif"
  (cd "$cache/sarif" && npm pack --silent @microsoft/sarif-multitool-linux >/dev/null && tar xzf microsoft-sarif-multitool-linux-*.tgz)
  chmod +x "$multitool"
fi

# check-jsonschema, in its own virtual environment.
checker="$cache/venv/bin/check-jsonschema"
if [ ! -x "$checker" ]; then
  need python3 || apt_install python3 python3-venv
  python3 -m venv "$cache/venv" || { apt_install python3-venv && python3 -m venv "$cache/venv"; }
  "$cache/venv/bin/pip" install -q check-jsonschema
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# SARIF from the bundled example (it has findings of many rules and a fix).
scripts/example.sh --format sarif > "$out/example.sarif"
report="$("$multitool" validate "$out/example.sarif" 2>&1)"
if grep -E ': (error|warning) [A-Z]+[0-9]+:' <<< "$report" || ! grep -q 'Analysis completed successfully' <<< "$report"; then
  echo "validate: the SARIF multitool reports problems:" >&2
  echo "$report" >&2
  exit 1
fi
echo "validate: SARIF multitool: no errors, no warnings"
schema="../shared/schemas/sarif-schema-2.1.0.json"
[ -f "$schema" ] || schema="$cache/sarif/package/sarif-2.1.0.json"
"$checker" --schemafile "$schema" "$out/example.sarif"

# The review formats from the bundled example, against the schemas vendored in schemas/ (see its
# README for their sources): reviewdog's rdjson, GitLab Code Quality (each issue against GitLab's
# parser schema, the array against its documented format), and JUnit XML against Jenkins' XSD.
need xmllint || apt_install libxml2-utils
scripts/example.sh --format rdjson > "$out/example.rdjson"
"$checker" --schemafile schemas/reviewdog-DiagnosticResult.json "$out/example.rdjson"
scripts/example.sh --format gitlab > "$out/example.gitlab.json"
"$checker" --schemafile schemas/gitlab-codequality-report.json "$out/example.gitlab.json"
python3 -c 'import json, sys
for i, issue in enumerate(json.load(open(sys.argv[1]))):
    json.dump(issue, open(f"{sys.argv[2]}/issue-{i}.json", "w"))' "$out/example.gitlab.json" "$out"
"$checker" --schemafile schemas/gitlab-codeclimate.json "$out"/issue-*.json
scripts/example.sh --format junit > "$out/example.junit.xml"
xmllint --noout --schema schemas/junit-10.xsd "$out/example.junit.xml"

# The `.gitlab-ci.yml` example of docs/src/review.md, against GitLab's CI schema.
python3 -c 'import re, sys
text = open("docs/src/review.md").read()
block = re.search(r"```yaml\n(# \.gitlab-ci\.yml.*?)```", text, re.S)
assert block, "docs/src/review.md has no .gitlab-ci.yml example"
open(sys.argv[1], "w").write(block.group(1))' "$out/gitlab-ci.yml"
"$checker" --builtin-schema vendor.gitlab-ci "$out/gitlab-ci.yml"

# The Action and the workflows.
"$checker" --builtin-schema vendor.github-actions action.yml
"$checker" --builtin-schema vendor.github-workflows .github/workflows/*.yml
