"""The 2v2 engine's values: a post as it reads it (:class:`DuoPost`), the lines of a
declaration (:class:`Event`) and what one declaration states (:class:`DuoOutcome`).

Split out of ``rules.duo.engine`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rules.duo.state import DuoState
from rules.model import AttackResult, TurnPost, Violation

Draw = Callable[[str, int], int]

# Override fields the 1v1 engine applies inside an exchange (``die`` too for a duellist with no
# post in the step: their waiting initiative read again); ``points`` and the dice of the step's
# posts are applied by the 2v2 engine itself.
_EXCHANGE_FIELDS = ("die", "bet_won", "dodged", "landed", "damage")
UNDEFENDED_SOURCE = (
    'RULES.md, Ruleset fatigue 2v2: "A turn ends when all four have posted." A duellist who '
    "already posted this turn, or is out of the fight, has no post left to defend with: a spell "
    "cast at them resolves at once, undefended [D]; no deadline lapsed, nothing is relaunched"
)
"""Source of ``turn.defense = "none"`` (rule ``duo.undefended``): a 2v2 spell resolved through
the 1v1 engine's no-defense branch while no deadline passed (issue 25, reader2 W5)."""
TURN_POST_SOURCE = (
    'RULES.md, Ruleset fatigue 2v2: "Turn shape (from the seed\'s examples): the first post is '
    'an initiative; a declaration follows each post"; "Two opponents alone in a zone: the 1v1 '
    'rules apply between them."'
)
"""Source of a 2v2 cast that is not the turn's first post (rule ``duo.turn_post``): resolved
like a 1v1 initiative, but the initiative is the first poster's."""
CREATURE_SOURCE = (
    'RULES.md, Ruleset fatigue 2v2: "Actions: cast on any target (opponent, teammate, self, '
    'creature, scenery)"; environments hold "creatures with PV and one unique ability"'
)


@dataclass(frozen=True)
class DuoPost:
    """One duellist's post as the 2v2 engine reads it.

    Attributes:
        post: action, spell, bet and ``target`` (the ``Cible :`` line, as typed).
        move_to: the ``Déplacement :`` line as typed, or None.
        use_item: the ``Objet :`` line as typed (an item used), or None.
    """

    post: TurnPost
    move_to: str | None = None
    use_item: str | None = None


@dataclass(frozen=True, init=False)
class Event:
    """One line of the declaration: ``kind`` and French-ready facts.

    Kinds: ``placed``, ``move`` (who, target: the zone left, detail: its name, zone: the
    zone entered), ``move_planned`` (same fields: a move declared, taking effect when the turn
    closes, duo.toml ``move_effect = "end_of_turn"``), ``extra_move_refused``, ``creature_hit``
    (who, creature, damage, pv_left), ``creature_defeated``, ``creature_ability``, ``reward``
    (who, source, kind, amount), ``mechanism_attempt``, ``mechanism_solved``, ``item_taken``,
    ``item_used``, ``scenery``, ``endures`` (who: no legal action left, no violation),
    ``nothing_to_dodge``, ``several_targets`` (who, target: the
    names, comma-separated: the spell resolves nothing; ``missing_target`` proposed),
    ``self_cast``, ``extra_post``, ``silent`` (who: let a deadline run out; detail ``"aimed"``
    when a spell waited on them: resolved undefended),
    ``damage_over_time``, ``turn_closed``, ``initiative_held`` (who, detail: the post id: a
    second initiative of the duo when all four share a zone, held for the referee),
    ``pending`` (attacker, target: waiting for the target's post; only while it still waits at
    the end of the step), ``knocked_out`` (who, amount: their PV, fallen to 0 or below in
    this step), ``creature_down`` (creature: put at 0 PV by the referee's override; no
    reward).

    ``draw`` (rewards): the auditable draw behind the event, ``"<label> <value>/<sides>"``
    (e.g. ``"reward:strangulot:42 3/6"``: the seed's die ``value`` in 1..sides for
    ``label``, :func:`rules.dice.derive_die`); ``""`` when nothing was drawn (a one-line
    table).

    ``base`` (``creature_hit``): the spell's damage before the caster's magic types and the
    creature's armour (``amount`` is what the creature lost), so the declaration can show how
    the damage was made (reader after issue 25, W8); None for other kinds. ``void``
    (``self_cast``): why the spell has no effect (``"spell_above_level"``, ``"barred"``...,
    the 1v1 engine's void reasons), None when it acts (W7).
    """

    kind: str
    who: str | None = None
    target: str | None = None
    detail: str = ""
    amount: int = 0
    zone: str | None = None
    draw: str = ""
    base: int | None = None
    void: str | None = None

    def __init__(
        self, kind: str, who: str | None = None, target: str | None = None, detail: str = "",
        amount: int = 0, zone: str | None = None, draw: str = "", base: int | None = None,
        void: str | None = None,
    ) -> None:  # fmt: skip
        """The dataclass's own ``__init__`` (same fields, order and defaults), written to
        the instance's dictionary at once instead of one frozen ``__setattr__`` per field
        (issue 26: a 2v2 step states several lines; 10,000 simulated duels in 10 s)."""
        self.__dict__.update(kind=kind, who=who, target=target, detail=detail, amount=amount,
                             zone=zone, draw=draw, base=base, void=void)  # fmt: skip


@dataclass(frozen=True)
class DuoOutcome:
    """What one 2v2 declaration states.

    Attributes:
        state: the state after the declaration.
        attacks: the exchanges resolved (1v1 engine results), in order.
        violations: violations recorded in this step (1v1 ones and 2v2 ones).
        events: the other facts (:class:`Event`).
        entered: ``(duellist, zone key)`` zones entered in this step (owls to send).
        mechanism_attempts: ``(duellist, mechanism key, post id)`` for the referee.
        turn_closed: True when this step closed the turn.
        finished: the duel is over; winners / losers: the duos' members; draw.
        trail: the 1v1 engine's trail entries of the exchanges, in order.
        dice: post id -> (die,) used.
        held: post ids held for the referee and not resolved: a second initiative from one
            duo when all four share a zone (RULES.md: "two initiatives (one per duo)"); their
            author is still expected this turn.
    """

    state: DuoState
    attacks: tuple[AttackResult, ...]
    violations: tuple[Violation, ...]
    events: tuple[Event, ...]
    entered: tuple[tuple[str, str], ...]
    mechanism_attempts: tuple[tuple[str, str, int], ...]
    turn_closed: bool
    finished: bool
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    draw: bool
    trail: tuple[object, ...] = field(default=())
    dice: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    held: tuple[int, ...] = ()
