#!/usr/bin/env python3
"""The mdBook preprocessor's cost: `mdbook build` of a book of N chapters with `[preprocessor.citegate]`
and without it, alternating runs (so a change in the machine's load falls on both alike), and
the added time. Each chapter is prose with 4 citations into 50 source files of the same
repository, all holding (a clean guide is the common case: the audit runs in full and the build
goes on to render).

    scripts/bench_mdbook.py                       # 500 chapters, 5 runs each
    scripts/bench_mdbook.py --chapters 100 --repeat 3

The binary is `$CARGO_TARGET_DIR/release/citegate` (build it with `cargo build --release`), found
on PATH by mdBook as a user's installed one is; `mdbook` is the one on PATH.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "citegate"
FILES, LINES, PER_CHAPTER = 50, 120, 4


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
                   cwd=repo, env=env, check=True, capture_output=True)


def corpus(repo, chapters):
    """Code in `src/`, the chapters in `chapters/`, and two books over them: `with/`, `without/`."""
    (repo / "src").mkdir(parents=True)
    (repo / "chapters").mkdir()
    git(repo, "init", "-q", "-b", "main")
    for f in range(FILES):
        code = "".join(f"pub fn f{f}_{i}() -> u32 {{ {i} }}\n" for i in range(LINES))
        (repo / "src" / f"m{f}.rs").write_text(code)
    summary = ["# Summary\n\n"]
    for c in range(chapters):
        text = [f"# Chapter {c}\n\n"]
        for k in range(PER_CHAPTER):
            f, line = (c * PER_CHAPTER + k) % FILES, (c * 7 + k * 13) % (LINES - 3) + 1
            text.append(f"Paragraph {k} of chapter {c} explains how the code works, in enough words "
                        f"to read like a guide's prose, and cites `src/m{f}.rs:{line}-{line + 2}`.\n\n")
        (repo / "chapters" / f"c{c}.md").write_text("".join(text))
        summary.append(f"- [Chapter {c}](c{c}.md)\n")
    (repo / "chapters" / "SUMMARY.md").write_text("".join(summary))
    plain = '[book]\ntitle = "bench"\nsrc = "../chapters"\n'
    for name, extra in [("without", ""), ("with", '\n[preprocessor.citegate]\ncommand = "citegate mdbook"\n')]:
        (repo / name).mkdir()
        (repo / name / "book.toml").write_text(plain + extra)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "code and book")


def timed(book, env):
    shutil.rmtree(book / "book", ignore_errors=True)
    start = time.perf_counter()
    out = subprocess.run(["mdbook", "build"], cwd=book, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"mdbook build in {book.name} failed:\n{out.stderr}")
    return took


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chapters", type=int, default=500)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    if not BIN.exists():
        raise SystemExit(f"{BIN} is missing: cargo build --release")
    env = dict(os.environ, PATH=f"{BIN.parent}{os.pathsep}{os.environ['PATH']}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        corpus(repo, args.chapters)
        timed(repo / "without", env), timed(repo / "with", env)  # warm-up
        runs = {"without": [], "with": []}
        for _ in range(args.repeat):
            for name in ("without", "with"):
                runs[name].append(timed(repo / name, env))
    citations = args.chapters * PER_CHAPTER
    print(f"| book | `mdbook build` | with `citegate mdbook` | added (median) |")
    print("|---|---|---|---|")
    med = {k: statistics.median(v) for k, v in runs.items()}
    lo = {k: min(v) for k, v in runs.items()}
    print(f"| {args.chapters} chapters, {citations:,} citations | {med['without']:.2f} s (best {lo['without']:.2f}) "
          f"| {med['with']:.2f} s (best {lo['with']:.2f}) | {med['with'] - med['without']:+.2f} s |")


if __name__ == "__main__":
    main()
