"""Parsing and loading the TOML file: schema errors as one line per setting, with the closest
valid name."""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from forumbot.config.errors import ConfigError
from forumbot.config.files import read_toml_file
from forumbot.config.model import (
    FLAT_SETTINGS,
    Config,
    Registration,
    WatchedForum,
    check_config_file,
)
from forumbot.config.schema import (
    LIST_SECTIONS,
    MAX_CONCURRENT_BY_KIND,
    ConfigFile,
    section_model,
    settings,
)
from forumbot.config.storage_url import resolve_database
from rules.toml_limits import MAX_TOML_DEPTH, toml_depth

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
    if loc[0] in LIST_SECTIONS and rest and isinstance(rest[0], int):
        head.append(rest[0])
        rest = rest[1:]
    if rest:
        head.append(rest[0])
    return tuple(head)


def closest_name(name: str, candidates: list[str]) -> str | None:
    found = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def _unknown(loc: tuple[str | int, ...]) -> str:
    """``unknown setting club.review_delay; did you mean club.review_delay_s?``"""
    key = str(loc[-1])
    parent = loc[:-1]
    where = _dotted(loc)
    if not parent:
        sections = list(ConfigFile.model_fields)
        guess = closest_name(key, sections)
        if guess is not None:
            return f"unknown section [{key}]; did you mean [{guess}]?"
        everything = [s.path for s in settings()]
        guess = closest_name(key, [p.split(".", 1)[1] for p in everything])
        if guess is not None:
            path = next(p for p in everything if p.endswith("." + guess))
            return f"unknown setting {where}; did you mean {path} (in its [section])?"
        return f"unknown section [{key}]; the sections are {', '.join(sections)}"
    section = str(parent[0])
    model = section_model(section)
    guess = closest_name(key, list(model.model_fields))
    if guess is not None:
        return f"unknown setting {where}; did you mean {_dotted((*parent, guess))}?"
    others = [s.path for s in settings() if not s.path.startswith(section + ".")]
    guess = closest_name(key, [p.split(".", 1)[1] for p in others])
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
    except RecursionError:
        raise ConfigError(f"nested too deeply (limit {MAX_TOML_DEPTH} levels)") from None
    if toml_depth(data) > MAX_TOML_DEPTH:
        raise ConfigError(f"nested too deeply (limit {MAX_TOML_DEPTH} levels)")
    # [notify] (issue 18) is checked by forumbot.notify.settings.parse_notify, called by
    # forumbot.ops.validate with the other checks the schema cannot do.
    notify = data.pop("notify", {})
    if not isinstance(notify, dict):
        raise ConfigError("notify must be a table ([notify])")
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
    # storage.url (issue 27): PostgreSQL kept as it is, SQLite's URL made a path.
    database = resolve_database(parsed.storage.database, parsed.storage.url, base)
    password_file = parsed.bot.password_file
    if password_file and not Path(password_file).is_absolute():
        password_file = str(base / password_file)
    backup_dir = parsed.storage.backup_dir
    if backup_dir and not Path(backup_dir).is_absolute():
        backup_dir = str(base / backup_dir)
    values: dict[str, Any] = {}
    for attribute, path in FLAT_SETTINGS.items():
        section, key = path.split(".")
        value = getattr(getattr(parsed, section), key)
        values[attribute] = tuple(value) if isinstance(value, list) else value
    values.update(
        board_url=parsed.board.url.rstrip("/"),
        database=database,
        password_file=password_file,
        backup_dir=backup_dir,
        watch=tuple(watch),
        registrations=tuple(registrations),
        notify=dict(notify),
        config_dir=str(base),
    )
    return Config(**values)


def load_config(path: str | Path) -> Config:
    """Read and parse a configuration file.

    Raises:
        ConfigError: unreadable, too big, not UTF-8 or nested too deeply
            (:func:`forumbot.config.files.read_toml_file`), writable by others
            (:func:`forumbot.config.model.check_config_file`) or invalid (:func:`parse_config`);
            the message starts with the file's name.
    """
    p = Path(path)
    check_config_file(p)
    text = read_toml_file(p, "configuration")  # size, encoding, depth (issue 24 F13)
    try:
        return parse_config(text, base_dir=p.resolve().parent)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}", [f"{p}: {x}" for x in exc.problems]) from None
