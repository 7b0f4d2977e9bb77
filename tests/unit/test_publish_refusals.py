"""Issue 22 at unit level: queued and refused posts, the free look at the posts already read
before a first post, the restore window, owls keyed by board facts, queued and refused PMs,
and the board wordings that decide them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from forumbot.errors import InboxFull, PostQueued, TopicLocked
from forumbot.forums.forumactif_pages import classify_answer
from forumbot.publish.owls import draft_owl, owl, owl_key, send_due_owls
from forumbot.publish.poster import PublishState, publish_due
from forumbot.publish.refusals import REFUSED_PREFIX, seen_marker
from forumbot.publish.render import marker_text
from forumbot.storage import Storage, iso, open_storage
from parsers.phpbb import parse_topic_page
from parsers.phpbb_forms import classify_notice
from tests.fakes.forum import ClubForum

# The storage and exactly-once tests run on both engines (issue 27, tests/engines.py).
pytestmark = pytest.mark.usefixtures("on_each_engine")

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def clock() -> datetime:
    return NOW


def store(path: str | Path = ":memory:") -> Storage:
    storage = open_storage(path)
    storage.board_id("http://board.invalid", "phpbb3", NOW)
    return storage


def add_duel(storage: Storage, topic_id: int = 7) -> int:
    return int(
        storage.db["duels"]
        .insert(
            {"board_id": 1, "topic_id": topic_id, "title": "Duel 1", "status": "running",
             "ruleset": "classic", "state_json": "{}", "created_at": iso(NOW)}
        )  # fmt: skip
        .last_pk
    )


def add_decl(
    storage: Storage, duel_id: int, key: str = "b1t7-turn1", status: str = "approved"
) -> int:
    return int(
        storage.db["declarations"]
        .insert(
            {"duel_id": duel_id, "turn": 1, "kind": "turn", "idempotency_key": key,
             "status": status, "text": "Tour 1.", "text_edited": 0, "version": 1,
             "marker": marker_text(key), "attempts": 0, "created_at": iso(NOW),
             "updated_at": iso(NOW), "publish_after": iso(NOW)}
        )  # fmt: skip
        .last_pk
    )


def add_seen(storage: Storage, post_id: int, author: str, text: str, topic_id: int = 7) -> None:
    storage.db["posts_seen"].insert(
        {"board_id": 1, "topic_id": topic_id, "post_id": post_id, "author": author, "text": text}
    )


@dataclass
class Board(ClubForum):
    """A fake board that says its user name, and queues or refuses on demand."""

    username: str = "Hibou"
    queue: bool = False
    refuse: str | None = None
    pm_queue: bool = False
    pm_full: bool = False

    def reply(self, topic_id: int, message: str, marker: str) -> int:
        if self.refuse is not None:
            raise TopicLocked(f"posting.php?mode=reply&t={topic_id}: {self.refuse}", self.refuse)
        if self.queue:
            self.replies_sent += 1
            raise PostQueued("Votre message a été posté, mais requiert l'approbation")
        return super().reply(topic_id, message, marker)

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        if self.pm_full:
            full = "Désolé, mais la boîte de réception de ce membre est pleine."
            raise InboxFull("PM: full", full)
        super().send_pm(user_id, username, subject, message, marker)
        if self.pm_queue:
            self.pms[-1]["held"] = True
            raise PostQueued("message privé en attente d'un modérateur")

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        return any(
            pm["subject"] == subject and marker in str(pm["message"]) and not pm.get("held")
            for pm in self.pms
        )


# ---------------------------------------------------------------------------- seen_marker


def test_seen_marker_finds_only_the_bots_own_post_and_the_whole_key() -> None:
    storage = store()
    key = marker_text("b1t7-turn1")
    add_seen(storage, 10, "Aurora Vexley", f"En citant le bot : {key}")  # a quote
    add_seen(storage, 11, "Hibou", f"Tour 10. {marker_text('b1t7-turn10')}")
    assert seen_marker(storage, 1, 7, key, "Hibou") is None
    add_seen(storage, 12, "HIBOU", f"Tour 1.\n{key}")
    assert seen_marker(storage, 1, 7, key, "hibou") == 12
    assert seen_marker(storage, 1, 8, key, "Hibou") is None  # another topic
    assert seen_marker(storage, 1, 7, key, None) is None  # a client that does not say who


def test_a_row_drafted_after_start_is_found_in_the_posts_read_at_no_cost() -> None:
    storage, forum = store(), Board()
    forum.add_topic(7, "Duel 1", "Arbitre", "Ouverture")
    state = PublishState.at_start(storage, NOW)
    duel = add_duel(storage)
    decl = add_decl(storage, duel)
    add_seen(storage, 55, "Hibou", f"Tour 1.\n{marker_text('b1t7-turn1')}")
    reads = forum.reads
    assert publish_due(storage, forum, clock, on_published=None, state=state) == [55]
    assert forum.replies_sent == 0 and forum.reads == reads  # no request at all
    row = storage.declaration(decl)
    assert row["status"] == "published" and row["published_post_id"] == 55


# ---------------------------------------------------------------------------- queued / refused


def test_a_queued_post_is_never_posted_again_and_opens_one_task() -> None:
    storage, forum = store(), Board(queue=True)
    forum.add_topic(7, "Duel 1", "Arbitre", "Ouverture")
    decl = add_decl(storage, add_duel(storage))
    for _ in range(4):
        assert publish_due(storage, forum, clock, on_published=None) == []
    assert forum.replies_sent == 1
    row = storage.declaration(decl)
    assert row["status"] == "queued" and row["last_error"].startswith("PostQueued")
    tasks = list(storage.db["referee_tasks"].rows)
    assert len(tasks) == 1 and tasks[0]["kind"] == "publish_queued"


def test_a_refusal_holds_the_row_with_the_sentence_in_both_languages() -> None:
    storage = store()
    sentence = "This topic is locked, you cannot edit posts or make further replies."
    forum = Board(refuse=sentence)
    forum.add_topic(7, "Duel 1", "Arbitre", "Ouverture")
    decl = add_decl(storage, add_duel(storage))
    assert publish_due(storage, forum, clock, on_published=None) == []
    row = storage.declaration(decl)
    assert row["status"] == "held" and row["last_error"] == REFUSED_PREFIX + sentence
    (task,) = storage.db["referee_tasks"].rows
    assert task["kind"] == "publish_refused" and task["text"].count(sentence) == 2
    assert "FR :" in task["text"] and "EN:" in task["text"]
    assert publish_due(storage, forum, clock, on_published=None) == []  # held: not retried


# ---------------------------------------------------------------------------- restore window


def backed_up(tmp_path: Path, db: Path) -> tuple[str, Path]:
    """The database ``db`` opened (on PostgreSQL: its schema), closed, and backed up with
    ``forumbot backup``'s function: ``(its storage.url or path, the backup)``. Skips on
    PostgreSQL without ``pg_dump``."""
    from forumbot.ops.backup import backup
    from forumbot.storage.engine import is_postgres
    from forumbot.storage.pg_files import PgToolError, pg_tool

    first = store(db)
    where = first.path
    first.close()
    if is_postgres(where):
        try:
            pg_tool("pg_dump")
        except PgToolError as exc:
            pytest.skip(str(exc))
    return where, backup(where, tmp_path / "b", NOW)


def test_a_restore_opens_a_marker_check_window_from_the_first_start(tmp_path: Path) -> None:
    """On both engines: a SQLite file copy, or pg_dump / pg_restore of the club's schema."""
    from forumbot.ops.backup import restore

    db = tmp_path / "bot.db"
    where, saved = backed_up(tmp_path, db)
    restore(saved, where, now=NOW)
    storage = open_storage(db)
    later = NOW + timedelta(days=3)  # started long after the restore: the window starts now
    state = PublishState.at_start(storage, later)
    duel = add_duel(storage)
    decl = storage.declaration(add_decl(storage, duel))
    from forumbot.storage.records import Declaration

    fresh = Declaration.from_row(decl)
    assert fresh.id > state.fresh_after
    assert state.needs_marker_check(fresh, later + timedelta(hours=1))
    again = PublishState.at_start(storage, later + timedelta(hours=2))  # a restart: same window
    assert again.check_until == state.check_until
    assert not state.needs_marker_check(fresh, later + timedelta(days=2))  # window over
    assert not PublishState.at_start(store(), NOW).check_until  # no restore, no window


def test_a_declaration_published_after_the_backup_is_not_posted_again_after_a_restore(
    tmp_path: Path,
) -> None:
    """Issue 22/24 on both engines: the backup knows the turn as ``approved``; it went out
    after the backup; the restored database's first pass finds its marker on the board and
    records it, with no second post, though its id is newer than nothing the process wrote."""
    from forumbot.ops.backup import restore

    db = tmp_path / "bot.db"
    storage, forum = store(db), Board()
    forum.add_topic(7, "Duel 1", "Arbitre", "Ouverture")
    decl = add_decl(storage, add_duel(storage))
    storage.close()
    where, saved = backed_up(tmp_path, db)
    storage = open_storage(db)
    (posted,) = publish_due(storage, forum, clock, on_published=None)
    assert forum.replies_sent == 1
    storage.close()
    restore(saved, where, now=NOW)
    storage = open_storage(db)
    assert storage.declaration(decl)["status"] == "approved"  # the backup's view
    state = PublishState.at_start(storage, NOW + timedelta(minutes=5))
    assert publish_due(storage, forum, clock, on_published=None, state=state) == [posted]
    assert forum.replies_sent == 1  # found by its marker: not posted twice
    row = storage.declaration(decl)
    assert row["status"] == "published" and row["published_post_id"] == posted


# ---------------------------------------------------------------------------- owls


def test_owl_keys_come_from_board_facts_and_old_keys_stay_readable() -> None:
    assert owl_key(1, 7, "magic_types", "aurora_v", "Aurora Vexley") == (
        "b1t7-owl-magic_types-aurora-v-aurora-vexley"
    )
    assert owl_key(1, 7, "result", "Aurora Vexley", "Aurora Vexley") == (
        "b1t7-owl-result-aurora-vexley"
    )
    storage = store()
    old = draft_owl(storage, 1, "b1-duel1-owl-aurora-vexley", "magic_types", "Aurora Vexley",
                    "S", "T", NOW)  # fmt: skip
    new = draft_owl(
        storage, 1, owl_key(1, 7, "magic_types", "Aurora Vexley"), "magic_types",
        "Aurora Vexley", "S", "T", NOW, legacy_keys=("b1-duel1-owl-aurora-vexley",),
    )  # fmt: skip
    assert new == old


def test_after_a_restore_a_pending_owl_already_in_the_sentbox_is_not_sent_again() -> None:
    storage, forum = store(), Board()
    key = owl_key(1, 7, "result", "Aurora Vexley")
    draft_owl(storage, 1, key, "result", "Aurora Vexley", "Fin du duel", "Gagné.", NOW)
    assert len(send_due_owls(storage, forum, clock, 1)) == 1
    storage.db.execute("update owls set status = 'pending'")  # the backup's view of it
    storage.db.execute(
        "insert into publish_restores (restored_at, backup) values (?, 'x.db')", [iso(NOW)]
    )
    PublishState.at_start(storage, NOW)
    assert len(send_due_owls(storage, forum, clock, 1)) == 1  # found, not sent
    assert len(forum.pms) == 1 and owl(storage, key)["status"] == "sent"  # type: ignore[index]


def test_a_queued_pm_is_not_resent_and_is_settled_once_delivered() -> None:
    storage, forum = store(), Board(pm_queue=True)
    duel = add_duel(storage)
    draft_owl(storage, 1, "k", "result", "Aurora Vexley", "Fin", "Gagné.", NOW, duel_id=duel)
    for _ in range(3):
        assert send_due_owls(storage, forum, clock, 1) == []
    assert len(forum.pms) == 1 and owl(storage, "k")["status"] == "queued"  # type: ignore[index]
    assert [t["kind"] for t in storage.db["referee_tasks"].rows] == ["owl_queued"]
    forum.pms[0]["held"] = False  # a moderator let it through
    assert len(send_due_owls(storage, forum, clock, 1)) == 1
    assert owl(storage, "k")["status"] == "sent"  # type: ignore[index]


def test_a_full_inbox_fails_the_owl_clearly_with_a_task() -> None:
    storage, forum = store(), Board(pm_full=True)
    duel = add_duel(storage)
    draft_owl(storage, 1, "k", "result", "Aurora Vexley", "Fin", "Gagné.", NOW, duel_id=duel)
    assert send_due_owls(storage, forum, clock, 1) == []
    row = owl(storage, "k")
    assert row is not None and row["status"] == "failed"
    assert row["last_error"].startswith("InboxFull: Désolé, mais la boîte de réception")
    (task,) = storage.db["referee_tasks"].rows
    assert task["kind"] == "owl_refused" and "pleine" in task["text"] and "EN:" in task["text"]
    assert send_due_owls(storage, forum, clock, 1) == [] and forum.pms == []


# ---------------------------------------------------------------------------- board wordings


@pytest.mark.parametrize(
    ("box", "kind"),
    [
        ("Ce sujet est verrouillé, vous ne pouvez pas éditer de messages ou poster de réponses.",
         "locked"),
        ("Ce sujet est verrouillé, vous ne pouvez pas modifier de messages ou poster de réponse.",
         "locked"),
        ("This topic is locked, you cannot edit posts or make further replies.", "locked"),
        ("Forum verrouillé", "locked"),
        ("Forum locked", "locked"),
        ("You cannot reply in this forum.", "permission_denied"),
        ("Votre message a été posté, mais requiert l’approbation d’un modérateur.", "queued"),
    ],
)  # fmt: skip
def test_phpbb_refusal_pages_are_recognised(box: str, kind: str) -> None:
    html = (
        '<html><body><div id="page-body"><div class="panel" id="message"><div class="inner">'
        f'<h2 class="message-title">Informations</h2><p>{box}</p></div></div></div></body></html>'
    )
    notice = classify_notice(html)
    assert notice.kind == kind and notice.message == box


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Ce sujet est verrouillé, vous ne pouvez pas éditer de messages ou faire de réponses.",
         "locked"),
        ("Votre message a été enregistré, mais il doit être approuvé par un modérateur.", "queued"),
        ("Désolé, mais la boîte de réception de ce membre est pleine.", "inbox_full"),
        ("Sorry, but this user's inbox is full.", "inbox_full"),
    ],
)  # fmt: skip
def test_forumactif_refusal_answers_are_recognised(text: str, kind: str) -> None:
    html = f'<html><body><table class="message_body"><tr><td>{text}</td></tr></table></body></html>'
    assert classify_answer(html).kind == kind


def test_the_phpbb_parser_marks_a_post_awaiting_approval() -> None:
    from forumbot.sandbox import SandboxBoard, pages

    board = SandboxBoard(state_path=None, flood_interval_s=0)
    board.add_user("Hibou", "pw")
    board.add_user("Arbitre", "pw")
    topic = board.create_topic(3, "Arbitre", "Duel", "Ouverture")
    post = board.post_reply(topic, "Hibou", "En attente")
    board.set_needs_approval("Hibou")  # (the flag acts on new posts; this one is queued by hand)
    board._posts[post].approved = False
    queued = pages.post_html(board._post_view(board._posts[post]), 1, True)
    shown = pages.post_html(board._post_view(board._posts[post - 1]), 0, True)
    page = (
        '<html><body><div id="page-body"><h2 class="topic-title"><a href="./viewtopic.php?t='
        f'{topic}">Duel</a></h2>{shown}{queued}</div></body></html>'
    )
    first, second = parse_topic_page(page, f"t{topic}").posts
    assert not first.unapproved
    assert second.unapproved and second.post_id == post and "En attente" in second.text


def test_a_version_with_another_dice_digest_on_the_board_is_not_posted_but_told() -> None:
    storage, forum = store(), Board()
    forum.add_topic(7, "Duel 1", "Arbitre", "Ouverture")
    ours, theirs = "a" * 64, "b" * 64
    decl = add_decl(storage, add_duel(storage))
    storage.db["declarations"].update(decl, {"text": f"Empreinte des dés : [b]{ours}[/b]"})
    key = marker_text("b1t7-turn1")
    add_seen(storage, 55, "Hibou", f"Empreinte des dés : {theirs}\n{key}")
    assert publish_due(storage, forum, clock, on_published=None) == [55]
    assert forum.replies_sent == 0
    (task,) = storage.db["referee_tasks"].rows
    assert task["kind"] == "publish_mismatch" and "55" in task["text"]
    storage.db["referee_tasks"].delete_where()
    # the same digest, another note in the text (posts read since): nothing to tell
    add_seen(storage, 56, "Hibou", f"Tour 2 : 12 PV. {ours}\n{marker_text('b1t7-turn2')}")
    decl2 = add_decl(storage, 1, "b1t7-turn2")
    storage.db["declarations"].update(
        decl2, {"text": f"Tour 2 : 12 PV. {ours}\nMessages supplémentaires : n°17, n°18"}
    )
    assert publish_due(storage, forum, clock, on_published=None) == [56]
    assert list(storage.db["referee_tasks"].rows) == []


def test_a_permission_refusal_is_held_like_a_lock() -> None:
    from forumbot.errors import PermissionDenied

    storage = store()

    @dataclass
    class Refusing(Board):
        def reply(self, topic_id: int, message: str, marker: str) -> int:
            raise PermissionDenied("posting.php: refused", "Vous n'êtes pas autorisé à répondre.")

    forum = Refusing()
    forum.add_topic(7, "Duel 1", "Arbitre", "Ouverture")
    decl = add_decl(storage, add_duel(storage))
    assert publish_due(storage, forum, clock, on_published=None) == []
    row = storage.declaration(decl)
    assert row["status"] == "held"
    assert row["last_error"] == REFUSED_PREFIX + "Vous n'êtes pas autorisé à répondre."
    assert [t["kind"] for t in storage.db["referee_tasks"].rows] == ["publish_refused"]
