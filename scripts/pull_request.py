#!/usr/bin/env python3
"""The pull request of a GitHub event, for the Action's comment and review steps: its number on
the first line, and on a second line `fork: NAME` when its head is in another repository (`fork:`
alone when that repository was deleted); nothing for another event.

Usage: pull_request.py EVENT.json OWNER/REPO
"""
import json
import sys

pr = json.load(open(sys.argv[1])).get("pull_request") or {}
print(pr.get("number") or "")
head = pr.get("head") or {}
if "repo" in head and (head["repo"] or {}).get("full_name") != sys.argv[2]:
    print("fork:", " ".join(str((head["repo"] or {}).get("full_name") or "").split()))
