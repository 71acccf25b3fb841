"""`citegate lsp` driven by a real LSP client nobody here wrote: pytest-lsp (pygls), installed by
`.ci/run`. Run by tests/it/lsp.rs, which builds the fixture repository and sets
CITEGATE_BIN and CITEGATE_REPO; the CLI's own output is the oracle.

pytest-lsp also checks every response against the capabilities the client announced.
"""
import asyncio
import json
import os
import pathlib
import shutil
import stat
import subprocess
import urllib.parse

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

BIN = os.environ["CITEGATE_BIN"]
REPO = pathlib.Path(os.environ["CITEGATE_REPO"]).resolve()
GUIDE = REPO / "docs" / "guide.md"
FOLLOW = REPO / "docs" / "follow.md"
CONFIG = ClientServerConfig(server_command=[BIN, "lsp"])


REGISTERED = []


def register(client: LanguageClient, params: types.RegistrationParams):
    """What a client with dynamic registration does: accept (and here, record) it."""
    REGISTERED.extend(r.method for r in params.registrations)


def capabilities(pull):
    caps = client_capabilities("visual-studio-code")
    if not pull:
        caps.text_document.diagnostic = None
    return caps


async def start(client, pull):
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(register)
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(pull=pull),
        workspace_folders=[types.WorkspaceFolder(uri=REPO.as_uri(), name="shop")],
    ))


@pytest_lsp.fixture(config=CONFIG)
async def push(lsp_client: LanguageClient):
    """A client that takes published diagnostics (no pull support announced)."""
    await start(lsp_client, pull=False)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def pull(lsp_client: LanguageClient):
    """A client that pulls diagnostics (VS Code's capabilities)."""
    await start(lsp_client, pull=True)
    yield
    await lsp_client.shutdown_session()


def cli(*args, cwd=REPO):
    return subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)


def audit(doc, cwd=REPO):
    out = cli("audit", "--format", "json", doc, cwd=cwd)
    return json.loads(out.stdout)["findings"]


def open_doc(client, path, text=None, language="markdown", version=1):
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(
            uri=uri, language_id=language, version=version,
            text=path.read_text() if text is None else text)))
    return uri


async def diagnostics_of(client, uri):
    while uri not in client.diagnostics:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics.pop(uri)


def apply(text, edits):
    """Apply LSP text edits (UTF-16 positions; the fixture is ASCII) to a text."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    def at(p):
        return starts[p.line] + p.character
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:at(e.range.start)] + e.new_text + text[at(e.range.end):]
    return text


def by_rule(diagnostics):
    return {d.code: d for d in diagnostics}


@pytest.mark.asyncio
async def test_the_three_findings_are_the_cli_findings(push):
    uri = open_doc(push, GUIDE)
    got = await diagnostics_of(push, uri)
    want = audit("docs/guide.md")
    assert sorted(d.code for d in got) == ["invented-path", "stale-changed", "stale-moved"]
    assert len(got) == len(want)
    for f in want:
        d = by_rule(got)[f["rule"]]
        assert d.message.split("\nhelp: ")[0] == f["message"]
        assert d.range.start.line == f["line"] - 1
        assert d.range.start.character == f["column"] - 1
        assert d.range.end.character == f["column_end"] - 1
        severity = {"error": types.DiagnosticSeverity.Error,
                    "warning": types.DiagnosticSeverity.Warning}[f["severity"]]
        assert d.severity == severity
        assert d.source == "citegate"


@pytest.mark.asyncio
async def test_the_quick_fix_clears_the_moved_citation_and_writes_what_fix_writes(push, tmp_path):
    text = GUIDE.read_text()
    uri = open_doc(push, GUIDE, text)
    moved = by_rule(await diagnostics_of(push, uri))["stale-moved"]
    actions = await push.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=moved.range,
        context=types.CodeActionContext(diagnostics=[moved], only=[types.CodeActionKind.QuickFix])))
    # The fix, and the suppression a stale finding can have too (a sub-kind of quickfix).
    assert sorted(a.kind for a in actions) == ["quickfix", "quickfix.citegate.suppress"], actions
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert fix.diagnostics[0].code == "stale-moved"
    fixed = apply(text, fix.edit.changes[uri])
    push.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    after = await diagnostics_of(push, uri)
    assert sorted(d.code for d in after) == ["invented-path", "stale-changed"]
    # `citegate fix` on a copy of the repository writes the same bytes.
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    assert cli("fix", "docs/guide.md", cwd=copy).returncode in (0, 1)
    assert (copy / "docs" / "guide.md").read_text() == fixed


@pytest.mark.asyncio
async def test_fix_all_is_what_fix_writes(push, tmp_path):
    text = GUIDE.read_text()
    uri = open_doc(push, GUIDE, text)
    await diagnostics_of(push, uri)
    everything = types.Range(start=types.Position(line=0, character=0),
                             end=types.Position(line=99, character=0))
    actions = await push.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=everything,
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])))
    assert [a.kind for a in actions] == ["source.fixAll.citegate"]
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    cli("fix", "docs/guide.md", cwd=copy)
    assert apply(text, actions[0].edit.changes[uri]) == (copy / "docs" / "guide.md").read_text()


@pytest.mark.asyncio
async def test_hover_shows_the_cited_lines_and_the_diff(push):
    uri = open_doc(push, GUIDE)
    await diagnostics_of(push, uri)
    line = GUIDE.read_text().split("\n").index("The getter is src/cache.rs:3-5.")
    hover = await push.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=20)))
    value = hover.contents.value
    # The label is a code span: a path from a doc renders as text, never as Markdown.
    assert "**`src/cache.rs:3-5`** at" in value
    assert "implied pin" in value
    assert "pub fn ttl() -> u64 {\n    TTL_SECONDS\n}" in value
    assert "stale-changed" in value and "-    TTL_SECONDS" in value
    # Not on a citation: nothing.
    nothing = await push.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=1)))
    assert nothing is None


@pytest.mark.asyncio
async def test_definition_opens_the_cited_lines(push):
    uri = open_doc(push, GUIDE)
    line = GUIDE.read_text().split("\n").index("The old helper is src/old.rs:1.")
    found = await push.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=22)))
    assert found.uri == (REPO / "src" / "old.rs").as_uri()
    assert found.range.start.line == 0


def git(*args, cwd=REPO):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def local(uri):
    return pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(uri).path))


async def definition_in(client, sentence, doc=FOLLOW):
    """Go to definition on the citation of a sentence of docs/follow.md."""
    uri = open_doc(client, doc)
    line = doc.read_text().split("\n").index(sentence)
    return await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=sentence.index("src/") + 3)))


def lines(found):
    return (found.range.start.line, found.range.end.line)


@pytest.mark.asyncio
async def test_code_lenses_follow_a_new_commit(push, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    shop = copy / "src" / "shop.rs"
    follow = ("docs/follow.md",)
    assert (2, "lines 3-5 cited by 1 doc", follow) in await lenses_of(push, shop)
    shop.write_text("// One more line.\n" + shop.read_text())
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "v3", cwd=copy)
    # No doc changed and HEAD still names the same branch: the new commit alone moves the lens.
    assert (3, "lines 4-6 cited by 1 doc", follow) in await lenses_of(push, shop)


@pytest.mark.asyncio
async def test_definition_follows_moved_and_renamed_content_to_the_target(push):
    moved = await definition_in(push, "The total is src/shop.rs:1-3.")
    assert local(moved.uri) == REPO / "src" / "shop.rs"
    assert lines(moved) == (2, 4)
    renamed = await definition_in(push, "Tax is src/tax.rs:1-3.")
    assert local(renamed.uri) == REPO / "src" / "vat.rs"
    assert lines(renamed) == (0, 2)
    # Holding: the work tree's file at the cited lines, as before.
    holding = await definition_in(push, "Halving is src/util.rs:1-3.")
    assert local(holding.uri) == REPO / "src" / "util.rs"
    assert lines(holding) == (0, 2)
    # Lines that never existed: nowhere to go (not line 40 of today's file).
    assert await definition_in(push, "Nothing is at src/util.rs:40.") is None


@pytest.mark.asyncio
async def test_definition_of_changed_or_deleted_content_opens_the_written_revision(push):
    written = git("rev-parse", "HEAD~1").strip()
    for sentence, path, want in [
        ("The price is src/price.rs:1-3.", "src/price.rs", (0, 2)),
        ("The legacy price is src/legacy.rs:2-4.", "src/legacy.rs", (1, 3)),
    ]:
        found = await definition_in(push, sentence)
        copy = local(found.uri)
        assert copy == REPO / ".git" / "citegate" / "rev" / written / path, copy
        assert lines(found) == want
        assert copy.read_text() == git("show", f"{written}:{path}")
        assert stat.S_IMODE(copy.stat().st_mode) == 0o444
    # Asked again: the same copy, still read-only.
    again = await definition_in(push, "The price is src/price.rs:1-3.")
    assert local(again.uri) == copy.parent.parent / "src" / "price.rs"
    assert "    10" in local(again.uri).read_text()


@pytest.mark.asyncio
async def test_definition_reads_the_target_where_the_work_tree_differs(push, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    shop = copy / "src" / "shop.rs"
    shop.write_text("// A line not committed yet.\n" + shop.read_text())
    follow = copy / "docs" / "follow.md"
    found = await definition_in(push, "The total is src/shop.rs:1-3.", doc=follow)
    head = git("rev-parse", "HEAD", cwd=copy).strip()
    # The fix is at the target (HEAD): the work tree's lines 3-5 are not those; the target's are.
    want = copy / ".git" / "citegate" / "rev" / head / "src" / "shop.rs"
    assert local(found.uri).resolve() == want.resolve()
    assert lines(found) == (2, 4)
    # An unchanged file: the work tree's.
    holding = await definition_in(push, "Halving is src/util.rs:1-3.", doc=follow)
    assert local(holding.uri).resolve() == (copy / "src" / "util.rs").resolve()
    # A whole file: the work tree's, edited or not.
    whole = await definition_in(push, "The whole [shop](../src/shop.rs).", doc=follow)
    assert local(whole.uri).resolve() == shop.resolve()
    assert lines(whole) == (0, 0)


@pytest.mark.asyncio
async def test_renaming_a_cited_file_returns_the_edits(push):
    old, new = REPO / "src" / "old.rs", REPO / "src" / "helpers" / "new.rs"
    edit = await push.workspace_will_rename_files_async(types.RenameFilesParams(
        files=[types.FileRename(old_uri=old.as_uri(), new_uri=new.as_uri())]))
    edits = edit.changes[GUIDE.as_uri()]
    renamed = apply(GUIDE.read_text(), edits)
    assert "The old helper is src/helpers/new.rs:1." in renamed
    assert renamed.replace("src/helpers/new.rs", "src/old.rs") == GUIDE.read_text()
    # A file nobody cites: no edit.
    none = await push.workspace_will_rename_files_async(types.RenameFilesParams(
        files=[types.FileRename(old_uri=(REPO / "README.none").as_uri(),
                                new_uri=(REPO / "x").as_uri())]))
    assert none is None


@pytest.mark.asyncio
async def test_code_lenses_say_who_cites_a_span(push):
    lenses = await push.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=(REPO / "src" / "cache.rs").as_uri())))
    titles = sorted((l.range.start.line, l.command.title) for l in lenses)
    # `src/cache.rs:1` moved to line 3; `src/cache.rs:3-5` changed: no lens on what is there now.
    assert titles == [(2, "line 3 cited by 1 doc")]


async def lenses_of(client, path):
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    return sorted((l.range.start.line, l.command.title, tuple(l.command.arguments[0]))
                  for l in lenses)


@pytest.mark.asyncio
async def test_code_lenses_stand_where_the_cited_content_is_now(push):
    follow = ("docs/follow.md",)
    # Moved two lines down: the lens is on the new lines.
    assert await lenses_of(push, REPO / "src" / "shop.rs") == [
        (0, "this file cited by 1 doc", follow), (2, "lines 3-5 cited by 1 doc", follow)]
    # Renamed: the lens is in the new file.
    assert await lenses_of(push, REPO / "src" / "vat.rs") == [(0, "lines 1-3 cited by 1 doc", follow)]
    # Changed: the current lines hold something else; no lens.
    assert await lenses_of(push, REPO / "src" / "price.rs") == []
    # Holding: as written. Invented lines (`src/util.rs:40`): no lens.
    assert await lenses_of(push, REPO / "src" / "util.rs") == [(0, "lines 1-3 cited by 1 doc", follow)]


@pytest.mark.asyncio
async def test_pulled_diagnostics_match_and_the_workspace_pass_covers_every_doc(pull):
    uri = open_doc(pull, GUIDE)
    report = await pull.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert sorted(d.code for d in report.items) == ["invented-path", "stale-changed", "stale-moved"]
    assert pull.diagnostics == {}, "a pulling client gets no pushed diagnostics"
    workspace = await pull.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[]))
    docs = {i.uri: sorted(d.code for d in i.items) for i in workspace.items}
    assert docs[uri] == ["invented-path", "stale-changed", "stale-moved"]
    answer = (REPO / "answers" / "a.json").as_uri()
    assert docs[answer] == ["invented-path"]


@pytest.mark.asyncio
async def test_the_configuration_is_read_again_when_it_changes(push, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    guide = copy / "docs" / "guide.md"
    uri = open_doc(push, guide)
    assert "invented-path" in by_rule(await diagnostics_of(push, uri))
    assert "workspace/didChangeWatchedFiles" in REGISTERED
    (copy / ".citegate.yaml").write_text("rules:\n  invented-path: off\n")
    push.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(copy / ".citegate.yaml").as_uri(), type=types.FileChangeType.Created)]))
    assert sorted(by_rule(await diagnostics_of(push, uri))) == ["stale-changed", "stale-moved"]
    # A broken configuration is one diagnostic with the command line's message.
    (copy / ".citegate.yaml").write_text("rules: [\n")
    push.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(copy / ".citegate.yaml").as_uri(), type=types.FileChangeType.Changed)]))
    broken = await diagnostics_of(push, uri)
    assert len(broken) == 1 and ".citegate.yaml" in broken[0].message, broken


@pytest.mark.asyncio
async def test_bad_input_is_one_diagnostic_and_the_server_stays_up(push):
    answer = REPO / "answers" / "broken.json"
    uri = open_doc(push, answer, text='{"summary": "x", "citations": [', language="json")
    broken = await diagnostics_of(push, uri)
    assert [d.code for d in broken] == ["malformed-doc"]
    huge = REPO / "docs" / "huge.md"
    uri = open_doc(push, huge, text="src/cache.rs:1 " * (1_200_000))
    got = await diagnostics_of(push, uri)
    assert [d.code for d in got] == ["malformed-doc"] and "MiB limit" in got[0].message
    # A file that is no doc is not checked; the server still answers.
    code = open_doc(push, REPO / "src" / "cache.rs", language="rust")
    hover = await push.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=code), position=types.Position(line=0, character=0)))
    assert hover is None
    uri = open_doc(push, GUIDE)
    assert len(await diagnostics_of(push, uri)) == 3


async def test_a_notification_whose_params_cannot_be_read_is_logged(push):
    # A didOpen without its text: not a document the server can hold. It says so in the client's
    # log (window/logMessage) instead of dropping it silently, and keeps serving.
    # pygls's typed `notify` cannot send such params: the message is written as it is.
    push.protocol._send_data({
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": GUIDE.as_uri()}},
    })
    await asyncio.wait_for(push.wait_for_notification("window/logMessage"), timeout=20)
    logged = [m.message for m in push.log_messages]
    assert any("textDocument/didOpen ignored: its params cannot be read" in m for m in logged), logged
    uri = open_doc(push, GUIDE)
    assert len(await diagnostics_of(push, uri)) == 3


def set_aside(diagnostics):
    """The greyed-out diagnostics: (rule, message prefix) of each hint tagged unnecessary."""
    return sorted((d.code, d.message.split(": ")[0]) for d in diagnostics
                  if d.severity == types.DiagnosticSeverity.Hint
                  and list(d.tags or []) == [types.DiagnosticTag.Unnecessary])


@pytest.mark.asyncio
async def test_baselined_findings_are_greyed_out_and_hidden_when_the_settings_say(push, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    assert cli("baseline", "docs/guide.md", cwd=copy).returncode == 0
    uri = open_doc(push, copy / "docs" / "guide.md")
    got = await diagnostics_of(push, uri)
    assert set_aside(got) == [("invented-path", "baselined"), ("stale-changed", "baselined"),
                              ("stale-moved", "baselined")], got
    assert len(got) == 3, "nothing else"
    # The message after the prefix is the CLI's.
    want = {f["rule"]: f["message"] for f in
            json.loads(cli("audit", "--format", "json", "docs/guide.md", cwd=copy).stdout)["suppressed"]}
    for d in got:
        assert d.message.split("\nhelp: ")[0] == "baselined: " + want[d.code]
    push.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"citegate": {"suppressed": "hide"}}))
    assert list(await diagnostics_of(push, uri)) == []
    push.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"citegate": {"suppressed": "show"}}))
    assert len(set_aside(await diagnostics_of(push, uri))) == 3


@pytest_lsp.fixture(config=CONFIG)
async def hiding(lsp_client: LanguageClient):
    """A client whose initializationOptions hide the findings that do not count."""
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(register)
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities(pull=False),
        workspace_folders=[types.WorkspaceFolder(uri=REPO.as_uri(), name="shop")],
        initialization_options={"suppressed": "hide"},
    ))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_initialization_options_can_hide_suppressed_findings(hiding):
    text = GUIDE.read_text().replace(
        "Invented: src/nowhere.rs:3.",
        "Invented: src/nowhere.rs:3. <!-- citegate-ignore invented-path: a made-up example -->")
    uri = open_doc(hiding, GUIDE, text)
    assert sorted(d.code for d in await diagnostics_of(hiding, uri)) == ["stale-changed", "stale-moved"]


async def quick_fixes(client, uri, diagnostic):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix])))


def edit_to(client, uri, version, text):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


@pytest.mark.asyncio
async def test_suppress_with_reason_writes_what_suppress_writes_and_the_finding_is_suppressed(push, tmp_path):
    text = GUIDE.read_text()
    uri = open_doc(push, GUIDE, text)
    found = by_rule(await diagnostics_of(push, uri))
    actions = await quick_fixes(push, uri, found["invented-path"])
    assert [a.title for a in actions] == ["citegate: suppress with reason (invented-path)"], actions
    assert actions[0].diagnostics[0].code == "invented-path"
    edited = apply(text, actions[0].edit.changes[uri])
    assert "src/nowhere.rs:3. <!-- citegate-ignore invented-path: TODO: why -->" in edited
    # `citegate suppress` with the same reason writes the same bytes (the same code).
    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, symlinks=True)
    done = cli("suppress", "--rule", "invented-path", "--reason", "TODO: why", "docs/guide.md", cwd=copy)
    assert done.returncode == 0, done.stderr
    assert (copy / "docs" / "guide.md").read_text() == edited
    # Applied: suppressed (greyed out), and the placeholder is no reason until it is replaced.
    edit_to(push, uri, 2, edited)
    after = await diagnostics_of(push, uri)
    assert set_aside(after) == [("invented-path", "suppressed (TODO")], after
    warned = by_rule(after)["unused-suppression"]
    assert "gives no reason" in warned.message
    assert warned.severity == types.DiagnosticSeverity.Warning
    # With a reason written: suppressed, and nothing to warn of.
    reasoned = edited.replace("TODO: why", "a made-up example")
    edit_to(push, uri, 3, reasoned)
    final = await diagnostics_of(push, uri)
    assert sorted(d.code for d in final) == ["invented-path", "stale-changed", "stale-moved"]
    assert set_aside(final) == [("invented-path", "suppressed (a made-up example)")]
    # A suppressed finding is offered no second suppression.
    assert not await quick_fixes(push, uri, found["invented-path"])


@pytest.mark.asyncio
async def test_a_stale_finding_suppressed_in_the_editor_stays_suppressed(push):
    # `src/cache.rs:3-5` is stale at the commit that wrote its line (its implied pin). The comment
    # that suppresses it ends that line, and blame reads the line without it (as after `citegate
    # suppress`), so the line keeps its commit and the finding is the one suppressed: checked
    # again before it is offered, the suppression is offered, and applied it holds.
    text = GUIDE.read_text()
    uri = open_doc(push, GUIDE, text)
    changed = by_rule(await diagnostics_of(push, uri))["stale-changed"]
    actions = await quick_fixes(push, uri, changed)
    assert [a.title for a in actions] == ["citegate: suppress with reason (stale-changed)"], actions
    edit_to(push, uri, 2, apply(text, actions[0].edit.changes[uri]))
    after = await diagnostics_of(push, uri)
    assert ("stale-changed", "suppressed (TODO") in set_aside(after), after
