"""The fatigue 1v1 flow in the running bot (seed 001, issue 4) against an in-memory forum.

Aurora Vexley (5th year, 300 PV, brutale) against Cassius Thorne (7th year, 400 PV,
sournoise). The dice seed is fixed, so each test picks the bet that wins or loses the die the
bot will derive for the post (its id is known before posting); a filler post in another topic
moves the ids on when no allowed bet gives the wanted result.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from forumbot.duels.deadlines import sweep
from forumbot.duels.overrides import set_numbers
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.duels.verify import verify_pages
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from parsers.model import TopicPage
from rules.dice import derive_roll
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum

# issue 26: these duels were written with the spellbook of tests/fixtures/fatigue_seed_tests.toml
pytestmark = pytest.mark.usefixtures("seed_spellbook")

A, C = "Aurora Vexley", "Cassius Thorne"
SECRET = bytes(range(32))
TOPIC = 7
BETS = {"cast": ((1, 2, 3, 4), (3, 4, 5, 6)), "dodge": ((1, 2, 3, 4), (3, 4, 5, 6)),
        "dodge_riposte": ((1, 2, 3), (4, 5, 6))}  # fmt: skip
KIND_FR = {"cast": "lancer un sort", "dodge": "esquiver", "dodge_riposte": "esquiver et riposter"}
BODY = "\n".join(
    f"Ligne {i} : la baguette levée, le duelliste avance sur le long tapis de la salle."
    for i in range(1, 11)
)


@dataclass
class OwlForum(FakeForum):
    """FakeForum that also delivers owls (private messages)."""

    owls: list[tuple[str, str]] = field(default_factory=list)

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        self.owls.append((username, message))


@dataclass
class Duel:
    forum: OwlForum
    ref: Referee
    clock: Clock
    storage: Storage
    turn: int = 1
    finished: list[tuple[int, dict[str, object]]] = field(default_factory=list)

    def referee(self) -> Referee:
        """A new Referee on the same storage (a restart of the bot)."""
        ref = Referee(
            self.storage, self.forum, board_url="http://board.invalid", platform="phpbb3",
            review_delay_s=0, now=self.clock, rng=random.Random(9),
        )  # fmt: skip
        ref.on_finished.append(lambda duel_id, outcome: self.finished.append((duel_id, outcome)))
        return ref

    def cycle(self) -> list[int]:
        self.ref.poll_forum(3)
        return publish_due(self.storage, self.forum, self.clock)

    def die(self, post_id: int) -> int:
        return derive_roll(SECRET, f"phpbb3:{TOPIC}", self.turn, post_id, "Pari", 1)[0]

    def post(self, who: str, kind: str, spell: str | None, win: bool) -> int:
        """Post an action whose bet wins (or loses) the die the bot will derive for it."""
        while True:
            die = self.die(self.forum.next_post_id + 1)
            bet = next((b for b in BETS[kind] if (die in b) == win), None)
            if bet is not None:
                break
            self.forum.add_post(99, "Passant", "Un message ailleurs.")
        text = BODY + (f"\n[b]{spell}[/b]" if spell else "")
        text += f"\nAction : {KIND_FR[kind]}\nPari : [{','.join(map(str, bet))}]"
        return self.forum.add_post(TOPIC, who, text)

    def text_of(self, post_id: int) -> str:
        return next(p.text for p in self.forum.posts[TOPIC] if p.post_id == post_id)

    def last_bot_text(self) -> str:
        return [p.text for p in self.forum.posts[TOPIC] if p.author == "Hibou"][-1]

    def state(self) -> dict[str, object]:
        return dict(json.loads(self.storage.duels()[0]["state_json"]))

    def points(self) -> tuple[int, int]:
        pts = {d["name"]: d["points"] for d in self.state()["duellists"]}  # type: ignore[attr-defined]
        return pts[A], pts[C]


def make(tmp_path: Path | None = None) -> Duel:
    forum = OwlForum()
    forum.add_topic(TOPIC, "Duel : Aurora contre Cassius", "Arbitre", "Le duel va commencer.")
    forum.add_topic(99, "Taverne", "Passant", "Bienvenue.")
    clock = Clock()
    storage = open_storage(tmp_path / "bot.db" if tmp_path else ":memory:")
    duel = Duel(forum, None, clock, storage)  # type: ignore[arg-type]
    duel.ref = duel.referee()
    duel.ref.adopt(
        3, TOPIC, "Duel : Aurora contre Cassius",
        [(A, "5", ["brutale"]), (C, "7", ["sournoise"])],
        ruleset="fatigue", dice_secret=SECRET, stakes="une plume de phénix",
    )  # fmt: skip
    assert duel.cycle(), "the opening is published"
    return duel


def test_opening_states_pv_magic_types_and_the_dice_commitment() -> None:
    duel = make()
    text = duel.last_bot_text()
    assert "Aurora Vexley (5e année, magie brutale) : 300 PV" in plain(text)
    assert "Cassius Thorne (7e année, magie sournoise) : 400 PV" in plain(text)
    assert "une plume de phénix" in text
    assert duel.storage.duels()[0]["dice_commitment"] in text
    assert duel.storage.duels()[0]["ruleset"] == "fatigue"


def test_seed001_dodge_succeeds_when_its_bet_is_won_and_the_casts_bet_lost() -> None:
    """seed 001: "Esquiver [...] si celui-ci le permet"; RULES.md: a dodge "Succeeds when its
    own bet is won **and** the cast's bet is lost". Two declarations a turn; one d6 each."""
    duel = make()
    init = duel.post(A, "cast", "Flipendo", win=False)
    assert len(duel.cycle()) == 1
    first = duel.last_bot_text()
    assert "tour 1, première déclaration" in first and f"message n° {init}" in plain(first)
    assert f"dé « Pari » {duel.die(init)}, pari perdu" in plain(first)
    assert "attend la défense" in first and "À Cassius Thorne de se défendre" in first
    assert duel.state()["pending"]
    defense = duel.post(C, "dodge", None, win=True)
    assert len(duel.cycle()) == 1
    second = duel.last_bot_text()
    assert "tour 1, seconde déclaration" in second and "esquive le sort" in plain(second)
    assert f"message n° {defense}" in plain(second) and ") esquive, pari" in plain(second)
    assert duel.points() == (300, 400)
    rolls = {r["post_id"]: r for r in duel.storage.db["dice_rolls"].rows}
    assert set(rolls) == {init, defense} and {r["source"] for r in rolls.values()} == {"bot"}
    assert [t["number"] for t in duel.storage.db["turns"].rows] == [1]


def test_seed001_riposte_lands_on_the_initiator_and_reuse_costs_20_pv() -> None:
    """seed 001, "Esquiver et riposter": the incoming spell is avoided and the riposte lands;
    "l'arbitre fera perdre 20 PV supplémentaires au duelliste pour acharnement déloyal"."""
    duel = make()
    duel.post(A, "cast", "Flipendo", win=False)
    duel.cycle()
    duel.post(C, "dodge", None, win=True)
    duel.cycle()  # Flipendo dodged: it did directly target Cassius
    duel.turn = 2
    duel.post(C, "cast", "Diffindo", win=False)
    duel.cycle()
    duel.post(A, "dodge_riposte", "Rictusempra", win=True)
    duel.cycle()
    text = duel.last_bot_text()
    text = plain(text)
    assert "esquive et riposte avec" in text and "Cassius Thorne perd 16 PV" in text  # 15 +10 %
    assert duel.points() == (300, 384)
    duel.turn = 3
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    first = duel.last_bot_text()
    assert "acharnement déloyal" in first and "-20 PV" in plain(first)
    assert duel.points() == (280, 384)
    rows = list(duel.storage.db["violations"].rows_where("rule = 'reused_spell'"))
    assert [(r["duellist"], r["status"], r["penalty"]) for r in rows] == [(A, "applied", 20)]


def test_timeout_relaunch_resolves_undefended_once_across_a_restart(tmp_path: Path) -> None:
    """seed 001: "Si 36h [...] après la première déclaration de l'arbitre le second duelliste
    n'a pas posté sa défense, l'arbitre relancera automatiquement le jeu". The deadline is a
    stored row: a restarted bot fires it once, never twice."""
    duel = make(tmp_path)
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    duel.clock.advance(35 * 3600)
    assert duel.cycle() == []  # the delay is still running
    # downtime past the deadline, then a restart (new Referee, same database file)
    duel.clock.advance(2 * 3600)
    restarted = open_storage(tmp_path / "bot.db")
    duel.storage = restarted
    duel.ref = duel.referee()
    published = duel.cycle()
    assert len(published) == 1
    text = duel.last_bot_text()
    assert "relance (défense non postée)" in text and "résolu sans défense" in text
    assert duel.points() == (300, 378)  # Flipendo 20 +10 % brutale, undefended
    assert duel.state()["turn"] == 1 and not duel.state()["pending"]
    fired = list(duel.storage.db["deadlines"].rows_where("status = 'fired'"))
    assert len(fired) == 1
    # the same deadline swept again (another process, a retry after a crash): nothing
    again = duel.referee()
    assert sweep(again, 3) == 0 and sweep(duel.ref, None) == 0
    keys = [d["idempotency_key"] for d in duel.storage.declarations()]
    assert sum(k.endswith("turn1-relaunch") for k in keys) == 1
    assert len(list(duel.storage.db["deadlines"].rows_where("status = 'fired'"))) == 1


def test_nobody_takes_the_initiative_relaunch_once_then_close_without_winner() -> None:
    """seed 001: "aucun des deux duellistes n'a saisi l'initiative, l'arbitre relancera une
    dernière fois avant de mettre fin au duel"; RULES.md: no winner, no loser, no rewards."""
    duel = make()
    duel.clock.advance(36 * 3600 + 1)
    assert len(duel.cycle()) == 1
    assert "relance (dernière)" in duel.last_bot_text()
    duel.clock.advance(36 * 3600 + 1)
    assert len(duel.cycle()) == 1
    closing = duel.last_bot_text()
    assert "clôture du duel" in closing and "sans vainqueur" in closing
    assert duel.storage.duels()[0]["dice_secret"] in closing
    assert duel.storage.duels()[0]["status"] == "finished"
    duel.cycle()  # the next poll notifies the on_finished hooks
    duel.cycle()
    assert [o["reason"] for _, o in duel.finished] == ["no_winner"]  # once


def test_owl_reminder_before_the_deadline_is_sent_once() -> None:
    """RULES.md: "Owl reminders before a deadline (setting)": 12 h before, once."""
    duel = make()
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    duel.clock.advance(23 * 3600)
    duel.cycle()
    assert duel.forum.owls == []
    duel.clock.advance(3600 + 1)
    duel.cycle()
    duel.cycle()
    assert [name for name, _ in duel.forum.owls] == [C]
    assert "ta défense" in duel.forum.owls[0][1]


def test_edit_before_the_next_post_recomputes_the_pending_draft_with_the_same_die() -> None:
    """seed 001: "L'édition d'un poste est autorisée dans le cas seul où personne n'a encore
    posté après le post concerné": the draft follows the edit; its die does not change."""
    duel = make()
    duel.ref.review_delay_s = 600
    pid = duel.post(A, "cast", "Flipendo", win=True)
    duel.ref.poll_forum(3)
    draft = duel.storage.declarations(("draft",))[0]
    assert "Flipendo" in draft["text"]
    rolls = list(duel.storage.db["dice_rolls"].rows)
    duel.forum.edit_post(TOPIC, pid, duel.text_of(pid).replace("Flipendo", "[b]Rictusempra[/b]"))
    duel.ref.poll_forum(3)
    after = duel.storage.declaration(draft["id"])
    assert after["version"] > draft["version"]
    assert "Rictusempra" in after["text"] and "Flipendo" not in after["text"]
    assert "modifié après" not in after["text"]
    assert not list(duel.storage.db["violations"].rows_where("rule = 'late_edit'"))
    assert list(duel.storage.db["dice_rolls"].rows) == rolls


def test_late_edit_keeps_the_version_in_force_and_is_proposed() -> None:
    """RULES.md: "the version in force is the last one before the next post; a later edit is
    `late_edit` and the bot keeps the version in force" (detected by the content hash: the
    fake forum shows no edit note)."""
    duel = make()
    duel.ref.review_delay_s = 600
    pid = duel.post(A, "cast", "Flipendo", win=True)
    duel.ref.poll_forum(3)  # the initiative is drafted
    duel.clock.advance(60)
    duel.post(C, "dodge", None, win=True)  # the next post
    duel.ref.poll_forum(3)
    duel.clock.advance(60)
    text = duel.text_of(pid)
    assert "Flipendo" in text
    duel.forum.edit_post(TOPIC, pid, text.replace("Flipendo", "[b]Diffindo[/b]"))
    duel.ref.poll_forum(3)
    draft = duel.storage.declarations(("draft",))[0]
    assert "Flipendo" in draft["text"] and "Diffindo" not in draft["text"]
    assert "modifié après le message suivant" in draft["text"]
    rows = list(duel.storage.db["violations"].rows_where("rule = 'late_edit'"))
    assert [(r["duellist"], r["post_id"], r["status"]) for r in rows] == [(A, pid, "proposed")]
    versions = list(duel.storage.db["post_versions"].rows_where("post_id = ?", [pid]))
    assert len(versions) == 2


def test_late_edit_of_a_declared_post_is_listed_in_the_next_draft() -> None:
    duel = make()
    pid = duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()  # first declaration published: the post can no longer change
    duel.clock.advance(60)
    text = duel.text_of(pid)
    duel.forum.edit_post(TOPIC, pid, text.replace("Flipendo", "[b]Diffindo[/b]"))
    duel.cycle()  # re-read although no new post: the hash changed
    duel.post(C, "cast", "Rictusempra", win=True)
    duel.cycle()
    second = duel.last_bot_text()
    assert "Flipendo" in second and "Diffindo" not in second
    assert "Modifications tardives" in second and f"message n° {pid}" in plain(second)


def test_a_late_edit_leaves_the_edited_posts_other_proposed_violations() -> None:
    """Proposing ``late_edit`` for an earlier post replaces only its late_edit row: a
    proposed violation of that post from its own step (e.g. ``short_post``) stays (found
    while bringing late edits to 2v2)."""
    from forumbot.duels.fatigue import replace_step_violations

    duel = make()
    duel_id = duel.storage.duel_by_topic(duel.ref.board_id, TOPIC)["id"]
    earlier, now_post = 5, 9
    duel.storage.insert_violation(
        duel_id, 1,
        {"duellist": A, "rule": "short_post", "post_id": earlier, "evidence": "9 lines",
         "penalty": 20, "status": "proposed"},
        duel.clock(),
    )  # fmt: skip
    inputs = {
        "state_before": {"duellists": [], "pending": []},
        "posts": [{"post_id": now_post}],
        "late_edits": [{"duellist": A, "post_id": earlier}],
    }
    for _ in range(2):  # a redraft replaces its own late_edit row: still one
        replace_step_violations(duel.storage, duel_id, 2, inputs, {"violations": []}, duel.clock())
    rows = sorted(
        (r["rule"], r["status"])
        for r in duel.storage.db["violations"].rows_where("post_id = ?", [earlier])
    )
    assert rows == [("late_edit", "proposed"), ("short_post", "proposed")]


def test_duel_to_the_end_reveals_the_seed_notifies_once_and_verifies() -> None:
    """RULES.md: "End: a duellist whose PV reach 0 must abandon"; the final declaration
    states the winner, the stakes and the seed; verify-dice recomputes every roll."""
    duel = make()
    duel.ref.review_delay_s = "manual"
    duel.post(A, "cast", "Flipendo", win=True)
    duel.ref.poll_forum(3)
    first = duel.storage.declarations(("draft",))[0]
    duel.storage.db["declarations"].update(first["id"], {"status": "approved"})
    publish_due(duel.storage, duel.forum, duel.clock, manual=True)
    duel.post(C, "cast", "Rictusempra", win=True)
    duel.ref.poll_forum(3)
    second = duel.storage.declarations(("draft",))[0]
    set_numbers(duel.storage, second["id"], {f"{C}.points": 0}, "Maelis", duel.clock())
    duel.storage.db["declarations"].update(second["id"], {"status": "approved"})
    publish_due(duel.storage, duel.forum, duel.clock, manual=True)
    final = duel.last_bot_text()
    # adopted by hand, not opened by the sign-up desk: no leaderboard point nor purse (issue 25)
    assert "Aurora Vexley remporte le duel" in final and "3 gallions" not in final
    # who owes whom (issue 25 reader W1; a duel adopted by hand: its first post's terms)
    final = plain(final)
    assert " doit à " in final and " les enjeux du duel : une plume de phénix." in final
    assert "Graine des dés, révélée à la fin du duel : " + SECRET.hex() in plain(final)
    duel.cycle()
    duel.cycle()
    assert [(o["winner"], o["loser"]) for _, o in duel.finished] == [(A, C)]
    page = TopicPage("phpbb3", TOPIC, 1, 1, None, tuple(duel.forum.posts[TOPIC]))
    report = verify_pages([page])
    assert report.ok, report.problems
    assert len(report.checks) == 3  # initiative (twice: both declarations) + defense


def test_classic_duels_keep_running_beside_fatigue_ones() -> None:
    duel = make()
    duel.forum.add_topic(
        8, "Duel classique", "Arbitre", "Aurora Vexley (1re année) contre Cassius Thorne (2e année)"
    )
    duel.cycle()
    rulesets = sorted(d["ruleset"] for d in duel.storage.duels() if d["status"] != "ignored")
    assert rulesets == ["classic", "fatigue"]


def test_repolling_leaves_a_pending_fatigue_draft_alone() -> None:
    """Nothing new since the last poll: the draft keeps its version (open review forms stay
    valid) and its status (an approval is never undone)."""
    duel = make()
    duel.ref.review_delay_s = 600
    duel.post(A, "cast", "Flipendo", win=True)
    duel.ref.poll_forum(3)
    draft = duel.storage.declarations(("draft",))[0]
    for _ in range(3):
        duel.clock.advance(60)
        duel.ref.poll_forum(3)
    assert duel.storage.declaration(draft["id"])["version"] == draft["version"]


def test_an_admin_dismissal_gives_the_penalty_back_and_a_confirmation_takes_it() -> None:
    """RULES.md "Referee and admin": "a dismissed violation gives back its penalty and no
    longer counts toward three"; a proposed violation confirmed by an admin is applied."""
    from forumbot.web.judging import decide_violation

    duel = make()
    duel.post(A, "cast", "Flipendo", win=False)
    duel.cycle()
    duel.post(C, "dodge", None, win=True)
    duel.cycle()
    duel.turn = 2
    duel.post(C, "cast", "Diffindo", win=False)
    duel.cycle()
    duel.post(A, "dodge_riposte", "Rictusempra", win=True)
    duel.cycle()
    duel.turn = 3
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    assert duel.points() == (280, 384)
    row = next(duel.storage.db["violations"].rows_where("rule = 'reused_spell'"))
    decide_violation(duel.storage, row["id"], "dismissed", "même sort, autre cible", "alice",
                     duel.clock())  # fmt: skip
    assert duel.points() == (300, 384)
    state = duel.state()
    aurora = next(d for d in state["duellists"] if d["name"] == A)  # type: ignore[attr-defined]
    assert [v["status"] for v in aurora["violations"] if v["rule"] == "reused_spell"] == ["waived"]
    # a proposed violation with a penalty, confirmed by an admin, is taken
    duel.storage.db["violations"].insert(
        {"duel_id": row["duel_id"], "turn": 3, "duellist": C, "rule": "late_edit",
         "post_id": 1, "evidence": "edited after the next post", "penalty": 20,
         "status": "proposed"}
    )  # fmt: skip
    late = next(duel.storage.db["violations"].rows_where("rule = 'late_edit'"))
    decide_violation(duel.storage, late["id"], "confirmed", "édition tardive", "alice",
                     duel.clock())  # fmt: skip
    assert duel.points() == (300, 364)
