"""Hostile text (issue 24 F8): every character that renders as nothing is stripped from player
text, from Unicode's Default_Ignorable_Code_Point list (the Hangul fillers included)."""

from __future__ import annotations

import unicodedata

import pytest
import regex

from forumbot.publish.render import neutralise
from parsers.invisible import is_invisible, strip_invisible
from parsers.signup_words import clean_text

FOURTEEN = [
    "\u3164",  # HANGUL FILLER: the usual "invisible name"
    "\u115f",  # HANGUL CHOSEONG FILLER
    "\u1160",  # HANGUL JUNGSEONG FILLER
    "\uffa0",  # HALFWIDTH HANGUL FILLER
    "\u200b",  # ZERO WIDTH SPACE
    "\u200c",  # ZERO WIDTH NON-JOINER
    "\u200d",  # ZERO WIDTH JOINER
    "\u2060",  # WORD JOINER
    "\ufeff",  # ZERO WIDTH NO-BREAK SPACE
    "\u034f",  # COMBINING GRAPHEME JOINER (Mn, not Cf)
    "\u180e",  # MONGOLIAN VOWEL SEPARATOR
    "\u17b4",  # KHMER VOWEL INHERENT AQ (Mn)
    "\u2800",  # BRAILLE PATTERN BLANK (So, draws an empty glyph)
    "\U000e0041",  # TAG LATIN CAPITAL LETTER A
]


@pytest.mark.parametrize("char", FOURTEEN, ids=lambda c: f"U+{ord(c):04X}")
def test_each_invisible_character_is_stripped(char: str) -> None:
    assert is_invisible(char)
    assert neutralise(f"Au{char}rora") == "Aurora"
    assert clean_text(f"Au{char}rora") == "Aurora"


def test_all_fourteen_at_once_leave_nothing_of_a_name() -> None:
    name = "".join(FOURTEEN)
    assert strip_invisible(name) == "" and neutralise(name) == ""
    assert neutralise(f"{name}Aurora{name} Vexley") == "Aurora Vexley"


def test_the_hangul_fillers_are_default_ignorable_in_the_library() -> None:
    di = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    for char in FOURTEEN[:4]:
        assert di.fullmatch(char), unicodedata.name(char)


def test_visible_text_and_layout_are_kept() -> None:
    text = "Raphaël l’Ébouriffé « 5° année » 🪄 한글 ＡＢ"
    assert strip_invisible(text) == text
    assert strip_invisible("a\tb\nc\r") == "a\tb\nc\r"
    assert neutralise("Hangul 한\u3164글") == "Hangul 한글"
