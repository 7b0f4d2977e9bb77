"""parsers.phpbb_forms on the real phpBB 3.3.15 pages (fixtures/html/phpbb)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers.errors import ParseError
from parsers.phpbb_forms import (
    classify_notice,
    error_messages,
    is_login_box,
    logged_in_user,
    meta_refresh_url,
    normalize_text,
    parse_form,
    parse_pm_folder,
    parse_topic_list,
    sent_pm_id,
)
from parsers.pm_text import parse_pm_message_text

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"


def page(name: str) -> bytes:
    return (FIX / f"{name}.html").read_bytes()


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("login_failure_wrong_password", "wrong_credentials"),
        ("login_failure_unknown_user", "wrong_credentials"),
        ("login_failure_captcha_required", "captcha"),
        ("login_failure_form_invalid", "form_invalid"),
        ("login_failure_too_fast", "form_invalid"),
        ("posting_flood_error_fr", "flood"),
        ("posting_flood_error_en", "flood"),
        ("pm_flood_error", "flood"),
        ("posting_form_invalid_double_submit", "form_invalid"),
        ("posting_form_invalid_stale_token", "form_invalid"),
        ("posting_post_review_new_post_en", "post_review"),
        ("posting_reply_queued_for_approval", "queued"),
        ("pm_sent_confirmation", "pm_sent"),
        ("pm_reply_sent_confirmation", "pm_sent"),
        ("posting_reply_as_guest_login_required", "login_required"),
        ("pm_inbox_as_guest_login_required", "login_required"),
        ("viewtopic_topic_does_not_exist_fr", "not_found"),
        ("viewforum_forum_does_not_exist_fr", "not_found"),
        ("pm_compose_not_allowed_new_member", "permission_denied"),
        ("posting_reply_form", "none"),
        ("posting_edit_form", "none"),
        ("viewtopic_t2_page1_fr", "none"),
    ],
)
def test_classify_notice_on_real_pages(name: str, kind: str) -> None:
    assert classify_notice(page(name)).kind == kind


def test_flood_error_message_is_the_boards_text() -> None:
    notice = classify_notice(page("posting_flood_error_fr"))
    assert (
        notice.message == "Vous ne pouvez pas poster un nouveau message, si tôt après le dernier."
    )


def test_player_text_quoting_a_board_error_is_not_a_notice() -> None:
    # A topic page whose post body contains the flood sentence stays a plain page.
    html = page("viewtopic_t2_page3_fr").replace(
        b"Plus rien ne br\xc3\xbble.",
        "Au moins un nouveau message a été ajouté — Vous ne pouvez pas poster".encode(),
    )
    assert classify_notice(html).kind == "none"


def test_login_state_from_the_header() -> None:
    assert logged_in_user(page("index_logged_in_fr")) == "Aurora Vexley"
    assert logged_in_user(page("viewtopic_t2_page3_fr")) == "Hibou"
    assert logged_in_user(page("viewtopic_t2_page1_guest_fr")) is None
    assert logged_in_user(page("index_guest_fr")) is None
    assert is_login_box(page("posting_reply_as_guest_login_required"))
    assert not is_login_box(page("viewtopic_t2_page1_guest_fr"))
    assert not is_login_box(page("posting_reply_form"))


def test_login_form_keeps_both_redirects_and_the_submit_label() -> None:
    form = parse_form(page("login_page"), "login")
    assert form is not None
    assert form.action == "./ucp.php?mode=login"
    assert [v for k, v in form.fields if k == "redirect"] == ["./ucp.php?mode=login", "index.php"]
    assert form.value("redirect") == "index.php"
    assert form.value("form_token") == "a8909d8d664f8947d18699674811117f5a2525f2"
    assert form.submit_value("login") == "Connexion"
    assert not form.has_captcha
    captcha = parse_form(page("login_failure_captcha_required"), "login")
    assert captcha is not None and captcha.has_captcha


def test_reply_form_payload_is_what_a_browser_sends() -> None:
    form = parse_form(page("posting_reply_form"), "postform")
    assert form is not None
    body = form.payload({"message": "Salut"}, "post")
    fields = dict(body)
    # the real successful POST (posting_reply_submit_302.headers.txt) sent exactly these names
    assert set(fields) == {
        "icon",
        "subject",
        "addbbcode20",
        "topic_cur_post_id",
        "attach_sig",
        "show_panel",
        "creation_time",
        "form_token",
        "filecomment",
        "message",
        "post",
    }
    assert fields["post"] == "Envoyer" and fields["message"] == "Salut"
    with pytest.raises(ParseError):
        form.payload({}, "no_such_button")


def test_pm_forms_carry_the_recipient_and_sid_action() -> None:
    form = parse_form(page("pm_compose_form_prefilled_u"), "postform")
    assert form is not None
    assert form.value("address_list[u][62]") == "to"
    assert form.action.endswith("action=post&sid=9e990781b3bee6bdc7c5249ea43d61aa")
    added = parse_form(page("pm_compose_recipient_added"), "postform")
    assert added is not None and added.value("address_list[u][59]") == "to"


def test_topic_list_of_real_viewforum_pages() -> None:
    rows = parse_topic_list(page("viewforum_f3_logged_in_fr"))
    assert [(r.topic_id, r.title, r.last_post_id, r.replies) for r in rows] == [
        (4, "Duel n°2 : Maelis Dunbar contre Odric Fenwick", 34, 2),
        (2, "Duel n°1 : Aurora Vexley contre Cassius Thorne", 27, 25),
    ]
    # sub-forum rows are not topics; guest pages carry sid in links
    assert [r.topic_id for r in parse_topic_list(page("viewforum_f2_with_subforum_fr"))] == [5, 1]
    assert [r.last_post_id for r in parse_topic_list(page("viewforum_f3_guest_fr"))] == [34, 27]
    assert parse_topic_list(page("viewforum_f3_logged_in_en")) == rows
    with pytest.raises(ParseError):
        parse_topic_list(page("viewforum_forum_does_not_exist_fr"))


def test_topic_list_and_header_user_read_the_same_from_text_and_bytes() -> None:
    """Issue 12: the topic list and the header's user are read from an lxml tree (no
    BeautifulSoup tree per poll); text, bytes and a page opening with an XML declaration
    (which lxml refuses in a ``str``) give the same rows."""
    raw = page("viewforum_f3_logged_in_fr")
    text = raw.decode("utf-8")
    rows = parse_topic_list(raw)
    assert parse_topic_list(text) == rows
    assert parse_topic_list('<?xml version="1.0" encoding="UTF-8"?>\n' + text) == rows
    assert parse_topic_list("") == ()
    assert logged_in_user(text) == logged_in_user(raw) is not None
    assert logged_in_user(page("viewforum_f3_guest_fr").decode("utf-8")) is None


def test_pm_folders_and_message() -> None:
    (row,) = parse_pm_folder(page("pm_outbox_sender"))
    assert (row.msg_id, row.subject, row.other_user) == (
        1,
        "Bravo pour le phénix",
        "Cassius Thorne",
    )
    assert parse_pm_folder(page("pm_sentbox")) == ()
    text = parse_pm_message_text(page("pm_view_message"))
    assert text == (
        "Salut Cassius,\nton Souffle du phénix m'a vraiment surprise.\nRevanche au duel n°3 ?"
    )
    assert sent_pm_id(page("pm_sent_confirmation")) == 1
    assert meta_refresh_url(page("posting_reply_queued_for_approval")) == (
        "http://127.0.0.1:8080/viewtopic.php?t=3"
    )


def test_error_boxes_and_normalization() -> None:
    assert error_messages(page("login_failure_form_invalid")) == (
        "Le formulaire envoyé n’est pas valide. Essayez à nouveau.",
    )
    assert error_messages(page("posting_reply_form")) == ()
    assert normalize_text("a écrit\u00a0:  L’arbitre") == "a écrit : l'arbitre"
