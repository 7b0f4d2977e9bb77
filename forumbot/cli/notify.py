"""``forumbot users notify`` and ``forumbot notify``: notice settings and the outbox (issue 18).

Commands:

- ``forumbot users notify NAME [--channels owl,apprise] [--quiet 22:00-07:30]
  [--forum-name "Rita Skeeter"]``: show, or change, a person's channels, quiet hours (board
  timezone; ``--quiet -`` removes them) and the forum account their owls go to;
- ``forumbot notify list [--status pending]``: the notices outbox;
- ``forumbot notify send``: one pass (scan, then send; logs in to the board); ``forumbot run``
  runs the same pass on its own schedule.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from forumbot.cli._common import _, config_option, load, ngettext
from forumbot.i18n import N_

_config_opt = config_option
_load = load


@click.command("notify")
@_config_opt
@click.argument("name")
@click.option("--channels", help="Comma-separated: owl, apprise (empty: none).")
@click.option("--quiet", help='Quiet hours "HH:MM-HH:MM" in the board\'s timezone; "-": none.')
@click.option("--forum-name", help="The board account that receives NAME's owls.")
@click.option("--by", default=None, help="Who makes the change (audit log; default $USER).")
def users_notify(
    config_path: str,
    name: str,
    channels: str | None,
    quiet: str | None,
    forum_name: str | None,
    by: str | None,
) -> None:
    """Show NAME's notice settings, or change them with the options given."""
    import os

    from forumbot.notify.settings import (
        notify_config,
        person_settings,
        set_person_settings,
    )
    from forumbot.storage import open_storage

    config = _load(config_path)
    cfg = notify_config(config)
    storage = open_storage(config.database)
    try:
        if channels is None and quiet is None and forum_name is None:
            settings = person_settings(storage, name, cfg)
        else:
            wanted = None
            if channels is not None:
                wanted = tuple(c.strip() for c in channels.split(",") if c.strip())
            settings = set_person_settings(
                storage,
                name,
                by or os.environ.get("USER") or "admin",
                datetime.now(UTC),
                channels=wanted,
                quiet=quiet,
                forum_name=forum_name,
                cfg=cfg,
            )
    finally:
        storage.close()
    click.echo(
        _(
            "%s\tchannels=%s\tquiet=%s (%s)\tforum=%s",
            settings.username,
            ",".join(settings.channels) or "-",
            settings.quiet_text or "-",
            cfg.timezone,
            settings.forum_name,
        )  # fmt: skip
    )


@click.group("notify")
def notify_group() -> None:
    """Notices to referees and admins (owls, Apprise)."""


NOTICE_WORDS = {
    # the outbox's statuses, kinds and targets, as ``notify list`` prints them (``_``)
    "status": (N_("pending"), N_("batched"), N_("sending"), N_("sent"), N_("dropped")),
    "kind": (
        N_("draft_waiting"), N_("draft_held"), N_("draft_claimed"), N_("violation_waiting"),
        N_("task_opened"), N_("draft_published"),
    ),
    "target": (N_("declaration %s"), N_("violation %s"), N_("referee_task %s")),
}  # fmt: skip
"""Listed for ``pybabel extract``; in English the columns are the outbox's own keys."""


def _target(target: str) -> str:
    """``declaration:5`` as printed: itself in English, « déclaration 5 » in French (a
    target of an unknown kind stays as it is)."""
    kind, _colon, number = str(target).partition(":")
    template = f"{kind} %s"
    if template not in NOTICE_WORDS["target"] or not number:
        return str(target)
    english = _(template, number)
    return str(target) if english == template % number else english


@notify_group.command("list")
@_config_opt
@click.option("--status", default=None, help="pending, batched, sending, sent, failed, dropped")
def notify_list(config_path: str, status: str | None) -> None:
    """The notices outbox, oldest first."""
    from forumbot.notify.outbox import notices
    from forumbot.storage import open_storage

    storage = open_storage(_load(config_path).database)
    try:
        for n in notices(storage, status):
            state, kind = n["status"], n["kind"]
            click.echo(
                f"{n['id']}\t{_(state)}\t{n['channel']}\t{n['recipient']}\t"
                f"{_(kind)}\t{_target(n['target'])}\t{n['sent_at'] or n['created_at']}"
            )
    finally:
        storage.close()


@notify_group.command("send")
@_config_opt
def notify_send(config_path: str) -> None:
    """One notify pass now: queue what waits, send what is due (logs in to the board)."""
    from forumbot.app import bootstrap

    bot = bootstrap(_load(config_path))
    try:
        sent = bot.wired_notify().run()
    finally:
        bot.close()
    click.echo(ngettext("%s notice sent", "%s notices sent", len(sent), len(sent)))


COMMANDS = (notify_group,)
"""``users notify`` is attached to the ``users`` group by :mod:`forumbot.cli`."""

__all__ = ["COMMANDS", "notify_group", "users_notify"]
