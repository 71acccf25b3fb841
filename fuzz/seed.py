#!/usr/bin/env python3
"""Seed the fuzz corpora from the docs and configurations in fixtures/ and tests/cases/:
every `@@@ file` (or `untracked`) body of a Markdown or JSON doc, and every `.citegate.yaml`.

    fuzz/seed.py            # writes fuzz/corpus/{markdown,answer,links,config,gate}/
"""
import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"


def files(spec):
    """(path, body) of every file a fixture spec writes."""
    current, body = None, []
    for line in spec.splitlines():
        if line.startswith("@@@ "):
            if current:
                yield current, "\n".join(body) + "\n"
            m = re.match(r"@@@ (?:file|crlf|untracked) (\S+)", line)
            current, body = (m.group(1) if m else None), []
        elif current:
            body.append(line)
    if current:
        yield current, "\n".join(body) + "\n"


def put(target, text):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(text.encode()).hexdigest()[:16]).write_text(text)


def main():
    specs = [p.read_text() for p in sorted((ROOT / "tests" / "cases").glob("*.case"))]
    specs += [p.read_text() for p in sorted((ROOT / "fixtures").glob("*.fixture"))]
    for spec in specs:
        for path, body in files(spec):
            if path.endswith((".md", ".mdx")):
                put("markdown", body)
                for line in body.splitlines():
                    if "://" in line or ":" in line:
                        put("links", line)
            elif path.endswith((".json", ".jsonl")):
                put("answer", body)
                for line in body.splitlines():
                    if line.lstrip().startswith("{"):
                        put("gate", line.strip().rstrip(","))
            elif path.endswith(".citegate.yaml"):
                put("config", body)
    readme = (ROOT / "docs" / "src" / "configuration.md").read_text()
    m = re.search(r"```yaml\n(# \.citegate\.yaml.*?)```", readme, re.S)
    if m:
        put("config", m.group(1))
    for target in ("markdown", "answer", "links", "config", "gate"):
        print(target, len(list((OUT / target).glob("*"))))


if __name__ == "__main__":
    main()
