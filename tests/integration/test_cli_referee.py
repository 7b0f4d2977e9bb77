"""Nothing a referee does freezes a duel, and referee commands say no instead of doing
nothing (issue 22), in-process against the sandbox board with the CLI runner: a dropped turn
draft is drafted again at the next poll (default) or waits with a referee task
(``--no-redraft``); ``drafts redraft`` keeps the dice and publishes once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.app import bootstrap
from forumbot.cli import main
from forumbot.config import load_config
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage

AURORA = "Aurora Vexley"
CASSIUS = "Cassius Thorne"
DISARM = "Sortilège de Désarmement"
SHIELD = "Charme du Bouclier"


def _post(spell: str, me: str) -> str:
    return (
        f"{me} lève sa baguette et s'avance au centre de la salle.\n"
        "Les torches vacillent tandis que l'incantation résonne contre les murs.\n"
        "Le regard fixé sur son adversaire, la voix ferme, sans trembler.\n"
        f"[b]{spell}[/b]"
    )


@pytest.fixture()
def board_cfg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A sandbox board with one classic duel topic and a configuration pointing at it."""
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", AURORA, CASSIUS):
        board.add_user(name, "a")
    url = board.start()
    topic = board.create_topic(
        3, "Arbitre", "Duel : Aurora contre Cassius",
        f"{AURORA} (3e année) contre {CASSIUS} (4e année).",
    )  # fmt: skip
    cfg = tmp_path / "forumbot.toml"
    CliRunner().invoke(main, ["init", str(cfg)])
    # the sandbox's pages say lang="fr": these commands are checked in English, so say so
    cfg.write_text(
        cfg.read_text()
        .replace('url = "http://127.0.0.1:8080"', f'url = "{url}"')
        .replace('language = ""', 'language = "en"', 1)
    )
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    yield cfg, board, topic
    board.stop()


@pytest.fixture()
def duel(board_cfg):  # type: ignore[no-untyped-def]
    """A running classic duel on the sandbox (its opening published)."""
    cfg, board, topic = board_cfg
    poll(cfg)
    [opening] = storage(cfg).declarations(("draft",))
    assert run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    assert storage(cfg).duels()[0]["status"] == "running"
    return cfg, board, topic


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def poll(cfg: Path, publish: bool = False) -> Any:
    bot = bootstrap(load_config(cfg))
    try:
        report = bot.poll()
        if publish:
            bot.publish()
        return report
    finally:
        bot.close()


def storage(cfg: Path) -> Any:
    return open_storage(load_config(cfg).database)


def play_turn(cfg: Path, board: SandboxBoard, topic: int) -> dict[str, Any]:
    """Both duellists post; the poll drafts the turn; returns its draft row."""
    board.post_reply(topic, AURORA, _post(DISARM, AURORA))
    board.post_reply(topic, CASSIUS, _post(SHIELD, CASSIUS))  # Cassius does not attack
    poll(cfg)
    [draft] = [d for d in storage(cfg).declarations(("draft",)) if d["kind"] == "turn"]
    return dict(draft)


def test_a_dropped_turn_draft_is_drafted_again_at_the_next_poll_by_default(duel) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    dice = json.loads(draft["context_json"])["inputs"]["dice"]
    result = run("drafts", "drop", str(draft["id"]), "--reason", "doublon", "-c", str(cfg))
    assert result.exit_code == 0, result.output
    assert "will be drafted again" in result.output
    assert storage(cfg).declaration(draft["id"])["status"] == "redraft"
    listed = run("drafts", "list", "-c", str(cfg))
    assert "to be drafted again" in listed.output and "next poll" in listed.output
    # the next poll drafts it again, though no post came in (the freeze of issue 22)
    poll(cfg)
    again = storage(cfg).declaration(draft["id"])
    assert again["status"] == "draft" and again["idempotency_key"] == draft["idempotency_key"]
    assert json.loads(again["context_json"])["inputs"]["dice"] == dice  # the same rolls
    actions = [e["action"] for e in storage(cfg).audit_entries(f"declaration:{draft['id']}")]
    assert actions == ["draft.drop", "draft.redrafted"]
    [drop] = [
        e for e in storage(cfg).audit_entries(f"declaration:{draft['id']}")
        if e["action"] == "draft.drop"
    ]  # fmt: skip
    assert json.loads(drop["after"]) == {"status": "redraft", "reason": "doublon", "redraft": True}
    # published once, with its marker
    assert run("drafts", "approve", str(draft["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    poll(cfg, publish=True)
    marked = [p for p in board.posts(topic) if draft["idempotency_key"] in p.text]
    assert len(marked) == 1
    assert json.loads(storage(cfg).duels()[0]["state_json"])["turn"] == 1


def test_no_redraft_leaves_the_duel_waiting_with_a_referee_task(duel) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    result = run(
        "drafts", "drop", str(draft["id"]), "--reason", "doublon", "--no-redraft", "-c", str(cfg)
    )
    assert result.exit_code == 0, result.output
    assert "waits for a referee" in result.output
    assert f"drafts redraft {draft['id']}" in result.output
    db = storage(cfg)
    assert db.declaration(draft["id"])["status"] == "cancelled"
    [task] = list(db.db["referee_tasks"].rows_where("kind = 'turn_dropped'"))
    assert task["status"] == "open" and "motif : doublon" in plain(task["text"])
    assert f"forumbot drafts redraft {draft['id']}" in task["text"]
    # a later post drafts nothing: the duel waits, and says so (the task)
    board.post_reply(topic, AURORA, _post("Sortilège de Chatouillis", AURORA))
    poll(cfg)
    assert [d["status"] for d in storage(cfg).declarations(None) if d["kind"] == "turn"] == [
        "cancelled"
    ]
    # the referee redrafts it: the task closes, the next poll drafts the turn again
    redone = run("drafts", "redraft", str(draft["id"]), "--by", "Maelis", "-c", str(cfg))
    assert redone.exit_code == 0, redone.output
    assert "1 referee task closed" in redone.output
    poll(cfg)
    db = storage(cfg)
    assert db.declaration(draft["id"])["status"] == "draft"
    assert db.db["referee_tasks"].get(task["id"])["status"] == "done"


def test_redraft_replaces_a_pending_draft_with_a_fresh_one_and_publishes_once(duel) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    dice = json.loads(draft["context_json"])["inputs"]["dice"]
    edited = run(
        "drafts", "edit", str(draft["id"]), "--set", f"{CASSIUS}.points=12", "-c", str(cfg)
    )
    assert edited.exit_code == 0, edited.output
    assert "décision de l'arbitre" in storage(cfg).declaration(draft["id"])["text"]
    result = run("drafts", "redraft", str(draft["id"]), "--reason", "erreur", "-c", str(cfg))
    assert result.exit_code == 0, result.output
    poll(cfg)
    fresh = storage(cfg).declaration(draft["id"])
    assert fresh["status"] == "draft" and json.loads(fresh["overrides_json"]) == {}
    assert "décision de l'arbitre" not in fresh["text"]
    assert json.loads(fresh["context_json"])["inputs"]["dice"] == dice
    twice = run("drafts", "redraft", str(draft["id"]), "-c", str(cfg))
    assert twice.exit_code == 0
    assert run("drafts", "redraft", str(draft["id"]), "-c", str(cfg)).exit_code != 0  # waits
    poll(cfg)
    assert run("drafts", "approve", str(draft["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    poll(cfg, publish=True)
    assert len([p for p in board.posts(topic) if draft["idempotency_key"] in p.text]) == 1
    published = run("drafts", "redraft", str(draft["id"]), "-c", str(cfg))
    assert published.exit_code != 0 and "duels correct" in published.output
    audit = [e["action"] for e in storage(cfg).audit_entries(f"declaration:{draft['id']}")]
    assert audit.count("draft.redraft") == 2 and audit.count("draft.redrafted") == 2


def _unchanged(cfg: Path, before: dict[str, Any]) -> None:
    after = storage(cfg).declaration(before["id"])
    assert (after["version"], after["text"], after["overrides_json"]) == (
        before["version"], before["text"], before["overrides_json"],
    )  # fmt: skip
    assert not [
        e for e in storage(cfg).audit_entries(f"declaration:{before['id']}")
        if e["action"].startswith("draft.")
    ]  # fmt: skip


def test_a_set_that_changes_nothing_says_already_so_and_changes_nothing(duel) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    missed = run("drafts", "edit", str(draft["id"]), "--set", f"{CASSIUS}.landed=false",
                 "-c", str(cfg))  # fmt: skip
    assert missed.exit_code != 0 and "Traceback" not in missed.output
    assert f"{CASSIUS}'s attack already missed" in missed.output
    assert "already so, nothing changed" in missed.output
    points = {
        d["name"]: d["points"]
        for d in json.loads(draft["context_json"])["outcome"]["state"]["duellists"]
    }
    same = run("drafts", "edit", str(draft["id"]), "--set", f"{AURORA}.points={points[AURORA]}",
               "-c", str(cfg))  # fmt: skip
    assert same.exit_code != 0
    assert f"{AURORA}.points is already {points[AURORA]}" in same.output
    _unchanged(cfg, draft)
    # a number that does change is taken, and setting it again is already so
    new = points[CASSIUS] - 1
    assert run("drafts", "edit", str(draft["id"]), "--set", f"{CASSIUS}.points={new}",
               "-c", str(cfg)).exit_code == 0  # fmt: skip
    again = run("drafts", "edit", str(draft["id"]), "--set", f"{CASSIUS}.points={new}",
                "-c", str(cfg))  # fmt: skip
    assert again.exit_code != 0 and "already so" in again.output


def test_a_text_contradicting_the_draft_is_refused_unless_forced(duel) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    stored = json.loads(draft["context_json"])
    points = {d["name"]: d["points"] for d in stored["outcome"]["state"]["duellists"]}
    dice = stored["inputs"]["dice"]
    post_id = next(iter(dice))
    attack = dice[post_id][0]
    wrong_die = 1 + attack % 6
    # Cassius' line ends with his total, whether it is « 30 PD » or a balance « 30 − 4 (…) =
    # 26 PD » (issue 25; the dice decide which): the total is the number before « PD ».
    line = re.compile(rf"(- {CASSIUS}\u00a0: [^\n]*?){points[CASSIUS]} PD")
    text, n = line.subn(rf"\g<1>{points[CASSIUS] + 5} PD", draft["text"], count=1)
    assert n == 1, draft["text"]
    text = text.replace(f"attaque {attack}, défense", f"attaque {wrong_die}, défense", 1)
    assert text != draft["text"]
    path = cfg.parent / "new.txt"
    path.write_text(text, encoding="utf-8")
    refused = run("drafts", "edit", str(draft["id"]), "--text-file", str(path), "-c", str(cfg))
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert f"{CASSIUS}'s total: the text says {points[CASSIUS] + 5}, the draft {points[CASSIUS]}" \
        in refused.output
    assert f"post {post_id}'s attaque die: the text says {wrong_die}, the draft {attack}" \
        in refused.output
    assert "--force" in refused.output
    _unchanged(cfg, draft)
    # the same numbers in other words are taken
    reworded = draft["text"].replace("Le tour 1 est terminé", "Fin du tour 1")
    assert reworded != draft["text"]
    path.write_text(reworded, encoding="utf-8")
    ok = run("drafts", "edit", str(draft["id"]), "--text-file", str(path), "-c", str(cfg))
    assert ok.exit_code == 0, ok.output
    # forced: kept, and the differences are in the audit log
    path.write_text(text, encoding="utf-8")
    forced = run("drafts", "edit", str(draft["id"]), "--text-file", str(path), "--force",
                 "--by", "Maelis", "-c", str(cfg))  # fmt: skip
    assert forced.exit_code == 0, forced.output
    assert "kept against the draft (--force)" in forced.output
    assert storage(cfg).declaration(draft["id"])["text"] == text
    [entry] = [
        e for e in storage(cfg).audit_entries(f"declaration:{draft['id']}")
        if e["action"] == "draft.force_text"
    ]  # fmt: skip
    assert entry["actor"] == "Maelis" and len(json.loads(entry["after"])["differences"]) == 2


def test_a_spell_cast_before_the_top_can_be_waived(board_cfg) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = board_cfg
    poll(cfg)  # the opening is drafted
    early = board.post_reply(topic, AURORA, _post(DISARM, AURORA))  # before the top
    poll(cfg)
    [opening] = storage(cfg).declarations(("held",))
    assert opening["last_error"] == "cast_before_start: referee decides"
    assert "avant le top" in opening["text"] and f"message n° {early}" in plain(opening["text"])
    wrong = run("drafts", "edit", str(opening["id"]), "--waive", f"{CASSIUS}:cast_before_start",
                "-c", str(cfg))  # fmt: skip
    assert wrong.exit_code != 0 and "nothing to waive" in wrong.output
    waived = run("drafts", "edit", str(opening["id"]), "--waive", f"{AURORA}:cast_before_start",
                 "--by", "Maelis", "-c", str(cfg))  # fmt: skip
    assert waived.exit_code == 0, waived.output
    assert "no longer held" in waived.output
    row = storage(cfg).declaration(opening["id"])
    assert row["status"] == "draft" and "avant le top" not in row["text"]
    assert "[b]Top ![/b] Le duel commence." in plain(row["text"])
    [violation] = list(storage(cfg).db["violations"].rows_where("rule = 'cast_before_start'"))
    assert violation["status"] == "waived"
    poll(cfg)  # the next poll keeps the waiver (the early post is already listed)
    assert "avant le top" not in storage(cfg).declaration(opening["id"])["text"]
    assert run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    posted = [p.text for p in board.posts(topic) if "ouverture du duel" in p.text]
    assert len(posted) == 1 and "avant le top" not in posted[0]
    actions = [e["action"] for e in storage(cfg).audit_entries(f"declaration:{opening['id']}")]
    assert "draft.waive" in actions


ADOPT = ["--forum", "3", "--duellist", f"{CASSIUS}:4"]


def test_adopt_refuses_a_name_that_is_no_member_with_a_did_you_mean(board_cfg) -> None:  # type: ignore[no-untyped-def]
    cfg, board, _topic = board_cfg
    chat = board.create_topic(3, AURORA, "Entraînement du mardi", "Qui vient s'entraîner ?")
    typo = run("duels", "adopt", str(chat), "--duellist", "Aurora Vexly:3", *ADOPT,
               "-c", str(cfg))  # fmt: skip
    assert typo.exit_code != 0 and "Traceback" not in typo.output
    assert "no member named 'Aurora Vexly' on the board (did you mean 'Aurora Vexley'?)" \
        in typo.output
    assert "nothing adopted" in typo.output
    assert not [d for d in storage(cfg).duels() if d["topic_id"] == chat]
    forced = run("duels", "adopt", str(chat), "--duellist", "Aurora Vexly:3", *ADOPT,
                 "--force", "-c", str(cfg))  # fmt: skip
    assert forced.exit_code == 0, forced.output
    assert "adopted anyway (--force)" in forced.output


def test_a_cancelled_adoption_can_be_adopted_again(board_cfg) -> None:  # type: ignore[no-untyped-def]
    cfg, board, _topic = board_cfg
    chat = board.create_topic(3, AURORA, "Entraînement du mardi", "Qui vient s'entraîner ?")
    first = run("duels", "adopt", str(chat), "--duellist", f"{AURORA}:3", *ADOPT, "-c", str(cfg))
    assert first.exit_code == 0, first.output
    duel = next(d for d in storage(cfg).duels() if d["topic_id"] == chat)
    cancel = run("duels", "cancel", str(chat), "--reason", "erreur d'adoption", "-c", str(cfg))
    assert cancel.exit_code == 0, cancel.output
    again = run("duels", "adopt", str(chat), "--duellist", f"{AURORA}:3", *ADOPT,
                "--by", "Maelis", "-c", str(cfg))  # fmt: skip
    assert again.exit_code == 0, again.output
    db = storage(cfg)
    [new] = [d for d in db.duels() if d["topic_id"] == chat]
    assert new["status"] == "open" and new["id"] == duel["id"]  # the row, written again
    old, opening = db.declarations(None, new["id"])
    assert old["status"] == "cancelled" and old["idempotency_key"].endswith(f"~{old['id']}")
    assert opening["kind"] == "opening" and opening["status"] == "draft"
    assert opening["id"] > old["id"]  # a new row: told about like any new draft
    assert opening["text"] != old["text"]  # a new seed, a new commitment
    [kept] = [e for e in db.audit_entries(f"duel:{duel['id']}") if e["action"] == "duel.readopt"]
    assert kept["actor"] == "Maelis"
    assert json.loads(kept["before"])["duel"]["status"] == "cancelled"
    # published once: the new opening goes out with the topic's key
    assert run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    assert len([p for p in board.posts(chat) if opening["idempotency_key"] in p.text]) == 1
    # a duel whose declarations the players saw is not adopted over
    assert run("duels", "cancel", str(chat), "--reason", "fin", "-c", str(cfg)).exit_code == 0
    refused = run("duels", "adopt", str(chat), "--duellist", f"{AURORA}:3", *ADOPT,
                  "-c", str(cfg))  # fmt: skip
    assert refused.exit_code != 0 and "needs a new topic" in refused.output


def test_a_classic_post_edited_after_its_declaration_is_flagged_with_both_versions(
    duel,  # type: ignore[no-untyped-def]
) -> None:
    from datetime import UTC, datetime

    from forumbot.notify.scan import scan
    from forumbot.notify.settings import NotifyConfig
    from forumbot.web.users import add_user

    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    assert run("drafts", "approve", str(draft["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    declared = storage(cfg).declaration(draft["id"])
    assert declared["status"] == "published" and DISARM in declared["text"]
    aurora_post = next(p for p in board.posts(topic) if p.poster_id == board.user_id(AURORA))
    # an edit that changes only the wording is no late edit
    board.edit_post(aurora_post.post_id, aurora_post.text.replace("sans trembler", "calme"),
                    by=AURORA)  # fmt: skip
    poll(cfg)
    assert not list(storage(cfg).db["referee_tasks"].rows_where("kind = 'late_edit'"))
    # the spell changed after the declaration: flagged, both versions, the declaration kept
    edited = next(p for p in board.posts(topic) if p.post_id == aurora_post.post_id)
    board.edit_post(edited.post_id, edited.text.replace(DISARM, "Sortilège de Chatouillis"),
                    by=AURORA)  # fmt: skip
    poll(cfg)
    poll(cfg)  # once only
    db = storage(cfg)
    [task] = list(db.db["referee_tasks"].rows_where("kind = 'late_edit'"))
    assert task["status"] == "open" and task["post_id"] == aurora_post.post_id
    assert f"message n° {aurora_post.post_id} après la déclaration du tour 1" in plain(task["text"])
    assert f"Version déclarée : sort {DISARM}" in plain(task["text"])
    assert "Version modifiée : sort Sortilège de Chatouillis" in plain(task["text"])
    assert "calme" in task["text"] and "sans trembler" in task["text"]
    assert db.declaration(draft["id"])["text"] == declared["text"]  # never edited silently
    # the referee is told (a notice queued for the task)
    now = datetime.now(UTC)
    add_user(db, "maelis", "un mot de passe assez long", "admin", now)
    scan(db, NotifyConfig(), now)
    notices = list(db.db["notices"].rows_where("target = ?", [f"referee_task:{task['id']}"]))
    assert notices and notices[0]["kind"] == "task_opened"


def test_duels_correct_posts_an_erratum_once_and_the_duel_follows_it(duel) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = duel
    draft = play_turn(cfg, board, topic)
    assert run("drafts", "approve", str(draft["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    published = storage(cfg).declaration(draft["id"])
    points = {
        d["name"]: d["points"]
        for d in json.loads(published["context_json"])["outcome"]["state"]["duellists"]
    }
    new = points[CASSIUS] - 2
    same = run("duels", "correct", str(topic), "--turn", "1", "--set",
               f"{CASSIUS}.points={points[CASSIUS]}", "-c", str(cfg))  # fmt: skip
    assert same.exit_code != 0 and "already so" in same.output
    result = run("duels", "correct", str(topic), "--turn", "1", "--set", f"{CASSIUS}.points={new}",
                 "--by", "Maelis", "-c", str(cfg))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"{CASSIUS}: {points[CASSIUS]} -> {new}" in result.output
    db = storage(cfg)
    [erratum] = [d for d in db.declarations(None) if d["kind"] == "erratum"]
    assert erratum["status"] == "approved" and erratum["idempotency_key"].endswith("-erratum1")
    assert json.loads(db.duels()[0]["state_json"])["duellists"][1]["points"] == points[CASSIUS]
    assert db.declaration(draft["id"])["text"] == published["text"]  # history untouched
    poll(cfg, publish=True)
    poll(cfg, publish=True)
    posted = [p.text for p in board.posts(topic) if erratum["idempotency_key"] in p.text]
    assert len(posted) == 1
    assert "[b]Erratum : déclaration du tour 1[/b]" in plain(posted[0])
    assert f"- {CASSIUS} : {points[CASSIUS]} PD → {new} PD" in plain(posted[0])
    db = storage(cfg)
    state = json.loads(db.duels()[0]["state_json"])
    assert {d["name"]: d["points"] for d in state["duellists"]}[CASSIUS] == new
    assert state["turn"] == 1
    actions = [e["action"] for e in db.audit_entries(f"duel:{db.duels()[0]['id']}")]
    assert "duel.correct" in actions and "duel.corrected" in actions
    # the next turn is drafted from the corrected numbers, after the erratum's post
    turn2 = play_turn(cfg, board, topic)
    before = json.loads(turn2["context_json"])["inputs"]["state_before"]
    assert {d["name"]: d["points"] for d in before["duellists"]}[CASSIUS] == new
    assert turn2["turn"] == 2
    assert run("drafts", "approve", str(turn2["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    # turn 1 is followed by turn 2: its numbers can no longer be corrected, a note can
    later = run("duels", "correct", str(topic), "--turn", "1", "--set", f"{AURORA}.points=3",
                "-c", str(cfg))  # fmt: skip
    assert later.exit_code != 0 and "recomputing later turns" in later.output
    note = cfg.parent / "note.txt"
    note.write_text("Le sort de Cassius était bien le Charme du Bouclier.", encoding="utf-8")
    noted = run("duels", "correct", str(topic), "--turn", "1", "--text-file", str(note),
                "-c", str(cfg))  # fmt: skip
    assert noted.exit_code == 0, noted.output
    assert "Les nombres du duel ne changent pas." in noted.output
    # a published declaration is corrected, never redrafted
    again = run("drafts", "redraft", str(draft["id"]), "-c", str(cfg))
    assert again.exit_code != 0 and "duels correct" in again.output
