#!/usr/bin/env python3
"""What the MkDocs plugin (`plugins: [citegate]`, issue 62) adds to a site's build: a generated
site of N pages (4 citations each: bare ones in prose and in an admonition, a pymdownx snippet in a
fence; one page in ten cites code a later commit moved), built with `mkdocs build` with the
plugin on and off, in alternating runs so that load from elsewhere falls on both alike. With
`--sphinx`, the same for the Sphinx extension: the pages as MyST Markdown (two bare citations and a
`literalinclude` with `:lines:` each), a full `sphinx-build -E -b html` with `citegate.sphinx` on
and off.

    scripts/bench_site.py --python VENV/bin/python                # 500 pages, 5 runs of each
    scripts/bench_site.py --python VENV/bin/python --pages 100 --runs 3
    scripts/bench_site.py --python VENV/bin/python --sphinx

VENV has the release wheel with its extras (`maturin build --release`, then
`pip install "citegate_python-….whl[mkdocs,sphinx]"`, and `myst-parser` for `--sphinx`).
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

MODULES = 50
MODULE_LINES = 60


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
        f"# Page {i}\n\nThe function lives at `src/m{k}.py:{a}-{a + 1}`; see also src/m{(k + 1) % MODULES}.py:{a}.\n\n"
        f'!!! note "Where"\n    It returns at src/m{k}.py:{a + 1}.\n\n'
        f'```python\n--8<-- "src/m{k}.py:{a}:{a + 1}"\n```\n\n'
        + "Some prose that is not a citation, version 1.2.3 on localhost:8080.\n" * 20
    )


def site(root, pages, sphinx=False):
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    for k in range(MODULES):
        (root / "src" / f"m{k}.py").write_text(module(k))
    (root / "docs").mkdir()
    for i in range(pages):
        (root / "docs" / f"p{i}.md").write_text((sphinx_page if sphinx else page)(i))
    (root / "docs" / "index.md").write_text("# Site\n")
    if sphinx:
        toctree = "```{toctree}\n" + "".join(f"p{i}\n" for i in range(pages)) + "```\n"
        (root / "docs" / "index.md").write_text("# Site\n\n" + toctree)
        (root / "docs" / "conf.py").write_text(
            "import os\nproject = 'bench'\nextensions = ['myst_parser', 'citegate.sphinx']\n"
            "citegate_enabled = os.environ.get('CITEGATE') == 'true'\n"
        )
    (root / "mkdocs.yml").write_text(
        "site_name: bench\nmarkdown_extensions:\n  - admonition\n  - pymdownx.superfences\n"
        "  - pymdownx.snippets\nplugins:\n  - search\n  - citegate:\n"
        "      enabled: !ENV [CITEGATE, false]\n"
    )
    git(root, "add", "-A")
    git(root, "commit", "-qm", "site")
    for k in range(0, MODULES, 10):
        (root / "src" / f"m{k}.py").write_text(module(k, shifted=True))
    git(root, "commit", "-qam", "code moves")


def sphinx_page(i):
    k = i % MODULES
    a = 1 + (i * 2) % (MODULE_LINES - 4)
    return (
        f"# Page {i}\n\nThe function lives at `src/m{k}.py:{a}-{a + 1}`; see also src/m{(k + 1) % MODULES}.py:{a}.\n\n"
        f"```{{literalinclude}} /../src/m{k}.py\n:lines: {a}-{a + 1}\n```\n\n"
        + "Some prose that is not a citation, version 1.2.3 on localhost:8080.\n" * 20
    )


def build(python, root, on, sphinx=False):
    env = dict(os.environ, CITEGATE="true" if on else "false")
    if sphinx:
        command = ["-m", "sphinx", "-E", "-b", "html", "docs", str(root / "built")]
    else:
        command = ["-m", "mkdocs", "build", "--site-dir", str(root / "built")]
    start = time.perf_counter()
    out = subprocess.run([python, *command], cwd=root, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    if sphinx:  # `PAGE:LINE: docs/PAGE:LINE:COLUMN: RULE: …`, a warning or (below fail_on) info
        return took, len(re.findall(r": docs/[^:\s]+:\d+:\d+: [a-z-]+: ", out.stdout + out.stderr))
    return took, out.stderr.count("WARNING -  docs/") + out.stderr.count("INFO    -  docs/")


# The plugin's own work, in-process: every page audited (a build, serve's first), then a serve
# rebuild with nothing changed and with one page edited (best of the runs, in seconds).
AUDIT_ALONE = """
import sys, time
from pathlib import Path
from citegate._site import SiteAudit
docs, runs = sys.argv[1], int(sys.argv[2])
pages = sorted(p.name for p in Path(docs).glob("*.md"))
best = {}
for _ in range(runs):
    site = SiteAudit()
    for name, edit in (("all", False), ("none changed", False), ("one edited", True)):
        if edit:
            p = Path(docs, "p1.md"); p.write_text(p.read_text() + "\\n")
        start = time.perf_counter(); site.check(docs, pages); took = time.perf_counter() - start
        best[name] = min(best.get(name, took), took)
print("; ".join(f"{k}: {v:.3f} s" for k, v in best.items()))
"""


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--python", required=True, help="a Python with citegate-python[mkdocs]")
    p.add_argument("--pages", type=int, default=500)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sphinx", action="store_true", help="the Sphinx extension instead")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        site(root, args.pages, args.sphinx)
        build(args.python, root, True, args.sphinx)  # warm-up: caches, .pyc
        times = {False: [], True: []}
        logged = 0
        for _ in range(args.runs):
            for on in (False, True):
                took, n = build(args.python, root, on, args.sphinx)
                times[on].append(took)
                logged = max(logged, n)
        off, on = statistics.median(times[False]), statistics.median(times[True])
        print(f"{args.pages} pages, {args.runs} alternating runs each; findings logged: {logged}")
        print(f"plugin off: median {off:.2f} s (min {min(times[False]):.2f})")
        print(f"plugin on:  median {on:.2f} s (min {min(times[True]):.2f})")
        print(f"added: {on - off:.2f} s ({(on - off) / off:.0%})")
        if args.sphinx:
            return
        out = subprocess.run([args.python, "-c", AUDIT_ALONE, str(root / "docs"), str(args.runs)],
                             capture_output=True, text=True, check=True)
        print(f"the plugin's audit alone (best of {args.runs}): {out.stdout.strip()}")


if __name__ == "__main__":
    main()
