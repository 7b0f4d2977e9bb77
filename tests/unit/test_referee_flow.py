"""The referee loop and the poster against an in-memory forum: a classic duel end to end."""

from __future__ import annotations

import json
import random

import pytest

from forumbot.duels.overrides import OverrideError, edit_text, set_numbers, set_status
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."


def make(review_delay_s: int | str = 0) -> tuple[FakeForum, Referee, Clock]:
    forum = FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    clock = Clock()
    storage = open_storage(":memory:")
    referee = Referee(
        storage,
        forum,
        board_url="http://board.invalid",
        platform="phpbb3",
        review_delay_s=review_delay_s,
        now=clock,
        rng=random.Random(1),
    )
    return forum, referee, clock


def turn_post(forum: FakeForum, who: str, spell: str) -> int:
    return forum.add_post(7, who, f"{who} lève sa baguette.\nIl se concentre.\n[b]{spell}[/b]")


def cycle(forum: FakeForum, referee: Referee, clock: Clock) -> list[int]:
    referee.poll_forum(3)
    return publish_due(referee.storage, forum, clock)


def bot_posts(forum: FakeForum) -> list[str]:
    return [p.text for p in forum.posts[7] if p.author == "Hibou"]


def test_adopts_topic_and_publishes_opening_once() -> None:
    forum, referee, clock = make()
    assert cycle(forum, referee, clock)
    duel = referee.storage.duels("running")[0]
    assert duel["opening_post_id"] == forum.posts[7][-1].post_id
    assert "Top !" in plain(plain)(bot_posts(forum))[0]
    # polling again publishes nothing more
    assert cycle(forum, referee, clock) == []
    assert len(bot_posts(forum)) == 1


def test_turn_is_drafted_when_both_duellists_posted_and_state_advances() -> None:
    forum, referee, clock = make()
    cycle(forum, referee, clock)
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    assert cycle(forum, referee, clock) == []  # one post: no turn yet
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    published = cycle(forum, referee, clock)
    assert len(published) == 1
    text = bot_posts(forum)[-1]
    assert "tour 1" in text and "Aurora Vexley" in text and "Cassius Thorne" in text
    duel = referee.storage.duels()[0]
    state = json.loads(duel["state_json"])
    assert state["turn"] == 1
    rolls = list(referee.storage.db["dice_rolls"].rows)
    assert len(rolls) == 2 and all(len(json.loads(r["values_json"])) == 2 for r in rolls)
    turns = list(referee.storage.db["turns"].rows)
    assert [t["number"] for t in turns] == [1]


def test_duel_runs_to_a_winner_with_each_declaration_posted_once() -> None:
    forum, referee, clock = make()
    cycle(forum, referee, clock)
    spells = ["Sortilège de Désarmement", "Sortilège de Chatouillis"]
    for turn in range(60):
        if referee.storage.duels()[0]["status"] == "finished":
            break
        turn_post(forum, "Aurora Vexley", spells[turn % 2])
        turn_post(forum, "Cassius Thorne", spells[(turn + 1) % 2])
        assert len(cycle(forum, referee, clock)) == 1
    duel = referee.storage.duels()[0]
    assert duel["status"] == "finished"
    state = json.loads(duel["state_json"])
    assert state["winner"] in ("Aurora Vexley", "Cassius Thorne") or state["draw"]
    texts = bot_posts(forum)
    markers = [d["marker"] for d in referee.storage.declarations(("published",))]
    assert len(markers) == len(texts) == state["turn"] + 1
    for m in markers:
        assert sum(m in t for t in texts) == 1
    assert "Fin du duel" in texts[-1]
    assert duel["dice_secret"] in texts[-1]  # seed revealed at the end


def test_ambiguous_publish_is_not_posted_twice() -> None:
    forum, referee, clock = make()
    forum.fail_next_reply = True  # the post goes through but the client sees a timeout
    assert cycle(forum, referee, clock) == []
    assert referee.storage.declarations(("publishing",))
    assert cycle(forum, referee, clock) != []  # found by its marker, not re-posted
    assert len(bot_posts(forum)) == 1 and forum.replies_sent == 1


def test_failed_publish_before_sending_is_retried() -> None:
    forum, referee, clock = make()
    forum.refuse_next_reply = True
    assert cycle(forum, referee, clock) == []
    assert cycle(forum, referee, clock) != []
    assert len(bot_posts(forum)) == 1


def test_review_delay_and_manual_mode() -> None:
    forum, referee, clock = make(review_delay_s=600)
    referee.poll_forum(3)
    assert publish_due(referee.storage, forum, clock) == []
    clock.advance(601)
    assert publish_due(referee.storage, forum, clock) != []

    forum, referee, clock = make(review_delay_s="manual")
    referee.poll_forum(3)
    clock.advance(10**6)
    assert publish_due(referee.storage, forum, clock, manual=True) == []
    decl = referee.storage.declarations(("draft",))[0]
    set_status(referee.storage, decl["id"], "approved", "arbitre", clock())
    assert publish_due(referee.storage, forum, clock, manual=True) != []


def test_referee_sets_a_number_and_the_text_follows_with_audit() -> None:
    forum, referee, clock = make(review_delay_s="manual")
    referee.poll_forum(3)
    set_status(referee.storage, referee.storage.declarations()[0]["id"], "approved", "a", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(3)
    decl = referee.storage.declarations(("draft",))[0]
    set_numbers(referee.storage, decl["id"], {"Cassius Thorne.points": 3}, "Maelis", clock())
    after = referee.storage.declaration(decl["id"])
    assert "Cassius Thorne : 3 PD" in plain(after["text"])
    audit = referee.storage.audit_entries("declaration:")
    assert audit[-1]["actor"] == "Maelis" and audit[-1]["action"] == "draft.set_numbers"
    # a stale form cannot overwrite a newer version
    with pytest.raises(OverrideError):
        edit_text(
            referee.storage, decl["id"], "x", "Maelis", clock(), expected_version=decl["version"]
        )
    set_status(referee.storage, decl["id"], "approved", "Maelis", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    state = json.loads(referee.storage.duels()[0]["state_json"])
    assert [d["points"] for d in state["duellists"] if d["name"] == "Cassius Thorne"] == [3]


def test_edit_before_publication_recomputes_but_keeps_dice() -> None:
    forum, referee, clock = make(review_delay_s=600)
    referee.poll_forum(3)
    clock.advance(601)
    publish_due(referee.storage, forum, clock)
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    pid = turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(3)
    before = referee.storage.declarations(("draft",))[0]
    dice_before = list(referee.storage.db["dice_rolls"].rows)
    forum.edit_post(7, pid, "Cassius hésite.\nPuis se reprend.\n[b]Sortilège de chant[/b]")
    referee.poll_forum(3)  # the topic is re-read while a draft is pending
    after = referee.storage.declaration(before["id"])
    assert after["version"] > before["version"]
    assert "Sortilège de chant" in after["text"]
    assert list(referee.storage.db["dice_rolls"].rows) == dice_before


def test_player_text_cannot_inject_bbcode() -> None:
    forum, referee, clock = make()
    cycle(forum, referee, clock)
    forum.add_post(7, "Aurora Vexley", "Je lance...\n[b][url=http://evil]Sort[/url][/b]")
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    cycle(forum, referee, clock)
    text = bot_posts(forum)[-1]
    # The only links are the bot's own, to the posts it rules on (issue 25).
    assert "[url=http://evil" not in text and "［url=http：//evil］" in text  # defused (issue 15)
    assert all(u.startswith("[url=http://127.0.0.1") or "viewtopic" in u
               for u in text.split("[url=")[1:])  # fmt: skip


def make_forumactif() -> tuple[FakeForum, Referee, Clock]:
    forum = FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    clock = Clock()
    referee = Referee(
        open_storage(":memory:"),
        forum,
        board_url="http://fa.invalid",
        platform="forumactif",
        review_delay_s=0,
        now=clock,
        rng=random.Random(1),
    )
    return forum, referee, clock


def test_forumactif_uses_the_forum_dice_never_its_own() -> None:
    """Issue 3: the classic ruleset takes attack and defense from the "Duel" dice."""
    from parsers.model import DiceRoll

    forum, referee, clock = make_forumactif()
    cycle(forum, referee, clock)
    forum.add_post(
        7,
        "Aurora Vexley",
        "Je lance.\n[b]Sortilège de Désarmement[/b]",
        dice=(DiceRoll("Dé du Duel", (6, 2)),),
    )
    forum.add_post(
        7,
        "Cassius Thorne",
        "Je riposte.\n[b]Sortilège de Chatouillis[/b]",
        dice=(DiceRoll("Duel", (1,)), DiceRoll("Duel", (5,))),
    )
    assert len(cycle(forum, referee, clock)) == 1
    text = bot_posts(forum)[-1]
    assert "attaque 6, défense 2" in text and "attaque 1, défense 5" in text
    rolls = list(referee.storage.db["dice_rolls"].rows)
    assert {r["source"] for r in rolls} == {"forum"}


def test_forumactif_missing_dice_draft_asks_the_referee_then_resolves() -> None:
    from parsers.model import DiceRoll

    forum, referee, clock = make_forumactif()
    cycle(forum, referee, clock)
    forum.add_post(
        7,
        "Aurora Vexley",
        "Je lance.\n[b]Sortilège de Désarmement[/b]",
        dice=(DiceRoll("Duel", (3, 4)),),
    )
    late = forum.add_post(7, "Cassius Thorne", "J'oublie les dés.\n[b]Sortilège de Chatouillis[/b]")
    assert cycle(forum, referee, clock) == []  # held: nothing published, no dice invented
    held = referee.storage.declarations(("held",))
    assert len(held) == 1 and "Il manque les dés" in held[0]["text"]
    assert str(late) in held[0]["text"]
    assert not list(referee.storage.db["dice_rolls"].rows_where("source = 'bot'"))
    forum.attach_dice(7, late, (DiceRoll("Duel", (2, 2)),))
    assert len(cycle(forum, referee, clock)) == 1
    assert "attaque 2, défense 2" in bot_posts(forum)[-1]


def test_seed000_spell_before_the_top_is_flagged_and_holds_the_opening() -> None:
    """seed 000: "Aucun sort ne doit être lancé avant le top de l'arbitre sous peine de
    disqualification immédiate." The referee confirms (the opening is held)."""
    forum, referee, clock = make(review_delay_s=600)
    referee.poll_forum(3)
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    referee.poll_forum(3)
    opening = referee.storage.declarations()[0]
    assert opening["status"] == "held"
    assert "Sort lancé avant le top" in opening["text"] and "Aurora Vexley" in opening["text"]
    violations = list(referee.storage.db["violations"].rows)
    assert [(v["duellist"], v["rule"], v["status"]) for v in violations] == [
        ("Aurora Vexley", "cast_before_start", "proposed")
    ]


def test_stakes_from_the_first_post_are_recalled_at_the_end() -> None:
    forum = FakeForum()
    forum.add_topic(7, "Duel", "Arbitre", OPENING + "\nEnjeux : le perdant offre 10 gallions")
    clock = Clock()
    referee = Referee(
        open_storage(":memory:"),
        forum,
        board_url="http://b.invalid",
        platform="phpbb3",
        review_delay_s=0,
        now=clock,
        rng=random.Random(2),
    )
    cycle(forum, referee, clock)
    assert "le perdant offre 10 gallions" in bot_posts(forum)[0]
    for turn in range(60):
        if referee.storage.duels()[0]["status"] == "finished":
            break
        turn_post(
            forum,
            "Aurora Vexley",
            ["Sortilège de Désarmement", "Sortilège de Chatouillis"][turn % 2],
        )
        turn_post(
            forum,
            "Cassius Thorne",
            ["Sortilège de Chatouillis", "Sortilège de Désarmement"][turn % 2],
        )
        cycle(forum, referee, clock)
    last = plain(bot_posts(forum)[-1])
    # issue 25, reader W1: who owes whom (a duel adopted by hand: its first post's terms)
    # reader2 C14: the stakes never the object; seventh reader C7: no « les » for one thing
    assert " les enjeux du duel : le perdant offre 10 gallions." in last
    assert " doit à " in last and " les doit " not in last


def test_a_declaration_restored_as_draft_is_recognised_not_reposted() -> None:
    """After a restore from a backup, a published declaration comes back as a draft: the
    publisher finds its marker in the topic and does not post it again."""
    forum, referee, clock = make()
    referee.poll_forum(3)
    decl = referee.storage.declarations(("draft",))[0]
    forum.add_post(7, "Hibou", "Déclaration d'avant la sauvegarde\n" + decl["marker"])
    published = publish_due(referee.storage, forum, clock)
    assert published == [forum.posts[7][-1].post_id]
    assert forum.replies_sent == 0
    assert referee.storage.duels("running")


def test_a_refused_login_stops_the_poll_instead_of_being_logged_per_topic() -> None:
    from forumbot.errors import CaptchaRequired

    forum, referee, clock = make()

    def refuse(topic_id: int, after_post_id: int | None) -> list[object]:
        raise CaptchaRequired("CAPTCHA after failed logins")

    forum.read_topic = refuse  # type: ignore[assignment,method-assign]
    with pytest.raises(CaptchaRequired):
        referee.poll_forum(3)


def test_polling_again_leaves_a_pending_draft_alone() -> None:
    """A re-poll with nothing new must not bump the draft's version (a referee's open form
    stays valid), nor hold a draft whose text the referee edited, nor undo an approval."""
    forum, referee, clock = make(review_delay_s="manual")
    referee.poll_forum(3)
    opening = referee.storage.declarations()[0]
    set_status(referee.storage, opening["id"], "approved", "a", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(3)
    decl = referee.storage.declarations(("draft",))[0]
    edit_text(referee.storage, decl["id"], "Texte de l'arbitre.", "Maelis", clock())
    set_status(referee.storage, decl["id"], "approved", "Maelis", clock())
    before = referee.storage.declaration(decl["id"])
    for _ in range(3):
        clock.advance(120)
        referee.poll_forum(3)
    after = referee.storage.declaration(decl["id"])
    assert (after["version"], after["status"], after["text"]) == (
        before["version"],
        "approved",
        "Texte de l'arbitre.",
    )
    # a real change of the inputs (the post is edited) holds the referee's text for review
    forum.edit_post(
        7, forum.posts[7][-1].post_id, "Cassius change d'avis.\n[b]Sortilège de chant[/b]"
    )
    referee.poll_forum(3)
    changed = referee.storage.declaration(decl["id"])
    assert changed["status"] == "held" and changed["text"] == "Texte de l'arbitre."


def test_a_look_alike_account_is_not_the_duellist() -> None:
    """Posts are bound to the duellist's forum account: another account shown with the same
    name (e.g. "Cassius  Thorne" with two spaces) does not play for them."""
    from dataclasses import replace

    forum, referee, clock = make()
    cycle(forum, referee, clock)
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    forum.posts[7] = [
        replace(p, author_id={"Aurora Vexley": 58, "Cassius Thorne": 59}.get(p.author))
        for p in forum.posts[7]
    ]
    assert len(cycle(forum, referee, clock)) == 1  # turn 1 binds both accounts
    turn_post(forum, "Aurora Vexley", "Sortilège de Chatouillis")
    impostor = turn_post(forum, "Cassius Thorne", "Sortilège de Désarmement")
    forum.posts[7] = [
        replace(
            p,
            author_id=66
            if p.post_id == impostor
            else {"Aurora Vexley": 58, "Cassius Thorne": 59}.get(p.author),
        )
        for p in forum.posts[7]
    ]
    assert cycle(forum, referee, clock) == []  # the impostor's post does not complete turn 2
    real = turn_post(forum, "Cassius Thorne", "Sortilège de Désarmement")
    forum.posts[7] = [replace(p, author_id=59) if p.post_id == real else p for p in forum.posts[7]]
    assert len(cycle(forum, referee, clock)) == 1
    assert f"message n° {real}" in plain(plain)(bot_posts(forum))[-1]
    assert f"message n° {impostor}" not in plain(plain)(bot_posts(forum))[-1]
