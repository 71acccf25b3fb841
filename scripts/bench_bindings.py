#!/usr/bin/env python3
"""Answers per second through the bindings, in-process, next to `citegate gate --jsonl`.

Builds the shared fixture repository (`tests/bindings/repo`), makes N answers (a grounded one and
an invented one, alternating, each with its own `id`), and gates them with the payload of
`tests/bindings/retrieved.json`:

- Python: `repo.gate(answer_dict)` one at a time, and `repo.gate_many(dicts)` (objects passed, no
  JSON text made by the caller);
- Node: `await repo.gate(object)` one at a time, all at once (`Promise.all`), and
  `await repo.gateMany(objects)`;
- the CLI: the same answers as lines through one `citegate gate --jsonl` process.

Each figure is the best of --runs runs (a shared machine: the best is the least disturbed).

    scripts/bench_bindings.py --citegate target/release/citegate --node bindings/node [-n 20000]

Run it with a Python that has the `citegate-python` wheel installed (a release build:
`maturin build --release`), and `--node` pointing at the package folder after
`napi build --platform --release`.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT / "tests" / "bindings"

NODE_BENCH = r"""
// `node -e SCRIPT PKG DIR N RUNS`: the arguments follow the binary in process.argv.
const { Repo } = require(process.argv[1])
const [dir, n, runs] = [process.argv[2], +process.argv[3], +process.argv[4]]
const answers = require('fs').readFileSync(0, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
const retrieved = JSON.parse(require('fs').readFileSync(dir + '/r.json', 'utf8'))
const repo = new Repo(dir)
async function best(f) {
  let b = Infinity
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint()
    await f()
    b = Math.min(b, Number(process.hrtime.bigint() - t) / 1e9)
  }
  return n / b
}
;(async () => {
  const out = {}
  out['node gate, one at a time'] = await best(async () => { for (const a of answers) await repo.gate(a, { retrieved }) })
  out['node gate, all at once (Promise.all)'] = await best(() => Promise.all(answers.map((a) => repo.gate(a, { retrieved }))))
  out['node gateMany'] = await best(() => repo.gateMany(answers, { retrieved }))
  console.log(JSON.stringify(out))
})()
"""


def build_repo(dest):
    shutil.copytree(SHARED / "repo", dest, dirs_exist_ok=True)
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "code"]):
        subprocess.run(git + args, cwd=dest, check=True)
    shutil.copy(SHARED / "retrieved.json", Path(dest) / "r.json")


def answers(n):
    good = {"summary": "30 s", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2,
                                              "quote": "pub const TTL_SECONDS: u64 = 30;"}]}
    bad = json.loads(json.dumps(good))
    bad["citations"][0]["path"] = "src/nope.rs"
    return [dict(good if i % 2 == 0 else bad, id=i) for i in range(n)]


def best(runs, n, f):
    b = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return n / b


def python_figures(dir, objs, runs):
    import citegate

    repo = citegate.Repo(dir)
    retrieved = json.loads((Path(dir) / "r.json").read_text())
    n = len(objs)
    return {
        "python gate, one at a time": best(runs, n, lambda: [repo.gate(a, retrieved=retrieved) for a in objs]),
        "python gate_many": best(runs, n, lambda: repo.gate_many(objs, retrieved=retrieved)),
    }


def cli_figure(binary, dir, lines, runs):
    data = ("\n".join(lines) + "\n").encode()

    def run():
        subprocess.run([binary, "gate", "--jsonl", "--retrieved", "r.json"], cwd=dir, input=data,
                       stdout=subprocess.DEVNULL, check=False)

    return {"citegate gate --jsonl (one process)": best(runs, len(lines), run)}


def node_figures(pkg, dir, lines, runs):
    out = subprocess.run(["node", "-e", NODE_BENCH, str(Path(pkg).resolve()), dir, str(len(lines)), str(runs)],
                         input="\n".join(lines), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--citegate", required=True, help="the citegate binary (a release build)")
    p.add_argument("--node", help="the Node package folder (bindings/node, built --release)")
    p.add_argument("-n", type=int, default=20000, help="answers per run")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    objs = answers(args.n)
    lines = [json.dumps(a) for a in objs]
    with tempfile.TemporaryDirectory() as tmp:
        build_repo(tmp)
        figures = {}
        figures.update(cli_figure(args.citegate, tmp, lines, args.runs))
        figures.update(python_figures(tmp, objs, args.runs))
        if args.node:
            figures.update(node_figures(args.node, tmp, lines, args.runs))
    print(f"{args.n} answers (half refused), best of {args.runs}, {os.cpu_count()} cores")
    print("| path | answers/s |\n|---|---:|")
    for name, rate in figures.items():
        print(f"| {name} | {rate:,.0f} |")


if __name__ == "__main__":
    sys.exit(main())
