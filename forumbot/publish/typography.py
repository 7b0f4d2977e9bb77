"""French typography of the bot's own words, applied once by the renderer (issue 25).

Rules (Imprimerie nationale's usual ones, as French boards show them):

- a narrow no-break space (U+202F) before « ; », « ! », « ? », « % » and inside « … »;
- a no-break space (U+00A0) before « : » and after « n° » (« n° 3 »);
- the minus sign « − » (U+2212) for a negative number (« −5 PV »), never the hyphen.

:func:`typeset` applies them to a piece of the bot's own text. The renderer
(:mod:`forumbot.publish.render`) calls it through :class:`TypographyExtension` on the
templates' literal text when a template is compiled, so every template, owls included, goes
through the same filter, and an interpolated value (a duellist's name, a spell a player wrote,
the syntax players must type, printed with ``|verbatim``) is never touched. Text between
``[code]`` and ``[/code]`` is left alone (it shows what players type).

:func:`plain` undoes it for readers of the bot's own posts (``verify-dice``, the figures of a
hand-written text): no-break spaces become spaces and « − » a hyphen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

NNBSP = "\u202f"
"""Narrow no-break space: before ; ! ? and inside guillemets."""
NBSP = "\u00a0"
"""No-break space: before a colon, after « n° »."""
MINUS = "\u2212"
"""The minus sign of a negative number."""

_BEFORE_TIGHT = re.compile(r"[ \u00a0]+(?=[;!?])")
_BEFORE_PERCENT = re.compile(r"[ \u00a0]+(?=%(?![0-9A-Fa-f]{2}))")
_BEFORE_COLON = re.compile(r"[ \u202f]+(?=:(?!//))")
_OPEN_GUILLEMET = re.compile(r"«[ \u00a0\u202f]*")
_CLOSE_GUILLEMET = re.compile(r"[ \u00a0\u202f]*»")
_NUMERO_END = re.compile(r"\bn°[ \u202f]*(?=\d|$)")
_NUMERO = re.compile(r"\bn°[ \u202f]*(?=\d)")
_MINUS_END = re.compile(r"(?<![\w\]).,/+-])-(?=\d|$)")
_MINUS = re.compile(r"(?<![\w\]).,/+-])-(?=\d)")
_CODE = re.compile(r"(\[code\].*?(?:\[/code\]|$))", re.DOTALL | re.IGNORECASE)


def _typeset_part(text: str, *, before_value: bool) -> str:
    text = _BEFORE_TIGHT.sub(NNBSP, text)
    text = _BEFORE_PERCENT.sub(NNBSP, text)  # « 10 % » (issue 25, reader2 T2)
    text = _BEFORE_COLON.sub(NBSP, text)
    text = _OPEN_GUILLEMET.sub("«" + NNBSP, text)
    text = _CLOSE_GUILLEMET.sub(NNBSP + "»", text)
    text = (_NUMERO_END if before_value else _NUMERO).sub("n°" + NBSP, text)
    return (_MINUS_END if before_value else _MINUS).sub(MINUS, text)


def typeset(text: str, *, before_value: bool = False) -> str:
    """``text`` (the bot's own words, BBCode allowed) with French typography (module doc).

    ``before_value``: the text is followed by an interpolated value (a template literal
    before ``{{ … }}``): a trailing « n° » or « - » then belongs to that number. A « « » at
    the very end gets its inner space too. ``[code]`` blocks are kept as they are. Never
    raises; applying it twice changes nothing.
    """
    parts = _CODE.split(text)
    return "".join(
        part if i % 2 else _typeset_part(part, before_value=before_value and i == len(parts) - 1)
        for i, part in enumerate(parts)
    )


def plain(text: str) -> str:
    """``text`` with the typography undone: U+00A0 and U+202F become spaces, U+2212 « - »
    (for parsers of the bot's own posts written before or after the typography). A list
    or tuple of strings is undone item by item; any other value is returned as is."""
    if isinstance(text, (list, tuple)):
        return type(text)(plain(t) for t in text)  # type: ignore[return-value]
    if not isinstance(text, str):
        return text
    return text.replace(NBSP, " ").replace(NNBSP, " ").replace(MINUS, "-")


def signed(value: int) -> str:
    """``+3``, ``−2`` (U+2212), ``0``: a modifier as players read it."""
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"{MINUS}{-value}"
    return "0"


def number(value: int) -> str:
    """An int as printed: a negative one with the minus sign (``−4``)."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


class TypographyExtension(Extension):
    """A jinja2 extension typesetting each template's literal text at compile time.

    Data tokens (the template's own text) go through :func:`typeset`; so do string
    literals inside tags and expressions (``{% set void = {"shield": "… : …"} %}``), except
    one followed by the filter ``|verbatim`` (players' syntax, printed as written). A
    ``[code]`` block open across tokens keeps its text untouched until ``[/code]``.
    """

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        """The tokens of one template with typeset literals (see class doc)."""
        tokens = list(stream)
        in_code = False
        for i, tok in enumerate(tokens):
            if tok.type == "data":
                yield Token(tok.lineno, "data", self._data(tok.value, tokens, i, in_code))
                opened = tok.value.lower().rfind("[code]")
                closed = tok.value.lower().rfind("[/code]")
                if opened > closed:
                    in_code = True
                elif closed > opened:
                    in_code = False
            elif tok.type == "string" and not in_code and not _verbatim_follows(tokens, i):
                yield Token(tok.lineno, "string", typeset(tok.value))
            else:
                yield tok

    @staticmethod
    def _data(value: str, tokens: list[Token], i: int, in_code: bool) -> str:
        if in_code:
            end = value.lower().find("[/code]")
            if end < 0:
                return value
            return value[:end] + typeset(value[end:], before_value=_value_follows(tokens, i))
        return typeset(value, before_value=_value_follows(tokens, i))


def _value_follows(tokens: list[Token], i: int) -> bool:
    return i + 1 < len(tokens) and tokens[i + 1].type == "variable_begin"


def _verbatim_follows(tokens: list[Token], i: int) -> bool:
    return (
        i + 2 < len(tokens)
        and tokens[i + 1].type == "pipe"
        and tokens[i + 2].type == "name"
        and tokens[i + 2].value == "verbatim"
    )


__all__ = [
    "MINUS",
    "NBSP",
    "NNBSP",
    "TypographyExtension",
    "number",
    "plain",
    "signed",
    "typeset",
]
