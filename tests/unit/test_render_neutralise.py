"""Player text printed in a declaration is inert (issue 15: control, bidi and invisible
characters removed, bare URLs neutralised)."""

from __future__ import annotations

import pytest

from forumbot.publish.render import Trusted, neutralise


@pytest.mark.parametrize(
    "char",
    ["\u061c", "\u009b", "\ufeff", "\u2060", "\u00ad", "\U000e0041", "\U000e007f", "\u202e",
     "\u2066", "\u200b", "\u200d", "\x07", "\x1b", "\ue000"],
    ids=lambda c: f"U+{ord(c):04X}",
)
def test_invisible_and_control_characters_are_removed(char: str) -> None:
    assert neutralise(f"Au{char}rora") == "Aurora"


def test_line_breaks_and_tabs_fold_into_spaces() -> None:
    assert neutralise("Aurora\n\tVexley\r\nlà") == "Aurora Vexley là"


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("voir https://evil.example/x", "voir https：//evil.example/x"),
        ("HTTP://EVIL.example", "HTTP：//EVIL.example"),
        ("ftp://x.y", "ftp：//x.y"),
        ("www.evil.example", "www．evil.example"),
        ("écris à moi@evil.example", "écris à moi＠evil.example"),
    ],
)
def test_bare_urls_are_defused(text: str, printed: str) -> None:
    assert neutralise(text) == printed


def test_ordinary_french_and_emoji_are_kept() -> None:
    assert neutralise("Expelliarmus ! l’ennemi « recule » 🪄 — 5e année") == (
        "Expelliarmus ! l’ennemi « recule » 🪄 — 5e année"
    )


def test_bbcode_and_html_brackets_stay_inert() -> None:
    assert neutralise("[url=http://x]moi[/url]<b>") == "［url=http：//x］moi［/url］＜b＞"


def test_trusted_text_and_numbers_pass_through() -> None:
    assert neutralise(Trusted("[b]x[/b]")) == "[b]x[/b]"
    assert neutralise(12) == 12
    assert neutralise(None) == ""
