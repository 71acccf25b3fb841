#!/usr/bin/env python3
"""`citegate gate --jsonl` throughput (issue 20: at least 20,000 answers/s on a 10,000-answer
stream), next to `citegate audit` on the same answers written as one .jsonl file.

    scripts/bench_gate.py                 # 10,000 answers over the 10k-citation corpus
    scripts/bench_gate.py --answers 2000  # a quick run

Each answer cites one line of the corpus with its exact quote and carries its own `retrieved`
payload (the chunk around the line), so the gate checks path, lines, quote and cited ⊆
retrieved; every third answer's quote is altered, so a third are refused.
"""
import argparse
import json
import subprocess
import time

from bench import BIN, OUT, ROOT, best, corpus


def stream(repo, n):
    files = sorted(p for p in (repo / "src").rglob("*") if p.is_file())
    out = []
    for i in range(n):
        f = files[i % len(files)]
        lines = f.read_text().splitlines()
        k = 1 + (i * 7) % max(1, len(lines))
        while k < len(lines) and not lines[k - 1].strip():
            k += 1
        quote = lines[k - 1].strip() or "x"
        if i % 3 == 2:
            quote += " /* not in the file */"
        rel = f.relative_to(repo).as_posix()
        out.append(json.dumps({
            "id": f"q{i}",
            "summary": f"Answer {i}.",
            "citations": [{"path": rel, "startLine": k, "endLine": k, "quote": quote}],
            "retrieved": [{"path": rel, "start_line": max(1, k - 5), "end_line": k + 5}],
        }))
    return ("\n".join(out) + "\n").encode()


def gate_once(repo, data):
    start = time.perf_counter()
    proc = subprocess.run([str(BIN / "citegate"), "gate", "--jsonl"], cwd=repo, input=data,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gate exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    verdicts = [json.loads(line) for line in proc.stdout.splitlines()]
    return wall, verdicts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--bins", "--example", "corpus"],
                   cwd=ROOT, check=True)
    OUT.mkdir(parents=True, exist_ok=True)
    repo, _ = corpus(10_000, 1)
    data = stream(repo, args.answers)
    gate_once(repo, data)  # warm-up
    runs = [gate_once(repo, data) for _ in range(args.repeat)]
    wall = min(t for t, _ in runs)
    verdicts = runs[0][1]
    passed = sum(v["passed"] for v in verdicts)
    assert len(verdicts) == args.answers and [v["line"] for v in verdicts] == list(range(1, args.answers + 1))
    batch = OUT / "gate-stream.jsonl"
    batch.write_bytes(data)
    audit_s, _ = best([str(BIN / "citegate"), "audit", "--format", "json", "--no-history", str(batch)],
                      repo, args.repeat)
    print(f"| answers | gate --jsonl | answers/s | passed | audit, same answers | gate/audit |")
    print("|---|---|---|---|---|---|")
    print(f"| {args.answers:,} | {wall:.2f} s | {args.answers / wall:,.0f} | {passed:,} | "
          f"{audit_s:.2f} s | {wall / audit_s:.1f}x |")


if __name__ == "__main__":
    main()
