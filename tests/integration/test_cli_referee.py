"""Nothing a referee does freezes a duel, and referee commands say no instead of doing
nothing (issue 22), in-process against the sandbox board with the CLI runner: a dropped turn
draft is drafted again at the next poll (default) or waits with a referee task
(``--no-redraft``); ``drafts redraft`` keeps the dice and publishes once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.app import bootstrap
from forumbot.cli import main
from forumbot.config import load_config
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage

AURORA = "Aurora Vexley"
CASSIUS = "Cassius Thorne"


def _post(spell: str, me: str) -> str:
    return (
        f"{me} lève sa baguette et s'avance au centre de la salle.\n"
        "Les torches vacillent tandis que l'incantation résonne contre les murs.\n"
        "Le regard fixé sur son adversaire, la voix ferme, sans trembler.\n"
        f"[b]{spell}[/b]"
    )


@pytest.fixture()
def duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A running classic duel on the sandbox (its opening published) and its configuration."""
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
    cfg.write_text(cfg.read_text().replace('url = "http://127.0.0.1:8080"', f'url = "{url}"'))
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    poll(cfg)
    [opening] = storage(cfg).declarations(("draft",))
    assert run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    poll(cfg, publish=True)
    assert storage(cfg).duels()[0]["status"] == "running"
    yield cfg, board, topic
    board.stop()


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
    board.post_reply(topic, AURORA, _post("Expelliarmus", AURORA))
    board.post_reply(topic, CASSIUS, _post("Protego", CASSIUS))
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
    assert "redraft" in listed.output and "next poll" in listed.output
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
    assert task["status"] == "open" and "motif : doublon" in task["text"]
    assert f"forumbot drafts redraft {draft['id']}" in task["text"]
    # a later post drafts nothing: the duel waits, and says so (the task)
    board.post_reply(topic, AURORA, _post("Stupefix", AURORA))
    poll(cfg)
    assert [d["status"] for d in storage(cfg).declarations(None) if d["kind"] == "turn"] == [
        "cancelled"
    ]
    # the referee redrafts it: the task closes, the next poll drafts the turn again
    redone = run("drafts", "redraft", str(draft["id"]), "--by", "Maelis", "-c", str(cfg))
    assert redone.exit_code == 0, redone.output
    assert "1 referee task(s) closed" in redone.output
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
