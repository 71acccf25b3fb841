#!/usr/bin/env python3
"""History-scale benchmark (issue 17): what implied pins cost as a repository ages.

    scripts/bench_history.py                         # 200, 2,000 and 10,000 commits
    scripts/bench_history.py --commits 200           # a quick run

For each history length N, a synthetic repository of N commits is written with `git fast-import`
(50 code files; every commit edits one line of one of them) and 400 docs (200 JSON answers, 200
Markdown pages, five citations each) are placed three ways:
  untracked  on disk only, never committed (an answer cache): no history walk should happen
  tip        committed in the last commit
  root       committed in the first commit, so blame walks the whole history
Each is audited with and without implied pins (`--no-history`); the table gives both times and
their ratio. `--blame-commits` builds one doc edited every 100th commit over a longer history and
reports the peak RSS of auditing it (the blame's memory).
Writes target/bench/history.json.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench import best, run  # the same timing as the main benchmark

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
BIN = TARGET / "release" / "citegate"
OUT = TARGET / "bench"
FILES = 50
LINES = 40
DOCS = 400
CITES = 5
# The answer cache cites a code base of this many files (as a real one does), not 50.
CACHE_FILES = 2000


def code_file(i, version):
    """Source file `i` at a version: one line differs per version."""
    return "".join(f"fn f{i}_{l}() {{ let v = {version if l == version % LINES else 0}; }}\n"
                   for l in range(LINES))


def doc_texts(docs=DOCS, files=FILES):
    """(path, text) of the docs: answers cite with JSON citations, pages with bare citations."""
    out = []
    for d in range(docs):
        cites = [(f"src/m{(d * 7 + k * 13) % files}.rs", 1 + (d + k * 3) % (LINES - 3)) for k in range(CITES)]
        if d % 2 == 0:
            answer = {"summary": f"answer {d}",
                      "citations": [{"path": p, "startLine": l, "endLine": l + 2} for p, l in cites]}
            out.append((f"answers/a{d}.json", json.dumps(answer) + "\n"))
        else:
            body = "".join(f"- step {k} is in {p}:{l}-{l + 2}.\n" for k, (p, l) in enumerate(cites))
            out.append((f"wiki/p{d}.md", f"# Page {d}\n\n{body}"))
    return out


def blob(data):
    raw = data.encode()
    return b"data %d\n%s\n" % (len(raw), raw)


def fast_import(path, commits, docs_at, docs, one_doc_every=0, files=FILES):
    """Write the history with git fast-import. `docs_at`: 'root', 'tip' or None."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    stream = bytearray()
    for c in range(commits):
        stream += b"commit refs/heads/main\n"
        stream += b"committer bench <b@b> %d +0000\n" % (1_700_000_000 + c * 60)
        stream += blob(f"c{c}")
        if c == 0:
            for i in range(files):
                stream += f"M 100644 inline src/m{i}.rs\n".encode() + blob(code_file(i, 0))
        else:
            i = c % files
            stream += f"M 100644 inline src/m{i}.rs\n".encode() + blob(code_file(i, c))
        if (docs_at == "root" and c == 0) or (docs_at == "tip" and c == commits - 1):
            for p, t in docs:
                stream += f"M 100644 inline {p}\n".encode() + blob(t)
        if one_doc_every and c % one_doc_every == 0:
            # Half the lines never change (blame follows them to the root), half are rewritten
            # in turn.
            lines = "".join(f"line {k} of version {c if k >= 100 and k % 7 == c % 7 else 0}: "
                            f"src/m{k % FILES}.rs:{1 + k % 30}\n" for k in range(200))
            stream += b"M 100644 inline docs/one.md\n" + blob(lines)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=bytes(stream), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True)
    if docs_at is None:
        for p, t in docs:
            f = path / p
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(t)


def repo(commits, placement):
    path = OUT / f"history-{commits}-{placement}"
    if not (path / ".git").exists():
        subprocess.run(["rm", "-rf", str(path)], check=True)
        fast_import(path, commits, None if placement == "untracked" else placement, doc_texts())
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", default="200,2000,10000")
    ap.add_argument("--placements", default="untracked,tip,root")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--blame-commits", type=int, default=16000)
    ap.add_argument("--cache-commits", type=int, default=2289,
                    help="an answer cache of --cache-answers untracked docs on this many commits, "
                         "against the object-read floor")
    ap.add_argument("--cache-answers", type=int, default=1000)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--bins"], cwd=ROOT, check=True)
    OUT.mkdir(parents=True, exist_ok=True)
    results = []
    print("| commits | docs | default | --no-history | ratio | peak RSS |\n|---|---|---|---|---|---|")
    for n in [int(x) for x in args.commits.split(",") if x]:
        for placement in args.placements.split(","):
            path = repo(n, placement)
            audit = [str(BIN), "audit", "--format", "json", "answers", "wiki"]
            t, rss = best(audit, path, args.repeat)
            flat, _ = best(audit + ["--no-history"], path, args.repeat)
            r = {"commits": n, "docs": placement, "default_s": t, "no_history_s": flat,
                 "ratio": t / flat, "peak_rss_mb": rss / 1024}
            results.append(r)
            print(f"| {n:,} | {placement} | {t:.3f} s | {flat:.3f} s | {t / flat:.2f}x | {rss / 1024:.0f} MB |",
                  flush=True)
    if args.blame_commits:
        path = OUT / f"blame-{args.blame_commits}"
        if not (path / ".git").exists():
            subprocess.run(["rm", "-rf", str(path)], check=True)
            fast_import(path, args.blame_commits, None, [], one_doc_every=100)
        t, rss = best([str(BIN), "audit", "--format", "json", "docs/one.md"], path, 1)
        flat, _ = best([str(BIN), "audit", "--format", "json", "--no-history", "docs/one.md"], path, 1)
        git_t, git_rss = run(["git", "blame", "--line-porcelain", "docs/one.md"], path)
        results.append({"blame_commits": args.blame_commits, "default_s": t, "no_history_s": flat,
                        "peak_rss_mb": rss / 1024, "git_blame_s": git_t, "git_blame_rss_mb": git_rss / 1024})
        print(f"\none doc (200 lines, rewritten in part every 100th commit) on {args.blame_commits:,} commits: "
              f"citegate {t:.2f} s, peak RSS {rss / 1024:.0f} MB (--no-history {flat:.2f} s); "
              f"git blame {git_t:.2f} s, {git_rss / 1024:.0f} MB")
    if args.cache_commits:
        results.append(answer_cache(args.cache_commits, args.cache_answers, args.repeat))
    (OUT / "history.json").write_text(json.dumps(results, indent=2))


def answer_cache(commits, answers, repeat):
    """An untracked answer cache against `git cat-file --batch` reading the blobs it cites."""
    path = OUT / f"cache-{commits}-{answers}-{CACHE_FILES}"
    if not (path / ".git").exists():
        subprocess.run(["rm", "-rf", str(path)], check=True)
        docs = [d for d in doc_texts(answers * 2, CACHE_FILES) if d[0].endswith(".json")]
        fast_import(path, commits, None, docs, files=CACHE_FILES)
    t, rss = best([str(BIN), "audit", "--format", "json", "answers"], path, repeat)
    flat, _ = best([str(BIN), "audit", "--format", "json", "--no-history", "answers"], path, repeat)
    cited = set()
    for _, text in doc_texts(answers * 2, CACHE_FILES)[::2]:
        cited.update(f"HEAD:{c['path']}" for c in json.loads(text)["citations"])
    cited = sorted(cited)
    batch = ("\n".join(cited) + "\n").encode()
    floor = min(timed_batch(path, batch) for _ in range(repeat))
    print(f"\nanswer cache: {answers:,} untracked answers on {commits:,} commits: citegate {t:.3f} s "
          f"(--no-history {flat:.3f} s), object-read floor {floor:.3f} s: {t / floor:.2f}x the floor, "
          f"peak RSS {rss / 1024:.0f} MB")
    return {"cache_commits": commits, "answers": answers, "default_s": t, "no_history_s": flat,
            "floor_s": floor, "peak_rss_mb": rss / 1024}


def timed_batch(path, batch):
    start = time.perf_counter()
    subprocess.run(["git", "cat-file", "--batch"], cwd=path, input=batch, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
