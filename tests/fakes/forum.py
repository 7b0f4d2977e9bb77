"""An in-memory ForumClient for unit tests of the referee and poster (no HTTP)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from forumbot.errors import AmbiguousPost, TopicMoved
from forumbot.forums.base import TopicSummary
from parsers.model import DiceRoll, Post

_BOLD = re.compile(r"\[b\](.*?)\[/b\]", re.S)


@dataclass
class FakeForum:
    """Topics of one forum, posts as :class:`Post`, and knobs to inject failures.

    ``fail_next_reply``: the next reply raises AmbiguousPost *after* storing the post (the
    outcome a timeout gives); ``refuse_next_reply``: raises before storing. ``reads`` counts
    ``read_topic`` calls; a topic whose ``topics[t]["moved_to"]`` is set raises TopicMoved
    (the board redirects it to that topic). ``listing_more``: like the real clients (the
    fake listing has one page).
    """

    bot: str = "Hibou"
    topics: dict[int, dict[str, object]] = field(default_factory=dict)
    posts: dict[int, list[Post]] = field(default_factory=dict)
    next_post_id: int = 100
    replies_sent: int = 0
    fail_next_reply: bool = False
    refuse_next_reply: bool = False
    start: datetime = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    listings: dict[bool, int] = field(default_factory=dict)
    reads: int = 0
    listing_more: dict[int, bool] = field(default_factory=dict)

    def add_topic(self, topic_id: int, title: str, author: str, text: str) -> int:
        self.topics[topic_id] = {"title": title}
        self.posts[topic_id] = []
        return self.add_post(topic_id, author, text)

    def add_post(
        self, topic_id: int, author: str, text: str, dice: tuple[DiceRoll, ...] = ()
    ) -> int:
        self.next_post_id += 1
        pid = self.next_post_id
        plain = _BOLD.sub(r"\1", text)
        self.posts[topic_id].append(
            Post(
                post_id=pid,
                author=author,
                author_id=None,
                posted_at=self.start + timedelta(minutes=pid),
                edited=None,
                text=plain,
                bold=tuple(m.strip() for m in _BOLD.findall(text)),
                quotes=(),
                line_count=sum(1 for line in plain.splitlines() if line.strip()),
                dice=dice,
            )
        )
        return pid

    def attach_dice(self, topic_id: int, post_id: int, dice: tuple[DiceRoll, ...]) -> None:
        """A Game Master post rolled dice for ``post_id`` (the parser attaches them to it)."""
        from dataclasses import replace

        self.posts[topic_id] = [
            replace(p, dice=dice) if p.post_id == post_id else p for p in self.posts[topic_id]
        ]

    def edit_post(
        self, topic_or_post_id: int, post_id_or_text: int | str, text: str | None = None
    ) -> None:
        """Two call forms: ``edit_post(topic_id, post_id, text)`` (a test edits anybody's
        post) and ``edit_post(post_id, message)`` (:class:`ForumClient`: the bot edits a post,
        found in whichever topic holds it)."""
        if text is None:
            post_id, text = topic_or_post_id, str(post_id_or_text)
            topic_id = next(
                t for t, posts in self.posts.items() if any(p.post_id == post_id for p in posts)
            )
        else:
            topic_id, post_id = topic_or_post_id, int(post_id_or_text)
        plain = _BOLD.sub(r"\1", text)
        self.posts[topic_id] = [
            Post(
                p.post_id,
                p.author,
                p.author_id,
                p.posted_at,
                p.edited,
                plain,
                tuple(m.strip() for m in _BOLD.findall(text)),
                (),
                sum(1 for line in plain.splitlines() if line.strip()),
            )
            if p.post_id == post_id
            else p
            for p in self.posts[topic_id]
        ]

    # -- ForumClient ----------------------------------------------------------------------
    def login(self) -> None:
        return None

    def is_logged_in(self) -> bool:
        return True

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        """Every topic, newest last post first (one page: ``all_pages`` reads the same);
        ``listings`` counts the calls by ``all_pages``."""
        self.listings[all_pages] = self.listings.get(all_pages, 0) + 1
        self.listing_more[forum_id] = False
        rows = [
            TopicSummary(
                tid,
                str(t["title"]),
                self.posts[tid][-1].post_id,
                len(self.posts[tid]) - 1,
                self.posts[tid][0].author,
            )
            for tid, t in self.topics.items()
        ]
        return sorted(rows, key=lambda row: -(row.last_post_id or 0))

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        self.reads += 1
        moved = self.topics.get(topic_id, {}).get("moved_to")
        if moved is not None:
            raise TopicMoved(f"topic {topic_id}: answered as topic {moved}", topic_id, int(moved))
        return [
            p for p in self.posts[topic_id] if after_post_id is None or p.post_id > after_post_id
        ]

    def reply(self, topic_id: int, message: str, marker: str) -> int:
        if self.refuse_next_reply:
            self.refuse_next_reply = False
            raise AmbiguousPost("connection reset before sending")
        self.replies_sent += 1
        pid = self.add_post(topic_id, self.bot, message)
        if self.fail_next_reply:
            self.fail_next_reply = False
            raise AmbiguousPost("read timeout after sending")
        return pid

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        raise NotImplementedError

    def find_marker(self, topic_id: int, marker: str, after_post_id: int | None) -> int | None:
        for p in self.read_topic(topic_id, after_post_id):
            if p.author == self.bot and marker in p.text:
                return p.post_id
        return None

    def create_topic(self, forum_id: int, subject: str, message: str, marker: str) -> int:
        tid = max(self.topics, default=0) + 1
        self.add_topic(tid, subject, self.bot, message)
        return tid


@dataclass
class ClubForum(FakeForum):
    """A :class:`FakeForum` with what the registration desk needs: a PM outbox (``pms``), the
    bot's post edits (``edit_post(post_id, message)``, as :class:`EditingForumClient`) and
    posts quoting another post.

    ``fail_next_pm``: the next PM is stored, then AmbiguousPost is raised (a timeout after
    sending); ``crash_next_pm``: stored, then :class:`Crash` (the process dies).
    """

    pms: list[dict[str, object]] = field(default_factory=list)
    bot_edits: list[int] = field(default_factory=list)
    fail_next_pm: bool = False
    crash_next_pm: bool = False

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        self.pms.append({"to": username, "subject": subject, "message": message})
        if self.crash_next_pm:
            self.crash_next_pm = False
            raise Crash("killed right after sending a PM")
        if self.fail_next_pm:
            self.fail_next_pm = False
            raise AmbiguousPost("read timeout after sending the PM")

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        return any(pm["subject"] == subject and marker in str(pm["message"]) for pm in self.pms)

    def edit_post(self, post_id: int, message: str) -> None:  # type: ignore[override]
        topic_id = next(
            t for t, posts in self.posts.items() if any(p.post_id == post_id for p in posts)
        )
        FakeForum.edit_post(self, topic_id, post_id, message)
        self.bot_edits.append(post_id)

    def add_quoting_post(self, topic_id: int, author: str, text: str, quoted: int) -> int:
        from dataclasses import replace

        from parsers.model import Quote

        pid = self.add_post(topic_id, author, text)
        quoted_author = next(p.author for p in self.posts[topic_id] if p.post_id == quoted)
        self.posts[topic_id] = [
            replace(p, quotes=(Quote(quoted_author, quoted),)) if p.post_id == pid else p
            for p in self.posts[topic_id]
        ]
        return pid

    def pms_to(self, username: str) -> list[dict[str, object]]:
        return [pm for pm in self.pms if pm["to"] == username]


class Crash(BaseException):
    """The process dies here (not an Exception: nothing catches it)."""
