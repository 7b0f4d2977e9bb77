"""Whether a duel's stakes were accepted, read from the sign-up desk's tables (issue 25, reader
W1: the final declaration said « Enjeux à honorer » for stakes the result owls called not due).

Seed 001: the stakes "must be honoured whatever they are". **[D]** Stakes are due only when
they were accepted: in a duel the sign-up desk opened, every duellist wrote the same stakes in
their own sign-up (case and accents ignored); in a duel adopted by hand, the stakes the topic's
first post announced are the duel's terms. The declarations (:mod:`forumbot.duels`) and the
result owls (:mod:`forumbot.club.stakes`) read the same answer here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from forumbot.storage.db import Storage
from parsers.registration import fold


@dataclass(frozen=True)
class StakesTerms:
    """A duel's stakes as the club settles them.

    Attributes:
        text: the stakes (player text, untrusted), None when there are none.
        agreed: every duellist accepted them (see the module's [D]).
        proposed_by: who wrote them when not agreed (may be empty: a row stored before the
            writers were recorded).
        not_by: the duellists who did not write them (empty when agreed or unknown).
    """

    text: str | None
    agreed: bool
    proposed_by: tuple[str, ...] = ()
    not_by: tuple[str, ...] = ()


def written_stakes(
    storage: Storage, board_id: int, table: str, places: Sequence[tuple[int, str]]
) -> list[tuple[str, str]]:
    """``(character, stakes)`` of each duellist whose own sign-up (a ``requests`` or
    ``duo_entries`` row of that post) wrote stakes, in the order of ``places`` (``(post id,
    character)``). A duellist named in someone else's sign-up who never posted one wrote
    none (their place carries the other's post id: counted once)."""
    out: list[tuple[str, str]] = []
    seen: set[int] = set()
    for post_id, character in places:
        if post_id in seen:
            continue
        seen.add(post_id)
        for r in storage.db[table].rows_where(
            "board_id = ? and post_id = ? and stakes is not null", [board_id, post_id]
        ):
            out.append((character if table == "requests" else r["character"], r["stakes"]))
    return out


def stakes_agreed(written: Sequence[tuple[str, str]], duellists: int) -> bool:
    """Every one of the ``duellists`` wrote the same stakes (case and accents ignored)."""
    return len(written) == duellists and len({fold(s) for _, s in written}) == 1


def _desk_row(
    storage: Storage, board_id: int, duel_id: int | None, topic_id: int | None
) -> tuple[str, dict[str, object]] | None:
    for table in ("queue", "duo_matches"):
        if duel_id is not None:
            rows = list(storage.db[table].rows_where("duel_id = ?", [duel_id], limit=1))
            if rows:
                return table, rows[0]
        if topic_id is not None:  # the opening is drafted before the desk records the duel id
            rows = list(
                storage.db[table].rows_where(
                    "board_id = ? and topic_id = ?", [board_id, topic_id], limit=1
                )
            )
            if rows:
                return table, rows[0]
    return None


def duel_stakes(
    storage: Storage,
    board_id: int,
    text: str | None,
    *,
    duel_id: int | None = None,
    topic_id: int | None = None,
) -> StakesTerms:
    """The stakes ``text`` of a duel (by ``duel_id``, or by ``topic_id`` before the sign-up
    desk has recorded the duel id) and whether they were accepted (module doc)."""
    if not text:
        return StakesTerms(None, False)
    found = _desk_row(storage, board_id, duel_id, topic_id)
    if found is None:
        return StakesTerms(str(text), True)
    table, row = found
    if table == "queue":
        places = [(int(str(row["first_post_id"])), str(row["first_character"])),
                  (int(str(row["second_post_id"])), str(row["second_character"]))]  # fmt: skip
        written = written_stakes(storage, board_id, "requests", places)
    else:
        entries = [e for d in json.loads(str(row["duos_json"])) for e in d]
        places = [(int(e["post_id"]), str(e["character"])) for e in entries]
        written = written_stakes(storage, board_id, "duo_entries", places)
    agreed = stakes_agreed(written, len(places))
    names = tuple(dict.fromkeys(name for name, _ in written if name))
    others = () if agreed else tuple(n for _, n in places if n not in names)
    return StakesTerms(str(text), agreed, names, others)





def stakes_context(
    storage: Storage | None,
    board_id: int,
    text: str | None,
    *,
    duel_id: int | None = None,
    topic_id: int | None = None,
) -> dict[str, object]:
    """What a declaration says of the stakes: ``stakes_agreed`` (bool), ``stakes_by`` (who
    proposed them when not agreed) and ``stakes_not_by`` (who did not write them). Without a
    storage (a test's bare flow), the stakes are taken as the duel's terms."""
    if storage is None or not text:
        return {"stakes_agreed": True, "stakes_by": [], "stakes_not_by": []}
    terms = duel_stakes(storage, board_id, text, duel_id=duel_id, topic_id=topic_id)
    return {
        "stakes_agreed": terms.agreed,
        "stakes_by": list(terms.proposed_by),
        "stakes_not_by": list(terms.not_by),
    }
__all__ = ["StakesTerms", "duel_stakes", "stakes_agreed", "stakes_context", "written_stakes"]
