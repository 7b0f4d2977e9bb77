"""The public JSON contract of ``forumbot parse-page``, and the platform dispatcher.

JSON shape (one object per page; README, "JSON contract")::

    {"platform": "phpbb3" | "forumactif", "topic_id": int | null, "page": int, "pages": int,
     "logged_in_as": str | null,
     "posts": [{"post_id": int, "author": str, "author_id": int | null,
                "posted_at": "2026-11-30T11:43:09+00:00" | null,   # ISO 8601 with offset
                "edited": {"by": str, "count": int} | null,
                "text": str, "bold": [str],
                "quotes": [{"author": str|null, "post_id": int|null, "depth": int}],
                "line_count": int, "dice": [{"name": str, "values": [int | str]}],
                "action": {"spell": str|null, "bet": [int]|null, "kind": str|null,
                           "target": str|null, "move_to": str|null}}]}

``spell`` is the canonical spellbook name (null without a spellbook or when nothing matched);
``kind`` is ``cast`` / ``dodge`` / ``dodge_riposte`` or null (``cast`` also for a post naming a
spell without any dodge word: :func:`parsers.action.contract_kind`). ``quotes``: every quote of
the own content on both platforms, document order, ``depth`` 0 = top-level. ``values``: the
faces shown, numbers as ints and other faces (« Face ») as strings.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, cast

from parsers.action import SpellMatcher, contract_kind, parse_action, shared_matcher
from parsers.detect import detect_platform
from parsers.errors import ParseError, UnknownPageError
from parsers.model import DiceRoll, Post, TopicPage
from parsers.phpbb import parse_topic_page as parse_phpbb_topic_page

__all__ = ["page_to_json", "parse_page", "post_to_json"]

PlatformChoice = Literal["auto", "phpbb3", "forumactif"]
ForumactifParser = Callable[..., TopicPage]


def dice_values(roll: DiceRoll) -> list[int | str]:
    """The faces of ``roll`` for the contract: ints when numeric, else the face as shown."""
    if not roll.faces:
        return list(roll.values)
    return [int(face) if face.lstrip("-").isdigit() else face for face in roll.faces]


def post_to_json(post: Post, matcher: SpellMatcher) -> dict[str, object]:
    """One post of the contract (see module doc); the action is parsed with ``matcher``."""
    action = parse_action(post, matcher)
    return {
        "post_id": post.post_id,
        "author": post.author,
        "author_id": post.author_id,
        "posted_at": post.posted_at.isoformat() if post.posted_at is not None else None,
        "edited": (
            {"by": post.edited.by, "count": post.edited.count} if post.edited is not None else None
        ),
        "text": post.text,
        "bold": list(post.bold),
        "quotes": [
            {"author": q.author, "post_id": q.post_id, "depth": q.depth} for q in post.quotes
        ],
        "line_count": post.line_count,
        "dice": [{"name": d.name, "values": dice_values(d)} for d in post.dice],
        "action": {
            "spell": action.spell,
            "bet": list(action.bet) if action.bet is not None else None,
            "kind": contract_kind(post, action),
            "target": action.target,
            "move_to": action.move_to,
        },
    }


def page_to_json(
    page: TopicPage, spellbook: Mapping[str, Sequence[str]] | None
) -> dict[str, object]:
    """The public JSON contract for ``page`` (a ``json.dumps``-ready dict, keys as documented).

    Args:
        page: a parsed topic page.
        spellbook: canonical spell name -> aliases used to name each post's spell; with None,
            every ``action.spell`` is null (bet, kind, target and move are still read).
    """
    matcher = shared_matcher(spellbook or {})
    return {
        "platform": page.platform,
        "topic_id": page.topic_id,
        "page": page.page,
        "pages": page.pages,
        "logged_in_as": page.logged_in_as,
        "posts": [post_to_json(post, matcher) for post in page.posts],
    }


def _load_forumactif(source: str) -> ForumactifParser:
    """``parsers.forumactif.parse_topic_page``, imported only when a Forumactif page comes."""
    try:
        module = importlib.import_module("parsers.forumactif")
    except ImportError as exc:
        raise UnknownPageError(
            f"Forumactif page, but the Forumactif parser is not available ({exc})", source
        ) from exc
    parser = getattr(module, "parse_topic_page", None)
    if not callable(parser):
        raise UnknownPageError(
            "Forumactif page, but parsers.forumactif has no parse_topic_page", source
        )
    return cast(ForumactifParser, parser)


def _call_forumactif(
    parser: ForumactifParser, html: str | bytes, source: str, options: Mapping[str, Any]
) -> TopicPage:
    """Call the Forumactif parser with the keyword options its signature accepts.

    ``timezone`` is passed as ``board_tz`` when the parser names it so
    (``parsers.forumactif.parse_topic_page(html, source, *, now, board_tz, ...)``).
    """
    try:
        params = inspect.signature(parser).parameters
    except (TypeError, ValueError):
        return parser(html, source=source, **options)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return parser(html, source=source, **options)
    kwargs: dict[str, Any] = {"source": source} if "source" in params else {}
    for name, value in options.items():
        if name == "timezone" and "timezone" not in params and "board_tz" in params:
            kwargs["board_tz"] = value
        elif name in params:
            kwargs[name] = value
    missing = [
        name
        for name, p in params.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
        and p.default is inspect.Parameter.empty
        and name not in kwargs
    ]
    if missing:
        raise ParseError(
            f"the Forumactif parser needs {', '.join(missing)} (e.g. now = capture time)", source
        )
    return parser(html, **kwargs)


def parse_page(
    html: str | bytes,
    platform: PlatformChoice | str = "auto",
    *,
    source: str = "<html>",
    forumactif_parser: ForumactifParser | None = None,
    now: datetime | None = None,
    timezone: str | None = None,
) -> TopicPage:
    """Parse a topic page of either platform.

    Args:
        html: the page body as served.
        platform: ``"auto"`` (use :func:`parsers.detect.detect_platform`), ``"phpbb3"`` or
            ``"forumactif"``.
        source: file name or URL for error messages.
        forumactif_parser: the Forumactif parser to use; default
            ``parsers.forumactif.parse_topic_page``, imported lazily.
        now: capture time (aware) for Forumactif's relative/yearless dates; phpBB ignores it.
        timezone: IANA zone of the board's displayed dates (Forumactif ``board_tz``); phpBB
            ignores it.

    Raises:
        UnknownPageError: unknown platform name, undetectable page, or Forumactif page while
            the Forumactif parser cannot be imported.
        ParseError: the chosen parser could not read the page (e.g. phpBB 404 topic page),
            or the Forumactif parser needs ``now`` and none was given.
    """
    chosen = detect_platform(html, source) if platform == "auto" else platform
    if chosen == "phpbb3":
        return parse_phpbb_topic_page(html, source)
    if chosen == "forumactif":
        parser = forumactif_parser if forumactif_parser is not None else _load_forumactif(source)
        options: dict[str, Any] = {}
        if now is not None:
            options["now"] = now
        if timezone is not None:
            options["timezone"] = timezone
        return _call_forumactif(parser, html, source, options)
    raise UnknownPageError(f"unknown platform {platform!r} (auto, phpbb3, forumactif)", source)
