"""A duel's stakes as the club settles them, read from storage (issue 25; moved here from
``forumbot.club`` so the final declarations can name who owes whom, reader after issue 25, C7).

Seed 001: the stakes "must be honoured whatever they are". **[D]** Stakes are due only when
they were accepted: in a duel the sign-up desk opened, every duellist wrote the same stakes in
their own sign-up (the topic said « Enjeux acceptés par les deux duellistes »); in a duel
adopted by hand, the stakes the topic's first post announced are the duel's terms. The losers
owe them to the winners; with no winner nobody owes them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from forumbot.storage import Storage
from forumbot.storage.profiles import registration_row
from parsers.registration import fold


@dataclass(frozen=True)
class StakesTerms:
    """A duel's stakes as the club settles them.

    Attributes:
        text: the stakes (player text, untrusted), None when there are none.
        agreed: every duellist accepted them (see the module's [D]).
        proposed_by: who wrote them when not agreed (may be empty: a row stored before the
            writers were recorded).
        not_by: the duellists who did not write them, when not agreed (reader after issue
            25, W1 and C12: « n'ont pas été acceptés par Cassius Thorne »).
        written: ``(name, stakes)`` each writer wrote (player text), in sign-up order.
    """

    text: str | None
    agreed: bool
    proposed_by: tuple[str, ...] = ()
    not_by: tuple[str, ...] = ()
    written: tuple[tuple[str, str], ...] = ()

    def differing(self) -> list[dict[str, str]]:
        """``[{"name", "stakes"}]`` of each writer when they wrote different stakes (case and
        accents aside), else ``[]``: the texts then say what each one wrote, never the first
        one's words as everyone's (sixth reader after issue 25, W1)."""
        if self.agreed or len({fold(t) for _, t in self.written}) < 2:
            return []
        return [{"name": n, "stakes": t} for n, t in self.written]


def stakes_written(
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
        for r in storage.duel_rows.signup_stakes(table, board_id, post_id):
            out.append((character if table == "requests" else r["character"], r["stakes"]))
    return out


def stakes_view(
    written: Sequence[tuple[str, str]], stakes: str | None, duellists: int
) -> dict[str, Any]:
    """What the duel topic says of the stakes (issue 15: « Enjeux proposés par X » unless every
    duellist wrote them): ``stakes_agreed`` (every duellist wrote the same stakes, case and
    accents ignored) and ``stakes_by`` (``[{"name", "stakes"}]``, each duellist who wrote
    some, with what they wrote). With stakes but no writer found (a row stored before this
    was recorded), the stakes are proposed by nobody named: ``stakes_by`` holds one entry
    with an empty name."""
    agreed = len(written) == duellists and len({fold(s) for _, s in written}) == 1
    by = [{"name": name, "stakes": text} for name, text in written]
    if stakes and not by:
        by = [{"name": "", "stakes": stakes}]
    return {"stakes_agreed": agreed, "stakes_by": by}


def _by_topic(
    storage: Storage, board_id: int, topic_id: int
) -> tuple[str, dict[str, Any]] | None:
    """The sign-up desk's pairing that opened ``topic_id``: the opening is drafted before the
    desk records the duel's id on it."""
    return storage.duel_rows.pairing_of_topic(board_id, topic_id)


def stakes_terms(
    storage: Storage, board_id: int, duel: dict[str, Any], *, topic_id: int | None = None
) -> StakesTerms:
    """The stakes of ``duel`` (a ``duels`` row: ``id``, ``stakes``) and whether they were
    accepted; ``topic_id``: also look the desk's pairing up by its topic (the opening)."""
    text = duel.get("stakes")
    if not text:
        return StakesTerms(None, False)
    found = registration_row(storage, int(duel["id"]))
    if found is None and topic_id is not None:
        found = _by_topic(storage, board_id, topic_id)
    if found is None:
        return StakesTerms(str(text), True)
    table, row = found
    if table == "queue":
        places = [(int(str(row["first_post_id"])), str(row["first_character"])),
                  (int(str(row["second_post_id"])), str(row["second_character"]))]  # fmt: skip
        written = stakes_written(storage, board_id, "requests", places)
        view = stakes_view(written, str(text), 2)
    else:
        entries = [e for d in json.loads(str(row["duos_json"])) for e in d]
        places = [(int(e["post_id"]), str(e["character"])) for e in entries]
        written = stakes_written(storage, board_id, "duo_entries", places)
        view = stakes_view(written, str(text), len(entries))
    names = tuple(str(s["name"]) for s in view["stakes_by"] if s["name"])
    agreed = bool(view["stakes_agreed"])
    others = () if agreed else tuple(dict.fromkeys(n for _, n in places if n not in names))
    written_by = tuple((str(w["name"]), str(w["stakes"])) for w in view["stakes_by"] if w["name"])
    return StakesTerms(str(text), agreed, names, others, written_by)


def public_stakes(terms: StakesTerms, winners: Sequence[str], losers: Sequence[str]) -> (
    dict[str, Any] | None
):
    """The final declaration's stakes sentence (``_stakes_public.bbcode.j2``): ``case``
    (``owed``: ``losers`` owe ``winners``; ``not_accepted``: ``names`` proposed them;
    ``no_winner``), ``stakes`` (player text), ``names``, ``refused`` (who did not accept
    them), ``winners``, ``losers``. None when the duel has no stakes."""
    if terms.text is None:
        return None
    if not terms.agreed:
        case = "not_accepted"
    elif not winners:
        case = "no_winner"
    else:
        case = "owed"
    return {"case": case, "stakes": terms.text, "names": list(terms.proposed_by),
            "refused": list(terms.not_by), "differing": terms.differing(),
            "winners": list(winners), "losers": list(losers)}  # fmt: skip


def opening_stakes(
    storage: Storage | None, board_id: int, stakes: str | None, topic_id: int
) -> dict[str, Any]:
    """What an opening declaration says of the stakes (reader after issue 25, W1):
    ``stakes_agreed`` (bool), ``stakes_by`` (who proposed them when not agreed) and
    ``stakes_not_by`` (who did not write them), ``stakes_differing`` (each writer's own
    stakes when they differ: :meth:`StakesTerms.differing`). Without a storage or stakes:
    agreed."""
    if storage is None or not stakes:
        return {"stakes_agreed": True, "stakes_by": [], "stakes_not_by": [],
                "stakes_differing": []}  # fmt: skip
    terms = stakes_terms(storage, board_id, {"id": -1, "stakes": stakes}, topic_id=topic_id)
    return {"stakes_agreed": terms.agreed, "stakes_by": list(terms.proposed_by),
            "stakes_not_by": list(terms.not_by), "stakes_differing": terms.differing()}  # fmt: skip


def final_stakes(
    storage: Storage | None, board_id: int, duel_id: int, stakes: str | None,
    outcome: dict[str, Any],
) -> dict[str, Any] | None:  # fmt: skip
    """:func:`public_stakes` of a finished 1v1 ``outcome`` (a turn outcome's dict: ``winner``,
    ``draw``, ``state.duellists``); None when not finished, without stakes or storage (the
    final declaration then prints the stakes as the duel's terms)."""
    if storage is None or not stakes or not outcome.get("finished"):
        return None
    winner = None if outcome.get("draw") else outcome.get("winner")
    winners = [winner] if winner else []
    names = [str(d["name"]) for d in outcome["state"]["duellists"]]
    losers = [n for n in names if winner and n != winner]
    terms = stakes_terms(storage, board_id, {"id": duel_id, "stakes": stakes})
    return public_stakes(terms, winners, losers)


__all__ = [
    "StakesTerms", "final_stakes", "opening_stakes", "public_stakes", "stakes_terms",
    "stakes_view", "stakes_written",
]  # fmt: skip
