"""``leaderboard`` and ``duellists`` (the club's ranking and duellist profiles, issue 4)."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from forumbot.cli._common import CliError, _, actor, config_option, load, storage_for
from forumbot.exit_codes import FAILURE


@click.command("leaderboard")
@config_option
@click.option("--post", "post_now", is_flag=True, help="Also update the bot's leaderboard post.")
@click.option(
    "--kind",
    type=click.Choice(["1v1", "2v2", "classic"]),
    default="1v1",
    show_default=True,
    help="Which table to print (1v1: the club's leaderboard, then the classic duels; 2v2: "
    "purses include the galleons won in duel; classic: the classic duels only).",
)
def leaderboard_cmd(config_path: str, post_now: bool, kind: str = "1v1") -> None:
    """Print the leaderboard (points, wins, purse, frogs; 2v2: also the rewards won from
    creatures and mechanisms), then the finished classic duels in their own table (they give
    no point nor purse); with --post, also post or edit the bot's (1v1) leaderboard post in
    the [leaderboard] topic now."""
    from forumbot.club.leaderboard import render_classic_records, render_leaderboard

    config = load(config_path)
    storage = storage_for(config_path)
    board_id = storage.board_id(config.board_url, config.platform, datetime.now(UTC))
    if kind != "classic":
        text = render_leaderboard(storage, board_id, kind, language=config.language)
        click.echo(text, nl=False)
    if kind in ("1v1", "classic"):
        if kind == "1v1":
            click.echo("")
        text = render_classic_records(storage, board_id, language=config.language)
        click.echo(text, nl=False)
    if not post_now:
        return
    if not config.leaderboard_topic_id:
        raise CliError(_("no leaderboard post: set [leaderboard] topic_id"))
    from forumbot.app import bootstrap
    from forumbot.club.registrations import desk_for

    state = desk_for(bootstrap(config, storage=storage)).refresh_leaderboard()
    click.echo(_("leaderboard post: %s", _(state)))
    if state in ("failed", "unsupported"):
        raise click.exceptions.Exit(FAILURE)


@click.group()
def duellists() -> None:
    """Duellist profiles (year and magic types, changed only by an admin)."""


@duellists.command("set")
@config_option
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
    from forumbot.club.registrations import set_profile
    from forumbot.publish.labels import types_label, year_label
    from forumbot.rulesets import load_ruleset

    config = load(config_path)
    storage = storage_for(config_path)
    now = datetime.now(UTC)
    board_id = storage.board_id(config.board_url, config.platform, now)
    ruleset = config.registrations[0].ruleset if config.registrations else "fatigue"
    profile = set_profile(
        storage,
        board_id,
        name,
        year,
        [t for t in types.split(",") if t.strip()],
        actor(by),
        now,
        player=player,
        ruleset=ruleset,
    )
    rs = load_ruleset(ruleset)
    click.echo(
        f"{profile.character} ({profile.player}): {year_label(profile.year)}, "
        f"magie {types_label(rs, profile.magic_types)}"  # type: ignore[arg-type]
    )


COMMANDS = (leaderboard_cmd, duellists)
