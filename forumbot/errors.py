"""Errors raised by the forum clients (the I/O shell talking to a board).

Exception tree::

    ForumError                  base class of everything a forum client raises
    ├── LoginFailed             the board refused the credentials (field: reason); never retried
    │   └── CaptchaRequired     the board asks for a CAPTCHA: stop, never retry the password
    ├── SessionExpired          still a guest after one silent re-login
    ├── FloodLimited            the board's flood limit still applies (field: wait_s, seconds)
    ├── FormInvalid             the board rejected the form (FORM_INVALID) and retrying did not help
    ├── PostReview              someone posted meanwhile and resubmitting did not help
    ├── PostQueued              the post was saved but needs moderator approval (no post id)
    ├── TopicNotFound           HTTP 404 / "Le sujet demandé n’existe pas."
    ├── PermissionDenied        the board says the user may not do that
    ├── ServerError             5xx / 429 / transport errors after all retries
    │   ├── BoardUnavailable    the board is disabled for maintenance (phpBB BOARD_DISABLE page)
    │   └── PageNotUnderstood   the board answered a page the client cannot read (truncated
    │                           after retries, another style, another forum software)
    └── AmbiguousPost           a POST timed out and its outcome could not be established

None of these carry passwords or cookies in their messages.
"""

from __future__ import annotations


class ForumError(Exception):
    """Base class of every error raised by a forum client."""


class LoginFailed(ForumError):
    """The board refused the login (wrong password, unknown user, ...).

    Attributes:
        reason: the board's error text (e.g. "Vous avez indiqué un mot de passe incorrect…"),
            or a short English description.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CaptchaRequired(LoginFailed):
    """The board now requires a CAPTCHA (phpBB: max_login_attempts exceeded).

    The client must stop: sending the password again would only lock the account further.
    """


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
    """The board says the user is not allowed to do this (e.g. PMs for new members)."""


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
