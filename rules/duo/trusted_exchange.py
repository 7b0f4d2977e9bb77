"""The balance simulator's 2v2 exchange of legal play on the two duellists directly (issue 26:
10,000 simulated 2v2 duels in 10 s; internal, :mod:`rules.duo.trusted`).

:func:`exchange` is what :meth:`rules.duo.trusted.TrustedDuo._exchange` gets from the 1v1
engine's trusted step (:func:`rules.fatigue.fast.resolve_trusted`: ``_resolve``, ``_apply``
and ``_healed`` of :mod:`rules.fatigue.fast`, line for line, with the results the 2v2 step
does not read left out) for a legal initiative resolved with its defense, undefended, or
relaunched at once (cast at a duellist who already posted, or a self spell with the teammate
standing in): no two-duellist ``DuelState``, no ``TurnOutcome`` or ``AttackResult`` is built.
The 2v2 step reads of an exchange only each duellist's PV, reuse memory and last spell
(:func:`rules.duo.step._merged`), the lasting effects it starts (queued for the end of the
turn) and the defender's action; the damage over time the 2v2 step takes away before the
exchange (``_sub_member``) is the only lasting damage the 1v1 step would count, so none is.
``tests/unit/test_duo_trusted.py`` compares every state with the full engine's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.effects import Effect
from rules.fatigue.effects import Ward
from rules.fatigue.fast import _made
from rules.fatigue.fast_close import _healed
from rules.fatigue.plan import _mods, _Plan, _SpellPlan
from rules.model import DuellistState, TurnPost

if TYPE_CHECKING:
    from rules.duo.trusted import TrustedDuo

_new = object.__new__
_set = object.__setattr__  # a frozen value's __dict__, set whole


def _hit(
    plan: _Plan, caster: DuellistState, target: DuellistState, sp: _SpellPlan, landed: bool
) -> tuple[int, int, list[Effect]]:
    """``_apply`` of :mod:`rules.fatigue.fast` for one spell: (PV dealt to ``target``, PV
    ``caster`` wants healed, the lasting effects it leaves, in order)."""
    bonuses = None
    types = caster.magic_types
    if types:
        bonuses = plan.mods.get((types, sp.name)) or _mods(plan, types, sp)
    dealt = 0
    base = sp.base
    if landed and base > 0:
        added = bonuses[1] if bonuses is not None else 0
        taken = 0
        types = target.magic_types
        if types:
            taken = (plan.mods.get((types, sp.name)) or _mods(plan, types, sp))[4]
        ward = 0
        if target.effects:
            for e in target.effects:
                if isinstance(e, Ward):
                    ward += e.amount
        dealt = base + added + taken - ward
        if dealt < 0:
            dealt = 0
    heal = 0
    made: list[Effect] = []
    if landed or not sp.targets:
        if sp.heals:
            bonus = bonuses[2] if bonuses is not None else 0
            heal = sum(sp.heals) + bonus * len(sp.heals)
        if sp.carried:
            more = bonuses[3] if bonuses is not None else 0
            ready = plan.made.get((sp.name, more, caster.name)) or _made(
                plan, sp, more, caster.name
            )
            made = [carried for carried, on_target in ready if landed or not on_target]
    return dealt, heal, made


def exchange(
    duo: TrustedDuo, an: str, dn: str, init: TurnPost, defense: TurnPost | None, poster: str,
    keep: str | None,
) -> str | None:  # fmt: skip
    """Resolve ``an``'s legal initiative ``init`` (a cast with its die) at ``dn`` with
    ``dn``'s legal ``defense`` (a cast, dodge or dodge_riposte with its die; None:
    undefended or relaunched) in ``duo`` in place: the members' PV, reuse memory and the
    last spell of ``poster`` (who posted in this declaration), the started effects queued in
    ``duo.incoming``; ``keep``: the only duellist changed (the other a stand-in), None for
    both. Returns the action that counted in the defense (None without one)."""
    plan = duo._plan
    assert plan is not None
    members = duo.members
    a, d = members[an], members[dn]
    spells = plan.spells
    sp = spells[init.spell]  # type: ignore[index]
    die = init.dice[0]  # type: ignore[index]
    bet = init.bet
    init_won = bet is not None and die in bet
    targets = sp.targets
    dodged = riposte_landed = False
    dsp: _SpellPlan | None = None
    dkind = None
    if defense is not None:
        dkind = defense.kind
        ddie = defense.dice[0]  # type: ignore[index]
        bet = defense.bet
        d_won = bet is not None and ddie in bet
        if dkind != "dodge":
            dsp = spells[defense.spell]  # type: ignore[index]
        if dkind != "cast":  # a dodge or dodge_riposte: its dodge is allowed (legal play)
            dodgeable = not sp.undodgeable
            cond = d_won and (not init_won or plan.own_won)
            if targets:
                dodged = cond if dodgeable else False
            if dkind == "dodge_riposte" and dsp is not None:
                if targets and not dodgeable:
                    setting = plan.riposte_vs_undodgeable
                    riposte_landed = (
                        d_won if setting == "own_bet_won" else cond and setting != "never"
                    )
                else:
                    riposte_landed = cond
    used_a: tuple[tuple[str, str], ...] = ()
    used_d: tuple[tuple[str, str], ...] = ()
    init_landed = not dodged if targets else True
    if targets and (init_landed or (dodged and plan.reuse_counts_dodged)):
        used_a = ((sp.name, dn),)
    to_d, heal_a, made_a = _hit(plan, a, d, sp, init_landed)
    to_a = heal_d = 0
    made_d: list[Effect] = []
    if dsp is not None:
        d_landed = True if dkind == "cast" else riposte_landed
        if d_landed and dsp.targets:
            used_d = ((dsp.name, an),)
        to_a, heal_d, made_d = _hit(plan, d, a, dsp, d_landed)
    after_a = a.points - to_a
    after_d = d.points - to_d
    if heal_a > 0:
        after_a += _healed(plan, a, after_a, heal_a)
    if heal_d > 0:
        after_d += _healed(plan, d, after_d, heal_d)
    opp = duo._opp
    if keep is None or keep == an:
        if poster == an:  # its cast is the action that counts (set by the 2v2 step after)
            members[an] = _member(a, after_a, used_a, init.spell, init.kind, opp[an])
        else:
            members[an] = _member(a, after_a, used_a, a.last_spell, a.last_action, opp[an])
    if keep is None or keep == dn:
        if poster == dn and defense is not None:  # its defense counts (set after)
            members[dn] = _member(d, after_d, used_d, defense.spell, dkind, opp[dn])
        else:
            members[dn] = _member(d, after_d, used_d, d.last_spell, d.last_action, opp[dn])
    if made_a or made_d:
        incoming = list(duo.incoming)
        for e in made_a:
            carrier = dn if getattr(e, "applies", "target") == "target" else an
            if keep is None or carrier == keep:
                incoming.append((carrier, e))
        for e in made_d:
            carrier = an if getattr(e, "applies", "target") == "target" else dn
            if keep is None or carrier == keep:
                incoming.append((carrier, e))
        duo.incoming = tuple(incoming)
    return dkind


def _member(
    d: DuellistState, points: int, used: tuple[tuple[str, str], ...], last: str | None,
    action: str | None, opponents: tuple[str, str],
) -> DuellistState:  # fmt: skip
    """``d`` after the exchange (:func:`rules.duo.step._merged` of the 1v1 step's duellist):
    ``points``, the reuse memory with ``used`` added and kept to ``opponents``, ``last``;
    ``action``: the last action the 2v2 step gives the poster at once after it (the
    ``last_action`` of issue 26's D3), set here to build the duellist once."""
    spent = d.spells_used_on
    if used and used[0] not in spent:  # the memory held only opponents: the new one kept
        spent = tuple([u for u in spent + used if u[1] in opponents])
    fields = dict(d.__dict__)
    fields["points"] = points
    fields["spells_used_on"] = spent
    fields["last_spell"] = last
    fields["last_action"] = action
    new = _new(DuellistState)
    _set(new, "__dict__", fields)
    return new


__all__ = ["exchange"]
