"""``drafts`` (list, show, edit, approve, hold) and ``duels`` (list, adopt)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import click

from forumbot.cli._common import (
    CliError,
    LibraryText,
    _,
    actor,
    config_option,
    current_language,
    error,
    load,
    ngettext,
    storage_for,
    warn,
)
from forumbot.cli.trail_lines import echo_opening_origin, echo_trail, page_words, points_line
from forumbot.i18n import N_
from forumbot.web.draft_state import draft_state, shown_version
from forumbot.web.history import turn_read

PENDING = ("draft", "approved", "held", "publishing", "redraft")
"""Statuses ``drafts list`` shows without ``--all``."""


def _board_zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def board_time(iso: str | None, zone: ZoneInfo) -> str:
    """A stored UTC ISO time in the board's timezone, to the minute
    (``"2026-12-01 15:05 CET"``); ``""`` for None."""
    if not iso:
        return ""
    when = datetime.fromisoformat(iso)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")


def state(storage: Any, decl: dict[str, Any]) -> str:
    """« brouillon approuvé, version 2 »: the draft's state as the review page says it
    (:func:`forumbot.web.draft_state.draft_state`, newcomer5 C3)."""
    return draft_state(str(decl["status"]), shown_version(storage, int(decl["id"])), _)


def duel_progress(duel: dict[str, Any], read: int | None = None) -> str:
    """A duel's state for staff, in plain words (issue 25): ``running, turn 3 awaited`` once
    turn 2 is declared (the state's ``turn`` counts the turns declared), ``running, turn 3:
    defense awaited`` while a fatigue initiative waits for its defense, ``finished after
    turn 7``; other statuses as they are. ``read``: the last turn players read (the highest
    published turn, :func:`forumbot.web.history.turn_read`), which a finished duel names: a
    2v2 that ends at turn 10's second declaration has only 9 complete turns."""
    state = json.loads(duel["state_json"] or "{}")
    inner = state.get("duel") if isinstance(state.get("duel"), dict) else state
    turn = int(inner.get("turn", 0) or 0)
    if duel["status"] == "running":
        if inner.get("pending"):
            return _("running, turn %s: defense awaited", turn + 1)
        return _("running, turn %s awaited", turn + 1)
    if duel["status"] == "finished":
        return _("finished after turn %s", max(turn, read or 0))
    return _(str(duel["status"]))


def _what(decl: dict[str, Any]) -> str:
    """``opening``, ``turn 3``, ``end turn 7``: the declaration's kind and its turn."""
    if decl["kind"] == "opening":
        return _("opening")
    if decl["kind"] == "turn":
        return _("turn %s", decl["turn"])
    return _("%s turn %s", _(str(decl["kind"])), decl["turn"])


def note(stored: str) -> str:
    """A draft's stored reason (``declarations.last_error``, an English code such as
    ``cast_before_start: referee decides``) in the staff's language: on a French board its
    French sentence (:func:`forumbot.publish.reasons.reason_fr`, the one the notices and the
    review page use, never the code), else as stored (newcomer check s4, W8)."""
    from forumbot.publish.reasons import reason_fr

    return reason_fr(stored) if current_language() == "fr" else stored


def _when(decl: dict[str, Any], zone: ZoneInfo) -> str:
    status = decl["status"]
    if status == "published":
        return _("published %s", board_time(decl.get("published_at"), zone)).rstrip()
    if status == "held":
        return _("held: waits for a referee")
    if status == "publishing":
        return _("publishing (next pass)")
    if status == "approved":
        return _("approved: next publish pass")
    if status == "cancelled":
        return _("cancelled: never published")
    if status == "redraft":
        return _("drafted again from the posts at the next poll")
    if decl["publish_after"]:
        return _("publishes %s", board_time(decl["publish_after"], zone))
    return _("on approval")


@click.group()
def drafts() -> None:
    """List, show, edit, approve or hold draft declarations."""


@drafts.command("list")
@config_option
@click.option("--all", "show_all", is_flag=True, help="Include published declarations.")
def drafts_list(config_path: str, show_all: bool) -> None:
    """Declarations, one a line: #id, duel, topic, what (opening / turn N), its state as the
    review page says it (« brouillon approuvé, version 2 »), and when it publishes (or was
    published), in the board's timezone."""
    config = load(config_path)
    storage = storage_for(config_path)
    zone = _board_zone(config.timezone)
    rows = storage.declarations(None if show_all else PENDING)
    if not rows:
        click.echo(_("no pending draft"))
    for d in rows:
        duel = storage.duel(d["duel_id"])
        click.echo(
            f"#{d['id']:<5} {_('duel')} {d['duel_id']:<4} {_('topic')} {duel['topic_id']:<6} "
            f"{_what(d):<14} {state(storage, d):<36} {_when(d, zone)}"
        )


@drafts.command("show")
@config_option
@click.argument("decl_id", type=int)
@click.option("--trail", is_flag=True, help="Also print the rule trail behind every number.")
def drafts_show(config_path: str, decl_id: int, trail: bool) -> None:
    """Print a draft's text (and its rule trail)."""
    storage = storage_for(config_path)
    try:
        d = storage.declaration(decl_id)
    except Exception as exc:  # sqlite_utils NotFoundError
        raise CliError(_("no declaration %s", decl_id)) from exc
    click.echo(_("# declaration %s (%s, %s)", decl_id, _what(d), state(storage, d)))
    if d["last_error"]:
        click.echo(_("# note: %s", note(d["last_error"])))
    click.echo(d["text"])
    if trail and d["kind"] == "opening":
        duel = storage.duel(d["duel_id"])
        context = json.loads(d["context_json"] or "{}").get("context") or {}
        echo_opening_origin(context, str(duel["ruleset"]), config_path)
    elif trail:
        names = tuple(str(x["name"]) for x in storage.duellists(d["duel_id"]))
        echo_trail(json.loads(d["context_json"]).get("outcome") or {}, config_path, names)


@drafts.command("edit")
@config_option
@click.argument("decl_id", type=int)
@click.option(
    "--text-file",
    type=click.File("r", encoding="utf-8"),
    help="New text (use - for standard input).",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help='Set a computed number, e.g. --set "Cassius Thorne.points=12".',
)
@click.option("--waive", multiple=True, metavar="DUELLIST:RULE", help="Waive a violation.")
@click.option(
    "--force", is_flag=True,
    help="With --text-file: keep a text whose numbers contradict the draft's (audited).",
)  # fmt: skip
@click.option("--by", default=None, help="Who makes the change (audit log); default $USER.")
def drafts_edit(
    config_path: str,
    decl_id: int,
    text_file: Any,
    sets: tuple[str, ...],
    waive: tuple[str, ...],
    force: bool,
    by: str | None,
) -> None:
    """Edit a draft: its text, a computed number (the text follows), or a violation.

    ``--set`` and ``--waive`` render the text again from the template, so that it states the
    referee's numbers: over a hand-edited text they warn (the hand-edited text is kept in
    the audit log). ``--text-file`` is given alone (a text written together with new numbers
    could contradict them); a text whose totals (an opening's starting points too) or dice
    contradict the draft's is refused (the differences are shown) unless ``--force``. A
    ``--set`` that changes nothing (already so) and a ``--waive`` of a violation the draft
    does not have are refused too; a ``--text-file`` that gives the draft's own text (blanks
    at line ends aside) says so and changes nothing (no new version, exit 0); an edit says
    the new version (``# declaration 2 edited: draft, version 3``); an opening's
    ``cast_before_start`` can be waived (the opening then says nothing of it). Refusals exit
    non-zero and change nothing."""
    from forumbot.duels.overrides import (
        TextUnchanged,
        edit_text,
        parse_value,
        set_numbers,
        set_violation,
    )

    if not (text_file or sets or waive):
        raise CliError(_("nothing to change: give --text-file, --set or --waive"))
    if text_file and (sets or waive):
        raise CliError(
            _(
                "--text-file cannot be combined with --set or --waive: set the numbers first, "
                "check the text they give (drafts show), then edit the text"
            )
        )
    values = {}
    for item in sets:
        key, sep, raw = item.rpartition("=")
        if not sep or not key:
            raise click.BadParameter(f"wants KEY=VALUE, got {item!r}", param_hint="--set")
        values[key.strip()] = parse_value(raw)
    waived = []
    for item in waive:
        name, sep, rule = item.rpartition(":")
        if not sep:
            raise click.BadParameter(f"wants DUELLIST:RULE, got {item!r}", param_hint="--waive")
        waived.append((name.strip(), rule.strip()))
    if force and not text_file:
        raise CliError(
            _("--force goes with --text-file (a text kept against the draft's numbers)")
        )
    config = load(config_path)
    storage = storage_for(config_path)
    now = datetime.now(UTC)
    who = actor(by)
    warnings: list[str] = []
    before = _declaration(storage, decl_id)
    # a refusal (OverrideError, TextContradicts: its message lists the differences) is
    # reported by the group's handler, exit non-zero; nothing was changed
    if values:
        warnings += set_numbers(storage, decl_id, values, who, now, language=config.language)
    for name, rule in waived:
        warnings += set_violation(
            storage, decl_id, name, rule, True, who, now, language=config.language
        )
    if text_file:
        try:
            kept = edit_text(
                storage, decl_id, text_file.read(), who, now, force=force,
                language=config.language,
            )  # fmt: skip
        except TextUnchanged:  # not a refusal: nothing to do (newcomer5 C1)
            click.echo(_("declaration %s: text unchanged: no new version", decl_id))
            return
        for difference in kept:
            warn(
                N_("warning: declaration %s: kept against the draft (--force): %s"),
                decl_id, LibraryText(difference.describe()),
            )  # fmt: skip
    for warning in dict.fromkeys(warnings):  # the library's English, in the catalogue
        warn(N_("warning: declaration %s: %s"), decl_id, LibraryText(warning))
    after = storage.declaration(decl_id)
    click.echo(_("# declaration %s edited: %s", decl_id, state(storage, after)))  # C6
    if before["status"] == "held" and after["status"] == "draft":
        click.echo(
            _(
                "# declaration %s: no longer held (every spell cast before the start is "
                "waived): it publishes after its review delay",
                decl_id,
            )
        )
    click.echo(after["text"])


def _declaration(storage: Any, decl_id: int) -> dict[str, Any]:
    try:
        return dict(storage.declaration(decl_id))
    except Exception as exc:  # sqlite_utils NotFoundError
        raise CliError(_("no declaration %s", decl_id)) from exc


def _set_status(config_path: str, decl_id: int, status: str, by: str | None) -> None:
    from forumbot.duels.overrides import set_status

    storage = storage_for(config_path)
    set_status(storage, decl_id, status, actor(by), datetime.now(UTC))
    click.echo(_("declaration %s: %s", decl_id, state(storage, storage.declaration(decl_id))))


@drafts.command("approve")
@config_option
@click.argument("decl_id", type=int)
@click.option("--by", default=None)
def drafts_approve(config_path: str, decl_id: int, by: str | None) -> None:
    """Approve a draft: it is published at the next publish pass."""
    _set_status(config_path, decl_id, "approved", by)


@drafts.command("hold")
@config_option
@click.argument("decl_id", type=int)
@click.option("--by", default=None)
def drafts_hold(config_path: str, decl_id: int, by: str | None) -> None:
    """Hold a draft: it waits until a referee approves it."""
    _set_status(config_path, decl_id, "held", by)


@drafts.command("drop")
@config_option
@click.argument("decl_id", type=int)
@click.option("--reason", required=True, help="Why (kept in the audit log).")
@click.option(
    "--redraft/--no-redraft", default=True, show_default=True,
    help="A turn draft: draft the turn again at the next poll from the posts as they are "
    "then (default), or let the duel wait with a referee task until a referee redrafts "
    "(drafts redraft) or cancels it.",
)  # fmt: skip
@click.option("--by", default=None)
def drafts_drop(config_path: str, decl_id: int, reason: str, redraft: bool, by: str | None) -> None:
    """Drop an unpublished draft: it is never published (audit ``draft.drop``). A dropped
    turn draft is drafted again at the next poll (``--redraft``, default) or the duel waits
    with a referee task (``--no-redraft``). Dropping the opening of a duel that has not
    started ends that duel too."""
    from forumbot.duels.ending import EndingError, drop_draft

    config = load(config_path)
    storage = storage_for(config_path)
    try:
        ended = drop_draft(
            storage, decl_id, reason, actor(by), datetime.now(UTC), redraft=redraft,
            language=config.language,
        )  # fmt: skip
    except EndingError as exc:
        raise error("%s", exc) from exc
    decl = storage.declaration(decl_id)
    click.echo(_("declaration %s: dropped", decl_id))
    if ended.duel_status == "cancelled" and decl["kind"] == "opening":
        click.echo(
            _("duel %s: cancelled (its opening was dropped before the start)", ended.duel_id)
        )
    elif decl["status"] == "redraft":
        click.echo(
            _(
                "duel %s: %s will be drafted again from the posts at the next poll of forumbot "
                "run (--no-redraft: wait for a referee instead)",
                ended.duel_id, _what(decl),
            )  # fmt: skip
        )
    elif decl["kind"] == "turn" and ended.duel_status == "running":
        click.echo(
            _(
                "duel %s: waits for a referee (referee task opened): `forumbot drafts redraft "
                "%s` drafts %s again, `forumbot duels cancel` ends the duel",
                ended.duel_id, decl_id, _what(decl),
            )  # fmt: skip
        )


@drafts.command("redraft")
@config_option
@click.argument("decl_id", type=int)
@click.option("--reason", default="", help="Why (kept in the audit log).")
@click.option("--by", default=None)
def drafts_redraft(config_path: str, decl_id: int, reason: str, by: str | None) -> None:
    """Draft a turn again (after an edit, a late post, a mistake): the pending or dropped
    turn draft DECL_ID is replaced, at the next poll, by a fresh draft of the same turn from
    the posts as they are then (same dice, same idempotency key: published once). Its
    overrides, waives and text edits go (they are in the audit log). A published declaration
    is corrected with `forumbot duels correct` instead."""
    from forumbot.duels.redraft import RedraftError, request_redraft

    storage = storage_for(config_path)
    try:
        done = request_redraft(storage, decl_id, actor(by), datetime.now(UTC), reason)
    except RedraftError as exc:
        raise error("%s", exc) from exc
    decl = storage.declaration(decl_id)
    click.echo(
        _(
            "declaration %s (%s): drafted again from the posts at the next poll of forumbot "
            "run (was %s)",
            decl_id, _what(decl), _(str(done.before)),
        )  # fmt: skip
        + (
            ngettext(
                "; %s referee task closed", "; %s referee tasks closed", done.tasks_closed,
                done.tasks_closed,
            )  # fmt: skip
            if done.tasks_closed
            else ""
        )
    )


# -- duels --------------------------------------------------------------------------------
@click.group()
def duels() -> None:
    """List duels, adopt a topic as a duel, cancel one, or record a concession."""


@duels.command("list")
@config_option
@click.option(
    "--all", "show_all", is_flag=True,
    help="Also the topics a poll read and ignored (not a duel topic): adoptable.",
)  # fmt: skip
def duels_list(config_path: str, show_all: bool) -> None:
    """Duels the bot referees, with their state (``--all``: ignored topics too)."""
    storage = storage_for(config_path)
    every = storage.duels()
    words = page_words(config_path)
    if not [d for d in every if show_all or d["status"] != "ignored"]:
        click.echo(_("no duel"))
    for duel in every:
        if duel["status"] == "ignored":
            if show_all:
                click.echo(
                    _(
                        "topic %s: ignored (not a duel topic: %s); adopt it with `forumbot "
                        "duels adopt`",
                        duel["topic_id"], duel["title"] or _("no title"),
                    )  # fmt: skip
                )
            continue
        state = json.loads(duel["state_json"] or "{}")
        inner = state.get("duel") if isinstance(state.get("duel"), dict) else state
        people = points_line(inner.get("duellists", []), duel["ruleset"], words)
        progress = duel_progress(duel, turn_read(storage, duel))
        click.echo(_("duel %s: topic %s %s: %s", duel["id"], duel["topic_id"], progress, people))


@duels.command("adopt")
@config_option
@click.argument("topic_id", type=int)
@click.option("--forum", "forum_id", type=int, required=True)
@click.option("--duellist", "duellists", multiple=True, required=True, metavar="NAME:YEAR")
@click.option("--stakes", default=None, help="Stakes agreed by both duellists.")
@click.option(
    "--force", is_flag=True,
    help="Adopt even when the board does not confirm a duellist's name as a member.",
)  # fmt: skip
@click.option("--by", default=None)
def duels_adopt(
    config_path: str,
    topic_id: int,
    forum_id: int,
    duellists: tuple[str, ...],
    stakes: str | None,
    force: bool,
    by: str | None,
) -> None:
    """Referee an existing topic: drafts its opening declaration. Each duellist's name is
    looked up among the board's members (a did-you-mean when it is not one; ``--force``
    adopts anyway). A topic whose duel was cancelled before anything was posted can be
    adopted again."""
    from forumbot.app import bootstrap
    from forumbot.cli.adopting import check_members, listed_title, topic_exists
    from forumbot.duels.replay import parse_duellist_option

    try:
        pairs = [parse_duellist_option(item)[:2] for item in duellists]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--duellist") from exc
    if len(pairs) != 2:
        raise click.BadParameter(
            "a classic duel has exactly two duellists", param_hint="--duellist"
        )
    bot = bootstrap(load(config_path, validate=True))
    try:
        posts = topic_exists(bot.client, topic_id)
        known = bot.storage.duel_by_topic(bot.referee.board_id, topic_id)
        # The title the board shows (issue 25: a topic adopted right after it was created is
        # not in the stored listing yet: its concession named « topic 3 »).
        title = (known or {}).get("title") or listed_title(bot.client, forum_id, topic_id)
        check_members(bot, [name for name, _partner in pairs], title, posts, force)
        duel_id = bot.referee.adopt(
            forum_id, topic_id, title, pairs, stakes=stakes, actor=actor(by)
        )
    except ValueError as exc:  # the referee's refusals ("topic 3 already holds a duel")
        raise error("%s", exc) from exc
    finally:
        bot.close()
    click.echo(_("duel %s adopted; opening declaration drafted", duel_id))


def _duel_of_topic(storage: Any, topic_id: int) -> dict[str, Any]:
    rows = [d for d in storage.duels() if d["topic_id"] == topic_id and d["status"] != "ignored"]
    if not rows:
        raise CliError(_("topic %s holds no duel (see forumbot duels list)", topic_id))
    live = [d for d in rows if d["status"] not in ("finished", "cancelled")]
    return live[-1] if live else rows[-1]


@duels.command("cancel")
@config_option
@click.argument("topic_id", type=int)
@click.option("--reason", required=True, help="Why, in French: quoted to the players.")
@click.option(
    "--silent", is_flag=True, help="Post nothing in the topic (the audit log still has it)."
)
@click.option("--by", default=None)
def duels_cancel(
    config_path: str, topic_id: int, reason: str, silent: bool, by: str | None
) -> None:
    """End a duel that cannot go on: no winner, no rewards; its drafts are cancelled. When
    the players have seen it, a declaration (« Duel annulé », with the reason) is posted at
    the next publish pass of ``forumbot run``."""
    from forumbot.duels.ending import EndingError, cancel_duel

    config = load(config_path)
    storage = storage_for(config_path)
    duel = _duel_of_topic(storage, topic_id)
    try:
        ended = cancel_duel(
            storage, int(duel["id"]), reason, actor(by), datetime.now(UTC),
            referee_name=config.referee_name, language=config.language, announce=not silent,
            verify_docs_url=config.verification_url,
        )  # fmt: skip
    except EndingError as exc:
        raise error("%s", exc) from exc
    click.echo(
        _(
            "duel %s (topic %s): cancelled; %s",
            ended.duel_id, topic_id, _cancelled(len(ended.drafts)),
        )  # fmt: skip
    )
    if ended.notice is not None:
        click.echo(
            _(
                "declaration %s: « Duel annulé », posted by forumbot run at its next publish "
                "pass",
                ended.notice,
            )
        )


def _cancelled(n: int) -> str:
    """« 1 brouillon annulé », « 2 brouillons annulés » (C7)."""
    return ngettext("%s draft cancelled", "%s drafts cancelled", n, n)


@duels.command("concede")
@config_option
@click.argument("topic_id", type=int)
@click.argument("name")
@click.option("--by", default=None, help="Who records it (audit log); default $USER.")
def duels_concede(config_path: str, topic_id: int, name: str, by: str | None) -> None:
    """Record that duellist NAME concedes the running duel of TOPIC_ID: the opponent wins
    (in 2v2, NAME's duo loses), the duel's pending drafts are cancelled, and a declaration
    (« abandon ») is posted at the next publish pass of ``forumbot run``; its publication
    ends the duel and the club gives the rewards (audit ``duel.concede``)."""
    from forumbot.duels.concession import concede_duel
    from forumbot.duels.ending import EndingError

    config = load(config_path)
    storage = storage_for(config_path)
    duel = _duel_of_topic(storage, topic_id)
    try:
        done = concede_duel(
            storage, int(duel["id"]), name, actor(by), datetime.now(UTC),
            referee_name=config.referee_name, language=config.language,
            verify_docs_url=config.verification_url,
        )  # fmt: skip
    except EndingError as exc:
        raise error("%s", exc) from exc
    if done.winners:
        result = (
            _("%s win", _(" and ").join(done.winners))
            if len(done.winners) > 1
            else _("%s wins", done.winners[0])
        )
    else:
        result = _("no winner")
    click.echo(
        _(
            "duel %s (topic %s): %s concedes; %s; %s",
            done.duel_id, topic_id, done.conceded, result, _cancelled(len(done.drafts)),
        )  # fmt: skip
    )
    click.echo(
        _(
            "declaration %s: « abandon », posted by forumbot run at its next publish pass (the "
            "duel ends, and the rewards are given, when it is out)",
            done.declaration,
        )
    )


COMMANDS = (drafts, duels)
