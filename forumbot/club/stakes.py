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

from typing import Any

from forumbot.club.context import DeskContext
from forumbot.duels.stakes import StakesTerms
from forumbot.duels.stakes import stakes_terms as _stakes_terms


def stakes_terms(ctx: DeskContext, duel: dict[str, Any]) -> StakesTerms:
    """The stakes of ``duel`` (a ``duels`` row) and whether they were accepted
    (:func:`forumbot.duels.stakes.stakes_terms` on the desk's board)."""
    return _stakes_terms(ctx.storage, ctx.board_id, duel)


def stakes_owed(
    terms: StakesTerms, me: str, winners: list[str], losers: list[str]
) -> dict[str, Any] | None:
    """The template context of the owl's stakes sentence for ``me``: ``case`` (``owed_to_me``,
    ``i_owe``, ``not_accepted``, ``no_winner``), ``stakes`` (the player's text), ``names``
    (who owes ``me``, whom ``me`` owes, or who proposed them, ``me`` left out), ``by_me``
    (``me`` proposed them), ``refused`` (who did not write them, ``me`` left out),
    ``i_refused`` (``me`` did not write them), ``duo`` (a 2v2: « ton duo »). None when there
    are no stakes. Issue 25, reader C12: an owl never names its reader in the third person."""
    if terms.text is None:
        return None
    duo = len(winners) > 1 or len(losers) > 1
    if not terms.agreed:
        case, names = "not_accepted", [n for n in terms.proposed_by if n != me]
    elif not winners:
        case, names = "no_winner", []
    elif me in winners:
        case, names = "owed_to_me", losers
    else:
        case, names = "i_owe", winners
    return {
        "case": case, "stakes": terms.text, "names": names, "duo": duo,
        "by_me": me in terms.proposed_by,
        "refused": [n for n in terms.not_by if n != me], "i_refused": me in terms.not_by,
        "differing": [
            {"name": "toi" if w["name"] == me else w["name"], "stakes": w["stakes"]}
            for w in sorted(terms.differing(), key=lambda w: w["name"] != me)
        ],
    }  # fmt: skip


__all__ = ["StakesTerms", "stakes_owed", "stakes_terms"]
