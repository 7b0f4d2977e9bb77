"""The schema: one pydantic model per TOML section, each setting declared once (type, default,
bounds, unit, help)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from forumbot.config.errors import ReviewDelay
from parsers.forumactif.dice import DEFAULT_DICE_ACTIONS

# ---------------------------------------------------------------------------------------
# The schema: one model per TOML section, each setting declared once
# ---------------------------------------------------------------------------------------


def setting(
    default: Any = ...,
    help: str = "",
    *,
    unit: str | None = None,
    example: Any = None,
    **bounds: Any,
) -> Any:
    """Declare one setting: ``default`` (``...`` = required), ``help`` (the comment written
    in the example file), ``unit`` (``"s"``, ``"h"``...), ``example`` (the value the example
    file shows when it differs from the default or there is none) and pydantic bounds
    (``gt``, ``ge``, ``le``)."""
    return Field(
        default, description=help, json_schema_extra={"unit": unit, "example": example}, **bounds
    )


class _Section(BaseModel):
    """Base of every section: unknown keys refused, TOML types taken as they are."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


MAX_REVIEW_DELAY_S = 7 * 86400
"""Upper bound of ``club.review_delay_s`` (a week; "manual" is the way to wait longer)."""
MAX_INTERVAL_S = 86400
"""Upper bound of every ``[poll]`` interval (a day): beyond, the bot would look dead (issue
24 F6: every duration setting is bounded, so no value reaches a date overflow)."""


def _review_delay_value(value: object) -> ReviewDelay:
    if value == "manual":
        return "manual"
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError('must be seconds >= 0 or "manual"')
    if value > MAX_REVIEW_DELAY_S:
        raise ValueError(
            f'must be at most {MAX_REVIEW_DELAY_S} seconds (7 days); use "manual" to wait '
            "for a referee's approval"
        )
    return int(value)


class BoardSettings(_Section):
    """``[board]``: the forum the bot referees on."""

    url: str = setting(
        help='Base URL of the forum (no trailing slash), e.g. "https://monforum.example/forum".',
        example="http://127.0.0.1:8080",
    )
    platform: Literal["phpbb3", "forumactif"] = setting("phpbb3", '"phpbb3" or "forumactif".')
    timezone: str = setting(
        "Europe/Paris", "The board's timezone (Forumactif prints local dates without an offset)."
    )
    game_master: list[str] = setting(
        ["Maître du Jeu"],
        "Forumactif rolls dice itself: the account(s) posting the dice results "
        '("Game Master"; wording varies by board). Ignored on phpBB, where the bot rolls '
        "verifiable dice.",
    )
    dice_actions: list[str] = setting(
        list(DEFAULT_DICE_ACTIONS),
        "Forumactif: the label(s) of the dice action the Game Master's posts print above the "
        "rolls (board wording varies; case and accents are ignored). Ignored on phpBB.",
    )
    dice_name: str = setting(
        "Duel",
        'Forumactif: the name of the dice the duels use (matched loosely: "Dé du Duel" '
        'matches "Duel"). Ignored on phpBB.',
    )
    language: str = setting(
        "",
        'The board\'s language, that of the staff\'s command line and review page: "fr" '
        '(French) or "en" (English); empty: the language the board\'s pages say (<html lang>, '
        "recorded by doctor, check and the first poll; English until then), and on the review "
        "page the players' language (club.language).",
    )


class BotSettings(_Section):
    """``[bot]``: the account the bot posts with."""

    username: str = setting(
        help="The forum account the bot posts with (an ordinary member is enough; on phpBB "
        'grant it "Can ignore flood limit" to avoid waiting between declarations).',
        example="Hibou",
    )
    password_env: str = setting(
        "FORUMBOT_PASSWORD", "The password is read from this environment variable ..."
    )
    password_file: str = setting(
        "",
        "... or from this file (readable by the service user only; relative to this file). "
        "Leave empty to use the variable.",
    )


class ClubSettings(_Section):
    """``[club]``: how the club referees."""

    ruleset: str = setting(
        "classic", 'Ruleset: "classic" (seed 000), "fatigue", or the path of a .toml file.'
    )
    review_delay_s: ReviewDelay = setting(
        600,
        "Seconds a draft declaration waits for the referee before it is published. "
        '0 = publish at once; "manual" = publish only when a referee approves it.',
        unit="s",
    )
    referee_name: str = setting(
        "L'arbitre", "Name the declarations are signed with (the adult referee the bot drafts for)."
    )
    language: str = setting("fr", 'Language of player-facing text ("fr").')
    verify_docs_url: str = setting(
        "",
        "The address of the page that tells players how to check the dice (the project's "
        "docs/verification.md where the club reads it); the declarations link « l'outil de "
        "vérification » to it. Empty: the review page's own public copy "
        "(<notify.review_url>/verification) when notify.review_url is set, else no link "
        "(the posts then say what the tool does and to ask the referee).",
    )
    stalemate_turns: int = setting(
        8,
        "Turns in a row with no PV lost after which the bot opens a referee task proposing to "
        "close the duel without a winner (fatigue 1v1 and 2v2; the bot never closes it itself). "
        "0 = off.",
        unit="turns",
        ge=0,
    )

    @field_validator("review_delay_s", mode="plain")
    @classmethod
    def _delay(cls, value: object) -> ReviewDelay:
        return _review_delay_value(value)


class PollSettings(_Section):
    """``[poll]``: how often the bot reads and publishes."""

    poll_interval_s: float = setting(
        120.0,
        "Seconds between two polls of each watched forum.",
        unit="s",
        gt=0,
        le=MAX_INTERVAL_S,
    )
    publish_interval_s: float = setting(
        15.0,
        "Seconds between two passes of the publisher (drafts whose delay is over).",
        unit="s",
        gt=0,
        le=MAX_INTERVAL_S,
    )
    flood_interval_s: float = setting(
        15.0,
        "Seconds to wait after a flood-limit refusal (phpBB default flood_interval is 15).",
        unit="s",
        ge=0,
        le=MAX_INTERVAL_S,
    )
    club_posts_per_pass: int = setting(
        5,
        "Most club posts (sign-up replies, the leaderboard post) published in one poll pass; "
        "the others wait for the next passes. Declarations always go first: no club post is "
        "published while a declaration is due (issue 23: a flood of sign-ups once took 25 "
        "minutes of posting on a board without « ignore flood »).",
        unit="posts",
        ge=1,
    )
    edit_watch_interval_s: float = setting(
        600.0,
        "Seconds between two re-reads of a duel topic whose listing shows no change, to see "
        "late edits (running classic, fatigue and 2v2 duels, and turn drafts not yet "
        "published): an "
        "edit changes no post id. Several polls long; 0 = every poll.",
        unit="s",
        ge=0,
        le=MAX_INTERVAL_S,
    )
    max_clock_skew_s: float = setting(
        120.0,
        "Seconds the local clock may differ from the board's Date header, at start-up and on "
        "every answer while running, or jump against the monotonic clock between two answers; "
        "beyond it, no draft publishes by its review delay (approved ones still do) until the "
        "clocks agree again (a warning and a referee task clock_skew).",
        unit="s",
        ge=5,
        le=3600,
    )
    follow_after_polls: int = setting(
        3,
        "Polls in a row a running duel's topic may be missing from its watched forum's "
        "listing (moved by a moderator, or deleted) before the bot reads it by id: it follows "
        "the topic to its new forum and says so once, or holds the duel for a referee when "
        "the topic is gone (its deadlines stop counting until `forumbot duels resume`).",
        unit="polls",
        ge=1,
    )


class StorageSettings(_Section):
    """``[storage]``: the database and its daily backups."""

    database: str = setting(
        "forumbot.db", "SQLite database file (WAL mode). Relative paths are relative to this file."
    )
    url: str = setting(
        "",
        "Where the database is, as a URL; when set it replaces `database`: `sqlite:///path` "
        "(or a plain path) is SQLite as `database`; `postgresql://user@host/db` is PostgreSQL "
        "(psycopg 3, `pip install 'forumbot[postgres]'`), `?schema=club_a` for one schema per "
        "club. Empty: `database`.",
    )
    backup_keep: int = setting(
        7,
        "Daily online backups of the database by `forumbot run`: how many daily copies to "
        "keep (0 = off; the systemd timer in deploy/ is the other way).",
        ge=0,
    )
    backup_hour_utc: int = setting(
        4, "Hour of the day (UTC, 0-23) of the daily backup.", unit="h", ge=0, le=23
    )
    backup_dir: str = setting(
        "",
        "Folder of the daily backups (and of `forumbot backup` without --dest). Relative "
        "paths are relative to this file. Empty: `backups/` beside the SQLite database; on "
        "PostgreSQL, `backups/` in $STATE_DIRECTORY or the working directory (pg_dump files).",
    )


class OpsSettings(_Section):
    """``[ops]``: health endpoint and log format."""

    health_port: int = setting(
        0,
        "Port of the health endpoint (GET http://127.0.0.1:<port>/health); 0 = off.",
        ge=0,
        le=65535,
    )
    log_format: Literal["text", "json"] = setting(
        "text", '"text" or "json" (one JSON object per log line, for log collectors).'
    )


UNIX_PEER = "unix"
"""The ``web.trusted_proxies`` entry naming the peer of the Unix socket (``web.socket``)."""


class WebSettings(_Section):
    """``[web]``: the review page (``forumbot web``)."""

    https_only: bool = setting(
        False,
        "Mark the review page's session cookie Secure and send Strict-Transport-Security: "
        "set true whenever the page is served over HTTPS behind a reverse proxy "
        "(deploy/Caddyfile); the browser then talks to it over HTTPS only.",
    )
    socket: str = setting(
        "",
        "Serve the review page on this Unix socket instead of host:port (`forumbot web "
        '--uds` overrides it), e.g. "/run/forumbot-web/web.sock" behind Caddy: only '
        'processes allowed into its folder can connect. "" = TCP (--host, --port).',
    )
    trusted_proxies: list[str] = setting(
        [],
        "Addresses (IPs or CIDR networks) of the reverse proxies whose X-Forwarded-For / "
        'X-Forwarded-Proto headers are believed; "unix" = the peer of web.socket (e.g. '
        '["unix"] behind Caddy on the same host, deploy/README.md: never "127.0.0.1", which '
        "trusts every local process). Empty = believe no one: the login limit then counts "
        "the TCP peer's address.",
    )

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, value: object) -> object:
        if isinstance(value, str):  # "127.0.0.1, 10.0.0.0/8" is accepted too
            value = [p.strip() for p in value.split(",") if p.strip()]
        if isinstance(value, list):
            for p in value:
                if not isinstance(p, str) or p == UNIX_PEER:
                    continue  # the list[str] check reports a non-string
                try:
                    ipaddress.ip_network(p, strict=False)
                except ValueError as exc:
                    raise ValueError(f"{p!r} is not an IP address or network") from exc
        return value


class LeaderboardSettings(_Section):
    """``[leaderboard]``: the bot's leaderboard post."""

    topic_id: int = setting(
        0,
        "Topic where the bot keeps its 1v1 leaderboard post up to date (it posts once, then "
        "edits its own post). 0 = no leaderboard post (`forumbot leaderboard` still prints it).",
        ge=0,
    )


class WatchSettings(_Section):
    """One ``[[watch]]`` table."""

    forum_id: int = setting(help="The forum (id) holding duel topics.", example=3, gt=0)


MAX_CONCURRENT_BY_KIND = {"1v1": 3, "2v2": 1}
"""Duels of a registration thread's kind running at once when ``max_concurrent`` is not set
(seed 001: three 1v1 duels; a 2v2 registration closes while its duel runs)."""


class RegistrationSettings(_Section):
    """One ``[[registration]]`` table."""

    topic_id: int = setting(help="The registration thread (topic id).", example=12, gt=0)
    thread_forum_id: int = setting(
        0,
        "The forum holding that thread: its listing tells when the thread has new posts (one "
        "request per poll for all the threads of that forum). 0 = read the thread itself.",
        example=4,
        ge=0,
    )
    forum_id: int = setting(help="The forum where the bot opens the duel topics.", example=3, gt=0)
    kind: Literal["1v1", "2v2"] = setting(
        "1v1",
        '"1v1" (one against one) or "2v2" (two against two: one duel at a time, its '
        "registration closed while it runs).",
    )
    environment: str = setting(
        "",
        '2v2 only: the environment of the duels ("serre", "bibliotheque"); "" = each in turn.',
    )
    ruleset: str = setting("fatigue", "The ruleset of the duels opened from this thread.")
    max_concurrent: int | None = setting(
        None,
        "Duels of this kind running at once before new pairs wait in the queue "
        "(default: 3 for 1v1, seed 001; 1 for 2v2).",
        example=3,
        ge=1,
    )


class ConfigFile(BaseModel):
    """The whole TOML file: one field per section (its description is the section's comment
    in the example file)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    board: BoardSettings = Field(description="")
    bot: BotSettings = Field(description="")
    club: ClubSettings = Field(default_factory=ClubSettings, description="")
    poll: PollSettings = Field(default_factory=PollSettings, description="")
    storage: StorageSettings = Field(default_factory=StorageSettings, description="")
    ops: OpsSettings = Field(default_factory=OpsSettings, description="")
    web: WebSettings = Field(default_factory=WebSettings, description="")
    watch: list[WatchSettings] = Field(
        default_factory=list,
        description="One [[watch]] table per forum holding duel topics. New topics whose first "
        'post names the duellists as "Name (5e année) contre Name (4e année)" are adopted '
        "automatically; others with `forumbot duels adopt`.",
    )
    registration: list[RegistrationSettings] = Field(
        default_factory=list,
        description='One [[registration]] table per registration thread ("sujet '
        "d'inscription\"). The bot reads every sign-up posted there (name, year, magic types, "
        "partner), answers the invalid ones, pairs open requests, runs at most 3 "
        "one-against-one duels at once (then a queue), opens each duel's topic in forum_id "
        "(watched automatically) and owls each duellist their magic-type modifiers. Uncomment "
        "and set the ids to use it.",
        json_schema_extra={"commented": True},
    )
    leaderboard: LeaderboardSettings = Field(default_factory=LeaderboardSettings, description="")


LIST_SECTIONS = ("watch", "registration")
"""Sections written as arrays of tables (``[[watch]]``)."""


def section_model(section: str) -> type[_Section]:
    """The model of ``section`` (``"club"`` -> :class:`ClubSettings`)."""
    annotation = ConfigFile.model_fields[section].annotation
    args = getattr(annotation, "__args__", None)
    model = args[0] if args else annotation  # list[WatchSettings] -> WatchSettings
    assert isinstance(model, type) and issubclass(model, _Section)
    return model


def default_of(section: str, key: str) -> Any:
    """The declared default of ``section.key`` (lists as tuples, for the frozen Config)."""
    default = section_model(section).model_fields[key].default
    return tuple(default) if isinstance(default, list) else default


@dataclass(frozen=True)
class SettingInfo:
    """One declared setting, for the example file, docs and tests.

    Attributes:
        path: ``"club.review_delay_s"`` (list tables: ``"watch.forum_id"``).
        required: no default; default: the declared default (None when required).
        unit: ``"s"``, ``"h"`` or None; help: the comment; example: the example file's value.
    """

    path: str
    required: bool
    default: Any
    unit: str | None
    help: str
    example: Any


def settings() -> Iterator[SettingInfo]:
    """Every declared setting, section by section, in the file's order."""
    for section in ConfigFile.model_fields:
        for key, info in section_model(section).model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            required = info.is_required()
            yield SettingInfo(
                path=f"{section}.{key}",
                required=required,
                default=None if required else info.default,
                unit=extra.get("unit"),  # type: ignore[arg-type]
                help=info.description or "",
                example=extra.get("example"),
            )
