#!/usr/bin/env python3
"""Share of a `perf record --call-graph dwarf` profile's samples per audit stage.

    perf script -i PERF.data -F tid,time,ip,sym > PERF.txt
    scripts/perf_stages.py PERF.txt

Each sample goes to the stage of the frame nearest its leaf that names one (blob reads inside
the lost-quote search count as blob reads); "other" is what names none (allocation, the stack
cut short by perf's copy size). Stages are matched by symbol substrings, listed below.
"""
import collections
import re
import sys

STAGES = [
    ("lost-quote search (help-only)", ["search_elsewhere"]),
    ("re-check of fixes (verify)", ["verify::fixes"]),
    ("quote search", ["quotes::find_all", "NormalizedSource", "normalize::normalize"]),
    ("literal checks", ["symbols::", "Blob::support", "tree_sitter", "ts_parser"]),
    ("blob reads (inflate)", ["git_odb_read", "inflate", "blob_at", "file_at"]),
    ("line indexes", ["LineIndex::new"]),
    ("Markdown parsing (pulldown-cmark)", ["pulldown_cmark"]),
    ("Markdown extraction", ["markdown::extract", "extract::bare", "prose_lines", "extract::link",
                             "extract::fence", "extract::sources", "front_matter"]),
    ("JSON answers", ["extract_json", "extract_jsonl", "extract::answer"]),
    ("doc reading (files)", ["read_bytes", "load::decode", "std::fs"]),
    ("implied pins (blame)", ["implied_pins", "blame::"]),
    ("stale comparison", ["stale::", "stale_stage"]),
    ("rules", ["Rules::", "rules::"]),
    ("plan", ["plan::plan", "drop_tentative"]),
    ("report (fingerprints, JSON, output)", ["fingerprint", "report::json", "audit::finish",
                                             "output::"]),
    ("discovering docs", ["discover::discover"]),
    # The parallel loop over docs, its stack cut short above the extractor (regexes, mostly).
    ("doc reading and extraction, unattributed", ["IterProducer<citegate::discover::DocFile>"]),
]


def samples(path):
    """(thread, time, frames leaf first) of every sample."""
    current = None
    for line in open(path, encoding="utf-8", errors="replace"):
        head = re.match(r"\s*(\d+)\s+([\d.]+):\s*$", line)
        if head:
            if current:
                yield current
            current = (int(head.group(1)), float(head.group(2)), [])
        elif current and line.strip():
            current[2].append(line.strip().split(" ", 1)[-1])
    if current:
        yield current


def stage(frames):
    for frame in frames:
        for name, keys in STAGES:
            if any(k in frame for k in keys):
                return name
    return "other"


def main():
    counts = collections.Counter(stage(f) for _, _, f in samples(sys.argv[1]))
    total = sum(counts.values())
    for name, n in counts.most_common():
        print(f"{name:40s} {100 * n / total:5.1f}%")
    print(f"{'samples':40s} {total:5d}")


if __name__ == "__main__":
    main()
