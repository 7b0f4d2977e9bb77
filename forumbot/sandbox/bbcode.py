"""BBCode -> prosilver HTML for the sandbox board, and French board dates.

Supported (as phpBB 3.3 renders them, see ``fixtures/html/phpbb/viewtopic_t2_page*.html``):
``[b]`` -> ``<strong class="text-strong">``, ``[i]`` -> ``<em class="text-italics">``,
``[size=N]`` -> ``<span style="font-size:N%; line-height:116%;">``,
``[color=#RRGGBB]`` -> ``<span style="color:#RRGGBB">``,
``[url]…[/url]`` / ``[url=…]…[/url]`` (http/https only) -> ``<a href class="postlink">``,
``[quote="Name" post_id=N time=T user_id=U]…[/quote]`` / ``[quote=Name]`` / ``[quote]`` ->
``<blockquote cite=…><div><cite>…</cite>…</div></blockquote>``; newlines -> ``<br>``.
Everything else is escaped: player text is untrusted. Unclosed or stray tags stay literal text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

PARIS = ZoneInfo("Europe/Paris")
_DAYS_FR = ("lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim.")
_MONTHS_FR = (
    "janv.",
    "févr.",
    "mars",
    "avr.",
    "mai",
    "juin",
    "juil.",
    "août",
    "sept.",
    "oct.",
    "nov.",
    "déc.",
)


def format_date_fr(epoch_s: float) -> str:
    """Board date as phpBB's French pack shows it (``D j M Y H:i``, Europe/Paris),
    e.g. ``lun. 30 nov. 2026 12:43``."""
    local = datetime.fromtimestamp(epoch_s, UTC).astimezone(PARIS)
    day = _DAYS_FR[local.weekday()]
    month = _MONTHS_FR[local.month - 1]
    return f"{day} {local.day} {month} {local.year} {local:%H:%M}"


def iso_utc(epoch_s: float) -> str:
    """``<time datetime>`` value: ISO 8601 UTC with ``+00:00``, whole seconds."""
    return datetime.fromtimestamp(int(epoch_s), UTC).isoformat()


_TAG_RE = re.compile(
    r"\[(?P<close>/)?(?P<name>b|i|u|size|color|url|quote)"
    r"(?:=(?P<arg>\"[^\"\]]*\"|[^\]\s]*))?(?P<attrs>(?:\s+[a-z_]+=[^\s\]]+)*)\]",
    re.IGNORECASE,
)
_COLOR_RE = re.compile(r"#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?|[A-Za-z]{3,20}")
_ATTR_RE = re.compile(r"([a-z_]+)=([^\s\]]+)", re.IGNORECASE)


@dataclass
class _Node:
    name: str  # "" for the root
    arg: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    raw_open: str = ""
    children: list[_Node | str] = field(default_factory=list)


@dataclass(frozen=True)
class QuoteInfo:
    """What the renderer may know about a quoted post (all optional)."""

    user_id: int | None = None
    time_s: float | None = None


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _text_html(text: str) -> str:
    return _esc(text).replace("\n", "<br>\n")


def _parse(source: str) -> _Node:
    root = _Node("")
    stack = [root]
    pos = 0
    for match in _TAG_RE.finditer(source):
        if match.start() > pos:
            stack[-1].children.append(source[pos : match.start()])
        pos = match.end()
        name = match.group("name").lower()
        if match.group("close"):
            depth = next((i for i in range(len(stack) - 1, 0, -1) if stack[i].name == name), None)
            if depth is None:
                stack[-1].children.append(match.group(0))
                continue
            while len(stack) - 1 > depth:
                _close_unfinished(stack)
            stack.pop()
            continue
        arg = match.group("arg")
        if arg is not None and arg.startswith('"'):
            arg = arg[1:-1]
        attrs = {k.lower(): v for k, v in _ATTR_RE.findall(match.group("attrs") or "")}
        node = _Node(name, arg, attrs, match.group(0))
        stack[-1].children.append(node)
        stack.append(node)
    if pos < len(source):
        stack[-1].children.append(source[pos:])
    while len(stack) > 1:
        _close_unfinished(stack)
    return root


def _close_unfinished(stack: list[_Node]) -> None:
    """Pop an unclosed tag: its opening text becomes literal, its children move up."""
    node = stack.pop()
    parent = stack[-1]
    index = next(i for i, c in enumerate(parent.children) if c is node)
    parent.children[index : index + 1] = [node.raw_open, *node.children]


def _safe_url(url: str) -> str | None:
    url = url.strip()
    return url if re.match(r"^https?://[^\s\"<>]+$", url, re.IGNORECASE) else None


def _plain(node: _Node) -> str:
    return "".join(c if isinstance(c, str) else _plain(c) for c in node.children)


def render_bbcode(source: str, quote_info: Callable[[int], QuoteInfo] | None = None) -> str:
    """HTML of ``source`` (BBCode), prosilver markup, French labels.

    ``quote_info(post_id)`` supplies the quoted post's author id and time when the quote tag
    does not carry ``user_id`` / ``time``. A text without a quote renders the same whatever
    ``quote_info`` says: its HTML is remembered (:func:`_render_without_quotes`; every page
    view renders each post again).
    """
    text = source.replace("\r\n", "\n")
    if quote_info is None or "[quote" not in text.lower():
        return _render_without_quotes(text)
    return _render_children(_parse(text), quote_info)


@lru_cache(maxsize=8192)
def _render_without_quotes(text: str) -> str:
    """HTML of ``text`` rendered without ``quote_info`` (a pure function of the text)."""
    return _render_children(_parse(text), None)


def _render_children(node: _Node, quote_info: Callable[[int], QuoteInfo] | None) -> str:
    out: list[str] = []
    for child in node.children:
        out.append(_text_html(child) if isinstance(child, str) else _render(child, quote_info))
    return "".join(out)


def _render(node: _Node, quote_info: Callable[[int], QuoteInfo] | None) -> str:
    inner = _render_children(node, quote_info)
    if node.name == "b":
        return f'<strong class="text-strong">{inner}</strong>'
    if node.name == "i":
        return f'<em class="text-italics">{inner}</em>'
    if node.name == "u":
        return f'<span style="text-decoration:underline">{inner}</span>'
    if node.name == "size":
        if node.arg and node.arg.isdigit() and 1 <= int(node.arg) <= 200:
            return f'<span style="font-size:{int(node.arg)}%;line-height:116%">{inner}</span>'
        return _text_html(node.raw_open) + inner + _text_html(f"[/{node.name}]")
    if node.name == "color":
        if node.arg and _COLOR_RE.fullmatch(node.arg):
            return f'<span style="color:{node.arg}">{inner}</span>'
        return _text_html(node.raw_open) + inner + _text_html(f"[/{node.name}]")
    if node.name == "url":
        target = _safe_url(node.arg if node.arg else _plain(node))
        if target is None:
            return _text_html(node.raw_open) + inner + _text_html("[/url]")
        href = html.escape(target, quote=True)
        return f'<a href="{href}" class="postlink">{inner}</a>'
    return _render_quote(node, inner, quote_info)


def _render_quote(node: _Node, inner: str, quote_info: Callable[[int], QuoteInfo] | None) -> str:
    body = inner.removeprefix("<br>\n").removesuffix("<br>\n")
    if not node.arg:
        return f'<blockquote class="uncited"><div>{body}</div></blockquote>'
    name = _esc(node.arg)
    post_id = int(node.attrs["post_id"]) if node.attrs.get("post_id", "").isdigit() else None
    info = quote_info(post_id) if (quote_info is not None and post_id is not None) else QuoteInfo()
    user_id = int(node.attrs["user_id"]) if node.attrs.get("user_id", "").isdigit() else None
    user_id = user_id if user_id is not None else info.user_id
    time_s = float(node.attrs["time"]) if node.attrs.get("time", "").isdigit() else info.time_s
    who = (
        f'<a href="./memberlist.php?mode=viewprofile&amp;u={user_id}">{name}</a>'
        if user_id is not None
        else name
    )
    cite = f"{who} a écrit\u00a0:"
    attr = ""
    if post_id is not None:
        attr = f' cite="./viewtopic.php?p={post_id}#p{post_id}"'
        cite += (
            f' <a href="./viewtopic.php?p={post_id}#p{post_id}" aria-label="Voir la citation"'
            f' data-post-id="{post_id}" onclick="if(document.getElementById(hash.substr(1)))'
            'href=hash"><i class="icon fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>'
        )
    if time_s is not None:
        cite += f'<span class="responsive-hide">{format_date_fr(time_s)}</span>'
    return f"<blockquote{attr}><div><cite>{cite}</cite>\n{body}\n</div></blockquote>"
