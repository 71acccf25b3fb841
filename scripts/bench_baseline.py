#!/usr/bin/env python3
"""The cost of a baseline: `citegate audit` on one corpus with no baseline, with an empty one, and
with one of N entries (every finding of the run), in alternating order so the machine's load
falls on each alike. The corpus: 100 code files, and 100 docs citing them, `--passing` citations
that hold and N that do not (half cite lines past a file's end, half a quote the span does not
hold), so the run has N findings and the baseline N entries.

    scripts/bench_baseline.py                      # N = 10,000, 40,000 passing, 7 rounds
    scripts/bench_baseline.py --findings 1000 --rounds 3

The binary is `$CARGO_TARGET_DIR/release/citegate` (build it with `cargo build --release`).
Prints the median wall and CPU (user + system) time of each, and the ratio to no baseline.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "citegate"
FILES, LINES = 100, 200


def git(repo, *args):
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
                   cwd=repo, check=True, capture_output=True)


def corpus(repo, findings, passing):
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for f in range(FILES):
        path = repo / "src" / f"m{f}.rs"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"pub const C{f}_{i}: u32 = {i};\n" for i in range(LINES)))
    docs = [[] for _ in range(FILES)]
    for i in range(passing):
        f, line = i % FILES, i % LINES
        docs[i % FILES].append(f"- `C{f}_{line}` (src/m{f}.rs:{line + 1})")
    for i in range(findings):
        f, line = i % FILES, i % LINES
        if i % 2:
            docs[i % FILES].append(f"- C{i} (src/m{f}.rs:{LINES + 1 + i})")
        else:
            docs[i % FILES].append(f"- \"`C{f}_{line}: u64`\" (src/m{f}.rs:{line + 1})")
    for d, lines in enumerate(docs):
        path = repo / "docs" / f"d{d}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "corpus")


def timed(repo, baseline):
    args = [str(BIN), "audit", "--format", "json", "docs"]
    if baseline is not None:
        args += ["--baseline", str(baseline)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=repo, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"bench: {args} exited {proc.returncode}: {proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(proc.stdout)["summary"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--findings", type=int, default=10_000)
    ap.add_argument("--passing", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--bin", default=None, help="the citegate binary (default: the release build)")
    a = ap.parse_args()
    global BIN
    BIN = Path(a.bin).resolve() if a.bin else BIN
    tmp = Path(tempfile.mkdtemp(prefix="citegate-bench-baseline-"))
    try:
        repo = tmp / "repo"
        corpus(repo, a.findings, a.passing)
        empty = tmp / "empty.json"
        empty.write_text('{"version": 1, "findings": []}\n')
        full = tmp / "full.json"
        # Written at the repository root, then moved out: the runs name it with --baseline.
        subprocess.run([str(BIN), "baseline", "docs"], cwd=repo, check=True, capture_output=True)
        shutil.move(repo / ".citegate-baseline.json", full)
        entries = len(json.loads(full.read_text())["findings"])
        kinds = {"none": None, "empty": empty, f"{entries} entries": full}
        times = {k: [] for k in kinds}
        summaries = {}
        timed(repo, None)  # warm-up: the page cache holds the objects for every contender
        for r in range(a.rounds):
            order = list(kinds.items())
            order = order[r % 3:] + order[:r % 3]
            for name, baseline in order:
                wall, cpu, summary = timed(repo, baseline)
                times[name].append((wall, cpu))
                summaries[name] = summary
        base = statistics.median(w for w, _ in times["none"])
        base_cpu = statistics.median(c for _, c in times["none"])
        print(f"corpus: {a.passing} passing citations, {a.findings} failing, {FILES} docs; "
              f"{a.rounds} rounds, medians")
        print("| baseline | findings counted | wall | CPU | wall vs none | CPU vs none |")
        print("|---|---|---|---|---|---|")
        for name in kinds:
            wall = statistics.median(w for w, _ in times[name])
            cpu = statistics.median(c for _, c in times[name])
            counted = summaries[name]["findings"]
            print(f"| {name} | {counted} | {wall:.3f} s | {cpu:.3f} s | "
                  f"{wall / base:.3f}x | {cpu / base_cpu:.3f}x |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
