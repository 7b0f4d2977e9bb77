"""The French lint's checks added after the second reader (issue 25, reader2 T2, T3):
U+202F before « % »; a colon quoted in « … » (players' syntax) is not the sentence's colon."""

from __future__ import annotations

from forumbot.publish.checks import colon_problems, typography_problems
from forumbot.publish.typography import typeset


def test_percent_takes_a_narrow_no_break_space() -> None:
    assert typography_problems("Tes sorts infligent 10 % de dégâts en plus.")
    assert typography_problems("Tes sorts infligent 10\u00a0% de dégâts en plus.")
    assert not typography_problems("Tes sorts infligent 10\u202f% de dégâts en plus.")
    assert typeset("10 % de dégâts") == "10\u202f% de dégâts"
    assert typeset("http://x.example/a%20b") == "http://x.example/a%20b"


def test_a_quoted_colon_is_not_a_second_colon() -> None:
    quoted = typeset("Indiquez votre cible avec « Cible : » suivi de son nom.")
    assert not colon_problems(quoted)
    assert colon_problems(typeset("Résolution : attaque 4 contre défense 2 : le sort touche."))
    assert colon_problems(typeset("Enjeux : « une plume » : X les doit."))
