"""Errors raised by the forum clients (the I/O shell talking to a board).

Exception tree::

    ForumError                  base class of everything a forum client raises
    ├── LoginFailed             the board refused the credentials (fields: reason, kind); never
    │   │                       retried: a wrong password, a banned or inactive account
    │   └── CaptchaRequired     the board asks for a CAPTCHA: stop, never retry the password
    ├── BoardNotFound           the board's URL answers 404: no board at this address (field: url)
    ├── SessionExpired          still a guest after one silent re-login
    ├── FloodLimited            the board's flood limit still applies (field: wait_s, seconds)
    ├── FormInvalid             the board rejected the form (FORM_INVALID) and retrying did not help
    ├── PostReview              someone posted meanwhile and resubmitting did not help
    ├── PostQueued              the post was saved but needs moderator approval (no post id)
    ├── TopicNotFound           HTTP 404 / "Le sujet demandé n’existe pas."
    ├── PermissionDenied        the board says the user may not do that
    │   ├── TopicLocked         the topic or its forum is locked (field: sentence)
    │   └── InboxFull           the PM recipient's inbox is full (Forumactif; field: sentence)
    ├── ServerError             5xx / 429 / transport errors after all retries
    │   ├── BoardUnavailable    the board is disabled for maintenance (phpBB BOARD_DISABLE page),
    │   │                       or a page not the board's answers (a challenge, a host error)
    │   ├── PageNotUnderstood   the board answered a page the client cannot read (truncated
    │   │                       after retries, another style, another forum software)
    │   ├── DeadlineExceeded    no complete answer within the request's total deadline
    │   ├── ResponseTooLarge    an answer's body over the cap (max_body_bytes)
    │   ├── RedirectLoop        redirects back to a URL already visited / too many hops
    │   ├── PaginationStuck     the next page of a listing or topic does not advance
    │   └── BoardPaused         Retry-After longer than the client waits in place (until)
    ├── TopicMoved              the board answered another topic (field: new_topic_id)
    ├── PostsOutOfOrder         a topic page's post ids do not rise (a "newest first" profile?)
    └── AmbiguousPost           a POST timed out and its outcome could not be established

None of these carry passwords or cookies in their messages.
"""

from __future__ import annotations


class ForumError(Exception):
    """Base class of every error raised by a forum client."""


LOGIN_REFUSAL_KINDS = ("password", "captcha", "banned", "inactive", "refused")
"""What :attr:`LoginFailed.kind` may be: a wrong password or user name, a CAPTCHA, a banned
account, an account not (or no longer) active, another refusal in the board's own words."""


class LoginFailed(ForumError):
    """The board refused the login (wrong password, unknown user, banned or inactive account).

    Only the board's own login page raises it: a page put in front of the board (a challenge,
    a host error, a maintenance page) is :class:`BoardUnavailable`, retried.

    Attributes:
        reason: the board's error text (e.g. "Vous avez indiqué un mot de passe incorrect…"),
            or a short English description.
        kind: one of :data:`LOGIN_REFUSAL_KINDS` (default ``"password"``).
    """

    def __init__(self, reason: str, kind: str = "password") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


class CaptchaRequired(LoginFailed):
    """The board now requires a CAPTCHA (phpBB: max_login_attempts exceeded).

    The client must stop: sending the password again would only lock the account further.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "captcha")


class BoardNotFound(ForumError):
    """The board's login page answers HTTP 404: ``board.url`` names no board (a wrong path).
    A configuration error, never a refused password.

    Attributes:
        url: the URL that answered 404.
    """

    def __init__(self, message: str, url: str) -> None:
        super().__init__(message)
        self.url = url


class SessionExpired(ForumError):
    """The session was lost and one re-login did not bring it back."""


class FloodLimited(ForumError):
    """The board's flood limit refused the post/PM even after waiting.

    Attributes:
        wait_s: seconds the caller should wait before trying again.
    """

    def __init__(self, message: str, wait_s: float) -> None:
        super().__init__(message)
        self.wait_s = wait_s


class FormInvalid(ForumError):
    """The board answered FORM_INVALID ("Le formulaire envoyé n’est pas valide")."""


class PostReview(ForumError):
    """The board kept answering "post review": other posts keep arriving meanwhile."""


class PostQueued(ForumError):
    """The post was accepted but waits for moderator approval (no visible post id)."""


class TopicNotFound(ForumError):
    """The topic (or forum) does not exist (HTTP 404)."""


class PermissionDenied(ForumError):
    """The board says the user is not allowed to do this (e.g. PMs for new members).

    Attributes:
        sentence: the board's own sentence when the client read one (else the message).
    """

    def __init__(self, message: str, sentence: str | None = None) -> None:
        super().__init__(message)
        self.sentence = sentence or message


class TopicLocked(PermissionDenied):
    """The topic (or its forum) is locked: the board refuses replies (phpBB ``TOPIC_LOCKED``
    « Ce sujet est verrouillé, vous ne pouvez pas modifier de messages ou poster de réponse. »,
    "This topic is locked, you cannot edit posts or make further replies.", ``FORUM_LOCKED``
    « Forum verrouillé » / "Forum locked").

    Attributes:
        sentence: the board's own sentence, as shown (quoted to the referee).
    """

    def __init__(self, message: str, sentence: str) -> None:
        super().__init__(message, sentence)


class InboxFull(PermissionDenied):
    """The PM recipient's inbox is full, the board refused the PM (nothing was sent).

    Attributes:
        sentence: the board's own sentence, as shown.
    """

    def __init__(self, message: str, sentence: str) -> None:
        super().__init__(message, sentence)


class ServerError(ForumError):
    """The board kept failing (5xx, 429 or transport errors) after every retry."""


class BoardUnavailable(ServerError):
    """The board says it is disabled or unavailable (phpBB ``BOARD_DISABLE`` /
    ``BOARD_UNAVAILABLE``: "Désolé mais ce forum est actuellement indisponible.", "The board
    is currently disabled."), still after every retry. Try again at the next cycle."""


class PageNotUnderstood(ServerError):
    """The board answered a page the client cannot read: cut before ``</html>`` (after every
    retry), a style other than prosilver's markup, or another forum software's page."""


class AmbiguousPost(ForumError):
    """A POST's outcome is unknown (timeout) and no trace of it was found afterwards."""


# -- HTTP edges and pacing (issue 12) -----------------------------------------------------------


class DeadlineExceeded(ServerError):
    """A request did not complete (connect + send + whole body) within its total deadline.

    Attributes:
        deadline_s: the deadline, seconds.
    """

    def __init__(self, message: str, deadline_s: float) -> None:
        super().__init__(message)
        self.deadline_s = deadline_s


class ResponseTooLarge(ServerError):
    """An answer's body is larger than the cap (``max_body_bytes``); it was not read whole.

    Attributes:
        cap_bytes: the cap, bytes.
    """

    def __init__(self, message: str, cap_bytes: int) -> None:
        super().__init__(message)
        self.cap_bytes = cap_bytes


class RedirectLoop(ServerError):
    """Redirects came back to a URL already visited (or went on too long).

    Attributes:
        urls: the URLs visited, the repeated one last.
    """

    def __init__(self, message: str, urls: list[str]) -> None:
        super().__init__(message)
        self.urls = urls


class PaginationStuck(ServerError):
    """A paginated read asked for the next page and got a page that does not advance (the
    board sends every ``start=`` to page 1): the read stops instead of looping."""


class TopicMoved(ForumError):
    """The board answered another topic than the one asked for (a redirect after a merge or
    a move). The page is never read as the requested topic.

    Attributes:
        topic_id: the topic asked for.
        new_topic_id: the topic the board sent instead, or None when it cannot be told.
    """

    def __init__(self, message: str, topic_id: int, new_topic_id: int | None) -> None:
        super().__init__(message)
        self.topic_id = topic_id
        self.new_topic_id = new_topic_id


class PostsOutOfOrder(ForumError):
    """A topic page (or the next page after it) shows post ids that do not rise: the board
    did not answer the topic oldest first (a "newest first" profile preference the URL could
    not override, a theme that reverses posts). The page is never read as new posts: the
    caller reads nothing of it, so nothing is lost (:func:`parsers.order.first_break`).

    Attributes:
        topic_id: the topic read.
        previous, following: the two consecutive ids, in page order, where the order breaks.
        where: the page (path) that showed ``following``.
    """

    def __init__(
        self, topic_id: int, previous: int, following: int, where: str
    ) -> None:
        super().__init__(
            f"topic {topic_id}: post {following} comes after post {previous} on {where}: "
            "the board does not show this topic oldest first (the bot account's profile "
            "may sort posts newest first: set it back to ascending); nothing read"
        )
        self.topic_id = topic_id
        self.previous = previous
        self.following = following
        self.where = where


class BoardPaused(ServerError):
    """The board asked (``Retry-After``) for a pause longer than the client waits in place.
    No request is sent to it before ``until`` (the client's monotonic clock); the scheduler
    skips the board's jobs until then.

    Attributes:
        wait_s: seconds from when the answer arrived.
        until: the client's clock value when requests may start again.
        scope: ``"all"`` (a read was refused: nothing goes out) or ``"publish"`` (a post was
            refused: reading goes on).
    """

    def __init__(self, message: str, wait_s: float, until: float, scope: str = "all") -> None:
        super().__init__(message)
        self.wait_s = wait_s
        self.until = until
        self.scope = scope
