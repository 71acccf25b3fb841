#!/usr/bin/env python3
"""What the Docusaurus plugin (`citegate-node/docusaurus`, issue 62) adds to a site's build: a
generated site of N docs (3 citations each in prose; one doc in ten cites code a later commit
moved), built with `docusaurus build` with the plugin in `plugins` and without it, in alternating
runs so that load from elsewhere falls on both alike.

    scripts/bench_docusaurus.py --binding bindings/node              # 500 docs, 3 runs of each
    scripts/bench_docusaurus.py --binding bindings/node --docs 100 --runs 2

The binding folder holds a built addon (`npm install && npm run build` in bindings/node, a
release build); Docusaurus and React are the CI cache's (`scripts/test-clients.sh`), or
`--modules DIR` (a `node_modules` with @docusaurus/core and @docusaurus/preset-classic).
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

MODULES = 50
MODULE_LINES = 60
CACHE = Path(os.environ.get("CITEGATE_CI_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "citegate-ci")

CONFIG = """module.exports = {
  title: 'bench',
  url: 'https://example.com',
  baseUrl: '/',
  onBrokenLinks: 'warn',
  presets: [['classic', { blog: false, pages: false, theme: {} }]],
  plugins: process.env.CITEGATE === 'true'
    ? [['citegate-node/docusaurus', { onBrokenCitations: 'warn' }]]
    : [],
};
"""


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
                   cwd=repo, env=env, check=True, capture_output=True)


def module(k, shifted=False):
    top = "# moved down\n# by two lines\n" if shifted else ""
    return top + "".join(f"def f{k}_{i}():\n    return {i}\n" for i in range(MODULE_LINES // 2))


def page(i):
    k = i % MODULES
    a = 1 + (i * 2) % (MODULE_LINES - 4)
    return (
        f"# Page {i}\n\nThe function lives at `src/m{k}.py:{a}-{a + 1}`; see also "
        f"src/m{(k + 1) % MODULES}.py:{a}.\n\nIt returns at src/m{k}.py:{a + 1}.\n\n"
        + "Some prose that is not a citation, version 1.2.3 on localhost:8080.\n" * 20
    )


def site(root, docs, modules, binding):
    """The repository: code in `src/`, the site in `site/` (its node_modules linked, not
    committed), the docs committed before a commit that moves one module in ten."""
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    for k in range(MODULES):
        (root / "src" / f"m{k}.py").write_text(module(k))
    web = root / "site"
    (web / "docs").mkdir(parents=True)
    for i in range(docs):
        (web / "docs" / f"p{i}.md").write_text(page(i))
    (web / "package.json").write_text('{"name": "site", "private": true}\n')
    (web / "docusaurus.config.js").write_text(CONFIG)
    (root / ".gitignore").write_text("node_modules/\nbuild/\n.docusaurus/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "site")
    for k in range(0, MODULES, 10):
        (root / "src" / f"m{k}.py").write_text(module(k, shifted=True))
    git(root, "commit", "-qam", "code moves")
    linked = web / "node_modules"
    linked.mkdir()
    for entry in modules.iterdir():
        (linked / entry.name).symlink_to(entry)
    (linked / "citegate-node").symlink_to(binding)
    return web


def build(web, on):
    env = dict(os.environ, CITEGATE="true" if on else "false", NO_COLOR="1", FORCE_COLOR="0",
               DOCUSAURUS_TELEMETRY_DISABLED="1")
    start = time.perf_counter()
    out = subprocess.run([str(web / "node_modules/.bin/docusaurus"), "build", "--no-minify"],
                         cwd=web, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stdout + out.stderr)
    return took, (out.stdout + out.stderr).count("citegate: warning: ")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binding", required=True, help="the Node binding's folder, its addon built")
    p.add_argument("--modules", default=str(CACHE / "docusaurus" / "node_modules"))
    p.add_argument("--docs", type=int, default=500)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    binding, modules = Path(args.binding).resolve(), Path(args.modules).resolve()
    if not list(binding.glob("*.node")):
        raise SystemExit(f"{binding} has no built addon: npm install && npm run build there")
    with tempfile.TemporaryDirectory() as tmp:
        web = site(Path(tmp), args.docs, modules, binding)
        build(web, True)  # warm-up: Docusaurus' caches
        times = {False: [], True: []}
        logged = 0
        for _ in range(args.runs):
            for on in (False, True):
                took, n = build(web, on)
                times[on].append(took)
                logged = max(logged, n)
    off, on = statistics.median(times[False]), statistics.median(times[True])
    print(f"{args.docs} docs, {args.runs} alternating runs each; findings logged: {logged}")
    print(f"plugin off: median {off:.2f} s (min {min(times[False]):.2f})")
    print(f"plugin on:  median {on:.2f} s (min {min(times[True]):.2f})")
    print(f"added: {on - off:.2f} s ({(on - off) / off:.0%})")


if __name__ == "__main__":
    main()
