"""The parse shortcuts of the season soak's speed-up (issue 23) give what a full parse gives:
topic pages through a post memo (the edit watch re-reads unchanged posts), the header's user
name from the header alone, PM folders on a plain lxml tree (real captures)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from forumbot.forums.topic_order import PostMemo
from parsers.phpbb import parse_topic_page
from parsers.phpbb_forms import _lxml_logged_in_user, _page_root, logged_in_user, parse_pm_folder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
TOPICS = sorted(p.name for p in FIXTURES.glob("viewtopic_*.html") if "not_exist" not in p.name)
PAGES = sorted(p.name for p in FIXTURES.glob("*.html"))


@pytest.mark.parametrize("name", TOPICS)
def test_a_topic_page_through_the_memo_is_the_page_parsed_whole(name: str) -> None:
    html = (FIXTURES / name).read_bytes()
    memo = PostMemo()
    first = parse_topic_page(html, name, memo=memo)
    again = parse_topic_page(html, name, memo=memo)
    assert first == parse_topic_page(html, name) == again
    assert len(memo) == len(first.posts)
    assert all(a is b for a, b in zip(first.posts, again.posts, strict=True))  # not re-parsed


@pytest.mark.parametrize("name", TOPICS)
def test_a_new_post_count_or_online_mark_is_no_change_of_the_post(name: str) -> None:
    """Issue 27: an author's post count (``dd.profile-posts``) and the container's ``online``
    class change when the post did not; the memo gives the post a full parse gives."""
    html = (FIXTURES / name).read_bytes()
    memo = PostMemo()
    first = parse_topic_page(html, name, memo=memo)
    later = re.sub(rb'(sr=posts">)(\d+)(</a>)', lambda m: m[1] + b"9" + m[2] + m[3], html)
    later = re.sub(rb'(class="post [^"]*?)( online)?"', lambda m: m[1] + (b"" if m[2] else
                   b" online") + b'"', later)  # fmt: skip
    assert later != html
    again = parse_topic_page(later, name, memo=memo)
    assert again == parse_topic_page(later, name)
    assert all(a is b for a, b in zip(first.posts, again.posts, strict=True))  # not re-parsed


def test_a_post_whose_text_changed_is_parsed_again() -> None:
    name = "viewtopic_t2_page1_fr.html"
    html = (FIXTURES / name).read_bytes()
    memo = PostMemo()
    first = parse_topic_page(html, name, memo=memo)
    word = first.posts[0].text.split()[0].encode()
    changed = html.replace(word, word + b"-bis", 1)
    again = parse_topic_page(changed, name, memo=memo)
    assert again == parse_topic_page(changed, name)
    assert again.posts[0] is not first.posts[0]
    assert again.posts[0].text != first.posts[0].text


def test_the_memo_keeps_the_most_recently_used_posts() -> None:
    html = (FIXTURES / TOPICS[0]).read_bytes()
    page = parse_topic_page(html, TOPICS[0])
    memo = PostMemo(maxsize=1)
    parse_topic_page(html, TOPICS[0], memo=memo)
    assert len(memo) == 1
    (kept,) = memo.values()
    assert kept == page.posts[-1]


@pytest.mark.parametrize("name", PAGES)
def test_the_header_user_is_read_as_on_the_whole_page(name: str) -> None:
    html = (FIXTURES / name).read_text(encoding="utf-8", errors="replace")
    whole = _page_root(html)
    named = "username_logged_in" in html and whole is not None
    expected = _lxml_logged_in_user(whole) if named else None
    assert logged_in_user(html) == expected
    assert logged_in_user(html.encode("utf-8")) == expected


def test_pm_folders_are_read_from_the_captures() -> None:
    rows = [parse_pm_folder((FIXTURES / n).read_bytes()) for n in PAGES if "pm_" in n]
    listed = [r for page in rows for r in page]
    assert listed and all(r.msg_id > 0 and r.subject and "mode=view" in r.href for r in listed)
