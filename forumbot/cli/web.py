"""``web`` (the review page) and ``users`` (its accounts)."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import click

from forumbot.cli._common import _, config_option, error, load, storage_for


@click.command()
@config_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@click.option(
    "--uds",
    default="",
    help="Listen on this Unix socket instead of host:port (default: web.socket); the "
    "documented deploy, behind the proxy (deploy/README.md).",
)
@click.option(
    "--publish-now/--no-publish-now",
    default=False,
    show_default=True,
    help="Let 'publish now' post at once (the web process logs in to the board).",
)
def web(config_path: str, host: str, port: int, uds: str, publish_now: bool) -> None:
    """Serve the review page: referees change drafts, admins judge violations."""
    from forumbot.ops.startup import ClockSkewError, check_clock
    from forumbot.web.serve import serve

    config = load(config_path)
    try:
        check_clock(config, max_skew_s=config.max_clock_skew_s)
        if publish_now:
            config.password()  # --publish-now logs in to the board: fail now, not on a click
        serve(config, host, port, publish_now, uds=uds)
    except (ValueError, ClockSkewError) as exc:  # serve's refusals (e.g. no secret key)
        raise error("%s", exc) from exc


@click.group()
def users() -> None:
    """Accounts of the review page."""


def _read_password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(click.prompt("Password", hide_input=True, confirmation_prompt=True))


@users.command("add")
@config_option
@click.argument("name")
@click.option("--role", type=click.Choice(["referee", "admin"]), required=True)
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def users_add(config_path: str, name: str, role: str, password_stdin: bool) -> None:
    """Create an account NAME with a password (asked for, or read from standard input)."""
    from forumbot.web.users import add_user

    password = _read_password(password_stdin)
    user = add_user(storage_for(config_path), name, password, role, datetime.now(UTC))
    click.echo(_("user %s added (%s)", user.username, _(user.role)))


@users.command("password")
@config_option
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def users_password(config_path: str, name: str, password_stdin: bool) -> None:
    """Change NAME's password (asked for, or read from standard input); the account's open
    sessions end."""
    from forumbot.web.users import set_password

    set_password(storage_for(config_path), name, _read_password(password_stdin), datetime.now(UTC))
    click.echo(_("password of %s changed", name))


def _set_disabled(config_path: str, name: str, disabled: bool) -> None:
    from forumbot.web.users import set_disabled

    user = set_disabled(storage_for(config_path), name, disabled, datetime.now(UTC))
    done = _("user %s disabled", user.username) if disabled else None
    click.echo(done or _("user %s enabled", user.username))


@users.command("disable")
@config_option
@click.argument("name")
def users_disable(config_path: str, name: str) -> None:
    """Disable NAME: no more logins, open sessions end (the account and its audit trail are
    kept; `users enable` gives it back)."""
    _set_disabled(config_path, name, True)


@users.command("enable")
@config_option
@click.argument("name")
def users_enable(config_path: str, name: str) -> None:
    """Enable NAME again after `users disable`."""
    _set_disabled(config_path, name, False)


@users.command("list")
@config_option
def users_list(config_path: str) -> None:
    """Accounts, tab-separated under a header: name, role, status (enabled / disabled) and
    the duels each referee reviews (admins: all)."""
    from forumbot.web.users import list_accounts, refereed_duels

    storage = storage_for(config_path)
    accounts = list_accounts(storage)
    if not accounts:
        click.echo(_("no account yet: forumbot users add NAME --role admin"))
        return
    click.echo("\t".join((_("name"), _("role"), _("status"), _("duels"))))
    for account in accounts:
        user = account.user
        duels = ", ".join(str(d) for d in sorted(refereed_duels(storage, user.username)))
        status = _("disabled") if account.disabled else _("enabled")
        shown = _("all") if user.is_admin else duels or "-"
        click.echo(f"{user.username}\t{_(user.role)}\t{status}\t{shown}")


COMMANDS = (web, users)
