"""The Python binding against the command line on the shared fixtures, and its own contract:
dict or str answers, typed verdicts, exceptions with the CLI's messages, threads."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import citegate

MODES = [["--retrieved", "r.json"], [], ["--no-retrieval"]]


def options(mode, retrieved):
    return {"retrieved": retrieved if mode[:1] == ["--retrieved"] else None,
            "no_retrieval": mode == ["--no-retrieval"]}


@pytest.mark.parametrize("mode", MODES, ids=["retrieved", "required", "no-retrieval"])
def test_every_shared_answer_gets_the_cli_verdict(repo_dir, answers, retrieved, cli, mode):
    repo = citegate.Repo(repo_dir)
    for answer in answers:
        verdict = repo.gate(answer, **options(mode, retrieved))
        code, out, _ = cli(repo_dir, ["gate", *mode], answer)
        assert code == (0 if verdict.passed else 1), answer
        if verdict.passed:
            assert verdict.refusal is None and verdict.violations == []
            assert out == answer.lstrip("\ufeff").rstrip() + "\n"
        else:
            printed = json.loads(out)
            assert verdict.refusal == printed, answer
            got = [{"rule": v.rule, "message": v.message, **({"citation": v.citation} if v.citation else {})}
                   for v in verdict.violations]
            assert got == printed["violations"], answer
        assert verdict.fidelity == ("code-only" if mode == ["--no-retrieval"] else "retrieval")


def test_gate_many_is_gate_jsonl(repo_dir, answers, retrieved, cli):
    repo = citegate.Repo(repo_dir)
    verdicts = repo.gate_many(answers, retrieved=retrieved)
    code, out, _ = cli(repo_dir, ["gate", "--jsonl", "--retrieved", "r.json"], "\n".join(answers) + "\n")
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(verdicts) == len(answers)
    for verdict, line in zip(verdicts, lines):
        assert verdict.passed == line["passed"] and verdict.fidelity == line["fidelity"]
        if not verdict.passed:
            assert verdict.refusal == line["answer"]
    assert code == (0 if all(verdicts) else 1)


def test_a_dict_answer_gets_the_verdict_of_its_text(repo_dir, answers, retrieved):
    repo = citegate.Repo(repo_dir)
    checked = 0
    for text in answers:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if not isinstance(value, dict) or json.loads(json.dumps(value)) != value or text.count('"citations"') > 1:
            continue
        try:
            json.dumps(value, ensure_ascii=False).encode()
        except UnicodeEncodeError:  # a lone surrogate: no text holds it, refused with where it is
            with pytest.raises(ValueError, match="answer.summary: a str with a lone surrogate"):
                repo.gate(value, retrieved=retrieved)
            continue
        as_dict = repo.gate(value, retrieved=retrieved)
        as_text = repo.gate(json.dumps(value), retrieved=retrieved)
        assert as_dict.to_dict() == as_text.to_dict(), text
        checked += 1
    assert checked >= 15


def test_a_grounded_answer_passes_and_an_invented_one_is_refused(repo_dir, retrieved):
    repo = citegate.Repo(repo_dir, target="HEAD")
    cite = {"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}
    ok = repo.gate({"summary": "30 s", "citations": [cite]}, retrieved=retrieved)
    assert ok.passed and bool(ok) and ok.refusal is None and ok.fidelity == "retrieval"
    bad = repo.gate({"summary": "30 s", "citations": [dict(cite, path="src/nope.rs")]}, retrieved=retrieved)
    assert not bad.passed
    assert "invented-path" in [v.rule for v in bad.violations]
    assert bad.violations[0].citation == "src/nope.rs:2"
    assert bad.refusal["refuse"]["reason"] == "no_span_in_retrieval"
    assert bad.to_dict()["violations"][0]["rule"] == "invented-path"
    # Without a payload the gate fails closed, unless told the caller has none.
    assert not repo.gate({"summary": "30 s", "citations": [cite]}).passed
    assert repo.gate({"summary": "30 s", "citations": [cite]}, no_retrieval=True).fidelity == "code-only"


def test_errors_are_exceptions_with_the_cli_messages(repo_dir, tmp_path, cli):
    with pytest.raises(citegate.Error) as e:
        citegate.Repo(repo_dir, target="no-such-rev")
    _, _, stderr = cli(repo_dir, ["gate", "--target", "no-such-rev"], "{}")
    assert str(e.value) in stderr
    with pytest.raises(citegate.Error):
        citegate.Repo(tmp_path / "nowhere")
    repo = citegate.Repo(repo_dir)
    with pytest.raises(citegate.Error, match="chunk 0: needs `path` and `start_line`"):
        repo.gate("{}", retrieved=[{"path": "a"}])
    with pytest.raises(TypeError, match=r"answer\.citations\[0\]: a set is not JSON"):
        repo.gate({"citations": [{1, 2}]})
    with pytest.raises(ValueError, match="no JSON number"):
        repo.gate({"summary": float("nan")})
    with pytest.raises(citegate.Error, match="at least 3"):
        repo.cite("ab")


def test_audit_is_the_json_report(repo_dir):
    report = citegate.Repo(repo_dir).audit(["docs"])
    assert report["version"] == 1
    rules = {f["rule"] for f in report["findings"]}
    assert "invented-path" in rules, report["findings"]


def test_cite_finds_where_a_quote_is(repo_dir):
    repo = citegate.Repo(repo_dir)
    found = repo.cite("pub const TTL_SECONDS")
    assert found["count"] == 1 and found["places"][0]["citation"] == "src/cache.rs:2"
    assert found["revision"] == repo.revision
    assert repo.cite("TTL_SECONDS", path="docs/cache.md")["count"] == 0


def test_one_repo_is_shared_by_threads(repo_dir, answers, retrieved):
    repo = citegate.Repo(repo_dir)
    alone = [repo.gate(a, retrieved=retrieved).to_dict() for a in answers]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            shared = list(pool.map(lambda a: repo.gate(a, retrieved=retrieved).to_dict(), answers))
            assert shared == alone


def test_the_package_is_typed():
    from importlib import resources

    files = resources.files("citegate")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("_citegate.pyi").is_file()
    assert citegate.__version__
