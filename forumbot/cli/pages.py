"""Commands on saved or fetched pages, without a configuration: ``parse-page``,
``verify-dice`` and ``replay``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn

import click

from forumbot.cli._common import CliError, _, error
from forumbot.exit_codes import BOARD_UNREACHABLE, FAILURE
from parsers.model import TopicPage

_platform_option = click.option(
    "--platform", type=click.Choice(["auto", "phpbb3", "forumactif"]), default="auto"
)


@click.command("parse-page")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--platform",
    type=click.Choice(["auto", "phpbb3", "forumactif"]),
    default="auto",
    show_default=True,
)
@click.option("--ruleset", default="classic", show_default=True, help="Spellbook to match.")
@click.option("--now", "now_iso", default=None, help="ISO datetime for relative dates.")
@click.option("--timezone", default="Europe/Paris", show_default=True)
def parse_page_cmd(
    file: str, platform: str, ruleset: str, now_iso: str | None, timezone: str
) -> None:
    """Print one JSON object with the page's facts and posts (the public JSON contract)."""
    from forumbot.rulesets import load_ruleset
    from parsers.contract import page_to_json, parse_page
    from parsers.detect import detect_platform
    from rules.errors import RuleError

    try:
        now = datetime.fromisoformat(now_iso) if now_iso else datetime.now(UTC)
    except ValueError as exc:
        raise click.BadParameter(f"not an ISO datetime: {now_iso!r}", param_hint="--now") from exc
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    try:
        spellbook = load_ruleset(ruleset).spellbook_names()
    except (OSError, ValueError, RuleError) as exc:
        raise click.BadParameter(f"no ruleset {ruleset!r} ({exc})", param_hint="--ruleset") from exc
    data = Path(file).read_bytes()
    if platform != "auto":
        seen = detect_platform(data, file)
        if seen != platform:
            raise CliError(_("%s: this is a %s page, not %s", file, seen, platform))
    page = parse_page(data, platform, source=file, now=now, timezone=timezone)
    click.echo(json.dumps(page_to_json(page, spellbook), ensure_ascii=False, indent=2))


@click.command("verify-dice")
@click.argument("sources", nargs=-1, required=True)
@_platform_option
@click.option(
    "--bot",
    "bot_name",
    default=None,
    help="The bot's account name (default: the author of the opening declaration).",
)
def verify_dice(sources: tuple[str, ...], platform: str, bot_name: str | None) -> None:
    """Recompute every bot roll of a duel from its pages alone (saved files, or the topic's
    URL on a phpBB or Forumactif board: every page is fetched). Its output is in French, for
    players. Exits 0 when everything matches, and on a duel still running (nothing to check
    yet: it says how many rolls the end will make checkable); 1 when anything does not match
    or a page is not a duel topic; 69 when the board does not answer."""
    from forumbot.duels.verify import format_report, verify_pages

    pages = [page for source in sources for page in _verify_pages_of(source, platform)]
    report = verify_pages(pages, bot=bot_name)
    for line in format_report(report):
        click.echo(line)
    if report.failed:
        raise click.exceptions.Exit(FAILURE)


def _verify_pages_of(source: str, platform: str) -> list[TopicPage]:
    """The parsed pages of one ``verify-dice`` source (a URL: every page of its topic; else a
    saved file). Any failure to read them ends the command with one French line on standard
    error (:func:`_fail`), never a traceback."""
    import httpx

    from forumbot.fetch import fetch_topic_pages
    from parsers.contract import parse_page
    from parsers.errors import ParseError

    try:
        if source.startswith(("http://", "https://")):
            return fetch_topic_pages(source)
        data = Path(source).read_bytes()
        return [parse_page(data, platform, source=source, now=datetime.now(UTC))]
    except httpx.HTTPStatusError as exc:
        status = exc.response.status_code
        if status in (404, 410):
            _fail(f"{source} : ce sujet n'existe pas (HTTP {status})", FAILURE)
        if status in (401, 403):
            _fail(f"{source} : ce sujet n'est pas public (HTTP {status})", FAILURE)
        if status >= 500:
            _fail(
                f"{source} : le forum ne répond pas (HTTP {status}) ; réessayez plus tard",
                BOARD_UNREACHABLE,
            )
        _fail(f"{source} : le forum refuse la page (HTTP {status})", FAILURE)
    except httpx.ConnectError as exc:
        host = exc.request.url.host if exc.request is not None else source
        unknown = "Name or service not known" in str(exc) or "nodename nor servname" in str(exc)
        _fail(
            f"{source} : "
            + (f"hôte inconnu ({host})" if unknown else f"le forum ne répond pas ({host})"),
            BOARD_UNREACHABLE,
        )
    except httpx.TimeoutException:
        _fail(f"{source} : le forum ne répond pas (délai dépassé)", BOARD_UNREACHABLE)
    except httpx.HTTPError as exc:
        _fail(f"{source} : lecture impossible ({type(exc).__name__})", BOARD_UNREACHABLE)
    except ParseError:
        _fail(f"{source} : ce n'est pas une page de sujet phpBB ou Forumactif", FAILURE)
    except OSError as exc:
        _fail(f"{source} : fichier illisible ({exc.strerror or exc})", FAILURE)


def _fail(message: str, code: int) -> NoReturn:
    """One French line on standard error (``verify-dice : ...``) and exit ``code``."""
    click.echo(f"verify-dice : {message}", err=True)
    raise click.exceptions.Exit(code)


@click.command("replay")
@click.argument("saved_pages", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--ruleset", default="fatigue", show_default=True, help="fatigue, classic or a TOML file."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON array of the declarations.")
@click.option(
    "--duellist",
    "duellists",
    multiple=True,
    metavar="NAME:YEAR[:TYPES]",
    help="Duellist (default: read from the first post); fatigue types like brutale,discrete.",
)
@_platform_option
def replay(
    saved_pages: tuple[str, ...],
    ruleset: str,
    as_json: bool,
    duellists: tuple[str, ...],
    platform: str,
) -> None:
    """Referee a saved duel offline (the bot's own past declarations ignored) and print every
    declaration it would have drafted. Nothing is posted anywhere."""
    from forumbot.duels.replay import format_replay, parse_duellist_option, replay_pages
    from parsers.contract import parse_page

    try:
        chosen = [parse_duellist_option(d) for d in duellists]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--duellist") from exc
    pages = [
        parse_page(Path(p).read_bytes(), platform, source=p, now=datetime.now(UTC))
        for p in saved_pages
    ]
    try:
        result = replay_pages(pages, ruleset=ruleset, duellists=chosen)
    except ValueError as exc:  # replay's refusals (no duellists found, unknown ruleset)
        raise error("%s", exc) from exc
    if as_json:
        click.echo(json.dumps([d.to_dict() for d in result], ensure_ascii=False, indent=2))
    else:
        click.echo(format_replay(result))


COMMANDS = (parse_page_cmd, verify_dice, replay)
