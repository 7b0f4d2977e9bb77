"""``doctor``, ``backup`` and ``restore`` (docs/operations.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from forumbot.cli._common import (
    _,
    config_option,
    current_language,
    load,
    peek_language,
    set_language,
)
from forumbot.exit_codes import FAILURE

if TYPE_CHECKING:
    from forumbot.ops.doctor import Check


@click.command()
@config_option
@click.option("--offline", is_flag=True, help="Skip the checks that contact the board.")
@click.option("--all", "every_club", is_flag=True, help="Every club of --boards DIR (serve).")
@click.option(
    "--boards",
    "boards_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="The folder of club files of forumbot serve (with --all).",
)
@click.option(
    "--lease-url",
    envvar="FORUMBOT_LEASE_URL",
    default=None,
    help="With --all: the serve workers' lease database (as serve --lease-url): each club's "
    "lease (worker, epoch, expiry) [env FORUMBOT_LEASE_URL].",
)
def doctor(
    config_path: str, offline: bool, every_club: bool, boards_dir: str | None,
    lease_url: str | None,
) -> None:  # fmt: skip
    """Check config, password, board and login, database integrity, migrations and clock.
    With --all --boards DIR: every club of the folder, one report each (and its lease with
    --lease-url). Exits 1 when a check fails."""
    from forumbot.ops.doctor import doctor as run_doctor
    from forumbot.ops.doctor import page_language_of

    if every_club or boards_dir:
        if not (every_club and boards_dir):
            raise click.UsageError("use --all and --boards DIR together")
        _doctor_all(boards_dir, offline, lease_url)
        return
    checks = run_doctor(config_path, offline=offline)
    if peek_language(config_path) is None:  # no board.language, no database yet (C6)
        set_language(page_language_of(checks))
    for item in checks:
        click.echo(check_line(item))
    if any(item.failed for item in checks):
        raise click.exceptions.Exit(FAILURE)


def _doctor_all(boards_dir: str, offline: bool, lease_url: str | None) -> None:
    from forumbot.ops.doctor import page_language_of
    from forumbot.ops.doctor_all import doctor_all

    reports = doctor_all(boards_dir, offline=offline, lease_url=lease_url)
    if not reports:
        click.echo(_("no *.toml club file in %s", boards_dir))
    for report in reports:  # each club's report in its staff's language (its board.language,
        # else the one its pages said: a club with no database yet, newcomer5 C6)
        set_language(peek_language(str(report.path)) or page_language_of(report.checks))
        verdict = _("FAIL") if report.failed else "ok"
        click.echo(_("== club %s (%s): %s", report.name, report.path, verdict))
        for item in report.checks:
            click.echo(check_line(item))
    if any(r.failed for r in reports):
        raise click.exceptions.Exit(FAILURE)


def check_line(item: Check) -> str:
    """One doctor finding as printed: ``[warn] clock: ...`` in English, « [alerte] horloge :
    ... » in French. Its detail is translated from the check's message (the catalogue's
    ``msgctxt "doctor"`` for the name and status); when a library's text in it is not in the
    catalogue, the line says the check's sentence without it (:attr:`Check.alone`) and quotes
    the library's English as a technical detail (« … (détail technique : « ConnectError: … »)
    »), so one report speaks one language (issue 25)."""
    from forumbot.i18n import SOURCE_LANGUAGE, figures, translate, translate_detail

    speak = current_language()
    if speak == SOURCE_LANGUAGE or not item.message:
        return f"[{item.status:>4}] {item.name}: {item.detail}"
    values = [
        translate_detail(speak, str(a)) if isinstance(a, BaseException) else a for a in item.args
    ]
    if any(v is None for v in values):
        sentence = translate(speak, item.alone, *figures(speak, item.alone_args))
        quoted = "; ".join(item.library_texts)
        detail = translate(speak, "%s (technical detail: « %s »)", sentence, quoted)
    else:
        detail = translate(speak, item.message, *figures(speak, tuple(values)))
    number = item.name.removeprefix("forum ")
    if number != item.name:
        name = translate(speak, "forum %s", number, context="doctor")
    else:
        name = translate(speak, item.name, context="doctor")
    status = translate(speak, item.status, context="doctor")
    return translate(speak, "[%s] %s: %s", f"{status:>6}", name, detail)


@click.command()
@config_option
@click.option(
    "--dest",
    default=None,
    help="Backup folder [default: storage.backup_dir, else <database folder>/backups; "
    "PostgreSQL: ./backups].",
)
@click.option(
    "--keep",
    default=7,
    show_default=True,
    type=click.IntRange(min=1),
    help="Daily backups to keep.",
)
def backup(config_path: str, dest: str | None, keep: int) -> None:
    """Copy the database (safe while the bot runs) and keep the newest KEEP daily backups.
    On PostgreSQL (storage.url): pg_dump of the club's schema."""
    from forumbot.ops.backup import backup as run_backup
    from forumbot.ops.backup import default_backup_dir

    config = load(config_path)
    folder = Path(dest) if dest else default_backup_dir(config)
    click.echo(str(run_backup(config.database, folder, datetime.now(UTC), keep=keep)))


@click.command()
@click.argument("backup_file", type=click.Path(exists=True, dir_okay=False))
@config_option
def restore(backup_file: str, config_path: str) -> None:
    """Put BACKUP_FILE back as the database (refused while forumbot run is running); the
    current database is saved next to it first. On PostgreSQL: a pg_dump archive of the
    club's schema, restored in one transaction (the current schema saved beside it)."""
    from forumbot.ops.backup import restore as run_restore
    from forumbot.storage.engine import redacted

    database = load(config_path).database
    safety = run_restore(backup_file, database)
    click.echo(_("restored %s into %s", backup_file, redacted(database)))
    if safety is not None:
        click.echo(_("previous database saved as %s", safety))


COMMANDS = (doctor, backup, restore)
