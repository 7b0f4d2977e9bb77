"""What a 2v2 post does to the environment: rewards, creatures, mechanisms, items, moves.

Split out of ``rules.duo.engine`` (issue 17).
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.duo.environment import RewardEntry, fold, pick_reward
from rules.duo.opening import Target
from rules.duo.outcome import Event
from rules.duo.state import RewardGiven
from rules.duo.step import _StepCore
from rules.fatigue.context import _base_damage, _family
from rules.fatigue.effects import Ward
from rules.fatigue.engine import has_legal_action
from rules.model import TurnPost


class _WorldStep(_StepCore):
    """:class:`_StepCore` and the environment's side of a post (never escapes the call)."""

    # -- creatures, mechanisms, items -------------------------------------------------------
    def reward(self, who: str, source: str, table: Sequence[RewardEntry], post_id: int) -> None:
        total = sum(r.weight for r in table)
        label = f"reward:{source}:{post_id}"
        roll = self.draw(label, total) if total > 1 else 0
        audit = f"{label} {roll + 1}/{total}" if total > 1 else ""
        chosen = pick_reward(table, roll)
        if chosen.kind == "pv":
            gain = chosen.amount
            if not self.cfg.pv_reward_above_start:
                top = self.rs.starting_points_for(self.member(who).year)
                gain = max(0, min(gain, top - self.member(who).points))
            self.points(who, gain)
        given = RewardGiven(who, source, chosen.kind, chosen.amount)
        self.s.update(rewards=self.s.rewards + (given,))
        self.events.append(Event("reward", who, source, chosen.kind, chosen.amount, draw=audit))

    def hit_creature(self, who: str, key: str, post: TurnPost) -> None:
        creature = self.env.creature(key)
        zone = self.s.zone_of(who)
        left = self.s.creature_pv(key)
        if left <= 0 or creature.zone != zone:
            why = "already defeated" if left <= 0 else "not in the caster's zone"
            self.exchange(who, self._dummy(who), None, post, poster=who, keep={who}, close=False)
            self.events.append(Event("scenery", who, creature.name, why))
            return
        att = self.exchange(who, self._dummy(who), None, post, poster=who, keep={who}, close=False)
        if att is None or att.void_reason != "pending":
            void = (att.void_reason if att is not None else None) or ""
            self.events.append(Event("creature_missed", who, creature.name, void))
            return
        armour = creature.ability.amount if creature.ability.kind == "armour" else 0
        self.note(f"{who}.landed", True, f"{att.spell} hits {creature.name}")
        if not self.take(who, "landed", True):
            self.events.append(Event("creature_missed", who, creature.name, "referee"))
            return
        typed = self.caster_bonus(who, att.spell) if self.cfg.creature_damage == "caster" else 0
        computed = max(0, att.attack_value + typed - armour)
        self.note(
            f"{who}.damage", computed,
            f"{att.spell}: {att.attack_value} + {typed} (caster's magic types) - {armour} "
            f"(armour) = {computed} PV on {creature.name} ({left} PV)",
        )  # fmt: skip
        damage = max(0, int(self.take(who, "damage", computed)))
        left = max(0, left - damage)
        self.s.update(creatures=tuple((k, left if k == key else v) for k, v in self.s.creatures))
        self.events.append(
            Event("creature_hit", who, creature.name, att.spell or "", damage,
                  base=att.attack_value)
        )  # fmt: skip
        if armour:
            self.events.append(
                Event("creature_ability", None, creature.name, creature.ability.name, armour)
            )
        if left == 0:
            self.events.append(Event("creature_defeated", who, creature.name))
            if not any(k == key for k, _ in self.s.defeated):  # one reward per creature, ever
                self.s.update(defeated=self.s.defeated + ((key, who),))
                self.reward(who, f"creature:{key}", creature.rewards, post.post_id)
        elif creature.ability.kind == "retaliate":
            self.points(who, -creature.ability.amount)
            self.events.append(
                Event("creature_ability", who, creature.name, creature.ability.name,
                      creature.ability.amount)
            )  # fmt: skip

    def caster_bonus(self, who: str, spell: str | None) -> int:
        """PV the caster's magic types add to ``spell`` (``damage_percent`` of the base,
        rounded down, and ``damage_flat`` of the spell's family), as on a duellist; a creature
        has no magic type, so no ``damage_taken_flat`` (duo.toml ``creature_damage =
        "caster"``; seed 001: « l'utilisation de certains sorts et leurs résultats seront
        parfois différents selon le type de magie du duelliste »)."""
        if spell is None or not self.rs.has_spell(spell):
            return 0
        s = self.rs.spell(spell)
        base, family = _base_damage(s), _family(s)
        bonus = 0
        for t in self.member(who).magic_types:
            for m in self.rs.magic_type(t).modifiers:
                if m.concerns(family) and m.kind == "damage_percent":
                    bonus += base * m.value // 100
                elif m.concerns(family) and m.kind == "damage_flat":
                    bonus += m.value
        return bonus

    def no_legal_action(self, who: str, targeted: bool) -> bool:
        """True when ``who`` can neither cast nor dodge: no spell may be cast with an effect
        (a ``no_attack`` effect runs, or every known spell aimed at an opponent is spent on
        each opponent still standing, with no self spell known and no creature standing in
        their zone: issue 26 D1, :func:`rules.fatigue.reading.may_cast_a_spell`; a spell at
        the scenery is no way out [D]), and nothing to dodge (nothing aimed at them, a
        ``no_dodge`` effect, or a second dodge in a row). RULES.md: "A duellist left with no
        legal action posts role-play and endures: that counts as their post, no violation" —
        so their move, the duo's move of the turn, is no ``move_alone`` either."""
        zone = self.s.zone_of(who)
        creature = any(
            k == c.key and c.zone == zone and pv > 0
            for k, pv in self.s.creatures
            for c in self.env.creatures
        )
        return not has_legal_action(
            self.member(who),
            self.rs.cfg,
            can_be_dodging=targeted,
            ruleset=self.rs,
            opponents=[n for n in self.s.opponents(who) if self.s.active(n)],
            creature=creature,
        )

    def _dummy(self, who: str) -> str:
        """Another duellist for a one-sided 1v1 check (its changes are discarded)."""
        return self.s.teammate(who)

    def solve(self, key: str, who: str, ref_id: int) -> None:
        """A mechanism the referee judged solved by ``who``: reward drawn now."""
        if any(k == key for k, _ in self.s.solved):
            return
        mech = self.env.mechanism(key)
        self.s.update(solved=self.s.solved + ((key, who),))
        self.events.append(Event("mechanism_solved", who, mech.name))
        self.reward(who, f"mechanism:{key}", mech.rewards, ref_id)

    def use_item(self, who: str, text: str, post: TurnPost, target: Target) -> None:
        held = [k for n, k in self.s.inventory if n == who]
        t = fold(text)
        key = next(
            (k for k in held if t in (fold(k), fold(self.env.item(k).name))
             or fold(self.env.item(k).name) in t),
            None,
        )  # fmt: skip
        if key is None:
            self.events.append(Event("item_not_held", who, text))
            return
        item = self.env.item(key)
        inv = list(self.s.inventory)
        inv.remove((who, key))
        self.s.update(inventory=tuple(inv))
        if item.effect == "heal":
            top = self.rs.starting_points_for(self.member(who).year)
            gain = max(0, min(item.amount, top - self.member(who).points))
            self.points(who, gain)
            self.events.append(Event("item_used", who, item.name, "heal", gain))
        elif item.effect == "ward":
            ward = Ward(amount=item.amount, duration=item.duration, source=item.name, caster=who)
            self.s.update(incoming=self.s.incoming + ((who, ward),))
            self.events.append(Event("item_used", who, item.name, "ward", item.amount))
        else:
            victim = target.key if target.kind == "duellist" and target.key else None
            if victim is not None:
                self.points(victim, -item.amount)
            self.events.append(
                Event("item_used", who, item.name, f"damage:{victim or '-'}", item.amount)
            )

    def move(self, me: str, text: str, post_id: int) -> None:
        zone = self.env.find_zone(text)
        if zone is None:
            self.violation(me, "unknown_zone", post_id, f"'Déplacement : {text}' names no zone")
            return
        here = self.s.zone_of(me)
        if zone.key == here:
            self.events.append(Event("same_zone", me, None, zone.name, zone=zone.key))
            return
        if self.s.teammate(me) in self.s.movers:
            status = self.violation(
                me, "extra_move", post_id, f"{self.s.teammate(me)} already moved this turn"
            )
            if status not in ("waived", "off"):
                self.events.append(Event("extra_move_refused", me, None, zone.name, zone=zone.key))
                return
        if self.cfg.move_effect == "end_of_turn":  # the four stay put until the turn closes
            self.s.update(movers=self.s.movers + (me,), moves=self.s.moves + ((me, zone.key),))
            self.events.append(
                Event("move_planned", me, here, self.env.zone(here).name, zone=zone.key)
            )
            return
        self.s.update(movers=self.s.movers + (me,))
        self.arrive(me, zone.key)

    def arrive(self, me: str, key: str) -> None:
        """``me`` enters zone ``key`` (the zone's owl is sent: ``entered``)."""
        here = self.s.zone_of(me)
        self.s.update(positions=tuple((n, key if n == me else z) for n, z in self.s.positions))
        self.entered.append((me, key))
        self.events.append(Event("move", me, here, self.env.zone(here).name, zone=key))
