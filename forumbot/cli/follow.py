"""``duels resume``: a referee's way out for a duel held because its topic is gone or
unreadable (:mod:`forumbot.duels.follow`). Registered on the ``duels`` group of
:mod:`forumbot.cli.drafts` by :mod:`forumbot.cli`."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from forumbot.cli._common import _, actor, config_option, error, ngettext, storage_for
from forumbot.cli.drafts import _duel_of_topic


@click.command("resume")
@config_option
@click.argument("topic_id", type=int)
@click.option("--by", default=None, help="Who resumes it (audit log); default $USER.")
def duels_resume(config_path: str, topic_id: int, by: str | None) -> None:
    """Resume the duel of TOPIC_ID, held because its topic was gone or unreadable (deleted,
    or moved to a forum the bot may not read): once the topic is back where the bot can
    read it, the next poll of ``forumbot run`` reads it again (and holds it again if it is
    still gone). Its pending deadlines restart from now (the players are not charged for
    the time it was held); the drafts the hold held go back to review. To end it instead:
    ``forumbot duels cancel``."""
    from forumbot.duels.follow import FollowError, resume_duel

    storage = storage_for(config_path)
    duel = _duel_of_topic(storage, topic_id)
    try:
        done = resume_duel(storage, int(duel["id"]), actor(by), datetime.now(UTC))
    except FollowError as exc:
        raise error("%s", exc) from exc
    click.echo(
        _(
            "duel %s (topic %s): resumed; read again at the next poll; %s, %s, %s",
            done.duel_id, topic_id,
            ngettext("%s deadline restarted from now", "%s deadlines restarted from now",
                     len(done.deadlines), len(done.deadlines)),
            ngettext("%s draft back to review", "%s drafts back to review",
                     len(done.drafts), len(done.drafts)),
            ngettext("%s task closed", "%s tasks closed", len(done.tasks), len(done.tasks)),
        )  # fmt: skip
    )


COMMANDS: tuple[click.Command, ...] = ()
"""Nothing at the top level: :func:`duels_resume` joins the ``duels`` group."""
