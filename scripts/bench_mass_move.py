#!/usr/bin/env python3
"""A commit that moves thousands of files, followed by a full audit: a repository of N source files
under `src/`, one commit that moves every one to `lib/` (as they are, or each with one line
edited), then a doc whose citations are pinned (GitHub permalinks) at the commit before the move,
one per 10th file. `citegate audit` follows every cited file through the move (issue 61 item 2b).
Each binary given runs in turn, round after round, so that a machine shared with other work loads
them alike; the best and the median of each are printed, with `git diff --find-renames` over the
move as a peer (what git itself spends pairing the same files).

    scripts/bench_mass_move.py BIN [BIN...]                # N = 3,000, plain and edited moves
    scripts/bench_mass_move.py --files 3000 --rounds 5 BEFORE AFTER
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
           GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")


def git(repo, *args, stdin=None):
    return subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
                          cwd=repo, env=ENV, check=True, capture_output=True, input=stdin)


def body(i, edited):
    lines = [f"pub fn f{i}_{k}() -> u32 {{ {i * 100 + k} }}\n" for k in range(12)]
    if edited:
        lines[3] = f"pub fn f{i}_3() -> u64 {{ 0 }}\n"
    return "".join(lines)


def build(repo, files, edited):
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    src = repo / "src"
    for i in range(files):
        path = src / f"m{i % 50}" / f"f{i}.rs"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body(i, False))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "code")
    before = git(repo, "rev-parse", "HEAD").stdout.decode().strip()
    git(repo, "mv", "src", "lib")
    if edited:
        for i in range(files):
            (repo / "lib" / f"m{i % 50}" / f"f{i}.rs").write_text(body(i, True))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "move")
    doc = "".join(
        f"- [f{i}](https://github.com/acme/big/blob/{before}/src/m{i % 50}/f{i}.rs#L1)\n"
        for i in range(0, files, 10))
    (repo / "docs").mkdir()
    (repo / "docs" / "cites.md").write_text(doc)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "doc")


def timed(cmd, cwd):
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True)
    return time.perf_counter() - start, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for edited in (False, True):
            repo = Path(tmp) / f"edited-{edited}"
            build(repo, a.files, edited)
            audit = ["audit", "docs", "--format", "json", "--repo-url", "https://github.com/acme/big"]
            times = {b: [] for b in a.bins}
            times["git diff --find-renames"] = []
            reports = {}
            for _ in range(a.rounds):
                for b in a.bins:
                    t, out = timed([b, *audit], repo)
                    times[b].append(t)
                    reports[b] = out.stdout
                t, _ = timed(["git", "diff", "--find-renames", "--name-status", "HEAD~2", "HEAD~1"],
                             repo)
                times["git diff --find-renames"].append(t)
            kind = "each file edited" if edited else "as they are"
            print(f"\n{a.files} files moved {kind}, {a.files // 10} citations, {a.rounds} rounds")
            for name, ts in times.items():
                note = ""
                if name in reports:
                    rules = collections.Counter(f["rule"] for f in json.loads(reports[name])["findings"])
                    note = "  (" + ", ".join(f"{k}: {v}" for k, v in sorted(rules.items())) + ")"
                print(f"  {name}: best {min(ts):.3f} s, median {statistics.median(ts):.3f} s{note}")


if __name__ == "__main__":
    main()
