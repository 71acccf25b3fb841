"""Type stubs for the compiled module (see ``citegate/__init__.py``)."""

import os
from typing import Any, Iterable, Literal, Mapping, Optional, Sequence, TypedDict, Union

__version__: str

JSON = Any
Answer = Union[str, Mapping[str, JSON]]
"""An answer object (either seed schema: ``citations`` or ``claims``), or its JSON text."""
Retrieved = Union[str, Sequence[Mapping[str, JSON]], Mapping[str, JSON]]
"""Retrieved chunks: ``[{"path", "start_line"/"startLine", "end_line"/"endLine", "text"?}]``,
``{"chunks": [...]}``, or that JSON's text."""

class Error(Exception):
    """A call that could not run (repository, revision, payload, path); the CLI's message."""

class InputError(Error, ValueError):
    """Input refused before any work: an answer over 16 MiB or nested deeper than 128, a value
    that is no JSON number, a doc path outside the repository or reached through a link."""

class Violation:
    """Why an answer fails the gate."""

    @property
    def rule(self) -> str:
        """The rule that failed it: ``invented-path``, ``unsupported-quote``, ``not-retrieved``…"""
    @property
    def message(self) -> str: ...
    @property
    def citation(self) -> Optional[str]:
        """``path:start-end`` when the violation is about one citation."""

class Verdict:
    """The gate's verdict on one answer (truthy when it passed)."""

    @property
    def passed(self) -> bool: ...
    @property
    def fidelity(self) -> Literal["retrieval", "code-only"]:
        """Whether cited ⊆ retrieved was checked (``code-only``: ``no_retrieval=True``)."""
    @property
    def violations(self) -> list[Violation]: ...
    @property
    def refusal(self) -> Optional[dict[str, JSON]]:
        """What to return instead of the answer (``None`` when it passed)."""
    def to_dict(self) -> dict[str, JSON]:
        """``{"passed", "fidelity", "violations", "refusal"}``."""
    def __bool__(self) -> bool: ...

class FindingLine(TypedDict):
    """One finding of :meth:`Repo.audit_lines`."""

    doc: str
    """The doc, a repository path (the JSON report's ``doc``)."""
    line: int
    column: int
    rule: str
    severity: Literal["error", "warning", "note"]
    text: str
    """``doc:line:column: rule: message``, control characters replaced."""

class Repo:
    """A repository opened at a target with its ``.citegate.yaml``; share one across threads."""

    def __init__(
        self, path: Union[str, os.PathLike[str]] = ".", target: Optional[str] = None
    ) -> None:
        """Open the repository holding ``path`` at ``target`` (a revision; default: the
        configuration's target, else ``HEAD``). Raises :class:`Error`."""
    @property
    def revision(self) -> str:
        """The commit answers are checked at."""
    def gate(
        self,
        answer: Answer,
        retrieved: Optional[Retrieved] = None,
        no_retrieval: bool = False,
    ) -> Verdict:
        """``citegate gate``: checked against ``retrieved`` when given, else the answer's own
        ``retrieved`` payload, which is required unless ``no_retrieval``."""
    def gate_many(
        self,
        answers: Iterable[Answer],
        retrieved: Optional[Retrieved] = None,
        no_retrieval: bool = False,
    ) -> list[Verdict]:
        """``gate`` on many answers checked together (as ``gate --jsonl`` checks a batch)."""
    def audit(self, paths: Sequence[Union[str, os.PathLike[str]]] = ()) -> dict[str, JSON]:
        """``citegate audit --format json`` on ``paths`` (relative to the folder opened)."""
    def audit_lines(
        self, paths: Sequence[Union[str, os.PathLike[str]]] = ()
    ) -> list[FindingLine]:
        """The findings of ``audit(paths)`` that count (not baselined, suppressed or waived), in
        the report's order, each as a site build logs it."""
    def cite(self, quote: str, path: Optional[str] = None) -> dict[str, JSON]:
        """Where ``quote`` occurs at the target: ``{"revision", "count", "places", "stopped"?}``."""
