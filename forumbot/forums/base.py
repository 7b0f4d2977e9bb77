"""The forum-client interface the rest of the bot uses (phpBB and Forumactif).

Every implementation takes, in its constructor, ``transport: httpx.BaseTransport | None`` (None =
the real network), ``sleep: Callable[[float], None]`` (seconds) and ``clock: Callable[[], float]``
(monotonic seconds), so tests replace the network and time.

Errors raised are those of :mod:`forumbot.errors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from parsers.model import Post


@dataclass(frozen=True)
class TopicSummary:
    """One topic row of a forum listing.

    Attributes:
        topic_id: the forum's topic id (phpBB ``t``).
        title: the topic title.
        last_post_id: id of the topic's last post (phpBB: the "last post" link ``p=N``),
            or None when the listing does not show it.
        replies: number of replies (posts - 1).
        author: the topic starter's name, or None.
    """

    topic_id: int
    title: str
    last_post_id: int | None
    replies: int
    author: str | None


@runtime_checkable
class ForumClient(Protocol):
    """What the bot needs from a board.

    All methods may raise :class:`forumbot.errors.ForumError` subclasses.
    """

    def login(self) -> None:
        """Log in with the configured credentials.

        Raises: LoginFailed, CaptchaRequired (never retry), ServerError.
        """
        ...

    def is_logged_in(self) -> bool:
        """True when the last page read showed the bot's user name in the header."""
        ...

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        """Topics of forum ``forum_id``, sorted by last post (announcements and stickies
        first): the first listing page (one request), or with ``all_pages`` every page (at
        start-up, and when a topic cannot be accounted for).

        Raises: TopicNotFound (no such forum), SessionExpired, ServerError, PaginationStuck.
        """
        ...

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        """Posts of topic ``topic_id`` with ``post_id > after_post_id`` (all posts when None),
        in topic order. Works by post id, not page offset (deleted posts shift pages).

        Raises: TopicNotFound, SessionExpired, ServerError.
        """
        ...

    def reply(self, topic_id: int, message: str, marker: str) -> int:
        """Post ``message`` (which contains the unique text ``marker``) in ``topic_id``;
        returns the new post id. Never posts twice: before any resend, looks for ``marker``.

        Raises: FloodLimited, FormInvalid, PostReview, PostQueued, TopicNotFound,
        PermissionDenied, SessionExpired, AmbiguousPost, ServerError.
        """
        ...

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        """Send a private message to ``user_id`` (or, when None, to ``username``).

        Raises: FloodLimited, FormInvalid, PermissionDenied, SessionExpired, AmbiguousPost,
        ServerError.
        """
        ...

    def find_marker(self, topic_id: int, marker: str, after_post_id: int | None) -> int | None:
        """Post id of a post by the bot, after ``after_post_id``, whose text contains
        ``marker``; None when there is none."""
        ...

    def create_topic(self, forum_id: int, subject: str, message: str, marker: str) -> int:
        """Open a new topic in ``forum_id``; returns the new topic id.

        Raises: like :meth:`reply`.
        """
        ...

    def edit_post(self, post_id: int, message: str) -> None:
        """Replace the text of the bot's own post ``post_id`` with ``message`` (idempotent:
        the same text again changes nothing, so it may be sent again after a timeout). The
        leaderboard post is kept up to date this way.

        Raises: TopicNotFound (no such post), PermissionDenied (not the bot's post, or the
        board's edit time limit is over), FormInvalid, SessionExpired, AmbiguousPost,
        ServerError.
        """
        ...


@runtime_checkable
class MemberDirectory(Protocol):
    """A client that can look a board's members up (issue 15: a free-text partner is kept only
    when the board has a member of that name). Both shipped clients are one
    (:mod:`forumbot.forums.members`); a client that is not is treated as "don't know"."""

    def member_exists(self, name: str) -> bool | None:
        """True when the board has a member (account) named ``name`` (case and accents
        ignored), False when it has none, None when the board's page did not say. Cached by
        the client.

        Raises: LoginFailed (other forum errors are logged and give None).
        """
        ...

    def find_member(self, name: str) -> str | None:
        """The member's spelling of ``name`` when the board has that member, else None."""
        ...


@runtime_checkable
class MemberSpeller(Protocol):
    """A client that gives a member's own spelling of a name (issue 24 F11: the review page's
    forum account is stored as the board spells it). Both shipped clients are one."""

    def member_spelling(self, name: str) -> str | bool | None:
        """The member's spelling of ``name`` as the board shows it, False when the board has
        no such member, None when the page did not say (or the board failed). Cached.

        Raises: LoginFailed (other forum errors are logged and give None).
        """
        ...


@runtime_checkable
class PreparesReplies(Protocol):
    """A client whose reply form can be fetched ahead of its POST (phpBB: the form must age
    ``min_form_age_s`` before it is sent). The publisher fetches the forms of the next due
    declarations while the first waits (:func:`forumbot.publish.poster.publish_due`).
    """

    def prepare_reply(self, topic_id: int) -> Any:
        """GET the reply form of ``topic_id`` (one request); an opaque prepared form."""
        ...

    def form_wait_s(self, prepared: Any) -> float:
        """Seconds before ``prepared`` may be POSTed (0.0: now)."""
        ...

    def form_key(self, prepared: Any) -> Any:
        """A key two forms must not share to be posted one after the other (phpBB's posting
        lock), or None."""
        ...

    def reply(self, topic_id: int, message: str, marker: str, *, prepared: Any = None) -> int:
        """:meth:`ForumClient.reply`, POSTing ``prepared`` first when given."""
        ...


#: Former name of :class:`ForumClient` from when ``edit_post`` was kept apart (the Forumactif
#: client had none); every client now implements it. Kept so older imports keep working.
EditingForumClient = ForumClient
