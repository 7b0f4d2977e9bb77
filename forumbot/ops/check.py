"""``forumbot check``: a dry run against the live board that posts nothing.

It logs in, polls the watched forums with the real client, and prints the drafts the bot
would post. It works on an in-memory copy of the database (so the real one is untouched)
and its forum client refuses every write (:class:`ReadOnlyClient`). The one thing it keeps
is the dice seed of each duel it would open, in the reserve beside the database
(:mod:`forumbot.duels.dice_reserve`; one file, no lock file): ``run`` then publishes the
opening ``check`` printed, with the same dice commitment; its output says so (newcomer6 W3).
The language the board's pages say is recorded as ``doctor`` records it (into a database
that exists).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from forumbot.app import bootstrap
from forumbot.config import Config
from forumbot.duels.dice_reserve import DiceReserve, reserve_path
from forumbot.errors import ForumError
from forumbot.forums.base import ForumClient, TopicSummary
from forumbot.i18n import SOURCE_LANGUAGE, ngettext, translator
from forumbot.ops.doctor import remember_language
from forumbot.ops.session import bot_client, log_in
from forumbot.rulesets import load_duo_inputs, load_ruleset
from forumbot.storage import Storage
from forumbot.storage.engine import is_postgres
from forumbot.storage.files import memory_copy
from forumbot.storage.pg_files import memory_copy_pg
from parsers.model import Post
from rules.balance import Stall, stall_warnings
from rules.balance.duo import duo_stall_warnings
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset
from rules.ruleset import Ruleset


class DryRunWrite(ForumError):
    """A write was attempted during a dry run (it was not sent)."""


class ReadOnlyClient:
    """Wraps a forum client: reads pass through, writes raise :class:`DryRunWrite`.

    Attributes:
        refused: what was not sent, one short line each (``"reply to topic 7"``).
        unsent: ``(what, message)`` of each refused write, for the dry run to print.
        said: ``(template, values)`` of each ``refused`` line (English ``%s`` template
            marked for the staff's catalogue), for the dry run to print it translated.
    """

    def __init__(self, inner: ForumClient) -> None:
        self.inner = inner
        self.refused: list[str] = []
        self.unsent: list[tuple[str, str]] = []
        self.said: list[tuple[str, tuple[object, ...]]] = []

    def login(self) -> None:
        self.inner.login()

    def is_logged_in(self) -> bool:
        return self.inner.is_logged_in()

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        return self.inner.list_topics(forum_id, all_pages)

    @property
    def listing_more(self) -> dict[int, bool]:
        """The inner client's: does the forum's listing have more pages."""
        return getattr(self.inner, "listing_more", {})

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        return self.inner.read_topic(topic_id, after_post_id)

    def find_marker(self, topic_id: int, marker: str, after_post_id: int | None) -> int | None:
        return self.inner.find_marker(topic_id, marker, after_post_id)

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        finder = getattr(self.inner, "find_pm_marker", None)
        return bool(finder(subject, marker, limit=limit)) if finder is not None else False

    def edit_post(self, post_id: int, message: str) -> None:
        self._refuse(message, _N("edit of post %s"), post_id)

    def _refuse(self, message: str, template: str, *values: object) -> Any:
        what = template % values
        self.refused.append(what)
        self.unsent.append((what, message))
        self.said.append((template, values))
        raise DryRunWrite(f"dry run: {what} not sent")

    def reply(self, topic_id: int, message: str, marker: str, **_: object) -> int:
        return int(self._refuse(message, _N("reply to topic %s"), topic_id))

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        self._refuse(message, _N("private message to %s «%s»"), username, subject)

    def create_topic(self, forum_id: int, subject: str, message: str, marker: str) -> int:
        return int(self._refuse(message, _N("new topic «%s» in forum %s"), subject, forum_id))


def _memory_copy(path: str) -> Storage:
    """A private in-memory copy of the club's database: a SQLite file's
    (:func:`forumbot.storage.files.memory_copy`) or a PostgreSQL schema's rows, read on a
    read-only session (:func:`forumbot.storage.pg_files.memory_copy_pg`)."""
    return memory_copy_pg(path) if is_postgres(path) else memory_copy(path)


def _stall_line(name: str, stall: Stall, language: str) -> str:
    """``"warning: ruleset NAME: <stall.message()>: C of D simulated duels"``: the sample the
    share is read from (newcomer6 W2); in French from the catalogue, the years in its words
    (« entre élèves de 5e année », « entre adultes », « d'un adulte face à un élève de 7e
    année »), rules/ keeping its English message."""
    if language == SOURCE_LANGUAGE:
        return (
            f"warning: ruleset {name}: {stall.message()}: "
            f"{stall.capped} of {stall.duels} simulated duels"
        )
    _ = translator(language)

    def year(key: str) -> str:
        return _("1st year") if key == "1" else _("year %s", key)

    def many(key: str) -> str:  # the duellists of a mirror pairing
        if stall.duo:
            return _("duos of adults") if key == "adult" else _("duos of %s", year(key))
        return _("adults") if key == "adult" else _("%s students", year(key))

    def one(key: str) -> str:  # a side of a pairing of two years
        if stall.duo:
            return _("a duo of adults") if key == "adult" else _("a duo of %s", year(key))
        return _("an adult") if key == "adult" else _("a %s student", year(key))

    share, cap = f"{100 * stall.share:.0f}", stall.max_turns
    if stall.row == stall.col:
        if stall.duo:
            return _(
                "warning: ruleset %s: in simulation, %s %% of 2v2 duels between %s cannot end "
                "(closed at the %s-turn cap with no winner): %s of %s simulated duels",
                name, share, many(stall.row), cap, stall.capped, stall.duels,
            )  # fmt: skip
        return _(
            "warning: ruleset %s: in simulation, %s %% of duels between %s cannot end "
            "(closed at the %s-turn cap with no winner): %s of %s simulated duels",
            name, share, many(stall.row), cap, stall.capped, stall.duels,
        )  # fmt: skip
    if stall.duo:
        return _(
            "warning: ruleset %s: in simulation, %s %% of 2v2 duels of %s against %s cannot "
            "end (closed at the %s-turn cap with no winner): %s of %s simulated duels",
            name, share, one(stall.row), one(stall.col), cap, stall.capped, stall.duels,
        )  # fmt: skip
    return _(
        "warning: ruleset %s: in simulation, %s %% of duels of %s against %s cannot end "
        "(closed at the %s-turn cap with no winner): %s of %s simulated duels",
        name, share, one(stall.row), one(stall.col), cap, stall.capped, stall.duels,
    )  # fmt: skip


def _next_step(name: str, duo: bool, language: str) -> str:
    """The line after a ruleset's stall warnings: what to do next (newcomer6 W2)."""
    command = f"forumbot simulate --ruleset {name}" + (" --2v2" if duo else "")
    _ = translator(language)
    return _(
        "next step: see the whole table with %s, then give the years whose duels cannot "
        "end more attack spells (or fewer starting points), and run forumbot check again",
        command,
    )


def years(rs: Ruleset) -> list[str]:
    """The ruleset's years in its own order (``[starting_points]``: ``"1"``..``"adult"``)."""
    return list(rs.starting_points)


def _in_year_order(stalls: list[Stall], years: list[str]) -> list[Stall]:
    """``stalls`` (worst first, as rules/ gives them) in the years' order: 1st year mirror,
    2nd against 1st, 2nd mirror... (newcomer6 W2)."""
    rank = {y: i for i, y in enumerate(years)}
    return sorted(stalls, key=lambda s: (rank.get(s.row, 0), rank.get(s.col, 0)))


def _stall_lines(name: str, stalls: list[Stall], keys: list[str], language: str) -> list[str]:
    """The warning lines of one ruleset's ``stalls``: one a pairing (:func:`_stall_line`, in
    the years' order), or, when every pairing checked stalls (each year against itself and
    the year below: ``2 * len(keys) - 1`` of them) in the same share (all its simulated duels,
    as a spellbook far too weak gives), one line for all with the duels counted (newcomer 7,
    #9: 15 identical lines said one thing). Shares that differ keep their lines."""
    pairs = 2 * len(keys) - 1
    shares = {f"{100 * s.share:.0f}" for s in stalls}
    if len(stalls) < pairs or pairs < 2 or len(shares) > 1:
        return [_stall_line(name, s, language) for s in _in_year_order(stalls, keys)]
    low = stalls[0]
    capped, duels = sum(s.capped for s in stalls), sum(s.duels for s in stalls)
    share, cap = f"{100 * low.share:.0f}", low.max_turns
    _ = translator(language)  # English: the message itself
    if low.duo:
        text = _N(
            "warning: ruleset %s: in simulation, in every year pairing checked (%s: each year "
            "against itself and the year below), %s %% of 2v2 duels cannot end "
            "(closed at the %s-turn cap with no winner): %s of %s simulated duels"
        )
    else:
        text = _N(
            "warning: ruleset %s: in simulation, in every year pairing checked (%s: each year "
            "against itself and the year below), %s %% of duels cannot end (closed "
            "at the %s-turn cap with no winner): %s of %s simulated duels"
        )
    return [_(text, name, pairs, share, cap, capped, duels)]


def _N(message: str) -> str:  # noqa: N802 (gettext's name)
    """:func:`forumbot.i18n.N_` under the name ``pybabel extract`` knows in this module."""
    return message


def ruleset_warnings(
    names: Iterable[str],
    seed: int = 0,
    duo_names: Iterable[str] = (),
    language: str = SOURCE_LANGUAGE,
) -> list[str]:
    """One line per configured ruleset pairing whose simulated duels often cannot end
    (:func:`rules.balance.stall_warnings`: a quick simulation, at most a few hundred duels per
    ruleset, seeded): ``"warning: ruleset fatigue: in simulation, 40 % of 5th-year mirror
    duels cannot end (...): 8 of 20 simulated duels"``, in the years' order, then one line
    with the next step (``forumbot simulate`` to see the table, what to change). Issue 26: a
    club's own spellbook that stalls is told before its first duel. Each distinct name
    (``club.ruleset``, ``registration[i].ruleset``) once; a ruleset that does not load is
    :mod:`forumbot.ops.validate`'s business (skipped here).

    ``duo_names``: the rulesets of the 2v2 registrations, simulated as 2v2 duels too
    (:func:`rules.balance.duo.duo_stall_warnings`, the shipped 2v2 settings and
    environments): ``"warning: ruleset fatigue: in simulation, 40 % of 5th-year mirror 2v2
    duels cannot end (...)"``; a non-fatigue one is skipped (2v2 is fatigue only).

    ``language``: the staff's (:func:`forumbot.i18n.staff_language`); French lines come from
    the catalogue, English ones are the above.
    """
    lines = []
    for name in dict.fromkeys(names):
        try:
            rs = load_ruleset(name)
        except (OSError, RuleError):
            continue
        stalls = stall_warnings(rs, random.Random(seed))
        lines += _stall_lines(name, stalls, years(rs), language)
        if stalls:
            lines.append(_next_step(name, False, language))
    for name in dict.fromkeys(duo_names):
        try:
            rs = load_ruleset(name)
            settings, envs = load_duo_inputs()
        except (OSError, RuleError):
            continue
        if not isinstance(rs, FatigueRuleset):
            continue
        stalls = duo_stall_warnings(rs, envs, settings, random.Random(seed))
        lines += _stall_lines(name, stalls, years(rs), language)
        if stalls:
            lines.append(_next_step(name, True, language))
    return lines


def configured_rulesets(config: Config) -> list[str]:
    """The ruleset names the configuration uses: ``club.ruleset``, then each registration's."""
    return [config.ruleset, *(reg.ruleset for reg in config.registrations)]


def configured_duo_rulesets(config: Config) -> list[str]:
    """The ruleset names of the configuration's 2v2 registrations (``kind = "2v2"``)."""
    return [reg.ruleset for reg in config.registrations if reg.kind == "2v2"]


def dry_run(
    config: Config,
    client: ForumClient | None = None,
    language: str = SOURCE_LANGUAGE,
    record_language: bool = True,
) -> Iterator[str]:
    """Log in, poll, and yield printable lines: the drafts the bot would post, then what the
    club desks would have posted or sent (sign-up replies, owls), none of it sent.

    One session, the one ``run`` and ``doctor`` open (:mod:`forumbot.ops.session`: the
    configuration's password, one login): every part of the bot (referee, sign-up desks,
    notify) reads through the same read-only client.

    ``language``: the staff's; the lines around the drafts are in it (the drafts themselves
    are the players' French). ``record_language``: record the language the client's pages
    said in the real database (False: the caller recorded the index page's, as ``doctor``:
    :func:`forumbot.ops.doctor.pages_language`).

    Raises:
        ConfigError: no password; LoginFailed/CaptchaRequired: the board refused the login;
        BoardNotFound: no board at ``board.url``; ServerError: the board is down.
    """
    # a one-off session: the running bot's cookie file is neither read nor rewritten
    real = client if client is not None else bot_client(config, keep_session=False)
    readonly = ReadOnlyClient(real)
    log_in(readonly)
    _ = translator(language)
    yield _("logged in to %s as %s", config.board_url, config.username)
    storage = _memory_copy(config.database)
    # The seeds of the duels adopted here are reserved beside the real database, so `run`
    # publishes these very openings, with the same dice commitment (dice_reserve).
    reserve = DiceReserve(reserve_path(config.database), keep=True)
    bot = bootstrap(config, storage=storage, rng=reserve, client=readonly)
    bot.referee.dry_run = True  # its log names no draft id of the copy (newcomer5 C5)
    for report in bot.poll():  # « forum 3: 1 topic, 1 read, 2 new posts » (C7: plurals)
        listed, read, new = report.topics_listed, report.topics_read, report.new_posts
        yield _(
            "forum %s: %s, %s, %s",
            report.forum_id,
            _(ngettext("%s topic", "%s topics", listed), listed),
            _(ngettext("%s read", "%s read", read), read),
            _(ngettext("%s new post", "%s new posts", new), new),
        )
    found = getattr(real, "page_language", None)  # the pages' <html lang>, into the real database
    if found and record_language:
        remember_language(config, found, datetime.now(UTC))
    for duel in storage.duels():
        if duel["status"] in ("open", "running", "finished"):
            status = duel["status"]
            yield _("duel topic %s (%s): %s", duel["topic_id"], duel["title"], _(status))
    pending = storage.declarations(("draft", "approved", "held", "publishing"))
    if not pending:
        yield _("no declaration would be posted now")
    for decl in pending:
        duel = storage.duel(decl["duel_id"])
        kind = decl["kind"]
        yield _("--- would post in topic %s (%s %s) ---", duel["topic_id"], _(kind), decl["turn"])
        yield decl["text"]
    # what the sign-up desks and owls would have sent meanwhile (refused, printed here)
    seen: set[tuple[str, str]] = set()
    for (what, message), (template, values) in zip(readonly.unsent, readonly.said, strict=True):
        if (what, message) in seen:
            continue
        seen.add((what, message))
        yield _("--- would send: %s (not sent) ---", _(template, *values))
        yield message
    if reserve.kept:  # the one file a dry run writes, said (newcomer6 W3)
        yield _(
            "kept for forumbot run: the dice seed of each opening above, in %s (as secret as "
            "the database), so that run publishes the same dice fingerprint; nothing else "
            "was written",
            reserve.path,
        )
    yield _("dry run: nothing was posted")
