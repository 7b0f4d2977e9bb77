"""The bot's configuration: one TOML file (``forumbot init`` writes a commented example).

Every setting is declared once, in the schema below (pydantic v2 models, one per TOML
section): its type, default, bounds, unit (also in the name: ``poll_interval_s``,
``review_delay_s``) and help text. The same declarations

- parse the file, refusing an unknown key or section with the closest valid name
  (``unknown setting club.review_delay; did you mean club.review_delay_s?``);
- write the example file (:data:`EXAMPLE_CONFIG`, one comment per setting);
- give the defaults of the flat :class:`Config` the rest of the code reads.

What the schema cannot see (a ruleset that does not exist, an unknown timezone, a URL without
scheme) is checked by :func:`config_problems`, which ``doctor``, ``check`` and ``run`` all call.

The bot account's password is never stored in the file: it comes from the environment
variable named by ``bot.password_env`` or from ``bot.password_file`` (a file readable only by
the service user).

Errors: :class:`ConfigError` (one line naming the setting) for everything here.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import stat
import textwrap
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ReviewDelay = int | Literal["manual"]


class ConfigError(Exception):
    """The configuration file is missing, unreadable or has a bad setting (message names it).

    Attributes:
        problems: one line per bad setting (the message joins them with ``"; "``).
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems if problems is not None else [message]


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


def _review_delay_value(value: object) -> ReviewDelay:
    if value == "manual":
        return "manual"
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError('must be seconds >= 0 or "manual"')
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
    dice_name: str = setting(
        "Duel",
        'Forumactif: the name of the dice the duels use (matched loosely: "Dé du Duel" '
        'matches "Duel"). Ignored on phpBB.',
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

    @field_validator("review_delay_s", mode="plain")
    @classmethod
    def _delay(cls, value: object) -> ReviewDelay:
        return _review_delay_value(value)


class PollSettings(_Section):
    """``[poll]``: how often the bot reads and publishes."""

    poll_interval_s: float = setting(
        120.0, "Seconds between two polls of each watched forum.", unit="s", gt=0
    )
    publish_interval_s: float = setting(
        15.0,
        "Seconds between two passes of the publisher (drafts whose delay is over).",
        unit="s",
        gt=0,
    )
    flood_interval_s: float = setting(
        15.0,
        "Seconds to wait after a flood-limit refusal (phpBB default flood_interval is 15).",
        unit="s",
        ge=0,
    )


class StorageSettings(_Section):
    """``[storage]``: the database and its daily backups."""

    database: str = setting(
        "forumbot.db", "SQLite database file (WAL mode). Relative paths are relative to this file."
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


class WebSettings(_Section):
    """``[web]``: the review page (``forumbot web``)."""

    https_only: bool = setting(
        False,
        "Mark the review page's session cookie Secure: set true whenever the page is served "
        "over HTTPS behind a reverse proxy (deploy/Caddyfile); the browser then sends it over "
        "HTTPS only.",
    )
    trusted_proxies: list[str] = setting(
        [],
        "Addresses (IPs or CIDR networks) of the reverse proxies whose X-Forwarded-For / "
        'X-Forwarded-Proto headers are believed (e.g. ["127.0.0.1"] behind Caddy on the same '
        "host). Empty = believe no one: the login limit then counts the TCP peer's address.",
    )

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, value: object) -> object:
        if isinstance(value, str):  # "127.0.0.1, 10.0.0.0/8" is accepted too
            value = [p.strip() for p in value.split(",") if p.strip()]
        if isinstance(value, list):
            for p in value:
                if not isinstance(p, str):
                    continue  # the list[str] check reports it
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


_LIST_SECTIONS = ("watch", "registration")
"""Sections written as arrays of tables (``[[watch]]``)."""


def _section_model(section: str) -> type[_Section]:
    """The model of ``section`` (``"club"`` -> :class:`ClubSettings`)."""
    annotation = ConfigFile.model_fields[section].annotation
    args = getattr(annotation, "__args__", None)
    model = args[0] if args else annotation  # list[WatchSettings] -> WatchSettings
    assert isinstance(model, type) and issubclass(model, _Section)
    return model


def _default(section: str, key: str) -> Any:
    """The declared default of ``section.key`` (lists as tuples, for the frozen Config)."""
    default = _section_model(section).model_fields[key].default
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
        for key, info in _section_model(section).model_fields.items():
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


# ---------------------------------------------------------------------------------------
# The example file, written from the schema
# ---------------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _comment(text: str, prefix: str = "# ") -> list[str]:
    return textwrap.wrap(
        text, width=92, initial_indent=prefix, subsequent_indent=prefix, break_on_hyphens=False
    )


def _render_example() -> str:
    lines = ["# forumbot configuration. Every setting has a comment; units are in the names."]
    for section, section_info in ConfigFile.model_fields.items():
        model = _section_model(section)
        is_list = section in _LIST_SECTIONS
        extra = section_info.json_schema_extra
        commented = isinstance(extra, dict) and bool(extra.get("commented"))
        lines.append("")
        if section_info.description:
            lines.extend(_comment(section_info.description))
        header = f"[[{section}]]" if is_list else f"[{section}]"
        lead = "# " if commented else ""
        lines.append(lead + header)
        for key, info in model.model_fields.items():
            meta = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            example = meta.get("example")
            value = example if example is not None else info.default
            lines.extend(_comment(info.description or "", prefix=lead + "# "))
            lines.append(f"{lead}{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


EXAMPLE_CONFIG = _render_example()
"""What ``forumbot init`` writes: every setting of the schema with its help as a comment
(written from the declarations above, so it cannot miss one)."""


# ---------------------------------------------------------------------------------------
# The flat configuration the code reads
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WatchedForum:
    """A forum whose topics are duel topics."""

    forum_id: int


@dataclass(frozen=True)
class Registration:
    """A registration thread (``[[registration]]``; meanings in :class:`RegistrationSettings`).

    Attributes:
        topic_id: the thread; thread_forum_id: the forum holding it (0 = read the thread).
        forum_id: where the duel topics are opened; kind: ``"1v1"`` or ``"2v2"``.
        ruleset: the duels' ruleset; max_concurrent: duels of this kind at once.
        environment: 2v2 only: the environment of the duels opened (a file of
            ``rules/data/environments/``, without ``.toml``); ``""`` = rotate through them.
    """

    topic_id: int
    forum_id: int
    thread_forum_id: int = _default("registration", "thread_forum_id")
    kind: str = _default("registration", "kind")
    ruleset: str = _default("registration", "ruleset")
    max_concurrent: int = MAX_CONCURRENT_BY_KIND["1v1"]
    environment: str = _default("registration", "environment")


@dataclass(frozen=True)
class Config:
    """Parsed configuration, flat: each attribute is one setting of the schema (see
    :data:`FLAT_SETTINGS` for which) and takes its default from there."""

    board_url: str
    platform: str
    username: str
    password_env: str = _default("bot", "password_env")
    password_file: str = _default("bot", "password_file")
    timezone: str = _default("board", "timezone")
    ruleset: str = _default("club", "ruleset")
    review_delay_s: ReviewDelay = _default("club", "review_delay_s")
    referee_name: str = _default("club", "referee_name")
    language: str = _default("club", "language")
    poll_interval_s: float = _default("poll", "poll_interval_s")
    publish_interval_s: float = _default("poll", "publish_interval_s")
    flood_interval_s: float = _default("poll", "flood_interval_s")
    database: str = _default("storage", "database")
    watch: tuple[WatchedForum, ...] = field(default_factory=tuple)
    game_master: tuple[str, ...] = _default("board", "game_master")
    dice_name: str = _default("board", "dice_name")
    backup_keep: int = _default("storage", "backup_keep")
    backup_hour_utc: int = _default("storage", "backup_hour_utc")
    health_port: int = _default("ops", "health_port")
    log_format: str = _default("ops", "log_format")
    registrations: tuple[Registration, ...] = field(default_factory=tuple)
    leaderboard_topic_id: int = _default("leaderboard", "topic_id")
    web_https_only: bool = _default("web", "https_only")
    web_trusted_proxies: tuple[str, ...] = _default("web", "trusted_proxies")

    def password(self, environ: dict[str, str] | None = None) -> str:
        """The bot account's password from the environment or the password file.

        Raises:
            ConfigError: when neither gives one, or the file may be written by others.
        """
        env = os.environ if environ is None else environ
        if self.password_file:
            path = Path(self.password_file)
            refuse_writable_by_others(path, "bot.password_file")
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


FLAT_SETTINGS: dict[str, str] = {
    "board_url": "board.url",
    "platform": "board.platform",
    "timezone": "board.timezone",
    "game_master": "board.game_master",
    "dice_name": "board.dice_name",
    "username": "bot.username",
    "password_env": "bot.password_env",
    "password_file": "bot.password_file",
    "ruleset": "club.ruleset",
    "review_delay_s": "club.review_delay_s",
    "referee_name": "club.referee_name",
    "language": "club.language",
    "poll_interval_s": "poll.poll_interval_s",
    "publish_interval_s": "poll.publish_interval_s",
    "flood_interval_s": "poll.flood_interval_s",
    "database": "storage.database",
    "backup_keep": "storage.backup_keep",
    "backup_hour_utc": "storage.backup_hour_utc",
    "health_port": "ops.health_port",
    "log_format": "ops.log_format",
    "leaderboard_topic_id": "leaderboard.topic_id",
    "web_https_only": "web.https_only",
    "web_trusted_proxies": "web.trusted_proxies",
}
"""Which setting each scalar :class:`Config` attribute holds (``watch`` and
``registrations`` hold the ``[[watch]]`` and ``[[registration]]`` tables)."""


def refuse_writable_by_others(path: Path, what: str) -> None:
    """Refuse a file that users other than its owner and group may write (``o+w``):
    whoever can edit the configuration can point ``board.url`` at their own server and
    collect the bot's password.

    Raises:
        ConfigError: one line naming the file, its mode and the ``chmod`` that fixes it.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # the read that follows reports the missing file
    if mode & stat.S_IWOTH:
        raise ConfigError(
            f"refusing {what} {path}: writable by other users (mode {stat.S_IMODE(mode):04o});"
            f" run: chmod o-w {path}"
        )


# ---------------------------------------------------------------------------------------
# Parsing: schema errors as one line per setting
# ---------------------------------------------------------------------------------------


def _dotted(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _setting_loc(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """``loc`` cut after the part that names the setting: ``(section, key)`` or, in list
    tables, ``(section, index, key)`` (pydantic appends union members such as ``"int"`` and
    list indices inside a setting)."""
    if not loc or loc[0] not in ConfigFile.model_fields:
        return loc[:1]
    head: list[str | int] = [loc[0]]
    rest = loc[1:]
    if loc[0] in _LIST_SECTIONS and rest and isinstance(rest[0], int):
        head.append(rest[0])
        rest = rest[1:]
    if rest:
        head.append(rest[0])
    return tuple(head)


def _closest(name: str, candidates: list[str]) -> str | None:
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def _unknown(loc: tuple[str | int, ...]) -> str:
    """``unknown setting club.review_delay; did you mean club.review_delay_s?``"""
    key = str(loc[-1])
    parent = loc[:-1]
    where = _dotted(loc)
    if not parent:
        sections = list(ConfigFile.model_fields)
        guess = _closest(key, sections)
        if guess is not None:
            return f"unknown section [{key}]; did you mean [{guess}]?"
        everything = [s.path for s in settings()]
        guess = _closest(key, [p.split(".", 1)[1] for p in everything])
        if guess is not None:
            path = next(p for p in everything if p.endswith("." + guess))
            return f"unknown setting {where}; did you mean {path} (in its [section])?"
        return f"unknown section [{key}]; the sections are {', '.join(sections)}"
    section = str(parent[0])
    model = _section_model(section)
    guess = _closest(key, list(model.model_fields))
    if guess is not None:
        return f"unknown setting {where}; did you mean {_dotted((*parent, guess))}?"
    others = [s.path for s in settings() if not s.path.startswith(section + ".")]
    guess = _closest(key, [p.split(".", 1)[1] for p in others])
    if guess is not None:
        path = next(p for p in others if p.endswith("." + guess))
        return f"unknown setting {where}; did you mean {path}?"
    return f"unknown setting {where}; {section} has {', '.join(model.model_fields)}"


def _problems(exc: ValidationError) -> list[str]:
    """One line per bad setting of a schema error."""
    problems: list[str] = []
    seen: set[tuple[str | int, ...]] = set()
    for err in exc.errors():
        loc = _setting_loc(tuple(err["loc"]))
        if loc in seen:
            continue  # a union reports each member: one line is enough
        seen.add(loc)
        where = _dotted(loc)
        kind = err["type"]
        if kind == "extra_forbidden":
            problems.append(_unknown(loc))
        elif kind == "missing":
            problems.append(f"{where} is required" if len(loc) > 1 else f"[{where}] is required")
        else:
            message = str(err["msg"]).removeprefix("Value error, ")
            message = message.replace("Input should be", "must be", 1)
            given = err.get("input")
            problems.append(f"{where}: {message} (got {given!r})")
    return problems


def parse_config(text: str, base_dir: Path | None = None) -> Config:
    """Parse the TOML text of a configuration file against the schema.

    Relative ``storage.database`` and ``bot.password_file`` paths are made relative to
    ``base_dir`` (default: the current folder); ``[[registration]]`` forums are watched.

    Raises:
        ConfigError: invalid TOML, an unknown key or section (with the closest valid one),
            a missing or ill-typed setting, a value out of bounds; every problem named.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}") from exc
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError as exc:
        problems = _problems(exc)
        raise ConfigError("; ".join(problems), problems) from None
    registrations: list[Registration] = []
    for i, reg in enumerate(parsed.registration):
        if any(r.topic_id == reg.topic_id for r in registrations):
            raise ConfigError(f"registration[{i}].topic_id {reg.topic_id} is listed twice")
        registrations.append(
            Registration(
                topic_id=reg.topic_id,
                forum_id=reg.forum_id,
                thread_forum_id=reg.thread_forum_id,
                kind=reg.kind,
                ruleset=reg.ruleset,
                max_concurrent=reg.max_concurrent or MAX_CONCURRENT_BY_KIND[reg.kind],
                environment=reg.environment,
            )
        )
    watch = [WatchedForum(w.forum_id) for w in parsed.watch]
    for entry in registrations:
        if all(w.forum_id != entry.forum_id for w in watch):
            watch.append(WatchedForum(entry.forum_id))
    base = base_dir or Path.cwd()
    database = parsed.storage.database
    if database != ":memory:" and not Path(database).is_absolute():
        database = str(base / database)
    password_file = parsed.bot.password_file
    if password_file and not Path(password_file).is_absolute():
        password_file = str(base / password_file)
    values: dict[str, Any] = {}
    for attribute, path in FLAT_SETTINGS.items():
        section, key = path.split(".")
        value = getattr(getattr(parsed, section), key)
        values[attribute] = tuple(value) if isinstance(value, list) else value
    values.update(
        board_url=parsed.board.url.rstrip("/"),
        database=database,
        password_file=password_file,
        watch=tuple(watch),
        registrations=tuple(registrations),
    )
    return Config(**values)


def load_config(path: str | Path) -> Config:
    """Read and parse a configuration file.

    Raises:
        ConfigError: unreadable, writable by others (:func:`refuse_writable_by_others`) or
            invalid (:func:`parse_config`); the message starts with the file's name.
    """
    p = Path(path)
    refuse_writable_by_others(p, "configuration")
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ConfigError(f"cannot read configuration {p}: {reason}") from exc
    try:
        return parse_config(text, base_dir=p.resolve().parent)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}", [f"{p}: {x}" for x in exc.problems]) from None


# ---------------------------------------------------------------------------------------
# What the schema cannot see: the same checks for doctor, check and run
# ---------------------------------------------------------------------------------------


def _ruleset_problem(name: str, where: str) -> str | None:
    from forumbot.rulesets import load_ruleset
    from rules.ruleset import DATA_DIR

    try:
        load_ruleset(name)
    except Exception as exc:  # FileNotFoundError, RuleError, TOML errors: report them
        shipped = sorted(p.stem for p in DATA_DIR.glob("*.toml"))
        if isinstance(exc, FileNotFoundError) and not name.endswith(".toml"):
            guess = _closest(name, shipped)
            hint = f"; did you mean {guess!r}?" if guess else f" (shipped: {', '.join(shipped)})"
            return f"unknown {where} {name!r}{hint}"
        return f"{where} {name!r}: {exc}"
    return None


def config_problems(config: Config) -> list[str]:
    """What the schema cannot check, one line each (empty = fine): ``board.url`` has an
    http(s) scheme and a host, ``board.timezone`` exists, every ruleset named
    (``club.ruleset``, ``registration[i].ruleset``) loads, every 2v2 environment named is
    shipped, declaration templates exist for ``club.language``, intervals are > 0 s.

    ``doctor`` reports these as its ``config`` check; ``check`` and ``run`` refuse to start
    on them (:func:`validate_config`). Reads only local files (never the board).
    """
    from forumbot.publish.render import TEMPLATES_DIR
    from rules.ruleset import DATA_DIR

    problems: list[str] = []
    url = urlsplit(config.board_url)
    if url.scheme not in ("http", "https") or not url.netloc:
        problems.append(
            f"board.url {config.board_url!r} must start with http:// or https:// and name a host"
        )
    try:
        ZoneInfo(config.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(f"unknown board.timezone {config.timezone!r} (e.g. 'Europe/Paris')")
    problem = _ruleset_problem(config.ruleset, "club.ruleset")
    if problem:
        problems.append(problem)
    environments = sorted(p.stem for p in (DATA_DIR / "environments").glob("*.toml"))
    for i, reg in enumerate(config.registrations):
        problem = _ruleset_problem(reg.ruleset, f"registration[{i}].ruleset")
        if problem:
            problems.append(problem)
        if reg.environment and reg.environment not in environments:
            problems.append(
                f"unknown registration[{i}].environment {reg.environment!r} "
                f"(shipped: {', '.join(environments)})"
            )
    if not (TEMPLATES_DIR / config.language).is_dir():
        problems.append(f"no declaration templates for club.language {config.language!r}")
    if config.poll_interval_s <= 0 or config.publish_interval_s <= 0:
        problems.append("poll_interval_s and publish_interval_s must be > 0 seconds")
    return problems


def validate_config(config: Config) -> Config:
    """``config`` when :func:`config_problems` finds nothing.

    Raises:
        ConfigError: listing every problem (``check`` and ``run`` stop on it before they
            contact the board).
    """
    problems = config_problems(config)
    if problems:
        raise ConfigError("; ".join(problems), problems)
    return config
