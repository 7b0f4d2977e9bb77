"""``forumbot demo``: the sandbox board, two scripted duellists, the real bot refereeing.

The duellists post through the sandbox's server-side helpers (as a person at a browser
would, without waiting out the flood limit); the bot talks to the board over HTTP with the
real forum client, exactly as on a real board, with review delay 0.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forumbot.app import Bot, bootstrap
from forumbot.config import Config, WatchedForum
from forumbot.i18n import N_, ngettext, translate
from forumbot.publish.render import marker_text
from forumbot.rulesets import load_ruleset
from forumbot.storage import open_storage

DUEL_FORUM = 3
BOT, BOT_PASSWORD = "Hibou", "hibou-demo-password"
DUELLISTS = (("Aurora Vexley", "1"), ("Cassius Thorne", "2"))

_LINES = [
    "{me} fait un pas de côté sur le tapis et lève sa baguette.",
    "Le regard fixé sur {them}, {me} murmure l'incantation.",
    "Une lueur parcourt la baguette de {me}.",
    "{me} ajuste sa garde, prêt à tout.",
    "Les torches du mur Est vacillent quand {me} lance son sort.",
]


def duplicates_words(n: int) -> str:
    """The demos' count of duplicated declarations, in French from the catalogue: « aucun
    doublon », « 1 doublon », « 2 doublons » (newcomer 7 #24: « 0 doublon(s) »)."""
    if n == 0:
        return translate("fr", N_("no duplicate"))
    return translate("fr", ngettext("%s duplicate", "%s duplicates", n), n)


@dataclass
class DemoResult:
    """What the demo saw: published declarations (post ids), the winner, duplicates found."""

    declarations: list[int]
    winner: str | None
    draw: bool
    duplicates: int
    turns: int
    topic_id: int = 0


def _duel_post(rng: random.Random, me: str, them: str, spell: str) -> str:
    lines = rng.sample(_LINES, 3)
    body = "\n".join(line.format(me=me, them=them) for line in lines)
    return f"{body}\n[b]{spell}[/b]"


def _known_spells(year: str) -> list[str]:
    ruleset = load_ruleset("classic")
    top = ruleset.max_level_for(year)
    return [s.name for s in ruleset.spells if top is None or s.level <= top]


def make_demo_board(platform: str = "phpbb3", **kwargs: Any) -> Any:
    """A sandbox board with the demo's accounts and the duels forum (not started)."""
    if platform == "phpbb3":
        from forumbot.sandbox import SandboxBoard

        board = SandboxBoard(**kwargs)
    else:
        from forumbot.sandbox.forumactif import ForumactifSandbox  # type: ignore[import-not-found]

        board = ForumactifSandbox(**kwargs)
    board.add_user(BOT, BOT_PASSWORD, ignore_flood=True)
    board.add_user("Arbitre", "arbitre-demo")
    for name, _ in DUELLISTS:
        board.add_user(name, "duellist-demo")
    return board


def demo_bot(
    base_url: str,
    platform: str,
    ruleset: str,
    database: str,
    seed: int,
    dice_name: str = "Duel",
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> Bot:
    """The bot of a demo: account :data:`BOT` on the sandbox at ``base_url``, duel topics in
    forum :data:`DUEL_FORUM`, review delay 0, flood interval 1 s, database ``database``
    (SQLite file), random numbers seeded with ``seed + 1``; ``sleep`` / ``clock``: the forum
    client's waits and time (tests: the board's fake clock), default the real ones."""
    config = Config(
        board_url=base_url,
        platform=platform,
        username=BOT,
        ruleset=ruleset,
        dice_name=dice_name,
        board_language="fr",  # the sandbox board is French
        review_delay_s=0,
        database=database,
        flood_interval_s=1,
        watch=(WatchedForum(DUEL_FORUM),),
    )
    return bootstrap(
        config,
        password=BOT_PASSWORD,
        rng=random.Random(seed + 1),
        storage=open_storage(config.database),
        sleep=sleep,
        clock=clock,
    )


def run_demo(
    platform: str = "phpbb3",
    seed: int = 7,
    echo: Callable[[str], None] = print,
    max_turns: int = 40,
    database: str | None = None,
    board: Any = None,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> DemoResult:
    """Run the demo to a winner; returns what happened. Takes well under 2 minutes.

    ``board``: an already started board made by :func:`make_demo_board` (left running, for
    tests that inspect it afterwards); by default the demo starts and stops its own.
    ``sleep`` / ``clock``: the bot's forum client's waits and time (see :func:`demo_bot`).
    """
    rng = random.Random(seed)
    own_board = board is None
    if own_board:
        board = make_demo_board(platform)
        base_url = board.start()
    else:
        base_url = board.base_url
    workdir = Path(tempfile.mkdtemp(prefix="forumbot-demo-"))
    try:
        db = database or str(workdir / "demo.db")
        bot = demo_bot(base_url, platform, "classic", db, seed, sleep=sleep, clock=clock)
        (a, ya), (b, yb) = DUELLISTS
        topic_id = board.create_topic(
            DUEL_FORUM,
            "Arbitre",
            f"Duel : {a} contre {b}",
            f"Bienvenue au club de duel !\nLes adversaires : {a} ({ya}re année) contre "
            f"{b} ({yb}e année).\nQue le meilleur gagne.",
        )
        echo(f"sandbox board at {base_url}; duel topic {topic_id}")
        spells = {a: _known_spells(ya), b: _known_spells(yb)}
        last_spell: dict[str, str | None] = {a: None, b: None}
        published: list[int] = []
        turns = 0
        started = time.monotonic()
        while turns <= max_turns:
            bot.poll()
            new = bot.publish()
            for post_id in new:
                published.append(post_id)
                text = bot.storage.readouts.published_text(post_id)
                echo(f"--- declaration (post {post_id}) ---\n{text}")
            duel = bot.storage.duel_by_topic(bot.referee.board_id, topic_id)
            if duel is None:
                raise RuntimeError("the bot did not adopt the duel topic")
            if duel["status"] == "finished":
                break
            if new and duel["status"] == "running":
                turns += 1
                for me, them in ((a, b), (b, a)) if turns % 2 else ((b, a), (a, b)):
                    choices = [s for s in spells[me] if s != last_spell[me]] or spells[me]
                    spell = rng.choice(choices)
                    last_spell[me] = spell
                    text = _duel_post(rng, me, them, spell)
                    if platform == "forumactif":  # the forum rolls the "Duel" dice itself
                        board.post_reply(topic_id, me, text, dice=("Duel", 2))
                    else:
                        board.post_reply(topic_id, me, text)
            elif not new:
                time.sleep(0.05)
            if time.monotonic() - started > 110:
                raise RuntimeError("demo took too long")
        duel = bot.storage.duel_by_topic(bot.referee.board_id, topic_id)
        assert duel is not None
        import json

        state = json.loads(duel["state_json"])
        winner, draw = state.get("winner"), bool(state.get("draw"))
        texts = [p["text"] if isinstance(p, dict) else p.text for p in board.posts(topic_id)]
        markers = [
            marker_text(d["idempotency_key"]) for d in bot.storage.declarations(("published",))
        ]
        duplicates = sum(max(0, sum(m in t for t in texts) - 1) for m in markers)
        echo(
            f"=== {'match nul' if draw else f'vainqueur : {winner}'} "
            f"({turns} tours, {len(published)} déclarations, {duplicates_words(duplicates)}) ==="
        )
        bot.close()
        return DemoResult(published, winner, draw, duplicates, turns, topic_id)
    finally:
        if own_board:
            board.stop()


def serve_sandbox(port: int, platform: str) -> None:
    """Serve the demo board on 127.0.0.1:port until interrupted."""
    board = make_demo_board(platform)
    url = board.start(port=port)
    print(f"sandbox {platform} board at {url} (bot {BOT} / {BOT_PASSWORD}); Ctrl-C stops it")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        board.stop()
