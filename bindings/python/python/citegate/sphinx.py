"""The Sphinx extension: ``extensions = ["citegate.sphinx"]`` in ``conf.py`` audits the pages
Sphinx reads (reStructuredText and MyST: their ``literalinclude`` directives, and a MyST page's
citations of every kind) and logs each finding that fails the build as a Sphinx warning at the
page and line (so ``-W`` fails it), in ``citegate audit``'s words, of type ``citegate.RULE``
(``suppress_warnings = ["citegate.stale-moved"]`` silences one rule)::

    docs/guide.rst:6: WARNING: docs/guide.rst:6:1: stale-changed: … [citegate.stale-changed]

citegate's settings come from the repository's ``.citegate.yaml``; the configuration values are
only what the build needs: ``citegate_enabled`` (``True``), ``citegate_fail_on`` (``"error"``,
``"warning"`` or ``"never"``: findings below it are logged as information),
``citegate_include`` and ``citegate_exclude`` (globs of page paths in the source folder).

The pages are audited together, once per build, before Sphinx reads them (``-j N`` reads them in
parallel afterwards): an incremental build audits only the pages it reads again. Needs
``citegate-python[sphinx]``.
"""

import os

from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging

from ._citegate import Error, __version__
from ._site import FAIL_ON, SiteAudit, fails, wanted

logger = logging.getLogger(__name__)


def setup(app):
    app.add_config_value("citegate_enabled", True, "env", bool)
    app.add_config_value("citegate_fail_on", "error", "env", str)
    app.add_config_value("citegate_include", [], "env", list)
    app.add_config_value("citegate_exclude", [], "env", list)
    app.connect("env-before-read-docs", audit)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


def audit(app, env, docnames):
    """Audit the pages about to be read and log their findings."""
    config = app.config
    if not config.citegate_enabled:
        return
    if config.citegate_fail_on not in FAIL_ON:
        raise ConfigError(
            f"citegate_fail_on: {config.citegate_fail_on!r} is none of {', '.join(FAIL_ON)}"
        )
    srcdir = str(app.srcdir)
    pages = {}
    for name in docnames:
        page = os.path.relpath(str(env.doc2path(name)), srcdir).replace(os.sep, "/")
        if wanted(page, config.citegate_include, config.citegate_exclude):
            pages[page] = name
    try:
        found, others = SiteAudit().check(srcdir, sorted(pages))
    except Error as e:
        raise ExtensionError(f"citegate: {e}") from e
    for page in sorted(pages):
        for finding in found[page]:
            _log(finding, config.citegate_fail_on, (pages[page], finding["line"]))
    for finding in others:
        _log(finding, config.citegate_fail_on, None)


def _log(finding, fail_on, location):
    if fails(finding["severity"], fail_on):
        logger.warning(
            finding["text"], location=location, type="citegate", subtype=finding["rule"]
        )
    else:
        logger.info(finding["text"], location=location)
