"""``duels correct``: an erratum for a published declaration (issue 22)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import click

from forumbot.cli._common import CliError, _, actor, config_option, error, load, storage_for


def _duel_id(storage: Any, which: str) -> int:
    """A duel id from ``TOPIC_OR_DUEL``: ``d12`` / ``duel:12`` (a duel id), or a topic id
    (its live duel, else its latest)."""
    raw = which.strip().lower()
    for prefix in ("duel:", "duel", "d"):
        if raw.startswith(prefix) and raw[len(prefix):].isdigit():
            return int(raw[len(prefix):])
    if not raw.isdigit():
        raise click.BadParameter(f"a topic id or d<duel id>, got {which!r}")  # click's English
    topic_id = int(raw)
    rows = [d for d in storage.duels() if d["topic_id"] == topic_id and d["status"] != "ignored"]
    if not rows:
        raise CliError(_("topic %s holds no duel (see forumbot duels list)", topic_id))
    live = [d for d in rows if d["status"] not in ("finished", "cancelled")]
    return int((live or rows)[-1]["id"])


@click.command("correct")
@config_option
@click.argument("which", metavar="TOPIC_OR_DUEL")
@click.option("--turn", "turn", type=int, required=True, help="The published turn to correct.")
@click.option(
    "--set", "sets", multiple=True, metavar="KEY=VALUE",
    help='A number of that turn, as drafts edit --set (e.g. "Cassius Thorne.points=12").',
)  # fmt: skip
@click.option(
    "--text-file", type=click.File("r", encoding="utf-8"),
    help="The referee's note, in French, posted with the erratum (use - for standard input).",
)  # fmt: skip
@click.option("--by", default=None, help="Who corrects (audit log); default $USER.")
def duels_correct(
    config_path: str, which: str, turn: int, sets: tuple[str, ...], text_file: Any,
    by: str | None,
) -> None:  # fmt: skip
    """Correct a published turn with an erratum post (« Erratum », quoting the old and new
    numbers), posted once by forumbot run at its next publish pass; once it is out, the
    duel's state follows the corrected numbers. The published declaration is never edited.
    Numbers are corrected on the latest turn only (later turns are not recomputed), not in
    2v2 duels, and never so that the end of the duel changes; a note (--text-file) can go
    with any published turn."""
    from forumbot.duels.erratum import ErratumError, draft_erratum
    from forumbot.duels.overrides import parse_value

    values: dict[str, Any] = {}
    for item in sets:
        key, sep, raw = item.rpartition("=")
        if not sep or not key:
            raise click.BadParameter(f"wants KEY=VALUE, got {item!r}", param_hint="--set")
        values[key.strip()] = parse_value(raw)  # not a value: the group's handler says so
    config = load(config_path)
    storage = storage_for(config_path)
    duel_id = _duel_id(storage, which)
    try:
        done = draft_erratum(
            storage, duel_id, turn, values, text_file.read() if text_file else None,
            actor(by), datetime.now(UTC), referee_name=config.referee_name,
            language=config.language,
        )  # fmt: skip
    except ErratumError as exc:
        raise error("%s", exc) from exc
    for change in done.changes:
        click.echo(f"  {change['name']}.{change['field']}: {change['old']} -> {change['new']}")
    for points in done.points:
        click.echo(f"  {points['name']}: {points['old']} -> {points['new']}")
    click.echo(
        _(
            "declaration %s: « Erratum » of turn %s (declaration %s), posted by forumbot run "
            "at its next publish pass",
            done.declaration, turn, done.corrects,
        )  # fmt: skip
        + (_("; the duel's state follows once it is out") if done.points else "")
    )
    click.echo(storage.declaration(done.declaration)["text"])
