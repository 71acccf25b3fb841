"""One input, one verdict and one edit on every surface (issue 31): the same fixture through
`citegate audit`, `fix`, `gate`, `regenerate`, the language server (pytest-lsp, a real client)
and the MCP server (the official MCP Python SDK). Run by tests/it/surfaces.rs, which builds the
fixture repository and sets CITEGATE_BIN and CITEGATE_REPO. The audit's JSON report is the
reference; every other surface must say the same findings (rule, line, column, message) and
offer edits that, applied as written, give the bytes `citegate fix` writes.
"""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

BIN = os.environ["CITEGATE_BIN"]
REPO = pathlib.Path(os.environ["CITEGATE_REPO"]).resolve()
DOCS = ["docs/wiki.md", "answers/a.json"]
# Copies of the repository that `fix` and `regenerate --write` write to.
COPIES = pathlib.Path(tempfile.mkdtemp())


def cli(*args, cwd=REPO, stdin=None):
    return subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True, input=stdin)


def audit():
    """The reference: the audit's findings by doc, as (rule, line, column, message)."""
    report = json.loads(cli("audit", "--format", "json", *DOCS).stdout)
    out = {doc: [] for doc in DOCS}
    for f in report["findings"]:
        out[f["doc"]].append((f["rule"], f["line"], f["column"], f["message"]))
    return {doc: sorted(v) for doc, v in out.items()}, report


def wrong(report, doc):
    """What the gate fails an answer on: the audit's findings of the invented, unsupported and
    stale families above a note (README "The gate"), as (rule, message)."""
    return sorted((f["rule"], f["message"]) for f in report["findings"]
                  if f["doc"] == doc and f["family"] in ("invented", "unsupported", "stale")
                  and f["severity"] != "note")


def fixed():
    """What `citegate fix` writes, doc by doc (in a copy of the repository)."""
    copy = COPIES / "fixed"
    if not copy.exists():
        shutil.copytree(REPO, copy, symlinks=True)
        out = cli("fix", *DOCS, cwd=copy)
        assert out.returncode == 0, out.stderr
    return {doc: (copy / doc).read_text() for doc in DOCS}


def apply_bytes(text, edits):
    """Apply (byte_start, byte_end, replacement) edits to a text, last first."""
    data = text.encode()
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new.encode() + data[end:]
    return data.decode()


def test_the_fixture_has_what_the_comparison_needs():
    findings, report = audit()
    rules = sorted(f[0] for fs in findings.values() for f in fs)
    assert "stale-moved" in rules and "invented-path" in rules and "stale-changed" in rules
    assert any(f.get("fix") for f in report["findings"]), "a finding with a fix"
    assert fixed() != {doc: (REPO / doc).read_text() for doc in DOCS}, "fix changes the docs"
    held = [f for f in report["findings"] if "the fix is held back" in (f.get("help") or "")]
    assert [(f["rule"], f["line"], f.get("fix")) for f in held] == [("stale-moved", 9, None)]
    assert "On one line, src/cache.rs:2 and" in fixed()["docs/wiki.md"]


def test_the_json_reports_fixes_applied_as_written_are_what_fix_writes():
    _, report = audit()
    for doc in DOCS:
        edits = [(f["fix"]["byte_start"], f["fix"]["byte_end"], f["fix"]["replacement"])
                 for f in report["findings"] if f["doc"] == doc and f.get("fix")]
        assert apply_bytes((REPO / doc).read_text(), edits) == fixed()[doc], doc


def test_sarif_carries_the_same_findings_and_fixes():
    findings, _ = audit()
    sarif = json.loads(cli("audit", "--format", "sarif", *DOCS).stdout)
    got = {doc: [] for doc in DOCS}
    for r in sarif["runs"][0]["results"]:
        loc = r["locations"][0]["physicalLocation"]
        doc = loc["artifactLocation"]["uri"]
        region = loc["region"]
        got[doc].append((r["ruleId"], region["startLine"], region["startColumn"], r["message"]["text"]))
    for doc in DOCS:
        assert sorted((a, b, c) for a, b, c, _ in got[doc]) == \
            sorted((a, b, c) for a, b, c, _ in findings[doc]), doc
        for (_, _, _, text), (_, _, _, message) in zip(sorted(got[doc]), findings[doc]):
            assert text.startswith(message), (text, message)


def test_the_gate_says_what_the_audit_says_of_each_answer():
    _, report = audit()
    answer_text = (REPO / "answers/a.json").read_text()
    out = cli("gate", "--no-retrieval", stdin=answer_text)
    verdict = json.loads(out.stdout)
    got = sorted((v["rule"], v["message"]) for v in verdict["violations"])
    assert got == wrong(report, "answers/a.json")
    assert "refuse" in verdict and out.returncode == 1


def test_regenerate_accounts_for_the_same_findings_and_writes_what_fix_writes():
    _, report = audit()
    regenerated = json.loads(cli("regenerate", "--format", "json", *DOCS).stdout)
    # Every finding that says a citation is wrong has its outcome: a Markdown one at its line,
    # a JSON one with its answer (answers/a.json holds one).
    places = {(o["doc"], o.get("line"), o.get("answer")) for o in regenerated["outcomes"]}
    for f in report["findings"]:
        if f["family"] in ("invented", "unsupported", "stale") and f["severity"] != "note":
            place = (f["doc"], None, 0) if f["doc"].endswith(".json") \
                else (f["doc"], f["line"], None)
            assert place in places, (f, places)
    copy = COPIES / "regenerated"
    shutil.copytree(REPO, copy, symlinks=True)
    out = cli("regenerate", "--write", *DOCS, cwd=copy)
    assert out.returncode in (0, 1), out.stderr
    # Offline, regenerate moves a Markdown citation as `fix` does (it may refuse more); an
    # answer is either rewritten as `fix` writes it or refused whole.
    before = (REPO / "docs/wiki.md").read_text().splitlines()
    want = fixed()["docs/wiki.md"].splitlines()
    after = (copy / "docs/wiki.md").read_text().splitlines()
    for old, new, got in zip(before, want, after):
        if old != new:
            assert got == new
    answer = json.loads((copy / "answers/a.json").read_text())
    assert "refuse" in answer or (copy / "answers/a.json").read_text() == fixed()["answers/a.json"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BIN, "lsp"]))
async def client(lsp_client: LanguageClient):
    # What a client with dynamic registration does: accept the server's registrations.
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=REPO.as_uri(), name="shop")],
    ))
    yield
    await lsp_client.shutdown_session()


def lsp_apply(text, edits):
    """LSP text edits (UTF-16 positions; the fixture is ASCII) applied to a text."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    at = lambda p: starts[p.line] + p.character
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:at(e.range.start)] + e.new_text + text[at(e.range.end):]
    return text


@pytest.mark.asyncio
async def test_the_language_server_says_and_fixes_the_same(client):
    findings, report = audit()
    for doc in DOCS:
        path = REPO / doc
        text = path.read_text()
        language = "json" if doc.endswith(".json") else "markdown"
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id=language,
                                                 version=1, text=text)))
        result = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
        got = sorted((d.code, d.range.start.line + 1, d.range.start.character + 1,
                      d.message.split("\nhelp: ")[0]) for d in result.items)
        assert got == findings[doc], doc
        # Each quick fix is the JSON report's fix; together (and as the fix-all action) they
        # write what `citegate fix` writes.
        end = types.Position(line=len(text.split("\n")), character=0)
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(start=types.Position(line=0, character=0), end=end),
            context=types.CodeActionContext(diagnostics=result.items)))
        # "Suppress with reason" is `citegate suppress`'s edit, not a fix: compared below.
        suppress = [a for a in actions if a.title.startswith("citegate: suppress with reason")]
        quick = [e for a in actions if a.kind == types.CodeActionKind.QuickFix and a not in suppress
                 for e in a.edit.changes[path.as_uri()]]
        for a in suppress:
            (edit,) = a.edit.changes[path.as_uri()]
            assert "<!-- citegate-ignore " in edit.new_text and ": TODO: why -->" in edit.new_text, a
        fix_all = [a for a in actions if a.kind == "source.fixAll.citegate"]
        fixes = [f for f in report["findings"] if f["doc"] == doc and f.get("fix")]
        assert len(quick) == len(fixes), (doc, quick)
        if fixes:
            assert lsp_apply(text, quick) == fixed()[doc], doc
        if fixed()[doc] != text:
            assert len(fix_all) == 1, doc
            assert lsp_apply(text, fix_all[0].edit.changes[path.as_uri()]) == fixed()[doc], doc


async def mcp_call(tool, arguments):
    params = StdioServerParameters(command=BIN, args=["mcp", "--repo", str(REPO)])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(tool, arguments)
            text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            assert not result.is_error, text
            return json.loads(text)


@pytest.mark.asyncio
async def test_the_mcp_server_says_and_fixes_the_same():
    findings, _ = audit()
    body = await mcp_call("check_docs", {"paths": DOCS})
    listed = body["findings"] if isinstance(body, dict) else body
    for doc in DOCS:
        got = sorted((f["rule"], f["line"], f["column"], f["message"])
                     for f in listed if f["doc"] == doc)
        assert got == findings[doc], doc
        edits = [(f["fix"]["edit"]["byteStart"], f["fix"]["edit"]["byteEnd"],
                  f["fix"]["edit"]["replacement"])
                 for f in listed if f["doc"] == doc and f.get("fix")]
        assert apply_bytes((REPO / doc).read_text(), edits) == fixed()[doc], doc
    # check_answer gives the gate's verdict.
    answer = json.loads((REPO / "answers/a.json").read_text())
    verdict = await mcp_call("check_answer", {"answer": answer, "no_retrieval": True})
    gate = json.loads(cli("gate", "--no-retrieval",
                          stdin=(REPO / "answers/a.json").read_text()).stdout)
    assert sorted((v["rule"], v["message"]) for v in verdict["violations"]) == \
        sorted((v["rule"], v["message"]) for v in gate["violations"])
