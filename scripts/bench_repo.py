#!/usr/bin/env python3
"""citegate on a real repository's docs, beside its floor and its peers (issue 61 item 1):

    scripts/bench_repo.py REPO [PATHS...] [--rounds 7] [--citegate target/release/citegate]

REPO is any clone with its full history (the benchmarks use cometbft/cometbft; nothing of it is
kept here). PATHS are the doc folders, as `citegate audit` takes them (default: the whole
repository). The citations and the revision each is checked at come from `citegate audit --dump
--format json`, so the floor and the peers read exactly what the audit reads. Measured in
alternating rounds (medians, wall / user CPU / peak RSS):
  audit         `citegate audit --format json` on one core and on all cores
  no history    the same with `--no-history` (no implied pins): the difference is their cost
  floor         one `git cat-file --batch` reading every cited `REV:PATH` and `HEAD:PATH`
  blame         `git blame --porcelain -L` on every doc line whose citations have an implied pin
                (one process per doc, all its lines at once): the peer of implied pins
A real repository's docs cite what no longer exists: those blobs are missing to the floor too.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench import run_usage

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd, cwd, stdin=None):
    """Wall seconds, user CPU seconds and peak RSS (MB) of one command, its output discarded."""
    wall, usage = run_usage(cmd, cwd, stdin)
    return wall, usage.ru_utime, usage.ru_maxrss / 1024


def citations(citegate, repo, paths):
    """Every citation the audit reads, with the revision it is checked at (`--dump`)."""
    proc = subprocess.run([citegate, "audit", "--dump", "--format", "json", *paths], cwd=repo,
                          capture_output=True, check=False)
    if proc.returncode not in (0, 1):
        sys.exit(f"bench_repo: --dump exited {proc.returncode}: {proc.stderr.decode()}")
    return json.loads(proc.stdout)["citations"]


def floor_batch(cited):
    """`git cat-file --batch` input: each cited REV:PATH and the target's version of the path."""
    asks = set()
    for c in cited:
        if c["revision"] and c["path"]:
            asks.add(f"{c['revision']}:{c['path']}")
            asks.add(f"HEAD:{c['path']}")
    return ("\n".join(sorted(asks)) + "\n").encode(), len(asks)


def blame_asks(cited):
    """One `git blame -L` per doc over the lines whose citations have an implied pin."""
    lines = defaultdict(set)
    for c in cited:
        if c["pin"] == "implied":
            lines[c["doc"]].add(c["line"])
    asks = [["git", "blame", "--porcelain"] + [f"-L{n},{n}" for n in sorted(ns)] + ["--", doc]
            for doc, ns in sorted(lines.items())]
    return asks, sum(len(ns) for ns in lines.values())


def blame(repo, asks):
    """The blame peer as one measurement: wall, user CPU (children), 0 MB."""
    before = os.times()
    start = time.perf_counter()
    for cmd in asks:
        subprocess.run(cmd, cwd=repo, stdout=subprocess.DEVNULL, check=True)
    after = os.times()
    return time.perf_counter() - start, after.children_user - before.children_user, 0.0


def describe(repo, cited):
    revisions = {c["revision"] for c in cited if c["pin"] == "own" and c["revision"]}
    commits = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, text=True,
                             capture_output=True, check=True).stdout.strip()
    by_pin = defaultdict(int)
    for c in cited:
        by_pin[c["pin"] if c["revision"] else "unresolved"] += 1
    docs = len({c["doc"] for c in cited})
    print(f"{commits} commits; {len(cited)} citations in {docs} docs; pins: "
          + ", ".join(f"{n} {p}" for p, n in sorted(by_pin.items()))
          + f"; {len(revisions)} revisions pinned")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--citegate", default=str(ROOT / "target" / "release" / "citegate"))
    args = ap.parse_args()
    repo, citegate = args.repo.resolve(), args.citegate
    cited = citations(citegate, repo, args.paths)
    describe(repo, cited)
    batch, blobs = floor_batch(cited)
    asks, lines = blame_asks(cited)
    print(f"floor: {blobs} REV:PATH lines; blame: {lines} lines in {len(asks)} docs")
    audit = [citegate, "audit", "--format", "json", *args.paths]
    jobs = [
        ("audit, 1 core", lambda: timed(audit + ["-j", "1"], repo)),
        ("audit, all cores", lambda: timed(audit, repo)),
        ("--no-history, 1 core", lambda: timed(audit + ["-j", "1", "--no-history"], repo)),
        ("--no-history, all cores", lambda: timed(audit + ["--no-history"], repo)),
        ("floor (`git cat-file --batch`)", lambda: timed(["git", "cat-file", "--batch"], repo,
                                                         batch)),
        ("`git blame -L`", lambda: blame(repo, asks)),
    ]
    for _, job in jobs:  # warm-up: the pack files in the page cache
        job()
    samples = defaultdict(list)
    for _ in range(args.rounds):
        for name, job in jobs:
            samples[name].append(job())
    print(f"\n{args.rounds} alternating rounds, medians (range)\n")
    print("| | wall | user CPU | peak RSS |\n|---|---|---|---|")
    med = {}
    for name, _ in jobs:
        wall, user, rss = zip(*samples[name])
        med[name] = statistics.median(wall)
        print(f"| {name} | {med[name]:.3f} s ({min(wall):.3f}-{max(wall):.3f}) | "
              f"{statistics.median(user):.3f} s | {max(rss):.0f} MB |")
    for cores in ("1 core", "all cores"):
        pins = med[f"audit, {cores}"] - med[f"--no-history, {cores}"]
        bound = med["floor (`git cat-file --batch`)"] + med["`git blame -L`"]
        print(f"\n{cores}: implied pins {pins:.3f} s against `git blame -L` "
              f"{med['`git blame -L`']:.3f} s; the audit {med[f'audit, {cores}']:.3f} s is "
              f"{med[f'audit, {cores}'] / bound:.2f}x (floor + blame) ({bound:.3f} s)")


if __name__ == "__main__":
    main()
