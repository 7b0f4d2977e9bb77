"""The review page's language, on the staff's catalogue (:mod:`forumbot.i18n`, issue 25).

Templates and routes write their text in English through ``_("...")``; the French comes from
the catalogue ``forumbot/i18n/locales/fr/LC_MESSAGES/forumbot.po``, the one the CLI uses.
The page's language is ``?lang=fr|en`` (remembered in the ``lang`` cookie), else that cookie,
else the club's (``board.language``: :func:`forumbot.i18n.staff_language`).
"""

from __future__ import annotations

from forumbot.i18n import LANGUAGES, translate, translator

DEFAULT_LANGUAGE = "fr"
"""The page's language when the club says none (:func:`forumbot.web.app.create_app`'s
``language``): the bundled sandbox board and fixtures are French."""


def pick_language(
    query_value: str | None, cookie_value: str | None, default: str = DEFAULT_LANGUAGE
) -> str:
    """The page language: the query's, else the cookie's, else ``default``."""
    for value in (query_value, cookie_value):
        if value in LANGUAGES:
            return value
    return default if default in LANGUAGES else DEFAULT_LANGUAGE


__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "pick_language", "translate", "translator"]
