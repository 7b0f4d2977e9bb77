"""Owl keys unique across restores (soak seed 17: ``notice-Maitre-9`` with two texts), and
recipient names slugged in reminder owl keys (``…-owl17-Rosalind Vexley`` had a space)."""

from __future__ import annotations

import re

from bench.crash_test import markers_in
from forumbot.notify.job import NotifyJob
from forumbot.notify.outbox import notice_owl_key
from forumbot.notify.settings import NotifyConfig
from tests.fakes.forum import ClubForum
from tests.unit.test_fatigue_flow import A, C, make
from tests.unit.web_scenario import build

CFG = NotifyConfig(review_url="https://arbitres.example", timezone="Europe/Paris")


def row(id_: int, key: str, created: str) -> dict[str, object]:
    return {"id": id_, "idempotency_key": key, "created_at": created}


def test_the_notice_key_names_the_slugged_user_the_creation_and_a_content_hash() -> None:
    rows = [row(9, "declaration:3:created|Maître Rosalind|owl", "2026-12-01T23:02:01.5+00:00")]
    key = notice_owl_key("Maître Rosalind", rows, "texte")
    assert re.fullmatch(r"notice-maitre-rosalind-20261201T230201-[0-9a-f]{10}", key)
    # the same rows and text again (a re-batch after a crash): the same key
    assert notice_owl_key("Maître Rosalind", list(reversed(rows)), "texte") == key


def test_the_same_notice_id_after_a_restore_gives_another_key() -> None:
    """A restored database hands out notice id 9 again: other creation or other text ->
    another key (the old ``notice-<user>-<id>`` was the same one)."""
    before = [row(9, "declaration:3:created|Maitre|owl", "2026-12-01T10:00:00+00:00")]
    after_time = [row(9, "declaration:3:created|Maitre|owl", "2026-12-02T10:00:00+00:00")]
    after_text = [row(9, "declaration:3:created|Maitre|owl", "2026-12-01T10:00:00+00:00")]
    other_event = [row(9, "declaration:4:created|Maitre|owl", "2026-12-01T10:00:00+00:00")]
    keys = {
        notice_owl_key("Maitre", before, "A"),
        notice_owl_key("Maitre", after_time, "A"),
        notice_owl_key("Maitre", after_text, "B"),
        notice_owl_key("Maitre", other_event, "A"),
    }
    assert len(keys) == 4


def test_a_new_notice_after_a_restore_is_sent_under_a_new_key() -> None:
    """The notices and owls of a pass vanish (restore of an older backup); the database
    reuses the same ids; the next owl has a new key and goes out with its own text."""
    s = build()
    pm = ClubForum()
    NotifyJob(s.storage, pm, CFG, s.clock, s.referee.board_id).run()
    first = {markers_in(str(p["message"]))[0] for p in pm.pms}
    assert all(k.startswith(("notice-rita-", "notice-alice-")) for k in first)
    old_ids = sorted(r["id"] for r in s.storage.db["notices"].rows)
    s.storage.db.execute("delete from notices")
    s.storage.db.execute("delete from owls")
    s.storage.db.conn.commit()
    s.clock.advance(CFG.owl_gather_s + 1)
    NotifyJob(s.storage, pm, CFG, s.clock, s.referee.board_id).run()
    new_ids = sorted(r["id"] for r in s.storage.db["notices"].rows)
    assert new_ids and new_ids[0] == old_ids[0]  # the same ids handed out again
    later = pm.pms[len(first) :]
    assert later, "the re-queued notice went out"
    assert all(markers_in(str(p["message"]))[0] not in first for p in later)
    owl_rows = [r for r in s.storage.db["notices"].rows if r["channel"] == "owl"]
    assert {r["status"] for r in owl_rows} == {"sent"}


def test_reminder_owl_keys_slug_the_recipient_and_the_bench_reads_old_keys() -> None:
    duel = make()
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    duel.clock.advance(24 * 3600 + 1)
    duel.cycle()
    duel.cycle()
    assert [name for name, _ in duel.forum.owls] == [C]
    (key,) = markers_in(duel.forum.owls[0][1])
    assert re.fullmatch(r"b\d+t\d+-owl\d+-cassius-thorne", key)
    # keys already stored on a board (full name with its space) are still read whole
    assert markers_in("x forumbot·b1t7-owl17-Rosalind Vexley· y") == ["b1t7-owl17-Rosalind Vexley"]
    assert markers_in("forumbot·b1t7-turn1· et forumbot·b1t7-turn10·") == [
        "b1t7-turn1",
        "b1t7-turn10",
    ]
