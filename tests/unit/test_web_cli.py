"""``forumbot users add/list/password/disable/enable`` and the ``web`` command's wiring
(session key, options)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.storage import open_storage
from forumbot.web.serve import SECRET_ENV, secret_key
from forumbot.web.users import authenticate


@pytest.fixture
def config(tmp_path: Path) -> Path:
    runner = CliRunner()
    path = tmp_path / "forumbot.toml"
    assert runner.invoke(main, ["init", str(path)]).exit_code == 0
    return path


def test_users_add_and_list(config: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(
        main,
        ["users", "add", "alice", "--role", "admin", "-c", str(config), "--password-stdin"],
        input="long enough secret\n",
    )
    assert r.exit_code == 0, r.output
    assert "user alice added (admin)" in r.output
    r = runner.invoke(
        main,
        ["users", "add", "rita", "--role", "referee", "-c", str(config), "--password-stdin"],
        input="another secret\n",
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["users", "list", "-c", str(config)])
    assert r.output.splitlines() == [  # issue 13: a header, and each account's status
        "name\trole\tstatus\tduels",
        "alice\tadmin\tenabled\tall",
        "rita\treferee\tenabled\t-",
    ]
    storage = open_storage(tmp_path / "forumbot.db")
    assert authenticate(storage, "alice", "long enough secret") is not None


def test_users_add_refusals(config: Path) -> None:
    runner = CliRunner()
    args = ["users", "add", "bob", "-c", str(config), "--password-stdin"]
    r = runner.invoke(main, [*args, "--role", "king"], input="long enough\n")
    assert r.exit_code != 0 and "king" in r.output
    r = runner.invoke(main, [*args, "--role", "referee"], input="short\n")
    assert r.exit_code == 1 and "8 characters" in r.output


@pytest.mark.parametrize(
    ("existing", "typed", "says"),
    [
        ("alice", "\u0430lice", "look-alike"),  # a Cyrillic a among Latin letters
        ("ace", "\u0430\u0441\u0435", "looks like the existing account 'ace'"),  # all Cyrillic
        ("alice", "AIice", "looks like the existing account 'alice'"),  # a capital i
        ("rob", "rob\u200b", "invisible"),  # a zero-width space
        ("rob", "\uff52\uff4f\uff42", "exists already"),  # fullwidth: NFKC gives "rob"
    ],
)
def test_users_add_refuses_a_name_that_looks_like_an_existing_one(
    config: Path, tmp_path: Path, existing: str, typed: str, says: str
) -> None:
    """Issue 24 F12: NFKC, invisible characters and the confusables skeleton against every
    existing account; one English line, exit 1 (as every other refusal of ``users add``);
    nothing is added."""
    runner = CliRunner()
    c = ["-c", str(config), "--password-stdin"]
    ok = runner.invoke(main, ["users", "add", existing, "--role", "admin", *c], input="secret 12\n")
    assert ok.exit_code == 0, ok.output
    r = runner.invoke(main, ["users", "add", typed, "--role", "admin", *c], input="secret 12\n")
    assert r.exit_code == 1, r.output
    assert says in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    listed = runner.invoke(main, ["users", "list", "-c", str(config)]).output.splitlines()
    assert [line.split("\t")[0] for line in listed[1:]] == [existing]


def test_users_password_disable_enable(config: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    c = ["-c", str(config)]
    args = ["users", "add", "rita", "--role", "referee", *c, "--password-stdin"]
    assert runner.invoke(main, args, input="first secret\n").exit_code == 0
    r = runner.invoke(main, ["users", "password", "rita", *c, "--password-stdin"],
                      input="second secret\n")  # fmt: skip
    assert r.exit_code == 0 and "password of rita changed" in r.output
    storage = open_storage(tmp_path / "forumbot.db")
    assert authenticate(storage, "rita", "first secret") is None
    assert authenticate(storage, "rita", "second secret") is not None
    r = runner.invoke(main, ["users", "disable", "RITA", *c])
    assert r.exit_code == 0 and "user rita disabled" in r.output
    assert authenticate(storage, "rita", "second secret") is None
    listed = runner.invoke(main, ["users", "list", *c]).output.splitlines()
    assert listed[1:] == ["rita\treferee\tdisabled\t-"]  # shown as such (issue 13)
    assert runner.invoke(main, ["users", "enable", "rita", *c]).exit_code == 0
    assert authenticate(storage, "rita", "second secret") is not None
    r = runner.invoke(main, ["users", "disable", "nobody", *c])
    assert r.exit_code == 1 and "no user 'nobody'" in r.output
    r = runner.invoke(main, ["users", "password", "rita", *c, "--password-stdin"], input="short\n")
    assert r.exit_code == 1 and "8 characters" in r.output


def test_web_command_is_registered_with_local_default() -> None:
    r = CliRunner().invoke(main, ["web", "--help"])
    assert r.exit_code == 0 and "127.0.0.1" in r.output and "--port" in r.output


def test_secret_key_from_env_or_private_file(tmp_path: Path) -> None:
    assert secret_key("x.db", {SECRET_ENV: "e" * 40}) == "e" * 40
    with pytest.raises(ValueError):
        secret_key("x.db", {SECRET_ENV: "short"})
    db = str(tmp_path / "bot.db")
    first = secret_key(db, {})
    assert len(first) == 64 and secret_key(db, {}) == first
    mode = stat.S_IMODE(os.stat(db + ".web-secret").st_mode)
    assert mode == 0o600


def test_a_postgresql_club_keeps_its_web_secret_and_cookie_jar_in_its_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 mend: the URL is no path, so ``postgresql:/…`` folders are never created."""
    from forumbot.app import cookie_file_for

    state = tmp_path / "state"
    monkeypatch.setenv("STATE_DIRECTORY", str(state))
    monkeypatch.chdir(tmp_path)
    url = "postgresql://bot@db.example:5432/forumbot?schema=poudlard"
    first = secret_key(url, {})
    assert len(first) == 64 and secret_key(url, {}) == first
    kept = state / "forumbot-poudlard.web-secret"
    assert kept.read_text(encoding="ascii").strip() == first
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert cookie_file_for(url) == state / "forumbot-poudlard.cookies.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"]
    assert len(secret_key(":memory:", {})) == 64 and not (tmp_path / ":memory:.web-secret").exists()
