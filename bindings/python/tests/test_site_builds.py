"""Issue 62: the MkDocs plugin and the Sphinx extension, with the real toolchains (installed
with the ``mkdocs`` and ``sphinx`` extras, offline), on a small site in a repository built here:
its pages cite ``src/app.py`` at the first commit, the second moves and edits the code. A broken
citation fails ``mkdocs build --strict`` / ``sphinx-build -W`` with the page and line in the
output, the same findings, in the same words, as ``citegate audit --format json`` on the pages;
the fixed pages pass."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git

APP_V1 = 'import os\nimport sys\ndef main():\n    print("hello")\n    return 0\n\ndef helper():\n    return 1\n'
# Two lines on top (main moves to 5-7) and the helper edited (its old lines are nowhere).
APP_V2 = '"""The app."""\n\n' + APP_V1.replace("return 1", "return 2")

MKDOCS_YML = """site_name: demo
theme:
  name: material
markdown_extensions:
  - admonition
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
  - pymdownx.snippets:
      check_paths: true
plugins:
  - citegate{options}
"""

GUIDE_MD = """# Guide

!!! note "Entry"
    The entry point is `src/app.py:{main}`.

=== "Helper"

    ```python
    --8<-- "src/app.py:{helper}"
    ```
"""

CONF_PY = 'project = "demo"\nextensions = ["myst_parser", "citegate.sphinx"]\nexclude_patterns = ["_build"]\n'

INDEX_RST = "Demo\n====\n\n.. toctree::\n\n   guide\n   myst\n" + "".join(f"   more{i}\n" for i in range(4))

GUIDE_RST = """Guide
=====

.. include:: intro.rst.inc

.. literalinclude:: ../src/app.py
   :lines: {helper}
"""

MYST_MD = """# MyST

The entry point is `src/app.py:{main}`.

```{{literalinclude}} ../src/app.py
:lines: {main}
```
"""


def write(root, files):
    for name, text in files.items():
        path = Path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def commit(root, message):
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def site(tmp_path, pages):
    """A repository whose ``pages`` cite ``src/app.py`` as it was before the second commit."""
    root = tmp_path / "site"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write(root, {"src/app.py": APP_V1, **pages(main="3-5", helper="7:8", rst="7-8")})
    commit(root, "the site")
    write(root, {"src/app.py": APP_V2})
    commit(root, "the code moves on")
    return root


def fix(root, pages):
    write(root, pages(main="5-7", helper="9:10", rst="9-10"))
    commit(root, "the citations follow the code")


def mkdocs_pages(options=""):
    def pages(main, helper, rst):
        return {
            "mkdocs.yml": MKDOCS_YML.format(options=options),
            "docs/index.md": "# Demo\n\nNo citations here.\n",
            "docs/guide.md": GUIDE_MD.format(main=main, helper=helper),
        }

    return pages


def sphinx_pages(main, helper, rst):
    more = {f"docs/more{i}.rst": f"More {i}\n======\n\nText.\n" for i in range(4)}
    return {
        "docs/conf.py": CONF_PY,
        "docs/index.rst": INDEX_RST,
        "docs/intro.rst.inc": "An included paragraph.\n",
        "docs/guide.rst": GUIDE_RST.format(helper=rst),
        "docs/myst.md": MYST_MD.format(main=main),
        **more,
    }


def run(root, *args):
    # Sphinx colours its log when CI is set (as in CI), even into a pipe: NO_COLOR turns it off.
    env = dict(os.environ, NO_COLOR="1")
    out = subprocess.run([sys.executable, "-m", *args], cwd=root, env=env, capture_output=True, text=True)
    return out.returncode, out.stdout + out.stderr


# `docs/guide.md:9:5: stale-changed: …`, wherever a tool's log line puts it.
ONE_LINE = re.compile(r"(docs/[^\s:]+):(\d+):(\d+): ([a-z-]+): (.*?)(?: \[citegate\.[a-z-]+\])?$")


def logged(output, level=""):
    """The findings a build logged (on lines holding ``level``): {(doc, line, rule, message)}."""
    found = set()
    for line in output.splitlines():
        m = ONE_LINE.search(line)
        if m and level in line:
            found.add((m[1], int(m[2]), m[4], m[5]))
    return found


@pytest.fixture
def audited(cli):
    """``citegate audit --format json docs``'s findings: {(doc, line, rule, message)}."""
    binary = os.environ.get("CITEGATE_BIN") or "citegate"

    def audit(root):
        out = subprocess.run([binary, "audit", "--format", "json", "docs"], cwd=root, capture_output=True)
        report = json.loads(out.stdout)
        return {(f["doc"], f["line"], f["rule"], f["message"]) for f in report["findings"]}

    return audit


def test_mkdocs_strict_fails_on_a_broken_citation_with_the_audits_findings(tmp_path, audited):
    root = site(tmp_path, mkdocs_pages())
    code, out = run(root, "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "built"))
    assert code != 0, out
    expected = audited(root)
    assert {rule for (_, _, rule, _) in expected} == {"stale-moved", "stale-changed"}, expected
    assert logged(out) == expected, out
    # The error fails the build, at its page and line; the warning is below `fail_on: error`.
    assert {f[:3] for f in logged(out, "WARNING")} == {("docs/guide.md", 9, "stale-changed")}, out
    assert {f[:3] for f in logged(out, "INFO")} == {("docs/guide.md", 4, "stale-moved")}, out


def test_mkdocs_passes_once_the_citations_are_fixed(tmp_path):
    pages = mkdocs_pages(":\n      fail_on: warning")
    root = site(tmp_path, pages)
    code, out = run(root, "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "built"))
    assert code != 0 and logged(out, "WARNING"), out
    fix(root, pages)
    code, out = run(root, "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "built"))
    assert code == 0 and not logged(out), out


def test_mkdocs_the_plugin_turned_off_or_the_page_excluded_passes(tmp_path):
    for name, options in [("off", ":\n      enabled: false"), ("out", ":\n      exclude: ['guide*']")]:
        root = site(tmp_path / name, mkdocs_pages(options))
        code, out = run(root, "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "built"))
        assert code == 0 and not logged(out), (options, out)


def test_serve_audits_again_only_the_pages_that_changed(tmp_path, monkeypatch, caplog):
    """``mkdocs serve``'s rebuilds, in-process: each loads the configuration again and builds,
    and MkDocs hands back the same plugin (it has ``on_startup``), which keeps what it audited."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    root = site(tmp_path, mkdocs_pages())
    write(root, {"docs/other.md": "# Other\n\nIt ends at src/app.py:40.\n"})
    monkeypatch.chdir(root)

    def rebuild():
        caplog.clear()
        config = load_config(str(root / "mkdocs.yml"))
        config.plugins.on_startup(command="serve", dirty=False)
        with caplog.at_level("INFO", logger="mkdocs.plugins.citegate"):
            build(config)
        ours = [r for r in caplog.records if r.name == "mkdocs.plugins.citegate"]
        return config.plugins["citegate"], {(r.levelname, r.getMessage().split(": ")[0]) for r in ours}

    plugin, first = rebuild()
    assert plugin.site.audited == ["guide.md", "index.md", "other.md"]
    assert first == {("INFO", "docs/guide.md:4:25"), ("WARNING", "docs/guide.md:9:5"), ("WARNING", "docs/other.md:3:12")}
    again, second = rebuild()
    assert again is plugin and plugin.site.audited == [] and second == first
    write(root, {"docs/guide.md": GUIDE_MD.format(main="5-7", helper="7:8")})
    _, third = rebuild()
    assert plugin.site.audited == ["guide.md"]
    # The edited page's findings are new; the others', kept, are logged again on every build.
    assert third == {("WARNING", "docs/guide.md:9:5"), ("WARNING", "docs/other.md:3:12")}


def test_sphinx_w_fails_on_a_broken_citation_with_the_audits_findings_in_parallel(tmp_path, audited):
    root = site(tmp_path, sphinx_pages)
    args = ("sphinx", "-W", "-j", "2", "-D", "citegate_fail_on=warning", "docs", "docs/_build")
    code, out = run(root, *args)
    assert code != 0, out
    expected = audited(root)
    assert {(doc, rule) for (doc, _, rule, _) in expected} == {
        ("docs/guide.rst", "stale-changed"),
        ("docs/myst.md", "stale-moved"),
    }, expected
    assert logged(out, "WARNING") == expected, out
    # Sphinx's own location: the page and the line, then the engine's text.
    assert re.search(r"docs/guide\.rst:6: WARNING: docs/guide\.rst:6:1: stale-changed: ", out), out


def test_sphinx_passes_once_the_citations_are_fixed_and_logs_below_fail_on_as_information(tmp_path):
    root = site(tmp_path, sphinx_pages)
    code, out = run(root, "sphinx", "-W", "-j", "2", "docs", "docs/_build")
    assert code != 0 and {f[2] for f in logged(out, "WARNING")} == {"stale-changed"}, out
    assert ("docs/myst.md", 3, "stale-moved") in {f[:3] for f in logged(out)}, out
    fix(root, sphinx_pages)
    code, out = run(root, "sphinx", "-W", "-E", "-D", "citegate_fail_on=warning", "docs", "docs/_build")
    assert code == 0 and not logged(out), out


def test_mkdocs_outside_a_repository_fails_with_citegates_message(tmp_path):
    write(tmp_path, mkdocs_pages()(main="3-5", helper="7:8", rst="7-8"))
    write(tmp_path, {"src/app.py": APP_V1})
    code, out = run(tmp_path, "mkdocs", "build", "--site-dir", str(tmp_path / "built"))
    assert code != 0 and "citegate: " in out and "Traceback" not in out, out
