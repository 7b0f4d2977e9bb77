"""``forumbot demo --kind fatigue``: the club's fatigue one-against-one season on the sandbox.

What the club actually runs (seed 001, RULES.md "Registration and scheduling" and "Ruleset
fatigue — duels one against one"), from the sign-up thread to the leaderboard, with the real
bot refereeing over HTTP (the real forum client, review delay 0):

1. the registration thread and the leaderboard topic are opened by the referee's account; the
   bot's first cycle publishes the (empty) leaderboard post;
2. :data:`PLAYERS` sign up: Aurora Vexley with a full sign-up and stakes (an open request),
   Cassius Thorne first without his year: the bot answers under his post asking for it, and
   he posts a corrected sign-up, which the bot pairs with Aurora's open request;
3. the bot opens the duel topic (opening declaration with the dice commitment) and sends each
   duellist the owl with their magic type's modifiers;
4. the duel is played to a winner: each scripted post is legal, chosen from the duel's state in
   force by :func:`rules.balance.policies.fatigue_post` (a spell of the poster's year, never
   one already used on the opponent, no dodge twice in a row, an allowed bet); the initiative
   alternates, and goes to the other duellist when the one whose turn it is cannot cast;
5. the bot gives the purse (3 G) and the chocolate frog, owls both duellists the result and
   edits the leaderboard post.

Everything the players would read (the bot's posts, the owls, the leaderboard before and after)
is printed as it appears; the end prints a summary line. The board and the bot's client share
one :class:`DemoClock` that only moves when someone waits (the flood interval, phpBB's form age)
or when the script lets a minute pass between posts, so the demo takes seconds and replays
exactly for a given seed.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forumbot.app import Bot
from forumbot.config import Config, Registration, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, duplicates_words, make_demo_board
from forumbot.demo.duo import topic_url
from forumbot.duels.referee import Referee
from forumbot.duels.verify import VerifyReport, format_report, verify_pages
from forumbot.fetch import fetch_topic_pages
from forumbot.forums.base import ForumClient
from forumbot.publish.render import marker_text
from forumbot.rulesets import load_ruleset
from forumbot.storage import open_storage
from rules.balance.policies import Policy, fatigue_post
from rules.fatigue import FatigueRuleset
from rules.model import DuelState, TurnPost

REGISTRATION_FORUM, CLUB_FORUM = 4, 2  # the sandbox's default forums (DUEL_FORUM is 3)
PASSWORD = "duellist-demo"
# (name, year as written in the sign-up, magic type). A 6th year (350 PV) against a 2nd year
# (150 PV): docs/balance.md, the 6th year wins every finished duel, so the season's duel ends.
PLAYERS = (("Aurora Vexley", "6e année", "brutale"), ("Cassius Thorne", "2e année", "sournoise"))
STAKES = "une plume de phénix"
GREEDY_SHARE = 0.6  # of scripted posts that cast the spell with the most PV; the others random
KIND_FR = {"cast": "lancer un sort", "dodge": "esquiver", "dodge_riposte": "esquiver et riposter"}
FLOOD_INTERVAL_S = 15.0  # the board's and the client's (phpBB's default)

_LINES = [
    "{me} s'avance sur le long tapis, entre les deux armures qui montent la garde.",
    "Le regard fixé sur {them}, {me} murmure l'incantation à mi-voix.",
    "Une lueur parcourt la baguette de {me} et l'air se met à vibrer.",
    "{me} ajuste sa garde, les genoux fléchis, sans quitter {them} des yeux.",
    "Les torches du mur est vacillent, projetant des ombres sur les rideaux.",
    "{me} respire lentement pour calmer son cœur qui s'emballe.",
    "Dans les gradins, un spectateur retient son souffle.",
    "{me} recule d'un pas, évalue la distance, puis avance de nouveau.",
    "La sueur perle sur le front de {me}, mais sa main ne tremble pas.",
    "{me} se souvient des conseils de son professeur de défense.",
    "Un sourire en coin, {me} fait tourner sa baguette entre ses doigts.",
    "Près de l'entrée, le tableau de classement semble attendre le résultat.",
    "{me} lance un défi muet à {them} d'un simple haussement de sourcil.",
    "Les murmures du public s'éteignent quand {me} lève le bras.",
]


class DemoClock:
    """Epoch seconds shared by the sandbox board and the bot; only :meth:`sleep` moves it.

    ``start``: the first instant (epoch seconds, default 2026-11-30 12:00 UTC).
    """

    def __init__(self, start: float | None = None) -> None:
        self.now = (
            start if start is not None else datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp()
        )

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass (no real waiting)."""
        self.now += max(0.0, seconds)

    def utc(self) -> datetime:
        """The clock as an aware UTC datetime (the bot's ``now``)."""
        return datetime.fromtimestamp(self.now, UTC)


@dataclass
class SeasonResult:
    """What the season demo saw.

    Attributes:
        winner: the duel's winner (None: no winner); loser: the other duellist.
        turns: closed turns of the duel.
        declarations: duel declarations published (the opening included).
        duplicates: bot posts (declaration markers) and owls found more than once (0 expected).
        signup_replies: the bot's replies in the registration thread (the missing year: 1).
        magic_owls, result_owls: owls about the magic type / the end of the duel, per recipient.
        rewards: (character, reward, amount) recorded: leaderboard point, galleons, frog.
        leaderboard_before, leaderboard_after: the bot's one leaderboard post, its text before
            the duel and at the end (edited in place: no second post).
        topic_id: the duel topic; verify: the verify-dice report of its pages (phpBB; None on
            Forumactif, where the forum rolls the dice).
    """

    winner: str | None
    loser: str | None
    turns: int
    declarations: int
    duplicates: int
    signup_replies: int
    magic_owls: dict[str, int]
    result_owls: dict[str, int]
    rewards: list[tuple[str, str, int]] = field(default_factory=list)
    leaderboard_before: str = ""
    leaderboard_after: str = ""
    topic_id: int = 0
    verify: VerifyReport | None = None


def make_season_board(platform: str, clock: DemoClock, seed: int) -> Any:
    """The demo board (:func:`forumbot.demo.classic.make_demo_board`) on ``clock``, with the
    accounts of :data:`PLAYERS`; on Forumactif the forum rolls « Pari » d6 seeded by ``seed``."""
    kwargs: dict[str, Any] = {"clock": clock, "flood_interval_s": FLOOD_INTERVAL_S}
    if platform == "forumactif":
        kwargs.update(dice=(("Pari", 6),), seed=seed)
    board = make_demo_board(platform, **kwargs)
    for name, _, _ in PLAYERS:
        try:
            board.user_id(name)
        except KeyError:
            board.add_user(name, PASSWORD)
    return board


def season_config(base_url: str, platform: str, database: str, thread: int, ranking: int) -> Config:
    """The club's configuration: one 1v1 fatigue registration thread (``thread``, in forum
    :data:`REGISTRATION_FORUM`), duel topics in :data:`DUEL_FORUM`, the leaderboard post in
    topic ``ranking``, review delay 0, the « Pari » die."""
    return Config(
        board_url=base_url,
        platform=platform,
        username=BOT,
        ruleset="fatigue",
        dice_name="Pari",
        board_language="fr",  # the sandbox board is French
        review_delay_s=0,
        database=database,
        flood_interval_s=FLOOD_INTERVAL_S,
        watch=(WatchedForum(DUEL_FORUM),),
        registrations=(
            Registration(
                topic_id=thread,
                forum_id=DUEL_FORUM,
                thread_forum_id=REGISTRATION_FORUM,
                kind="1v1",
                ruleset="fatigue",
            ),
        ),
        leaderboard_topic_id=ranking,
    )


def season_bot(config: Config, clock: DemoClock, seed: int) -> Bot:
    """The bot on ``clock``: the real forum client of ``config.platform`` (its waits move the
    clock), the referee with random numbers seeded ``seed + 1``. Like
    :func:`forumbot.demo.classic.demo_bot`, with the clock injected."""
    client: ForumClient
    if config.platform == "phpbb3":
        from forumbot.forums.phpbb import PhpbbClient

        client = PhpbbClient(
            config.board_url, BOT, BOT_PASSWORD, sleep=clock.sleep, clock=clock,
            flood_interval_s=config.flood_interval_s,
        )  # fmt: skip
    else:
        from forumbot.forums.forumactif import ForumactifClient

        client = ForumactifClient(
            config.board_url, BOT, BOT_PASSWORD, sleep=clock.sleep, clock=clock, now=clock.utc,
            flood_interval_s=config.flood_interval_s, timeout_s=10.0,
        )  # fmt: skip
    storage = open_storage(config.database)
    referee = Referee(
        storage, client, board_url=config.board_url, platform=config.platform,
        ruleset_name=config.ruleset, review_delay_s=0, now=clock.utc,
        rng=random.Random(seed + 1), bot_username=BOT, dice_name=config.dice_name,
    )  # fmt: skip
    return Bot(config=config, storage=storage, client=client, referee=referee, now=clock.utc)


class Reader:
    """What players would read: each call to :meth:`news` returns, as printable blocks, the
    posts and owls that appeared (or were edited) on the board since the previous call."""

    def __init__(self, board: Any, topics: dict[int, str], players: tuple[str, ...]) -> None:
        self.board = board
        self.topics = topics  # topic id -> label
        self.players = players
        self.bot_id = board.user_id(BOT)
        self.names = {board.user_id(n): n for n in (BOT, "Arbitre", *players)}
        self.seen: dict[int, tuple[int, str]] = {}  # post id -> (edit count, text)
        self.pms_seen = 0

    def news(self) -> list[str]:
        """New and edited posts of the watched topics and of the duel topics (forum
        :data:`DUEL_FORUM`), then new owls."""
        out = []
        for topic in self.board.topics(DUEL_FORUM):
            self.topics.setdefault(topic.topic_id, "duel")
        for topic_id, label in self.topics.items():
            for post in self.board.posts(topic_id):
                before = self.seen.get(post.post_id)
                self.seen[post.post_id] = (post.edit_count, post.text)
                if before == (post.edit_count, post.text):
                    continue
                who = self.names.get(post.poster_id, "Maître du Jeu")
                verb = "modifie son message" if before is not None else "poste"
                text = post.text
                if who in self.players and label == "duel":
                    text = "[…]\n" + "\n".join(text.splitlines()[-3:])  # the post's end
                out.append(f"--- {label} : {who} {verb} (n°{post.post_id}) ---\n{text}")
        pms = self.board.pms()
        for pm in pms[self.pms_seen :]:
            to = ", ".join(self.names.get(i, str(i)) for i in pm.to_ids)
            out.append(f"--- hibou de {self.names.get(pm.author_id, '?')} à {to} : "
                       f"« {pm.subject} » ---\n{pm.text}")  # fmt: skip
        self.pms_seen = len(pms)
        return out


@dataclass
class Season:
    """One running season demo: the board, the bot, the clock and the script's randomness."""

    platform: str
    board: Any
    bot: Bot
    clock: DemoClock
    rng: random.Random
    reader: Reader
    echo: Callable[[str], None]
    thread: int
    ranking: int

    def cycle(self) -> list[int]:
        """One poll and one publish pass of the bot (a minute later); prints the news."""
        self.clock.sleep(60)
        self.bot.poll()  # the registration desk runs at its end (club/registrations.py)
        published = list(self.bot.publish())
        for block in self.reader.news():
            self.echo(block)
        return published

    def player_post(self, topic_id: int, who: str, text: str, dice: bool = False) -> int:
        """``who`` posts ``text`` (a minute later); on Forumactif ``dice`` asks the forum to
        roll one « Pari » die (a Game Master post follows)."""
        self.clock.sleep(60)
        if dice and self.platform == "forumactif":
            return int(self.board.post_reply(topic_id, who, text, dice=("Pari", 1)))
        return int(self.board.post_reply(topic_id, who, text))

    def held(self, duel_id: int | None = None) -> None:
        """Raise when the bot holds a draft for the referee (the demo cannot answer it)."""
        held = self.bot.storage.declarations(("held",), duel_id)
        if held:
            raise RuntimeError(f"the bot holds a draft for the referee: {held[0]['last_error']}")


def _fatigue() -> FatigueRuleset:
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    return rs


def sign_up_text(name: str, year: str | None, magic: str, extra: str = "") -> str:
    """A labelled sign-up post (``year`` None: the line is forgotten)."""
    lines = ["Bonjour ! Je m'inscris pour un duel de fatigue.", f"Nom : {name}"]
    if year is not None:
        lines.append(f"Année : {year}")
    lines.append(f"Type de magie : {magic}")
    return "\n".join(lines) + (f"\n{extra}" if extra else "")


def duel_text(rng: random.Random, post: TurnPost, them: str) -> str:
    """A legal fatigue post: 10 role-play lines, the bold spell at the end, then the action
    footer (``Action :``, ``Pari :``); with no legal action, role-play only (RULES.md Fine
    points: the duellist endures)."""
    body = "\n".join(line.format(me=post.duellist, them=them) for line in rng.sample(_LINES, 10))
    if post.kind is None:
        return body + f"\n{post.duellist} serre les dents et endure, sans pouvoir agir ce tour-ci."
    lines = [body]
    if post.spell:
        lines.append(f"[b]{post.spell}[/b]")
    lines.append(f"Action : {KIND_FR[post.kind]}")
    lines.append(f"Pari : [{','.join(map(str, post.bet or ()))}]")
    return "\n".join(lines)


def next_post(rs: FatigueRuleset, state: DuelState, rng: random.Random) -> TurnPost:
    """The next scripted post from the state in force: the defense of the duellist who did
    not take the initiative, else an initiative (turn parity picks the caster, the other one
    when that one has no legal cast)."""
    a, b = state.duellists
    policy: Policy = "greedy" if rng.random() < GREEDY_SHARE else "random"
    if state.pending:
        attacker = state.pending[0].duellist
        me, opp = (b, a) if attacker == a.name else (a, b)
        return fatigue_post(rs, me, opp, 0, "defense", rng, policy)
    me, opp = (a, b) if state.turn % 2 == 0 else (b, a)
    first = fatigue_post(rs, me, opp, 0, "initiative", rng, policy)
    if first.kind is None:
        other = fatigue_post(rs, opp, me, 0, "initiative", rng, policy)
        if other.kind is not None:
            return other
    return first


def _until(season: Season, done: Callable[[], bool], what: str, cycles: int = 6) -> None:
    for _ in range(cycles):
        season.cycle()
        if done():
            return
    raise RuntimeError(f"the bot did not {what} within {cycles} cycles")


def run_season_demo(
    platform: str = "phpbb3",
    seed: int = 7,
    echo: Callable[[str], None] = print,
    max_turns: int = 30,
    database: str | None = None,
    clock: DemoClock | None = None,
) -> SeasonResult:
    """Run the fatigue 1v1 season demo to a winner on the sandbox; returns what happened.

    Args:
        platform: ``phpbb3`` (the bot rolls, verify-dice recomputes) or ``forumactif`` (the
            forum rolls the « Pari » dice).
        seed: seeds the script (posts, bets) and the bot's random numbers (replayable).
        echo: prints what players read and the summary.
        max_turns: safety cap of closed turns.
        database: the bot's SQLite file (default: a temporary folder).
        clock: the shared clock (default: a new :class:`DemoClock`).

    Raises:
        RuntimeError: the bot did not answer a step within a few cycles, held a draft for the
            referee, or the duel had no winner after ``max_turns`` turns.
    """
    clock = clock or DemoClock()
    board = make_season_board(platform, clock, seed)
    base_url = board.start()
    bot: Bot | None = None
    try:
        thread = board.create_topic(
            REGISTRATION_FORUM, "Arbitre", "Inscriptions : duels en un contre un",
            "Postez ici votre fiche : nom, année, type de magie (et votre adversaire si vous "
            "en avez choisi un).",
        )  # fmt: skip
        ranking = board.create_topic(
            CLUB_FORUM, "Arbitre", "Tableau de classement", "Le classement du club de duel."
        )
        db = database or str(Path(tempfile.mkdtemp(prefix="forumbot-demo-season-")) / "demo.db")
        bot = season_bot(season_config(base_url, platform, db, thread, ranking), clock, seed)
        names = tuple(n for n, _, _ in PLAYERS)
        reader = Reader(board, {thread: "inscriptions", ranking: "classement"}, names)
        reader.news()  # the referee's opening posts are not the bot's
        season = Season(platform, board, bot, clock, random.Random(seed), reader, echo, thread,
                        ranking)  # fmt: skip
        echo(f"sandbox {platform} board at {base_url}; registration thread {thread}")
        return _run(season, max_turns)
    finally:
        if bot is not None:
            bot.close()
        board.stop()


def _bot_posts(season: Season, topic_id: int) -> list[Any]:
    return [p for p in season.board.posts(topic_id) if p.poster_id == season.reader.bot_id]


def _run(season: Season, max_turns: int) -> SeasonResult:
    storage = season.bot.storage
    (a, ya, ma), (c, yc, mc) = PLAYERS
    _until(season, lambda: bool(_bot_posts(season, season.ranking)), "post the leaderboard")
    before = _bot_posts(season, season.ranking)[0].text

    # Sign-ups: Aurora's open request with stakes; Cassius forgets his year, is asked, corrects.
    season.player_post(season.thread, a, sign_up_text(a, ya, ma, f"Enjeux : {STAKES}"))
    season.player_post(season.thread, c, sign_up_text(c, None, mc))
    _until(season, lambda: bool(_bot_posts(season, season.thread)), "answer the sign-up")
    season.player_post(
        season.thread, c,
        sign_up_text(c, yc, mc, "Pardon, j'avais oublié mon année ! Je prends la demande ouverte."),
    )  # fmt: skip
    _until(season, lambda: any(d["status"] == "running" for d in storage.duels()), "open the duel")
    duel = storage.duels()[0]
    duel_id, topic_id = int(duel["id"]), int(duel["topic_id"])

    rs = _fatigue()
    declared = len(storage.declarations(("published",), duel_id))
    while True:
        duel = storage.duel(duel_id)
        if duel["status"] == "finished":
            break
        season.held(duel_id)
        state = DuelState.from_dict(json.loads(duel["state_json"]))
        if state.turn >= max_turns:
            raise RuntimeError(f"no winner after {max_turns} turns")
        post = next_post(rs, state, season.rng)
        them = next(d.name for d in state.duellists if d.name != post.duellist)
        season.player_post(topic_id, post.duellist, duel_text(season.rng, post, them), dice=True)

        def answered(count: int = declared) -> bool:
            season.held(duel_id)
            return len(storage.declarations(("published",), duel_id)) > count

        _until(season, answered, "declare the post")
        declared = len(storage.declarations(("published",), duel_id))

    # The end: rewards, result owls, the leaderboard post edited.
    _until(
        season,
        lambda: _bot_posts(season, season.ranking)[0].text != before,
        "edit the leaderboard post",
    )
    season.cycle()  # the last owls
    return _summary(season, duel_id, topic_id, before)


def _summary(season: Season, duel_id: int, topic_id: int, before: str) -> SeasonResult:
    board, storage = season.board, season.bot.storage
    duel = storage.duel(duel_id)
    state = DuelState.from_dict(json.loads(duel["state_json"]))
    winner = state.winner
    loser = next((d.name for d in state.duellists if winner and d.name != winner), None)
    texts = [p.text for p in board.posts(topic_id)]
    markers = [
        marker_text(d["idempotency_key"]) for d in storage.declarations(("published",), duel_id)
    ]
    duplicates = sum(max(0, sum(m in t for t in texts) - 1) for m in markers)
    owls = [(tuple(m.to_ids), m.subject, m.text) for m in board.pms()]
    duplicates += len(owls) - len(set(owls))
    names = season.reader.names

    def owls_about(word: str) -> dict[str, int]:
        counts = {n: 0 for n, _, _ in PLAYERS}
        for to_ids, subject, _ in owls:
            if word in subject.lower():
                for i in to_ids:
                    counts[names.get(i, str(i))] = counts.get(names.get(i, str(i)), 0) + 1
        return counts

    rewards = [
        (str(r["character"]), str(r["reward"]), int(r["amount"]))
        for r in storage.readouts.rewards(duel_id)
    ]
    (post,) = _bot_posts(season, season.ranking)
    report = None
    if season.platform == "phpbb3":  # on Forumactif the forum rolled: nothing to recompute
        report = verify_pages(fetch_topic_pages(topic_url(board.base_url, "phpbb3", topic_id)))
    result = SeasonResult(
        winner=winner,
        loser=loser,
        turns=state.turn,
        declarations=len(markers),
        duplicates=duplicates,
        signup_replies=len(_bot_posts(season, season.thread)),
        magic_owls=owls_about("type de magie"),
        result_owls=owls_about("fin du duel"),
        rewards=rewards,
        leaderboard_before=before,
        leaderboard_after=post.text,
        topic_id=topic_id,
        verify=report,
    )
    given = ", ".join(
        f"{who} : {n} {REWARD_FR.get(r, r)}{'s' if n > 1 and r in REWARD_FR else ''}"
        for who, r, n in rewards
    )
    season.echo(f"récompenses : {given}")
    if report is not None:
        season.echo(f"verify-dice : {format_report(report)[-1]}")
    else:
        season.echo("dés : les « Pari » ont été lancés par le forum (rien à recalculer)")
    outcome = "match nul" if state.draw else f"vainqueur : {winner}"
    season.echo(
        f"=== {outcome} ({result.turns} tours, {result.declarations} déclarations, "
        f"{duplicates_words(duplicates)}, "
        f"{sum(result.magic_owls.values())} hiboux de type de magie, "
        f"{sum(result.result_owls.values())} hiboux de fin, classement "
        f"{'modifié' if result.leaderboard_after != before else 'inchangé'}) ==="
    )
    return result


REWARD_FR = {"leaderboard_point": "point", "galleons": "gallion", "chocolate_frog":
             "chocogrenouille"}  # fmt: skip
"""Reward kinds in French, singular (the summary adds the plural « s »)."""
