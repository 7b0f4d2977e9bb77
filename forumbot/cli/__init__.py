"""The ``forumbot`` command line: parses arguments and calls the library (nothing more).

One module per group of commands; :class:`~forumbot.cli._common.ForumbotGroup` turns every
library error a command lets through into one line and the exit code of
:mod:`forumbot.exit_codes` (the table is in docs/operations.md). A command's module is
imported only when that command runs, or when ``--help`` lists it (:data:`COMMAND_MODULES`):
``forumbot simulate`` starts without the web app, the scheduler or storage (issue 26).

=================  =========================================================
module             commands
=================  =========================================================
``setup``          init, run, check
``ops``            doctor, backup, restore
``drafts``         drafts (list, show, edit, approve, hold, drop, redraft), duels (list,
                   adopt, cancel, concede)
``corrections``    duels correct (an erratum for a published turn)
``follow``         duels resume (a duel held because its topic is gone)
``web``            web, users (add, password, disable, enable, list), host (clubs,
                   add-admin, add-host-admin)
``club``           leaderboard, duellists (set)
``pages``          parse-page, verify-dice, replay
``demo``           sandbox, demo
``simulate``       simulate (balance tables of a ruleset)
``notify``         notify (list, send: the notices outbox), users notify
``serve``          serve (every club of a folder in one process)
``guide``          guide (the ruleset as a French BBCode post)
=================  =========================================================
"""

from __future__ import annotations

import logging
import os
import sys

import click

from forumbot.cli._common import DEFAULT_CONFIG, ForumbotGroup

COMMAND_MODULES: dict[str, str] = {
    "init": "setup", "run": "setup", "check": "setup",
    "drafts": "drafts", "duels": "drafts",
    "sandbox": "demo", "demo": "demo",
    "doctor": "ops", "backup": "ops", "restore": "ops",
    "web": "web", "users": "web", "host": "web",
    "leaderboard": "club", "duellists": "club",
    "parse-page": "pages", "verify-dice": "pages", "replay": "pages",
    "simulate": "simulate",
    "notify": "notify",
    "serve": "serve",
    "guide": "guide",
}  # fmt: skip
"""Top-level command -> the module of :mod:`forumbot.cli` whose ``COMMANDS`` holds it: the
module is imported only when its command runs (or ``forumbot --help`` lists it), so
``forumbot simulate`` does not import the web app, the scheduler or storage (issue 26:
start-up under 0.5 s). tests/unit/test_cli_lazy.py checks the table against ``COMMANDS``."""

SUBCOMMANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "users": (("notify", "users_notify"),),
    "duels": (("corrections", "duels_correct"), ("follow", "duels_resume")),
}
"""Top-level group -> the (module, attribute) of commands another module adds to it."""

__all__ = ["DEFAULT_CONFIG", "main"]


def _setup_logging(verbose: bool) -> None:
    from forumbot.ops.logs import TEXT_FORMAT, label_log_times

    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO, format=TEXT_FORMAT, stream=sys.stderr
    )
    label_log_times("UTC")  # labelled; `forumbot run` moves them to the board's timezone
    if os.environ.get("FORUMBOT_LOG_FORMAT") == "json":
        from forumbot.ops.logs import configure_json_logging

        configure_json_logging(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    from forumbot.ops.startup import quiet_logs

    quiet_logs()  # no cookie or session id in the logs, even with -v


@click.group(
    cls=ForumbotGroup, lazy_commands=COMMAND_MODULES, lazy_subcommands=SUBCOMMANDS
)
@click.option("-v", "--verbose", is_flag=True, help="Debug logging.")
@click.version_option(package_name="forumbot")
def main(verbose: bool) -> None:
    """forumbot referees role-play wizard duels on phpBB and Forumactif boards."""
    _setup_logging(verbose)
