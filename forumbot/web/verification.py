"""The players' page on checking the referee's dice, served by the review page (issue 25).

The declarations call ``forumbot verify-dice`` « l'outil de vérification du club » and link it
to ``club.verify_docs_url``. The text players need is ``docs/verification.md`` (French); the
review page serves it, rendered to HTML by the Markdown library, at :data:`PATH`, a public
page (no login: players are not staff). With the review page's public address set
(``notify.review_url``), that page is the link's default
(:attr:`forumbot.config.Config.verification_url`).

The Markdown file is read from the package (``forumbot/web/docs/verification.md``, a link to
``docs/verification.md``: one text for the repository and the page).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import markdown

from forumbot.config import VERIFICATION_PATH
from forumbot.publish.typography import typeset

_FENCE = re.compile(r"(^```.*?^```$|`[^`\n]*`)", re.MULTILINE | re.DOTALL)

PATH = VERIFICATION_PATH
"""Where the review page serves the verification page (no login)."""

SOURCE = Path(__file__).parent / "docs" / "verification.md"
"""The page's Markdown text (French)."""


@cache
def verification_html() -> str:
    """``docs/verification.md`` as HTML (Markdown with fenced code blocks and tables), read
    and rendered once a process, its prose with the posts' French typography
    (:func:`forumbot.publish.typography.typeset`; code left alone). The file is the
    project's own text, not a player's.

    Raises:
        OSError: the file is missing from the installation.
    """
    text = SOURCE.read_text(encoding="utf-8")
    # French typography on the prose (no-break spaces before « : ; ? ! », inside « »), never
    # in the code blocks players copy
    parts = _FENCE.split(text)
    text = "".join(part if i % 2 else typeset(part) for i, part in enumerate(parts))
    return str(markdown.markdown(text, extensions=["fenced_code", "tables"], output_format="html"))


__all__ = ["PATH", "SOURCE", "verification_html"]
