"""The bot's configuration: one TOML file (``forumbot init`` writes a commented example).

Settings are declared once, with their unit in the name (``poll_interval_s``,
``review_delay_s``). The bot account's password is never stored in the file: it comes from
the environment variable named by ``bot.password_env`` or from ``bot.password_file`` (a file
readable only by the service user).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

ReviewDelay = int | Literal["manual"]

EXAMPLE_CONFIG = """\
# forumbot configuration. Every setting has a comment; units are in the names.

[board]
# Base URL of the forum (no trailing slash), e.g. "https://monforum.example/forum".
url = "http://127.0.0.1:8080"
# "phpbb3" or "forumactif".
platform = "phpbb3"
# The board's timezone (Forumactif prints local dates without an offset).
timezone = "Europe/Paris"
# Forumactif rolls dice itself: the account(s) posting the dice results ("Game Master";
# wording varies by board) and the name of the dice the duels use (matched loosely:
# "Dé du Duel" matches "Duel"). Ignored on phpBB, where the bot rolls verifiable dice.
game_master = ["Maître du Jeu"]
dice_name = "Duel"

[bot]
# The forum account the bot posts with (an ordinary member is enough; on phpBB grant it
# "Can ignore flood limit" to avoid waiting between declarations).
username = "Hibou"
# The password is read from this environment variable ...
password_env = "FORUMBOT_PASSWORD"
# ... or from this file (readable by the service user only). Leave empty to use the variable.
password_file = ""

[club]
# Ruleset: "classic" (seed 000).
ruleset = "classic"
# Seconds a draft declaration waits for the referee before it is published.
# 0 = publish at once; "manual" = publish only when a referee approves it.
review_delay_s = 600
# Name the declarations are signed with (the adult referee the bot drafts for).
referee_name = "L'arbitre"
# Language of player-facing text ("fr").
language = "fr"

[poll]
# Seconds between two polls of each watched forum.
poll_interval_s = 120
# Seconds between two passes of the publisher (drafts whose delay is over).
publish_interval_s = 15
# Seconds to wait after a flood-limit refusal (phpBB default flood_interval is 15).
flood_interval_s = 15

[storage]
# SQLite database file (WAL mode). Relative paths are relative to this file.
database = "forumbot.db"
# Daily online backups of the database by `forumbot run` (0 = off; the systemd timer in
# deploy/ is the other way). Hour of the day (UTC) and how many daily copies to keep.
backup_keep = 7
backup_hour_utc = 4

[ops]
# Port of the health endpoint (GET http://127.0.0.1:<port>/health); 0 = off.
health_port = 0
# "text" or "json" (one JSON object per log line, for log collectors).
log_format = "text"

# One [[watch]] table per forum holding duel topics. New topics whose first post names
# the duellists as "Name (5e année) contre Name (4e année)" are adopted automatically;
# others with `forumbot duels adopt`.
[[watch]]
forum_id = 3

# One [[registration]] table per registration thread ("sujet d'inscription"). The bot reads
# every sign-up posted there (name, year, magic types, partner), answers the invalid ones,
# pairs open requests, runs at most 3 one-against-one duels at once (then a queue), opens
# each duel's topic in forum_id (watched automatically) and owls each duellist their
# magic-type modifiers. Uncomment and set the ids to use it.
# [[registration]]
# # The registration thread (topic id).
# topic_id = 12
# # The forum holding that thread: its listing tells when the thread has new posts
# # (one request per poll for all the threads of that forum). 0 = read the thread itself.
# thread_forum_id = 4
# # The forum where the bot opens the duel topics.
# forum_id = 3
# # "1v1" (one against one) or "2v2" (two against two: one duel at a time, its registration
# # closed while it runs).
# kind = "1v1"
# # 2v2 only: the environment of the duels ("serre", "bibliotheque"); "" = each in turn.
# environment = ""
# # The ruleset of the duels opened from this thread.
# ruleset = "fatigue"
# # Duels of this kind running at once before new pairs wait in the queue (seed 001: 3).
# max_concurrent = 3

[leaderboard]
# Topic where the bot keeps its 1v1 leaderboard post up to date (it posts once, then edits
# its own post). 0 = no leaderboard post (`forumbot leaderboard` still prints it).
topic_id = 0
"""


class ConfigError(Exception):
    """The configuration file is missing, unreadable or has a bad setting (message names it)."""


@dataclass(frozen=True)
class WatchedForum:
    """A forum whose topics are duel topics."""

    forum_id: int


@dataclass(frozen=True)
class Registration:
    """A registration thread (see :data:`EXAMPLE_CONFIG`, ``[[registration]]``).

    Attributes:
        topic_id: the thread; thread_forum_id: the forum holding it (0 = read the thread).
        forum_id: where the duel topics are opened; kind: ``"1v1"`` or ``"2v2"``.
        ruleset: the duels' ruleset; max_concurrent: duels of this kind at once.
        environment: 2v2 only: the environment of the duels opened (a file of
            ``rules/data/environments/``, without ``.toml``); ``""`` = rotate through them.
    """

    topic_id: int
    forum_id: int
    thread_forum_id: int = 0
    kind: str = "1v1"
    ruleset: str = "fatigue"
    max_concurrent: int = 3
    environment: str = ""


@dataclass(frozen=True)
class Config:
    """Parsed configuration. See :data:`EXAMPLE_CONFIG` for every setting's meaning."""

    board_url: str
    platform: str
    username: str
    password_env: str = "FORUMBOT_PASSWORD"
    password_file: str = ""
    timezone: str = "Europe/Paris"
    ruleset: str = "classic"
    review_delay_s: ReviewDelay = 600
    referee_name: str = "L'arbitre"
    language: str = "fr"
    poll_interval_s: float = 120.0
    publish_interval_s: float = 15.0
    flood_interval_s: float = 15.0
    database: str = "forumbot.db"
    watch: tuple[WatchedForum, ...] = field(default_factory=tuple)
    game_master: tuple[str, ...] = ("Maître du Jeu",)
    dice_name: str = "Duel"
    backup_keep: int = 7
    backup_hour_utc: int = 4
    health_port: int = 0
    log_format: str = "text"
    registrations: tuple[Registration, ...] = field(default_factory=tuple)
    leaderboard_topic_id: int = 0
    # The raw [notify] table and the configuration file's folder (forumbot.notify.settings
    # parses and checks it: issue 18).
    notify: dict[str, object] = field(default_factory=dict, hash=False, compare=False)
    config_dir: str = ""

    def password(self, environ: dict[str, str] | None = None) -> str:
        """The bot account's password from the environment or the password file.

        Raises:
            ConfigError: when neither gives one.
        """
        env = os.environ if environ is None else environ
        if self.password_file:
            path = Path(self.password_file)
            try:
                return path.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"cannot read bot.password_file {path}: {exc}") from exc
        value = env.get(self.password_env, "")
        if not value:
            raise ConfigError(
                f"no password: set the environment variable {self.password_env} "
                "(bot.password_env) or bot.password_file"
            )
        return value


def _review_delay(value: object) -> ReviewDelay:
    if value == "manual":
        return "manual"
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f'club.review_delay_s must be seconds >= 0 or "manual", got {value!r}')
    return int(value)


def _registrations(items: object) -> tuple[Registration, ...]:
    """The ``[[registration]]`` tables. Raises :class:`ConfigError` naming the bad one."""
    if not isinstance(items, list):
        raise ConfigError("registration must be [[registration]] tables")
    out = []
    for i, item in enumerate(items):
        where = f"registration[{i}]"
        if not isinstance(item, dict):
            raise ConfigError(f"{where} must be a table")
        for key in ("topic_id", "forum_id"):
            value = item.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ConfigError(f"{where}.{key} must be a positive integer")
        thread_forum = item.get("thread_forum_id", 0)
        if isinstance(thread_forum, bool) or not isinstance(thread_forum, int) or thread_forum < 0:
            raise ConfigError(f"{where}.thread_forum_id must be a forum id (0 = none)")
        kind = item.get("kind", "1v1")
        if kind not in ("1v1", "2v2"):
            raise ConfigError(f'{where}.kind must be "1v1" or "2v2", got {kind!r}')
        ruleset = item.get("ruleset", "fatigue")
        if not isinstance(ruleset, str) or not ruleset:
            raise ConfigError(f"{where}.ruleset must be a ruleset name")
        limit = item.get("max_concurrent", 3 if kind == "1v1" else 1)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigError(f"{where}.max_concurrent must be an integer >= 1")
        for key in item:
            if key not in (
                "topic_id",
                "forum_id",
                "thread_forum_id",
                "kind",
                "ruleset",
                "max_concurrent",
                "environment",
            ):
                raise ConfigError(f"{where}.{key}: unknown setting")
        environment = item.get("environment", "")
        if not isinstance(environment, str):
            raise ConfigError(f"{where}.environment must be an environment name")
        if any(r.topic_id == item["topic_id"] for r in out):
            raise ConfigError(f"{where}.topic_id {item['topic_id']} is listed twice")
        out.append(
            Registration(
                topic_id=item["topic_id"],
                forum_id=item["forum_id"],
                thread_forum_id=thread_forum,
                kind=kind,
                ruleset=ruleset,
                max_concurrent=limit,
                environment=environment,
            )
        )
    return tuple(out)


def parse_config(text: str, base_dir: Path | None = None) -> Config:
    """Parse the TOML text of a configuration file.

    Relative ``storage.database`` and ``bot.password_file`` paths are made relative to
    ``base_dir``. Raises :class:`ConfigError` naming the bad setting.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}") from exc
    board = data.get("board", {})
    bot = data.get("bot", {})
    club = data.get("club", {})
    poll = data.get("poll", {})
    storage = data.get("storage", {})
    ops = data.get("ops", {})
    if ops.get("log_format", "text") not in ("text", "json"):
        raise ConfigError('ops.log_format must be "text" or "json"')
    if not board.get("url"):
        raise ConfigError("board.url is required")
    platform = board.get("platform", "phpbb3")
    if platform not in ("phpbb3", "forumactif"):
        raise ConfigError(f'board.platform must be "phpbb3" or "forumactif", got {platform!r}')
    if not bot.get("username"):
        raise ConfigError("bot.username is required")
    watch = []
    for item in data.get("watch", []):
        if not isinstance(item.get("forum_id"), int):
            raise ConfigError("each [[watch]] needs an integer forum_id")
        watch.append(WatchedForum(forum_id=item["forum_id"]))
    registrations = _registrations(data.get("registration", []))
    for reg in registrations:
        if all(w.forum_id != reg.forum_id for w in watch):
            watch.append(WatchedForum(forum_id=reg.forum_id))
    leaderboard = data.get("leaderboard", {})
    leaderboard_topic = leaderboard.get("topic_id", 0)
    if isinstance(leaderboard_topic, bool) or not isinstance(leaderboard_topic, int):
        raise ConfigError("leaderboard.topic_id must be a topic id (0 = none)")
    base = base_dir or Path.cwd()
    database = str(storage.get("database", "forumbot.db"))
    if database != ":memory:" and not Path(database).is_absolute():
        database = str(base / database)
    password_file = str(bot.get("password_file", ""))
    if password_file and not Path(password_file).is_absolute():
        password_file = str(base / password_file)
    try:
        return Config(
            board_url=str(board["url"]).rstrip("/"),
            platform=platform,
            timezone=str(board.get("timezone", "Europe/Paris")),
            username=str(bot["username"]),
            password_env=str(bot.get("password_env", "FORUMBOT_PASSWORD")),
            password_file=password_file,
            ruleset=str(club.get("ruleset", "classic")),
            review_delay_s=_review_delay(club.get("review_delay_s", 600)),
            referee_name=str(club.get("referee_name", "L'arbitre")),
            language=str(club.get("language", "fr")),
            poll_interval_s=float(poll.get("poll_interval_s", 120)),
            publish_interval_s=float(poll.get("publish_interval_s", 15)),
            flood_interval_s=float(poll.get("flood_interval_s", 15)),
            database=database,
            watch=tuple(watch),
            game_master=tuple(str(n) for n in board.get("game_master", ["Maître du Jeu"])),
            dice_name=str(board.get("dice_name", "Duel")),
            backup_keep=int(storage.get("backup_keep", 7)),
            backup_hour_utc=int(storage.get("backup_hour_utc", 4)),
            health_port=int(ops.get("health_port", 0)),
            log_format=str(ops.get("log_format", "text")),
            registrations=registrations,
            leaderboard_topic_id=leaderboard_topic,
            notify=dict(data.get("notify", {})),
            config_dir=str(base),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad setting: {exc}") from exc


def load_config(path: str | Path) -> Config:
    """Read and parse a configuration file. Raises :class:`ConfigError`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {p}: {exc}") from exc
    return parse_config(text, base_dir=p.resolve().parent)
