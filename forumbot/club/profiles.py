"""Duellist profiles: a character's year and magic types, recorded once per board.

Shared by both desks (:mod:`forumbot.club.solo_registrations`, 1v1, and
:mod:`forumbot.club.duo_registrations`, 2v2) and the admin's CLI. RULES.md: magic types are
"fixed between duels unless [...] an admin records the change" (:func:`set_profile`); a first
sign-up records the profile (:func:`insert_profile`); a returning duellist's recorded profile
wins over what a new sign-up says **[D]**.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from parsers.registration import Partner, fold, parse_magic_types, parse_year
from rules.fatigue import FatigueRuleset
from rules.matchmaking import player_key


class ProfileError(ValueError):
    """A duellist profile change refused (message in English for the admin's CLI)."""


@dataclass(frozen=True)
class Profile:
    """A duellist's recorded profile (changed only by an admin: :func:`set_profile`).

    Attributes:
        character: the duellist's name; player: the forum account behind it.
        year: ``"1"``..``"7"`` or ``"adult"``; magic_types: one or two type keys.
    """

    character: str
    player: str
    year: str
    magic_types: tuple[str, ...]


def get_profile(storage: Storage, board_id: int, character: str) -> Profile | None:
    """The recorded profile of ``character`` (case and accents ignored), or None."""
    # one plain query: the desk asks it for every queued pairing
    r = storage.club_rows.profile(board_id, fold(character))
    if r is None:
        return None
    return Profile(r[0], r[1], r[2], tuple(json.loads(r[3])))


def profiles_of(storage: Storage, board_id: int, player: str) -> list[Profile]:
    """The profiles of every character of ``player``."""
    rows = storage.club_rows.profiles(board_id)
    return [
        Profile(r["character"], r["player"], r["year"], tuple(json.loads(r["magic_types_json"])))
        for r in rows
        if player_key(r["player"]) == player_key(player)
    ]


def insert_profile(storage: Storage, board_id: int, profile: Profile, now: datetime) -> None:
    """Record ``profile`` for a new duellist (a first sign-up; an existing profile is kept:
    ``ignore``). Not audited: the sign-up post is the record."""
    storage.club_rows.insert_profile(
        {
            "board_id": board_id,
            "character_key": fold(profile.character),
            "character": profile.character,
            "player": profile.player,
            "year": profile.year,
            "magic_types_json": json.dumps(list(profile.magic_types)),
            "created_at": iso(now),
            "updated_at": iso(now),
            "updated_by": "forumbot",
        },
    )


def set_profile(
    storage: Storage,
    board_id: int,
    character: str,
    year: str,
    magic_types: Sequence[str],
    by: str,
    now: datetime,
    *,
    player: str | None = None,
    ruleset: str = "fatigue",
) -> Profile:
    """An admin records a duellist's year and magic types (seed 001: the type changes only with
    "un changement de caractère marqué en RP" or "une nouvelle baguette"). Audited.

    Args:
        year: ``"1"``..``"7"``, ``"adult"`` (or ``"5e année"``, ``"adulte"``).
        magic_types: one or two types (keys or labels, e.g. ``["brutale", "Discrète"]``).
        player: the forum account; default the existing profile's, else the character's name.

    Raises:
        ProfileError: bad year, unknown magic type, not one or two types.
    """
    parsed = parse_year(year, labelled=True)
    if parsed is None or (parsed != "adult" and not 1 <= int(parsed) <= 7):
        raise ProfileError(f"year must be 1..7 or adult, got {year!r}")
    rs = load_ruleset(ruleset)
    if not isinstance(rs, FatigueRuleset):
        raise ProfileError(f"ruleset {ruleset!r} has no magic types")
    known = {k: t.label for k, t in rs.magic_types.items()}
    keys, unknown = parse_magic_types(", ".join(magic_types), known)
    if unknown:
        raise ProfileError(f"unknown magic type(s) {list(unknown)}; known: {sorted(known)}")
    if not 1 <= len(keys) <= 2:
        raise ProfileError(f"one or two magic types, got {list(magic_types)}")
    before = get_profile(storage, board_id, character)
    owner = player or (before.player if before else character)
    after = Profile(before.character if before else character, owner, parsed, keys)
    with storage.atomic():
        storage.club_rows.upsert_profile(
            {
                "board_id": board_id,
                "character_key": fold(character),
                "character": after.character,
                "player": owner,
                "year": parsed,
                "magic_types_json": json.dumps(list(keys)),
                "created_at": iso(now),
                "updated_at": iso(now),
                "updated_by": by,
            },
        )
        storage.audit(
            by,
            "profile.set",
            f"profile:{fold(character)}",
            before.__dict__ if before else None,
            after.__dict__,
            now,
        )
    return after


def _of(name: str) -> str:
    """« de X », elided before a vowel (« d'Odric Fenwick »)."""
    return f"d'{name}" if fold(name[:1]) in tuple("aeiouy") else f"de {name}"


def partner_profile(
    storage: Storage, board_id: int, partner: Partner
) -> tuple[str, str, Profile | None, str | None]:
    """The partner a sign-up names (a 1v1 opponent or a 2v2 teammate): ``(name, player, new
    profile to record or None, French error or None)``. A partner with a recorded profile is
    that profile's character and player; otherwise the sign-up must give their year and magic
    type (the partner's forum account is taken to be their name)."""
    known = get_profile(storage, board_id, partner.name)
    if known is not None:
        return known.character, known.player, None, None
    if partner.year is None or not partner.magic_types:
        return (
            partner.name,
            partner.name,
            None,
            f"Indique l'année d'études et le type de magie {_of(partner.name)} : ce personnage "
            "n'a pas encore de fiche au club.",
        )
    new = Profile(partner.name, partner.name, partner.year, partner.magic_types)
    return partner.name, partner.name, new, None


__all__ = [
    "Profile",
    "ProfileError",
    "get_profile",
    "insert_profile",
    "partner_profile",
    "profiles_of",
    "set_profile",
]
