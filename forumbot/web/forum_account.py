"""The forum account a person names on ``/me/notify`` (issue 24 F11): owls go to it, so the
review page takes only the name of an existing board member, as the board spells it.

The rules, in order (each refusal is one French message, :class:`ForumAccountRefused`):

1. The name as typed is cleaned (NFKC, spaces collapsed); a name holding HTML or BBCode
   brackets (``< > [ ]``), a control, a bidi control or any character that renders as nothing
   (Unicode ``Default_Ignorable_Code_Point``, :func:`parsers.names.clean_name`) is refused:
   nothing is stripped silently, the person sees why.
2. An unchanged name (the one shown in the form) is kept as it is, with no look-up (saving the
   quiet hours needs no board).
3. **Once linked, only an admin changes it.** A referee whose forum account was linked (by
   themselves after a look-up, or by an admin, ``notify_settings.forum_linked_by``) may not
   name another member on the page: they ask an admin (``forumbot users notify NAME
   --forum-name ...``). An admin may relink their own on the page (still looked up). The
   page cannot tell whether the person owns the account they name; this keeps a referee
   from moving their owls (duel details) to another member at will, while the first link
   stays self-service.
4. The board is asked (:meth:`forumbot.forums.base.MemberSpeller.member_spelling`, in a
   worker thread: the client is synchronous): no such member is refused, saying so; a board
   that cannot be reached (or a page it did not understand, or a refused bot login) is
   refused with « réessayez plus tard » and nothing is stored.
5. The board's spelling is what is stored; it is refused when it looks like the forum account
   of another review-page account (:func:`forumbot.notify.settings.forum_account_of_other`,
   Unicode confusables): two people cannot receive each other's owls.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable

import anyio.to_thread

from forumbot.i18n import N_
from forumbot.notify.settings import NotifyConfig, forum_account_of_other, person_settings
from forumbot.storage import Storage
from forumbot.web.users import User
from parsers.names import clean_name, has_markup

log = logging.getLogger("forumbot.web.forum_account")

MemberLookup = Callable[[str], str | bool | None]
"""``lookup(name)``: the board member's own spelling of ``name`` (True: a member, spelling not
shown), False (no such member), None (the board did not say); may raise (the board failed).
The forum clients' :meth:`member_spelling` is one."""

LINKED_BY_BOARD = "board"
"""``notify_settings.forum_linked_by`` when the person linked it on the page after a look-up."""


class ForumAccountRefused(Exception):
    """The forum account was refused: ``text`` (French, with ``%s`` for ``args``) says why."""

    def __init__(self, text: str, *args: object) -> None:
        super().__init__(text % args if args else text)
        self.text = text
        self.args_fr = tuple(str(a) for a in args)


def wanted_forum_name(storage: Storage, user: User, typed: str, cfg: NotifyConfig) -> str | None:
    """The cleaned name ``user`` asks for (rules 1 to 3 of the module doc), or None when it is
    the one they have (nothing to look up, nothing to change).

    Raises:
        ForumAccountRefused: empty or too long, markup or invisible characters, or already
            linked and ``user`` is no admin.
    """
    current = person_settings(storage, user.username, cfg)
    if " ".join(typed.split()) == current.forum_name:
        return None
    nfkc = " ".join(unicodedata.normalize("NFKC", typed).split())
    if has_markup(nfkc) or clean_name(nfkc) != nfkc:
        raise ForumAccountRefused(
            "The board account may hold no HTML, no BBCode, no invisible or (bidi) control "
            "character: write the name as the board shows it."
        )
    if not nfkc or len(nfkc) > 100:
        raise ForumAccountRefused("The board account is 1 to 100 characters.")
    if current.forum_linked_by and not user.is_admin:
        raise ForumAccountRefused(
            "Your board account is already linked to “%s”: only an admin can change it.",
            current.forum_name,
        )
    return nfkc


async def board_spelling(lookup: MemberLookup | None, name: str) -> str:
    """The board's spelling of member ``name`` (rule 4 of the module doc), asked in a worker
    thread.

    Raises:
        ForumAccountRefused: no such member; no look-up configured, or the board failed or
            did not say (« réessayez plus tard »).
    """
    later = N_("The board does not answer: “%s” cannot be checked. Try again later.")
    if lookup is None:
        raise ForumAccountRefused(later, name)
    try:
        found = await anyio.to_thread.run_sync(lookup, name)
    except Exception as exc:  # any board failure (login refused, timeout): nothing stored
        log.warning("forum account look-up %r failed: %s", name, exc)
        raise ForumAccountRefused(later, name) from exc
    if found is None:
        raise ForumAccountRefused(later, name)
    if found is False:
        raise ForumAccountRefused(
            "“%s” is not a member of the board: write your account's exact name.", name
        )
    return name if found is True else str(found)


def check_free(storage: Storage, user: User, spelling: str, cfg: NotifyConfig) -> None:
    """Rule 5 of the module doc: the board's ``spelling`` must not look like another
    account's forum account.

    Raises:
        ForumAccountRefused: it does (the other person is not named: only that it is taken).
    """
    if has_markup(spelling) or clean_name(spelling) != spelling:
        raise ForumAccountRefused(
            "The board writes this name with characters the page refuses (HTML, BBCode, "
            "invisible): ask an admin."
        )
    if forum_account_of_other(storage, user.username, spelling, cfg) is not None:
        raise ForumAccountRefused(
            "“%s” is (or looks like) the board account of another user of the page: ask an admin.",
            spelling,
        )


__all__ = [
    "LINKED_BY_BOARD",
    "ForumAccountRefused",
    "MemberLookup",
    "board_spelling",
    "check_free",
    "wanted_forum_name",
]
