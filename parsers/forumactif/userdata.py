"""The ``_userdata`` / ``_board`` / ``_lang`` script data Forumactif prints in every page.

Forumactif core prints, in ``{HOSTING_JS}``, inline assignments such as::

    _userdata["session_logged_in"] = 1;
    _userdata["username"] = "Ambroise Montfaucon";
    _userdata["tpl_used"] = "prosilver";

(REPORT.md section 1: ``tpl_used`` is ``subsilver`` = phpBB2, ``prosilver`` = phpBB3,
``punbb``, ``invision``, ``modernbb``, ``awesomebb``). AwesomeBB pages carry two
blocks; later assignments win, as in the browser.
"""

from __future__ import annotations

import json
import re

JsValue = str | int | float

_VALUE_RE = (
    r"""\[\s*(?P<q>["'])(?P<key>[^"']+)(?P=q)\s*\]\s*=\s*"""
    r"""(?:"(?P<dq>(?:[^"\\\n]|\\.)*)"|'(?P<sq>(?:[^'\\\n]|\\.)*)'|(?P<num>-?\d+(?:\.\d+)?))"""
)
# One pattern per object, each starting with its literal name: the regex engine then scans
# for that literal (fast) instead of trying an alternation at every character of the page.
_ASSIGN_RES = {name: re.compile(name + _VALUE_RE) for name in ("_userdata", "_board", "_lang")}

#: tpl_used value -> display version name used in the docs.
VERSION_NAMES: dict[str, str] = {
    "subsilver": "phpBB2",
    "prosilver": "phpBB3",
    "punbb": "PunBB",
    "invision": "Invision",
    "modernbb": "ModernBB",
    "awesomebb": "AwesomeBB",
}


def _js_string(raw: str) -> str:
    try:
        value = json.loads('"' + raw.replace("\\'", "'") + '"')
    except ValueError:
        return raw.replace('\\"', '"').replace("\\/", "/")
    return str(value)


def _parse_object(html: str, name: str) -> dict[str, JsValue]:
    result: dict[str, JsValue] = {}
    for match in _ASSIGN_RES[name].finditer(html):
        before = html[match.start() - 1] if match.start() else ""
        if before.isalnum() or before in "_$":
            continue  # e.g. ``my_userdata[...]``
        key = match.group("key")
        if match.group("num") is not None:
            num = match.group("num")
            result[key] = float(num) if "." in num else int(num)
        elif match.group("dq") is not None:
            result[key] = _js_string(match.group("dq"))
        else:
            result[key] = _js_string(match.group("sq") or "")
    return result


def parse_userdata(html: str) -> dict[str, JsValue]:
    """All ``_userdata["key"] = value;`` assignments of the page, later ones winning.

    Returns:
        e.g. ``{"session_logged_in": 1, "username": "…", "user_id": 9,
        "tpl_used": "prosilver", "user_level": 0, "page_logout": "/login?logout=1&tid=…"}``.
        Numbers are ``int`` (or ``float``), strings are JS-unescaped. Empty when
        the page has no such script (not a Forumactif page).
    """
    return _parse_object(html, "_userdata")


def parse_board(html: str) -> dict[str, JsValue]:
    """``_board[...]`` assignments (``tpl_version``, ``Forumotion`` brand, ...)."""
    return _parse_object(html, "_board")


def parse_lang(html: str) -> dict[str, JsValue]:
    """``_lang[...]`` UI strings in the board language (``Login``, ``Logout``, ...)."""
    return _parse_object(html, "_lang")


def logged_in_username(userdata: dict[str, JsValue]) -> str | None:
    """The viewer's name when ``session_logged_in`` is 1, else None (guest)."""
    if str(userdata.get("session_logged_in", "0")) != "1":
        return None
    name = userdata.get("username")
    return str(name) if name not in (None, "") else None


def template_version(html: str, userdata: dict[str, JsValue] | None = None) -> str | None:
    """The display version (``tpl_used``), from ``_userdata`` then ``_board``, else None."""
    data = parse_userdata(html) if userdata is None else userdata
    value = data.get("tpl_used")
    if not value:
        value = parse_board(html).get("tpl_version")
    return str(value) if value else None
