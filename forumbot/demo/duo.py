"""``forumbot demo --kind 2v2``: the sandbox board, four scripted duellists in two duos, the
real bot refereeing a two-against-two fatigue duel (issue 5, seed 001).

The duellists post through the sandbox's server-side helpers (on Forumactif every post rolls
the forum's « Pari » die, a Game Master post); the bot talks to the board over HTTP with the
real forum client, review delay 0, exactly as in :func:`forumbot.demo.classic.run_demo`.

Each scripted post is chosen from the duel's state in force (:func:`forumbot.duels.duo.
current_state`, :func:`rules.duo.expected_posters`) so that it is legal (RULES.md "Ruleset
fatigue — duels two against two"):

- the poster is one the declarations expect (when all four share a zone, one of each duo per
  declaration: seed 001 "l'arbitre ne postera d'intervention que tous les deux postes");
- a spell of the poster's year (``[known_levels]`` of ``rules/data/fatigue.toml``), never the
  one just used nor one already used on the same opponent (RULES.md "Reuse": ``reused_spell``);
- an opponent of the poster's zone as target when there is one the teammate has not targeted
  this turn (``double_target``), else a creature of the zone, else an opponent in another
  zone (RULES.md: "cast on any target") while an attack on them is legal, else a ward or heal
  on oneself, else the scenery: a duellist heals only when no attack is legal, so two
  survivors who keep missing each other's zone do not heal themselves forever;
- exactly one member of each duo moves per turn ("Per duo and per turn exactly one duellist
  moves, and must"), towards the opponents, written at the end of the post with the action.

Now and then (seeded, at most :data:`MAX_MISTAKES` per duel) the second member of a duo moves
too: the bot catches it as ``extra_move``.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forumbot.app import Bot
from forumbot.demo.classic import DUEL_FORUM, demo_bot, duplicates_words, make_demo_board
from forumbot.duels.duo import current_state, duo_settings, environments, load_env, open_duo_duel
from forumbot.duels.verify import VerifyReport, format_report, verify_pages
from forumbot.fetch import fetch_topic_pages
from forumbot.publish.labels import rule_label
from forumbot.publish.render import marker_text
from forumbot.rulesets import load_ruleset
from rules.duo import DuoState, Environment, expected_posters, posts_per_declaration
from rules.fatigue import FatigueRuleset
from rules.ruleset import Spell

PASSWORD = "duellist-demo"
# (name, year, magic type): a duo of an adult and a first year against a duo of a fourth year
# and a first year; first names are distinct (a ``Cible :`` line may give the first name).
DUOS: tuple[tuple[tuple[str, str, str], tuple[str, str, str]], ...] = (
    (("Aurora Vexley", "adult", "sournoise"), ("Blaise Corvin", "1", "protectrice")),
    (("Cassius Thorne", "4", "brutale"), ("Dorian Pike", "1", "flamboyante")),
)
MAX_MISTAKES = 2
MISTAKE_CHANCE = 0.25  # of a post that could move a second time
DODGE_CHANCE = 0.25  # of a post answering an attack, when a dodge is allowed
# The demo's own board runs its clock this many times faster than the wall clock, so that
# phpBB's one-second form age and the client's margin (1.5 s, scaled alike) do not make the
# ~25 declarations and ~20 owls of a 2v2 last minutes; over a demo the board's clock drifts
# a few minutes ahead at most.
SANDBOX_SPEED = 10.0
TITLE = "Duel en deux contre deux : Aurora et Blaise contre Cassius et Dorian"

_LINES = [
    "{me} se faufile entre les obstacles de {zone}, la baguette levée.",
    "Le regard fixé sur {them}, {me} murmure l'incantation à mi-voix.",
    "Une lueur parcourt la baguette de {me} et l'air se met à vibrer.",
    "{me} ajuste sa garde, les genoux fléchis, prêt à tout.",
    "Un coup d'œil vers {mate} : pas besoin de mots entre eux.",
    "Les verrières renvoient l'éclat des sorts dans toute la salle.",
    "{me} respire lentement pour calmer son cœur qui s'emballe.",
    "Quelque part derrière, un bruit sourd fait sursauter les spectateurs.",
    "{me} recule d'un pas, évalue la distance, puis avance de nouveau.",
    "La sueur perle sur le front de {me}, mais sa main ne tremble pas.",
    "{me} se souvient des conseils de son professeur de défense.",
    "Un sourire en coin, {me} fait tourner sa baguette entre ses doigts.",
    "Le sol de {zone} est glissant : {me} assure ses appuis.",
    "{me} lance un défi muet à {them} d'un simple haussement de sourcil.",
    "Les murmures du public s'éteignent quand {me} lève le bras.",
    "{me} trace dans l'air un arc lumineux avant de viser.",
]


@dataclass
class DuoDemoResult:
    """What the 2v2 demo saw.

    Attributes:
        declarations: post ids of the published declarations (the opening included).
        winners: the winning duo's members (empty for a draw).
        draw: True when both duos went down together and tied.
        duplicates: declaration markers found more than once on the board (0 expected).
        turns: closed turns.
        topic_id: the duel topic.
        zone_owls: zone owls sent (PMs whose subject starts "Duel à deux contre deux :").
        owls_twice: zone owls sent more than once to the same duellist (0 expected).
        violations: (rule, duellist) of every violation the bot recorded.
        mistakes: (rule, duellist) of the mistakes the script made on purpose.
        verify: the verify-dice report over the topic's pages.
    """

    declarations: list[int]
    winners: tuple[str, ...]
    draw: bool
    duplicates: int
    turns: int
    topic_id: int
    zone_owls: int
    owls_twice: int
    violations: list[tuple[str, str]] = field(default_factory=list)
    mistakes: list[tuple[str, str]] = field(default_factory=list)
    verify: VerifyReport | None = None


@dataclass(frozen=True)
class Play:
    """One scripted post: ``action`` in ``cast``/``dodge``/``none`` (role-play only, when an
    effect bars every action); ``move`` a zone key or None; ``mistake`` a rule name or None."""

    who: str
    action: str
    spell: str | None
    target: str | None
    move: str | None
    mistake: str | None = None


@dataclass
class TurnMemory:
    """What the script posted since the last published declaration (the state in force does
    not show it yet): posters, movers, targets, and positions after their moves."""

    posted: list[str] = field(default_factory=list)
    movers: list[str] = field(default_factory=list)
    targeted: list[tuple[str, str]] = field(default_factory=list)
    moved_to: dict[str, str] = field(default_factory=dict)

    def note(self, play: Play) -> None:
        """Record ``play`` (posted)."""
        self.posted.append(play.who)
        if play.move and play.mistake is None:
            self.movers.append(play.who)
            self.moved_to[play.who] = play.move
        if play.action == "cast" and play.target:
            self.targeted.append((play.who, play.target))


def _fatigue() -> FatigueRuleset:
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    return rs


def known_spells(rs: FatigueRuleset, year: str) -> list[Spell]:
    """Spells of the fatigue spellbook a duellist of ``year`` knows (seed 001: "Première année
    : sorts de niveau 1. [...] Adultes : sorts de niveau 1,2,3,4,5,6,7 et 8")."""
    top = rs.max_level_for(year)
    return [s for s in rs.spells if top is None or s.level <= top]


def _kinds(spell: Spell) -> set[str]:
    return {e.kind for e in spell.effects}


def _damage(spell: Spell) -> int:
    return sum(int(getattr(e, "amount", 0)) for e in spell.effects if e.kind == "pv_damage")


def _effect_kinds(state: DuoState, name: str) -> set[str]:
    return {e.kind for e in state.duel.duellist(name).effects}


class DuoScript:
    """The four scripted duellists: :meth:`next_play` picks who posts next and what, from the
    state in force and what was posted since the last declaration. Deterministic for a
    given ``rng`` seed."""

    def __init__(self, rng: random.Random, rs: FatigueRuleset, env: Environment) -> None:
        self.rng = rng
        self.rs = rs
        self.env = env
        self.mistakes: list[tuple[str, str]] = []

    # -- who posts -------------------------------------------------------------------------
    def poster(self, state: DuoState, memory: TurnMemory) -> str:
        """One of the expected posters who has not posted since the last declaration; when
        all four share a zone, the second post of a declaration comes from the other duo."""
        waiting = [n for n in expected_posters(state) if n not in memory.posted]
        if not waiting:
            raise RuntimeError("no duellist is expected to post")
        if memory.posted:
            other = [n for n in waiting if state.duo_of(n) != state.duo_of(memory.posted[-1])]
            waiting = other or waiting
        return self.rng.choice(waiting)

    # -- what to post ----------------------------------------------------------------------
    def next_play(self, state: DuoState, memory: TurnMemory) -> Play:
        """The next legal, sensible post (see the module doc)."""
        me = self.poster(state, memory)
        zones = {n: memory.moved_to.get(n, z) for n, z in state.positions}
        here = zones[me]
        mate = state.teammate(me)
        me_state = state.duel.duellist(me)
        barred = _effect_kinds(state, me)
        incoming = [p.attacker for p in state.pending if p.target == me]
        can_dodge = bool(incoming) and "no_dodge" not in barred and me_state.last_action != "dodge"
        can_cast = "no_attack" not in barred
        action, spell, target = "none", None, None
        if can_dodge and (not can_cast or self.rng.random() < DODGE_CHANCE):
            action, target = "dodge", self.rng.choice(incoming)
        elif can_cast:
            action = "cast"
            spell, target = self._cast(state, me, here, zones, memory, incoming)
        move, mistake = self._move(state, me, mate, here, zones, memory, action)
        return Play(me, action, spell, target, move, mistake)

    def _cast(
        self,
        state: DuoState,
        me: str,
        here: str,
        zones: dict[str, str],
        memory: TurnMemory,
        incoming: Sequence[str],
    ) -> tuple[str, str]:
        mine = state.duel.duellist(me)
        spells = [s for s in known_spells(self.rs, mine.year) if s.name != mine.last_spell]
        used = set(mine.spells_used_on)
        mate = state.teammate(me)
        targeted = set(state.targeted) | set(memory.targeted)
        opponents = [
            n
            for n in state.opponents(me)
            if state.active(n) and zones[n] == here and (mate, n) not in targeted
        ]
        # answer an attacker first (a defender who casts: both spells land)
        opponents.sort(key=lambda n: (n not in incoming, n))
        for victim in opponents:
            attacks = [s for s in spells if _damage(s) > 0 and (s.name, victim) not in used]
            if attacks:
                return self._strong(attacks).name, victim
        creatures = [
            c.name for c in self.env.creatures if c.zone == here and state.creature_pv(c.key) > 0
        ]
        attacks = [s for s in spells if _damage(s) > 0]
        if creatures and attacks:
            return self._strong(attacks).name, creatures[0]
        # no opponent here: an attack at one elsewhere while one is legal ("cast on any
        # target"), so that duellists who keep missing each other's zone never heal forever
        far = [
            n
            for n in state.opponents(me)
            if state.active(n) and zones[n] != here and (mate, n) not in targeted
        ]
        far.sort(key=lambda n: (n not in incoming, n))
        for victim in far:
            legal = [s for s in attacks if (s.name, victim) not in used]
            if legal:
                return self._strong(legal).name, victim
        care = [s for s in spells if _kinds(s) & {"ward", "heal"}]
        if care:
            return self.rng.choice(care).name, "moi"
        return self.rng.choice(spells).name, "le décor"

    def _strong(self, spells: Sequence[Spell]) -> Spell:
        """One of the three most damaging spells (seeded)."""
        best = sorted(spells, key=lambda s: (-_damage(s), s.name))[:3]
        return self.rng.choice(best)

    def _move(
        self,
        state: DuoState,
        me: str,
        mate: str,
        here: str,
        zones: dict[str, str],
        memory: TurnMemory,
        action: str,
    ) -> tuple[str | None, str | None]:
        barred = _effect_kinds(state, me)
        incoming = any(p.target == me for p in state.pending)
        endures = "no_attack" in barred and (not incoming or "no_dodge" in barred)
        if action == "none" and not endures:  # a move goes with another action ("move_alone")
            return None, None  # (a duellist left with no legal action may move alone)
        moved = set(state.movers) | set(memory.movers)
        if mate in moved:
            if (
                len(self.mistakes) < MAX_MISTAKES
                and self.rng.random() < MISTAKE_CHANCE
                and (dest := self._destination(state, me, here, zones)) is not None
            ):
                self.mistakes.append(("extra_move", me))
                return dest, "extra_move"
            return None, None
        if me in moved:
            return None, None
        mate_waits = state.active(mate) and mate not in state.posted and mate not in memory.posted
        foes_here = [n for n in state.opponents(me) if state.active(n) and zones[n] == here]
        mate_alone = not [
            n for n in state.opponents(me) if state.active(n) and zones[n] == zones[mate]
        ]
        if mate_waits and foes_here and mate_alone:
            return None, None  # I am fighting: my teammate comes to us
        return self._destination(state, me, here, zones), None

    def _destination(
        self, state: DuoState, me: str, here: str, zones: dict[str, str]
    ) -> str | None:
        """The other zone with the most active opponents; when they are all here, the
        teammate's zone, else another zone (a duo must move every turn)."""
        counts: dict[str, int] = {}
        for n in state.opponents(me):
            if state.active(n) and zones[n] != here:
                counts[zones[n]] = counts.get(zones[n], 0) + 1
        if counts:
            top = max(counts.values())
            return self.rng.choice(sorted(z for z, c in counts.items() if c == top))
        mate_zone = zones[state.teammate(me)]
        if mate_zone != here:
            return mate_zone
        others = [z.key for z in self.env.zones if z.key != here]
        return self.rng.choice(others) if others else None

    # -- the post's text ---------------------------------------------------------------------
    def text(self, state: DuoState, play: Play) -> str:
        """The post: 10 role-play lines, the bold spell, then the action footer (``Action :``,
        ``Pari :``, ``Cible :``, ``Déplacement :``)."""
        here = self.env.zone(state.zone_of(play.who)).name
        them = play.target if play.target in state.names() else state.opponents(play.who)[0]
        words = {"me": play.who, "them": them, "mate": state.teammate(play.who), "zone": here}
        body = "\n".join(line.format(**words) for line in self.rng.sample(_LINES, 10))
        if play.action == "none":
            body += f"\n{play.who} serre les dents et endure, incapable d'agir ce tour-ci."
            if play.move:
                body += f"\nDéplacement : zone {self.env.zone_number(play.move)}"
            return body
        lines = [body]
        if play.spell:
            lines.append(f"[b]{play.spell}[/b]")
        action = {"cast": "lancer un sort", "dodge": "esquiver"}[play.action]
        lines.append(f"Action : {action}")
        lines.append(f"Pari : {self.rng.choice([[1, 2, 3, 4], [3, 4, 5, 6]])}")
        if play.target:
            lines.append(f"Cible : {play.target}")
        if play.move:
            lines.append(f"Déplacement : zone {self.env.zone_number(play.move)}")
        return "\n".join(lines)


def make_duo_board(platform: str = "phpbb3", seed: int = 0, **kwargs: Any) -> Any:
    """The demo board (:func:`forumbot.demo.classic.make_demo_board`) with the four duellists of
    :data:`DUOS`; on Forumactif the forum's dice are « Pari » d6 (seeded by ``seed``)."""
    if platform == "forumactif":
        kwargs = {"dice": (("Pari", 6),), "seed": seed, **kwargs}
    board = make_demo_board(platform, **kwargs)
    for duo in DUOS:
        for name, _, _ in duo:
            try:
                board.user_id(name)
            except KeyError:
                board.add_user(name, PASSWORD)
    return board


def sandbox_clock(speed: float) -> Callable[[], float]:
    """Epoch seconds running ``speed`` times faster than :func:`time.time` from now on."""
    start = time.time()
    return lambda: start + (time.time() - start) * speed


def topic_url(base_url: str, platform: str, topic_id: int) -> str:
    """The duel topic's URL on the sandbox (phpBB ``viewtopic.php?t=N``, Forumactif
    ``/tN-slug``)."""
    if platform == "forumactif":
        return f"{base_url}/t{topic_id}-duel-a-deux-contre-deux"
    return f"{base_url}/viewtopic.php?t={topic_id}"


def _cycle(bot: Bot) -> list[int]:
    bot.poll()  # reads the new post, drafts; sends the owls of what was published before
    return list(bot.publish())


def run_duo_demo(
    platform: str = "phpbb3",
    seed: int = 7,
    echo: Callable[[str], None] = print,
    max_turns: int = 30,
    environment: str | None = None,
    database: str | None = None,
    board: Any = None,
    time_limit_s: float = 240.0,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> DuoDemoResult:
    """Run a scripted 2v2 duel to the end on the sandbox; returns what happened.

    Args:
        platform: ``phpbb3`` or ``forumactif`` (the forum rolls the « Pari » dice).
        seed: seeds the script, the duel's dice secret and the environment (replayable).
        echo: prints each declaration and the summary.
        max_turns: safety cap of closed turns.
        environment: an environment key; None = one of the shipped ones, from the seed.
        database: the bot's SQLite file (default: a temporary folder).
        board: a started board from :func:`make_duo_board`, left running (tests inspect it);
            by default the demo starts and stops its own.
        time_limit_s: safety cap in seconds.
        sleep, clock: a fake clock (epoch seconds) and its sleep for the demo's own board and
            the bot's forum client (tests); by default the board runs :data:`SANDBOX_SPEED`
            times faster than the wall clock and the bot waits really.

    Raises:
        RuntimeError: no winner after ``max_turns`` turns or ``time_limit_s``, or a draft the
            bot holds for the referee (the demo cannot answer it).
    """
    rng = random.Random(seed)
    env_key = environment or rng.choice(environments())
    secret = rng.randbytes(32)
    own_board = board is None
    if own_board:
        board_clock = clock if clock is not None else sandbox_clock(SANDBOX_SPEED)
        board = make_duo_board(platform, seed=seed, clock=board_clock)
        base_url = board.start()
    else:
        base_url = board.base_url
    workdir = Path(tempfile.mkdtemp(prefix="forumbot-demo-2v2-"))
    bot: Bot | None = None
    try:
        db = database or str(workdir / "demo.db")
        bot = demo_bot(
            base_url, platform, "fatigue", db, seed, dice_name="Pari", sleep=sleep, clock=clock
        )
        if own_board and clock is None and hasattr(bot.client, "min_form_age_s"):
            # phpBB's form age (``check_form_key``: 1 s) on the sandbox's faster clock
            bot.client.min_form_age_s /= SANDBOX_SPEED
        topic_id = board.create_topic(
            DUEL_FORUM,
            "Arbitre",
            TITLE,
            "Bienvenue au club de duel !\n"
            + "\n".join(
                "Duo : " + " et ".join(f"{n} ({_year_fr(y)})" for n, y, _ in duo) for duo in DUOS
            )
            + "\nQue le meilleur duo gagne.",
        )
        duel_id = open_duo_duel(
            bot.referee,
            DUEL_FORUM,
            topic_id,
            TITLE,
            [[(n, y, [m]) for n, y, m in duo] for duo in DUOS],
            env_key,
            stakes="une mandragore en pot",
            dice_secret=secret,
            actor="demo",
        )
        echo(f"sandbox board at {base_url}; 2v2 duel topic {topic_id} (environment {env_key})")
        script = DuoScript(rng, _fatigue(), load_env(env_key))
        return _play(bot, board, platform, topic_id, duel_id, script, echo, max_turns,
                     time_limit_s)  # fmt: skip
    finally:
        if bot is not None:
            bot.close()
        if own_board:
            board.stop()


def _year_fr(year: str) -> str:
    if year == "adult":
        return "adulte"
    return "1re année" if year == "1" else f"{year}e année"


def _play(
    bot: Bot,
    board: Any,
    platform: str,
    topic_id: int,
    duel_id: int,
    script: DuoScript,
    echo: Callable[[str], None],
    max_turns: int,
    time_limit_s: float,
) -> DuoDemoResult:
    storage = bot.storage
    published: list[int] = []
    memory = TurnMemory()
    started = time.monotonic()
    idle_since = time.monotonic()
    while True:
        new = _cycle(bot)
        for post_id in new:
            published.append(post_id)
            text = storage.readouts.published_text(post_id)
            echo(f"--- declaration (post {post_id}) ---\n{text}")
        if new:
            memory = TurnMemory()
            idle_since = time.monotonic()
        duel = storage.duel(duel_id)
        if duel["status"] == "finished":
            break
        if time.monotonic() - started > time_limit_s:
            raise RuntimeError(f"the 2v2 demo took more than {time_limit_s:.0f} s")
        held = storage.declarations(("held",), duel_id)
        if held:
            raise RuntimeError(f"the bot holds a draft for the referee: {held[0]['last_error']}")
        if duel["status"] != "running":
            _idle(idle_since)
            continue
        state = current_state(storage, duel)
        if state.duel.turn >= max_turns:
            raise RuntimeError(f"no winner after {max_turns} turns")
        want = min(posts_per_declaration(state, duo_settings()), len(expected_posters(state)))
        if len(memory.posted) >= want:
            _idle(idle_since)
            continue
        play = script.next_play(state, memory)
        text = script.text(state, play)
        if platform == "forumactif":  # the forum rolls the « Pari » die: a Game Master post
            board.post_reply(topic_id, play.who, text, dice=("Pari", 1))
        else:
            board.post_reply(topic_id, play.who, text)
        memory.note(play)
    bot.poll()  # the last owls
    return _summary(bot, board, platform, topic_id, duel_id, published, script, echo)


def _idle(since: float) -> None:
    if time.monotonic() - since > 60:
        raise RuntimeError("the bot published nothing for 60 s")
    time.sleep(0.05)


def _summary(
    bot: Bot,
    board: Any,
    platform: str,
    topic_id: int,
    duel_id: int,
    published: list[int],
    script: DuoScript,
    echo: Callable[[str], None],
) -> DuoDemoResult:
    storage = bot.storage
    duel = storage.duel(duel_id)
    state = current_state(storage, duel)
    texts = [p["text"] if isinstance(p, dict) else p.text for p in board.posts(topic_id)]
    markers = [
        marker_text(d["idempotency_key"]) for d in storage.declarations(("published",), duel_id)
    ]
    duplicates = sum(max(0, sum(m in t for t in texts) - 1) for m in markers)
    owls = [
        (m.to_ids[0], m.subject)
        for m in board.pms()
        if m.subject.startswith("Duel à deux contre deux :")
    ]
    twice = len(owls) - len(set(owls))
    violations = [
        (str(r["rule"]), str(r["duellist"]))
        for r in storage.readouts.violations(duel_id)
    ]
    draw = state.duel.draw
    # the turn players last read (« tour 10 »), not the count of complete turns (W20)
    read = storage.readouts.last_published_turn(duel_id)
    outcome = "match nul" if draw else f"vainqueurs : {' et '.join(state.winners)}"
    echo(
        f"=== {outcome} ({max(state.duel.turn, read or 0)} tours, {len(published)} déclarations, "
        f"{duplicates_words(duplicates)}, {len(owls)} hiboux de zone, {twice} en double) ==="
    )
    if violations:
        echo(
            "infractions relevées : " + ", ".join(f"{rule_label(r)} ({n})" for r, n in violations)
        )  # French names (C29)
    report = verify_pages(fetch_topic_pages(topic_url(board.base_url, platform, topic_id)))
    echo(f"verify-dice : {format_report(report)[-1]}")
    return DuoDemoResult(
        declarations=published,
        winners=state.winners,
        draw=draw,
        duplicates=duplicates,
        turns=state.duel.turn,
        topic_id=topic_id,
        zone_owls=len(owls),
        owls_twice=twice,
        violations=violations,
        mistakes=list(script.mistakes),
        verify=report,
    )
