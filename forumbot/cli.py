"""The ``forumbot`` command line: parses arguments and calls the library (nothing more).

Library errors become ``click.ClickException`` with a clear one-line message.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from forumbot.config import EXAMPLE_CONFIG, Config, ConfigError, load_config

DEFAULT_CONFIG = "forumbot.toml"


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if os.environ.get("FORUMBOT_LOG_FORMAT") == "json":
        from forumbot.ops.logs import configure_json_logging

        configure_json_logging(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


def _config(path: str) -> Config:
    try:
        return load_config(path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc


def _actor(by: str | None) -> str:
    return by or os.environ.get("USER") or "referee"


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Debug logging.")
@click.version_option(package_name="forumbot")
def main(verbose: bool) -> None:
    """forumbot referees role-play wizard duels on phpBB and Forumactif boards."""
    _setup_logging(verbose)


@main.command()
@click.argument("path", default=DEFAULT_CONFIG, type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init(path: str, force: bool) -> None:
    """Write a commented example configuration to PATH (default forumbot.toml)."""
    target = Path(path)
    if target.exists() and not force:
        raise click.ClickException(f"{target} exists (use --force to overwrite)")
    target.write_text(EXAMPLE_CONFIG, encoding="utf-8")
    click.echo(f"wrote {target}; set the bot password in $FORUMBOT_PASSWORD, then: forumbot check")


@main.command()
@click.option("-c", "--config", "config_path", default=DEFAULT_CONFIG, show_default=True)
def run(config_path: str) -> None:
    """Referee unattended: poll the watched forums, draft, publish after the review delay."""
    from forumbot.app import bootstrap
    from forumbot.ops.scheduler import AlreadyRunning, run_forever

    config = _config(config_path)
    if config.log_format == "json":
        from forumbot.ops.logs import configure_json_logging

        configure_json_logging(logging.INFO)
    try:
        bot = bootstrap(config)
        run_forever(bot)
    except (AlreadyRunning, ConfigError) as exc:
        raise click.ClickException(str(exc)) from exc


@main.command()
@click.option("-c", "--config", "config_path", default=DEFAULT_CONFIG, show_default=True)
def check(config_path: str) -> None:
    """Dry run against the live board: log in, find the duel topics, print the drafts the bot
    would post. Posts nothing and leaves the database unchanged (works on a copy)."""
    import httpx

    from forumbot.errors import ForumError
    from forumbot.ops.check import dry_run

    config = _config(config_path)
    try:
        for line in dry_run(config):
            click.echo(line)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    except (ForumError, httpx.HTTPError) as exc:
        raise click.ClickException(
            f"{config.board_url}: {type(exc).__name__}: {exc} (nothing was posted)"
        ) from exc


@main.command("parse-page")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--platform",
    type=click.Choice(["auto", "phpbb3", "forumactif"]),
    default="auto",
    show_default=True,
)
@click.option("--ruleset", default="classic", show_default=True, help="Spellbook to match.")
@click.option("--now", "now_iso", default=None, help="ISO datetime for relative dates.")
@click.option("--timezone", default="Europe/Paris", show_default=True)
def parse_page_cmd(
    file: str, platform: str, ruleset: str, now_iso: str | None, timezone: str
) -> None:
    """Print one JSON object with the page's facts and posts (the public JSON contract)."""
    from forumbot.rulesets import load_ruleset
    from parsers.contract import page_to_json, parse_page
    from parsers.detect import detect_platform
    from parsers.errors import ParseError

    try:
        now = datetime.fromisoformat(now_iso) if now_iso else datetime.now(UTC)
    except ValueError as exc:
        raise click.BadParameter(f"not an ISO datetime: {now_iso!r}", param_hint="--now") from exc
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    from rules.errors import RuleError

    try:
        spellbook = load_ruleset(ruleset).spellbook_names()
    except (OSError, ValueError, RuleError) as exc:
        raise click.BadParameter(f"no ruleset {ruleset!r} ({exc})", param_hint="--ruleset") from exc
    data = Path(file).read_bytes()
    try:
        if platform != "auto":
            seen = detect_platform(data, file)
            if seen != platform:
                raise click.ClickException(f"{file}: this is a {seen} page, not {platform}")
        page = parse_page(data, platform, source=file, now=now, timezone=timezone)
    except ParseError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(json.dumps(page_to_json(page, spellbook), ensure_ascii=False, indent=2))


@main.command("verify-dice")
@click.argument("sources", nargs=-1, required=True)
@click.option("--platform", type=click.Choice(["auto", "phpbb3", "forumactif"]), default="auto")
@click.option(
    "--bot",
    "bot_name",
    default=None,
    help="The bot's account name (default: the author of the opening declaration).",
)
def verify_dice(sources: tuple[str, ...], platform: str, bot_name: str | None) -> None:
    """Recompute every bot roll of a duel from its pages alone (saved files, or the topic's
    URL on a phpBB or Forumactif board: every page is fetched). Exits 1 when anything does not
    match."""
    from forumbot.duels.verify import format_report, verify_pages
    from forumbot.fetch import fetch_topic_pages
    from parsers.contract import parse_page
    from parsers.errors import ParseError

    pages = []
    try:
        for source in sources:
            if source.startswith(("http://", "https://")):
                pages.extend(fetch_topic_pages(source))
            else:
                data = Path(source).read_bytes()
                pages.append(parse_page(data, platform, source=source, now=datetime.now(UTC)))
    except (OSError, ParseError) as exc:
        raise click.ClickException(str(exc)) from exc
    report = verify_pages(pages, bot=bot_name)
    for line in format_report(report):
        click.echo(line)
    if not report.ok:
        sys.exit(1)


# -- drafts -------------------------------------------------------------------------------
@main.group()
def drafts() -> None:
    """List, show, edit, approve or hold draft declarations."""


def _storage(config_path: str) -> Any:
    from forumbot.storage import open_storage

    return open_storage(_config(config_path).database)


_config_opt = click.option(
    "-c", "--config", "config_path", default=DEFAULT_CONFIG, show_default=True
)


@drafts.command("list")
@_config_opt
@click.option("--all", "show_all", is_flag=True, help="Include published declarations.")
def drafts_list(config_path: str, show_all: bool) -> None:
    """Pending declarations: id, duel, turn, status, when it publishes."""
    storage = _storage(config_path)
    statuses = None if show_all else ("draft", "approved", "held", "publishing")
    rows = storage.declarations(statuses)
    if not rows:
        click.echo("no pending draft")
    for d in rows:
        duel = storage.duel(d["duel_id"])
        when = (
            "waits for a referee (held)"
            if d["status"] == "held"
            else d["publish_after"] or "on approval"
        )
        click.echo(
            f"#{d['id']:<4} duel {d['duel_id']} (topic {duel['topic_id']}) {d['kind']:<7} "
            f"turn {d['turn']:<3} {d['status']:<10} v{d['version']} publish: {when}"
        )


@drafts.command("show")
@_config_opt
@click.argument("decl_id", type=int)
@click.option("--trail", is_flag=True, help="Also print the rule trail behind every number.")
def drafts_show(config_path: str, decl_id: int, trail: bool) -> None:
    """Print a draft's text (and its rule trail)."""
    storage = _storage(config_path)
    try:
        d = storage.declaration(decl_id)
    except Exception as exc:
        raise click.ClickException(f"no declaration {decl_id}") from exc
    click.echo(
        f"# declaration {decl_id} ({d['kind']}, turn {d['turn']}, {d['status']}, v{d['version']})"
    )
    if d["last_error"]:
        click.echo(f"# note: {d['last_error']}")
    click.echo(d["text"])
    if trail:
        outcome = json.loads(d["context_json"]).get("outcome") or {}
        for entry in outcome.get("trail", []):
            click.echo(
                f"  {entry['quantity']} = {entry['value']}  [{entry['rule']}] "
                f"{entry.get('detail', '')}"
            )


@drafts.command("edit")
@_config_opt
@click.argument("decl_id", type=int)
@click.option(
    "--text-file",
    type=click.File("r", encoding="utf-8"),
    help="New text (use - for standard input).",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help='Set a computed number, e.g. --set "Cassius Thorne.points=12".',
)
@click.option("--waive", multiple=True, metavar="DUELLIST:RULE", help="Waive a violation.")
@click.option("--by", default=None, help="Who makes the change (audit log); default $USER.")
def drafts_edit(
    config_path: str,
    decl_id: int,
    text_file: Any,
    sets: tuple[str, ...],
    waive: tuple[str, ...],
    by: str | None,
) -> None:
    """Edit a draft: its text, a computed number (the text follows), or a violation."""
    from forumbot.duels.overrides import (
        OverrideError,
        edit_text,
        parse_value,
        set_numbers,
        set_violation,
    )

    storage = _storage(config_path)
    now = datetime.now(UTC)
    actor = _actor(by)
    if not (text_file or sets or waive):
        raise click.ClickException("nothing to change: give --text-file, --set or --waive")
    try:
        if sets:
            values = {}
            for item in sets:
                key, sep, raw = item.rpartition("=")
                if not sep or not key:
                    raise OverrideError(f"--set wants KEY=VALUE, got {item!r}")
                values[key.strip()] = parse_value(raw)
            set_numbers(storage, decl_id, values, actor, now)
        for item in waive:
            name, sep, rule = item.rpartition(":")
            if not sep:
                raise OverrideError(f"--waive wants DUELLIST:RULE, got {item!r}")
            set_violation(storage, decl_id, name.strip(), rule.strip(), True, actor, now)
        if text_file:
            edit_text(storage, decl_id, text_file.read(), actor, now)
    except OverrideError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(storage.declaration(decl_id)["text"])


def _set_status(config_path: str, decl_id: int, status: str, by: str | None) -> None:
    from forumbot.duels.overrides import OverrideError, set_status

    storage = _storage(config_path)
    try:
        set_status(storage, decl_id, status, _actor(by), datetime.now(UTC))
    except OverrideError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"declaration {decl_id}: {status}")


@drafts.command("approve")
@_config_opt
@click.argument("decl_id", type=int)
@click.option("--by", default=None)
def drafts_approve(config_path: str, decl_id: int, by: str | None) -> None:
    """Approve a draft: it is published at the next publish pass."""
    _set_status(config_path, decl_id, "approved", by)


@drafts.command("hold")
@_config_opt
@click.argument("decl_id", type=int)
@click.option("--by", default=None)
def drafts_hold(config_path: str, decl_id: int, by: str | None) -> None:
    """Hold a draft: it waits until a referee approves it."""
    _set_status(config_path, decl_id, "held", by)


# -- duels --------------------------------------------------------------------------------
@main.group()
def duels() -> None:
    """List duels, or adopt a topic as a duel."""


@duels.command("list")
@_config_opt
def duels_list(config_path: str) -> None:
    """Duels the bot referees, with their state."""
    storage = _storage(config_path)
    for duel in storage.duels():
        if duel["status"] == "ignored":
            continue
        state = json.loads(duel["state_json"] or "{}")
        people = ", ".join(f"{d['name']} {d['points']}" for d in state.get("duellists", []))
        click.echo(
            f"duel {duel['id']}: topic {duel['topic_id']} {duel['status']} "
            f"turn {state.get('turn', 0)}: {people}"
        )


@duels.command("adopt")
@_config_opt
@click.argument("topic_id", type=int)
@click.option("--forum", "forum_id", type=int, required=True)
@click.option("--duellist", "duellists", multiple=True, required=True, metavar="NAME:YEAR")
@click.option("--stakes", default=None, help="Stakes agreed by both duellists.")
@click.option("--by", default=None)
def duels_adopt(
    config_path: str,
    topic_id: int,
    forum_id: int,
    duellists: tuple[str, ...],
    stakes: str | None,
    by: str | None,
) -> None:
    """Referee an existing topic: drafts its opening declaration."""
    from forumbot.app import bootstrap

    pairs = []
    for item in duellists:
        name, sep, year = item.rpartition(":")
        if not sep:
            raise click.ClickException(f"--duellist wants NAME:YEAR, got {item!r}")
        pairs.append((name.strip(), year.strip()))
    if len(pairs) != 2:
        raise click.ClickException("a classic duel has exactly two duellists")
    bot = bootstrap(_config(config_path))
    try:
        duel_id = bot.referee.adopt(
            forum_id, topic_id, f"topic {topic_id}", pairs, stakes=stakes, actor=_actor(by)
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"duel {duel_id} adopted; opening declaration drafted")


@main.command()
@click.option("--port", default=8080, show_default=True)
@click.option("--platform", type=click.Choice(["phpbb3", "forumactif"]), default="phpbb3")
def sandbox(port: int, platform: str) -> None:
    """Serve the sandbox board on 127.0.0.1 (a test double of the real board)."""
    from forumbot.demo.classic import serve_sandbox

    serve_sandbox(port, platform)


@main.command()
@click.option("--platform", type=click.Choice(["phpbb3", "forumactif"]), default="phpbb3")
@click.option("--seed", default=7, show_default=True, help="Seed of the scripted duellists.")
@click.option(
    "--kind",
    type=click.Choice(["classic", "2v2", "fatigue"]),
    default="classic",
    show_default=True,
    help="classic: a one-against-one classic duel; 2v2: two duos in a fatigue duel with zones; "
    "fatigue: the club's fatigue 1v1 season, from the sign-ups to the leaderboard.",
)
def demo(platform: str, seed: int, kind: str) -> None:
    """Start the sandbox, let two scripted duellists play a classic duel, referee it
    (review delay 0) until a winner; prints each declaration and the winner. With --kind 2v2,
    four scripted duellists play a two-against-two fatigue duel; the end also prints the zone
    owls sent and the verify-dice check of the topic. With --kind fatigue, players sign up,
    the bot pairs them, referees their fatigue 1v1 duel and gives the rewards."""
    if kind == "fatigue":
        from forumbot.demo.season import run_season_demo

        try:
            season = run_season_demo(platform=platform, seed=seed, echo=click.echo)
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from exc
        if season.winner is None:
            raise click.ClickException("the fatigue season demo ended without a winner")
        return
    if kind == "2v2":
        from forumbot.demo.duo import run_duo_demo

        try:
            duo = run_duo_demo(platform=platform, seed=seed, echo=click.echo)
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from exc
        if not duo.winners and not duo.draw:
            raise click.ClickException("the 2v2 demo ended without a winner")
        if duo.verify is None or not duo.verify.ok:
            raise click.ClickException("verify-dice found a problem in the 2v2 demo's topic")
        return
    from forumbot.demo.classic import run_demo

    result = run_demo(platform=platform, seed=seed, echo=click.echo)
    if result.winner is None and not result.draw:
        raise click.ClickException("the demo ended without a winner")


# -- operations (issue 7) ------------------------------------------------------------------
@main.command()
@_config_opt
@click.option("--offline", is_flag=True, help="Skip the checks that contact the board.")
def doctor(config_path: str, offline: bool) -> None:
    """Check config, password, board and login, database integrity, migrations and clock.
    Exits 1 when a check fails."""
    from forumbot.ops.doctor import doctor as run_doctor

    checks = run_doctor(config_path, offline=offline)
    for item in checks:
        click.echo(f"[{item.status:>4}] {item.name}: {item.detail}")
    if any(item.failed for item in checks):
        raise click.exceptions.Exit(1)


@main.command()
@_config_opt
@click.option("--dest", default=None, help="Backup folder [default: <database folder>/backups].")
@click.option("--keep", default=7, show_default=True, help="Daily backups to keep.")
def backup(config_path: str, dest: str | None, keep: int) -> None:
    """Copy the database (safe while the bot runs) and keep the newest KEEP daily backups."""
    from forumbot.ops.backup import BackupError
    from forumbot.ops.backup import backup as run_backup

    database = _config(config_path).database
    folder = Path(dest) if dest else Path(database).parent / "backups"
    try:
        path = run_backup(database, folder, datetime.now(UTC), keep=keep)
    except (BackupError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(str(path))


@main.command()
@click.argument("backup_file", type=click.Path(exists=True, dir_okay=False))
@_config_opt
def restore(backup_file: str, config_path: str) -> None:
    """Put BACKUP_FILE back as the database (refused while forumbot run is running); the
    current database is saved next to it first."""
    from forumbot.ops.backup import RestoreError
    from forumbot.ops.backup import restore as run_restore
    from forumbot.ops.scheduler import AlreadyRunning

    database = _config(config_path).database
    try:
        safety = run_restore(backup_file, database)
    except (AlreadyRunning, RestoreError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"restored {backup_file} into {database}")
    if safety is not None:
        click.echo(f"previous database saved as {safety}")


# -- review web page (issue 6) -------------------------------------------------------------
@main.command()
@_config_opt
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@click.option(
    "--publish-now/--no-publish-now",
    default=False,
    show_default=True,
    help="Let 'publish now' post at once (the web process logs in to the board).",
)
def web(config_path: str, host: str, port: int, publish_now: bool) -> None:
    """Serve the review page: referees change drafts, admins judge violations."""
    from forumbot.web.serve import serve

    try:
        serve(_config(config_path), host, port, publish_now)
    except (ValueError, ConfigError) as exc:
        raise click.ClickException(str(exc)) from exc


@main.group()
def users() -> None:
    """Accounts of the review page."""


@users.command("add")
@_config_opt
@click.argument("name")
@click.option("--role", type=click.Choice(["referee", "admin"]), required=True)
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def users_add(config_path: str, name: str, role: str, password_stdin: bool) -> None:
    """Create an account NAME with a password (asked for, or read from standard input)."""
    from forumbot.web.users import UserError, add_user

    password = _read_password(password_stdin)
    try:
        user = add_user(_storage(config_path), name, password, role, datetime.now(UTC))
    except UserError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"user {user.username} added ({user.role})")


def _read_password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(click.prompt("Password", hide_input=True, confirmation_prompt=True))


@users.command("password")
@_config_opt
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def users_password(config_path: str, name: str, password_stdin: bool) -> None:
    """Change NAME's password (asked for, or read from standard input); the account's open
    sessions end."""
    from forumbot.web.users import UserError, set_password

    try:
        set_password(_storage(config_path), name, _read_password(password_stdin), datetime.now(UTC))
    except UserError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"password of {name} changed")


@users.command("disable")
@_config_opt
@click.argument("name")
def users_disable(config_path: str, name: str) -> None:
    """Disable NAME: no more logins, open sessions end (the account and its audit trail are
    kept; `users enable` gives it back)."""
    _set_disabled(config_path, name, True)


@users.command("enable")
@_config_opt
@click.argument("name")
def users_enable(config_path: str, name: str) -> None:
    """Enable NAME again after `users disable`."""
    _set_disabled(config_path, name, False)


def _set_disabled(config_path: str, name: str, disabled: bool) -> None:
    from forumbot.web.users import UserError, set_disabled

    try:
        user = set_disabled(_storage(config_path), name, disabled, datetime.now(UTC))
    except UserError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"user {user.username} {'disabled' if disabled else 'enabled'}")


@users.command("list")
@_config_opt
def users_list(config_path: str) -> None:
    """Accounts and the duels each referee reviews."""
    from forumbot.web.users import list_users, refereed_duels

    storage = _storage(config_path)
    for user in list_users(storage):
        duels = ", ".join(str(d) for d in sorted(refereed_duels(storage, user.username)))
        click.echo(f"{user.username}\t{user.role}\t{'all' if user.is_admin else duels or '-'}")


# -- club: leaderboard and duellist profiles (issue 4) --------------------------------------
@main.command("leaderboard")
@_config_opt
@click.option("--post", "post_now", is_flag=True, help="Also update the bot's leaderboard post.")
@click.option(
    "--kind",
    type=click.Choice(["1v1", "2v2"]),
    default="1v1",
    show_default=True,
    help="Which leaderboard to print (2v2: purses include the galleons won in duel).",
)
def leaderboard_cmd(config_path: str, post_now: bool, kind: str = "1v1") -> None:
    """Print the leaderboard (points, wins, purse, frogs; 2v2: also the rewards won from
    creatures and mechanisms); with --post, also post or edit the bot's (1v1) leaderboard post
    in the [leaderboard] topic now."""
    from forumbot.club.leaderboard import render_leaderboard

    config = _config(config_path)
    storage = _storage(config_path)
    board_id = storage.board_id(config.board_url, config.platform, datetime.now(UTC))
    click.echo(render_leaderboard(storage, board_id, kind, language=config.language), nl=False)
    if not post_now:
        return
    if not config.leaderboard_topic_id:
        raise click.ClickException("no leaderboard post: set [leaderboard] topic_id")
    from forumbot.app import bootstrap
    from forumbot.club.registrations import desk_for

    try:
        state = desk_for(bootstrap(config, storage=storage)).refresh_leaderboard()
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"leaderboard post: {state}")
    if state in ("failed", "unsupported"):
        raise click.exceptions.Exit(1)


@main.group()
def duellists() -> None:
    """Duellist profiles (year and magic types, changed only by an admin)."""


@duellists.command("set")
@_config_opt
@click.argument("name")
@click.option("--year", required=True, help='1..7 or "adult".')
@click.option("--types", "types", required=True, help="One or two magic types: brutale,discrete")
@click.option("--player", default=None, help="The forum account (default: unchanged / NAME).")
@click.option("--by", default=None, help="The admin making the change (audit log).")
def duellists_set(
    config_path: str, name: str, year: str, types: str, player: str | None, by: str | None
) -> None:
    """Record NAME's year and magic types (seed 001: a change of type needs a strong change
    of character in role-play or a new wand; the admin records it)."""
    from forumbot.club.registrations import ProfileError, set_profile
    from forumbot.publish.labels import types_label, year_label
    from forumbot.rulesets import load_ruleset

    config = _config(config_path)
    storage = _storage(config_path)
    now = datetime.now(UTC)
    board_id = storage.board_id(config.board_url, config.platform, now)
    ruleset = config.registrations[0].ruleset if config.registrations else "fatigue"
    try:
        profile = set_profile(
            storage,
            board_id,
            name,
            year,
            [t for t in types.split(",") if t.strip()],
            _actor(by),
            now,
            player=player,
            ruleset=ruleset,
        )
    except ProfileError as exc:
        raise click.ClickException(str(exc)) from exc
    rs = load_ruleset(ruleset)
    click.echo(
        f"{profile.character} ({profile.player}): {year_label(profile.year)}, "
        f"magie {types_label(rs, profile.magic_types)}"  # type: ignore[arg-type]
    )


if __name__ == "__main__":  # pragma: no cover
    main()


@main.command("replay")
@click.argument("saved_pages", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--ruleset", default="fatigue", show_default=True, help="fatigue, classic or a TOML file."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON array of the declarations.")
@click.option(
    "--duellist",
    "duellists",
    multiple=True,
    metavar="NAME:YEAR[:TYPES]",
    help="Duellist (default: read from the first post); fatigue types like brutale,discrete.",
)
@click.option("--platform", type=click.Choice(["auto", "phpbb3", "forumactif"]), default="auto")
def replay(
    saved_pages: tuple[str, ...],
    ruleset: str,
    as_json: bool,
    duellists: tuple[str, ...],
    platform: str,
) -> None:
    """Referee a saved duel offline (the bot's own past declarations ignored) and print every
    declaration it would have drafted. Nothing is posted anywhere."""
    from forumbot.duels.replay import format_replay, parse_duellist_option, replay_pages
    from parsers.contract import parse_page
    from parsers.errors import ParseError

    try:
        chosen = [parse_duellist_option(d) for d in duellists]
        pages = [
            parse_page(Path(p).read_bytes(), platform, source=p, now=datetime.now(UTC))
            for p in saved_pages
        ]
        result = replay_pages(pages, ruleset=ruleset, duellists=chosen)
    except (OSError, ParseError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps([d.to_dict() for d in result], ensure_ascii=False, indent=2))
    else:
        click.echo(format_replay(result))
