"""Member look-ups of the forum clients, with a cache (issue 15: "free text names only
members").

:class:`PhpbbMembers` and :class:`ForumactifMembers` are mixins of
:class:`forumbot.forums.phpbb.PhpbbClient` and :class:`forumbot.forums.forumactif.ForumactifClient`
giving them :meth:`member_exists` (:class:`forumbot.forums.base.MemberDirectory`). One page is
read per name not in the cache (phpBB: the profile by name; Forumactif: the member list searched
by name, :mod:`parsers.members`); an answer is kept ``MemberCache.ttl_s`` seconds (default one
hour: a player who registers meanwhile is found on the next sign-up after that), an unknown one
(None: the page said neither, or the board failed) is not kept.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from forumbot.errors import ForumError, LoginFailed, TopicNotFound
from parsers.members import forumactif_member_listed, phpbb_profile_exists
from parsers.registration import fold

log = logging.getLogger("forumbot.forums.members")


@dataclass
class MemberCache:
    """Answers of :meth:`member_exists` by folded name.

    Attributes:
        clock: monotonic seconds; ttl_s: how long an answer is kept, seconds.
    """

    clock: Callable[[], float]
    ttl_s: float = 3600.0
    _answers: dict[str, tuple[bool, float]] = field(default_factory=dict)

    def get(self, name: str) -> bool | None:
        """The kept answer for ``name``, or None (not asked, or too old)."""
        hit = self._answers.get(fold(name))
        if hit is None or self.clock() - hit[1] > self.ttl_s:
            return None
        return hit[0]

    def put(self, name: str, exists: bool | None) -> None:
        """Keep ``exists`` for ``name`` (None is not kept)."""
        if exists is not None:
            self._answers[fold(name)] = (exists, self.clock())


class _Lookup:
    """What the mixins need of their client (all clients have these)."""

    _clock: Callable[[], float]
    #: One page read for ``name``: True / False / None (each mixin below).
    _lookup: Callable[[str], bool | None]

    def _members(self) -> MemberCache:
        cache = self.__dict__.get("_member_cache")
        if cache is None:
            cache = MemberCache(self._clock)
            self.__dict__["_member_cache"] = cache
        return cache

    def member_exists(self, name: str) -> bool | None:
        """Whether the board has a member (account) named ``name`` (case and accents
        ignored): True, False, or None when the board's page did not say (or the board
        failed: logged, not raised). Cached (:class:`MemberCache`).

        Raises:
            LoginFailed: the bot cannot log in.
        """
        name = " ".join(name.split())
        if not name:
            return False
        cache = self._members()
        hit = cache.get(name)
        if hit is not None:
            return hit
        try:
            found = self._lookup(name)
        except LoginFailed:
            raise
        except TopicNotFound:
            found = False
        except ForumError as exc:
            log.warning("member lookup %r: %s", name, exc)
            found = None
        cache.put(name, found)
        return found

    def find_member(self, name: str) -> str | None:
        """``name`` when the board has that member (:meth:`member_exists` is True), else None."""
        return name if self.member_exists(name) else None


class PhpbbMembers(_Lookup):
    """phpBB: ``memberlist.php?mode=viewprofile&un=NAME`` (404 / ``NO_USER``: no member)."""

    _read: Callable[[str, str | None], str]  # the client's session-checked GET

    def _lookup(self, name: str) -> bool | None:
        path = "memberlist.php?" + urlencode({"mode": "viewprofile", "un": name})
        return phpbb_profile_exists(self._read(path, f"member {name!r}"), name)


class ForumactifMembers(_Lookup):
    """Forumactif: the member list searched by name (``/memberlist?username=NAME``)."""

    _read: Callable[[str], tuple[str, str]]  # the client's session-checked GET

    def _lookup(self, name: str) -> bool | None:
        path = "/memberlist?" + urlencode(
            {"mode": "username", "order": "ASC", "submit": "Ok", "username": name}
        )
        html, _ = self._read(path)
        return forumactif_member_listed(html, name)


__all__ = ["ForumactifMembers", "MemberCache", "PhpbbMembers"]
