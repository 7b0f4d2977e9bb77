"""The balance simulator's trusted 2v2 step (issue 26: 10,000 simulated 2v2 duels in 10 s).

:class:`TrustedDuo` holds one simulated duel on plain mutable values (dictionaries of the four
duellists' frozen :class:`rules.model.DuellistState` and of their zones, tuples for the turn's
bookkeeping) and :meth:`TrustedDuo.step` resolves one declaration of the scripted duellists
(:func:`rules.balance.duo.duo_post`: legal play only) in place, with the rules of
:func:`rules.duo.resolve_duo_step` (``rules/duo/turn.py``, ``step.py``, ``world.py``,
``engine.py``) for the cases that play reaches, line for line: a defense (cast back, dodge,
dodge_riposte), an initiative or an undefended cast at an opponent, a self spell, a post with
no action (the duellist endures, or the 1v1 engine charges it), the duo's move, and the end of
the turn (waiting spells resolved undefended, creatures' auras and regeneration, lasting
effects) and of the duel. Each exchange between two duellists is the 1v1 engine's:
:func:`rules.fatigue.fast.resolve_trusted` (the posts read as posted, no violation looked for)
when its posts are legal play, else :func:`rules.fatigue.fast.resolve_fast` or
:func:`rules.fatigue.resolve_fatigue_step`, as in the full step. What legal play allows is
used: a legal initiative at a duellist still to post only waits (the 1v1 engine's initiative
step of a legal post changes nobody; it is read when it resolves), and a legal cast resolved
at once runs only the 1v1 relaunch.

Anything else is *not covered* and is never guessed: a post by someone who may not post, two
initiatives of one duo held, a target other than a duellist or oneself, an item, a move to no
zone, and every 2v2 violation (``double_target``, ``extra_move``, ``move_alone``,
``missing_move``...). Then the step is undone (its values are copied first) and the full
engine :func:`rules.duo.resolve_duo_step` runs on the frozen state (:meth:`TrustedDuo.freeze`);
its outcome's state is taken back. The step returns only what the simulator reads (whether
the turn closed); the state is read through the same lookups as :class:`rules.duo.DuoState`
(``zone_of``, ``in_zone``, ``pending``...). The live bot never uses it.

``tests/unit/test_duo_trusted.py`` plays generated duels through both step by step and
compares every state, and runs the hand-computed 2v2 duels whose posts are legal play through
both; docs/architecture.md, "The 2v2 step: the engine, and a trusted copy for the simulator".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rules.duo.engine import resolve_duo_step
from rules.duo.environment import Environment, Zone
from rules.duo.opening import Target, resolve_target
from rules.duo.outcome import Draw, DuoPost
from rules.duo.settings import DuoSettings
from rules.duo.state import DuoState, PendingAttack
from rules.duo.step import _merged, _sub_duel
from rules.duo.trusted_exchange import exchange
from rules.duo.turn import duo_end, ticked
from rules.fatigue.effects import DamageOverTime
from rules.fatigue.engine import resolve_fatigue_step
from rules.fatigue.fast import resolve_fast, resolve_trusted
from rules.fatigue.plan import plan_for
from rules.fatigue.reading import has_legal_action
from rules.fatigue.settings import FatigueRuleset
from rules.model import AttackResult, DuellistState, DuelState, TurnOutcome, TurnPost

_new = object.__new__
_set = object.__setattr__  # a frozen value's __dict__, set whole


@dataclass(frozen=True)
class LegalPost(DuoPost):
    """A :class:`DuoPost` the balance simulator's scripted duellists wrote
    (:func:`rules.balance.duo.duo_post`): legal play, which :meth:`TrustedDuo.step` reads as
    posted (the 1v1 engine's :func:`rules.fatigue.fast.resolve_trusted`). Any other post
    makes the step run the full engine."""


class _Uncovered(Exception):
    """Raised inside :meth:`TrustedDuo.step` for a case it does not cover: the full engine
    resolves the step instead."""


_T = TypeVar("_T")


def _running(d: DuellistState) -> bool:
    """True when ``d`` keeps a two-duellist 1v1 duel running (PV left, no violation, not
    disqualified): its initiative step does not end it."""
    return d.points > 0 and not d.violations and not d.disqualified


def _with(obj: _T, **changes: object) -> _T:
    """A copy of a frozen dataclass instance (no ``__post_init__``) with ``changes``."""
    new = _new(type(obj))
    fields = new.__dict__
    fields.update(obj.__dict__)
    fields.update(changes)
    return new


class TrustedDuo:
    """One simulated 2v2 duel, changed in place by :meth:`step` (see the module doc).

    Attributes (as :class:`rules.duo.DuoState`'s fields, with tuples in the same order):
        members: duellist name -> :class:`DuellistState`, in the duel's order.
        where: duellist name -> zone key.
        turn: closed turns; finished, draw, winners, losers: the end.
        fallbacks: steps the full engine resolved (not covered here).
    """

    def __init__(
        self, state: DuoState, ruleset: FatigueRuleset, env: Environment, settings: DuoSettings,
        draw: Draw,
    ) -> None:  # fmt: skip
        """Take ``state`` (a started 2v2 duel) to play it with ``ruleset``, ``env`` and
        ``settings``; ``draw`` as :func:`rules.duo.resolve_duo_step`'s (only the full
        engine's fallback draws)."""
        self.rs = ruleset
        self.env = env
        self.cfg = settings
        self.draw = draw
        self.fallbacks = 0
        self._plan = plan_for(ruleset)  # None: a spellbook the 1v1 fast path does not run
        self._legal: set[int] = set()  # ids of waiting posts that are legal play
        self._counted: str | None = None  # the action that counted in the last defense
        # (Cible line, caster) -> its Target, read once per duel
        self._targets: dict[tuple[str | None, str], Target] = {}
        self._zones: dict[str, Zone | None] = {}  # a move's text -> its zone, once per duel
        duos = state.duos
        self.duos = duos
        self._names = duos[0] + duos[1]
        self._duo = {n: i for i, duo in enumerate(duos) for n in duo}
        self._mate = {a: b for a, b in (duos[0], duos[1], duos[0][::-1], duos[1][::-1])}
        self._opp = {n: duos[1 - i] for n, i in self._duo.items()}
        self._load(state)

    def _load(self, state: DuoState) -> None:
        duel = state.duel
        self._head = duel
        self.members = {d.name: d for d in duel.duellists}
        self.turn = duel.turn
        self.finished = duel.finished
        self.where = dict(state.positions)
        self._order = tuple(n for n, _ in state.positions)
        self.environment = state.environment
        self.creatures = state.creatures
        self.defeated = state.defeated
        self.solved = state.solved
        self.items_left = state.items_left
        self.inventory = state.inventory
        self.incoming = state.incoming
        self.posted = state.posted
        self.posted_ids = state.posted_ids
        self.movers = state.movers
        self.targeted = state.targeted
        self.pending = state.pending
        self.moves = state.moves
        self.rewards = state.rewards
        self.winners = state.winners
        self.losers = state.losers

    def freeze(self) -> DuoState:
        """The frozen :class:`DuoState` this duel stands at (equal to the full engine's)."""
        head = self._head
        duel = _new(DuelState)
        duel.__dict__.update(head.__dict__)
        duel.__dict__.update(duellists=tuple(self.members.values()), turn=self.turn)
        out = _new(DuoState)
        where = self.where
        out.__dict__.update(
            duel=duel, environment=self.environment, duos=self.duos,
            positions=tuple([(n, where[n]) for n in self._order]),
            creatures=self.creatures, defeated=self.defeated, solved=self.solved,
            items_left=self.items_left, inventory=self.inventory, incoming=self.incoming,
            posted=self.posted, posted_ids=self.posted_ids, movers=self.movers,
            targeted=self.targeted, pending=self.pending, moves=self.moves,
            rewards=self.rewards, winners=self.winners, losers=self.losers,
        )  # fmt: skip
        return out

    # -- lookups (as DuoState's) -----------------------------------------------------------
    def names(self) -> tuple[str, ...]:
        """The four duellists, duo by duo."""
        return self._names

    def zone_of(self, name: str) -> str:
        """The zone key where ``name`` stands (KeyError for an unknown name)."""
        return self.where[name]

    def duo_of(self, name: str) -> int:
        """0 or 1: the duo ``name`` belongs to."""
        return self._duo[name]

    def teammate(self, name: str) -> str:
        """The other member of ``name``'s duo."""
        return self._mate[name]

    def opponents(self, name: str) -> tuple[str, str]:
        """The two members of the other duo."""
        return self._opp[name]

    def active(self, name: str) -> bool:
        """True while ``name`` has PV left."""
        return self.members[name].points > 0

    def active_names(self) -> tuple[str, ...]:
        """The duellists still in the duel, duo by duo."""
        members = self.members
        return tuple([n for n in self._names if members[n].points > 0])

    def in_zone(self, zone: str) -> tuple[str, ...]:
        """Active duellists standing in ``zone``."""
        where, members = self.where, self.members
        return tuple([n for n in self._names if where[n] == zone and members[n].points > 0])

    def all_together(self) -> bool:
        """True when the four are active and stand in the same zone."""
        where = self.where
        a, b, c, d = self._names
        zone = where[a]
        if where[b] != zone or where[c] != zone or where[d] != zone:
            return False
        m = self.members
        return m[a].points > 0 and m[b].points > 0 and m[c].points > 0 and m[d].points > 0

    # -- one declaration -------------------------------------------------------------------
    def step(self, posts: Sequence[DuoPost], dice: Mapping[int, Sequence[int]]) -> bool:
        """Resolve one declaration of ``posts`` (legal play; ``dice``: post id -> (d6,)) as
        :func:`rules.duo.resolve_duo_step` with the trail off does; returns True when it
        closed the turn. A case not covered here runs the full engine (``fallbacks``)."""
        saved = self.__dict__.copy()
        members, where = self.members, self.where
        self.members, self.where = dict(members), dict(where)
        try:
            return self._step(posts, dice)
        except _Uncovered:
            self.__dict__ = saved
            self.members, self.where = members, where
            return self._fall_back(posts, dice)

    def _fall_back(self, posts: Sequence[DuoPost], dice: Mapping[int, Sequence[int]]) -> bool:
        self.fallbacks += 1
        out = resolve_duo_step(
            self.freeze(), posts, dice, ruleset=self.rs, env=self.env, settings=self.cfg,
            draw=self.draw, trail=False,
        )  # fmt: skip
        self._load(out.state)
        return out.turn_closed

    def _step(self, posts: Sequence[DuoPost], dice: Mapping[int, Sequence[int]]) -> bool:
        if self.finished or self._plan is None:
            raise _Uncovered
        need = self.cfg.posts_per_declaration_together
        # read before the posts (they may move); a lone post is checked against the names
        # posted before it only
        together = (len(posts) > 1 or 0 < len(self.posted) < need) and self.all_together()
        for dp in posts:
            p = dp.post
            who = p.duellist
            if type(dp) is not LegalPost or who not in self._duo or p.post_id not in dice:
                raise _Uncovered  # an odd post, or one the full engine refuses
            if p.kind is None and (p.spell or p.spell_text):
                raise _Uncovered  # a spell with no action: the 1v1 reading infers a cast
            posted = self.posted
            if together and who not in posted and len(posted) < need and self._mate[who] in posted:
                raise _Uncovered  # a second initiative of one duo: held for the referee
            fields = dict(p.__dict__)
            fields["dice"] = tuple(dice[p.post_id])
            post = _new(TurnPost)
            _set(post, "__dict__", fields)
            self._post(post, dp.move_to)
        members, posted = self.members, self.posted
        for m in members.values():  # _end's first look, without its call
            if m.points <= 0 or m.violations or m.disqualified:
                if self._end():
                    return False
                break
        for n in self._names:
            if n not in posted and members[n].points > 0:
                return False  # someone is still expected this turn
        self._close_turn()
        self._end()
        return True

    def _post(self, post: TurnPost, move_to: str | None) -> None:
        me = post.duellist
        members = self.members
        if members[me].points <= 0 or me in self.posted:
            raise _Uncovered  # an extra post
        key = (post.target, me)
        target = self._targets.get(key)
        if target is None:
            target = self._targets[key] = resolve_target(post.target, me, self, self.env)  # type: ignore[arg-type]
        declared = post.kind or ("cast" if (post.spell or post.spell_text) else None)
        incoming = [p for p in self.pending if p.target == me] if self.pending else []
        counted: str | None = declared
        defended: PendingAttack | None = None
        kind = target.kind
        if incoming and declared in ("dodge", "dodge_riposte"):
            defended = incoming[0]
            if kind == "duellist":
                for p in incoming:
                    if p.attacker == target.key:
                        defended = p
                        break
        elif incoming and declared == "cast":
            aimed = target.key if kind == "duellist" else None
            if kind == "none":
                aimed = incoming[0].attacker
            for p in incoming:
                if p.attacker == aimed:
                    defended = p
                    break
        for p in incoming:
            if p is not defended:
                self._resolve_pending(p, None)
        if defended is not None:
            if declared != "dodge":
                self._record_target(me, defended.attacker)
            if declared == "dodge_riposte" and kind == "several":
                raise _Uncovered
            counted = self._resolve_pending(defended, post)
        elif declared is None and not post.spell_text:
            if move_to:
                if not self._no_legal_action(me, bool(incoming)):
                    raise _Uncovered  # move_alone
            elif not self._no_legal_action(me, bool(incoming)):
                self._exchange(me, self._mate[me], None, post, poster=me, keep=me, close=False)
        elif declared in ("dodge", "dodge_riposte"):
            raise _Uncovered  # nothing to dodge
        else:
            self._cast(me, post, target.kind, target.key)
        if move_to:
            self._move(me, move_to)
        d = self.members[me]
        if d.last_action != counted:  # issue 26, D3: the action that counted
            fields = dict(d.__dict__)
            fields["last_action"] = counted
            d = self.members[me] = _new(DuellistState)
            _set(d, "__dict__", fields)
        self.posted = (*self.posted, me)
        self.posted_ids = (*self.posted_ids, post.post_id)

    def _cast(self, me: str, post: TurnPost, kind: str, victim: str | None) -> None:
        if kind == "duellist" and victim is not None:
            self._record_target(me, victim)
            if victim in self.posted or self.members[victim].points <= 0:
                self._exchange(me, victim, None, post, poster=me, trusted=True)
                return
            # A legal initiative (a known spell within the caster's level, not spent on this
            # opponent, with a legal bet) read by the 1v1 engine waits for its target and
            # changes nobody (its ``_updated`` gives the same duellists back): it only waits.
            waiting = _new(PendingAttack)
            _set(waiting, "__dict__", {"attacker": me, "target": victim, "post": post})
            self.pending = (*self.pending, waiting)
            self._legal.add(post.post_id)
        elif kind == "self":
            self._exchange(me, self._mate[me], None, post, poster=me, keep=me, trusted=True)
        else:
            raise _Uncovered  # a creature, mechanism, item, the scenery, no or two targets

    def _record_target(self, me: str, victim: str) -> None:
        """Note a direct target; a ``double_target`` (a 2v2 violation) is not covered."""
        targeted = self.targeted
        mate = self._mate[me]
        if targeted and (mate, victim) in targeted and victim in self._opp[me]:
            here = self.in_zone(self.where[victim])
            lone = me in here and mate in here and self._mate[victim] not in here
            if (lone or self.all_together()) and self.cfg.status("double_target") != "off":
                raise _Uncovered
        self.targeted = (*targeted, (me, victim))

    def _resolve_pending(self, p: PendingAttack, defense: TurnPost | None) -> str | None:
        """Resolve a waiting initiative with ``defense`` (None: undefended); returns the
        action that counted in the defense."""
        self.pending = tuple([x for x in self.pending if x is not p])  # by identity
        post = p.post
        if post.dice and post.post_id in self._legal:  # legal play: on the two directly
            return exchange(self, p.attacker, p.target, post, defense, p.target, None)
        self._counted = None
        self._exchange(p.attacker, p.target, p.post, defense, poster=p.target, close=False,
                       trusted=p.post.post_id in self._legal)  # fmt: skip
        return self._counted

    def _no_legal_action(self, who: str, targeted: bool) -> bool:
        """As :meth:`rules.duo.world._WorldStep.no_legal_action`."""
        zone = self.where[who]
        creature = any(
            k == c.key and c.zone == zone and pv > 0
            for k, pv in self.creatures
            for c in self.env.creatures
        )
        members = self.members
        return not has_legal_action(
            members[who], self.rs.cfg, can_be_dodging=targeted, ruleset=self.rs,
            opponents=[n for n in self._opp[who] if members[n].points > 0], creature=creature,
        )  # fmt: skip

    def _move(self, me: str, text: str) -> None:
        zone = self._zones.get(text)
        if zone is None:
            zone = self._zones[text] = self.env.find_zone(text)
        if zone is None:
            raise _Uncovered  # unknown_zone
        if zone.key == self.where[me]:
            return
        if self._mate[me] in self.movers:
            raise _Uncovered  # extra_move
        self.movers = (*self.movers, me)
        if self.cfg.move_effect == "end_of_turn":
            self.moves = (*self.moves, (me, zone.key))
            return
        self.where[me] = zone.key

    # -- the 1v1 engine on two duellists (as _StepCore.exchange, trail off) ----------------
    def _sub_member(self, name: str) -> DuellistState:
        d = self.members[name]
        effects = d.effects
        if not effects or not any([isinstance(e, DamageOverTime) for e in effects]):
            return d
        return _with(
            d, effects=tuple(e for e in d.effects if not isinstance(e, DamageOverTime))
        )

    def _exchange(
        self, a: str, b: str, pending: TurnPost | None, post: TurnPost | None, *, poster: str,
        keep: str | None = None, close: bool = True, trusted: bool = False,
    ) -> AttackResult | None:  # fmt: skip
        """:meth:`rules.duo.step._StepCore.exchange` with no override, waiver, fact or trail;
        ``keep``: the one duellist kept (a stand-in ``b``), None for both. Returns the
        initiator's AttackResult; for a defense (``pending`` and ``post``) the action that
        counted in it is left in ``_counted``. ``trusted``: the posts are legal play (the 1v1
        engine's trusted step reads them as posted and looks for no violation)."""
        if trusted:
            if pending is None:
                if post is not None and close and _running(self.members[a]):
                    mate = self.members[b]
                    if keep is not None or _running(mate):
                        if not mate.violations and not mate.disqualified:
                            exchange(self, a, b, post, None, poster, keep)
                            return None
            elif pending.dice:
                self._counted = exchange(self, a, b, pending, post, poster, keep)
                return None
        other = self._sub_member(b)
        stand_in = keep is not None
        if stand_in and other.points < 1:
            other = _with(other, points=1)
        mine = self._sub_member(a)
        plan = self._plan
        if (trusted and plan is not None and post is not None and pending is None and close
                and _running(mine) and _running(other)):  # fmt: skip
            # cast and resolved at once, undefended: the 1v1 engine's initiative step of a
            # legal post changes nobody and leaves the post waiting (with its die), so only
            # its relaunch is run, on the two-duellist duel with the post waiting
            sub = _sub_duel(self._head.ruleset, self.turn, (mine, other), (post,))
            out = resolve_trusted(plan, sub, None, 0)
            if out is None:  # never for a post waiting with its die
                raise _Uncovered
            return self._merge(a, out.attacks, out.state.duellists, post, poster, keep, close)
        sub = _sub_duel(self._head.ruleset, self.turn, (mine, other),
                        (pending,) if pending is not None else ())  # fmt: skip
        out = None
        if trusted and plan is not None:
            out = resolve_trusted(plan, sub, post, post.dice[0] if post and post.dice else 0)
        if out is None:
            out = self._full_exchange(sub, post)
        attacks = out.attacks
        if post is not None and pending is None and close and out.state.pending:
            again = None
            if trusted and plan is not None:
                again = resolve_trusted(plan, out.state, None, 0)
            if again is None:
                again = self._full_exchange(out.state, None)
            attacks = again.attacks
            out = again
        if pending is not None and post is not None:  # a defense: what counted (issue 26, D3)
            self._counted = out.state.duellists[0 if out.state.duellists[0].name == poster
                                                else 1].last_action  # fmt: skip
        return self._merge(a, attacks, out.state.duellists, post, poster, keep,
                           close or pending is not None)  # fmt: skip

    def _merge(
        self, a: str, attacks: tuple[AttackResult, ...], duellists: tuple[DuellistState, ...],
        post: TurnPost | None, poster: str, keep: str | None, closed: bool,
    ) -> AttackResult | None:  # fmt: skip
        """The end of :meth:`_exchange`: the 1v1 result's ``duellists`` merged into the
        members (all, or only ``keep``), a cast left open at a stand-in counted (not
        ``closed``), the new effects queued for the next turn."""
        members = self.members
        stand_in = keep is not None
        for d in duellists:
            name = d.name
            if keep is not None and name != keep:
                continue
            mine = members[name]
            used = d.spells_used_on
            if used:
                opponents = self._opp[name]
                used = tuple([u for u in used if u[1] in opponents])
            last = d.last_spell if name == poster else mine.last_spell
            members[name] = _merged(mine, d, used, last)
        if stand_in and post is not None and not closed and attacks:
            self._count_cast(poster, attacks[0])
        for att in attacks:
            for e in att.effects_applied:
                carrier = (
                    att.defender if getattr(e, "applies", "target") == "target" else att.attacker
                )
                if keep is None or carrier == keep:
                    self.incoming = (*self.incoming, (carrier, e))
        return attacks[0] if attacks else None

    def _full_exchange(self, sub: DuelState, post: TurnPost | None) -> TurnOutcome:
        """The 1v1 engine's step on ``sub`` with ``post`` (None: a relaunch), violations
        looked for: :func:`rules.fatigue.fast.resolve_fast`, else the full resolution."""
        posts = [post] if post is not None else []
        dice = {post.post_id: post.dice} if post is not None and post.dice is not None else {}
        out = resolve_fast(sub, posts, dice, self.rs)
        if out is None:
            out = resolve_fatigue_step(sub, posts, dice, ruleset=self.rs, trail=False)
        return out

    def _count_cast(self, who: str, att: AttackResult) -> None:
        """As :meth:`rules.duo.step._StepCore.count_cast`."""
        if att.void_reason != "pending" or att.spell is None or not self.rs.has_spell(att.spell):
            return
        if self.rs.spell(att.spell).max_casts is None:
            return
        d = self.members[who]
        counted = dict(d.casts)
        counted[att.spell] = counted.get(att.spell, 0) + 1
        self.members[who] = _with(d, casts=tuple(counted.items()))

    # -- end of turn, end of duel ----------------------------------------------------------
    def _close_turn(self) -> None:
        members = self.members
        for p in list(self.pending):
            self._resolve_pending(p, None)
        order, movers = self.posted, self.movers
        for a, b in self.duos:
            if (a in order or b in order) and a not in movers and b not in movers:
                if self.cfg.status("missing_move") != "off":
                    raise _Uncovered  # missing_move
        pv_left = dict(self.creatures)
        for c in self.env.creatures:
            left = pv_left[c.key]
            if left <= 0:
                continue
            kind = c.ability.kind
            if kind == "aura":
                for n in self.in_zone(c.zone):
                    d = members[n]
                    if d.points <= 0:
                        continue
                    members[n] = _with(d, points=d.points - c.ability.amount)
            elif kind == "regenerate" and left < c.pv:
                healed = min(c.pv, left + c.ability.amount)
                self.creatures = tuple(
                    [(k, healed if k == c.key else v) for k, v in self.creatures]
                )
        for who, key in self.moves:
            if members[who].points > 0:
                self.where[who] = key
        incoming = self.incoming
        arriving = {n for n, _ in incoming}
        for name, d in members.items():
            if not d.effects and name not in arriving:
                continue  # nothing runs out, nothing starts: unchanged
            members[name] = ticked(d, incoming if name in arriving else ())[1]
        self.turn += 1
        self.incoming = ()
        self.posted = ()
        self.posted_ids = ()
        self.movers = ()
        self.moves = ()
        self.targeted = ()

    def _end(self) -> bool:
        """As :meth:`rules.duo.turn._Step.end` and the end of
        :func:`rules.duo.engine._conclude`: True (and the duel closed) when it is over."""
        members = self.members
        for m in members.values():
            if m.points <= 0 or m.violations or m.disqualified:
                break
        else:  # everyone standing, no violation: nobody lost
            return False
        finished, winners, losers, draw = duo_end(
            self.duos, members.__getitem__, int(self.rs.setting("violations_to_lose")),
            self.cfg.both_duos_down,
        )  # fmt: skip
        if not finished:
            return False
        self.finished = True
        self._head = _with(self._head, finished=True, draw=draw,
                           winner=" & ".join(winners) if winners else None)  # fmt: skip
        self.winners, self.losers = winners, losers
        self.pending = ()
        return True


__all__ = ["TrustedDuo"]
