"""Issue 16: ids from the page itself after a redirect (canonical link, post anchors), and the
parser side of "Forumactif edit after the dice" (dice post order, content fingerprints).

Variants are made here from the real captures of ``../shared/fixtures`` (read in place).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from parsers.forumactif import dice_snapshots, late_edits, parse_topic_page
from parsers.location import page_location
from parsers.model import content_fingerprint
from parsers.phpbb import parse_topic_page as parse_phpbb

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "fixtures"
NOW = datetime(2025, 3, 4, 15, 0, tzinfo=ZoneInfo("Europe/Paris"))
VERSIONS = ["phpbb2", "phpbb3", "punbb", "invision", "modernbb", "awesomebb"]
FIRE = "<strong>Sortilège de Feu</strong>"


def shared_bytes(relative: str) -> bytes:
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"shared captures not found at {SHARED} (need {relative})")
    return path.read_bytes()


def test_phpbb_page_reached_by_post_id_names_its_topic_and_offset() -> None:
    data = shared_bytes("phpbb/viewtopic_by_post_id_fr.html")  # asked as viewtopic.php?p=...
    where = page_location(data)
    assert where.platform == "phpbb3"
    assert (where.topic_id, where.start) == (2, 10)
    assert where.canonical == "http://127.0.0.1:8080/viewtopic.php?t=2&start=10"
    assert where.post_ids == tuple(p.post_id for p in parse_phpbb(data).posts)


def test_phpbb_first_page_has_offset_zero() -> None:
    where = page_location(shared_bytes("phpbb/viewtopic_t2_page1_fr.html"), "phpbb3")
    assert (where.topic_id, where.start, len(where.post_ids)) == (2, 0, 10)


@pytest.mark.parametrize("version", VERSIONS)
def test_forumactif_page_names_its_topic_and_posts(version: str) -> None:
    data = shared_bytes(f"forumactif/built/{version}/topic_t12_A.html")
    where = page_location(data)
    assert where.platform == "forumactif"
    assert (where.topic_id, where.start) == (12, 0)
    assert where.post_ids == tuple(p.post_id for p in parse_topic_page(data, now=NOW).posts)


def test_forumactif_later_page_offset_from_canonical() -> None:
    data = shared_bytes("forumactif/built/phpbb3/topic_t12_A.html")
    moved = data.replace(b"/t12-duel-officiel", b"/t12p15-duel-officiel")
    assert (page_location(moved).topic_id, page_location(moved).start) == (12, 15)


def test_real_awesomebb_page_location() -> None:
    data = shared_bytes("forumactif/rendered/awesomebb/topic_t8320_page1_viewsource.html")
    where = page_location(data)
    assert where.topic_id == 8320
    assert where.post_ids == tuple(p.post_id for p in parse_topic_page(data, now=NOW).posts)


def test_roller_post_names_its_dice_posts() -> None:
    page = parse_topic_page(shared_bytes("forumactif/built/phpbb3/topic_t12_A.html"), now=NOW)
    by_id = {p.post_id: p for p in page.posts}
    assert by_id[305].dice_post_ids == (306,)
    assert by_id[305].dice == by_id[306].dice
    assert all(not p.dice_post_ids for p in page.posts if p.is_dice_post)


def test_silent_edit_after_the_dice_is_reported() -> None:
    data = shared_bytes("forumactif/built/phpbb3/topic_t12_A.html").decode("utf-8")
    at_roll = parse_topic_page(data, now=NOW)
    kept = dice_snapshots(at_roll.posts)
    assert kept[305][0] == 306
    assert late_edits(kept, at_roll.posts) == []  # same page: nothing changed

    # The duellist swaps the spell in post 305 after the dice; the page shows no edit notice.
    first_fire = data.index(FIRE, data.index("post--305"))
    edited = (
        data[:first_fire] + "<strong>Sortilège de Foudre</strong>" + data[first_fire + len(FIRE) :]
    )
    later = parse_topic_page(edited, now=NOW)
    found = late_edits(kept, later.posts)
    assert [(e.post_id, e.dice_post_id, e.noticed) for e in found] == [(305, 306, False)]
    post = next(p for p in later.posts if p.post_id == 305)
    assert found[0].after == content_fingerprint(post) != found[0].before


def test_fingerprint_reads_bold_and_ignores_trailing_spaces() -> None:
    page = parse_topic_page(shared_bytes("forumactif/built/phpbb3/topic_t12_A.html"), now=NOW)
    post = page.posts[1]
    assert content_fingerprint(replace(post, text=post.text + "  \n")) == content_fingerprint(post)
    assert content_fingerprint(replace(post, bold=())) != content_fingerprint(post)
