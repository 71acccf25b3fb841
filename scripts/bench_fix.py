#!/usr/bin/env python3
"""The fix re-check at scale: one doc holding N citations that all moved one line down (every one
has a fix, and every fix is re-checked before it is offered). Times `citegate audit` (which
re-checks every fix) and `citegate fix` (which applies them) for each N; the work is linear when
the time grows as N does.

    scripts/bench_fix.py                          # N = 3,000, 12,000, 48,000
    scripts/bench_fix.py --sizes 3000 12000 --repeat 3

The binary is `$CARGO_TARGET_DIR/release/citegate` (build it with `cargo build --release`).
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "citegate"


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
                   cwd=repo, env=env, check=True, capture_output=True)


def corpus(repo, n):
    """`a.rs` with n constants; `doc.md` citing each by line; then a line added on top."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    code = "".join(f"pub const C{i}: u32 = {i};\n" for i in range(n))
    (repo / "a.rs").write_text(code)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "code")
    (repo / "doc.md").write_text("".join(f"- C{i} is {i} (a.rs:{i + 1})\n" for i in range(n)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "doc")
    (repo / "a.rs").write_text("// moved\n" + code)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "move")


def timed(cmd, cwd):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[3000, 12000, 48000])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    if not BIN.exists():
        raise SystemExit(f"{BIN} is missing: cargo build --release")
    print("| fixable citations in one doc | audit (re-checks every fix) | fix (applies them) |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            repo = Path(tmp) / f"n{n}"
            corpus(repo, n)
            audit = min(timed([str(BIN), "audit", "doc.md"], repo) for _ in range(args.repeat))
            fixes = []
            for _ in range(args.repeat):
                shutil.copy(repo / "doc.md", repo / "doc.md.orig")
                fixes.append(timed([str(BIN), "fix", "doc.md"], repo))
                shutil.move(repo / "doc.md.orig", repo / "doc.md")
            print(f"| {n:,} | {audit:.2f} s | {min(fixes):.2f} s |")


if __name__ == "__main__":
    main()
