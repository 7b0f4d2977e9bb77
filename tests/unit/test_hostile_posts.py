"""Hostile posts: player text must never put BBCode or HTML into the bot's declarations.

Each post of the corpus is written into a real phpBB capture (``viewtopic_t2_page1_fr.html``,
post 3, as phpBB shows typed text: HTML-escaped), then goes the bot's whole way: topic parser
-> action parser -> rules engine -> ``turn.bbcode.j2`` (and ``opening.bbcode.j2`` for hostile
names and stakes). The declaration may only carry the templates' own tags (``[b]``/``[/b]``);
every ``[ ] < >`` typed by a player comes out as an inert fullwidth look-alike.
"""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path
from typing import Any

import pytest

import rules
from forumbot.publish.render import neutralise, render
from forumbot.publish.typography import plain
from parsers.action import SpellMatcher, parse_action
from parsers.model import Action, Post
from parsers.phpbb import parse_topic_page

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
PAGE = (FIXTURES / "viewtopic_t2_page1_fr.html").read_text(encoding="utf-8")
RULESET = rules.parse_ruleset(rules.ruleset_path("classic").read_text(encoding="utf-8"))
MATCHER = SpellMatcher(RULESET.spellbook_names())
AURORA, CASSIUS = "Aurora Vexley", "Cassius Thorne"

TEMPLATE_TAGS = {"[b]", "[/b]"}
BBCODE_TAG = re.compile(r"\[/?[A-Za-z*][^\[\]]{0,200}\]")
HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?]")
BIDI_AND_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069]")

# (label, the bold text a player typed) -- what phpBB shows inside <strong>.
HOSTILE_BOLD = [
    ("url javascript", "[url=javascript:alert(document.cookie)]Sortilège de Feu[/url]"),
    ("url phishing", "[url=http://evil.example/login]Charme du Bouclier[/url]"),
    ("img", "[img]http://evil.example/pixel.png[/img]"),
    ("script", "<script>alert(1)</script>Sortilège de Glace"),
    ("img onerror", '<img src=x onerror="alert(1)">'),
    ("close bold then size", "[/b][size=200]L'ARBITRE DÉCLARE AURORA GAGNANTE[/size][b]"),
    ("fake quote", "[quote=Arbitre]Cassius est disqualifié[/quote]"),
    ("color", "[color=#FF0000]Sortilège de Découpe[/color]"),
    ("nested", "[[b]]b[[/b]]"),
    ("zero width inside tag", "[\u200bb]gras[/\u200bb]"),
    ("rtl override", "Sortilège\u202e ueF ed"),
    ("html comment", "<!-- [size=1] -->"),
    ("iframe", '<iframe src="http://evil.example"></iframe>'),
    ("multi-line", "Sortilège de Feu\n[b]Déclaration de l'arbitre[/b]\n<hr>"),
]


def esc(text: str) -> str:
    """Typed text as phpBB renders it (HTML-escaped, line breaks as <br>)."""
    return htmllib.escape(text, quote=False).replace("\n", "<br>\n")


def page_with_post_3(content_html: str, author: str = AURORA) -> str:
    """The real capture with post 3's content (and author name) replaced."""
    start = PAGE.index('<div id="p3" class="post')
    end = PAGE.index('<div id="p4" class="post')
    block = PAGE[start:end]
    block = re.sub(
        r'(<div class="content">).*?(</div>)',
        lambda m: m.group(1) + content_html + m.group(2),
        block,
        count=1,
        flags=re.S,
    )
    block = block.replace(f">{AURORA}<", f">{esc(author)}<")
    return PAGE[:start] + block + PAGE[end:]


def post_3(content_html: str, author: str = AURORA) -> Post:
    page = parse_topic_page(page_with_post_3(content_html, author), source="hostile")
    return next(p for p in page.posts if p.post_id == 3)


def turn_declaration(
    action: Action, names: tuple[str, str] = (AURORA, CASSIUS), stakes: str | None = None
) -> str:
    """Resolve one classic turn (post 3 = ``action``; post 4 a plain Sortilège de Feu) and
    render its declaration with the context the referee builds (Referee.turn_context)."""
    state = rules.start_duel(rules.new_duel(RULESET, [(names[0], "5"), (names[1], "7+")]))
    posts = [
        rules.TurnPost(
            duellist=names[0], post_id=3, spell=action.spell, spell_text=action.spell_text
        ),
        rules.TurnPost(
            duellist=names[1], post_id=4, spell="Sortilège de Feu", spell_text="Sortilège de Feu"
        ),
    ]
    dice = {3: (6, 1), 4: (6, 1)}
    outcome = rules.resolve_turn(state, posts, dice, ruleset=RULESET)
    context: dict[str, Any] = {
        "title": f"Duel : {names[0]} contre {names[1]}",
        "turn": outcome.turn,
        "unit": RULESET.unit,
        "outcome": outcome.to_dict(),
        "dice": {str(k): list(v) for k, v in dice.items()},
        "posts": [
            {
                "duellist": p.duellist,
                "post_id": p.post_id,
                "spell": p.spell,
                "spell_text": p.spell_text,
            }
            for p in posts
        ],
        "extra_posts": [],
        "stakes": stakes,
        "referee_name": "L'arbitre",
        "dice_secret": None,
        "commitment": "ab" * 32,
    }
    return render("turn.bbcode.j2", context)


def assert_inert(text: str) -> None:
    """Only the templates' own BBCode; no HTML tag; no bidi override / invisible char."""
    tags = set(BBCODE_TAG.findall(text))
    assert tags <= TEMPLATE_TAGS, f"player markup leaked: {sorted(tags - TEMPLATE_TAGS)}"
    assert not HTML_TAG.search(text), HTML_TAG.search(text)
    assert not BIDI_AND_INVISIBLE.search(text)


@pytest.mark.parametrize(("label", "bold"), HOSTILE_BOLD, ids=[h[0] for h in HOSTILE_BOLD])
def test_hostile_spell_text_is_inert_in_the_turn_declaration(label: str, bold: str) -> None:
    content = f'Je lance mon sort !<br>\n<strong class="text-strong">{esc(bold)}</strong>'
    post = post_3(content)
    assert post.bold and "".join(post.bold[-1].split()) == "".join(
        "".join(bold.split()).split()
    )  # the parser keeps the player's text (markup is text to it)
    action = parse_action(post, MATCHER)
    assert action.spell is None or action.spell in RULESET.spellbook_names()
    text = turn_declaration(action)
    assert_inert(text)
    if action.spell is None:  # the raw bold is printed: it must be there, neutralised
        assert neutralise(action.spell_text) in text


@pytest.mark.parametrize(("label", "bold"), HOSTILE_BOLD, ids=[h[0] for h in HOSTILE_BOLD])
def test_hostile_duellist_names_and_stakes_are_inert(label: str, bold: str) -> None:
    names = (f"{AURORA} {bold}", CASSIUS)
    action = parse_action(post_3('<strong class="text-strong">Sortilège de Feu</strong>'), MATCHER)
    assert action.spell == "Sortilège de Feu"
    assert_inert(turn_declaration(action, names=names, stakes=bold))
    opening = render(
        "opening.bbcode.j2",
        {
            "title": bold,
            "duellists": [
                {"name": names[0], "year": "5", "points": 20},
                {"name": names[1], "year": "7+", "points": 20},
            ],
            "unit": RULESET.unit,
            "stakes": bold,
            "commitment": "ab" * 32,
            "referee_name": "L'arbitre",
            # a spell cast before the start: the violation's evidence quotes the bold
            "early": [{"duellist": names[0], "post_id": 3, "spell": f"bold text {bold!r}"}],
        },
    )
    assert_inert(opening)
    assert neutralise(bold) in opening


def test_real_markup_in_a_post_never_reaches_the_declaration() -> None:
    """Markup phpBB (or a board allowing HTML) really renders inside the bold."""
    content = (
        '<strong class="text-strong"><a href="javascript:alert(1)" class="postlink">'
        'Sortilège</a> <img src="http://evil.example/x.png" alt="[b]"> '
        '<span style="font-size:200%">de Foudre</span><script>alert(1)</script></strong>'
    )
    post = post_3(content)
    action = parse_action(post, MATCHER)
    text = turn_declaration(action)
    assert_inert(text)
    assert "javascript" not in text and "evil.example" not in text


def test_one_megabyte_hostile_post() -> None:
    line = esc("[url=javascript:x]<script>[/b][size=200]") + "<br>\n"
    bold = esc("[img]x[/img]" * 800)  # 10 KB of bold (see the 1 MB bold note below)
    content = line * 25_000 + f'<strong class="text-strong">{bold}</strong>'
    assert len(content.encode("utf-8")) > 1_000_000
    post = post_3(content)
    assert post.line_count > 25_000
    action = parse_action(post, MATCHER)
    assert action.spell is None
    text = turn_declaration(action)
    assert_inert(text)
    assert "［img］x［/img］" in text


PHPBB_MAX_POST_CHARS = 60_000  # phpBB's default max_post_chars


def test_declaration_stays_postable_with_a_huge_spell_text() -> None:
    action = Action(spell=None, spell_text="[img]x[/img]" * 8_000)  # 96 KB of bold
    text = turn_declaration(action)
    assert_inert(text)
    assert len(text) < PHPBB_MAX_POST_CHARS


def test_a_huge_bold_is_not_fuzzy_matched() -> None:
    post = post_3('<strong class="text-strong">' + "Sortilège de Feu " * 20_000 + "</strong>")
    assert parse_action(post, MATCHER).spell is None


LOOKALIKES = [
    "Аurora Vexley",  # Cyrillic А (U+0410)
    "Aurоra Vexley",  # Cyrillic о (U+043E)
    "Ａｕｒｏｒａ Vexley",  # fullwidth Latin
    "Aurora\u200b Vexley",  # zero-width space
    "Aurora Vexley\u202e",  # bidi override
]


@pytest.mark.parametrize("author", LOOKALIKES)
def test_lookalike_author_names_stay_distinct(author: str) -> None:
    """The referee attributes posts by ``author.casefold()`` equality: a look-alike account
    must never be read as the duellist (no NFKC, no invisible-character stripping here)."""
    post = post_3('Je lance <strong class="text-strong">Sortilège de Feu</strong>', author)
    assert post.author.casefold() != AURORA.casefold()
    assert post.author == author  # kept verbatim: what the referee sees is what was posted


def test_lookalike_spell_names_resolve_to_the_canonical_spell_or_nothing() -> None:
    for typed in ("Sortilège de Fеu", "Sortilège de Ｆｅｕ", "Sortilège de F\u200beu"):
        post = post_3(f'<strong class="text-strong">{esc(typed)}</strong>')
        action = parse_action(post, MATCHER)
        assert action.spell in (None, "Sortilège de Feu")
        text = turn_declaration(action)
        assert_inert(text)
        if action.spell is not None:  # matched: the declaration names the canonical spell
            assert f"{AURORA}, message n° 3 : Sortilège de Feu ;" in plain(text)
