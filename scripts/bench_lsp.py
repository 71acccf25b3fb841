#!/usr/bin/env python3
"""`citegate lsp` on a 3,000-citation doc (issue 22: diagnostics after a one-character edit in
under 200 ms, most of it cached per blob between edits).

    scripts/bench_lsp.py                    # 3,000 citations, 20 edits
    scripts/bench_lsp.py --citations 500    # a quick run
    scripts/bench_lsp.py --workspace        # the workspace pass over the 2,400-doc wiki corpus

The doc is committed into a copy of the benchmark corpus (so its unpinned citations get implied
pins by blame, as in a real wiki) and opened in `citegate lsp` (release build) by a minimal
JSON-RPC client here. Measured, from the client's side: the first pull of its diagnostics
(`textDocument/diagnostic`, cold: nothing read yet), then for each edit (one character typed in
a different line each time) the time from `didChange` to the pulled diagnostics, and with a
pushing client the time from `didChange` to `publishDiagnostics` (which includes the
250 ms debounce).

`--memory`: the server's resident memory with 1, 10 and 100 docs open (each of `--citations`
citations, every one's diagnostics pulled), read from /proc after the last pull: what the server
keeps per open doc.

`--workspace`: the wiki corpus of issue 38 (`examples/corpus --shape wiki --files 4000 --seed 38`:
2,400 Markdown pages and 1,500 answer files) opened as the workspace folder of a pulling client,
timed from `workspace/diagnostic` sent to its report received, next to `citegate audit` over the
same folder (the pass runs the audit's pipeline, so the two should be close).
"""
import argparse
import json
import statistics
import subprocess
import time

from bench import BIN, OUT, ROOT, corpus


class Client:
    def __init__(self, cwd, pull):
        self.proc = subprocess.Popen([str(BIN / "citegate"), "lsp"], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next = 0
        caps = {"textDocument": {"diagnostic": {}}} if pull else {}
        self.request("initialize", {"capabilities": caps, "rootUri": cwd.as_uri()})
        self.notify("initialized", {})

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == self.next and "method" not in m:
                return m.get("result")

    def published(self, uri):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=30)


def big_doc(rows, n):
    lines = ["# Every cited line", ""]
    for i, (rev, path, s, e, quote) in enumerate(rows[:n]):
        # A short quote is the claim's literal (checked in the span); a long one is left out.
        first = [line.strip() for line in json.loads(quote).split("\n") if line.strip()]
        literal = first[0].replace("`", "") if first else ""
        claim = f"`{literal}`" if 0 < len(literal) <= 80 else "this"
        lines.append(f"- Line {i}: {claim} (see {path}:{s}-{e}).")
    return "\n".join(lines) + "\n"


def prepare(n):
    src, rows = corpus(10_000, 1)
    repo = OUT / f"lsp-{n}"
    subprocess.run(["rm", "-rf", str(repo)], check=True)
    subprocess.run(["git", "clone", "--quiet", str(src), str(repo)], check=True)
    doc = repo / "docs" / "big.md"
    doc.parent.mkdir(exist_ok=True)
    doc.write_text(big_doc(rows, n))
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(git + ["add", "docs/big.md"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "--quiet", "-m", "the big doc"], cwd=repo, check=True)
    return repo, doc


def edited(text, k):
    lines = text.split("\n")
    i = 2 + (k * 37) % (len(lines) - 3)
    lines[i] = lines[i] + "x"
    return "\n".join(lines)


def measure(repo, doc, edits, pull):
    client = Client(repo, pull)
    uri = doc.as_uri()
    text = doc.read_text()
    item = {"uri": uri, "languageId": "markdown", "version": 1, "text": text}
    start = time.perf_counter()
    client.notify("textDocument/didOpen", {"textDocument": item})
    if pull:
        first = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["items"]
    else:
        first = client.published(uri)["diagnostics"]
    cold = time.perf_counter() - start
    times = []
    for k in range(edits):
        changed = edited(text, k)
        start = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": k + 2},
            "contentChanges": [{"text": changed}]})
        if pull:
            client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        else:
            client.published(uri)
        times.append(time.perf_counter() - start)
    client.close()
    return cold, times, len(first)


def rss(pid):
    """(VmRSS, VmHWM) of a process, in MiB."""
    fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))


def memory(citations, counts):
    """Resident memory of `citegate lsp` with each count of docs open."""
    src, rows = corpus(10_000, 1)
    repo = OUT / "lsp-memory"
    subprocess.run(["rm", "-rf", str(repo)], check=True)
    subprocess.run(["git", "clone", "--quiet", str(src), str(repo)], check=True)
    (repo / "docs").mkdir(exist_ok=True)
    for d in range(max(counts)):
        start = (d * citations) % len(rows)
        chosen = (rows[start:] + rows[:start]) * (citations // len(rows) + 1)
        (repo / "docs" / f"m{d}.md").write_text(big_doc(chosen, citations))
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(git + ["add", "docs"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "--quiet", "-m", "the docs"], cwd=repo, check=True)
    print(f"| docs open | citations each | VmRSS after | peak (VmHWM) | per doc after |")
    print("|---|---|---|---|---|")
    for count in counts:
        client = Client(repo, True)
        base = rss(client.proc.pid)[0]
        for d in range(count):
            doc = repo / "docs" / f"m{d}.md"
            item = {"uri": doc.as_uri(), "languageId": "markdown", "version": 1,
                    "text": doc.read_text()}
            client.notify("textDocument/didOpen", {"textDocument": item})
            client.request("textDocument/diagnostic", {"textDocument": {"uri": doc.as_uri()}})
        now, peak = rss(client.proc.pid)
        client.close()
        print(f"| {count} | {citations} | {now:.0f} MiB | {peak:.0f} MiB | "
              f"{(now - base) / count:.1f} MiB |")


def wiki():
    path = OUT / "wiki-s38"
    if not (path / ".git").exists():
        subprocess.run(["rm", "-rf", str(path)], check=True)
        subprocess.run([str(BIN / "examples" / "corpus"), str(path), "--shape", "wiki",
                        "--files", "4000", "--seed", "38"], check=True)
    return path


def workspace(runs):
    repo = wiki()
    for k in range(runs):
        start = time.perf_counter()
        audit = subprocess.run([str(BIN / "citegate"), "audit", "--format", "json"], cwd=repo,
                               capture_output=True)
        audited = time.perf_counter() - start
        summary = json.loads(audit.stdout)["summary"]
        client = Client(repo, True)
        start = time.perf_counter()
        items = client.request("workspace/diagnostic", {"previousResultIds": []})["items"]
        passed = time.perf_counter() - start
        client.close()
        found = sum(len(i["items"]) for i in items)
        print(f"run {k + 1}: workspace/diagnostic {passed:.2f} s ({len(items)} docs, {found} "
              f"diagnostics); citegate audit {audited:.2f} s ({summary['findings']} findings)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--citations", type=int, default=3_000)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--workspace", action="store_true", help="time the workspace pass instead")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--memory", action="store_true", help="measure memory with 1, 10, 100 docs open")
    ap.add_argument("--no-build", action="store_true", help="use the release build as it is")
    args = ap.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--bins", "--example",
                        "corpus"], cwd=ROOT, check=True)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.memory:
        return memory(args.citations, [1, 10, 100])
    if args.workspace:
        return workspace(args.runs)
    repo, doc = prepare(args.citations)
    audit = subprocess.run([str(BIN / "citegate"), "audit", "--format", "json", "docs/big.md"],
                           cwd=repo, capture_output=True)
    summary = json.loads(audit.stdout)["summary"]
    print(f"doc: {summary['citations']} citations, {summary['findings']} findings (citegate audit)")
    for pull in (True, False):
        cold, times, found = measure(repo, doc, args.edits, pull)
        ms = sorted(t * 1000 for t in times)
        p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
        mode = "pull (didChange -> textDocument/diagnostic)" if pull else "push (didChange -> publishDiagnostics, 250 ms debounce)"
        print(f"{mode}: {found} diagnostics; open {cold * 1000:.0f} ms; "
              f"after an edit: median {statistics.median(ms):.0f} ms, p90 {p90:.0f} ms, max {ms[-1]:.0f} ms")


if __name__ == "__main__":
    main()
