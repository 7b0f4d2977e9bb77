"""The ``forumbot`` command line: parses arguments and calls the library (nothing more).

One module per group of commands; :class:`~forumbot.cli._common.ForumbotGroup` turns every
library error a command lets through into one line and the exit code of
:mod:`forumbot.exit_codes` (the table is in docs/operations.md).

=================  =========================================================
module             commands
=================  =========================================================
``setup``          init, run, check
``ops``            doctor, backup, restore
``drafts``         drafts (list, show, edit, approve, hold, drop, redraft), duels (list,
                   adopt, cancel, concede)
``corrections``    duels correct (an erratum for a published turn)
``follow``         duels resume (a duel held because its topic is gone)
``web``            web, users (add, password, disable, enable, list)
``club``           leaderboard, duellists (set)
``pages``          parse-page, verify-dice, replay
``demo``           sandbox, demo
``simulate``       simulate (balance tables of a ruleset)
``notify``         notify (list, send: the notices outbox), users notify
``serve``          serve (every club of a folder in one process)
=================  =========================================================
"""

from __future__ import annotations

import logging
import os
import sys

import click

from forumbot.cli import (
    club,
    corrections,
    demo,
    drafts,
    follow,
    notify,
    ops,
    pages,
    serve,
    setup,
    simulate,
    web,
)
from forumbot.cli._common import DEFAULT_CONFIG, ForumbotGroup

__all__ = ["DEFAULT_CONFIG", "main"]


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if os.environ.get("FORUMBOT_LOG_FORMAT") == "json":
        from forumbot.ops.logs import configure_json_logging

        configure_json_logging(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    from forumbot.ops.startup import quiet_logs

    quiet_logs()  # no cookie or session id in the logs, even with -v


@click.group(cls=ForumbotGroup)
@click.option("-v", "--verbose", is_flag=True, help="Debug logging.")
@click.version_option(package_name="forumbot")
def main(verbose: bool) -> None:
    """forumbot referees role-play wizard duels on phpBB and Forumactif boards."""
    _setup_logging(verbose)


for _module in (setup, drafts, demo, ops, web, club, pages, simulate, notify, serve):
    for _command in _module.COMMANDS:
        main.add_command(_command)
web.users.add_command(notify.users_notify)
drafts.duels.add_command(corrections.duels_correct)
drafts.duels.add_command(follow.duels_resume)
