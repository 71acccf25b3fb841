"""What the MkDocs plugin (``citegate.mkdocs``) and the Sphinx extension (``citegate.sphinx``)
share: the pages of a site's source folder audited in one call of :meth:`citegate.Repo.audit_lines`,
each page's findings kept by its content, so a rebuild (``mkdocs serve``) audits only the pages
that changed, and which findings fail the build.

The verdicts and their text are the engine's (``citegate audit``'s); nothing here words one.
"""

import fnmatch
import hashlib
import os
from typing import Dict, List, Optional, Sequence, Tuple

from ._citegate import Repo

FAIL_ON = ("error", "warning", "never")
"""The levels a site build may fail at, as ``citegate audit --fail-on`` takes them."""

_RANK = {"note": 0, "warning": 1, "error": 2}


def fails(severity: str, fail_on: str) -> bool:
    """Whether a finding of ``severity`` fails the build at ``fail_on`` (one below it is logged
    as information)."""
    return fail_on in _RANK and _RANK[severity] >= _RANK[fail_on]


def wanted(page: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether ``page`` (a path in the source folder, ``/``-separated) is audited: it matches one
    of ``include`` (none: every page) and none of ``exclude`` (``fnmatch`` globs: ``*`` crosses
    folders)."""
    if include and not any(fnmatch.fnmatchcase(page, glob) for glob in include):
        return False
    return not any(fnmatch.fnmatchcase(page, glob) for glob in exclude)


def _work_tree(folder: str) -> Optional[str]:
    """The work tree holding ``folder`` (the nearest folder above it with a ``.git``)."""
    at = os.path.realpath(folder)
    while True:
        if os.path.exists(os.path.join(at, ".git")):
            return at
        up = os.path.dirname(at)
        if up == at:
            return None
        at = up


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


Found = Dict[str, List[dict]]


class SiteAudit:
    """One site's audits across builds: findings by page, kept while the page's bytes, the target
    revision and ``.citegate.yaml`` stay the same."""

    def __init__(self) -> None:
        self._kept: Dict[Tuple[str, str, str], List[dict]] = {}
        self.audited: List[str] = []
        """The pages the last :meth:`check` audited (the others were kept)."""

    def check(self, folder: str, pages: Sequence[str]) -> Tuple[Found, List[dict]]:
        """The findings of ``pages`` (paths in ``folder``, ``/``-separated), by page, and those
        of docs that are none of them. Raises :class:`citegate.Error` when the repository
        holding ``folder`` cannot be audited."""
        repo = Repo(folder)
        tree = _work_tree(folder) or folder
        rel = os.path.relpath(os.path.realpath(folder), tree).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        settings = _digest(os.path.join(tree, ".citegate.yaml"))
        key = {
            page: (page, _digest(os.path.join(folder, page)), repo.revision + settings)
            for page in pages
        }
        self.audited = [page for page in pages if key[page] not in self._kept]
        found: Found = {page: [] for page in self.audited}
        others: List[dict] = []
        if self.audited:
            for finding in repo.audit_lines(self.audited):
                doc = finding["doc"]
                page = doc[len(prefix):] if doc.startswith(prefix) else doc
                found.get(page, others).append(finding)
        # Only the pages of this build are kept: a long `serve` keeps no page it no longer has.
        current = set(key.values())
        kept = {k: v for k, v in self._kept.items() if k in current}
        self._kept = {**kept, **{key[page]: found[page] for page in self.audited}}
        return {page: self._kept[key[page]] for page in pages}, others
