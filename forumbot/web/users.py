"""Accounts of the review page: argon2id password hashes, roles, duel referees.

Roles: ``admin`` (sees every duel, judges violations, assigns referees) and ``referee``
(sees and changes the drafts of the duels assigned to them in ``duel_referees``).
Usernames are stored as given and looked up case-insensitively.

Errors: :class:`UserError` (unknown role, duplicate user, empty password, unknown user).
"""

from __future__ import annotations

import asyncio
import unicodedata
import weakref
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio
import anyio.to_thread
import regex
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from confusable_homoglyphs import confusables

from forumbot.storage import Storage, iso
from forumbot.web.sessions import end_user_sessions
from parsers.names import look_alike

ROLES = ("referee", "admin")
MIN_PASSWORD_CHARS = 8

_INVISIBLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]")
_HASHER = PasswordHasher()
# Verified against when the user does not exist, so a miss costs as long as a hit.
_DUMMY_HASH: str | None = None


def _dummy_hash() -> str:
    """The hash an unknown user's password is checked against (the same time as a known
    one's), made on first use, not at import: every ``forumbot`` command (``simulate``
    included) paid the 64 MiB argon2 hash at start (issue 26, "keep the command's start
    cheap")."""
    global _DUMMY_HASH
    if _DUMMY_HASH is None:
        _DUMMY_HASH = _HASHER.hash("forumbot-no-such-user")
    return _DUMMY_HASH


class UserError(Exception):
    """An account operation was refused (message in English says why)."""


@dataclass(frozen=True)
class User:
    """A logged-in account.

    Attributes:
        username: as stored.
        role: ``"referee"`` or ``"admin"``.
    """

    username: str
    role: str

    @property
    def is_admin(self) -> bool:
        """True for the ``admin`` role."""
        return self.role == "admin"


def _row(storage: Storage, username: str) -> dict[str, Any] | None:
    return storage.web_rows.user(username)


def look_alike_account(storage: Storage, name: str) -> str | None:
    """The existing account whose name looks like ``name`` (:func:`parsers.names.look_alike`;
    the same name in another case counts), or None."""
    for username in storage.web_rows.usernames():
        if look_alike(username, name):
            return username
    return None


def check_new_account(storage: Storage, username: str, role: str) -> str:
    """The checks of :func:`add_user` that need no password, so that a command refuses a
    name before it asks for one (newcomer5 C8); returns the name NFKC-normalised.

    Raises:
        UserError: unknown role, empty/invalid/invisible/confusable name, or the name is
            taken or looks like a taken one.
    """
    name = unicodedata.normalize("NFKC", username).strip()
    if _INVISIBLE.search(name):
        raise UserError("a username may not hold invisible characters (zero-width, fillers)")
    if confusables.is_dangerous(name):
        raise UserError(
            f"{name!r} mixes scripts with look-alike letters (e.g. a Cyrillic 'а' among Latin "
            "ones): it would look like another name"
        )
    if role not in ROLES:
        raise UserError(f"unknown role {role!r} (expected one of {', '.join(ROLES)})")
    if not name or any(c.isspace() for c in name) or len(name) > 64:
        raise UserError("a username is 1 to 64 characters without spaces")
    if _row(storage, name) is not None:
        raise UserError(f"user {name!r} exists already")
    taken = look_alike_account(storage, name)
    if taken is not None:
        raise UserError(
            f"{name!r} looks like the existing account {taken!r} (same letters to the eye, "
            "Unicode confusables): pick a name that reads differently"
        )
    return name


def add_user(storage: Storage, username: str, password: str, role: str, now: datetime) -> User:
    """Create an account with an argon2id hash of ``password``. The name is NFKC-normalised;
    a name with invisible characters (Unicode ``Default_Ignorable_Code_Point``, controls,
    format characters) or mixing scripts with look-alike letters (``confusable_homoglyphs``,
    Unicode's confusables data) is refused, and so is a name that looks like an existing
    account's (the UTS #39 confusables skeleton, :func:`parsers.names.look_alike`: an
    all-Cyrillic ``асе`` when ``ace`` exists, ``AIice`` with a capital i when ``alice``
    exists) (issue 24 F12; :func:`check_new_account`).

    Raises:
        UserError: unknown role, empty/invalid/invisible/confusable name, password under 8
            characters, or the name is taken or looks like a taken one.
    """
    name = check_new_account(storage, username, role)
    if len(password) < MIN_PASSWORD_CHARS:
        raise UserError(f"the password needs at least {MIN_PASSWORD_CHARS} characters")
    storage.web_rows.insert_user(
        {
            "username": name,
            "password_hash": _HASHER.hash(password),
            "role": role,
            "disabled": 0,
            "created_at": iso(now),
        }
    )
    storage.audit("forumbot", "user.add", f"user:{name}", None, {"role": role}, now)
    return User(name, role)


def set_password(
    storage: Storage, username: str, password: str, now: datetime, actor: str = "forumbot"
) -> None:
    """Replace a user's password hash and end every open session of the account
    (:func:`forumbot.web.sessions.end_user_sessions`); ``actor`` (the CLI: ``forumbot``; the
    page: the user) goes to the audit log.

    Raises:
        UserError: unknown user or a password under 8 characters.
    """
    row = _row(storage, username)
    if row is None:
        raise UserError(f"no user {username!r}")
    if len(password) < MIN_PASSWORD_CHARS:
        raise UserError(f"the password needs at least {MIN_PASSWORD_CHARS} characters")
    storage.web_rows.update_user(row["username"], {"password_hash": _HASHER.hash(password)})
    end_user_sessions(storage, row["username"])
    storage.audit(actor, "user.password", f"user:{row['username']}", None, None, now)


def set_disabled(
    storage: Storage, username: str, disabled: bool, now: datetime, actor: str = "forumbot"
) -> User:
    """Disable an account (it can no longer log in) or enable it again. Either way every
    open session of the account ends (its records are deleted: a session opened before a
    disable does not come back with the enable). The account, its audit trail and its duel
    assignments are kept (the audit log names it).

    Raises:
        UserError: unknown user.
    """
    row = _row(storage, username)
    if row is None:
        raise UserError(f"no user {username!r}")
    storage.web_rows.update_user(row["username"], {"disabled": int(disabled)})
    end_user_sessions(storage, row["username"])
    if disabled:  # their claims end with the account (issue 24 F5)
        from forumbot.notify.claims import end_claims

        end_claims(storage, row["username"], now, actor)
    action = "user.disable" if disabled else "user.enable"
    storage.audit(actor, action, f"user:{row['username']}", None, None, now)
    return User(row["username"], row["role"])


def get_user(storage: Storage, username: str) -> User | None:
    """The enabled account called ``username`` (case-insensitive), or None."""
    row = _row(storage, username)
    if row is None or row["disabled"]:
        return None
    return User(row["username"], row["role"])


def list_users(storage: Storage) -> list[User]:
    """Every enabled account, by name."""
    return [
        User(r["username"], r["role"])
        for r in storage.web_rows.users(enabled_only=True)
    ]


@dataclass(frozen=True)
class Account:
    """An account as ``users list`` shows it: the user and whether it is disabled."""

    user: User
    disabled: bool


def list_accounts(storage: Storage) -> list[Account]:
    """Every account, enabled or not, by name."""
    return [
        Account(User(r["username"], r["role"]), bool(r["disabled"]))
        for r in storage.web_rows.users(enabled_only=False)
    ]


def enabled_admins(storage: Storage) -> list[str]:
    """The enabled ``admin`` accounts, by name."""
    return [u.username for u in list_users(storage) if u.is_admin]


def check_first_admin(storage: Storage, username: str) -> None:
    """What :func:`add_first_admin` refuses before any password is asked (newcomer5 C8).

    Raises:
        UserError: the club already has an enabled admin, or :func:`check_new_account`
            refuses the name.
    """
    admins = enabled_admins(storage)
    if admins:
        raise UserError(f"the club has an admin already ({', '.join(admins)})")
    check_new_account(storage, username, "admin")


def add_first_admin(
    storage: Storage, username: str, password: str, now: datetime, actor: str
) -> User:
    """Create a club's first admin (``forumbot host add-admin``, the host page under
    ``forumbot web --boards``; issue 27): :func:`add_user` with the ``admin`` role, refused
    while the club has an enabled admin (its admins create the club's other accounts; the
    host does not give itself a way into a club that runs). ``actor`` (the host admin) is
    written in the club's audit log.

    Raises:
        UserError: the club already has an enabled admin, or :func:`add_user` refuses.
    """
    check_first_admin(storage, username)
    user = add_user(storage, username, password, "admin", now)
    storage.audit(actor, "user.first_admin", f"user:{user.username}", None, None, now)
    return user


def authenticate(storage: Storage, username: str, password: str) -> User | None:
    """The account when ``password`` matches its hash, else None (same cost either way).

    A hash made with older argon2 parameters is upgraded on success. Blocks for the argon2
    check (tens of ms, 64 MiB): the web page uses :func:`authenticate_in_thread` instead.
    """
    row = _row(storage, username)
    return _finish(storage, row, password, _check_hash(row, password))


def _check_hash(row: dict[str, Any] | None, password: str) -> bool:
    """The argon2 verification alone (no database: safe in a worker thread)."""
    stored = row["password_hash"] if row is not None else _dummy_hash()
    try:
        return bool(_HASHER.verify(stored, password))
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _finish(
    storage: Storage, row: dict[str, Any] | None, password: str, matched: bool
) -> User | None:
    if not matched or row is None or row["disabled"]:
        return None
    if _HASHER.check_needs_rehash(row["password_hash"]):
        storage.web_rows.update_user(row["username"], {"password_hash": _HASHER.hash(password)})
    return User(row["username"], row["role"])


# At most this many argon2 checks run at once (each takes 64 MiB); the others wait their turn
# without holding the event loop.
PASSWORD_CHECKS_AT_ONCE = 2
_CHECK_LIMITERS: weakref.WeakKeyDictionary[object, anyio.CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)  # one per event loop (a limiter belongs to the loop it was made in)


async def authenticate_in_thread(storage: Storage, username: str, password: str) -> User | None:
    """:func:`authenticate` with the argon2 check in a worker thread (at most
    :data:`PASSWORD_CHECKS_AT_ONCE` at once), so other requests are served meanwhile. The
    database is read and written on the calling (event-loop) thread only."""
    loop = asyncio.get_running_loop()
    limiter = _CHECK_LIMITERS.get(loop)
    if limiter is None:
        limiter = _CHECK_LIMITERS[loop] = anyio.CapacityLimiter(PASSWORD_CHECKS_AT_ONCE)
    row = _row(storage, username)
    matched = await anyio.to_thread.run_sync(_check_hash, row, password, limiter=limiter)
    return _finish(storage, row, password, matched)


# -- duel referees ----------------------------------------------------------------------
def duel_referees(storage: Storage, duel_id: int) -> list[str]:
    """Usernames assigned to referee ``duel_id``, by name."""
    return storage.web_rows.duel_referees(duel_id)


def refereed_duels(storage: Storage, username: str) -> set[int]:
    """Ids of the duels ``username`` referees."""
    return storage.web_rows.refereed_duels(username)


def visible_duel_ids(storage: Storage, user: User) -> set[int] | None:
    """The duels ``user`` may see: None means all (admin)."""
    return None if user.is_admin else refereed_duels(storage, user.username)


def can_see_duel(storage: Storage, user: User, duel_id: int) -> bool:
    """True when ``user`` is an admin or referees ``duel_id``."""
    visible = visible_duel_ids(storage, user)
    return visible is None or duel_id in visible


def assign_referee(
    storage: Storage, duel_id: int, username: str, actor: str, now: datetime
) -> None:
    """Let ``username`` referee ``duel_id`` (audit-logged; idempotent).

    Raises:
        UserError: unknown or disabled user, or unknown duel.
    """
    user = get_user(storage, username)
    if user is None:
        raise UserError(f"no user {username!r}")
    if not storage.web_rows.duel_exists(duel_id):
        raise UserError(f"no duel {duel_id}")
    if user.username in duel_referees(storage, duel_id):
        return
    storage.web_rows.insert_referee(
        {
            "duel_id": duel_id,
            "username": user.username,
            "assigned_by": actor,
            "assigned_at": iso(now),
        }
    )
    storage.audit(actor, "duel.assign_referee", f"duel:{duel_id}", None, user.username, now)


def unassign_referee(
    storage: Storage, duel_id: int, username: str, actor: str, now: datetime
) -> None:
    """Remove ``username`` from the referees of ``duel_id`` (audit-logged; idempotent); the
    drafts they had taken in that duel are released."""
    current = [n for n in duel_referees(storage, duel_id) if n.casefold() == username.casefold()]
    if not current:
        return
    storage.web_rows.delete_referee(duel_id, current[0])
    storage.audit(actor, "duel.unassign_referee", f"duel:{duel_id}", current[0], None, now)
    from forumbot.notify.claims import end_claims

    end_claims(storage, current[0], now, actor, duel_id)  # their claims there end (issue 24 F5)
