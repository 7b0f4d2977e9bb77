"""Issue 23 (soak speed): a form parsed from its own markup (``parsers.phpbb_forms``) reads
the same fields as the whole page parsed, on every captured phpBB page and on odd markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from bs4.filter import SoupStrainer

from parsers.form_fragment import form_markup
from parsers.phpbb_forms import HtmlForm, _form_from_tag, parse_form

FIX = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "phpbb"
PAGES = sorted(FIX.glob("*.html"))
FORM_IDS = ("login", "postform", "qr_postform", "confirm", "viewprofile")


def whole_page(html: str | bytes, form_id: str) -> HtmlForm | None:
    """The former reader: the whole page through BeautifulSoup."""
    tag = BeautifulSoup(html, "lxml", parse_only=SoupStrainer("form", id=form_id)).find(
        "form", id=form_id
    )
    return None if tag is None else _form_from_tag(tag)


@pytest.mark.skipif(not PAGES, reason="no captured pages")
@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_captured_pages_read_the_same_forms(path: Path) -> None:
    data = path.read_bytes()
    for form_id in FORM_IDS:
        assert parse_form(data, form_id) == whole_page(data, form_id), form_id
        assert parse_form(data.decode("utf-8"), form_id) == whole_page(data, form_id), form_id


def page(body: str) -> str:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{body}</body></html>"


@pytest.mark.parametrize(
    "body",
    [
        "<form id='postform' action='./posting.php'><input name='a' value='é'>"
        "<textarea name='m'>&lt;/form&gt; texte</textarea><select name='s'><option>x</option>"
        "<option value='y' selected>y</option></select><input type='submit' name='post' "
        "value='Envoyer'></form>",
        "<!-- <form id='postform' action='faux'></form> --><form id=postform action=vrai>"
        "<input name=b value=1></form>",
        '<script>var f = \'<form id="postform" action="js">\';</script>'
        "<form id='postform' action='vrai'><input name='c'></form>",
        "<FORM ID='postform' ACTION='maj'><INPUT NAME='d' VALUE='2' CHECKED TYPE=checkbox>",
        "<form id='postform2' action='autre'><input name='e'></form>",
        "<form class='x' id = \"postform\" method='post'><input name='f' disabled></form>",
        "<table><tr><td><form id='postform' action='t'><input name='g'></td></tr></table>",
    ],
)
def test_odd_markup_reads_the_same_form(body: str) -> None:
    html = page(body)
    assert parse_form(html, "postform") == whole_page(html, "postform")
    assert parse_form(html.encode("utf-8"), "postform") == whole_page(html.encode(), "postform")


def test_a_form_in_an_unclosed_comment_is_not_cut_out() -> None:
    assert form_markup(page("<!-- <form id='login'>"), "login") is None
    assert form_markup(page("<form id='login'><input name='u'></form>"), "login") == (
        "<form id='login'><input name='u'></form>"
    )
