"""citegate: refuse an AI answer whose ``path:line`` citations the code does not hold, before it
leaves your API.

The gate and the audit of the ``citegate`` command line, in-process::

    import citegate

    repo = citegate.Repo("/srv/checkout")            # opened once, shared by threads
    verdict = repo.gate(answer, retrieved=chunks)     # answer: a dict or its JSON str
    if not verdict.passed:
        return verdict.refusal                        # what to return instead

Verdicts are ``citegate gate``'s, byte for byte (the same code runs); the GIL is released while an
answer is checked. Calls that cannot run raise :class:`citegate.Error` with the message
``citegate`` prints; input refused before any work (an answer over 16 MiB or nested deeper than
128, a doc path outside the repository) raises :class:`citegate.InputError`, which is both a
``citegate.Error`` and a ``ValueError``.
"""

from ._citegate import Error, InputError, Repo, Verdict, Violation, __version__

__all__ = ["Error", "InputError", "Repo", "Verdict", "Violation", "__version__"]
