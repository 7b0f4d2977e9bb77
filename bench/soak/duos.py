"""The season's 2v2 side (issue 23): sign-ups in the 2v2 registration thread and the 2v2 duels
the scripted players play, beside the 1v1 ones of :mod:`soak.season`.

- Sign-ups: a player free in both kinds signs up in the 2v2 thread now and then
  (:data:`DUO_SHARE` of their sign-ups), as a duo (one line per member, the partner naming
  each other: the phrasings of ``tests/unit/test_signup_member_lines.py``) or alone (the desk
  finds a teammate); a named partner names them back later (a confirmation) half the time; a
  few withdraw. Refused sign-ups (« inscriptions fermées » while a 2v2 runs) are simply posted
  again days later, as players do.
- Duels: :class:`forumbot.demo.duo.DuoScript` picks each legal post from the duel's state in
  force (:func:`forumbot.duels.duo.current_state`) and what was posted since the last
  declaration (a :class:`forumbot.demo.duo.TurnMemory` per duel, reset when a declaration is
  published); :mod:`soak.season` schedules the turns (silences, concessions, posts before the
  top) for both kinds, and calls :meth:`Duos.play` for a 2v2.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from forumbot.demo.duo import DuoScript, TurnMemory
from forumbot.duels.duo import current_state, duo_settings, load_env
from forumbot.duels.duo_board import is_duo
from rules.duo import expected_posters, posts_per_declaration
from soak import checks
from soak.players import WITHDRAWALS, Player, _types
from soak.world import World

HOUR, DAY = 3600.0, 86400.0
DUO_SHARE = 0.4
"""The share of a player's sign-ups posted in the 2v2 thread (default of ``--duo-share``)."""


def duo_text(rng: random.Random, me: Player, partner: Player | None) -> str:
    """One valid 2v2 sign-up of ``me``: with ``partner``, a duo written one line per member
    (or the partner's details on the partner's own line); else alone."""
    y, t = me.year, _types(me)
    if partner is None:
        forms = [
            f"Nom : {me.name}\nAnnée : {y}e année\nType de magie : {t}\nJe cherche un "
            "coéquipier pour un duel en deux contre deux.",
            f"Nom : {me.name}\nAnnée : {y}ème année\nType de magie : {t}\nCoéquipier : "
            "n'importe qui",
            f"🔥 Nom : {me.name} 🔥\n✨ Année : {y} ✨\n💫 Type de magie : {t} 💫",
            f"{me.name}, {y}ème, {t}",
            f"Nom : {me.name}\nAnnée : {y}\nType : {t}\nPartenaire : aucun",
        ]
        return rng.choice(forms)
    p, py, pt = partner.name, partner.year, _types(partner)
    m = me.name
    forms = [
        f"Joueur 1 : {m}, {y}e année, {t}\nJoueur 2 : {p}, {py}e année, {pt}",
        f"Inscription en deux contre deux !\nJoueuse 1 : {m}, {y}e année, {t}\n"
        f"Joueuse 2 : {p}, {py}e année, {pt}",
        f"Membre 1 : {m} ({y}e année, {t})\nMembre 2 : {p} ({py}e année, {pt})",
        f"Duelliste n°1 : {m} - {y}e année - {t}\nDuelliste n°2 : {p} - {py}e année - {pt}",
        f"Coéquipier 2 : {p}, {py}e année, {pt}\nCoéquipier 1 : {m}, {y}e année, {t}",
        f"Notre duo :\n- {m}, {y}e année, {t}\n- {p}, {py}e année, {pt}",
        f"1) {m}, {y}e année, {t}\n2) {p}, {py}e année, {pt}",
        f"Nom : {m}\nAnnée : {y}e année\nType de magie : {t}\nPartenaire : {p}\n"
        f"{p}, {py}e année, {pt}",
        f"Je m'inscris avec {p}.\n{m}, {y}e année, {t}\n{p} ({py}e année, {pt})",
        f"Nom : {m}\nAnnée : {y}\nType de magie : {t}\nPartenaire : {p}, {py}e année, {pt}",
        f"{m}, {y}e année, {t}\nPartenaire : {p}\n{py}e année, {pt}",
    ]
    return rng.choice(forms)


@dataclass
class DuoTurn:
    """What the script posted in a 2v2 duel since its last published declaration."""

    published: int
    memory: TurnMemory = field(default_factory=TurnMemory)


@dataclass
class Duos:
    """The 2v2 side of one season (see the module doc).

    ``post(topic, who, text) -> post id`` is the season's poster; ``owe()`` asks for a poll."""

    world: World
    rng: random.Random
    post: Callable[[int, str, str], int]
    owe: Callable[[object], None]
    asks: list[checks.Ask] = field(default_factory=list)
    named: dict[int, str | None] = field(default_factory=dict)  # 2v2 sign-up -> partner
    withdrawal_posts: list[int] = field(default_factory=list)
    turns: dict[int, DuoTurn] = field(default_factory=dict)
    scripts: dict[int, DuoScript] = field(default_factory=dict)
    count: Counter[str] = field(default_factory=Counter)
    posts: int = 0
    share: float = DUO_SHARE

    # -- sign-ups ----------------------------------------------------------------------------
    def wants(self) -> bool:
        """Whether a player's next sign-up goes to the 2v2 thread."""
        return self.rng.random() < self.share

    def sign_up(self, me: Player, players: list[Player], live: dict[str, object]) -> None:
        """``me`` (free in both kinds) signs up in the 2v2 thread, with a free partner or
        alone; the partner may name them back later, ``me`` may withdraw."""
        rng, world = self.rng, self.world
        free = [p for p in players if p.name != me.name and p.name not in live]
        partner = rng.choice(free) if free and rng.random() < 0.55 else None
        post_id = self.post(world.duo_thread, me.name, duo_text(rng, me, partner))
        self.named[post_id] = partner.name if partner else None
        self.asks.append(checks.Ask(world.clock(), me.name, partner.name if partner else None))
        self.count["duo_signup"] += 1
        if partner is not None and rng.random() < 0.5:
            self.count["duo_mutual"] += 1
            world.later(rng.uniform(5 * 60, 10 * HOUR), lambda: self._name_back(partner, me))
        if rng.random() < 0.05:
            self.count["duo_withdrawal"] += 1
            world.later(rng.uniform(10 * 60, 6 * HOUR), lambda: self._withdraw(me))

    def _name_back(self, me: Player, partner: Player) -> None:
        post_id = self.post(self.world.duo_thread, me.name, duo_text(self.rng, me, partner))
        self.named[post_id] = partner.name
        self.asks.append(checks.Ask(self.world.clock(), me.name, partner.name))

    def _withdraw(self, me: Player) -> None:
        post_id = self.post(self.world.duo_thread, me.name, self.rng.choice(WITHDRAWALS))
        self.withdrawal_posts.append(post_id)

    # -- duels -------------------------------------------------------------------------------
    def is_duo(self, duel_id: int) -> bool:
        """Whether the bot's duel ``duel_id`` is a 2v2."""
        assert self.world.bot is not None
        return is_duo(self.world.bot.storage, duel_id)

    def play(self, duel_id: int, published: int, edit: Callable[[int, str, str], None]) -> None:
        """Post the next legal post of the 2v2 ``duel_id`` if the declarations stand where
        the turn was scheduled (``published``; negative: a post before the top, whatever
        stands), then schedule the teammates' and opponents' posts the declaration waits for.
        ``edit(post_id, text, who)`` schedules a late edit of the spell."""
        world = self.world
        assert world.bot is not None
        storage = world.bot.storage
        duel = storage.duel(duel_id)
        if duel["status"] != "running":
            return
        state = current_state(storage, duel)
        now_published = _published(storage, duel_id)
        if published >= 0 and now_published != published:
            return
        turn = self.turns.get(duel_id)
        if turn is None or turn.published != now_published:
            turn = self.turns[duel_id] = DuoTurn(now_published)
        want = min(posts_per_declaration(state, duo_settings()), len(expected_posters(state)))
        if published >= 0 and len(turn.memory.posted) >= want:
            return
        script = self._script(duel_id)
        try:
            play = script.next_play(state, turn.memory)
        except RuntimeError:  # nobody is expected to post (the bot decides first)
            self.count["duo_nobody_expected"] += 1
            return
        text = script.text(state, play)
        post_id = self.post(int(duel["topic_id"]), play.who, text)
        self.posts += 1
        turn.memory.note(play)
        if play.spell and self.rng.random() < 0.04:
            other = self.rng.choice([s.name for s in script.rs.spells])
            edit(post_id, text.replace(f"[b]{play.spell}[/b]", f"[b]{other}[/b]"), play.who)
        if published >= 0 and len(turn.memory.posted) < want:
            delay = (self.rng.uniform(10 * 60, 3 * HOUR) if self.rng.random() < 0.7
                     else self.rng.uniform(3, 30) * HOUR)  # fmt: skip
            world.later(delay, lambda: self.play(duel_id, published, edit))

    def _script(self, duel_id: int) -> DuoScript:
        if duel_id not in self.scripts:
            assert self.world.bot is not None
            row = self.world.bot.storage.db["duo_duels"].get(duel_id)
            env = load_env(str(row["environment"]))
            from forumbot.demo.duo import _fatigue

            self.scripts[duel_id] = DuoScript(
                random.Random(self.rng.random()), _fatigue(), env)  # fmt: skip
        return self.scripts[duel_id]


def _published(storage: Any, duel_id: int) -> int:
    return int(storage.db.execute(
        "select count(*) from declarations where duel_id = ? and status = 'published'",
        [duel_id]).fetchone()[0])  # fmt: skip


def match_players(storage: Any, duel_id: int) -> list[str]:
    """The four players of the 2v2 match whose duel is ``duel_id`` (none for a 1v1)."""
    return [e["player"] for m in storage.db["duo_matches"].rows_where("duel_id = ?", [duel_id])
            for duo in json.loads(m["duos_json"]) for e in duo]  # fmt: skip
