#!/usr/bin/env bash
# The Action's install step: the release asset matching the action's ref (a version tag such as
# v0.2.0) and the runner's OS and architecture, its SHA-256 checksum verified, unpacked into
# $CITEGATE_ROOT/bin and put on the PATH. Only when no asset fits (a branch or SHA ref, an
# unsupported runner, a release without that asset) is citegate built from the action's source
# with `cargo install --locked`. A checksum that does not match fails the step: nothing is
# installed. tests/it/action.rs runs this against a local folder standing in for a release.
#
# Variables: GITHUB_ACTION_REF (the version), GITHUB_ACTION_REPOSITORY, GITHUB_ACTION_PATH (the
# source for the fallback), RUNNER_OS, RUNNER_ARCH, GITHUB_PATH; CITEGATE_VERSION and
# CITEGATE_RELEASE_URL override the version and where releases are downloaded from (a URL, or a
# local folder laid out as `VERSION/ASSET`); CITEGATE_ROOT (default ~/.citegate).
set -euo pipefail

root="${CITEGATE_ROOT:-$HOME/.citegate}"
bin_dir="$root/bin"
version="${CITEGATE_VERSION:-${GITHUB_ACTION_REF:-}}"
repository="${GITHUB_ACTION_REPOSITORY:-citegate/citegate}"
releases="${CITEGATE_RELEASE_URL:-https://github.com/$repository/releases/download}"
source_dir="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"

on_path() {
  [ -n "${GITHUB_PATH:-}" ] && echo "$bin_dir" >> "$GITHUB_PATH"
  echo "citegate: installed $("$bin_dir/citegate" --version) in $bin_dir"
}

# A restored cache (a source build of this same ref) needs nothing more.
if [ -x "$bin_dir/citegate" ] && "$bin_dir/citegate" --version >/dev/null 2>&1; then
  on_path
  exit 0
fi

from_source() {
  echo "citegate: $1; building from source with cargo install --locked (a few minutes)" >&2
  # Without CMake, libgit2 is built with the system's zlib instead of zlib-ng (same verdicts).
  local features=()
  command -v cmake >/dev/null 2>&1 || features=(--no-default-features --features mcp,lsp,llm)
  cargo install --locked --root "$root" --path "$source_dir" ${features[@]+"${features[@]}"}
  on_path
}

case "${RUNNER_OS:-$(uname -s)}/${RUNNER_ARCH:-$(uname -m)}" in
  Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-musl ext=tar.gz ;;
  Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-musl ext=tar.gz ;;
  macOS/X64 | Darwin/x86_64) target=x86_64-apple-darwin ext=tar.gz ;;
  macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ext=tar.gz ;;
  Windows/X64) target=x86_64-pc-windows-msvc ext=zip ;;
  *) from_source "no release asset for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"; exit 0 ;;
esac
if ! [[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
  from_source "the action's ref '${version}' is not a release tag"
  exit 0
fi

asset="citegate-$target.$ext"
sums="citegate-$target.sha256"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fetch() {
  case "$releases" in
    http://* | https://*) curl -fsSL --retry 3 -o "$tmp/$1" "$releases/$version/$1" ;;
    *) cp "$releases/$version/$1" "$tmp/$1" 2>/dev/null ;;
  esac
}
if ! fetch "$asset"; then
  from_source "release $version has no $asset"
  exit 0
fi
if ! fetch "$sums"; then
  # An asset without its checksum cannot be verified: never installed, and no silent source
  # build in its place unless asked for.
  if [ "${CITEGATE_ALLOW_SOURCE_BUILD:-}" = "true" ]; then
    from_source "release $version has no checksum file $sums"
    exit 0
  fi
  echo "::error title=citegate::release $version has $asset but no checksum file $sums: not installed (set CITEGATE_ALLOW_SOURCE_BUILD=true to build from source instead)" >&2
  exit 1
fi

# The checksum file lists `HASH  NAME` for the release's archives of this target.
expected="$(awk -v name="$asset" '{ sub(/^\*/, "", $2) } $2 == name { print $1 }' "$tmp/$sums")"
[ -n "$expected" ] || expected="$(awk 'NR == 1 { print $1 }' "$tmp/$sums")"
if command -v sha256sum >/dev/null 2>&1; then
  actual="$(sha256sum "$tmp/$asset" | awk '{ print $1 }')"
else
  actual="$(shasum -a 256 "$tmp/$asset" | awk '{ print $1 }')"
fi
if [ "$actual" != "$expected" ]; then
  echo "::error title=citegate::$asset of $version does not match its SHA-256 checksum ($actual, expected $expected): not installed" >&2
  exit 1
fi

mkdir -p "$bin_dir"
case "$ext" in
  tar.gz) tar -xzf "$tmp/$asset" -C "$tmp" ;;
  zip) unzip -q -o "$tmp/$asset" -d "$tmp" ;;
esac
for name in citegate citegate.exe; do
  [ -f "$tmp/$name" ] && install -m 0755 "$tmp/$name" "$bin_dir/$name"
done
on_path
