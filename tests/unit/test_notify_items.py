"""Issue 23, the notices to referees: one bad item never silences the others, a sign-up task
without a duel reaches the admins, every draft is announced on every channel before it can
publish (default settings, fake clock), and what a notice says is French (who held a draft,
the reason, the opening's turn).

The duel comes from the real referee loop (tests/unit/web_scenario.py: turn 2 is a pending
draft with a ``repeated_spell`` violation; rita referees it, alice is admin)."""

from __future__ import annotations

import logging
from datetime import datetime

import pytest

from forumbot.duels.overrides import set_status
from forumbot.duels.publication import publish_due
from forumbot.notify.job import NotifyJob
from forumbot.notify.outbox import notices
from forumbot.notify.settings import NotifyConfig, parse_notify, set_person_settings
from forumbot.publish.typography import plain
from forumbot.web.users import assign_referee
from tests.fakes.forum import ClubForum
from tests.unit.web_scenario import Scenario, _post, build

CFG = NotifyConfig(review_url="https://arbitres.example", timezone="Europe/Paris")


class Recorder:
    """An Apprise sender that records ``(time, title, body)`` (no network)."""

    def __init__(self, clock: object) -> None:
        self.clock = clock
        self.calls: list[tuple[datetime, str, str]] = []

    def __call__(self, urls: tuple[str, ...], title: str, body: str) -> bool:
        self.calls.append((self.clock(), title, body))  # type: ignore[operator]
        return True


def job(s: Scenario, pm: ClubForum, cfg: NotifyConfig = CFG, sender: object = None) -> NotifyJob:
    j = NotifyJob(s.storage, pm, cfg, s.clock, s.referee.board_id)
    if sender is not None:
        j.sender = sender  # type: ignore[assignment]
    return j


def signup_task(s: Scenario, post_id: int = 4321, author: str = "Nerys") -> int:
    """A ``signup_unsure`` task made by the desk itself
    (:func:`forumbot.club.signup_checks.ask_referee`: no duel, the doubts in ``note``)."""
    from forumbot.club.context import DeskContext
    from forumbot.club.signup_checks import ask_referee
    from forumbot.config.model import Registration
    from parsers.model import Post

    ctx = DeskContext(s.storage, s.forum, s.referee, s.clock, "Hibou")
    post = Post(post_id, author, None, s.clock(), None,
                "Je veux un duel avec Ysolde ou Odric.", (), (), 1)  # fmt: skip
    ask_referee(ctx, Registration(topic_id=12, forum_id=3), post, ("several_partners",))
    row = s.storage.db.execute(
        "select id, duel_id, kind from referee_tasks where post_id = ?", [post_id]
    ).fetchone()
    assert row[1] is None and row[2] == "signup_unsure"
    return int(row[0])


@pytest.fixture
def scenario() -> Scenario:
    return build()


# -- 1. notices never fail as a whole --------------------------------------------------------
def test_a_signup_task_without_duel_no_longer_silences_the_waiting_draft(
    scenario: Scenario,
) -> None:
    """The blocker: a ``signup_unsure`` task (no duel) plus a waiting draft. Before issue 23
    every pass failed at ``int(t["duel_id"])`` and nothing went out."""
    s = scenario
    signup_task(s)
    pm = ClubForum()
    sent = job(s, pm).run()
    rita = [p for p in pm.pms if p["to"] == "rita"]
    assert len(rita) == 1
    assert f"[url=https://arbitres.example/drafts/{s.draft_id}]" in str(rita[0]["message"])
    # the sign-up task went to the admin, naming the sign-up post with its link
    alice = [p for p in pm.pms if p["to"] == "alice"]
    assert len(alice) == 1
    text = str(alice[0]["message"])
    assert "[b]Inscription de Nerys[/b] : une inscription à relire" in plain(text)
    assert "plusieurs partenaires sont nommés" in text
    assert "[url=http://board.invalid/viewtopic.php?p=4321#p4321]Voir le message" in text
    assert "Nerys" not in "".join(str(p["message"]) for p in rita)  # not a duel's business
    kinds = {(n["recipient"], n["kind"]) for n in notices(s.storage, "sent")}
    assert ("alice", "task_opened") in kinds and ("rita", "draft_waiting") in kinds
    assert len(sent) == len(notices(s.storage, "sent"))


def test_a_broken_task_row_does_not_stop_the_others_and_is_logged_once(
    scenario: Scenario, caplog: pytest.LogCaptureFixture
) -> None:
    s = scenario
    s.storage.db["referee_tasks"].insert(
        {"board_id": 1, "duel_id": "garbage", "kind": "owl_question", "source_key": "bad",
         "status": "open", "created_at": s.clock().isoformat()}
    )  # fmt: skip
    pm = ClubForum()
    with caplog.at_level(logging.ERROR, logger="forumbot.notify"):
        job(s, pm).run()
        for _ in range(3):  # later passes meet it again (it stays in the table)
            s.clock.advance(CFG.owl_gather_s)
            job(s, pm).run()
    assert sorted(str(p["to"]) for p in pm.pms) == ["alice", "rita"]  # the others went out
    broken = [r for r in caplog.records if "cannot be notified" in r.getMessage()]
    assert len(broken) == 1 and "referee_task:" in broken[0].getMessage()
    audit = [a for a in s.storage.audit_entries("notice-item:") if a["action"] == "notice.broken"]
    assert len(audit) == 1


def test_a_notice_that_cannot_be_written_fails_alone_once_with_a_referee_task(
    scenario: Scenario, caplog: pytest.LogCaptureFixture
) -> None:
    """A bad row at send time (its subject unreadable): that notice is ``failed`` and reported
    once with a referee task for the admins; the rest of the owl goes out."""
    from forumbot.notify.outbox import Event, queue_event

    s = scenario
    with s.storage.db.atomic():
        queue_event(
            s.storage, Event("bad:1", "draft_waiting", s.duel_id, 2, "declaration:not-a-number"),
            [("rita", "referee")], CFG, s.clock(),
        )  # fmt: skip
    pm = ClubForum()
    with caplog.at_level(logging.ERROR, logger="forumbot.notify"):
        job(s, pm).run()
        rita = [p for p in pm.pms if p["to"] == "rita"]
        assert len(rita) == 1  # the draft and the mechanism task: the bad row left out
        assert str(rita[0]["subject"]) == "Relecture : 2 éléments vous attendent"
        for _ in range(3):
            s.clock.advance(CFG.owl_gather_s)
            job(s, pm).run()
    failed = notices(s.storage, "failed")
    assert [n["target"] for n in failed] == ["declaration:not-a-number"]
    assert len([r for r in caplog.records if "cannot be notified" in r.getMessage()]) == 1
    tasks = list(s.storage.db["referee_tasks"].rows_where("kind = 'notice_failed'"))
    assert len(tasks) == 1 and tasks[0]["duel_id"] == s.duel_id
    # the task itself is told to the duel's referee at the next owl, in French
    rita = [p for p in pm.pms if p["to"] == "rita"]
    assert len(rita) == 2
    assert "une notification que le bot n'a pas pu préparer" in str(rita[1]["message"])


# -- 2. a draft's first notice goes out before it can publish --------------------------------
def test_default_settings_every_draft_is_announced_on_each_channel_before_it_publishes(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Default settings (review delay 600 s, owls gathered over 900 s, a pass every 15 s),
    fake clock: the turn-2 draft (rita approves it a minute after her owl), then the turn-3
    draft, created while rita's last owl is younger than the gathering window. Each is
    announced by owl and by Apprise before its publish time (on the lab board such owls
    waited for the window and ended ``dropped``)."""
    s = scenario
    monkeypatch.setenv("FORUMBOT_TEST_REFEREE_URLS", "json://127.0.0.1:9/never-called")
    cfg = parse_notify(
        {"review_url": "https://arbitres.example",
         "referee": {"urls_env": "FORUMBOT_TEST_REFEREE_URLS"}},
    )  # fmt: skip
    assert (cfg.owl_gather_s, cfg.owl_lead_s) == (900, 120)
    pm, hook = ClubForum(), Recorder(s.clock)
    notify = job(s, pm, cfg, hook)
    owl_at: dict[int, datetime] = {}
    hook_at: dict[int, datetime] = {}
    published_at: dict[int, datetime] = {}
    next_posted = False

    def seen(decl_id: int, text: str) -> bool:
        return f"/drafts/{decl_id}" in text

    for step in range(200):  # 50 minutes of 15-second passes
        if step == 4:  # rita approves turn 2 a minute after her owl: turn 3 comes early
            set_status(s.storage, s.draft_id, "approved", "rita", s.clock())
        notify.run()
        drafts = [int(d["id"]) for d in s.storage.db["declarations"].rows_where(order_by="id")]
        for d in drafts:
            if d not in owl_at and any(
                p["to"] == "rita" and seen(d, str(p["message"])) for p in pm.pms
            ):
                owl_at[d] = s.clock()
            if d not in hook_at and any(seen(d, body) for _, _, body in hook.calls):
                hook_at[d] = s.clock()
        publish_due(s.storage, s.forum, s.clock)
        for d in s.storage.declarations(("published",), s.duel_id):
            published_at.setdefault(int(d["id"]), datetime.fromisoformat(d["published_at"]))
        if s.draft_id in published_at and not next_posted:
            _post(s.forum, "Aurora Vexley", "Sortilège de Chatouillis")
            _post(s.forum, "Cassius Thorne", "Sortilège de Chatouillis")
            s.referee.poll_forum(3)
            next_posted = True
        s.clock.advance(15)
    turn3 = [d for d in s.storage.declarations(None, s.duel_id) if d["turn"] == 3]
    assert len(turn3) == 1, "the turn-3 draft was made"
    for decl_id in (s.draft_id, int(turn3[0]["id"])):
        decl = s.storage.declaration(decl_id)
        limit = datetime.fromisoformat(decl["created_at"]).timestamp() + 600
        assert decl_id in published_at, decl_id
        for channel, at in (("owl", owl_at), ("apprise", hook_at)):
            assert decl_id in at, (channel, decl_id)
            assert at[decl_id].timestamp() < limit, (channel, decl_id)
            assert at[decl_id] < published_at[decl_id], (channel, decl_id)
    # the turn-3 owl came inside the gathering window of the first one, owl_lead_s before
    # its draft's publish time (not at once: later items are still gathered)
    first, second = owl_at[s.draft_id], owl_at[int(turn3[0]["id"])]
    assert (second - first).total_seconds() < cfg.owl_gather_s
    publish_after = datetime.fromisoformat(turn3[0]["publish_after"])
    assert 0 < (publish_after - second).total_seconds() <= cfg.owl_lead_s
    assert (second - datetime.fromisoformat(turn3[0]["created_at"])).total_seconds() > 60
    assert notices(s.storage, "dropped") == []


def test_quiet_hours_the_owl_goes_before_and_apprise_says_it_went_out(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = scenario
    monkeypatch.setenv("FORUMBOT_TEST_REFEREE_URLS", "json://127.0.0.1:9/never-called")
    cfg = parse_notify({"referee": {"urls_env": "FORUMBOT_TEST_REFEREE_URLS"}})
    # the clock says 12:01 UTC = 13:01 in Paris; the draft publishes at 13:10
    set_person_settings(s.storage, "rita", "rita", s.clock(), quiet="12:30-14:00")
    pm, hook = ClubForum(), Recorder(s.clock)
    job(s, pm, cfg, hook).run()
    assert any(p["to"] == "rita" for p in pm.pms) and hook.calls == []
    s.clock.advance(600)
    publish_due(s.storage, s.forum, s.clock)
    s.clock.advance(3600)  # 14:11 in Paris
    job(s, pm, cfg, hook).run()
    assert len(hook.calls) == 1
    body = hook.calls[0][2]
    assert "une déclaration partie toute seule, sans relecture" in body
    assert "déjà publiée le 30/11 à 13:" in body


# -- 3. wording ------------------------------------------------------------------------------
def test_a_draft_held_by_a_referee_names_them(
    scenario: Scenario,
) -> None:
    s = scenario
    assign_referee(s.storage, s.duel_id, "otto", "alice", s.clock())
    set_status(s.storage, s.draft_id, "held", "rita", s.clock())
    pm = ClubForum()
    job(s, pm).run()
    otto = str(next(p for p in pm.pms if p["to"] == "otto")["message"])
    assert "un brouillon retenu par rita" in otto and "par le bot" not in otto


def test_the_bot_s_reason_is_french_and_the_opening_is_no_turn_0(scenario: Scenario) -> None:
    """Held by the bot at the opening: the reason in French, the turn as players say it,
    the violation of the opening « (ouverture) » (not « (tour 0) »)."""
    s = scenario
    pm = ClubForum()
    s.storage.db["declarations"].update(
        s.draft_id,
        {"status": "held", "last_error": "cast_before_start: referee decides", "turn": 0,
         "kind": "opening"},
    )  # fmt: skip
    s.storage.audit("forumbot", "draft.held", f"declaration:{s.draft_id}", "draft", "held",
                    s.clock())  # fmt: skip
    s.storage.db["violations"].insert(
        {"duel_id": s.duel_id, "turn": 0, "duellist": "Aurora Vexley",
         "rule": "classic.cast_before_start", "status": "proposed", "penalty": 0}
    )  # fmt: skip
    job(s, pm).run()
    texts = [str(p["message"]) for p in pm.pms]
    held = next(t for t in texts if "retenu par le bot" in t)
    assert "un sort a été lancé avant le top de départ : l'arbitre décide" in plain(held)
    assert "(ouverture)" in held
    alice = [t for t in texts if "sort avant le top" in t]
    assert alice and "(ouverture)" in alice[-1]
    for t in texts:
        body = t.split("forumbot·")[0]
        assert "tour 0" not in body and "cast_before_start" not in body
        assert "referee decides" not in body


# -- 4. no write transaction held over the network -------------------------------------------
def test_no_write_transaction_is_held_while_a_notice_goes_over_the_network(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """During every PM and every Apprise call, another connection (the review page) can
    write at once (``timeout=0``): the notify pass holds no SQLite write lock while it sends.
    A sign-up task is there too, so the pass has several items of each kind."""
    import sqlite3
    from pathlib import Path

    s = build(str(Path(str(tmp_path)) / "bot.db"))
    signup_task(s)
    monkeypatch.setenv("FORUMBOT_TEST_REFEREE_URLS", "json://127.0.0.1:9/never-called")
    cfg = parse_notify({"referee": {"urls_env": "FORUMBOT_TEST_REFEREE_URLS"},
                        "admin": {"urls_env": "FORUMBOT_TEST_REFEREE_URLS"}})  # fmt: skip
    other = sqlite3.connect(Path(str(tmp_path)) / "bot.db", timeout=0)
    writes: list[str] = []

    def write_elsewhere(where: str) -> None:
        assert not s.storage.db.conn.in_transaction, where
        other.execute("insert into notify_state (name, value) values (?, '1')",
                      [f"probe-{len(writes)}"])  # fmt: skip
        other.commit()
        writes.append(where)

    class Probing(ClubForum):
        def send_pm(self, user_id: int | None, username: str, subject: str, message: str,
                    marker: str) -> None:  # fmt: skip
            write_elsewhere(f"pm to {username}")
            super().send_pm(user_id, username, subject, message, marker)

    def sender(urls: tuple[str, ...], title: str, body: str) -> bool:
        write_elsewhere("apprise")
        return True

    pm = Probing()
    job(s, pm, cfg, sender).run()
    other.close()
    assert sorted(writes) == ["apprise", "apprise", "pm to alice", "pm to rita"]
    assert {n["status"] for n in notices(s.storage)} == {"sent"}


def test_a_held_draft_without_a_duel_is_reported_once_with_a_task_for_the_admins(
    scenario: Scenario, caplog: pytest.LogCaptureFixture
) -> None:
    """A held declaration whose ``duel_id`` is missing (seen by the "held now" loop at every
    pass): reported once, a ``notice_failed`` task for the admins, the others go out."""
    s = scenario
    s.storage.db.execute(
        "insert into declarations (duel_id, turn, kind, idempotency_key, status, text, "
        "last_error, version) values (null, 4, 'turn', 'orphan', 'held', 'x', ?, 1)",
        ["missing_dice: waiting for the forum's dice"],
    )
    s.storage.db.conn.commit()
    pm = ClubForum()
    with caplog.at_level(logging.ERROR, logger="forumbot.notify"):
        for _ in range(3):
            job(s, pm).run()
            s.clock.advance(CFG.owl_gather_s)
    assert len([r for r in caplog.records if "cannot be notified" in r.getMessage()]) == 1
    tasks = list(s.storage.db["referee_tasks"].rows_where("kind = 'notice_failed'"))
    assert len(tasks) == 1 and tasks[0]["duel_id"] is None
    alice = [str(p["message"]) for p in pm.pms if p["to"] == "alice"]
    assert any("une notification que le bot n'a pas pu préparer" in t for t in alice)
    assert any(f"/drafts/{s.draft_id}" in str(p["message"]) for p in pm.pms if p["to"] == "rita")


def test_post_links_on_both_platforms(scenario: Scenario) -> None:
    from forumbot.notify.items import post_link

    s = scenario
    board = s.referee.board_id
    assert post_link(s.storage, board, 77) == "http://board.invalid/viewtopic.php?p=77#p77"
    fa = (
        s.storage.db["boards"]
        .insert({"url": "https://club.forumactif.com/", "platform": "forumactif"})
        .last_pk
    )
    assert post_link(s.storage, fa, 301, 12) == "https://club.forumactif.com/t12-a#301"
    assert post_link(s.storage, fa, 301) == "https://club.forumactif.com/viewtopic?p=301#301"
    assert post_link(s.storage, None, 301) == "" and post_link(s.storage, board, None) == ""
