"""A notice owl the board refuses for good (an account it does not have, newcomer check s4
W7: `users add Admin` took « Admin » as the board account) opens one referee task naming the
account and how to change it, however many owls fail; nothing is sent twice."""

from __future__ import annotations

from forumbot.errors import FormInvalid
from forumbot.notify.job import NotifyJob
from forumbot.notify.outbox import notices
from tests.fakes.forum import ClubForum
from tests.unit.test_notify import CFG
from tests.unit.web_scenario import build


class _NoAlice(ClubForum):
    """A board without the account « alice »: a PM to her is refused (phpBB's answer)."""

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        if username == "alice":
            raise FormInvalid(
                "recipient 'alice' not accepted: Les utilisateurs demandés pour être ajoutés "
                "n’existent pas."
            )
        super().send_pm(user_id, username, subject, message, marker)


def _tasks(storage) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    return list(storage.db["referee_tasks"].rows_where("kind = 'owl_refused'"))


def test_a_refused_notice_owl_opens_one_task_naming_the_account() -> None:
    s = build()
    pm = _NoAlice()
    NotifyJob(s.storage, pm, CFG, s.clock, s.referee.board_id).run()
    assert [p["to"] for p in pm.pms] == ["rita"]  # the others' owls go
    failed = [n for n in notices(s.storage, channel="owl") if n["recipient"] == "alice"]
    assert failed and {n["status"] for n in failed} == {"failed"}
    [task] = _tasks(s.storage)
    assert task["duel_id"] is None  # the admins see it
    assert task["subject"] == "Hibou refusé par le forum : alice"
    assert "compte du forum « alice »" in str(task["text"])
    assert "n’existent pas" in str(task["text"])
    assert 'forumbot users notify alice --forum-name "NOM SUR LE FORUM"' in str(task["text"])
    # later passes (the task's own notice to alice fails too): still one task, nothing resent
    for _ in range(3):
        s.clock.advance(CFG.owl_gather_s + 60)
        NotifyJob(s.storage, pm, CFG, s.clock, s.referee.board_id).run()
    assert len(_tasks(s.storage)) == 1
    assert [p["to"] for p in pm.pms].count("alice") == 0
