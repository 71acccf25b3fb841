"""The library inside someone else's server: hostile values are refused with ``citegate.InputError``
(never a crash), ``audit`` reads nothing outside the work tree, a forked worker (``multiprocessing``,
a real gunicorn ``--preload`` worker) gates as its parent does, and a panic is a
``citegate.Error``."""

import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import citegate

CITE = {"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}
GOOD = {"summary": "30 s", "citations": [CITE]}


def test_values_nested_too_deep_or_too_large_are_refused_as_input(repo_dir):
    repo = citegate.Repo(repo_dir)
    deep = []
    for _ in range(20_000):
        deep = [deep]
    with pytest.raises(citegate.InputError, match=r"answer\.x(\[0\])+: nested deeper than 128"):
        repo.gate({"x": deep}, no_retrieval=True)
    itself = {}
    itself["self"] = itself
    with pytest.raises(citegate.InputError, match="nested deeper than 128"):
        repo.gate(itself, no_retrieval=True)
    with pytest.raises(citegate.InputError, match=r"retrieved(\[0\])+: nested deeper than 128"):
        repo.gate(GOOD, retrieved=[deep])
    with pytest.raises(citegate.InputError, match=r"^answer\.summary: more than 16 MiB$"):
        repo.gate({"summary": "x" * (17 << 20)}, no_retrieval=True)
    with pytest.raises(citegate.InputError, match=r"^answers\[1\]: more than 16 MiB$"):
        repo.gate_many(["{}", "x" * (17 << 20)], no_retrieval=True)
    keyed = {}
    for _ in range(200):
        keyed = {"k" * (1 << 20): keyed}
    with pytest.raises(citegate.InputError) as e:
        repo.gate(keyed, no_retrieval=True)
    assert len(str(e.value)) < 6000
    # Both kinds of error a caller may already catch.
    assert issubclass(citegate.InputError, citegate.Error)
    assert issubclass(citegate.InputError, ValueError)
    # The repository still answers.
    assert repo.gate(GOOD, no_retrieval=True).passed


def test_audit_reads_nothing_outside_the_work_tree(repo_dir, tmp_path):
    root = tmp_path / "r"
    shutil.copytree(repo_dir, root, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text("[x](src/cache.rs:2) `sk-live-0123456789`\n")
    (root / "docs" / "elsewhere").symlink_to(outside)
    repo = citegate.Repo(root)
    for path in ["../outside", "../outside/leak.md", str(outside), str(outside / "leak.md"),
                 "docs/elsewhere/leak.md", ".git/config"]:
        with pytest.raises(citegate.InputError) as e:
            repo.audit([path])
        assert f"`{path}`" in str(e.value)
        assert "sk-live" not in str(e.value)
    # A link named itself is reported, not read through; paths inside are audited.
    linked = repo.audit(["docs/elsewhere"])
    assert "sk-live" not in repr(linked) and "symbolic link" in repr(linked)
    assert [d["name"] for d in repo.audit(["docs"])["docs"]] == ["docs/cache.md"]


def _gate_in_child(repo, repo_dir, conn):
    try:
        inherited = repo.gate(GOOD, no_retrieval=True).passed
        fresh = citegate.Repo(repo_dir).gate(GOOD, no_retrieval=True).passed
        audited = len(repo.audit(["docs"])["docs"])
        conn.send(("ok", inherited, fresh, audited))
    except BaseException as e:  # noqa: BLE001 - whatever it is, the parent reports it
        conn.send(("error", repr(e)))
    finally:
        conn.close()


@pytest.mark.skipif(sys.platform != "linux", reason="fork() as Linux's multiprocessing uses it")
def test_a_forked_child_gates_after_its_parent_did(repo_dir):
    repo = citegate.Repo(repo_dir)
    # The parent's work starts its threads before the fork, as a preloaded server's does.
    assert repo.gate(GOOD, no_retrieval=True).passed
    assert repo.audit(["docs"])["docs"]
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_gate_in_child, args=(repo, repo_dir, theirs))
    child.start()
    try:
        assert ours.poll(60), "the forked child never returned from the library"
        assert ours.recv() == ("ok", True, True, 1)
    finally:
        child.kill()
        child.join(10)
    # And the parent goes on.
    assert repo.gate(GOOD, no_retrieval=True).passed


APP = """
import json, os
import citegate

REPO = citegate.Repo(os.environ["CITEGATE_TEST_REPO"])
# The master gates before it forks its workers (--preload).
assert REPO.gate({answer}, no_retrieval=True).passed


def app(environ, start_response):
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    verdict = REPO.gate(body.decode(), no_retrieval=True)
    out = json.dumps({{"passed": verdict.passed, "pid": os.getpid()}}).encode()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [out]
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url, body, timeout):
    request = urllib.request.Request(url, data=body.encode(), method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        import json

        return json.loads(response.read())


@pytest.mark.skipif(sys.platform != "linux", reason="gunicorn's workers are forked")
def test_a_gunicorn_preload_worker_gates(repo_dir, tmp_path):
    pytest.importorskip("gunicorn")
    import json

    (tmp_path / "gate_app.py").write_text(APP.format(answer=repr(GOOD)))
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--preload", "--workers", "2", "--timeout", "30",
         "--bind", f"127.0.0.1:{port}", "--chdir", str(tmp_path), "gate_app:app"],
        env=dict(os.environ, CITEGATE_TEST_REPO=str(repo_dir)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while True:
            try:
                first = _post(url, json.dumps(GOOD), timeout=20)
                break
            except (ConnectionError, urllib.error.URLError):
                assert server.poll() is None, server.stdout.read().decode()
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        answers = [first] + [_post(url, json.dumps(GOOD), timeout=20) for _ in range(5)]
        assert all(a["passed"] for a in answers), answers
        assert server.pid not in {a["pid"] for a in answers}, "answered by the master, not a worker"
        bad = dict(GOOD, citations=[dict(CITE, path="src/nope.rs")])
        assert _post(url, json.dumps(bad), timeout=20)["passed"] is False
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


def test_a_panic_inside_is_a_citegate_error():
    from citegate import _citegate

    with pytest.raises(citegate.Error, match="a bug; please report it with the input.*boom"):
        _citegate._panic("boom")
    try:
        _citegate._panic("boom")
    except Exception as e:  # noqa: BLE001 - what a web framework's handler catches
        assert isinstance(e, citegate.Error)
