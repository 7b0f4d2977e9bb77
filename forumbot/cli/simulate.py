"""``forumbot simulate``: balance tables of a ruleset (issue 17), from the pure simulator.

Listed in :data:`forumbot.cli.COMMAND_MODULES`: imported only when ``forumbot simulate`` runs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import click

from forumbot import exit_codes
from forumbot.cli._common import LibraryText, _, config_option, current_language, error
from forumbot.i18n import N_
from rules import ruleset_path
from rules.balance import POLICIES, Policy, csv_text, simulate_magic_types, text_table
from rules.balance import simulate as run_simulation
from rules.balance.render import Count
from rules.balance.simulate import Table
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset, parse_any_ruleset
from rules.ruleset import Ruleset

MAX_DUELS = 1_000_000
"""Default of ``--max-duels``: the most duels one ``simulate`` plays (issue 24 F14; 60,000
classic duels took about 2 minutes on a busy 2-core machine, so a million about half an hour)."""

MAX_DUELS_CEILING = 100_000_000
"""The highest ``--max-duels`` accepted."""

ESTIMATE_FROM = 50_000
"""From this many duels, ``simulate`` times a small sample first and prints an estimate."""


def ruleset_file_for(name: str, option: str = "--ruleset") -> Path:
    """The file of ruleset ``name``: an existing file as given, else the shipped ruleset of
    that name (``fatigue`` -> ``rules/data/fatigue.toml``, as ``club.ruleset`` reads it).

    Raises:
        CliError: neither a file nor a shipped ruleset (exit 2, in the command's language;
            ``option``: the option that named it, ``--ruleset`` or ``--compare``)."""
    given = Path(name)
    if given.is_file():
        return given
    try:
        shipped = ruleset_path(name)
    except RuleError:
        shipped = None
    if shipped is None or not shipped.is_file():
        raise error(
            "%s %s: neither a file nor a shipped ruleset (classic, fatigue, duo)",
            option, name, code=exit_codes.USAGE,
        )  # fmt: skip
    return shipped


Play = Callable[..., Table]
"""``play(duels=N, rng=...)`` -> the table of one ruleset (1v1, magic types or 2v2)."""


def _estimate_s(play: Play, duels: int) -> float:
    """Seconds ``duels`` duels of ``play`` should take, from a timed sample of 20 duels per
    cell (wall clock: only for the message, never for the table)."""

    for cells in range(1, 401):  # the smallest run: one duel per cell (pair of years)
        try:
            play(duels=cells, rng=random.Random(0))
        except RuleError:
            continue
        break
    sample = cells * 20
    start = time.perf_counter()
    play(duels=sample, rng=random.Random(0))
    return (time.perf_counter() - start) / sample * duels


POLICY_CHOICES: dict[str, tuple[Policy, ...]] = {
    "mixed": POLICIES,
    "greedy": ("greedy",),
    "random": ("random",),
}
"""``--policy``: the policies each duellist's is drawn from (``mixed``: random legal and
greedy, one drawn per duellist and duel)."""


GREEDY_NOTE = N_(
    "greedy duellists only: a cast cannot miss and a greedy defender casts back, so no die "
    "decides a duel; who wins follows PV, spells known, magic types and the order of posts "
    "(the stronger side's losses of --policy mixed come from its own random duellists, not "
    "from the weaker side's dodges)"
)
"""The CLI's note under a table of greedy duellists only (issue 26: a caption when a table
means little; docs/balance.md, "Why greedy-only 2v2 duels always go to the stronger duo",
measures where the upsets of mixed play come from)."""


def _player(
    text: str,
    duo: bool,
    magic_types: bool,
    environments: tuple[str, ...],
    policy: str | None = None,
) -> tuple[Ruleset, Play]:
    """The ruleset a ``--ruleset`` file's ``text`` gives and how to play its table: a 2v2
    settings file (``duo.toml``) plays 2v2 duels of the shipped fatigue spellbook, a fatigue
    ruleset with ``--2v2`` plays 2v2 duels of that spellbook (the shipped 2v2 settings);
    otherwise 1v1 duels (``--magic-types``: magic type against magic type). ``policy`` (a
    :data:`POLICY_CHOICES` key): None plays mixed duellists (1v1 and 2v2, issue 26: a
    greedy-only 2v2 table always goes to the stronger duo, no die deciding).

    Raises:
        CliError: ``--magic-types`` or ``--2v2`` without a fatigue ruleset, or both (exit 2).
        RuleError, OSError: a file that does not load."""
    from forumbot.rulesets import is_duo_settings, load_duo_inputs, load_ruleset

    settings_file = None
    if is_duo_settings(text):
        settings_file, rs = text, load_ruleset("fatigue")
    else:
        rs = parse_any_ruleset(text)
    if settings_file is not None or duo:
        if not isinstance(rs, FatigueRuleset):
            raise error("2v2 duels need a fatigue ruleset", code=exit_codes.USAGE)
        if magic_types:
            raise error("--magic-types plays 1v1 duels, not 2v2", code=exit_codes.USAGE)
        settings, envs = load_duo_inputs(None, environments)
        if settings_file is not None:
            from rules.duo import load_duo_settings

            settings = load_duo_settings(settings_file)
        pols = POLICY_CHOICES[policy or "mixed"]
        from rules.balance.duo import simulate_duo  # 2v2 only: 1v1 runs never import it

        return rs, partial(simulate_duo, rs, envs, settings, policies=pols)
    pols = POLICY_CHOICES[policy or "mixed"]
    if magic_types:
        if not isinstance(rs, FatigueRuleset):
            raise error("--magic-types needs a fatigue ruleset", code=exit_codes.USAGE)
        return rs, partial(simulate_magic_types, rs, policies=pols)
    return rs, partial(run_simulation, rs, policies=pols)


def _duration(seconds: float) -> str:
    """``seconds`` in its largest unit, three figures (« 9.25 min », « 9,25 min » in French)."""
    from forumbot.i18n import figures

    units = ((N_("%s years"), 365 * 86400.0), (N_("%s days"), 86400.0), ("%s h", 3600.0))
    for unit, size in (*units, ("%s min", 60.0)):
        if seconds >= size:
            return _(unit, *figures(current_language(), (f"{seconds / size:.3g}",)))
    return f"{seconds:.0f} s"


def grouped(speak: str, values: tuple[object, ...]) -> tuple[object, ...]:
    """``values`` with each :class:`rules.balance.render.Count` (a count of duels, never an
    option's value) written with French thousands in French (« 10\u202f000 »: a narrow
    no-break space, as the posts' « 53\u202f% »; newcomer 7 #12), as it is otherwise."""
    if speak != "fr":
        return values
    from forumbot.i18n import thousands

    return tuple(thousands(v, speak) if isinstance(v, Count) else v for v in values)


def say(message: str, *values: object) -> str:
    """The tables' captions in the command's language (:data:`rules.balance.render.Say`):
    ``message`` (an English ``%``-template of rules/balance, in the catalogue) translated,
    then filled (``%%`` is one « % »; a decimal figure gets French's comma)."""
    from forumbot.i18n import figures, translate

    if values:
        speak = current_language()
        return translate(speak, message, *figures(speak, grouped(speak, values)))
    return translate(current_language(), message) % ()


def say_n(singular: str, plural: str, n: int, *values: object) -> str:
    """:func:`say` for a caption with a plural (:data:`rules.balance.render.SayN`): the
    catalogue's form for the count ``n`` (gettext's ``ngettext``: « 1 duel », « 2 duels »;
    newcomer 7 #1: « 1 duels »), filled as :func:`say` fills."""
    from forumbot.i18n import Plural, figures, translate

    speak, message = current_language(), Plural(singular, plural, n)
    if values:
        return translate(speak, message, *figures(speak, grouped(speak, values)))
    return translate(speak, message) % ()


def ruleset_words() -> dict[str, str]:
    """The shipped rulesets' names as the command's language says them (the catalogue's
    :data:`forumbot.i18n.RULESET_NAMES`: « classique », as ``doctor`` says; newcomer 7 #8),
    none in English (``classic``, the ``--ruleset`` key); the shipped 2v2 table, ``fatigue
    2v2``, is « deux contre deux »."""
    from forumbot.i18n import RULESET_NAMES, SOURCE_LANGUAGE, translate

    speak = current_language()
    if speak == SOURCE_LANGUAGE:
        return {}
    words = {key: translate(speak, name) for key, name in RULESET_NAMES.items()}
    words["fatigue 2v2"] = words["duo"]
    return words


@click.command("simulate")
@config_option
@click.option(
    "--ruleset",
    "ruleset_file",
    help="a ruleset's name, as in the configuration (classic, fatigue), or a TOML file "
    "(default: the shipped classic ruleset)",
)
@click.option("--duels", type=click.IntRange(min=1), default=10_000, show_default=True)
@click.option(
    "--max-duels",
    type=click.IntRange(min=1, max=MAX_DUELS_CEILING),
    default=MAX_DUELS,
    show_default=True,
    help="refuse --duels above this (the time it would take is printed)",
)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--compare",
    "other_file",
    help="a second ruleset (name or file): the table shows its win rates and, in brackets, "
    "their difference from --ruleset's in points (both summaries below)",
)
@click.option(
    "--csv",
    "csv_file",
    type=click.Path(dir_okay=False, writable=True),
    help="write the raw table(s) as CSV to this file",
)
@click.option("--magic-types", is_flag=True, help="fatigue: magic type against magic type")
@click.option(
    "--2v2",
    "duo",
    is_flag=True,
    help="two against two with this fatigue ruleset's spellbook and the shipped 2v2 settings "
    "(also: --ruleset duo, or a duo.toml file)",
)
@click.option(
    "--environment",
    "environments",
    multiple=True,
    help="2v2: an environment (a key of rules/data/environments/ or a TOML file); repeat "
    "for several; default every shipped one, one drawn per duel",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="processes playing the duels (default: the machine's cores; 1: this process); "
    "the table is the same whatever the number",
)
@click.option(
    "--policy",
    type=click.Choice(sorted(POLICY_CHOICES)),
    help="the scripted duellists: greedy, random legal, or mixed (one of the two drawn per "
    "duellist and duel); default mixed",
)
def simulate(config_path: str, ruleset_file: str | None, duels: int, max_duels: int, seed: int,
             other_file: str | None, csv_file: str | None, magic_types: bool, duo: bool,
             environments: tuple[str, ...], policy: str | None,
             jobs: int | None) -> None:  # fmt: skip
    """Play scripted duels (random legal and greedy duellists) for every pair of years and
    print who wins: win rates, mean length, draws, duels closed at the turn cap.

    2v2 (``--ruleset duo``, a 2v2 settings file, or ``--2v2``): duos of two duellists of one
    year, mixed duellists as in 1v1, through the 2v2 engine. Ruleset files are read with the
    configuration's limits (size, UTF-8, depth: exit 78). Refusals exit 2, in the captions'
    language: fewer duels than the table's cells, ``--duels`` above ``--max-duels`` (with the
    time it would take), an unknown ruleset, ``--magic-types`` or ``--2v2`` without a fatigue
    ruleset, a ``--compare`` ruleset of other rows. The captions are in ``board.language``
    of ``-c`` (English without one). Duel ``i`` of a table draws from its own generator
    seeded from (``--seed``, ``i``), so ``--jobs`` changes the time, never the table."""
    from forumbot.cli.simulate_jobs import default_jobs, runner
    from forumbot.rulesets import is_duo_settings, read_ruleset_file

    named = (ruleset_file, *((other_file,) if other_file else ()))
    files = [
        ruleset_file_for(f or "classic", option)
        for f, option in zip(named, ("--ruleset", "--compare"), strict=False)
    ]
    texts = [read_ruleset_file(f) for f in files]
    try:
        # a 2v2 settings file makes every ruleset of the run play 2v2 (--compare included)
        duo = duo or any(is_duo_settings(text) for text in texts)
        players = [_player(text, duo, magic_types, environments, policy) for text in texts]
        if duels >= ESTIMATE_FROM or duels > max_duels:
            seconds = sum(_estimate_s(play, duels) for _rs, play in players)
            if duels > max_duels:
                raise error(
                    "--duels %s is above --max-duels %s: it would take about %s",
                    duels, max_duels, _duration(seconds), code=exit_codes.USAGE,
                )  # fmt: skip
            count = grouped(current_language(), (Count(duels),))[0]
            click.echo(_("%s duels: about %s", count, _duration(seconds)), err=True)
        # the same draws for both rulesets
        run = runner(seed, jobs or default_jobs())
        tables = [play(duels=duels, run=run) for _rs, play in players]
    except RuleError as exc:
        if exc.rule == "simulate":  # too few duels for the table: a refused argument
            raise error("%s", LibraryText(exc.reason), code=exit_codes.USAGE) from exc
        raise error("%s", exc) from exc
    except FileNotFoundError as exc:
        raise error("%s", exc) from exc
    other = tables[1] if len(tables) > 1 else None
    if other is not None and (other.rows, other.cols) != (tables[0].rows, tables[0].cols):
        raise error(
            "--compare needs the same rows and columns: %s has %s, %s has %s",
            tables[0].ruleset, ", ".join(tables[0].rows), other.ruleset, ", ".join(other.rows),
            code=exit_codes.USAGE,
        )  # fmt: skip
    rs = players[0][0]
    labels = {}
    if tables[0].kind == "magic_types" and isinstance(rs, FatigueRuleset):
        labels = {k: t.label for k, t in rs.magic_types.items()}  # « Discrète » (C1)
    shown = text_table(
        tables[0], other, say, labels=labels, asked=duels, say_n=say_n, rulesets=ruleset_words()
    )
    click.echo(shown, nl=False)
    if policy == "greedy":
        click.echo(_(GREEDY_NOTE))
    if csv_file:
        Path(csv_file).write_text(csv_text(tables[0], other), encoding="utf-8")
        click.echo(_("CSV written to %s", csv_file))


__all__ = ["ruleset_file_for", "simulate"]


COMMANDS = (simulate,)
