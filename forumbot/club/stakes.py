"""What the result owls say of a finished duel's stakes (issue 25: « Enjeux à honorer » said
neither who owes whom nor that stakes proposed by one duellist and never accepted are not due).

Seed 001: the stakes "must be honoured whatever they are". **[D]** Stakes are due only when
they were accepted: in a duel the sign-up desk opened, every duellist wrote the same stakes in
their own sign-up (:func:`forumbot.club.topics.stakes_view`, the topic said « Enjeux acceptés
par les deux duellistes »); in a duel adopted by hand, the stakes the topic's first post
announced are the duel's terms. The losers owe them to the winners; with no winner nobody owes
them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.topics import stakes_view, stakes_written
from forumbot.storage.profiles import registration_row


@dataclass(frozen=True)
class StakesTerms:
    """A duel's stakes as the club settles them.

    Attributes:
        text: the stakes (player text, untrusted), None when there are none.
        agreed: every duellist accepted them (see the module's [D]).
        proposed_by: who wrote them when not agreed (may be empty: a row stored before the
            writers were recorded).
    """

    text: str | None
    agreed: bool
    proposed_by: tuple[str, ...] = ()


def stakes_terms(ctx: DeskContext, duel: dict[str, Any]) -> StakesTerms:
    """The stakes of ``duel`` (a ``duels`` row) and whether they were accepted."""
    text = duel.get("stakes")
    if not text:
        return StakesTerms(None, False)
    found = registration_row(ctx.storage, int(duel["id"]))
    if found is None:
        return StakesTerms(str(text), True)
    table, row = found
    if table == "queue":
        places = [(int(str(row["first_post_id"])), str(row["first_character"])),
                  (int(str(row["second_post_id"])), str(row["second_character"]))]  # fmt: skip
        view = stakes_view(stakes_written(ctx, "requests", places), str(text), 2)
    else:
        entries = [e for d in json.loads(str(row["duos_json"])) for e in d]
        places = [(int(e["post_id"]), str(e["character"])) for e in entries]
        view = stakes_view(stakes_written(ctx, "duo_entries", places), str(text), len(entries))
    names = tuple(str(s["name"]) for s in view["stakes_by"] if s["name"])
    return StakesTerms(str(text), bool(view["stakes_agreed"]), names)


def stakes_owed(
    terms: StakesTerms, me: str, winners: list[str], losers: list[str]
) -> dict[str, Any] | None:
    """The template context of the owl's stakes sentence for ``me``: ``case`` (``owed_to_me``,
    ``i_owe``, ``not_accepted``, ``no_winner``), ``stakes`` (the player's text), ``names``
    (who owes ``me``, whom ``me`` owes, or who proposed them), ``duo`` (a 2v2: « ton duo »).
    None when there are no stakes."""
    if terms.text is None:
        return None
    duo = len(winners) > 1 or len(losers) > 1
    if not terms.agreed:
        case, names = "not_accepted", list(terms.proposed_by)
    elif not winners:
        case, names = "no_winner", []
    elif me in winners:
        case, names = "owed_to_me", losers
    else:
        case, names = "i_owe", winners
    return {"case": case, "stakes": terms.text, "names": names, "duo": duo}


__all__ = ["StakesTerms", "stakes_owed", "stakes_terms"]
