"""`forumbot parse-page` on every Forumactif display version (the shared fixtures, read in
place; never copied into the project): the same JSON contract as phpBB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main

SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "forumactif"
VERSIONS = ["phpbb2", "phpbb3", "punbb", "invision", "modernbb", "awesomebb"]

pytestmark = pytest.mark.skipif(
    not SHARED.is_dir(), reason=f"{SHARED} is absent (the shared Forumactif fixtures)"
)


@pytest.mark.parametrize("version", VERSIONS)
def test_parse_page_matches_the_expected_extraction(version: str) -> None:
    page = SHARED / "built" / version / "topic_t12_A.html"
    expected = json.loads(page.with_name(page.name + ".expected.json").read_text("utf-8"))
    now = expected["page"]["captured_at"] + ":00+01:00"
    result = CliRunner().invoke(main, ["parse-page", str(page), "--now", now])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["platform"] == "forumactif"
    assert data["topic_id"] == expected["page"]["topic_id"]
    assert (data["page"], data["pages"]) == (1, expected["page"]["total_pages"])
    assert data["logged_in_as"] == expected["page"]["viewer_username"]
    got = {p["post_id"]: p for p in data["posts"]}
    assert sorted(got) == sorted(p["post_id"] for p in expected["posts"])
    for want in expected["posts"]:
        post = got[want["post_id"]]
        assert post["author"] == want["author"]
        assert post["author_id"] == want["author_id"]
        assert post["posted_at"].startswith(want["posted_at"])
        assert post["bold"] == want["bold_own"]
        assert post["line_count"] == want["line_count_own"]
        assert (post["edited"] is None) == (want["edited"] is None)
        if want["is_dice_post"]:
            assert [d["values"] for d in post["dice"]] == [d["values"] for d in want["dice"]]


def test_prosilver_with_renamed_message_classes_keeps_the_message_only() -> None:
    """A customised prosilver theme renaming ``content``/``author``/``postprofile``: the
    message is found by its JSON-LD text inside the larger ``postbody``, not the whole post."""
    from datetime import datetime

    from parsers.forumactif import parse_topic_page

    page = SHARED / "built" / "phpbb3" / "topic_t12_A.html"
    expected = json.loads(page.with_name(page.name + ".expected.json").read_text("utf-8"))
    html = page.read_text("utf-8")
    for old in ("content", "author", "postprofile"):
        html = html.replace(f'class="{old}', f'class="my{old}')
    now = datetime.fromisoformat(expected["page"]["captured_at"] + ":00+01:00")
    parsed = {p.post_id: p for p in parse_topic_page(html, "renamed.html", now=now).posts}
    for want in expected["posts"]:
        post = parsed[want["post_id"]]
        assert list(post.bold) == want["bold_own"], want["post_id"]
        assert post.line_count == want["line_count_own"], want["post_id"]
        assert post.posted_at is not None
