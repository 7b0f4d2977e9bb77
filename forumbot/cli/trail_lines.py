"""The rule trail as ``forumbot drafts show --trail`` prints it, in the staff's language."""

from __future__ import annotations

from typing import Any

import click

from forumbot.cli._common import _, current_language, load


def echo_trail(outcome: dict[str, Any], config_path: str, names: tuple[str, ...] = ()) -> None:
    """The rule trail of ``outcome`` (``trail``: stored entries), one line per entry. On a
    French board in the review page's French words (:meth:`PageWords.entry`: quantities,
    rules and details by rule code; seventh reader after issue 25, it was English whole);
    in English, as stored. ``names``: the duel's duellists (as the review page passes them)."""
    if current_language() == "fr":
        from forumbot.web.i18n import page_translator
        from forumbot.web.page_words import PageWords

        words = PageWords("fr", load(config_path).timezone, page_translator("fr"))
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

