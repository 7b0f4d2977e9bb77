"""``forumbot guide``: the players' guide post rendered from a ruleset file (issue 25,
:mod:`forumbot.publish.guide`); printed, or posted once to a topic with ``--post``."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from forumbot.cli._common import CliError, _, config_option, error, load


@click.command("guide")
@config_option
@click.option(
    "--ruleset", "name", default=None,
    help="classic, fatigue, duo or a ruleset file [default: the board's ruleset].",
)  # fmt: skip
@click.option("--post", "topic_id", type=int, default=None, help="Post it to this topic.")
def guide(config_path: str, name: str | None, topic_id: int | None) -> None:
    """Render the ruleset as a French BBCode post for players: allowed spells (effects,
    levels, years), bets, the post format with an example, deadlines. Without --post it is
    printed; with --post TOPIC it is posted there exactly once (marker, club posts' path:
    running it again posts nothing new)."""
    from forumbot.publish.guide import GuideError, render_guide

    config = load(config_path)
    wanted = name or config.ruleset
    try:
        text = render_guide(wanted, config.language, config.platform)
    except (GuideError, FileNotFoundError, ValueError) as exc:
        raise error("guide of %s: %s", repr(wanted), exc) from exc
    if topic_id is None:
        click.echo(text, nl=False)
        return
    _post(config_path, wanted, topic_id, text)


def _post(config_path: str, name: str, topic_id: int, text: str) -> None:
    from forumbot.app import bootstrap
    from forumbot.club.posts import club_post, draft_club_post, publish_club_post
    from forumbot.publish.guide import guide_key

    bot = bootstrap(load(config_path, validate=True))
    try:
        board_id = bot.referee.board_id
        key = guide_key(board_id, name, topic_id)
        draft_club_post(bot.storage, board_id, key, "guide", topic_id, text, datetime.now(UTC))
        row = club_post(bot.storage, key)
        assert row is not None
        if row["status"] == "published":
            click.echo(_("guide already posted in topic %s (post %s)", topic_id, row["post_id"]))
            return
        post_id = publish_club_post(bot.storage, bot.client, row, lambda: datetime.now(UTC))
    finally:
        bot.close()
    if post_id is None:
        raise CliError(
            _("guide not posted in topic %s (claimed elsewhere); try again", topic_id)
        )
    click.echo(_("guide posted in topic %s (post %s)", topic_id, post_id))


COMMANDS = (guide,)
