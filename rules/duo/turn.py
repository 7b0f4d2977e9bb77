"""One 2v2 post read and resolved (defense, initiative, undefended cast, target rules), and
the end of a turn (waiting initiatives, missing moves, creatures' abilities, effects).

Split out of ``rules.duo.engine`` (issue 17).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rules.duo.opening import Target, resolve_target
from rules.duo.outcome import DuoPost, Event
from rules.duo.state import PendingAttack, evolve
from rules.duo.world import _WorldStep
from rules.effects import Effect
from rules.fatigue.effects import DamageOverTime
from rules.model import DuellistState, TurnPost, Violation


class _Step(_WorldStep):
    """Bookkeeping of one :func:`rules.duo.engine.resolve_duo_step` call (never escapes it)."""

    # -- one post --------------------------------------------------------------------------
    def post(self, dp: DuoPost) -> None:
        post = dp.post
        me = post.duellist
        if not self.s.active(me) or me in self.s.posted:
            self.events.append(Event("extra_post", me, None, str(post.post_id)))
            return
        target = resolve_target(post.target, me, self.s, self.env)
        declared = post.kind or ("cast" if (post.spell or post.spell_text) else None)
        if dp.use_item:
            self.use_item(me, dp.use_item, post, target)
        incoming = [p for p in self.s.pending if p.target == me]
        counted: str | None = declared
        defended: PendingAttack | None = None
        if incoming and declared in ("dodge", "dodge_riposte"):
            defended = next(
                (p for p in incoming if target.kind == "duellist" and p.attacker == target.key),
                incoming[0],
            )
        elif incoming and declared == "cast":
            aimed = target.key if target.kind == "duellist" else None
            if target.kind == "none":
                aimed = incoming[0].attacker
            defended = next((p for p in incoming if p.attacker == aimed), None)
        for p in incoming:
            if p is not defended:
                self.resolve_pending(p, None, undefended="other")
        if defended is not None:
            # seed 001: "Ne peut pas viser directement A1 car déjà visé par B2": a forbidden
            # double target in a defense post is void (duo.toml double_target_effect), as in
            # an initiative; the defense's dodge still counts.
            allowed = self.record_target(me, defended.attacker, post, direct=declared != "dodge")
            void = None if allowed else "double_target"
            if declared == "dodge_riposte" and target.kind == "several" and allowed:
                self.several_targets(me, post, target)  # the riposte: no target to resolve
                void = "missing_target"
            self.resolve_pending(defended, post, void_defense=void)
        elif declared is None and not post.spell_text:
            if dp.move_to or dp.use_item:
                if not dp.use_item and not self.no_legal_action(me, bool(incoming)):
                    self.violation(me, "move_alone", post.post_id, "a move with no other action")
            elif self.no_legal_action(me, bool(incoming)):  # D1: endures, no violation
                self.events.append(Event("endures", me))
            else:
                self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
        elif declared in ("dodge", "dodge_riposte"):
            counted = self.dodge_with_nothing_to_dodge(me, post, target, declared)
        else:
            self.cast(me, post, target)
        if defended is not None:
            counted = self.counted.get(me, declared)
        if dp.move_to:
            self.move(me, dp.move_to, post.post_id)
        d = self.member(me)
        # issue 26, D3: the action that counted, as 1v1 keeps it (``_counted_action``): an
        # ignored dodge, or one with nothing to dodge, is no dodge for next turn's ban
        self.put(evolve(d, last_action=counted))
        self.s.update(posted=self.s.posted + (me,), posted_ids=self.s.posted_ids + (post.post_id,))

    def dodge_with_nothing_to_dodge(
        self, me: str, post: TurnPost, target: Target, declared: str
    ) -> str | None:
        """A dodge (or dodge_riposte) with no spell waiting on ``me``; returns the action
        that counts for next turn (None: no dodge was made).

        Issue 26, D5: when no spell at all was aimed at ``me`` this turn, the post is an
        initiative, charged ``initiative_not_cast`` as in 1v1 (seed 001: « L'initiative n'offre
        qu'un choix d'action : 'lancer un sort' »; « Si deux duellistes adverses se retrouvent
        dans la même zone, les règles des duels en un contre un s'appliquent »); a waived one
        with a spell is read as a cast, as 1v1 does. When a void spell was aimed at ``me``
        (it does not wait: D4), the dodge is only « rien à esquiver », uncharged."""
        aimed = any(victim == me for _, victim in self.s.targeted)
        self.events.append(Event("nothing_to_dodge", me, None, declared))
        if aimed:
            return None
        if (me, "initiative_not_cast") in self.waived and (post.spell or post.spell_text):
            self.cast(me, post, target)
            return "cast"
        self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
        return None

    def several_targets(self, me: str, post: TurnPost, target: Target) -> None:
        """A ``Cible :`` line naming two targets or more: one spell has one target, so nothing
        is resolved for it and ``missing_target`` is proposed to the referee (duo.toml status;
        issue 26, D2). The post's own checks (bet, level, reuse) still run."""
        self.violation(
            me, "missing_target", post.post_id,
            f"« Cible : {post.target} » names {target.key}: one spell has one target",
        )  # fmt: skip
        self.events.append(Event("several_targets", me, target.key, post.spell or ""))

    def cast(self, me: str, post: TurnPost, target: Target) -> None:
        if target.kind == "several":
            self.several_targets(me, post, target)
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            return
        if target.kind == "none":
            near = [n for n in self.s.opponents(me) if n in self.s.in_zone(self.s.zone_of(me))]
            if len(near) == 1:
                target = Target("duellist", near[0])
            else:
                self.violation(
                    me, "missing_target", post.post_id,
                    f"no 'Cible :' line and {len(near)} opponents in reach",
                )  # fmt: skip
                target = Target("scenery", "")
        if target.kind == "duellist" and target.key is not None:
            victim = target.key
            if not self.record_target(me, victim, post, direct=True):
                return
            if victim in self.s.posted or not self.s.active(victim):
                self.exchange(me, victim, None, post, poster=me)
            else:
                att = self.exchange(me, victim, None, post, poster=me, close=False)
                if att is None or att.void_reason != "pending":
                    # issue 26, D4: a void spell (above level, reused, barred...) has no
                    # effect: it is stated once and does not wait for its target
                    return
                kept = evolve(post, dice=self.dice.get(post.post_id))
                self.s.update(pending=self.s.pending + (PendingAttack(me, victim, kept),))
                self.events.append(Event("pending", me, victim))
        elif target.kind == "self":
            att = self.exchange(me, self._dummy(me), None, post, poster=me, keep={me})
            # a void spell (above level, barred...) does not act: it says why, never that it
            # acts (reader after issue 25, W7)
            void = att.void_reason if att is not None else None
            self.events.append(Event("self_cast", me, me, post.spell or "", void=void))
        elif target.kind == "creature" and target.key is not None:
            self.hit_creature(me, target.key, post)
        elif target.kind == "mechanism" and target.key is not None:
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            mech = self.env.mechanism(target.key)
            if any(k == mech.key for k, _ in self.s.solved):
                self.events.append(Event("scenery", me, mech.name, "already solved"))
            else:
                self.attempts.append((me, mech.key, post.post_id))
                self.events.append(Event("mechanism_attempt", me, mech.name, mech.solution))
        elif target.kind == "item" and target.key is not None:
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            item = self.env.item(target.key)
            if item.key in self.s.items_left and item.zone == self.s.zone_of(me):
                self.s.update(
                    items_left=tuple(k for k in self.s.items_left if k != item.key),
                    inventory=self.s.inventory + ((me, item.key),),
                )
                self.events.append(Event("item_taken", me, item.name, item.found))
            else:
                self.events.append(Event("scenery", me, item.name, "not here"))
        else:
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            self.events.append(Event("scenery", me, target.key or "le décor", post.spell or ""))

    def record_target(self, me: str, victim: str, post: TurnPost, *, direct: bool) -> bool:
        """Note a direct target; False when it is a forbidden ``double_target`` (void)."""
        if not direct:
            return True
        targeted = self.s.targeted
        mate = self.s.teammate(me)
        if targeted and (mate, victim) in targeted and victim in self.s.opponents(me):
            zone = self.s.zone_of(victim)
            here = self.s.in_zone(zone)
            lone = me in here and mate in here and self.s.teammate(victim) not in here
            if lone or self.s.all_together():
                why = (
                    f"{victim} is alone in the zone with {me} and {mate}"
                    if lone
                    else "all four share a zone"
                ) + f"; {mate} already targeted {victim} this turn"
                status = self.violation(me, "double_target", post.post_id, why)
                if status not in ("waived", "off"):
                    self.events.append(Event("double_target", me, victim))
                    return False
        self.s.update(targeted=targeted + ((me, victim),))
        return True

    def silence(self, me: str) -> None:
        """``me`` let the deadline run out (:func:`rules.duo.engine.resolve_duo_silence`):
        the spells waiting on them resolve undefended and they pass the turn."""
        aimed = [p for p in self.s.pending if p.target == me]
        for p in aimed:
            self.resolve_pending(p, None)
        self.silent.add(me)
        self.events.append(Event("silent", me, None, "aimed" if aimed else ""))
        d = self.member(me)
        self.put(evolve(d, last_action=None))
        self.s.update(posted=self.s.posted + (me,), posted_ids=self.s.posted_ids + (0,))

    # -- end of turn ----------------------------------------------------------------------
    def close_turn(self) -> None:
        for p in list(self.s.pending):
            why = "out" if not self.s.active(p.target) else "other"
            self.resolve_pending(p, None, undefended=why)
        order = list(self.s.posted)
        ids = dict(zip(self.s.posted, self.s.posted_ids, strict=True))
        for duo in self.s.duos:
            alive = [n for n in duo if n in order]
            if not alive or any(n in self.s.movers or n in self.silent for n in duo):
                continue  # a silent member's duo: the silence is no violation (issue 26, D6)
            blamed = max(alive, key=order.index)
            self.violation(
                blamed, "missing_move", ids[blamed],
                f"nobody of {duo[0]} & {duo[1]} moved this turn",
            )  # fmt: skip
        pv_left = dict(self.s.creatures)  # each creature's own PV change comes after its read
        for c in self.env.creatures:
            left = pv_left[c.key]
            if left <= 0:
                continue
            if c.ability.kind == "aura":
                # A knocked-out duellist has abandoned (RULES.md: "a duellist whose PV reach 0
                # must abandon"): their PV stay where the knockout left them.
                for n in self.s.in_zone(c.zone):
                    if self.member(n).points <= 0:
                        continue
                    self.points(n, -c.ability.amount)
                    self.events.append(
                        Event("creature_ability", n, c.name, c.ability.name, c.ability.amount)
                    )
            elif c.ability.kind == "regenerate" and left < c.pv:
                healed = min(c.pv, left + c.ability.amount)
                self.s.update(
                    creatures=tuple((k, healed if k == c.key else v) for k, v in self.s.creatures),
                )
                self.events.append(
                    Event("creature_ability", None, c.name, c.ability.name, healed - left)
                )
        for who, key in self.s.moves:  # move_effect = "end_of_turn": the moves take effect
            if self.s.active(who):
                self.arrive(who, key)
        updated = []
        incoming = self.s.incoming
        arriving = {n for n, _ in incoming}
        for d in self.s.duel.duellists:
            if not d.effects and d.name not in arriving:
                continue  # nothing runs out, nothing starts: unchanged (issue 26: no copy)
            dot, after = ticked(d, incoming if d.name in arriving else ())
            if dot:
                self.events.append(Event("damage_over_time", d.name, None, "", dot))
            updated.append(after)
        self.put(*updated)
        self.s.update(
            duel=evolve(self.s.duel, turn=self.s.duel.turn + 1),
            incoming=(),
            posted=(),
            posted_ids=(),
            movers=(),
            moves=(),
            targeted=(),
        )
        self.events.append(Event("turn_closed", None, None, str(self.s.duel.turn)))

    def end(self) -> tuple[bool, tuple[str, ...], tuple[str, ...], bool]:
        return duo_end(self.s.duos, self.member, int(self.rs.setting("violations_to_lose")),
                       self.cfg.both_duos_down)  # fmt: skip


def duo_end(
    duos: tuple[tuple[str, str], tuple[str, str]], member: Callable[[str], DuellistState],
    limit: int, both_duos_down: str,
) -> tuple[bool, tuple[str, ...], tuple[str, ...], bool]:  # fmt: skip
    """Whether a 2v2 duel is over: (finished, winners, losers, draw). A duo loses when both
    its members are at 0 PV, or one is disqualified or has ``limit`` applied violations
    (``violations_to_lose``); both at once: the duo with more PV left wins (PV below 0 count
    as they are, as the 1v1 double_ko does), or a draw on a tie or with ``both_duos_down =
    "draw"`` (RULES.md: "Both at 0 in one declaration: the one with more PV left wins").
    ``member``: name -> the duellist as they stand. Shared by the engine and the
    simulator's trusted step (:mod:`rules.duo.trusted`)."""
    lost = []
    for i, duo in enumerate(duos):
        down, out = True, False  # every member at 0 PV; one disqualified or at the limit
        for n in duo:
            m = member(n)
            down = down and m.points <= 0
            out = out or m.disqualified or _applied(m.violations) >= limit
        if down or out:
            lost.append(i)
    if not lost:
        return False, (), (), False
    if len(lost) == 2:
        totals = [sum(member(n).points for n in duo) for duo in duos]
        if both_duos_down == "draw" or totals[0] == totals[1]:
            return True, (), (), True
        lost = [0 if totals[0] < totals[1] else 1]
    return True, duos[1 - lost[0]], duos[lost[0]], False


def ticked(
    d: DuellistState, incoming: Sequence[tuple[str, Effect]]
) -> tuple[int, DuellistState]:  # fmt: skip
    """One turn's close for duellist ``d`` (a 2v2 turn, :meth:`_Step.close_turn`): the PV
    their lasting damage takes (``DamageOverTime``) and ``d`` after it, each running effect
    one turn shorter (those at their last turn end), then the effects of ``incoming``
    (``(duellist, effect)`` of the turn, others' ignored) starting, one of the same kind and
    source kept with the longer duration. A knocked-out ``d`` (0 PV) loses every effect and
    takes nothing. Shared by the engine and the simulator's trusted step."""
    fields = dict(d.__dict__)  # d's fields, changed below (built without evolve's checks)
    new = _new(type(d))
    if d.points <= 0:  # knocked out: frozen, their lasting effects end with them
        fields["effects"] = ()
        _set(new, "__dict__", fields)
        return 0, new
    dot = 0
    running = []
    for e in d.effects:
        if isinstance(e, DamageOverTime):
            dot += e.amount
        if e.duration > 1:  # one turn less (>= 1: the effect's own check holds)
            running.append(_shorter(e))
    name = d.name
    for n, e in incoming:
        if n != name:
            continue
        same = (e.kind, e.source)
        for i, o in enumerate(running):
            if (o.kind, o.source) == same:
                if o.duration < e.duration:
                    running[i] = e
                break
        else:
            running.append(e)
    fields["points"] = d.points - dot
    fields["effects"] = tuple(running)
    _set(new, "__dict__", fields)
    return dot, new


_new = object.__new__
_set = object.__setattr__  # a frozen value's __dict__, set whole


def _shorter(e: Effect) -> Effect:
    """``e`` one turn shorter (its duration above 1, so its own check holds: built without
    ``dataclasses.replace``'s ``__post_init__`` round trip)."""
    new = _new(type(e))
    fields = dict(e.__dict__)
    fields["duration"] = e.duration - 1
    _set(new, "__dict__", fields)
    return new


def _applied(violations: tuple[Violation, ...]) -> int:
    """How many of ``violations`` are applied (they count towards ``violations_to_lose``)."""
    return sum([1 for v in violations if v.status == "applied"]) if violations else 0
