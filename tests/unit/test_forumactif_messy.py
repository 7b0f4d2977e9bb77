"""Issue 16 on Forumactif: template mismatch, dice wordings and images, quotes and ``kind`` in
the JSON contract, on variants of the built captures (made here from ``../shared/fixtures``,
read in place; skipped when the folder is absent)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from parsers.contract import page_to_json
from parsers.errors import UnknownPageError
from parsers.forumactif import parse_topic_page
from parsers.forumactif.dice import face_from_file_name
from rules import parse_ruleset, ruleset_path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "fixtures" / "forumactif"
NOW = datetime(2025, 3, 4, 15, 0, tzinfo=ZoneInfo("Europe/Paris"))
VERSIONS = {
    "phpbb2": "subsilver",
    "phpbb3": "prosilver",
    "punbb": "punbb",
    "invision": "invision",
    "modernbb": "modernbb",
    "awesomebb": "awesomebb",
}
TPL_RE = re.compile(r'(_userdata\["tpl_used"\]\s*=\s*")[a-z]+')
LD_RE = re.compile(r'<script type="application/ld\+json">.*?</script>', re.S)
DIE_5 = '<img src="https://2img.net/u/1712/42/67/31/dice/de-du-duel-5.png" alt="5" border="0" />'
SPELLBOOK = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8")).spellbook_names()


def built(version: str) -> str:
    path = SHARED / "built" / version / "topic_t12_A.html"
    if not path.exists():
        pytest.skip(f"shared Forumactif captures not found at {SHARED}")
    return path.read_text(encoding="utf-8")


def with_tpl(page: str, tpl: str) -> str:
    changed = TPL_RE.sub(lambda m: m.group(1) + tpl, page)
    assert TPL_RE.search(page) is not None and f'"{tpl}"' in changed
    return changed


@pytest.mark.parametrize("version", list(VERSIONS))
@pytest.mark.parametrize("declared", list(VERSIONS.values()))
def test_markup_of_one_version_named_another_is_read_from_the_markup(
    version: str, declared: str
) -> None:
    page = LD_RE.sub("", built(version))  # no JSON-LD: the markup alone must be read right
    clean = parse_topic_page(page, now=NOW)
    mismatched = parse_topic_page(with_tpl(page, declared), now=NOW)
    assert mismatched.version == VERSIONS[version]  # detected from the markup
    assert [p.text for p in mismatched.posts] == [p.text for p in clean.posts]
    assert [p.posted_at for p in mismatched.posts] == [p.posted_at for p in clean.posts]
    assert all(p.posted_at is not None for p in mismatched.posts)
    assert [p.dice for p in mismatched.posts] == [p.dice for p in clean.posts]
    assert sum(bool(p.dice) for p in mismatched.posts) == 10


def test_invision_markup_named_modernbb_never_gives_header_text() -> None:
    page = with_tpl(LD_RE.sub("", built("invision")), "modernbb")
    for post in parse_topic_page(page, now=NOW).posts:
        assert post.author not in post.text.splitlines()[:1]
        assert not re.search(r"\b(?:Dim|Lun|Mar|Mer|Jeu|Ven|Sam) \d{1,2} \w+", post.text)


def test_markup_matching_no_version_without_json_ld_is_page_not_understood() -> None:
    page = LD_RE.sub("", built("invision"))
    # A theme renaming the message and header classes, still naming a known version.
    page = page.replace('class="post-entry"', 'class="zz-a"').replace('class="author"', "")
    with pytest.raises(UnknownPageError, match="page not understood: tpl_used names 'invision'"):
        parse_topic_page(page, now=NOW)


@pytest.mark.parametrize("version", list(VERSIONS))
def test_dice_image_without_alt_gives_the_face_from_its_file_name(version: str) -> None:
    page = built(version)
    assert DIE_5 in page
    clean = parse_topic_page(page, now=NOW)
    no_alt = parse_topic_page(page.replace(DIE_5, DIE_5.replace('alt="5"', 'alt=""')), now=NOW)
    assert [p.dice for p in no_alt.posts] == [p.dice for p in clean.posts]
    assert any(d.values == (5,) for p in no_alt.posts for d in p.dice)


@pytest.mark.parametrize(
    "label", ["Lancer les dés", "Lancer de dés", "lancer des des", "Lancer  des Dés"]
)
def test_dice_action_label_variants(label: str) -> None:
    page = built("phpbb3")
    clean = parse_topic_page(page, now=NOW)
    varied = parse_topic_page(
        page.replace("action suivante : Lancer des dés", f"action suivante : {label}"), now=NOW
    )
    assert [p.dice for p in varied.posts] == [p.dice for p in clean.posts]


def test_dice_action_label_is_a_setting() -> None:
    page = built("phpbb3").replace(
        "action suivante : Lancer des dés", "action suivante : Jet de dés"
    )
    assert not any(p.dice for p in parse_topic_page(page, now=NOW).posts)
    configured = parse_topic_page(page, now=NOW, dice_actions=("Jet de dés",))
    assert sum(bool(p.dice) for p in configured.posts) == 10


def test_non_numeric_faces_are_strings_in_the_json_contract() -> None:
    coin = (
        "'Pile ou Face' : "
        '<img src="https://2img.net/u/1712/42/67/31/dice/pile-ou-face-face.png" alt="" />'
    )
    page = built("phpbb3").replace("'Dé du Duel' : " + DIE_5, coin, 1)
    data = page_to_json(parse_topic_page(page, now=NOW), SPELLBOOK)
    posts = data["posts"]
    assert isinstance(posts, list)
    rolls = [d for p in posts for d in p["dice"] if d["name"] == "Pile ou Face"]
    assert rolls and all(d["values"] == ["Face"] for d in rolls)
    numeric = [d for p in posts for d in p["dice"] if d["name"] == "Dé du Duel"]
    assert numeric and all(isinstance(v, int) for d in numeric for v in d["values"])


def test_face_from_file_name() -> None:
    assert face_from_file_name("https://x/dice/de-du-duel-06.png") == "6"
    assert face_from_file_name("/dice/pile-ou-face-pile.png", "Pile ou face") == "Pile"
    assert face_from_file_name("/dice/d%C3%A9-du-duel-3.gif", "Dé du Duel") == "3"
    assert face_from_file_name("/dice/readme") is None


def test_kind_cast_for_a_spell_without_dodge_words_in_the_contract() -> None:
    data = page_to_json(parse_topic_page(built("phpbb3"), now=NOW), SPELLBOOK)
    posts = data["posts"]
    assert isinstance(posts, list)
    by_id = {p["post_id"]: p for p in posts}
    assert by_id[305]["action"]["spell"] == "Sortilège de Feu"
    assert by_id[305]["action"]["kind"] == "cast"  # no « Action : » line, no dodge word
    assert by_id[311]["action"]["kind"] == "dodge"  # « Action : esquiver »
    assert by_id[306]["action"]["kind"] is None  # the Game Master's dice post names no spell


def test_nested_quotes_are_listed_with_depth_like_phpbb() -> None:
    page = built("phpbb3")
    outer = "<blockquote><div><cite>Éloïse Brumerive a écrit:</cite>"
    nested = (
        outer
        + "<blockquote><div><cite>Théodric Vermillon a écrit:</cite>Bouclier</div></blockquote>"
    )
    assert outer in page
    varied = parse_topic_page(page.replace(outer, nested, 1), now=NOW)
    quoting = [p for p in varied.posts if p.quotes]
    assert len(quoting) == 1
    assert [(q.author, q.depth) for q in quoting[0].quotes] == [
        ("Éloïse Brumerive", 0),
        ("Théodric Vermillon", 1),
    ]
    data = page_to_json(varied, SPELLBOOK)
    posts = data["posts"]
    assert isinstance(posts, list)
    listed = [q for p in posts for q in p["quotes"]]
    assert listed == [
        {"author": "Éloïse Brumerive", "post_id": None, "depth": 0},
        {"author": "Théodric Vermillon", "post_id": None, "depth": 1},
    ]
