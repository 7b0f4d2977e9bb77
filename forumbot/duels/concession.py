"""A duellist's concession, recorded by the staff (issue 13: ``forumbot duels concede TOPIC
NAME``).

Rules (RULES.md): fatigue 1v1, "a duellist whose PV reach 0 must abandon; conceding also gives
the opponent the win **[D]**" (:func:`rules.fatigue.concede`, setting ``concession``:
``opponent_wins`` or ``no_winner``). Classic: seed 000 and RULES.md are silent; **[D]** the same
as fatigue: the opponent wins. Two against two: RULES.md is silent on one member conceding;
**[D]** setting ``member_concession`` of ``rules/data/duo.toml``, ``"duo_loses"`` (their duo
loses at once, as when a member is disqualified; the only value implemented).

What :func:`concede_duel` does, in one transaction: the duel's unpublished drafts and pending
deadlines are cancelled (nothing else may be declared after the concession), and the final
declaration is stored, kind ``closure`` (key ``b<board>t<topic>-concession``, template
``concession.bbcode.j2``), already ``approved``: it is the staff's decision, so the next publish
pass posts it (exactly once, like every declaration). Its publication finishes the duel through
the flow's ``on_published`` (:func:`forumbot.duels.publication.apply_published`): the stored
outcome becomes the duel's state, status ``finished``; the club then gives the rewards once
(the referee's ``on_finished`` hooks for 1v1 duels, :func:`forumbot.club.duo_settling.settle_duo`
for 2v2 ones, both keyed). The audit log gets ``duel.concede`` (before: status and points;
after: who conceded, the winners, the declaration). While the concession waits for its
publication, the flows draft nothing more for the duel (:func:`forumbot.duels.ending.conceding`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import rules
from forumbot.duels.duo_board import current_state, duo_settings
from forumbot.duels.ending import (
    CONCESSION,
    EndingError,
    _cancel_drafts,
    conceding,
    forum_rolled,
)
from forumbot.duels.flows import flow_for
from forumbot.duels.stakes import public_stakes, stakes_terms
from forumbot.publish.render import marker_text, render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.records import Duel, declaration_row
from rules.fatigue import concede
from rules.model import DuelState


@dataclass(frozen=True)
class Conceded:
    """What a concession did: the ``duel_id``, who ``conceded`` (the stored name), the
    ``winners`` (names; empty when the duel ends with no winner), the ``declaration`` id
    drafted (approved) and the ``drafts`` cancelled (ids)."""

    duel_id: int
    conceded: str
    winners: tuple[str, ...]
    declaration: int
    drafts: tuple[int, ...]


def _classic(state: DuelState, name: str) -> dict[str, Any]:
    """[D] classic: the opponent wins (as fatigue's ``opponent_wins``)."""
    other = next(d.name for d in state.duellists if d.name != name)
    after = replace(state, finished=True, winner=other, draw=False)
    return {
        "turn": state.turn,
        "state": after.to_dict(),
        "finished": True,
        "winner": other,
        "draw": False,
        "violations": [],
        "trail": [],
    }


def _duo(storage: Storage, duel: Duel, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """2v2 (setting ``member_concession`` ``duo_loses``): the member's duo loses. Returns
    (outcome, the template's extra context: ``duo_state``, ``teammate``)."""
    if duo_settings().member_concession != "duo_loses":  # pragma: no cover - the only choice
        raise EndingError("member_concession: only 'duo_loses' is implemented")
    s = current_state(storage, duel)
    losers = next(duo for duo in s.duos if name in duo)
    winners = next(duo for duo in s.duos if name not in duo)
    after = replace(
        s,
        duel=replace(s.duel, finished=True, draw=False, winner=" & ".join(winners)),
        winners=tuple(winners),
        losers=tuple(losers),
        pending=(),
    )
    outcome = {
        "turn": s.duel.turn,
        "state": after.duel.to_dict(),
        "finished": True,
        "winner": after.duel.winner,
        "draw": False,
        "violations": [],
        "attacks": [],
        "winners": list(winners),
        "losers": list(losers),
        "trail": [],
        "dice": {},
    }
    teammate = next(n for n in losers if n != name)
    return outcome, {"duo_state": after.to_dict(), "teammate": teammate}


def concede_duel(
    storage: Storage,
    duel_id: int,
    name: str,
    actor: str,
    now: datetime,
    *,
    referee_name: str = "L'arbitre",
    language: str = "fr",
    verify_docs_url: str = "",
) -> Conceded:
    """Record that duellist ``name`` (matched case-insensitively) concedes the running duel
    ``duel_id``; see the module doc for what follows.

    Raises:
        EndingError: unknown duel, a duel not running (not started: cancel it instead;
            over; ignored), a name that is not one of its duellists, or a concession already
            waiting for its publication.
    """
    try:
        row = storage.duel(duel_id)
    except Exception as exc:  # sqlite_utils NotFoundError
        raise EndingError(f"no duel {duel_id}") from exc
    if row["status"] == "open":
        raise EndingError(
            f"duel {duel_id} has not started (its opening is not out): "
            "cancel it instead (forumbot duels cancel)"
        )
    if row["status"] != "running":
        raise EndingError(f"duel {duel_id} is {row['status']}: nobody can concede it")
    if conceding(storage, duel_id):
        raise EndingError(f"duel {duel_id}: a concession already waits for its publication")
    duel = Duel.from_row(row)
    state = DuelState.from_dict(duel.state)
    names = {d.name.casefold(): d.name for d in state.duellists}
    if name.strip().casefold() not in names:
        raise EndingError(
            f"{name!r} is not a duellist of duel {duel_id} ({', '.join(names.values())})"
        )
    who = names[name.strip().casefold()]
    ruleset = load_ruleset(str(duel.ruleset))
    kind = flow_for(storage, duel, ruleset).name
    extra: dict[str, Any] = {"teammate": None}
    if kind == "duo":
        outcome, extra = _duo(storage, duel, who)
        winners = tuple(outcome["winners"])
    elif kind == "fatigue":
        try:
            outcome = concede(state, who, ruleset=ruleset).to_dict()
        except rules.RuleError as exc:
            raise EndingError(str(exc)) from exc
        winners = (outcome["winner"],) if outcome["winner"] else ()
    else:
        outcome = _classic(state, who)
        winners = (outcome["winner"],)
    # the seed is revealed at the end (a 2v2's covers its placement and rewards too), unless
    # the forum rolled the duel's dice (Forumactif): then the bot has no seed to reveal
    bot_dice = bool(duel.dice_secret) and (kind == "duo" or not forum_rolled(storage, duel.id))
    context: dict[str, Any] = {
        "title": duel.title,
        "conceded_by": who,
        "winners": list(winners),
        "stakes": duel.stakes,
        # who owes the stakes to whom (reader after issue 25, C7)
        "owed": public_stakes(
            stakes_terms(storage, duel.board_id, {"id": duel.id, "stakes": duel.stakes}),
            list(winners),
            [d.name for d in state.duellists if winners and d.name not in winners],
        ),
        "unit": ruleset.unit,
        "duellists": [
            {"name": d["name"], "points": d["points"]} for d in outcome["state"]["duellists"]
        ],
        "dice_secret": duel.dice_secret if bot_dice else None,
        "commitment": duel.dice_commitment if bot_dice else None,
        "referee_name": referee_name,
        "verify_docs_url": verify_docs_url,
        **extra,
    }
    text = render("concession.bbcode.j2", context, language)
    inputs = {
        "engine": kind,
        "step": CONCESSION,
        "conceded_by": who,
        "state_before": state.to_dict(),
        "posts": [],
        "dice": {},
    }
    board_id = int(row["board_id"])
    key = f"b{board_id}t{duel.topic_id}-{CONCESSION}"
    with storage.atomic():
        drafts = _cancel_drafts(storage, duel_id, f"{who} conceded", actor, now)
        storage.duel_tasks.cancel_pending(duel_id, "concession", iso(now))
        decl_id = int(
            storage.duel_rows.insert_declaration(
                declaration_row(
                    duel_id=duel_id, turn=state.turn, kind="closure", key=key,
                    marker=marker_text(key), text=text,
                    context_json=json.dumps(
                        {"context": context, "inputs": inputs, "outcome": outcome},
                        ensure_ascii=False,
                    ),
                    status="approved", publish_after=None, at=iso(now),
                )  # fmt: skip
            )
        )
        storage.audit(
            actor, "duel.concede", f"duel:{duel_id}",
            {"status": row["status"], "turn": state.turn,
             "points": {d.name: d.points for d in state.duellists}},
            {"conceded_by": who, "winners": list(winners), "declaration": decl_id,
             "drafts_cancelled": drafts},
            now,
        )  # fmt: skip
    return Conceded(duel_id, who, winners, decl_id, tuple(drafts))


__all__ = ["Conceded", "concede_duel"]
