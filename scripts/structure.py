#!/usr/bin/env python3
"""Structure checks for what Cargo cannot check, run by .ci/run.

The crates under `crates/` and the command line at the root are the layer table's top: Cargo
refuses a circle between crates and an import of a crate that is not a dependency. This script
checks the rest:

1. Each crate depends (`[dependencies]`, not dev) only on citegate crates in rows below its own
   in `CRATES` (the order the table and docs/src/internals.md state).
2. Inside the engine (`crates/citegate-engine`), every top-level module sits in one layer of
   `ENGINE_LAYERS`, and no module uses one in a layer above its own (an upward edge). Modules of
   one layer may use each other.
3. No import circle between the files of a crate. Every `crate::…`, `super::…` and `self::…`
   path in a file (comments and `#[cfg(test)]` modules left out) is an edge to the module file it
   names (the longest module prefix that exists). A child using its parent's items counts too:
   shared items live in a sibling file, so every file can be read with what it depends on.
4. No function over 100 lines outside tests, in any crate.
5. A doc holding `<!-- layers:start -->` … `<!-- layers:end -->` holds the table of `CRATES` and
   `ENGINE_LAYERS` (README.md and docs/src/*.md are looked at; at least one must hold it).

    scripts/structure.py              # check; exit 1 and say what is wrong
    scripts/structure.py --graph      # also print the edges
    scripts/structure.py --table      # print the layer table (Markdown) and exit
    scripts/structure.py --src DIR    # check another source tree against the engine's layers
                                      # (layers and circles only)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = "crates/citegate-engine"
SRC = ROOT / ENGINE / "src"
MAX_FN_LINES = 100

# The crates, bottom first: a crate may depend on citegate crates of rows below its own. The
# engine's row is split into its own layers (`ENGINE_LAYERS`).
CRATES = [
    (["citegate-llm"],
     "the model client: `ChatModel`, typed messages, the scripted model for tests, the "
     "OpenAI-compatible HTTP client behind feature `http`; a leaf"),
    (["citegate-engine"], None),
    (["citegate-regenerate"],
     "`regenerate` and `replay`: offline re-grounding, asking the model, outcomes, rewriting "
     "answers in their own layout, traces, and their report (refusals, `retrieve` hits)"),
    (["citegate-report"],
     "one file per output format (`html/`: the dashboard; `human.rs`, miette's, behind the "
     "default feature `human`); the scheduled sweep (`sweep/`)"),
    (["citegate-lsp", "citegate-mcp", "citegate-api"],
     "the servers (the root crate's default features `lsp`, `mcp`), and the library entry points "
     "the bindings wrap (`bindings/python`, `bindings/node`): a `Repo` opened once, then `gate`, "
     "`gate_many`, `audit`, `cite`, the command line's own code"),
    (["citegate"],
     "the command line, at the repository root: `src/main.rs`, a short dispatcher, the command "
     "line's types (`args.rs`), one module per command (`commands/`), the test helpers (feature "
     "`testing`), and the other crates re-exported under their old module names"),
]

# The engine's layers, bottom first: a module may use modules of its own layer and those below.
ENGINE_LAYERS = [
    (["registry", "error", "escape"],
     "rule IDs and their catalogue (`rules/*.yaml`, embedded); how an error reads; escaping for "
     "terminals and JSON"),
    (["model"],
     "plain data: `Doc`, `Span`, typed IDs, `Citation`, `Claim`, `Extracted` facts, `Finding`, "
     "`Fix` (with its own applicability), `Report`"),
    (["forge", "normalize", "config", "discover", "output", "json_spans", "paths"],
     "forge URLs, the one whitespace leniency, `.citegate.yaml`, finding docs, writing files never "
     "through a link, a JSON reader that keeps spans, a cited path made a repository path"),
    (["contract", "extract", "resolve", "fix", "select"],
     "the answer contract, read and written (keys, `RefusalReason`, refusals, payloads, the "
     "response schema); a doc's text to citations and claims (facts only); revisions, blobs and "
     "blame through libgit2; a citation's fix in its own syntax and applying edits atomically; "
     "`--since`"),
    (["check", "retrieve"],
     "evidence per blob (extents, quotes, literal support, stale verdicts); retrieval at a "
     "revision (chunks, tokens, BM25, the index per tree)"),
    (["rules"],
     "one file per rule deciding from facts, and the dispatch that states their precedence"),
    (["audit"],
     "a `Session` (repository, target, settings), then load, plan, check, history, rules, a "
     "sorted `Report`, every fix re-checked (`verify.rs`), `fix`'s fixpoint"),
    (["gate", "fixture"],
     "the gate over the audit: an answer, a text or a paragraph checked in memory, "
     "`Violation`s, the verdict on a model's raw reply, the `citegate gate` service's "
     "`Verdict`s; fixture repositories built from text (the tests' and `explain`'s examples)"),
]
LAYERS = ENGINE_LAYERS


def crate_dir(name):
    return ROOT if name == "citegate" else ROOT / "crates" / name


def module_of(path, src=None):
    rel = path.relative_to(src or SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts.pop()
    if parts in (["lib"], ["main"]):
        return ()
    return tuple(parts)


def strip(text):
    """The code without comments and without `#[cfg(test)]` items (test modules are at the end)."""
    text = re.sub(r"//[^\n]*", "", text)
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: cut.start()] if cut else text


def expand(path):
    """`a::{b, c::d}` → [`a::b`, `a::c::d`] (one level of braces is enough here)."""
    m = re.match(r"^(.*?)\{(.*)\}$", path, re.S)
    if not m:
        return [path]
    head, body = m.group(1), m.group(2)
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    out.append(cur)
    return [p for part in out if part.strip() for p in expand(head + part.strip())]


def references(code):
    uses = re.findall(r"\buse\s+([^;]+);", code)
    inline = re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", code)
    paths = []
    for u in uses:
        paths.extend(expand(re.sub(r"\s+", "", u)))
    return paths + inline


def resolve(path, here, modules, is_dir_module):
    parts = path.split("::")
    if parts[0] == "crate":
        base, rest = (), parts[1:]
    elif parts[0] in ("super", "self"):
        # A mod.rs is its folder's module: `super` from it is the folder's parent.
        base = here
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
        rest = parts
    else:
        return None
    best = None
    for n in range(len(rest), -1, -1):
        cand = base + tuple(rest[:n])
        if cand in modules:
            best = cand
            break
    return best


def layer_table():
    rows = ["| layer | crate | modules | what |", "|---|---|---|---|"]
    for n, (crates, what) in enumerate(CRATES, 1):
        names = ", ".join(f"`{c}`" for c in crates)
        if what is not None:
            rows.append(f"| {n} | {names} |  | {what} |")
            continue
        for k, (mods, inner) in enumerate(ENGINE_LAYERS, 1):
            mods = ", ".join(f"`{m}`" for m in mods)
            rows.append(f"| {n}.{k} | {names} | {mods} | {inner} |")
    return "\n".join(rows)


def crate_edges():
    """Each crate's citegate dependencies that are not in a row below its own."""
    rank = {c: n for n, (crates, _) in enumerate(CRATES) for c in crates}
    problems = []
    for name in sorted(rank):
        manifest = crate_dir(name) / "Cargo.toml"
        if not manifest.exists():
            problems.append(f"crate `{name}` of CRATES has no {manifest.relative_to(ROOT)}")
            continue
        for dep in sorted(normal_dependencies(manifest.read_text())):
            if dep.startswith("citegate") and dep != name and rank.get(dep, len(CRATES)) >= rank[name]:
                problems.append(f"crate `{name}` (row {rank[name] + 1}) depends on `{dep}`, "
                                f"which is not in a row below it in CRATES")
    listed = {p.name for p in (ROOT / "crates").iterdir() if (p / "Cargo.toml").exists()}
    for name in sorted(listed - set(rank)):
        problems.append(f"crate `{name}` under crates/ is in no row of CRATES")
    return problems


def normal_dependencies(manifest):
    """The names of a manifest's `[dependencies]` and `[target.….dependencies]` (not dev)."""
    names, on = set(), False
    for line in manifest.splitlines():
        header = re.match(r"^\[(.*)\]\s*$", line.strip())
        if header:
            on = header.group(1) == "dependencies" or re.fullmatch(r"target\..*\.dependencies", header.group(1)) is not None
            continue
        m = re.match(r"^([A-Za-z0-9_-]+)(?:\.workspace)?\s*=", line)
        if on and m:
            names.add(m.group(1))
    return names


def upward_edges(edges):
    """Edges from a top-level module to one in a higher layer, and modules in no layer."""
    rank = {m: n for n, (mods, _) in enumerate(LAYERS) for m in mods}
    problems = []
    tops = {m[0] for m in edges} | {b[0] for targets in edges.values() for b in targets}
    for m in sorted(tops - set(rank)):
        problems.append(f"module `{m}` is in no layer of scripts/structure.py's LAYERS")
    seen = set()
    for a in sorted(edges):
        for b in sorted(edges[a]):
            top_a, top_b = a[0], b[0]
            if top_a in rank and top_b in rank and rank[top_b] > rank[top_a]:
                if (top_a, top_b) in seen:
                    continue
                seen.add((top_a, top_b))
                problems.append(
                    f"upward edge: {'::'.join(a)} (layer {rank[top_a] + 1}) uses "
                    f"{'::'.join(b)} (layer {rank[top_b] + 1})")
    return problems


def documented_tables():
    """Docs whose layer table is not LAYERS' (and whether any doc holds one)."""
    docs = [ROOT / "README.md"] + sorted((ROOT / "docs" / "src").glob("*.md"))
    problems, found = [], False
    for doc in docs:
        if not doc.exists():
            continue
        text = doc.read_text()
        m = re.search(r"<!-- layers:start -->\n(.*?)\n<!-- layers:end -->", text, re.S)
        if not m:
            continue
        found = True
        if m.group(1).strip() != layer_table():
            problems.append(f"{doc.relative_to(ROOT)}: the layer table is not scripts/structure.py's "
                            f"(print it with `scripts/structure.py --table`)")
    if not found:
        problems.append("no doc holds the layer table (<!-- layers:start --> … <!-- layers:end -->)")
    return problems


def crate_sources():
    """Each crate's `src/` folder, the engine's first."""
    out = []
    for crates, _ in CRATES:
        for name in crates:
            out.append((name, crate_dir(name) / "src"))
    return out


def module_edges(src):
    """The edges between a source tree's module files, and the functions too long in it."""
    files = sorted(p for p in src.rglob("*.rs"))
    modules = {module_of(p, src): p for p in files}
    edges, problems = {}, []
    for path in files:
        here = module_of(path, src)
        if path.name == "main.rs":
            problems.extend(long_functions(path))
            continue
        code = strip(path.read_text())
        # A child module named without a prefix (`markdown::extract` in extract/mod.rs).
        children = [f"self::{name}" for name in re.findall(r"(?<![\w:])(\w+)::", code)
                    if here + (name,) in modules]
        for ref in references(code) + children:
            target = resolve(ref, here, modules, path.name == "mod.rs")
            if target is None or target == here or target == ():
                continue
            edges.setdefault(here, set()).add(target)
        problems.extend(long_functions(path))
    return modules, edges, problems


def main():
    global SRC
    if "--table" in sys.argv:
        print(layer_table())
        return
    own_tree = "--src" not in sys.argv
    if not own_tree:
        SRC = Path(sys.argv[sys.argv.index("--src") + 1]).resolve()
    trees = crate_sources() if own_tree else [("citegate-engine", SRC)]
    problems, count = [], 0
    if own_tree:
        problems.extend(crate_edges())
    for name, src in trees:
        modules, edges, long = module_edges(src)
        count += len(modules)
        problems.extend(long)
        if name == "citegate-engine":
            problems.extend(upward_edges(edges))
        if "--graph" in sys.argv:
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    print(f"{name}: {'::'.join(a)} -> {'::'.join(b)}")
        cycle = find_cycle(edges)
        if cycle:
            names = " -> ".join("::".join(m) or "crate" for m in cycle)
            problems.append(f"import circle in {name}: {names}")
    if own_tree:
        problems.extend(documented_tables())
    for p in problems:
        print(f"structure: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"structure: {len(trees)} crates, {count} modules, the engine in {len(ENGINE_LAYERS)} "
          f"layers, no upward edge, no import circle, no function over {MAX_FN_LINES} lines")


def find_cycle(edges):
    """One import circle, as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def long_functions(path):
    """Functions longer than MAX_FN_LINES lines, outside `#[cfg(test)]` modules."""
    lines = path.read_text().split("\n")
    code_end = len(lines)
    for i, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines) and lines[i + 1].lstrip().startswith("mod "):
            code_end = i
            break
    out = []
    i = 0
    while i < code_end:
        m = re.match(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)", lines[i])
        if not m:
            i += 1
            continue
        indent, name = m.group(1), m.group(2)
        # The signature ends at `{` (a body) or `;` (a declaration without one).
        j = i
        while j < code_end and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j < code_end and lines[j].rstrip().endswith(";"):
            i = j + 1
            continue
        while j < code_end and not re.match(rf"^{indent}\}}\s*$", lines[j]):
            j += 1
        if j - i + 1 > MAX_FN_LINES:
            out.append(f"{shown(path)}:{i + 1}: fn {name} is {j - i + 1} lines (at most {MAX_FN_LINES})")
        i += 1
    return out


def shown(path):
    try:
        return path.relative_to(ROOT)
    except ValueError:
        return path


if __name__ == "__main__":
    main()
