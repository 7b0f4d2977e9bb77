"""Issue 11: the rows the referee loop passes around are frozen records, each read once per
poll per duel (:class:`forumbot.storage.records.DuelRecords`).

The SQL the referee's connection runs during one ``poll_forum`` is traced
(``sqlite3.Connection.set_trace_callback``) for a classic, a fatigue 1v1 and a 2v2 duel on
the in-memory forum, poll after poll through a turn (the opening out, one post, the other,
the declaration published, an idle poll). Every SELECT on ``declarations`` or
``posts_seen`` is one of:

- the duel's snapshot: exactly one SELECT of its declarations (``where duel_id = ?``) and one
  of its topic's posts (``where board_id = ? and topic_id = ?``) per poll, the deadline sweep
  at the end of the poll included (it reuses the snapshot); no posts at all when the topic is
  unchanged and nothing calls for an advance;
- the draft writer's one-row read (``where idempotency_key = ?``), once per draft the flow
  returns (the write path reads the row it writes: at most one per poll here).

Nothing else reads those tables while the duel is polled.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from forumbot.duels.duo import make_draw, open_duo_duel
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.storage import Storage, open_storage
from forumbot.storage.records import Declaration, DuelRecords, StoredPost
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum

# The storage and exactly-once tests run on both engines (issue 27, tests/engines.py).
pytestmark = pytest.mark.usefixtures("on_each_engine")

TOPIC = 7
BODY = "\n".join(
    f"Ligne {i} : la baguette levée, le duelliste avance sur le long tapis de la salle."
    for i in range(1, 13)
)
CLASSIC_OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."
_TABLE = re.compile(r"\b(?:from|join)\s+[\[\"]?(declarations|posts_seen)\b", re.I)


@dataclass
class OwlForum(FakeForum):
    """The fake forum, also taking owls (2v2 zones, fatigue reminders)."""

    owls: list[str] = field(default_factory=list)

    def send_pm(
        self, user_id: object, username: str, subject: str, message: str, marker: str
    ) -> None:
        self.owls.append(username)


@dataclass
class Traced:
    """The SELECTs on ``declarations`` / ``posts_seen`` of each traced poll."""

    polls: list[list[str]] = field(default_factory=list)


def referee(storage: Storage, forum: FakeForum, clock: Clock) -> Referee:
    return Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3",
        review_delay_s=0, now=clock, rng=random.Random(3), bot_username="Hibou",
    )  # fmt: skip


def traced_poll(ref: Referee, traced: Traced) -> None:
    """One ``poll_forum`` with its SQL traced; the SELECTs on the two tables are kept."""
    statements: list[str] = []
    ref.storage.db.conn.set_trace_callback(statements.append)
    try:
        ref.poll_forum(3)
    finally:
        ref.storage.db.conn.set_trace_callback(None)
    traced.polls.append(
        [
            " ".join(s.split())
            for s in statements
            if s.lstrip().lower().startswith("select") and _TABLE.search(s)
        ]
    )


def kind_of(select: str) -> str:
    """``snapshot-declarations``, ``snapshot-posts``, ``writer`` or ``other``."""
    table = _TABLE.search(select)
    assert table is not None
    where = select.lower().split(" where ", 1)[-1]
    if table.group(1) == "declarations" and where.startswith("duel_id = "):
        return "snapshot-declarations"
    if table.group(1) == "posts_seen" and where.startswith("board_id = ") and "topic_id" in where:
        return "snapshot-posts"
    if table.group(1) == "declarations" and where.startswith("idempotency_key = "):
        return "writer"
    return "other"


def classic(forum: OwlForum, clock: Clock) -> tuple[Referee, Callable[[str], int]]:
    forum.add_topic(TOPIC, "Duel : Aurora contre Cassius", "Arbitre", CLASSIC_OPENING)
    ref = referee(open_storage(":memory:"), forum, clock)
    ref.poll_forum(3)  # adopted: the opening drafted
    spells = {"Aurora Vexley": "Sortilège de Désarmement", "Cassius Thorne": "Flipendo"}
    return ref, lambda who: forum.add_post(
        TOPIC, who, f"{who} lève sa baguette.\n[b]{spells[who]}[/b]"
    )


def fatigue(forum: OwlForum, clock: Clock) -> tuple[Referee, Callable[[str], int]]:
    forum.add_topic(TOPIC, "Duel : Aurora contre Cassius", "Arbitre", "Le duel va commencer.")
    ref = referee(open_storage(":memory:"), forum, clock)
    ref.adopt(
        3, TOPIC, "Duel : Aurora contre Cassius",
        [("Aurora Vexley", "5", ["brutale"]), ("Cassius Thorne", "7", ["sournoise"])],
        ruleset="fatigue", dice_secret=bytes(range(32)),
    )  # fmt: skip
    actions = {
        "Aurora Vexley": "[b]Flipendo[/b]\nAction : lancer un sort\nPari : [1,2,3]",
        "Cassius Thorne": "Action : esquiver\nPari : [4,5,6]",
    }
    return ref, lambda who: forum.add_post(TOPIC, who, BODY + "\n" + actions[who])


def duo(forum: OwlForum, clock: Clock) -> tuple[Referee, Callable[[str], int]]:
    forum.add_topic(TOPIC, "2v2", "Arbitre", "La bibliothèque.")
    ref = referee(open_storage(":memory:"), forum, clock)
    names = ("Aurora", "Blaise", "Cassius", "Dorian")
    secret = next(
        s for s in (i.to_bytes(32, "big") for i in range(5000))
        if [make_draw(s, f"phpbb3:{TOPIC}")(f"place:{n}", 4) for n in names] == [3, 0, 1, 2]
    )  # fmt: skip
    open_duo_duel(
        ref, 3, TOPIC, "2v2",
        [[("Aurora", "adult", ["brutale"]), ("Blaise", "adult", ["discrete"])],
         [("Cassius", "adult", ["sournoise"]), ("Dorian", "adult", ["protectrice"])]],
        "bibliotheque", dice_secret=secret,
    )  # fmt: skip
    cast = "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]\nCible : le décor"
    return ref, lambda who: forum.add_post(TOPIC, who, BODY + cast)


SCENARIOS = {
    "classic": (classic, ("Aurora Vexley", "Cassius Thorne")),
    "fatigue": (fatigue, ("Aurora Vexley", "Cassius Thorne")),
    "2v2": (duo, ("Aurora", "Blaise")),
}


@pytest.mark.sqlite_only(
    "counts the snapshot reads SQLite's PRAGMA data_version saves; on PostgreSQL the snapshot"
    " version also changes at the session's own writes, so it is read again (forumbot.storage.pg)"
)
@pytest.mark.parametrize("kind", sorted(SCENARIOS))
def test_one_poll_reads_the_duels_declarations_and_posts_once(kind: str) -> None:
    forum, clock = OwlForum(), Clock()
    setup, (first, second) = SCENARIOS[kind]
    ref, post = setup(forum, clock)
    traced = Traced()
    assert publish_due(ref.storage, forum, clock), "the opening is out"
    traced_poll(ref, traced)  # reads the opening
    post(first)
    traced_poll(ref, traced)
    published = publish_due(ref.storage, forum, clock)  # fatigue / 2v2: one post, one draft
    traced_poll(ref, traced)
    post(second)
    traced_poll(ref, traced)
    published += publish_due(ref.storage, forum, clock)
    assert published, "a declaration came out of the turn"
    traced_poll(ref, traced)
    clock.advance(60)
    traced_poll(ref, traced)  # idle
    assert ref.storage.declarations(("published",)), kind
    for number, selects in enumerate(traced.polls):
        kinds = [kind_of(s) for s in selects]
        assert kinds.count("snapshot-declarations") == 1, (kind, number, selects)
        # posts: once (fatigue and 2v2 topics are under the edit watch: read every poll), or
        # not at all when a classic topic is unchanged and nothing calls for an advance
        posts = kinds.count("snapshot-posts")
        assert posts == 1 or (kind == "classic" and posts == 0), (kind, number, selects)
        assert kinds.count("writer") <= 1, (kind, number, selects)
        assert "other" not in kinds, (kind, number, selects)


@pytest.mark.sqlite_only(
    "counts the snapshot reads SQLite's PRAGMA data_version saves; on PostgreSQL the snapshot"
    " version also changes at the session's own writes, so it is read again (forumbot.storage.pg)"
)
def test_a_fatigue_deadline_sweep_reuses_the_polls_snapshot() -> None:
    """After a fatigue declaration a deadline is pending: the sweep at the end of the poll
    reads no declaration and no post of its own."""
    forum, clock = OwlForum(), Clock()
    ref, post = fatigue(forum, clock)
    publish_due(ref.storage, forum, clock)
    assert ref.storage.db["deadlines"].count == 1
    traced = Traced()
    traced_poll(ref, traced)
    assert [kind_of(s) for s in traced.polls[0]] == ["snapshot-declarations", "snapshot-posts"]


@pytest.mark.sqlite_only(
    "SQLite's PRAGMA data_version: a PostgreSQL session is told nothing of other sessions'"
    " commits, so there every snapshot is read again (forumbot.storage.pg)"
)
def test_another_connections_commit_makes_the_snapshot_read_again(tmp_path: object) -> None:
    """A snapshot is read again once another connection (the publish worker, the review
    page) committed: PRAGMA data_version changed."""
    from pathlib import Path

    path = Path(str(tmp_path)) / "bot.db"
    forum, clock = OwlForum(), Clock()
    forum.add_topic(TOPIC, "Duel : Aurora contre Cassius", "Arbitre", CLASSIC_OPENING)
    ref = referee(open_storage(path), forum, clock)
    ref.poll_forum(3)
    duel_id = ref.storage.duels()[0]["id"]
    records = ref.storage.duel_records(duel_id)
    assert ref.storage.fresh_records(records) is records
    other = open_storage(path)
    draft = other.declarations(("draft",), duel_id)[0]
    other.db["declarations"].update(draft["id"], {"status": "approved"})
    other.close()
    fresh = ref.storage.fresh_records(records)
    assert fresh is not records
    assert [d.status for d in fresh.declarations] == ["approved"]
    assert [d.status for d in records.declarations] == ["draft"]


def test_the_records_decode_their_json_columns() -> None:
    decl = Declaration.from_row(
        {
            "id": 4, "duel_id": 1, "turn": 2, "kind": "turn", "idempotency_key": "b1t7-turn2",
            "status": "approved", "text": "Tour 2", "text_edited": 0,
            "context_json": '{"context": {"turn": 2}, "inputs": {"posts": [{"post_id": 9}]},'
            ' "outcome": {"finished": false}}',
            "overrides_json": '{"Aurora.damage": 30}', "waived_json": '[["Aurora", "short_post"]]',
            "published_post_id": None, "version": 3, "marker": "forumbot·b1t7-turn2·",
            "publish_after": "2026-11-30T12:10:00+00:00", "claimed_by": None,
        }
    )  # fmt: skip
    assert decl.context == {"turn": 2}
    assert decl.inputs == {"posts": [{"post_id": 9}]}
    assert decl.outcome == {"finished": False}
    assert decl.overrides == {"Aurora.damage": 30}
    assert decl.waived == [["Aurora", "short_post"]]
    assert (decl.editable, decl.version, decl.marker) == (True, 3, "forumbot·b1t7-turn2·")
    assert Declaration.of(decl) is decl
    post = StoredPost.from_row(
        {
            "board_id": 1, "topic_id": 7, "post_id": 9, "author": "Aurora", "author_id": 5,
            "text": "Flipendo", "action_json": '{"spell": "Flipendo", "bet": [1, 2]}',
            "dice_json": '[{"name": "Pari", "values": [4]}]', "content_hash": "ab",
            "hash_changes": 2, "first_seen_at": "2026-11-30T12:00:00+00:00",
        }
    )  # fmt: skip
    assert post.action == {"spell": "Flipendo", "bet": [1, 2]}
    assert post.dice == [{"name": "Pari", "values": [4]}]
    assert (post.key, post.hash_changes) == ({"board_id": 1, "post_id": 9}, 2)


def test_a_snapshot_answers_its_queries_from_its_rows() -> None:
    def decl(i: int, status: str, post_id: int | None, key: str) -> Declaration:
        return Declaration(i, 1, i, "turn", key, status, "", False, published_post_id=post_id)

    def stored(post_id: int, seen: str) -> StoredPost:
        return StoredPost(1, 7, post_id, "Aurora", None, "", first_seen_at=seen)

    from forumbot.storage.records import Duel

    duel = Duel(1, 1, 3, 7, "t", "classic", "running")
    records = DuelRecords(
        duel,
        (decl(1, "published", 12, "k1"), decl(2, "published", 15, "k2"),
         decl(3, "held", None, "k3"), decl(4, "cancelled", None, "k4")),
        (stored(11, "a"), stored(13, "b")),
    )  # fmt: skip
    assert [d.id for d in records.published()] == [1, 2]
    assert [d.id for d in records.editable()] == [3]
    assert records.by_key("k3") is records.declarations[2] and records.by_key("x") is None
    assert records.last_published_post_id() == 15
    assert records.publications() == (2, 2)
    assert [p.post_id for p in records.posts_after(11)] == [13]
    merged = records.with_posts([stored(12, "c"), stored(13, "d")])
    assert [(p.post_id, p.first_seen_at) for p in merged.posts] == [(11, "a"), (12, "c"), (13, "d")]
    assert [p.first_seen_at for p in records.posts] == ["a", "b"]  # the snapshot is frozen
