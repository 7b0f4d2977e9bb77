"""Member look-ups of the forum clients, with a cache (issue 15: "free text names only
members").

:class:`PhpbbMembers` and :class:`ForumactifMembers` are mixins of
:class:`forumbot.forums.phpbb.PhpbbClient` and :class:`forumbot.forums.forumactif.ForumactifClient`
giving them :meth:`member_exists` (:class:`forumbot.forums.base.MemberDirectory`). One page is
read per name not in the cache (phpBB: the profile by name; Forumactif: the member list searched
by name, :mod:`parsers.members`); an answer is kept ``MemberCache.ttl_s`` seconds (default one
hour: a player who registers meanwhile is found on the next sign-up after that), an unknown one
(None: the page said neither, or the board failed) is not kept. The member's own spelling of
the name (the profile's or the list's, :func:`parsers.members.phpbb_profile_name`) is kept with
the answer: :meth:`_Lookup.member_spelling` gives it (issue 24 F11: the review page stores it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from forumbot.errors import ForumError, LoginFailed, TopicNotFound
from parsers.members import forumactif_member_name, phpbb_profile_name
from parsers.registration import fold

log = logging.getLogger("forumbot.forums.members")


@dataclass
class MemberCache:
    """Answers of :meth:`member_exists` by folded name: False (no member), or the member's
    spelling (a str; True when the page did not give it).

    Attributes:
        clock: monotonic seconds; ttl_s: how long an answer is kept, seconds.
    """

    clock: Callable[[], float]
    ttl_s: float = 3600.0
    _answers: dict[str, tuple[str | bool, float]] = field(default_factory=dict)

    def spelling(self, name: str) -> str | bool | None:
        """The kept answer for ``name`` (the member's spelling, True, or False), or None (not
        asked, or too old)."""
        hit = self._answers.get(fold(name))
        if hit is None or self.clock() - hit[1] > self.ttl_s:
            return None
        return hit[0]

    def get(self, name: str) -> bool | None:
        """The kept answer for ``name`` as a bool, or None (not asked, or too old)."""
        hit = self.spelling(name)
        return None if hit is None else bool(hit)

    def put(self, name: str, exists: str | bool | None) -> None:
        """Keep ``exists`` (False, True or the member's spelling) for ``name`` (None, and an
        empty spelling, are not kept)."""
        if exists is not None and exists != "":
            self._answers[fold(name)] = (exists, self.clock())


class _Lookup:
    """What the mixins need of their client (all clients have these)."""

    _clock: Callable[[], float]
    #: One page read for ``name``: the spelling / True / False / None (each mixin below).
    _lookup: Callable[[str], str | bool | None]

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
        found = self.member_spelling(name)
        return None if found is None else bool(found)

    def member_spelling(self, name: str) -> str | bool | None:
        """The board member's own spelling of ``name`` (case, accents and spaces as the board
        shows them; ``name`` with its spaces collapsed when the page does not show it), False
        when the board has no member of that name, None when the page did not say or the board
        failed (logged, not raised). Cached (:class:`MemberCache`).

        Raises:
            LoginFailed: the bot cannot log in.
        """
        name = " ".join(name.split())
        if not name:
            return False
        cache = self._members()
        hit = cache.spelling(name)
        if hit is None:
            try:
                hit = self._lookup(name)
            except LoginFailed:
                raise
            except TopicNotFound:
                hit = False
            except ForumError as exc:
                log.warning("member lookup %r: %s", name, exc)
                hit = None
            cache.put(name, hit)
        if hit is True or hit == "":
            return name
        return hit

    def find_member(self, name: str) -> str | None:
        """The member's spelling of ``name`` (:meth:`member_spelling`) when the board has that
        member, else None."""
        found = self.member_spelling(name)
        return found if isinstance(found, str) else None


class PhpbbMembers(_Lookup):
    """phpBB: ``memberlist.php?mode=viewprofile&un=NAME`` (404 / ``NO_USER``: no member)."""

    _read: Callable[[str, str | None], str]  # the client's session-checked GET

    def _lookup(self, name: str) -> str | bool | None:
        path = "memberlist.php?" + urlencode({"mode": "viewprofile", "un": name})
        return phpbb_profile_name(self._read(path, f"member {name!r}"), name)


class ForumactifMembers(_Lookup):
    """Forumactif: the member list searched by name (``/memberlist?username=NAME``)."""

    _read: Callable[[str], tuple[str, str]]  # the client's session-checked GET

    def _lookup(self, name: str) -> str | bool | None:
        path = "/memberlist?" + urlencode(
            {"mode": "username", "order": "ASC", "submit": "Ok", "username": name}
        )
        html, _ = self._read(path)
        return forumactif_member_name(html, name)


__all__ = ["ForumactifMembers", "MemberCache", "PhpbbMembers"]
