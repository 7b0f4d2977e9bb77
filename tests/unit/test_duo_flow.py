"""The 2v2 shell (forumbot.duels.duo, forumbot.club.inbox) on the fake forum: one 2v2 at a time,
starting-zone owls once across restarts, the inbox turned into referee tasks once, tasks closed,
a mechanism judged solved stated with its reward in the next declaration."""

from __future__ import annotations

import json
import random
from collections.abc import Container
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from forumbot.club.inbox import poll_inbox
from forumbot.duels.duo import (
    DuoBusy,
    close_task,
    current_state,
    make_draw,
    open_duo_duel,
    referee_tasks,
    reveal_zones,
    use_item_line,
)
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.publish.owls import owls
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from tests.fakes.forum import FakeForum

A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BODY = "\n".join(f"Ligne {i} du message, assez longue pour compter." for i in range(12))


@dataclass
class InboxForum(FakeForum):
    inbox: list[tuple[int, str, str, str]] = field(default_factory=list)
    sent: list[tuple[str, str]] = field(default_factory=list)

    def read_pm_inbox(self, skip: Container[int] = frozenset()) -> list[tuple[int, str, str, str]]:
        return [
            (i, who, subject, "" if i in skip else text) for i, who, subject, text in self.inbox
        ]

    def send_pm(self, user_id: object, username: str, subject: str, message: str,
                marker: str) -> None:  # fmt: skip
        self.sent.append((username, subject))


def setup(storage: Storage, forum: InboxForum) -> tuple[Referee, int]:
    ref = Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3", review_delay_s=0,
        now=lambda: NOW, rng=random.Random(3), bot_username="Hibou",
    )  # fmt: skip
    forum.add_topic(7, "2v2", "Arbitre", "La bibliothèque.")
    secret = next(
        s for s in (i.to_bytes(32, "big") for i in range(5000))
        if [make_draw(s, "phpbb3:7")(f"place:{n}", 4) for n in (A1, A2, B1, B2)] == [3, 0, 1, 2]
    )  # fmt: skip
    duel_id = open_duo_duel(
        ref, 3, 7, "2v2",
        [[(A1, "adult", ["brutale"]), (A2, "adult", ["discrete"])],
         [(B1, "adult", ["sournoise"]), (B2, "adult", ["protectrice"])]],
        "bibliotheque", dice_secret=secret,
    )  # fmt: skip
    return ref, duel_id


def test_opening_owls_once_inbox_tasks_and_a_solved_mechanism() -> None:
    storage = open_storage(":memory:")
    forum = InboxForum()
    ref, duel_id = setup(storage, forum)
    forum.add_topic(8, "autre", "Arbitre", "x")
    with pytest.raises(DuoBusy):
        open_duo_duel(ref, 3, 8, "autre", [], "serre")
    assert len(publish_due(storage, forum, lambda: NOW)) == 1  # opening published
    duel = storage.duel(duel_id)
    assert duel["status"] == "running"
    state = current_state(storage, duel)
    assert state.zone_of(A1) == "horloge" and state.duel.started
    assert reveal_zones(ref, duel, state) == 4
    assert reveal_zones(Referee(storage, forum, board_url="http://board.invalid",
                                platform="phpbb3", now=lambda: NOW,
                                rng=random.Random(1)), duel, state) == 0  # fmt: skip
    zone_rows = [o for o in owls(storage, ref.board_id) if o["kind"] == "zone"]
    assert sorted(o["recipient"] for o in zone_rows) == sorted([A1, A2, B1, B2])
    magic = [o for o in owls(storage, ref.board_id) if o["kind"] == "magic_types"]
    assert sorted(o["recipient"] for o in magic) == sorted([A1, A2, B1, B2])  # at the opening

    forum.inbox = [(11, A1, "Le cadran ?", "Que disent les runes ?"), (12, "Passant", "Hello", "x")]
    assert len(poll_inbox(storage, forum, ref.board_id, lambda: NOW, bot_username="Hibou")) == 1
    assert poll_inbox(storage, forum, ref.board_id, lambda: NOW, bot_username="Hibou") == []
    task = referee_tasks(storage, ref.board_id)[0]
    assert (task["kind"], task["duellist"], task["zone"]) == ("owl_question", A1, "horloge")
    assert "runique" in task["note"]
    with pytest.raises(ValueError):
        close_task(storage, task["id"], "solved", "Arbitre", NOW)
    assert close_task(storage, task["id"], "done", "Arbitre", NOW)
    assert not close_task(storage, task["id"], "done", "Arbitre", NOW)

    # A1 acts on the clock's dial: a referee task; judged solved, the next draft rewards it.
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]"
                   "\nCible : le cadran runique\nDéplacement : zone 2")  # fmt: skip
    ref.poll_duel(duel_id)
    tasks = referee_tasks(storage, ref.board_id)
    assert [(t["kind"], t["mechanism"]) for t in tasks] == [("mechanism", "cadran")]
    publish_due(storage, forum, lambda: NOW)
    assert close_task(storage, tasks[0]["id"], "solved", "Arbitre", NOW)
    forum.add_post(7, A2, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]"
                   "\nCible : le décor\nObjet : rien")  # fmt: skip
    ref.poll_duel(duel_id)
    draft = [d for d in storage.declarations(("draft",), duel_id)][-1]
    assert (
        "a résolu le cadran runique" in draft["text"]
        and "reçoit en récompense" in plain(draft["text"])
    )
    assert "n'a pas l'objet « rien »" in plain(draft["text"])
    stored = json.loads(draft["context_json"])["context"]["duo_state"]
    assert stored["solved"] == [["cadran", A1]]


def test_use_item_line() -> None:
    assert use_item_line("texte\nObjet : le flacon\nPari : [1,2,3,4]") == "le flacon"
    assert use_item_line("Utiliser: cache-oreilles") == "cache-oreilles"
    assert use_item_line("rien ici") is None


def test_inbox_owls_before_the_opening_is_out_from_the_bot_or_from_nobody() -> None:
    """Found by a break-it pass: an owl sent while the 2v2 was open (opening not yet
    published) was dropped; the bot's own message was re-read on every poll; a message
    whose page named no sender was dropped without a word."""
    storage = open_storage(":memory:")
    forum = InboxForum()
    ref, duel_id = setup(storage, forum)
    assert storage.duel(duel_id)["status"] == "open"  # the opening is not published yet
    forum.inbox = [(21, B2, "Ma zone ?", "Où suis-je ?"), (22, "Hibou", "copie", "x"),
                   (23, "", "???", "Qui suis-je ?")]  # fmt: skip
    created = poll_inbox(storage, forum, ref.board_id, lambda: NOW, bot_username="Hibou")
    assert len(created) == 2
    tasks = {t["source_key"]: t for t in referee_tasks(storage, ref.board_id)}
    mine = tasks[f"b{ref.board_id}-pm21"]
    assert (mine["duellist"], mine["zone"]) == (B2, "escalier")
    nobody = tasks[f"b{ref.board_id}-pm23"]
    assert nobody["duellist"] == "" and "non reconnu" in nobody["note"]
    assert nobody["text"] == "Qui suis-je ?"
    seen = {r["msg_id"] for r in storage.db["inbox_seen"].rows}
    assert seen == {21, 22, 23}  # the bot's own message too: never read again
    assert poll_inbox(storage, forum, ref.board_id, lambda: NOW, bot_username="Hibou") == []
