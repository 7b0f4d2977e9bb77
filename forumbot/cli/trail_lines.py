"""The rule trail as ``forumbot drafts show --trail`` prints it, and the duellists' points as
``forumbot duels list`` prints them, in the staff's language."""

from __future__ import annotations

from typing import Any

import click

from forumbot.cli._common import _, current_language, load


def page_words(config_path: str) -> Any:
    """The review page's words (:class:`forumbot.web.page_words.PageWords`) in the command's
    language, with the configuration's timezone (imported only when a command needs them)."""
    from forumbot.web.i18n import page_translator
    from forumbot.web.page_words import PageWords

    language = current_language()
    return PageWords(language, load(config_path).timezone, page_translator(language))


def points_line(duellists: list[dict[str, Any]], ruleset: object, words: Any) -> str:
    """The duellists' points for ``duels list``: « Blaise Corvin −15 PV, Cassius Thorne 12 PV »
    (French: the minus sign U+2212; seventh reader of issue 25, C16, it printed « -15 », no
    unit); English « Blaise Corvin -15 PV ». ``duellists``: the stored state's
    ``{"name", "points"}`` items; ``words``: :func:`page_words`; the unit is the ruleset's
    (none when it does not load)."""
    unit = words.unit(ruleset)
    return ", ".join(
        f"{d['name']} {words.num(d['points'])} {unit}".rstrip() for d in duellists
    )


def echo_trail(outcome: dict[str, Any], config_path: str, names: tuple[str, ...] = ()) -> None:
    """The rule trail of ``outcome`` (``trail``: stored entries), one line per entry. On a
    French board in the review page's French words (:meth:`PageWords.entry`: quantities,
    rules and details by rule code; seventh reader after issue 25, it was English whole);
    in English, as stored. ``names``: the duel's duellists (as the review page passes them)."""
    if current_language() == "fr":
        words = page_words(config_path)
        for t in outcome.get("trail", []):
            e = words.entry(t, names)
            click.echo(f"  {e['quantity']} = {e['value']}  [{e['rule']}] {e['detail']}")
        return
    for entry in outcome.get("trail", []):
        # a None value (no action named, or none possible) is a word, not « None » (C1)
        value = entry["value"]
        if value is None:
            value = _("no action") if entry["quantity"].endswith(".action") else _("none")
        click.echo(f"  {entry['quantity']} = {value}  [{entry['rule']}] {entry.get('detail', '')}")


def echo_opening_origin(context: dict[str, Any], ruleset: str, config_path: str) -> None:
    """What ``drafts show --trail`` prints for an opening, which has no rule trail (nothing
    is computed before the first turn; newcomer5 C4): that it has none and why, then each
    duellist's starting points and where they come from, the ruleset's table of starting
    points by year (``[starting_points]``): « Aurora Vexley : 35 PD (5e année) ».
    ``context``: the opening's stored context (``duellists``: ``{"name", "year",
    "points"}`` items); ``ruleset``: the duel's ruleset name."""
    words = page_words(config_path)
    click.echo(
        _(
            "# an opening has no rule trail (nothing is computed before the first turn): the "
            "starting points come from the table by year of the %s rules ([starting_points])",
            words.ruleset(ruleset),
        )
    )
    unit = words.unit(ruleset)
    for d in context.get("duellists") or []:
        points = f"{words.num(d.get('points'))} {unit}".rstrip()
        click.echo("  " + _("%s: %s (%s)", d.get("name"), points, words.year(d.get("year"))))
