"""Forumactif forms: quick reply, full reply form (dice), login, private message,
and the error texts a posting client must recognise.

Field names (REPORT.md section 6, real AwesomeBB pages): quick reply hidden
``attach_sig``, ``mode=reply``, ``tid`` (32 hex), ``t`` (topic), ``lt`` (last post
id), ``notify``, ``auth[]`` twice; the full form (``/post?t=T&mode=reply``) adds the
dice selects ``post_dice_N`` / ``nb_rolls_N``. Login: ``POST /login`` with ``username``,
``password``, ``autologin``, ``login``. Private message: ``POST /privmsg`` with
``username[]``, ``subject``, ``message``, ``mode=post``, ``folder=inbox``, ``post``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from lxml import html as lxml_html

from parsers.forumactif.encoding import decode_html
from parsers.forumactif.htmltext import Element, squash, text_content, text_excluding
from parsers.model import ReplyForm

#: A page: its HTML (text or bytes) or an already parsed lxml tree.
Page: TypeAlias = str | bytes | Element


@dataclass(frozen=True)
class FormData:
    """A form as a browser would submit it, without clicking any button.

    ``items`` are the successful controls (hidden/text inputs, checked boxes,
    selected options, textareas) in form order, repeated names kept; ``buttons``
    are the submit controls (name, value); ``selects`` maps each select name to its
    options ``(value, label)``.
    """

    action: str
    method: str
    items: tuple[tuple[str, str], ...]
    buttons: tuple[tuple[str, str], ...]
    selects: dict[str, tuple[tuple[str, str], ...]]

    def first(self, name: str) -> str | None:
        """First value submitted under ``name``, or None."""
        return next((value for key, value in self.items if key == name), None)

    def all(self, name: str) -> tuple[str, ...]:
        """Every value submitted under ``name`` (e.g. the two ``auth[]``)."""
        return tuple(value for key, value in self.items if key == name)


@dataclass(frozen=True)
class DiceChoice:
    """One dice slot of the full reply form: select ``post_dice_N`` + count ``nb_rolls_N``."""

    select_name: str
    count_name: str | None
    options: tuple[tuple[str, str], ...]  # (dice id, dice name), the "-" option left out


@dataclass(frozen=True)
class PostingForm:
    """The full reply / new-topic form (``form[name=post]`` with a message textarea).

    ``auth`` are the ``auth[]`` tokens; ``topic_id`` is ``t``; ``last_post_id`` is ``lt``;
    ``message`` the textarea content (e.g. the previewed text).
    """

    form: FormData
    mode: str | None
    topic_id: int | None
    last_post_id: int | None
    auth: tuple[str, ...]
    message: str
    dice: tuple[DiceChoice, ...]


@dataclass(frozen=True)
class LoginForm:
    """The login form: where to post and the hidden fields to send with the credentials."""

    form: FormData
    username_field: str
    password_field: str


def _tree(page: Page) -> Element:
    if not isinstance(page, str | bytes):
        return page  # an lxml tree (``lxml.html`` or plain ``lxml.etree``)
    return lxml_html.document_fromstring(decode_html(page))


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.strip().isdigit() else None


def form_data(form: Element) -> FormData:
    """Read a ``<form>`` element (see :class:`FormData`)."""
    items: list[tuple[str, str]] = []
    buttons: list[tuple[str, str]] = []
    selects: dict[str, tuple[tuple[str, str], ...]] = {}
    for control in form.iter("input", "select", "textarea", "button"):
        name = control.get("name")
        if not name:
            continue
        tag = control.tag
        kind = (control.get("type") or ("submit" if tag == "button" else "text")).lower()
        if tag == "textarea":
            items.append((name, control.text or ""))
        elif tag == "select":
            options = tuple(
                (opt.get("value", squash(text_content(opt))), squash(text_content(opt)))
                for opt in control.iter("option")
            )
            selects[name] = options
            chosen = [
                opt.get("value", squash(text_content(opt)))
                for opt in control.iter("option")
                if opt.get("selected") is not None
            ]
            if not chosen and options:
                chosen = [options[0][0]]
            items.extend((name, value) for value in chosen[:1])
        elif kind in ("submit", "image", "button"):
            buttons.append((name, control.get("value", "")))
        elif kind in ("checkbox", "radio"):
            if control.get("checked") is not None:
                items.append((name, control.get("value", "on")))
        elif kind not in ("file", "reset"):
            items.append((name, control.get("value", "")))
    return FormData(
        action=form.get("action", ""),
        method=(form.get("method") or "get").lower(),
        items=tuple(items),
        buttons=tuple(buttons),
        selects=selects,
    )


def _is_post_form(form: Element) -> bool:
    action = (form.get("action") or "").split("?")[0]
    return action.endswith("/post")


def find_reply_form(page: Page) -> ReplyForm | None:
    """The reply form of a topic page (quick reply, else a full reply form), or None.

    ``ReplyForm.fields`` maps name -> first value; ``ReplyForm.items`` keeps every
    pair in order (both ``auth[]``). The message textarea is left out.
    """
    tree = _tree(page)
    candidates = [f for f in tree.iter("form") if _is_post_form(f)]
    candidates.sort(key=lambda f: 0 if f.get("id") == "quick_reply" else 1)
    for form in candidates:
        data = form_data(form)
        if data.first("mode") != "reply" and data.first("t") is None:
            continue
        items = tuple((k, v) for k, v in data.items if k != "message")
        fields: dict[str, str] = {}
        for key, value in items:
            fields.setdefault(key, value)
        return ReplyForm(action=data.action, fields=fields, items=items)
    return None


def parse_posting_form(page: Page) -> PostingForm | None:
    """The full posting form (reply, quote, new topic, edit) of a ``/post`` page, or None."""
    tree = _tree(page)
    for form in tree.iter("form"):
        if not _is_post_form(form) or not form.xpath(".//textarea[@name='message']"):
            continue
        data = form_data(form)
        dice: list[DiceChoice] = []
        for name, options in data.selects.items():
            match = re.fullmatch(r"post_dice_(\d+)", name)
            if match is None:
                continue
            count_name = f"nb_rolls_{match.group(1)}"
            dice.append(
                DiceChoice(
                    select_name=name,
                    count_name=count_name if data.first(count_name) is not None else None,
                    options=tuple((v, label) for v, label in options if v != ""),
                )
            )
        return PostingForm(
            form=data,
            mode=data.first("mode"),
            topic_id=_int(data.first("t")),
            last_post_id=_int(data.first("lt")),
            auth=data.all("auth[]"),
            message=data.first("message") or "",
            dice=tuple(dice),
        )
    return None


def parse_login_form(page: Page) -> LoginForm | None:
    """The form holding a password field and a user name field, or None."""
    tree = _tree(page)
    for form in tree.iter("form"):
        password = form.xpath(".//input[@type='password']/@name")
        username = form.xpath(".//input[@name='username']/@name")
        if password and username:
            return LoginForm(
                form=form_data(form),
                username_field=str(username[0]),
                password_field=str(password[0]),
            )
    return None


def parse_pm_form(page: Page) -> FormData | None:
    """The private-message compose form (``action`` ``/privmsg``, a message textarea)."""
    tree = _tree(page)
    for form in tree.iter("form"):
        action = (form.get("action") or "").split("?")[0]
        if action.endswith("/privmsg") and form.xpath(".//textarea[@name='message']"):
            return form_data(form)
    return None


#: Error texts of ``/post`` and ``/privmsg`` answers. English ones are real (CHALO,
#: REPORT.md section 6.3-6.4); the French ones are ASSUMED translations.
DEFAULT_FLOOD_PATTERNS: tuple[str, ...] = (
    r"flood control",
    r"cannot make another post so soon",
    r"vous ne pouvez pas (?:poster|envoyer|faire) (?:un autre|deux|de nouveau)[^.<]*"
    r"(?:si|aussi) (?:rapidement|vite|t[ôo]t)",
    r"contr[ôo]le (?:du|anti-?)\s*flood",
    r"anti-?flood",
)
DEFAULT_NEW_POST_PATTERNS: tuple[str, ...] = (
    r"a new message has been posted",
    r"un nouveau message a [ée]t[ée] post[ée]",
)


def _page_text(page: Page) -> str:
    return squash(text_excluding(_tree(page), lambda el: False))


def _find(page: Page, patterns: Sequence[str]) -> str | None:
    text = _page_text(page)
    for pattern in patterns:
        match = re.search(r"[^.!<]*(?:" + pattern + r")[^.!<]*[.!]?", text, re.IGNORECASE)
        if match:
            return squash(match.group(0))
    return None


def find_flood_error(page: Page, patterns: Sequence[str] = DEFAULT_FLOOD_PATTERNS) -> str | None:
    """The flood-control message of a posting answer (the sentence), or None."""
    return _find(page, patterns)


def find_new_post_warning(
    page: Page, patterns: Sequence[str] = DEFAULT_NEW_POST_PATTERNS
) -> str | None:
    """The "a new message has been posted meanwhile" warning, or None."""
    return _find(page, patterns)
