"""The MkDocs plugin: ``plugins: [citegate]`` in ``mkdocs.yml`` audits the site's pages on
``mkdocs build`` and ``mkdocs serve`` and logs each finding that fails the build as a MkDocs
warning (so ``--strict`` fails it), at its page and line, in ``citegate audit``'s words::

    WARNING -  docs/guide.md:5:24: stale-changed: `src/app.py:7-8` held at … but …

citegate's settings come from the repository's ``.citegate.yaml``; the plugin's options are only
what the site build needs:

``enabled`` (``true``)
    ``false`` turns the audit off (``enabled: !ENV [CITEGATE, true]``).
``fail_on`` (``error``)
    ``error``, ``warning`` or ``never``: findings below it are logged as information.
``include``, ``exclude`` (none)
    Globs of page paths in ``docs_dir`` (``fnmatch``: ``*`` crosses folders).

In ``mkdocs serve`` a rebuild audits only the pages whose text changed (and every page when the
commit or ``.citegate.yaml`` did). Needs ``citegate-python[mkdocs]``.
"""

import logging
import os

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from ._citegate import Error
from ._site import FAIL_ON, SiteAudit, fails, wanted

log = logging.getLogger("mkdocs.plugins.citegate")


class CitegateConfig(base.Config):
    enabled = c.Type(bool, default=True)
    fail_on = c.Choice(FAIL_ON, default="error")
    include = c.ListOfItems(c.Type(str), default=[])
    exclude = c.ListOfItems(c.Type(str), default=[])


class CitegatePlugin(BasePlugin[CitegateConfig]):
    """``plugins: [citegate]``."""

    def __init__(self) -> None:
        self.site = SiteAudit()
        self._found = {}

    def on_startup(self, *, command, dirty) -> None:
        # Having this hook keeps one plugin across `mkdocs serve`'s rebuilds, and its audits.
        pass

    def on_files(self, files, *, config):
        self._found = {}
        if not self.config.enabled:
            return files
        docs = config.docs_dir
        pages = sorted(
            f.src_uri
            for f in files.documentation_pages()
            if os.path.isfile(os.path.join(docs, f.src_uri))
            and wanted(f.src_uri, self.config.include, self.config.exclude)
        )
        try:
            self._found, others = self.site.check(docs, pages)
        except Error as e:
            raise PluginError(f"citegate: {e}") from e
        for finding in others:
            self._log(finding)
        return files

    def on_page_markdown(self, markdown, *, page, config, files):
        for finding in self._found.get(page.file.src_uri, ()):
            self._log(finding)
        return markdown

    def _log(self, finding) -> None:
        if fails(finding["severity"], self.config.fail_on):
            log.warning(finding["text"])
        else:
            log.info(finding["text"])
