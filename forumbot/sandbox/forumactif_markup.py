"""Forumactif-like markup shared by every page of the Forumactif sandbox: escaping, slugs and
dates, the BBCode subset and the dice lines, the ``_userdata`` script and the page layout
of the two display versions (see :mod:`forumbot.sandbox.forumactif_pages`)."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

VERSIONS = ("prosilver", "awesomebb")

_DAYS = ("Lun", "Mar", "Mer", "Jeu", "Ven", "Sam", "Dim")
_MONTHS = ("Jan", "Fév", "Mar", "Avr", "Mai", "Juin", "Juil", "Aoû", "Sep", "Oct", "Nov", "Déc")


def esc(text: str) -> str:
    """Escape text for HTML content and double-quoted attributes."""
    return html.escape(text, quote=True)


def slug(text: str) -> str:
    """URL slug of a title, as Forumactif builds them (``duel-aurora-contre-cassius``)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-") or "sujet"


def local(epoch_s: float, zone: ZoneInfo) -> datetime:
    """Board-local aware datetime of an epoch time (seconds)."""
    return datetime.fromtimestamp(epoch_s, UTC).astimezone(zone)


def format_date(epoch_s: float, zone: ZoneInfo) -> str:
    """French default date display: ``Lun 30 Déc 2024 - 9:05`` (hour not zero-padded)."""
    at = local(epoch_s, zone)
    return f"{_DAYS[at.weekday()]} {at.day} {_MONTHS[at.month - 1]} {at.year} - {at.hour}:{at:%M}"


def iso(epoch_s: float, zone: ZoneInfo) -> str:
    """JSON-LD date: ISO 8601 with the board's offset, whole seconds."""
    return local(int(epoch_s), zone).isoformat()


# ---------------------------------------------------------------------------- BBCode

_SIMPLE = {"b": "strong", "i": "em", "u": "u"}
_TAG_RE = re.compile(
    r"\[(/?)(b|i|u|quote|url|size|color)(?:=(&quot;[^\]]*?&quot;|[^\]]*))?\]", re.I
)


def _closer(name: str) -> str:
    if name == "quote":
        return "</div></blockquote>"
    if name == "url":
        return "</a>"
    if name == "size":
        return "</span>"
    if name == "color":
        return "</font>"
    return f"</{_SIMPLE[name]}>"


def render_message(source: str) -> str:
    """BBCode -> Forumactif HTML: ``[b]`` -> ``<strong>``, ``[i]``, ``[u]``, ``[size=N]`` (pixels,
    1 to 29) -> ``<span style="font-size: Npx; line-height: normal">``, ``[color=X]`` ->
    ``<font color="X">``,
    ``[quote=Name]`` -> ``<blockquote><div><cite>Name a écrit:</cite>…</div></blockquote>``
    (README A4), ``[url]`` (http/https only), newlines -> ``<br />``. Everything else is
    escaped; unbalanced tags stay literal."""
    text = esc(source.replace("\r\n", "\n"))
    out: list[str] = []
    stack: list[str] = []
    pos = 0
    for match in _TAG_RE.finditer(text):
        out.append(text[pos : match.start()])
        pos = match.end()
        closing, name, arg = match.group(1), match.group(2).lower(), match.group(3)
        if closing:
            if stack and stack[-1] == name:
                stack.pop()
                out.append(_closer(name))
            else:
                out.append(match.group(0))
            continue
        if name == "quote":
            who = (arg or "").replace("&quot;", "").strip()
            cite = f"<cite>{who} a écrit:</cite>" if who else ""
            out.append(f"<blockquote><div>{cite}")
        elif name == "url":
            target = (arg or "").strip()
            if not re.match(r"^https?://[^\s<>\"]+$", target):
                out.append(match.group(0))
                continue
            out.append(f'<a href="{target}" target="_blank" rel="nofollow">')
        elif name == "size":  # pixels (REPORT.md: "font-size: 16px; line-height: normal")
            if not (arg or "").isdigit() or not 1 <= int(arg or 0) <= 29:
                out.append(match.group(0))
                continue
            out.append(f'<span style="font-size: {int(arg or 0)}px; line-height: normal">')
        elif name == "color":  # REPORT.md: <font color=…>
            if not re.fullmatch(r"#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?|[A-Za-z]{3,20}", arg or ""):
                out.append(match.group(0))
                continue
            out.append(f'<font color="{arg}">')
        else:
            out.append(f"<{_SIMPLE[name]}>")
        stack.append(name)
    out.append(text[pos:])
    rendered = "".join(out)
    for name in reversed(stack):  # close what was left open, as the board does
        rendered += _closer(name)
    return rendered.replace("\n", "<br />")


def plain_text(source: str) -> str:
    """JSON-LD ``text`` of a post: the BBCode source without tags, blank lines collapsed."""
    text = re.sub(r"\[/?(?:b|i|u|quote|url|size|color)(?:=[^\]]*)?\]", "", source, flags=re.I)
    return re.sub(r"\n\s*\n+", "\n", text).strip()


def dice_html(roller: str, rolls: Sequence[tuple[str, Sequence[int]]]) -> str:
    """The Game Master's dice result (README A5): header, then one line per die type with
    one face image per roll, value in ``alt``."""
    parts = [f"Le membre '{esc(roller)}' a effectué l'action suivante : Lancer des dés"]
    for name, values in rolls:
        images = "".join(
            f'<img src="/dice/{slug(name)}-{value}.png" alt="{value}" border="0" />'
            for value in values
        )
        parts.append(f"<br /><br />'{esc(name)}' : {images}")
    return "".join(parts)


def dice_text(roller: str, rolls: Sequence[tuple[str, Sequence[int]]]) -> str:
    """JSON-LD text of a dice post (the face images are lost, as on the real page)."""
    lines = [f"Le membre '{roller}' a effectué l'action suivante : Lancer des dés"]
    lines += [f"'{name}' : " for name, _values in rolls]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class Viewer:
    """Who looks at a page; ``user_id`` -1 and ``name`` None for a guest."""

    user_id: int
    name: str | None
    level: int = 0
    posts: int = 0
    unread_pms: int = 0
    logout: str = ""


def _js(value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def userdata_script(viewer: Viewer, version: str) -> str:
    """``{HOSTING_JS}``: the ``_userdata`` / ``_lang`` / ``_board`` assignments of every page."""
    logged = viewer.name is not None
    pairs: list[tuple[str, str | int]] = [
        ("session_logged_in", 1 if logged else 0),
        ("username", viewer.name if logged and viewer.name else "Anonymous"),
        ("user_id", viewer.user_id),
        ("tpl_used", version),
        ("user_level", viewer.level),
        ("user_lang", "fr"),
        ("user_posts", viewer.posts),
        ("user_nb_privmsg", viewer.unread_pms),
    ]
    lines = [
        'if(typeof(_userdata) == "undefined")',
        "\tvar _userdata = new Object();",
        *(f'_userdata["{key}"] = {_js(value)};' for key, value in pairs),
        'if(typeof(_lang) == "undefined")',
        "\tvar _lang = new Object();",
        '_lang["Login"] = "Connexion";',
        '_lang["Logout"] = "Déconnexion";',
        'if(typeof(_board) == "undefined")',
        "\tvar _board = new Object();",
        '_board["Forumotion"] = "Forumactif";',
        f'_board["tpl_version"] = "{version}";',
    ]
    body = "\n".join(lines)
    return f'<script type="text/javascript">\n//<![CDATA[\n{body}\n//]]>\n</script>'


def _awesome_first_block(viewer: Viewer) -> str:
    """AwesomeBB's extra first block (real page): pages and ``page_logout``."""
    lines = [
        "var _userdata = _userdata || {};",
        '_userdata["tpl_used"] = "awesomebb";',
        f'_userdata["session_logged_in"] = {1 if viewer.name is not None else 0};',
        '_userdata["page_login"] = "/login";',
        f'_userdata["page_logout"] = {_js(viewer.logout)};',
        '_userdata["page_home"] = "/";',
    ]
    return '<script type="text/javascript">\n' + "\n".join(lines) + "\n</script>"


def _navbar(viewer: Viewer) -> str:
    if viewer.name is None:
        return (
            '<a href="/login" rel="nofollow" class="mainmenu">Connexion</a> '
            '<a href="/register" class="mainmenu">S\'enregistrer</a>'
        )
    return (
        f'<a href="/privmsg?folder=inbox" class="mainmenu">Messages privés '
        f"({viewer.unread_pms})</a> "
        f'<a href="{esc(viewer.logout)}" class="mainmenu">Déconnexion [ {esc(viewer.name)} ]</a>'
    )


def layout(
    title: str,
    body: str,
    viewer: Viewer,
    version: str,
    *,
    head_extra: str = "",
    canonical: str | None = None,
    refresh: str | None = None,
) -> str:
    """A whole page of ``version`` around ``body``."""
    head = [
        f"<title>{esc(title)}</title>",
        '<meta http-equiv="content-type" content="text/html; charset=utf-8" />',
    ]
    if canonical:
        head.append(f'<link rel="canonical" href="{esc(canonical)}" />')
    if refresh:
        head.append(f'<meta http-equiv="refresh" content="3;url={esc(refresh)}" />')
    head.append(head_extra)
    if version == "awesomebb":
        head.insert(0, _awesome_first_block(viewer))
        head.append(userdata_script(viewer, version))
        return (
            '<!DOCTYPE html>\n<html lang="fr">\n<head>\n'
            + "\n".join(head)
            + '\n</head>\n<body id="top"><div id="dimmer"></div>\n'
            + '<header class="main-header"><nav class="main-nav">'
            + _navbar(viewer)
            + "</nav></header>\n"
            + f'<main id="main-content">\n{body}\n</main>\n</body>\n</html>\n'
        )
    head.append(userdata_script(viewer, version))
    return (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="fr" xml:lang="fr">\n<head>\n'
        + "\n".join(head)
        + '\n</head>\n<body id="phpbb">\n<div id="wrap">\n<div id="page-header">'
        + '<div class="navbar"><ul class="linklist navlinks"><li>'
        + _navbar(viewer)
        + "</li></ul></div></div>\n"
        + f'<div id="page-body">\n{body}\n</div>\n</div>\n</body>\n</html>\n'
    )


def message_page(title: str, text: str, version: str) -> str:
    """``message_body``: a title and a text (confirmations, errors)."""
    if version == "awesomebb":
        return (
            f'<div class="block"><div class="block-header">{esc(title)}</div>'
            f'<div class="block-content">{text}</div></div>'
        )
    return (
        '<div class="panel"><div class="inner"><span class="corners-top"><span></span></span>'
        f'<h1 class="page-title">{esc(title)}</h1><p>{text}</p>'
        '<span class="corners-bottom"><span></span></span></div></div>'
    )
