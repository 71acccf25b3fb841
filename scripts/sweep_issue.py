#!/usr/bin/env python3
"""The weekly sweep's one dashboard issue per repository, updated in place (as Renovate keeps its
dependency dashboard): found by a marker at the start of its body *and* by its author being
this workflow's own identity (anyone can write the marker), reopened when problems come back,
closed when the sweep is clean, never duplicated. Its body stays within GitHub's limit and
links to the full report.

    scripts/sweep_issue.py REPORT.md FINDINGS [REPORT_URL]

Needs `gh` with GH_TOKEN, and GITHUB_REPOSITORY (where the issue is). FINDINGS is the number of
findings (0: clean), or `failed`: then REPORT.md is why the sweep could not be made (a shard's
error, as plain text), and the issue says the repository failed, in a code block, and stays
open. SWEEP_FOR names the audited repository when it is another one (an
organisation-wide sweep keeps one issue per audited repository in a central one).
"""
import json
import os
import subprocess
import sys
import tempfile

MARKER = "<!-- citegate-sweep -->"
TITLE = "Citation sweep"


def marker_and_title():
    """The marker and title of the issue for the audited repository."""
    audited = os.environ.get("SWEEP_FOR", "").strip()
    if not audited or audited == os.environ["GITHUB_REPOSITORY"]:
        return MARKER, TITLE
    safe = "".join(c for c in audited if c.isalnum() or c in "-_./")
    return f"<!-- citegate-sweep {safe} -->", f"{TITLE}: {safe}"
# GitHub refuses an issue body over 65,536 characters.
MAX_BODY = 65_536


def gh(*args, body=None):
    cmd = ["gh", "api", *args]
    path = None
    if body is not None:
        with tempfile.NamedTemporaryFile("w", delete=False, suffix=".md") as f:
            f.write(body)
            path = f.name
        cmd += ["-F", f"body=@{path}"]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    finally:
        if path:
            os.unlink(path)
    return out


def pages(text):
    """The JSON arrays `gh api --paginate` prints one after another."""
    dec, at, out = json.JSONDecoder(), 0, []
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        page, at = dec.raw_decode(text, at)
        out.extend(page)
    return out


def me():
    try:
        login = gh("graphql", "-f", "query=query { viewer { login } }", "--jq", ".data.viewer.login").strip()
    except subprocess.CalledProcessError:
        login = ""
    ok = login and all(c.isalnum() or c in "_.[]-" for c in login)
    return login if ok else "github-actions[bot]"


def first_line(body):
    """The body's first line, whatever its line endings: an issue edited in the web UI comes
    back with CRLF, and must still be found (else a second issue is opened)."""
    return body.replace("\r\n", "\n").replace("\r", "\n").split("\n", 1)[0].rstrip()


def ours(repo, login, marker):
    """Our dashboard issue (the newest, if a run ever made two), open or closed."""
    listed = gh(f"repos/{repo}/issues?state=all&creator={login}&per_page=100", "--paginate")
    mine = [i for i in pages(listed)
            if "pull_request" not in i
            and (i.get("user") or {}).get("login") == login
            and first_line(i.get("body") or "") == marker]
    return max(mine, key=lambda i: i["number"]) if mine else None


def body_of(marker, report, url, clean):
    link = f"\n\nFull report: {url}\n" if url.startswith("https://") else "\n"
    text = "No citation needs attention: closed by the sweep.\n" if clean else report
    body = f"{marker}\n{text}"
    if len(body) + len(link) > MAX_BODY:
        cut = MAX_BODY - len(link) - 80
        body = body[:cut] + "\n\n… (cut to fit an issue: see the full report)"
    return body + link


# The most of a failure's text shown in the issue (a shard's error is a few lines).
MAX_FAILURE = 16_384


def failure_of(text):
    """A failed sweep's issue text: the error as a stranger may have written it (a configuration
    error quotes the file), inert in a fence longer than any run of backticks it holds, with no
    mention."""
    text = text[:MAX_FAILURE].replace("@", "@\u200b")
    longest = run = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return ("## Citation sweep failed\n\n"
            "This repository could not be swept, so it has no report this week "
            "(the other repositories were swept):\n\n"
            f"{fence}text\n{text.rstrip()}\n{fence}\n")


def main():
    report_path, findings = sys.argv[1], sys.argv[2]
    failed = findings == "failed"
    findings = 1 if failed else int(findings)
    url = sys.argv[3] if len(sys.argv) > 3 else ""
    repo = os.environ["GITHUB_REPOSITORY"]
    with open(report_path, encoding="utf-8", errors="replace") as f:
        report = f.read()
    if failed:
        report = failure_of(report)
    clean = findings == 0
    marker, title = marker_and_title()
    issue = ours(repo, me(), marker)
    if issue is None:
        if clean:
            print("citegate: clean, and no sweep issue to close")
            return
        gh("--method", "POST", f"repos/{repo}/issues", "-f", f"title={title}",
           "-f", "labels[]=citegate-sweep", body=body_of(marker, report, url, False))
        print("citegate: opened the sweep issue" + (" (the sweep failed)" if failed else ""))
        return
    number = issue["number"]
    if clean:
        if issue["state"] == "open":
            gh("--method", "PATCH", f"repos/{repo}/issues/{number}", "-f", "state=closed",
               "-f", "state_reason=completed", body=body_of(marker, report, url, True))
            print(f"citegate: clean: closed #{number}")
        return
    gh("--method", "PATCH", f"repos/{repo}/issues/{number}", "-f", "state=open",
       body=body_of(marker, report, url, False))
    print(f"citegate: updated #{number}" + (" (the sweep failed)" if failed else ""))


if __name__ == "__main__":
    main()
