"""``web`` (the review page), ``users`` (its accounts) and ``host`` (the host of many clubs:
its admins, the clubs, their first admins)."""

from __future__ import annotations

import shlex
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from forumbot.cli._common import _, config_option, error, load, storage_for

if TYPE_CHECKING:
    from forumbot.web.host import ClubFolder


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
@click.option(
    "--boards",
    "boards_dir",
    default="",
    type=click.Path(file_okay=False),
    help="Serve every club of this folder (the one `forumbot serve --boards` runs) under "
    "/c/<club>/ and the host's page under /host/; -c is then not read.",
)
@click.option(
    "--host-db",
    default="",
    help="With --boards: the host database (the host admins' accounts), a path or a "
    "storage.url [default: host.db in the folder].",
)
@click.option(
    "--https-only",
    is_flag=True,
    help="With --boards: Secure cookies and HSTS for every club (web.https_only of one club).",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    help="With --boards: an address, network or 'unix' whose X-Forwarded-For is believed "
    "(web.trusted_proxies of one club); repeat for several.",
)
def web(
    config_path: str,
    host: str,
    port: int,
    uds: str,
    publish_now: bool,
    boards_dir: str,
    host_db: str,
    https_only: bool,
    trusted_proxies: tuple[str, ...],
) -> None:
    """Serve the review page: referees change drafts, admins judge violations."""
    from forumbot.ops.startup import ClockSkewError, check_clock
    from forumbot.web.serve import serve, serve_boards

    if boards_dir:
        if publish_now:
            raise error(
                "--publish-now is for one club: with --boards, approved drafts go out "
                "at forumbot serve's next pass"
            )
        try:
            serve_boards(boards_dir, host_db, host, port, uds, https_only, trusted_proxies)
        except ValueError as exc:
            raise error("%s", exc) from exc
        return
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
    return str(
        click.prompt(
            _("Password"), hide_input=True, confirmation_prompt=_("Repeat for confirmation")
        )
    )


def _say_added(user: Any, config_path: str) -> None:
    """Print that account ``user`` (a :class:`forumbot.web.users.User`) was added, and the
    board account its owls go to: its name, which the board was not asked about (newcomer
    check s4, W7), and how to name another one: the command to type, with ``-c`` and the
    club's file (``config_path``; newcomer5 C8: without it, the command read another club's
    ./forumbot.toml)."""
    click.echo(_("user %s added (%s)", user.username, _(user.role)))
    click.echo(
        _(
            "owls to %s go to the board account '%s' (not checked on the board); if that is "
            "not their board account: forumbot users notify %s --forum-name \"BOARD NAME\" "
            "-c %s",
            user.username, user.username, user.username, shlex.quote(config_path),
        )  # fmt: skip
    )


@users.command("add")
@config_option
@click.argument("name")
@click.option("--role", type=click.Choice(["referee", "admin"]), required=True)
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def users_add(config_path: str, name: str, role: str, password_stdin: bool) -> None:
    """Create an account NAME with a password (asked for, or read from standard input). Its
    owls go to the board account NAME until ``users notify NAME --forum-name`` says another
    (printed, as the board is not asked)."""
    from forumbot.web.users import add_user, check_new_account

    storage = storage_for(config_path)
    check_new_account(storage, name, role)  # refused before the password (newcomer5 C8)
    password = _read_password(password_stdin)
    user = add_user(storage, name, password, role, datetime.now(UTC))
    _say_added(user, config_path)


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


boards_option = click.option(
    "--boards",
    "boards_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="The folder of club files (the one `forumbot serve --boards` and `forumbot web "
    "--boards` read).",
)
host_db_option = click.option(
    "--host-db",
    default="",
    help="The host database, a path or a storage.url [default: host.db in the folder].",
)


@click.group("host")
def host_group() -> None:
    """The host of many clubs (`forumbot web --boards`): its admins, the clubs, and each
    club's first admin."""


def _club_folder(boards_dir: str) -> ClubFolder:
    from forumbot.ops.boards_dir import club_paths
    from forumbot.web.host import ClubFolder

    club_paths(boards_dir)  # not a folder: refused (ConfigError), not an empty list
    return ClubFolder(boards_dir, None)


@host_group.command("clubs")
@boards_option
def host_clubs(boards_dir: str) -> None:
    """The clubs of the folder, tab-separated under a header: name, status (served, or
    refused with why), accounts, enabled admins."""
    folder = _club_folder(boards_dir)
    try:
        summaries = folder.summaries()
    finally:
        folder.close()
    if not summaries:
        click.echo(_("no club file in %s yet", boards_dir))
        return
    click.echo("\t".join((_("club"), _("status"), _("accounts"), _("admins"))))
    for club in summaries:
        status = _("refused: %s", club.error) if club.error else _("served")
        admins = ", ".join(club.admins) or "-"
        click.echo(f"{club.name}\t{status}\t{club.accounts}\t{admins}")


@host_group.command("add-admin")
@boards_option
@click.argument("club")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def host_add_admin(boards_dir: str, club: str, name: str, password_stdin: bool) -> None:
    """Create CLUB's first admin NAME (refused once CLUB has an enabled admin: its admins
    create its other accounts with `forumbot users add -c` on its file)."""
    from forumbot.web.users import add_first_admin, check_first_admin

    folder = _club_folder(boards_dir)
    try:
        served = folder.served(club)
        if served is None or served.storage is None:
            known = folder.clubs.get(club)
            why = known.error if known is not None and known.error else _("no such club file")
            raise error("club %s: %s", club, why)
        check_first_admin(served.storage, name)  # refused before the password (C8)
        password = _read_password(password_stdin)
        user = add_first_admin(served.storage, name, password, datetime.now(UTC), "host")
        path = str(served.path)
    finally:
        folder.close()
    _say_added(user, path)


@host_group.command("add-host-admin")
@boards_option
@host_db_option
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def host_add_host_admin(boards_dir: str, host_db: str, name: str, password_stdin: bool) -> None:
    """Create a host admin NAME in the host database: they log in on /host/, see the clubs
    and create each club's first admin, and see no club's duels."""
    from forumbot.storage import open_storage
    from forumbot.web.serve import host_database
    from forumbot.web.users import add_user

    storage = open_storage(host_database(boards_dir, host_db))
    try:
        storage.web_rows.migrate()
        user = add_user(storage, name, _read_password(password_stdin), "admin", datetime.now(UTC))
    finally:
        storage.close()
    click.echo(_("host admin %s added", user.username))


COMMANDS = (web, users, host_group)
