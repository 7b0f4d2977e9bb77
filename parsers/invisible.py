"""Characters that render as nothing, stripped from player text (issue 24 F8).

The list is Unicode's own: ``Default_Ignorable_Code_Point`` (DerivedCoreProperties.txt, through
the maintained ``regex`` module's ``\\p{DI}``), which holds the zero-width characters, bidi
marks, variation selectors, tag characters and the Hangul fillers (U+115F, U+1160, U+3164,
U+FFA0: the usual "invisible name"), plus the general categories that never print text:
controls ``Cc``, format ``Cf``, surrogates ``Cs``, private use ``Co`` and unassigned ``Cn``.
:data:`BLANK_GLYPHS` adds the characters that are neither but draw an empty glyph (U+2800
BRAILLE PATTERN BLANK). Pure: no I/O.
"""

from __future__ import annotations

import regex

BLANK_GLYPHS = "\u2800"
"""Characters outside Default_Ignorable and the C categories that still draw nothing."""

_INVISIBLE = regex.compile(
    rf"[\p{{Default_Ignorable_Code_Point}}\p{{Cf}}\p{{Cs}}\p{{Co}}\p{{Cn}}{BLANK_GLYPHS}]"
    r"|[^\P{Cc}\n\r\t]"
)


def strip_invisible(text: str) -> str:
    """``text`` without the characters that render as nothing (module docstring); line breaks
    and tabs are kept (the caller folds them).

    >>> strip_invisible("\u3164Ra\u200bphaël\u115f")
    'Raphaël'
    >>> strip_invisible("a\\tb\\n")
    'a\\tb\\n'
    """
    return str(_INVISIBLE.sub("", text))


def is_invisible(char: str) -> bool:
    """Whether the single character ``char`` renders as nothing (:func:`strip_invisible`)."""
    return bool(_INVISIBLE.fullmatch(char))
