"""The shared fixtures (``tests/bindings/`` at the repository root): a one-commit repository
built here with ``git``, the answers, the retrieval payload, and the ``citegate`` binary to
compare verdicts with (``CITEGATE_BIN``, else ``citegate`` on ``PATH``)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("CITEGATE_SHARED", Path(__file__).parents[3] / "tests" / "bindings"))


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=cwd, env=env, check=True, capture_output=True,
    )


@pytest.fixture(scope="session")
def repo_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(SHARED / "repo", root, dirs_exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")
    (root / "r.json").write_bytes((SHARED / "retrieved.json").read_bytes())
    return root


@pytest.fixture(scope="session")
def answers():
    return (SHARED / "answers.jsonl").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def retrieved():
    return json.loads((SHARED / "retrieved.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def cli():
    """``citegate gate ARGS`` on stdin in a folder: (exit code, stdout)."""
    binary = os.environ.get("CITEGATE_BIN") or shutil.which("citegate")
    if not binary:
        pytest.skip("no citegate binary to compare with (set CITEGATE_BIN)")

    def run(cwd, args, stdin):
        out = subprocess.run([binary, *args], cwd=cwd, input=stdin.encode(), capture_output=True)
        return out.returncode, out.stdout.decode(), out.stderr.decode()

    return run
