"""``init``, ``run`` and ``check``: write a configuration, referee unattended, dry run.

``run`` and ``check`` validate the configuration as ``doctor`` does
(:func:`forumbot.ops.validate.validate_config`) before they contact the board; their start-up
failures (refused login, CAPTCHA, board unreachable) end in one line and the exit code of
:mod:`forumbot.exit_codes`.
"""

from __future__ import annotations

import logging
from pathlib import Path

import click

from forumbot.cli._common import (
    DEFAULT_CONFIG,
    CliError,
    _,
    board_language,
    config_option,
    current_language,
    error,
    load,
    peek_language,
    set_language,
)
from forumbot.exit_codes import CONFIG_ERROR


@click.command()
@click.argument("path", default=DEFAULT_CONFIG, type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init(path: str, force: bool) -> None:
    """Write a commented example configuration to PATH (default forumbot.toml)."""
    from forumbot.config import EXAMPLE_CONFIG

    set_language(peek_language(path))  # the club's file already there speaks its language
    target = Path(path)
    if not target.parent.is_dir():
        raise CliError(
            _(
                "folder %s does not exist: create it first (mkdir -p %s)",
                target.parent,
                target.parent,
            ),  # fmt: skip
            CONFIG_ERROR,
        )
    if target.exists() and not force:
        raise CliError(_("%s exists (use --force to overwrite)", target))
    target.write_text(EXAMPLE_CONFIG, encoding="utf-8")
    click.echo(
        _("wrote %s; set the bot password in $FORUMBOT_PASSWORD, then: forumbot check", target)
    )


@click.command()
@config_option
@click.option(
    "--give-up-after",
    "give_up_after_s",
    type=click.FloatRange(min=0),
    default=None,
    help="Seconds the start-up login waits for a board that is down or behind a challenge "
    "or maintenance page before exiting 69 [default: wait until it is back].",
)
def run(config_path: str, give_up_after_s: float | None) -> None:
    """Referee unattended: poll the watched forums, draft, publish after the review delay.
    Exit codes: see docs/operations.md (78 configuration or no board at board.url, 77 login
    refused, 69 board unreachable, 75 already running)."""
    from forumbot.app import bootstrap
    from forumbot.ops.scheduler import run_forever
    from forumbot.ops.session import OutageWait

    config = load(config_path, validate=True)
    if config.log_format == "json":
        from forumbot.ops.logs import configure_json_logging

        configure_json_logging(logging.INFO)
    from forumbot.ops.logs import label_log_times

    label_log_times(config.timezone)  # the log's times in the board's, like the commands'
    from forumbot.ops.startup import ClockSkewError, check_clock, check_filesystem, quiet_logs

    quiet_logs()
    check_filesystem(config)  # WAL does not work on NFS/CIFS/sshfs: one warning, start goes on
    config.password()  # no password is a configuration error, found before the board is asked
    try:
        check_clock(config, max_skew_s=config.max_clock_skew_s)
    except ClockSkewError as exc:
        raise error("%s", exc) from exc
    bot = bootstrap(config)
    try:
        run_forever(bot, OutageWait(give_up_after_s=give_up_after_s))
    finally:
        bot.close()


def unset_language_note(recorded: str | None, remembered: bool = True) -> str:
    """What ``check`` says when ``board.language`` is not set, in the command's language: the
    staff's command line follows the language the board's pages said (``recorded``, as
    :func:`forumbot.cli._common.board_language` finds it), else English until one is
    recorded (docs/operations.md, "The staff's language"). ``remembered`` False: the pages
    said it but there is no database to keep it in yet (a fresh install: only ``run``
    creates it), so the next commands speak English until then (newcomer 7, #6)."""
    if recorded and not remembered:
        return _(
            "note: board.language is not set: this command speaks the board's language (%s, "
            "from its pages), not remembered yet: the other commands follow it once forumbot "
            'run has created the database (or set board.language = "%s")',
            recorded,
            recorded,
        )
    if recorded:
        return _(
            "note: board.language is not set: the command line speaks the board's language "
            "(%s, from its pages)",
            recorded,
        )
    return _(
        "warning: board.language is not set and the board's language is not recorded yet: "
        'the command line speaks English until then (set board.language = "fr" for a French '
        "board)"
    )


@click.command()
@config_option
def check(config_path: str) -> None:
    """Dry run against the live board: log in, find the duel topics, print the drafts the bot
    would post. Posts nothing and leaves the database unchanged (works on a copy); it keeps
    only the dice seed of each opening it prints (<database>.dice-reserve.json), so that run
    publishes the same dice, and says so. First, a
    quick simulation warns when a configured ruleset's duels often cannot end. Without
    board.language, it speaks the language doctor reads from the board's index page."""
    from forumbot.ops.check import (
        configured_duo_rulesets,
        configured_rulesets,
        dry_run,
        ruleset_warnings,
    )

    config = load(config_path, validate=True)
    said = None
    if not config.board_language:  # as doctor: the recorded language, else the pages' (W3)
        from forumbot.ops.doctor import pages_language

        recorded = board_language(config)
        said = pages_language(config)  # recorded in the database when there is one
        set_language(recorded or said)
        kept = bool(recorded) or board_language(config) is not None
        click.echo(unset_language_note(recorded or said, remembered=kept), err=True)
    rulesets = configured_rulesets(config)
    speak = current_language()
    duo = configured_duo_rulesets(config)
    for line in ruleset_warnings(rulesets, duo_names=duo, language=speak):
        click.echo(line, err=True)
    for line in dry_run(config, language=speak, record_language=said is None):
        click.echo(line)


COMMANDS = (init, run, check)
