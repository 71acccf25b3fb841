#!/usr/bin/env python3
"""Structure checks for src/, run by .ci/run:

1. No import circle between the library's files. Every `crate::…`, `super::…` and `self::…` path
   in a file (comments and `#[cfg(test)]` modules left out) is an edge to the module file it names
   (the longest module prefix that exists). A child using its parent's items counts too: shared
   items live in a sibling file, so every file can be read with what it depends on.
2. No function over 100 lines outside tests.

    scripts/structure.py            # check; exit 1 and say what is wrong
    scripts/structure.py --graph    # also print the edges
"""
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
MAX_FN_LINES = 100


def module_of(path):
    rel = path.relative_to(SRC).with_suffix("")
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


def main():
    files = sorted(p for p in SRC.rglob("*.rs"))
    modules = {module_of(p): p for p in files}
    edges = {}
    problems = []
    for path in files:
        here = module_of(path)
        if path.name == "main.rs":
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
    cycle = find_cycle(edges)
    if "--graph" in sys.argv:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f"{'::'.join(a)} -> {'::'.join(b)}")
    if cycle:
        names = " -> ".join("::".join(m) or "crate" for m in cycle)
        problems.append(f"import circle: {names}")
    for p in problems:
        print(f"structure: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"structure: {len(modules)} modules, no import circle, no function over {MAX_FN_LINES} lines")


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
            out.append(f"{path.relative_to(SRC.parent)}:{i + 1}: fn {name} is {j - i + 1} lines (at most {MAX_FN_LINES})")
        i += 1
    return out


if __name__ == "__main__":
    main()
