"""``sandbox`` and ``demo``: the test board on 127.0.0.1 and scripted duels on it."""

from __future__ import annotations

import click

from forumbot.cli._common import CliError, _, error


@click.command()
@click.option("--port", default=8080, show_default=True)
@click.option("--platform", type=click.Choice(["phpbb3", "forumactif"]), default="phpbb3")
def sandbox(port: int, platform: str) -> None:
    """Serve the sandbox board on 127.0.0.1 (a test double of the real board)."""
    from forumbot.demo.classic import serve_sandbox

    serve_sandbox(port, platform)


@click.command()
@click.option("--platform", type=click.Choice(["phpbb3", "forumactif"]), default="phpbb3")
@click.option("--seed", default=7, show_default=True, help="Seed of the scripted duellists.")
@click.option(
    "--kind",
    type=click.Choice(["classic", "2v2", "fatigue"]),
    default="classic",
    show_default=True,
    help="classic: a one-against-one classic duel; 2v2: two duos in a fatigue duel with zones; "
    "fatigue: the club's fatigue 1v1 season, from the sign-ups to the leaderboard.",
)
def demo(platform: str, seed: int, kind: str) -> None:
    """Start the sandbox, let two scripted duellists play a classic duel, referee it
    (review delay 0) until a winner; prints each declaration and the winner. With --kind 2v2,
    four scripted duellists play a two-against-two fatigue duel; the end also prints the zone
    owls sent and the verify-dice check of the topic. With --kind fatigue, players sign up,
    the bot pairs them, referees their fatigue 1v1 duel and gives the rewards."""
    if kind == "fatigue":
        from forumbot.demo.season import run_season_demo

        try:
            season = run_season_demo(platform=platform, seed=seed, echo=click.echo)
        except RuntimeError as exc:
            raise error("%s", exc) from exc
        if season.winner is None:
            raise CliError(_("the fatigue season demo ended without a winner"))
        return
    if kind == "2v2":
        from forumbot.demo.duo import run_duo_demo

        try:
            duo = run_duo_demo(platform=platform, seed=seed, echo=click.echo)
        except RuntimeError as exc:  # the demo's own "did not finish" report
            raise error("%s", exc) from exc
        if not duo.winners and not duo.draw:
            raise CliError(_("the 2v2 demo ended without a winner"))
        if duo.verify is None or not duo.verify.ok:
            raise CliError(_("verify-dice found a problem in the 2v2 demo's topic"))
        return
    from forumbot.demo.classic import run_demo

    result = run_demo(platform=platform, seed=seed, echo=click.echo)
    if result.winner is None and not result.draw:
        raise CliError(_("the demo ended without a winner"))


COMMANDS = (sandbox, demo)
