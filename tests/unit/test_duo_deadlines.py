"""2v2 timeouts (issue 5): 48 h, not 36 h, for whoever is expected next; a relaunch, then a
closure with no winner; a post cancels a pending relaunch (RULES.md "Ruleset fatigue — all
duels": "Timeouts: 36 h for 1v1, 48 h for 2v2 [D] [...] In 2v2 the clock runs for whoever is
expected next")."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from forumbot.club.context import DeskContext
from forumbot.club.duo_settling import settle_duo
from forumbot.duels.deadlines import duel_kind, sweep
from forumbot.duels.duo import make_draw, open_duo_duel
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from forumbot.storage.records import Declaration
from tests.fakes.forum import FakeForum

A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"
BODY = "\n".join(f"Ligne {i} du message, assez longue pour compter." for i in range(12))
HOUR = 3600


class Clock:
    """A settable clock (aware UTC)."""

    def __init__(self) -> None:
        self.t = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


def setup(
    storage: Storage, forum: FakeForum, clock: Clock, placements: list[int] | None = None
) -> tuple[Referee, int]:
    """A 2v2 duel opened in topic 7; ``placements``: the starting zones of A1, A2, B1, B2
    the dice secret is chosen to give (default [3, 0, 1, 2])."""
    zones = placements or [3, 0, 1, 2]
    ref = Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3", review_delay_s=0,
        now=clock, rng=random.Random(3), bot_username="Hibou",
    )  # fmt: skip
    forum.add_topic(7, "2v2", "Arbitre", "La bibliothèque.")
    secret = next(
        s for s in (i.to_bytes(32, "big") for i in range(5000))
        if [make_draw(s, "phpbb3:7")(f"place:{n}", 4) for n in (A1, A2, B1, B2)] == zones
    )  # fmt: skip
    duel_id = open_duo_duel(
        ref, 3, 7, "2v2",
        [[(A1, "adult", ["brutale"]), (A2, "adult", ["discrete"])],
         [(B1, "adult", ["sournoise"]), (B2, "adult", ["protectrice"])]],
        "bibliotheque", dice_secret=secret,
    )  # fmt: skip
    return ref, duel_id


def pending(storage: Storage, duel_id: int) -> dict[str, object]:
    rows = list(storage.db["deadlines"].rows_where("duel_id = ? and status = 'pending'", [duel_id]))
    assert len(rows) == 1
    return rows[0]


def test_48h_for_the_expected_duellists_then_relaunch_once() -> None:
    storage, forum, clock = open_storage(":memory:"), FakeForum(), Clock()
    ref, duel_id = setup(storage, forum, clock)
    assert len(publish_due(storage, forum, clock)) == 1  # the opening
    assert duel_kind(storage, storage.duel(duel_id)) == "2v2"
    row = pending(storage, duel_id)
    assert sorted(json.loads(str(row["expected_json"]))) == sorted([A1, A2, B1, B2])
    assert row["due_at"] == (clock() + timedelta(hours=48)).isoformat()

    clock.advance(36 * HOUR + 60)  # past a 1v1 delay: nothing happens in 2v2
    assert sweep(ref) == 0
    assert storage.declarations(("draft",), duel_id) == []

    clock.advance(12 * HOUR)  # past 48 h: the relaunch, once
    assert sweep(ref) == 1
    assert sweep(ref) == 0
    (draft,) = storage.declarations(("draft",), duel_id)
    assert draft["kind"] == "relaunch"
    assert "Aucun message depuis 48 h" in draft["text"]
    assert f"Doivent poster pour le tour 1 : {A1}, {A2}, {B1} et {B2}, avant le" in plain(plain)(
        draft["text"]
    )
    assert len(publish_due(storage, forum, clock)) == 1
    assert pending(storage, duel_id)["relaunches"] == 1

    # A1 posts: the clock now runs for the three others only.
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]"
                   "\nCible : le décor\nDéplacement : zone 2")  # fmt: skip
    ref.poll_duel(duel_id)
    assert len(publish_due(storage, forum, clock)) == 1
    row = pending(storage, duel_id)
    assert sorted(json.loads(str(row["expected_json"]))) == sorted([A2, B1, B2])
    assert row["relaunches"] == 0  # a post resets the relaunch allowance

    assert row["phase"] == "awaiting_defense"  # issue 26 (D6): the turn is under way

    clock.advance(47 * HOUR)
    assert sweep(ref) == 0
    clock.advance(HOUR + 60)
    assert sweep(ref) == 1
    # issue 26 (D6): someone took the initiative, so the silence is no relaunch: the three
    # silent pass the turn and it closes (RULES.md: "the turn closes")
    (draft,) = storage.declarations(("draft",), duel_id)
    assert draft["kind"] == "turn"
    assert Declaration.from_row(draft).inputs["step"] == "duo_silence"
    for who in (A2, B1, B2):
        assert f"{who} n'a pas posté dans le délai" in plain(draft["text"])
    assert "aucun déplacement du duo" not in plain(draft["text"])  # a silence is no violation
    # B1 posts before it is out: the silence draft is cancelled, B1's post is read instead.
    forum.add_post(7, B1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]"
                   "\nCible : le décor")  # fmt: skip
    ref.poll_duel(duel_id)
    assert storage.declaration(draft["id"])["status"] == "cancelled"


def test_a_silent_duellist_at_the_deadline_passes_and_the_duel_goes_on() -> None:
    """Issue 26, D6. Seed 001: « l'arbitre relancera automatiquement le jeu en invitant
    l'autre duelliste à poster un autre sort » (a missing defense) and the end only when
    « aucun des deux duellistes n'a saisi l'initiative ». RULES.md: "the initiative spell
    resolves undefended and the turn closes". One silent player no longer ends a four-player
    duel with no winner: the turn closes, and the next turn's deadline is a new one."""
    storage, forum, clock = open_storage(":memory:"), FakeForum(), Clock()
    ref, duel_id = setup(storage, forum, clock)
    publish_due(storage, forum, clock)
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]"
                   "\nCible : le décor\nDéplacement : zone 2")  # fmt: skip
    ref.poll_duel(duel_id)
    assert len(publish_due(storage, forum, clock)) == 1
    clock.advance(48 * HOUR + 60)
    assert sweep(ref) == 1 and sweep(ref) == 0
    assert len(publish_due(storage, forum, clock)) == 1
    duel = storage.duel(duel_id)
    assert duel["status"] == "running"
    assert json.loads(str(duel["state_json"]))["turn"] == 1
    row = pending(storage, duel_id)  # a new turn: nobody posted in it yet
    assert row["phase"] == "awaiting_initiative" and row["relaunches"] == 0
    assert sorted(json.loads(str(row["expected_json"]))) == sorted([A1, A2, B1, B2])
    assert not [v for v in storage.db["violations"].rows_where("duel_id = ?", [duel_id])
                if v["rule"] == "missing_move"]  # fmt: skip


def test_no_post_after_the_last_relaunch_closes_the_2v2_without_rewards() -> None:
    storage, forum, clock = open_storage(":memory:"), FakeForum(), Clock()
    ref, duel_id = setup(storage, forum, clock)
    publish_due(storage, forum, clock)
    clock.advance(48 * HOUR + 1)
    assert sweep(ref) == 1
    publish_due(storage, forum, clock)
    clock.advance(36 * HOUR)
    assert sweep(ref) == 0
    clock.advance(12 * HOUR + 1)
    assert sweep(ref) == 1
    (closure,) = storage.declarations(("draft",), duel_id)
    assert closure["kind"] == "closure" and "sans vainqueur" in closure["text"]
    publish_due(storage, forum, clock)
    duel = storage.duel(duel_id)
    assert duel["status"] == "finished"
    ctx = DeskContext(storage, forum, ref, clock, "Hibou")
    assert settle_duo(ctx, duel) == 0  # no winner, no rewards
    owl = next(o for o in storage.db["owls"].rows if o["kind"] == "result")
    assert "sans vainqueur ni perdant" in owl["text"]


def test_one_post_of_two_keeps_the_clock_running_for_the_declaration() -> None:
    """Soak (issue 23), seed 1 of the short season: all four share a zone, so the next
    declaration waits for two posts (seed 001: « l'arbitre ne postera d'intervention que tous
    les deux postes »). One came: the deadline was superseded by it and no declaration
    followed, so the duel waited for the second post for ever (« frozen »). The deadline now
    stays pending until the posts the declaration waits for came; when it runs out, the post
    that came is declared as it is and the others are expected by the next deadline."""
    storage, forum, clock = open_storage(":memory:"), FakeForum(), Clock()
    ref, duel_id = setup(storage, forum, clock, placements=[1, 1, 1, 1])
    assert len(publish_due(storage, forum, clock)) == 1  # the opening: all four in one zone
    a1_post = forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\n"
                             f"Pari : [3,4,5,6]\nCible : {B1}")  # fmt: skip
    ref.poll_duel(duel_id)
    assert storage.declarations(("draft",), duel_id) == []  # one post of the two it waits for
    row = pending(storage, duel_id)  # was superseded by A1's post: no deadline left
    assert sorted(json.loads(str(row["expected_json"]))) == sorted([A1, A2, B1, B2])
    clock.advance(48 * HOUR + 60)
    assert sweep(ref) == 1 and sweep(ref) == 0
    (draft,) = storage.declarations(("draft",), duel_id)
    decl = Declaration.from_row(draft)
    assert decl.kind == "turn" and decl.inputs["step"] == "duo"
    assert [p["post_id"] for p in decl.inputs["posts"]] == [a1_post]
    assert len(publish_due(storage, forum, clock)) == 1
    row = pending(storage, duel_id)  # the clock runs for the three who did not post
    assert sorted(json.loads(str(row["expected_json"]))) == sorted([A2, B1, B2])
