"""The staff's words in the club's language: one gettext catalogue for the CLI and the review
page (issue 25).

Messages are written in English in the code and the templates (``_("No declaration %s", 3)``)
and translated by the Babel catalogue ``locales/<language>/LC_MESSAGES/forumbot.po`` of this
package; a message the catalogue does not hold prints in English (never an error). English
needs no catalogue.

The catalogue is read from its ``.po`` file the first time a language is asked for
(``babel.messages.pofile.read_po``, then ``babel.messages.mofile.write_mo`` into memory and
``babel.support.Translations``), and kept for the process: the ``.po`` is the one source, so
no compiled ``.mo`` can be stale or missing from an editable install, and no build step is
needed. Reading it takes a few milliseconds once. Fuzzy entries are left out, as ``msgfmt``
does. ``pybabel extract -F babel.cfg -o forumbot/i18n/forumbot.pot .`` regenerates the template
of messages and ``pybabel update -D forumbot -i forumbot/i18n/forumbot.pot -d
forumbot/i18n/locales`` merges it into the catalogue (see docs/operations.md).

Which language: :func:`staff_language` (``board.language`` of the configuration: ``"fr"`` or
``"en"``; empty, the default, when the board's language is not known: English).
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # babel is imported at the first catalogue read (English needs none)
    from babel.messages.catalog import Catalog

DOMAIN = "forumbot"
LOCALES_DIR = Path(__file__).parent / "locales"
LANGUAGES = ("en", "fr")
"""The staff's languages: English (the messages' own) and French (the catalogue)."""
SOURCE_LANGUAGE = "en"

ELIDING_INITIALS = tuple("aeiouyhàâäéèêëîïôöûüœAEIOUYHÀÂÄÉÈÊËÎÏÔÖÛÜŒ")
"""Initials before which French elides « de » and « que » (vowels and mute h)."""


def N_(message: str) -> str:  # noqa: N802 (gettext's name for it)
    """Mark ``message`` for the catalogue without translating it (``gettext_noop``): a table
    of names the code translates later with ``_``."""
    return message


def C_(context: str, message: str) -> str:  # noqa: N802 (gettext's style)
    """Mark ``message`` for the catalogue under ``msgctxt`` ``context``, untranslated
    (``pybabel extract -k C_:1c,2``)."""
    return message


def po_path(language: str) -> Path:
    """The catalogue file of ``language`` (it may not exist: English has none)."""
    return LOCALES_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def _catalog(language: str) -> Catalog | None:
    path = po_path(language)
    if language == SOURCE_LANGUAGE or not path.is_file():
        return None
    from babel.messages.pofile import read_po

    with path.open("rb") as po:
        return read_po(po, locale=language, domain=DOMAIN, abort_invalid=True)


@cache
def catalogue(language: str) -> gettext.NullTranslations:
    """The translations of ``language``, read once from its ``.po`` (module doc).

    Returns:
        ``gettext.NullTranslations`` (messages as written) for English or a language with no
        catalogue, else a ``babel.support.Translations``.

    Raises:
        babel.messages.pofile.PoFileError: the ``.po`` file is malformed.
    """
    catalog = _catalog(language)
    if catalog is None:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


ERROR_CONTEXT = "error"
"""The ``msgctxt`` of a library's English error message (:func:`translate_detail`)."""


@cache
def _error_patterns(language: str) -> tuple[tuple[re.Pattern[str], str, bool], ...]:
    catalog = _catalog(language)
    if catalog is None:
        return ()
    found = [
        (str(m.id), str(m.string))
        for m in catalog
        if m.context == ERROR_CONTEXT and m.string and not m.fuzzy and "%s" in str(m.id)
    ]
    found.sort(key=lambda pair: -len(pair[0]))  # the most specific message first
    return tuple(
        (
            re.compile("^" + "(.+?)".join(map(re.escape, msgid.split("%s"))) + "$", re.S),
            text,
            "; " in msgid,
        )
        for msgid, text in found
    )


def _value(language: str, value: str) -> str:
    """A value found in a library's message: itself a known message (an OS error, a status
    name such as ``published``) in ``language``, else as it is (a path, a name, a number)."""
    known = translate_detail(language, value)
    if known is not None:
        return known
    return catalogue(language).gettext(value)


def _parts(values: tuple[str, ...]) -> bool:
    """A value that holds « ; » is a message of several parts, not one value."""
    return any("; " in value for value in values)


def translate_detail(language: str, text: str) -> str | None:
    """An error message a library wrote in English (``"cannot read configuration x.toml: No
    such file or directory"``), in ``language``; None when the catalogue does not know it.

    The catalogue holds such messages under ``msgctxt "error"``, with ``%s`` where the
    library puts a value; the value found there is translated too when it is itself a known
    message (an OS error), else kept as it is (a path, a name, a number). A message of
    several parts joined by « ; » is translated part by part (all or nothing).
    """
    if language == SOURCE_LANGUAGE or not text:
        return text
    table = catalogue(language)
    exact = table.pgettext(ERROR_CONTEXT, text)
    if exact != text:
        return exact
    for pattern, translated, several in _error_patterns(language):
        match = pattern.match(text)
        if match is not None and (several or not _parts(match.groups())):
            values = tuple(_value(language, v) for v in match.groups())
            return (elide(translated, values) if language == "fr" else translated) % values
    if "; " in text:
        parts = [translate_detail(language, part) for part in text.split("; ")]
        if all(part is not None for part in parts):
            return " ; ".join(str(part) for part in parts)
    return None


def elide(text: str, args: tuple[object, ...]) -> str:
    """French elision before a name: « de %s » becomes « d'%s » (and « que %s » « qu'%s »)
    when the name that fills that ``%s`` starts with a vowel or h (« Points d'Aurora
    Vexley »)."""
    parts = text.split("%s")
    for i, arg in enumerate(args[: len(parts) - 1]):
        if str(arg).startswith(ELIDING_INITIALS):
            before = parts[i]
            for word, elided in ((" de ", " d'"), (" que ", " qu'")):
                if before.endswith(word) or before == word.lstrip():
                    parts[i] = before[: len(before) - len(word.lstrip())] + elided.lstrip()
                    break
    return "%s".join(parts)


class Plural(str):
    """A message that has a plural: the string is the English singular (« %s duel »),
    :attr:`plural` the English plural (« %s duels »), :attr:`n` the count that chooses
    between them; :func:`translate` picks the catalogue's form for ``n`` (``ngettext``:
    French « 0 duel », « 1 duel », « 2 duels »), so a message table or a doctor check can
    carry it. Made by :func:`ngettext` (the name ``pybabel extract`` reads as a plural)."""

    plural: str
    n: int

    def __new__(cls, singular: str, plural: str, n: int) -> Plural:
        made = super().__new__(cls, singular)
        made.plural, made.n = plural, n
        return made

    def english(self) -> str:
        """The English form for :attr:`n` (singular for 1 only)."""
        return str(self) if self.n == 1 else self.plural


def ngettext(singular: str, plural: str, n: int) -> Plural:
    """Mark a message with a plural for the catalogue (``msgid_plural``) without translating
    it: a :class:`Plural` for the count ``n``, translated later by :func:`translate`."""
    return Plural(singular, plural, n)


def translate(language: str, message: str, *args: object, context: str | None = None) -> str:
    """``message`` (English, ``%s`` placeholders) in ``language``, filled with ``args``.

    ``context``: the ``msgctxt`` of a message that means two things in French (``pgettext``).
    A :class:`Plural` message takes the catalogue's form for its count (``ngettext``).
    French elides « de »/« que » before a name that starts with a vowel (:func:`elide`).
    A message with no translation prints as written, in English.
    """
    table = catalogue(language)
    if isinstance(message, Plural):
        out = table.ngettext(str(message), message.plural, message.n)
    else:
        out = table.pgettext(context, message) if context else table.gettext(message)
    if args:
        if language == "fr":
            out = elide(out, args)
        return out % args
    return out


_DECIMAL = re.compile(r"[-+]?\d+\.\d+")


class Word(str):
    """A value put in a sentence that the staff's language names in its own words: the
    string is the value as English says it (a ruleset id, ``classic``), :attr:`message` its
    catalogue message, translated by :func:`figures` (« classique »; newcomer5 C7: doctor
    said « règles classic »)."""

    message: str

    def __new__(cls, value: str, message: str | None = None) -> Word:
        word = super().__new__(cls, value)
        word.message = value if message is None else message
        return word


RULESET_NAMES: dict[str, str] = {
    "classic": N_("classic"), "fatigue": N_("fatigue one against one"),
    "duo": N_("two against two"),
}  # fmt: skip
"""The shipped rulesets by their names for staff (the review page's, doctor's): catalogue
messages (« classique », « fatigue en un contre un », « deux contre deux »)."""


def ruleset_word(name: str) -> Word:
    """Ruleset ``name`` as a :class:`Word`: ``classic`` in English, « classique » in French
    (:data:`RULESET_NAMES`; a ruleset file's path as it is)."""
    return Word(name, RULESET_NAMES.get(name, name))


def thousands(n: int, language: str) -> str:
    """A count with French thousands in French (« 10\u202f000 »: a narrow no-break space, as
    « 53\u202f% »; newcomer 7 #12), as it is in English (``10000``). The CLI's captions and
    the review page's balance figures both write their counts of duels with it."""
    return f"{n:,}".replace(",", "\u202f") if language == "fr" else str(n)


def figures(language: str, values: tuple[object, ...]) -> tuple[object, ...]:
    """``values`` with each decimal figure written as a string (``"10.6"``) in ``language``'s
    way: a decimal comma in French (``"10,6"``); a :class:`Word` in ``language``'s words;
    anything else (a path, a name, an address, a number) as it is."""
    if language == SOURCE_LANGUAGE:
        return values
    comma = language == "fr"
    return tuple(
        translate(language, v.message) if isinstance(v, Word)
        else v.replace(".", ",") if comma and isinstance(v, str) and _DECIMAL.fullmatch(v)
        else v
        for v in values
    )  # fmt: skip


def translator(language: str) -> Callable[..., str]:
    """``_(message, *args)``: :func:`translate` in ``language`` (the templates' and the
    commands' ``_``)."""

    def _(message: str, *args: object) -> str:
        return translate(language, message, *args)

    return _


def staff_language(value: str | None) -> str:
    """The staff's language from ``board.language``: ``"fr"`` for French, else English
    (``""``, unknown, or another language with no catalogue)."""
    value = (value or "").strip().lower()
    return "fr" if value.split("-")[0].split("_")[0] == "fr" else SOURCE_LANGUAGE


__all__ = [
    "Plural",
    "ngettext",
    "RULESET_NAMES",
    "Word",
    "ruleset_word",
    "DOMAIN",
    "ERROR_CONTEXT",
    "C_",
    "ELIDING_INITIALS",
    "N_",
    "LANGUAGES",
    "catalogue",
    "elide",
    "figures",
    "thousands",
    "translate_detail",
    "staff_language",
    "translate",
    "translator",
]
