"""Who is engaged where on a board, across the 1v1 and 2v2 desks, and whether a formed duel
can be played.

RULES.md "Registration and scheduling": "a player (the person, across all their characters) is
in one duel at a time". Both desks read the board's engagements from storage with
:func:`board_engagements` (decided by :class:`rules.matchmaking.Engagements`), and re-check a
formed duel just before its topic is created with :func:`unplayable_reason` (one player or one
character twice, or a duellist without a profile **[D]**: the duel is cancelled, not retried).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from forumbot.club.profiles import get_profile
from forumbot.storage import Storage
from rules.matchmaking import Engagement, Engagements, Entrant, Repeat, repeated

Stage = Literal["open", "queued", "running"]

#: The French name of each duel kind, for the replies ("un duel en ...").
KIND_LABELS: dict[str, str] = {"1v1": "un contre un", "2v2": "deux contre deux"}


def board_engagements(storage: Storage, board_id: int) -> Engagements:
    """Every player's engagements on the board, both kinds (for
    :class:`rules.matchmaking.Engagements`):

    - 1v1 ``requests`` still open -> ``open`` (ref: the sign-up's post id);
    - 1v1 ``queue`` rows ``queued`` -> ``queued``, ``opening``/``running`` -> ``running`` (ref:
      the queue row id);
    - 2v2 ``duo_entries`` ``lone`` or ``duo`` -> ``open`` for each member (ref: the entry's
      post id);
    - 2v2 ``duo_matches`` ``queued`` -> ``queued``, ``opening``/``running`` -> ``running``
      (ref: the match row id).

    A queue row or match whose duel is already ``finished`` (not settled yet) counts as over.
    """
    rows = storage.club_rows
    items: list[Engagement] = []
    for r in rows.open_requests(board_id):
        items.append(Engagement(r[1], "1v1", "open", int(r[0])))
    for r in rows.live_pairings(board_id):
        stage: Stage = "queued" if r[1] == "queued" else "running"
        items += [Engagement(p, "1v1", stage, int(r[0])) for p in (r[2], r[3])]
    for r in rows.open_duo_entries(board_id):
        items += [Engagement(p, "2v2", "open", int(r[0])) for p in (r[1], r[2]) if p]
    for r in rows.live_duo_matches(board_id):
        stage = "queued" if r[1] == "queued" else "running"
        players = [e["player"] for duo in json.loads(r[2]) for e in duo]
        items += [Engagement(p, "2v2", stage, int(r[0])) for p in players]
    return Engagements(tuple(items))


def repeat_reason(rep: Repeat) -> str:
    """The French reason a duel holding ``rep`` cannot be played (for
    ``signup_cancelled.bbcode.j2``)."""
    if rep.what == "player":
        return (
            f"{rep.name} y occuperait deux places, or on ne participe qu'à un seul duel à la "
            "fois, avec un seul de ses personnages."
        )
    return f"le personnage {rep.name} y figurerait deux fois."


def unplayable_reason(storage: Storage, board_id: int, entrants: Sequence[Entrant]) -> str | None:
    """Why a formed duel (its duellists ``entrants``, any kind) cannot be opened, in French, or
    None when it can: one player or one character twice (:func:`rules.matchmaking.repeated`:
    players by :func:`rules.matchmaking.player_key`, characters as the profiles fold them), or a
    duellist without a recorded profile. Checked again just before a duel topic is created, so
    a bad duel stored earlier is cancelled instead of wedging the cycle."""
    rep = repeated(entrants)
    if rep is not None:
        return repeat_reason(rep)
    for e in entrants:
        if get_profile(storage, board_id, e.character) is None:
            return f"le personnage {e.character} n'a pas de fiche au club."
    return None


__all__ = ["KIND_LABELS", "board_engagements", "repeat_reason", "unplayable_reason"]
