"""Forumactif topic-page parser against the shared fixtures and hand-written pages.

Shared fixtures are read in place from ``../shared/fixtures/forumactif`` (relative
to the repo root) and never copied into the repo; tests needing them are skipped
when the folder is absent. ``fixtures/html/forumactif/`` holds pages written for
these tests (windows-1252 board, customised theme).
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from forumbot.publish.typography import plain
from parsers.errors import UnknownPageError
from parsers.forumactif import parse_topic_page, parse_userdata
from parsers.forumactif.encoding import decode_html
from parsers.forumactif.forms import (
    find_flood_error,
    find_new_post_warning,
    find_reply_form,
    parse_login_form,
    parse_pm_form,
    parse_posting_form,
)
from parsers.model import Post, TopicPage

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "fixtures" / "forumactif"
OWN = REPO / "fixtures" / "html" / "forumactif"
PARIS = ZoneInfo("Europe/Paris")
VERSIONS = ["phpbb2", "phpbb3", "punbb", "invision", "modernbb", "awesomebb"]
GM = "Maître du Jeu"


def shared(relative: str) -> Path:
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"shared Forumactif fixtures not found at {SHARED} (need {relative})")
    return path


def expected_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        path.with_name(path.name + ".expected.json").read_text(encoding="utf-8")
    )
    return data


def captured_now(expected: dict[str, Any]) -> datetime:
    captured = expected["page"].get("captured_at")
    if captured is None:  # real pages: absolute dates only
        return datetime(2026, 7, 18, 12, 0, tzinfo=PARIS)
    return datetime.fromisoformat(captured).replace(tzinfo=PARIS)


def local_minute(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(PARIS).strftime("%Y-%m-%dT%H:%M")


def assert_posts_match(page: TopicPage, expected: dict[str, Any]) -> None:
    """Assert every per-post fact the expected file states."""
    wanted = expected["posts"]
    assert [p.post_id for p in page.posts] == [e["post_id"] for e in wanted]
    for post, exp in zip(page.posts, wanted, strict=True):
        label = f"post {post.post_id}"
        assert post.author == exp["author"], label
        assert post.author_id == exp["author_id"], label
        assert local_minute(post.posted_at) == exp["posted_at"], label
        assert post.is_dice_post is exp["is_dice_post"], label
        assert list(post.bold) == exp["bold_own"], label
        assert post.line_count == exp["line_count_own"], label
        assert len(post.quotes) == exp["quotes"], label
        assert post.dice_roller == exp["dice_roller"], label
        if exp["is_dice_post"]:
            got = [{"name": d.name, "values": list(d.values)} for d in post.dice]
            assert got == exp["dice"], label
        if exp["edited"] is None:
            assert post.edited is None, label
        else:
            assert post.edited is not None, label
            assert post.edited.by == exp["edited"]["by"], label
            assert post.edited.count == exp["edited"]["count"], label
            if "at" in exp["edited"]:
                assert local_minute(post.edited.at) == exp["edited"]["at"], label
            assert "Dernière édition" not in post.text, label
        if exp.get("posted_at_jsonld"):
            exact = datetime.fromisoformat(exp["posted_at_jsonld"])
            assert post.posted_at == exact, label
        assert post.line_count == sum(1 for line in post.text.splitlines() if line.strip())
    assert_dice_attached(page.posts, wanted)


def assert_dice_attached(posts: tuple[Post, ...], wanted: list[dict[str, Any]]) -> None:
    """Each GM post's dice are also on the roller's preceding post, and nowhere else."""
    attached: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
    for index, exp in enumerate(wanted):
        if not exp["is_dice_post"]:
            continue
        roller_index = next(
            i for i in range(index - 1, -1, -1) if wanted[i]["author"] == exp["dice_roller"]
        )
        attached.setdefault(wanted[roller_index]["post_id"], []).extend(
            (d["name"], tuple(d["values"])) for d in exp["dice"]
        )
    for post in posts:
        if post.is_dice_post:
            continue
        assert [(d.name, d.values) for d in post.dice] == attached.get(post.post_id, [])


def assert_page_facts(page: TopicPage, expected: dict[str, Any]) -> None:
    facts = expected["page"]
    assert page.platform == "forumactif"
    assert page.version == facts["tpl_used"]
    assert page.topic_id == facts["topic_id"]
    assert page.page == facts["page"]
    assert page.pages == facts["total_pages"]
    assert page.logged_in_as == (facts["viewer_username"] if facts["logged_in"] else None)
    if "forum_id" in facts:
        assert page.forum_id == facts["forum_id"]
    if "topic_title" in facts:
        assert page.title == facts["topic_title"]
    quick = facts.get("quick_reply")
    if quick is not None:
        form = page.reply_form
        assert form is not None and form.action == "/post"
        assert form.fields["tid"] == quick["tid"]
        assert form.fields["t"] == str(quick["t"])
        assert form.fields["lt"] == str(quick["lt"])
        assert [v for k, v in form.items if k == "auth[]"] == quick["auth"]
        assert "message" not in form.fields


# --------------------------------------------------------------------------------------
# Built pages: one thread, six default templates.


@pytest.mark.parametrize("version", VERSIONS)
def test_built_page_matches_expected(version: str) -> None:
    path = shared(f"built/{version}/topic_t12_A.html")
    expected = expected_of(path)
    page = parse_topic_page(path.read_bytes(), str(path), now=captured_now(expected))
    assert_page_facts(page, expected)
    assert_posts_match(page, expected)


@pytest.mark.parametrize("version", VERSIONS)
def test_built_page_own_text_leaves_out_signature_quotes_and_outside_bold(version: str) -> None:
    path = shared(f"built/{version}/topic_t12_A.html")
    expected = expected_of(path)
    page = parse_topic_page(path.read_text(encoding="utf-8"), now=captured_now(expected))
    by_id = {p.post_id: p for p in page.posts}
    signed = by_id[311]
    assert signed.text.endswith("Charme du Bouclier\nAction : esquiver")
    assert "Maison Corbeau" not in signed.text  # signature line
    referee = by_id[320]
    assert referee.quotes[0].author == "Éloïse Brumerive"
    assert referee.quotes[0].post_id is None
    assert "Sortilège de Feu" not in referee.text  # quoted spell is not own content
    assert by_id[318].text.splitlines()[0].endswith("🔥")
    assert "pouvez" not in " ".join(b for p in page.posts for b in p.bold)
    assert by_id[306].text.startswith("Le membre 'Éloïse Brumerive' a effectué")


def _strip_classes_but_post_id(html: str) -> str:
    def keep(match: re.Match[str]) -> str:
        tokens = [t for t in match.group(1).split() if t.startswith("post--")]
        return f'class="{" ".join(tokens)}"'

    return re.sub(r'class="([^"]*)"', keep, html)


def _without_jsonld(html: str) -> str:
    return re.sub(r'<script type="application/ld\+json">.*?</script>', "", html, flags=re.S)


def _without_post_classes(html: str) -> str:
    return re.sub(r"\bpost--\d+\b", "", html)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "variant",
    [_strip_classes_but_post_id, _without_jsonld, _without_post_classes],
    ids=["only-post--ID-classes", "no-json-ld", "no-post--ID-class"],
)
def test_built_page_variants_give_the_same_posts(version: str, variant: Any) -> None:
    """Customised themes (classes renamed) and missing JSON-LD fall back on other evidence."""
    path = shared(f"built/{version}/topic_t12_A.html")
    expected = expected_of(path)
    html = variant(path.read_text(encoding="utf-8"))
    page = parse_topic_page(html, "variant", now=captured_now(expected))
    assert_posts_match(page, expected)
    assert page.topic_id == 12 and page.page == 1 and page.pages == 2


# --------------------------------------------------------------------------------------
# Real (anonymised) pages.


@pytest.mark.parametrize(
    "name", ["topic_t8320_page1_viewsource.html", "topic_t8320_DOM_after_js.html"]
)
def test_real_awesomebb_topic_matches_expected(name: str) -> None:
    path = shared(f"rendered/awesomebb/{name}")
    expected = expected_of(path)
    page = parse_topic_page(path.read_bytes(), name, now=captured_now(expected))
    assert_page_facts(page, expected)
    assert_posts_match(page, expected)
    assert page.title == "Notification inutile"
    mention = page.posts[1]
    assert mention.text.startswith("@eulalie ursignac pour te faire croire")


def test_real_posting_preview_is_not_a_topic_page() -> None:
    """Decision: a posting form (even with a preview and a topic review) raises."""
    path = shared("rendered/awesomebb/post_reply_preview_t8320_viewsource.html")
    with pytest.raises(UnknownPageError) as info:
        parse_topic_page(path.read_bytes(), "preview.html", now=datetime(2026, 7, 18, tzinfo=PARIS))
    assert info.value.source == "preview.html"
    assert "posting form" in info.value.reason


def test_real_posting_preview_forms_and_userdata() -> None:
    path = shared("rendered/awesomebb/post_reply_preview_t8320_viewsource.html")
    expected = expected_of(path)["page"]
    html = path.read_bytes()
    form = parse_posting_form(html)
    assert form is not None
    assert form.mode == expected["form"]["mode"]
    assert form.topic_id == expected["form"]["t"]
    assert form.last_post_id == expected["form"]["lt"]
    assert list(form.auth) == expected["form"]["auth"]
    assert form.message == expected["form"]["preview_text"]
    assert [d.select_name for d in form.dice] == [expected["form"]["dice_select"]]
    assert form.dice[0].count_name == expected["form"]["dice_count"]
    assert ("2", "PILE OU FACE") in form.dice[0].options
    assert all(value != "" for value, _label in form.dice[0].options)
    assert ("post", "Envoyer") in form.form.buttons
    reply = find_reply_form(html)
    assert reply is not None and reply.fields["mode"] == "reply"
    assert [v for k, v in reply.items if k == "auth[]"] == expected["form"]["auth"]
    userdata = parse_userdata(decode_html(html))
    assert userdata["username"] == expected["viewer_username"]
    assert userdata["user_id"] == expected["viewer_user_id"]
    assert userdata["user_level"] == expected["user_level"]
    assert userdata["tpl_used"] == expected["tpl_used"]
    assert userdata["session_logged_in"] == 1
    assert str(userdata["page_logout"]).startswith("/login?logout=1&tid=")
    assert 'alt="Gaspard Brumebois"' in str(userdata["avatar"])  # JS escapes undone
    assert find_flood_error(html) is None


def test_real_prosilver_index_is_not_a_topic_page() -> None:
    path = shared("rendered/phpbb3/index_jxr-new_foroactivo_saved.html")
    expected = expected_of(path)["page"]
    with pytest.raises(UnknownPageError) as info:
        parse_topic_page(path.read_bytes(), path.name, now=datetime(2026, 1, 1, tzinfo=PARIS))
    assert info.value.source == path.name
    userdata = parse_userdata(path.read_text(encoding="utf-8"))
    assert userdata["username"] == expected["viewer_username"]
    assert userdata["user_id"] == expected["viewer_user_id"]
    assert userdata["user_level"] == expected["user_level"]
    assert userdata["tpl_used"] == expected["tpl_used"]


def test_non_forumactif_page_raises_naming_the_source() -> None:
    with pytest.raises(UnknownPageError) as info:
        parse_topic_page(
            "<html><body><p>Bonjour</p></body></html>", "x.html", now=datetime.now(PARIS)
        )
    assert info.value.source == "x.html"


# --------------------------------------------------------------------------------------
# Hand-written pages.


def test_windows_1252_board() -> None:
    raw = (OWN / "windows1252_topic_prosilver.html").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    now = datetime(2025, 3, 4, 15, 0, tzinfo=PARIS)
    page = parse_topic_page(raw, "cp1252.html", now=now)
    assert page.title == "Duel d’entraînement : « Prêts ? »"
    assert page.version == "prosilver" and page.topic_id == 44
    assert page.logged_in_as is None  # guest viewer
    first, dice, guest = page.posts
    assert first.author == "Aurélien Pâquerette" and first.author_id == 3
    assert first.text.splitlines()[0] == "“Prêt ?” lança-t-il, l’œil brillant."
    assert first.bold == ("Sortilège de Feu",)
    assert first.posted_at == datetime(2025, 3, 3, 23, 58, tzinfo=PARIS)
    assert first.edited is not None and first.edited.count == 2
    assert first.edited.at == datetime(2025, 3, 4, 0, 10, tzinfo=PARIS)
    assert "Toujours prêt" not in first.text
    assert dice.is_dice_post and dice.dice_roller == "Aurélien Pâquerette"
    assert [(d.name, d.values) for d in dice.dice] == [("Dé du Duel", (3, 6))]  # "Lancer de dés"
    assert first.dice == dice.dice
    assert guest.author == "Invité" and guest.author_id is None
    assert guest.posted_at == datetime(2025, 3, 4, 9, 15, tzinfo=PARIS)
    assert guest.text == "Joli coup… mais c’était « facile »."
    # The HTTP header wins over a missing/incorrect meta.
    same = parse_topic_page(raw.replace(b"windows-1252", b"utf-8"), now=now, encoding="cp1252")
    assert same.posts[2].text == guest.text


def test_customised_theme_page_two() -> None:
    """Only post--ID, id="ID" and JSON-LD survive; roller of the first dice is on page 1."""
    raw = (OWN / "custom_theme_topic_page2.html").read_bytes()
    page = parse_topic_page(raw, "custom.html", now=datetime(2025, 3, 4, 15, 0, tzinfo=PARIS))
    assert (page.topic_id, page.page, page.pages, page.forum_id) == (9, 2, 3, 7)
    assert page.version == "modernbb" and page.logged_in_as == "Ambroise Montfaucon"
    assert page.reply_form is None
    by_id = {p.post_id: p for p in page.posts}
    assert list(by_id) == [710, 711, 712, 713, 714]

    orphan = by_id[710]
    assert orphan.is_dice_post and orphan.dice_roller == "Séraphine d'Aubépine"
    assert [(d.name, d.values, d.faces) for d in orphan.dice] == [
        ("Dé du Duel", (4,), ("4",)),
        ("Pile ou face", (), ("Pile",)),
    ]
    guest = by_id[711]
    assert (guest.author, guest.author_id) == ("Invité", None)
    assert guest.text == "Bravo @Séraphine d'Aubépine !"

    duel = by_id[712]
    assert (duel.author, duel.author_id) == ("Théodric Vermillon", 15)
    assert duel.bold == ("Charme du Bouclier",)  # not the quoted spell, not the sidebar bold
    assert [(q.author, q.post_id) for q in duel.quotes] == [("Éloïse Brumerive", 705)]
    assert "Pari : [1]" not in plain(duel.text)  # code box
    assert "T. V." not in duel.text  # signature found by id="sig712"
    assert duel.line_count == 3
    assert [(d.name, d.values) for d in duel.dice] == [("Dé du Duel", (2,))]
    assert duel.posted_at == datetime(2025, 3, 3, 10, 0, tzinfo=PARIS)

    fake = by_id[714]
    assert not fake.is_dice_post and fake.dice == ()
    assert fake.text == "J'ajoute mon propre résultat :\nSortilège de Foudre"


def test_game_master_is_configurable() -> None:
    raw = (OWN / "custom_theme_topic_page2.html").read_bytes()
    now = datetime(2025, 3, 4, 15, 0, tzinfo=PARIS)
    page = parse_topic_page(raw, now=now, gm_names=("Arbitre",), gm_ids=(2,))
    assert page.posts[0].is_dice_post  # found by account id
    nobody = parse_topic_page(raw, now=now, gm_names=("Arbitre",))
    assert not any(p.is_dice_post or p.dice for p in nobody.posts)
    only_duel = parse_topic_page(raw, now=now, dice_names=("Dé du Duel",))
    assert [d.name for d in only_duel.posts[0].dice] == ["Dé du Duel"]


# --------------------------------------------------------------------------------------
# Forms, encoding, performance.


def test_login_pm_and_error_helpers() -> None:
    login = parse_login_form(
        '<form action="/login" method="post"><input type="text" name="username" />'
        '<input type="password" name="password" /><input type="checkbox" name="autologin" '
        'checked="checked" /><input type="hidden" name="redirect" value="/t12-" />'
        '<input type="submit" name="login" value="Connexion" /></form>'
    )
    assert login is not None
    assert (login.username_field, login.password_field) == ("username", "password")
    assert login.form.action == "/login" and login.form.method == "post"
    assert login.form.first("redirect") == "/t12-" and login.form.first("autologin") == "on"
    assert login.form.buttons == (("login", "Connexion"),)
    pm = parse_pm_form(
        '<form action="/privmsg" method="post"><input name="username[]" value="" />'
        '<input name="subject" /><textarea name="message"></textarea>'
        '<input type="hidden" name="mode" value="post" /><input type="hidden" name="folder" '
        'value="inbox" /><input type="submit" name="post" value="Envoyer" /></form>'
    )
    assert pm is not None and pm.first("folder") == "inbox" and pm.first("mode") == "post"
    flood = "<html><body><p>Flood control: you cannot make another post so soon.</p></body></html>"
    assert find_flood_error(flood) == "Flood control: you cannot make another post so soon."
    assert find_new_post_warning("<p>A new message has been posted in this topic.</p>")
    assert find_flood_error("<p>Votre message a été enregistré avec succès.</p>") is None


@pytest.mark.parametrize(
    ("data", "declared", "expected"),
    [
        ("déjà".encode(), None, "déjà"),
        (
            '<meta charset="windows-1252">“é”'.encode("cp1252"),
            None,
            '<meta charset="windows-1252">“é”',
        ),
        ("“é”".encode("cp1252"), None, "“é”"),  # undeclared, not UTF-8
        ("’".encode("cp1252"), "ISO-8859-1", "’"),  # latin-1 read as windows-1252
        ("plain", None, "plain"),
    ],
)
def test_decode_html(data: bytes | str, declared: str | None, expected: str) -> None:
    assert decode_html(data, declared) == expected


def test_large_page_is_parsed_in_linear_time() -> None:
    path = shared("built/phpbb3/topic_t12_A.html")
    html = path.read_text(encoding="utf-8")
    start, end = html.index('<div id="p301"'), html.index('<div id="p341"')
    block = html[start:end]
    copies = "".join(
        re.sub(r"\b(3\d\d)\b", lambda m, n=n: str(int(m.group(1)) + 1000 * n), block)
        for n in range(1, 21)
    )
    big = _without_jsonld(html[:start] + copies + html[start:])
    began = time.perf_counter()
    page = parse_topic_page(big, now=datetime(2025, 3, 4, 15, 0, tzinfo=PARIS))
    elapsed = time.perf_counter() - began
    assert len(page.posts) == 15 + 20 * 14
    assert elapsed < 5.0
