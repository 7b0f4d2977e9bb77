"""A duel nobody loses PV in: propose a close to the referee (issue 17, "self-heals forever").

Two adults who have used every attack spell on each other can heal themselves forever: every
cast is legal and the duel never ends. RULES.md leaves it to the referee, so the bot invents no
rule and closes nothing: after each published declaration that closes a turn,
:func:`check_stalemate` reads the life totals at every turn boundary of the duel (the
published turn declarations' stored states), asks :func:`rules.stalemate.propose_close`
whether the last ``club.stalemate_turns`` turns lost no PV, and if so opens one referee task
(``referee_tasks``, kind ``stalemate``) whose French text comes from
``publish/templates/fr/stalemate_task.txt.j2`` (« Aucun PV perdu depuis N tours : clore le
duel sans vainqueur ? »). The referee closes the task (``done``) and decides on the duel.

One task per run of quiet turns and per ``N`` turns of it: the source key is
``b<board>-duel<id>-stalemate-t<first quiet turn>-x<run // N>``, and no new task is opened
while one of the duel is open. Runs inside the publication's transaction
(:func:`forumbot.duels.publication.apply_published`), so a crash leaves both or neither.
Every flow's declarations store the state after them (``outcome.state``, a
:class:`rules.model.DuelState`: two duellists in 1v1, four in 2v2), so this works for fatigue
1v1, 2v2 and classic alike.

Issue 26: a fatigue duel whose duellists have no damaging spell left to cast at any opponent
(the reuse ban, levels, ``max_casts``; :func:`rules.stalemate.propose_exhausted`) can never end
by play, whatever the turn count: :func:`check_exhausted` opens one referee task for it at
once (kind ``stalemate``, key ``b<board>-duel<id>-exhausted``: once per duel), proposing the
seed's own end (relaunch, then close with no winner) or the club's stalemate rule
(``publish/templates/fr/stalemate_exhausted_task.txt.j2``). It runs whatever
``club.stalemate_turns`` says (it is a certainty, not a guess), and names no winner.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from forumbot.duels.duo_board import add_task
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage
from forumbot.storage.records import Declaration, Duel
from rules.duo.state import DuoState
from rules.fatigue import FatigueRuleset
from rules.model import DuelState
from rules.stalemate import (
    DEFAULT_QUIET_TURNS,
    CloseProposal,
    points_by_turn,
    propose_close,
    propose_exhausted,
)

log = logging.getLogger("forumbot.duels.stalemate")

TASK_KIND = "stalemate"
TEMPLATE = "stalemate_task.txt.j2"
EXHAUSTED_TEMPLATE = "stalemate_exhausted_task.txt.j2"


def closes_turn(row: Declaration | dict[str, Any]) -> bool:
    """True when the turn declaration ``row`` (a record or a row dict) closed a turn: its
    stored state after is of a later turn than its state before (every engine counts a turn
    when it closes)."""
    decl = Declaration.of(row)
    if decl.kind != "turn":
        return False
    before = decl.inputs.get("state_before")
    after = (decl.outcome or {}).get("state")
    if not before or not after:
        return False
    return int(after.get("turn", 0)) > int(before.get("turn", 0))


def turn_boundaries(
    storage: Storage, duel_id: int, current: Declaration | dict[str, Any]
) -> list[DuelState]:
    """The duel's states at each turn boundary, oldest first: the state before its first
    closed turn, then the state after each published declaration that closed a turn
    (``current``, the declaration being published, counts as published)."""
    rows = storage.duel_rows.closing_turns(duel_id, Declaration.of(current).id)
    closing = [d for d in map(Declaration.from_row, rows) if closes_turn(d)]
    if not closing:
        return []
    states = [DuelState.from_dict(closing[0].inputs["state_before"])]
    states.extend(DuelState.from_dict((d.outcome or {})["state"]) for d in closing)
    return states


def open_task(
    storage: Storage, duel: Duel, proposal: CloseProposal, quiet_turns: int, now: datetime,
    language: str = "fr",
) -> bool:  # fmt: skip
    """Open the referee task for ``proposal`` unless the duel has an open one or this block
    of quiet turns had one. Returns True when a row was inserted."""
    open_rows = storage.duel_tasks.open_count(duel.id, TASK_KIND)
    if open_rows:
        return False
    key = (
        f"b{duel.board_id}-duel{duel.id}-stalemate-t{proposal.since_turn}"
        f"-x{proposal.turns // quiet_turns}"
    )
    text = render(
        TEMPLATE,
        {
            "turns": proposal.turns,
            "since_turn": proposal.since_turn,
            "last_turn": proposal.last_turn,
            "points": sorted(proposal.points.items()),
        },
        language,
    )
    before = storage.duel_tasks.total_changes()
    add_task(
        storage, duel.board_id, duel.id, TASK_KIND, key, "", None,
        f"Aucun PV perdu depuis {proposal.turns} tours", text, now,
    )  # fmt: skip
    inserted = bool(storage.duel_tasks.total_changes() > before)
    if inserted:
        log.info(
            "duel %s: no PV lost in %d turns (since turn %d): referee task opened",
            duel.id, proposal.turns, proposal.since_turn,
        )  # fmt: skip
    return inserted


def check_stalemate(
    storage: Storage, row: Declaration | dict[str, Any], now: datetime,
    quiet_turns: int = DEFAULT_QUIET_TURNS,
) -> bool:  # fmt: skip
    """After the publication of ``row`` (a record or a row dict): open a ``stalemate``
    referee task when it closed a turn of a running duel and the last ``quiet_turns`` turns
    lost no PV (0: off). Returns True when a task was opened. The duel itself is left
    alone."""
    decl = Declaration.of(row)
    if quiet_turns <= 0 or not closes_turn(decl):
        return False
    duel = Duel.from_row(storage.duel(decl.duel_id))
    if duel.status != "running":
        return False
    history = points_by_turn(turn_boundaries(storage, duel.id, decl))
    proposal = propose_close(history, quiet_turns=quiet_turns)
    if proposal is None:
        return False
    return open_task(storage, duel, proposal, quiet_turns, now)


def check_exhausted(
    storage: Storage, row: Declaration | dict[str, Any], now: datetime, language: str = "fr"
) -> bool:
    """After the publication of ``row``: open the ``stalemate`` task proposing the seed's end
    when the turn it closed leaves no damaging spell to anyone (module doc). 2v2: sides are
    the duos; a creature still standing or an item in play may still take PV, so no task.
    Returns True when a task was opened. The duel itself is left alone."""
    decl = Declaration.of(row)
    if not closes_turn(decl):
        return False
    duel = Duel.from_row(storage.duel(decl.duel_id))
    if duel.status != "running":
        return False
    ruleset = load_ruleset(str(duel.ruleset))
    if not isinstance(ruleset, FatigueRuleset):
        return False
    state = DuelState.from_dict((decl.outcome or {})["state"])
    sides: dict[str, int] | None = None
    other = False
    stored = decl.context.get("duo_state")
    if stored:
        duo = DuoState.from_dict(stored)
        sides = {n: duo.duo_of(n) for n in duo.names()}
        other = any(pv > 0 for _, pv in duo.creatures) or bool(duo.items_left or duo.inventory)
    proposal = propose_exhausted(state, ruleset, sides=sides, other_damage=other)
    if proposal is None:
        return False
    text = render(
        EXHAUSTED_TEMPLATE,
        {"turn": proposal.last_turn, "points": sorted(proposal.points.items())},
        language,
    )
    before = storage.duel_tasks.total_changes()
    add_task(
        storage, duel.board_id, duel.id, TASK_KIND, f"b{duel.board_id}-duel{duel.id}-exhausted",
        "", None, "Plus aucun sort d'attaque possible", text, now,
    )  # fmt: skip
    inserted = bool(storage.duel_tasks.total_changes() > before)
    if inserted:
        log.info("duel %s: no damaging spell left to anyone: referee task opened", duel.id)
    return inserted


__all__ = [
    "TASK_KIND",
    "check_exhausted",
    "check_stalemate",
    "closes_turn",
    "open_task",
    "turn_boundaries",
]
