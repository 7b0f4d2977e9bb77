"""Issue 24 F5, F6: a claim ends (a total per draft, unassignment, disable) and every duration
setting has an upper bound refused at load (exit 78), so no value reaches a date overflow."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.config import EXAMPLE_CONFIG, ConfigError, load_config
from forumbot.duels.publication import publish_due
from forumbot.notify import claims
from forumbot.notify.settings import NotifyConfig, NotifyConfigError, parse_notify
from forumbot.web.users import set_disabled, unassign_referee
from tests.unit.web_scenario import build

CFG = NotifyConfig(claim_limit_s=7200, claim_total_s=14400)


def test_renewing_a_claim_cannot_hold_a_draft_past_the_total() -> None:
    s = build()
    start = s.clock()
    for _ in range(2):  # re-taken every 7100 s, as in the report
        claims.take(s.storage, s.draft_id, "rita", s.clock(), CFG)
        s.clock.advance(7100)
    row = claims.take(s.storage, s.draft_id, "rita", s.clock(), CFG)
    assert row["claim_until"] == (start + timedelta(seconds=14400)).isoformat()
    s.clock.advance(14400 - 14200)
    with pytest.raises(claims.ClaimError) as err:
        claims.take(s.storage, s.draft_id, "rita", s.clock(), CFG)
    assert err.value.code == "expired"
    publish_due(s.storage, s.forum, s.clock)  # the review delay long over: it goes out
    assert s.storage.declaration(s.draft_id)["status"] == "published"


@pytest.mark.parametrize("how", ["unassigned", "disabled"])
def test_a_claim_ends_with_the_duel_or_the_account(how: str) -> None:
    s = build()
    claims.take(s.storage, s.draft_id, "rita", s.clock(), CFG)
    if how == "unassigned":
        unassign_referee(s.storage, s.duel_id, "rita", "alice", s.clock())
    else:
        set_disabled(s.storage, "rita", True, s.clock(), actor="alice")
    decl = s.storage.declaration(s.draft_id)
    assert decl["claimed_by"] is None and claims.active_claim(decl, s.clock()) is None
    assert [e["action"] for e in s.storage.audit_entries(f"declaration:{s.draft_id}")][-1] == (
        "draft.release"
    )


@pytest.mark.parametrize("value", [10**9, 10**12])
def test_huge_claim_limits_are_refused_at_load(value: int) -> None:
    with pytest.raises(NotifyConfigError, match="claim_limit_s must be at most 86400"):
        parse_notify({"claim_limit_s": value})
    with pytest.raises(NotifyConfigError, match="claim_total_s must be at most"):
        parse_notify({"claim_total_s": value})


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("club", "review_delay_s", 10**12),
        ("poll", "poll_interval_s", 10**12),
        ("poll", "publish_interval_s", 10**9),
        ("poll", "flood_interval_s", 10**9),
        ("poll", "edit_watch_interval_s", 10**9),
    ],
)
def test_every_duration_setting_has_an_upper_bound(
    tmp_path: Path, section: str, key: str, value: int
) -> None:
    config = tmp_path / "forumbot.toml"
    text, n = re.subn(rf"(?m)^#? ?{key} = .*$", f"{key} = {value}", EXAMPLE_CONFIG)
    assert n == 1, key
    config.write_text(text)
    with pytest.raises(ConfigError, match=key):
        load_config(str(config))


def test_every_seconds_setting_is_bounded() -> None:
    """No ``*_s`` setting of the schema is left without an upper bound."""
    from forumbot.config.schema import MAX_REVIEW_DELAY_S, section_model, settings

    for info in settings():
        if not info.path.endswith("_s"):
            continue
        section, key = info.path.split(".")
        field = section_model(section).model_fields[key]
        bounded = any(hasattr(m, "le") for m in field.metadata)
        assert bounded or info.path == "club.review_delay_s", info.path
    assert MAX_REVIEW_DELAY_S == 7 * 86400


def test_web_refuses_a_huge_claim_limit_with_exit_78(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("forumbot.ops.startup.check_clock", lambda config, **kw: None)
    monkeypatch.setenv("FORUMBOT_WEB_SECRET", "x" * 40)
    config = tmp_path / "forumbot.toml"
    config.write_text(
        EXAMPLE_CONFIG.replace('database = "forumbot.db"', 'database = "bot.db"')
        + "\n[notify]\nclaim_limit_s = 1000000000000\n"
    )
    result = CliRunner().invoke(main, ["web", "-c", str(config), "--port", "1"])
    assert result.exit_code == 78, result.output
    assert "claim_limit_s must be at most 86400" in result.output


@pytest.mark.parametrize(
    "name", ["<b>rita</b>", "rita\u202e", "[url=x]rita[/url]", "ri\u200bta", "\u3164"]
)
def test_a_hostile_forum_account_name_is_refused(name: str) -> None:
    """Issue 24 F11, the settings function itself (the CLI path): HTML, bidi, BBCode, invisible
    characters refused (the review page with its board look-up: test_web_forum_account.py)."""
    from forumbot.notify.settings import set_person_settings

    s = build()
    with pytest.raises(NotifyConfigError, match="forum account name"):
        set_person_settings(s.storage, "rita", "rita", s.clock(), forum_name=name)
    ok = set_person_settings(s.storage, "rita", "rita", s.clock(), forum_name="Rita Skeeter")
    assert ok.forum_name == "Rita Skeeter"
