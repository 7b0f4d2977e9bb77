"""The review page's language, on the staff's catalogue (:mod:`forumbot.i18n`, issue 25).

Templates and routes write their text in English through ``_("...")``; the French comes from
the catalogue ``forumbot/i18n/locales/fr/LC_MESSAGES/forumbot.po``, the one the CLI uses.
The page's language is ``?lang=fr|en`` (remembered in the ``lang`` cookie), else that cookie,
else the club's (``board.language``: :func:`forumbot.i18n.staff_language`).
"""

from __future__ import annotations

from collections.abc import Callable

from forumbot.i18n import LANGUAGES, elide, translate, translator
from forumbot.publish.typography import typeset

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


def french_typeset(text: str) -> str:
    """The page's own French text with the posts' typography
    (:func:`forumbot.publish.typography.typeset`: U+202F before « ; ! ? » and inside « »,
    U+00A0 before « : » and after « n° »); a ``%s`` stands for a value, which is left alone."""
    parts = text.split("%s")
    return "%s".join(
        typeset(part, before_value=i < len(parts) - 1) for i, part in enumerate(parts)
    )


def page_translator(language: str) -> Callable[..., str]:
    """The page's ``_(message, *args)``: :func:`forumbot.i18n.translate`, and in French the
    catalogue's text typeset like the posts (:func:`french_typeset`) before the values (a
    duellist's name, a post's text, a setting) are put in, untouched."""
    if language != "fr":
        return translator(language)

    def _(message: str, *args: object) -> str:
        text = french_typeset(elide(translate(language, message), args))
        return text % args if args else text

    return _


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "french_typeset",
    "page_translator",
    "pick_language",
    "translate",
    "translator",
]
