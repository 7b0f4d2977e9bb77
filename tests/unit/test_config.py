"""forumbot.config: the schema refuses unknown keys with the closest valid name, every
setting is documented in the file `forumbot init` writes, and the checks doctor, check and
run share (issue 13, "Start-up and configuration")."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from forumbot.config import (
    EXAMPLE_CONFIG,
    FLAT_SETTINGS,
    Config,
    ConfigError,
    Registration,
    load_config,
    parse_config,
    settings,
)
from forumbot.ops.validate import config_problems, validate_config

BASE = '[board]\nurl = "https://board.test/forum"\n[bot]\nusername = "Hibou"\n'


def refused(extra: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(BASE + extra)
    return str(caught.value)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '[club]\nreview_delay = "manual"\n',
            "unknown setting club.review_delay; did you mean club.review_delay_s?",
        ),
        ('[clubb]\nruleset = "classic"\n', "unknown section [clubb]; did you mean [club]?"),
        (
            "[poll]\nreview_delay_s = 0\n",
            "unknown setting poll.review_delay_s; did you mean club.review_delay_s?",
        ),
        (
            "[[registration]]\ntopic_id = 1\nforum_id = 2\nkindd = '2v2'\n",
            "unknown setting registration[0].kindd; did you mean registration[0].kind?",
        ),
        ("[[watch]]\nforum = 3\n", "did you mean watch[0].forum_id?"),
        ("[ops]\nzzz = 1\n", "unknown setting ops.zzz; ops has health_port, log_format"),
    ],
)
def test_unknown_keys_and_sections_are_refused_with_the_closest_name(
    extra: str, message: str
) -> None:
    assert message in refused(extra)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '[club]\nreview_delay_s = "later"\n',
            'club.review_delay_s: must be seconds >= 0 or "manual"',
        ),
        ("[club]\nreview_delay_s = -1\n", "club.review_delay_s: must be seconds >= 0"),
        ("[poll]\npoll_interval_s = 0\n", "poll.poll_interval_s: must be greater than 0"),
        ('[poll]\npoll_interval_s = "120"\n', "poll.poll_interval_s: must be a valid number"),
        (
            "[storage]\nbackup_hour_utc = 24\n",
            "storage.backup_hour_utc: must be less than or equal",
        ),
        ('[board]\nplatform = "smf"\n', "board.platform"),
        ('[web]\nhttps_only = "yes"\n', "web.https_only: must be a valid boolean"),
        ('[web]\ntrusted_proxies = ["10.0.0.1", "proxy"]\n', "'proxy' is not an IP address"),
        ("[[registration]]\ntopic_id = 1\n", "registration[0].forum_id is required"),
        (
            "[[registration]]\ntopic_id = 1\nforum_id = 2\n[[registration]]\ntopic_id = 1\n"
            "forum_id = 3\n",
            "registration[1].topic_id 1 is listed twice",
        ),
    ],
)
def test_bad_values_name_the_setting(extra: str, message: str) -> None:
    text = BASE + extra
    if "[board]" in extra:  # a second [board] table is a TOML error: replace the first
        text = (
            extra.replace("[board]", '[board]\nurl = "https://b.test"') + '[bot]\nusername = "H"\n'
        )
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert message in str(caught.value)


def test_required_settings() -> None:
    with pytest.raises(ConfigError, match=r"\[bot\] is required"):
        parse_config('[board]\nurl = "https://b.test"\n')
    with pytest.raises(ConfigError, match="board.url is required"):
        parse_config('[board]\n[bot]\nusername = "H"\n')


def test_web_section_and_registration_defaults() -> None:
    config = parse_config(
        BASE + '[web]\nhttps_only = true\ntrusted_proxies = "127.0.0.1, 10.0.0.0/8"\n'
        '[[registration]]\ntopic_id = 5\nforum_id = 7\nkind = "2v2"\n'
        "[[registration]]\ntopic_id = 6\nforum_id = 7\n"
    )
    assert config.web_https_only is True
    assert config.web_trusted_proxies == ("127.0.0.1", "10.0.0.0/8")
    assert [r.max_concurrent for r in config.registrations] == [1, 3]
    assert [w.forum_id for w in config.watch] == [7]  # registration forums are watched
    plain = parse_config(BASE)
    assert (plain.web_https_only, plain.web_trusted_proxies) == (False, ())


def test_every_setting_is_documented_in_the_file_init_writes() -> None:
    """Each declared setting has help text, and appears in EXAMPLE_CONFIG with its help as
    the comment just above it (the registration table commented out)."""
    lines = EXAMPLE_CONFIG.splitlines()
    declared = list(settings())
    assert len(declared) >= 30
    for item in declared:
        assert item.help, f"{item.path} has no help text"
        section, key = item.path.split(".", 1)
        header = next(
            i
            for i, line in enumerate(lines)
            if line.removeprefix("# ") in (f"[{section}]", f"[[{section}]]")
        )
        lead = "# " if lines[header].startswith("# ") else ""
        at = next(
            (
                i
                for i, line in enumerate(lines)
                if i > header and line.startswith(f"{lead}{key} = ")
            ),
            None,
        )
        assert at is not None, f"{item.path} is not in the file forumbot init writes"
        comment: list[str] = []
        i = at - 1
        while lines[i].startswith(lead + "# "):
            comment.insert(0, lines[i].removeprefix(lead + "# "))
            i -= 1
        assert " ".join(comment) == " ".join(item.help.split()), f"{item.path}: help not above it"
        if key.endswith("_s"):
            assert item.unit == "s", f"{item.path}: unit not declared"


def test_the_example_file_parses_to_the_declared_defaults() -> None:
    data = tomllib.loads(EXAMPLE_CONFIG)
    assert set(data) == {"board", "bot", "club", "poll", "storage", "ops", "web", "watch",
                         "leaderboard"}  # fmt: skip
    config = parse_config(EXAMPLE_CONFIG, Path("/srv"))
    for attribute, path in FLAT_SETTINGS.items():
        item = next(s for s in settings() if s.path == path)
        expected = item.example if item.example is not None else item.default
        value = getattr(config, attribute)
        expected = tuple(expected) if isinstance(expected, list) else expected
        if attribute == "database":
            expected = "/srv/forumbot.db"
        assert value == expected, attribute
    start = lines.index("# [[registration]]") if (lines := EXAMPLE_CONFIG.splitlines()) else 0
    end = lines.index("", start)
    table = "\n".join(line.removeprefix("# ") for line in lines[start:end])
    uncommented = EXAMPLE_CONFIG + "\n" + table + "\n"
    reg = parse_config(uncommented).registrations
    assert reg == (Registration(12, 3, 4, "1v1", "fatigue", 3, ""),)


def test_config_defaults_come_from_the_schema() -> None:
    fields = {f.name: f for f in dataclasses.fields(Config)}
    # notify: the raw [notify] table (forumbot.notify.settings checks it); config_dir: derived
    assert set(fields) == set(FLAT_SETTINGS) | {"watch", "registrations", "notify", "config_dir"}
    for attribute, path in FLAT_SETTINGS.items():
        item = next(s for s in settings() if s.path == path)
        if item.required or fields[attribute].default is dataclasses.MISSING:
            continue  # board_url, platform, username: Config's callers always give them
        default = item.default
        assert fields[attribute].default == (
            tuple(default) if isinstance(default, list) else default
        )


def test_load_config_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read configuration"):
        load_config(tmp_path / "missing.toml")
    path = tmp_path / "forumbot.toml"
    path.write_text(BASE + '[club]\nreview_delay = "manual"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"forumbot.toml: unknown setting club.review_delay;"):
        load_config(path)
    path.write_text(BASE, encoding="utf-8")
    path.chmod(0o646)
    with pytest.raises(ConfigError, match="writable by other users"):
        load_config(path)


def test_config_problems_are_what_the_schema_cannot_see() -> None:
    good = parse_config(BASE)
    assert config_problems(good) == [] and validate_config(good) is good
    bad = dataclasses.replace(
        good,
        board_url="monforum.example/forum",
        timezone="Mars/Olympus",
        ruleset="clasic",
        registrations=(Registration(4, 3, ruleset="fatig", kind="2v2", environment="jungle"),),
    )
    problems = config_problems(bad)
    assert problems[0].startswith("board.url 'monforum.example/forum' must start with http://")
    assert "unknown board.timezone 'Mars/Olympus'" in problems[1]
    assert problems[2] == "unknown club.ruleset 'clasic'; did you mean 'classic'?"
    assert problems[3] == "unknown registration[0].ruleset 'fatig'; did you mean 'fatigue'?"
    assert "unknown registration[0].environment 'jungle'" in problems[4]
    with pytest.raises(ConfigError) as caught:
        validate_config(bad)
    assert caught.value.problems == problems


def test_board_dice_actions_reach_the_forumactif_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``board.dice_actions`` (issue 16): default the French variants of the parser, listed in
    the example file, and passed by ``make_client`` to the client and on to the parser."""
    from forumbot.app import make_client
    from forumbot.forums import forumactif
    from parsers.forumactif.dice import DEFAULT_DICE_ACTIONS

    assert parse_config(BASE).dice_actions == DEFAULT_DICE_ACTIONS
    assert "Lancer de dés" in DEFAULT_DICE_ACTIONS
    assert "dice_actions = [" in EXAMPLE_CONFIG
    config = parse_config(
        '[board]\nurl = "https://board.test"\nplatform = "forumactif"\n'
        'dice_actions = ["Jet de dés"]\n[bot]\nusername = "Hibou"\n'
    )
    assert config.dice_actions == ("Jet de dés",)
    client = make_client(dataclasses.replace(config, database=str(tmp_path / "bot.db")), "pw")
    seen: dict[str, object] = {}

    def parse(html: str, source: str, **kwargs: object) -> object:
        seen.update(kwargs)
        return "page"

    monkeypatch.setattr(forumactif, "parse_topic_page", parse)
    assert client._parse("<html></html>", "/t1-a") == "page"  # type: ignore[attr-defined]
    assert seen["dice_actions"] == ("Jet de dés",)
    with pytest.raises(ConfigError):
        parse_config(BASE.replace("[bot]", 'dice_actions = "Lancer des dés"\n[bot]'))
