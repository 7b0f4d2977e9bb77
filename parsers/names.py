"""Names people choose (review-page accounts, forum accounts): the clean form and the look-alike
key (issue 24 F11, F12). Pure: no I/O.

- :func:`clean_name`: Unicode NFKC (a fullwidth ``ｒｏｂ`` is ``rob``), then every character
  that renders as nothing removed (:func:`parsers.invisible.strip_invisible`: Unicode's
  ``Default_Ignorable_Code_Point`` and the non-printing categories), spaces collapsed.
- :func:`look_alike`: the confusables *skeleton* of Unicode Technical Standard #39
  (section 4), from Unicode's ``confusables.txt`` as the maintained ``confusable-homoglyphs``
  package ships it, case folded: two names that meet look the same on a page (a
  Cyrillic ``аlice`` and ``alice``, ``AIice`` with a capital i, ``rn`` and ``m``).
- :func:`has_markup`: the characters HTML and BBCode tags are made of (``< > [ ]``).
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import confusables

from parsers.invisible import strip_invisible

_MARKUP = frozenset("<>[]")


def clean_name(text: str) -> str:
    """``text`` in NFKC, without invisible characters, its spaces collapsed and trimmed.

    >>> clean_name(" \\uff52\\uff4f\\uff42\\u200b ")
    'rob'
    """
    return " ".join(strip_invisible(unicodedata.normalize("NFKC", text)).split())


def has_markup(text: str) -> bool:
    """Whether ``text`` holds a character of an HTML or BBCode tag (``<``, ``>``, ``[``,
    ``]``)."""
    return any(c in _MARKUP for c in text)


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (UTS #39 ``confusables.txt``: source ->
    prototype). The package keeps the table both ways (a prototype lists its sources, a
    source its one prototype); a pair that lists only each other maps both to the smaller."""
    table: dict[str, list[dict[str, str]]] = confusables.confusables_data
    out: dict[str, str] = {}
    for char, glyphs in table.items():
        if len(char) != 1 or len(glyphs) != 1:
            continue  # a prototype (several sources), or a several-character key
        target = strip_invisible(glyphs[0]["c"])
        back = [strip_invisible(g["c"]) for g in table.get(target, [])]
        if not target or target == char:
            continue
        out[char] = min(char, target) if back == [char] else target
    return out


def _skeleton(text: str) -> str:
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(table.get(c, c) for c in decomposed)
    return unicodedata.normalize("NFD", mapped)


def look_alike_keys(text: str) -> frozenset[str]:
    """The keys under which names that look alike meet: the UTS #39 skeleton of
    :func:`clean_name` of ``text`` taken after case folding, and taken before it (then again
    after it), so that both ``ALICE`` and ``AIice`` (a capital i) meet ``alice``. Two names
    look alike when their key sets share a key (:func:`look_alike`).

    >>> sorted(look_alike_keys("AIice"))
    ['aiice', 'alice']
    """
    name = clean_name(text)
    return frozenset({_skeleton(name.casefold()), _skeleton(_skeleton(name).casefold())})


def look_alike(a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` would look the same on a page (:func:`look_alike_keys`).

    >>> look_alike("\u0430lice", "alice"), look_alike("ALICE", "alice")
    (True, True)
    >>> look_alike("rob\u200b", "rob"), look_alike("alice", "alicia")
    (True, False)
    """
    return not look_alike_keys(a).isdisjoint(look_alike_keys(b))


__all__ = ["clean_name", "has_markup", "look_alike", "look_alike_keys"]
