"""What the configuration schema cannot see, checked the same way by ``doctor``, ``check`` and
``run`` before they touch the board: a ruleset or 2v2 environment that does not exist, an
unknown timezone, a URL without scheme, a language without templates, bad intervals
(issue 13)."""

from __future__ import annotations

from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forumbot.config import Config, ConfigError
from forumbot.config.loading import closest_name
from forumbot.notify.settings import NotifyConfigError, notify_config
from forumbot.publish.render import TEMPLATES_DIR
from forumbot.rulesets import load_ruleset
from rules.ruleset import DATA_DIR

# ---------------------------------------------------------------------------------------
# What the schema cannot see: the same checks for doctor, check and run
# ---------------------------------------------------------------------------------------


def _ruleset_problem(name: str, where: str) -> str | None:

    try:
        load_ruleset(name)
    except Exception as exc:  # FileNotFoundError, RuleError, TOML errors: report them
        shipped = sorted(p.stem for p in DATA_DIR.glob("*.toml"))
        if isinstance(exc, FileNotFoundError) and not name.endswith(".toml"):
            guess = closest_name(name, shipped)
            hint = f"; did you mean {guess!r}?" if guess else f" (shipped: {', '.join(shipped)})"
            return f"unknown {where} {name!r}{hint}"
        return f"{where} {name!r}: {exc}"
    return None


def config_problems(config: Config) -> list[str]:
    """What the schema cannot check, one line each (empty = fine): ``board.url`` has an
    http(s) scheme and a host, ``board.timezone`` exists, every ruleset named
    (``club.ruleset``, ``registration[i].ruleset``) loads, every 2v2 environment named is
    shipped, declaration templates exist for ``club.language``, intervals are > 0 s.

    ``doctor`` reports these as its ``config`` check; ``check`` and ``run`` refuse to start
    on them (:func:`validate_config`). Reads only local files (never the board).
    """

    problems: list[str] = []
    url = urlsplit(config.board_url)
    if url.scheme not in ("http", "https") or not url.netloc:
        problems.append(
            f"board.url {config.board_url!r} must start with http:// or https:// and name a host"
        )
    try:
        ZoneInfo(config.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(f"unknown board.timezone {config.timezone!r} (e.g. 'Europe/Paris')")
    problem = _ruleset_problem(config.ruleset, "club.ruleset")
    if problem:
        problems.append(problem)
    environments = sorted(p.stem for p in (DATA_DIR / "environments").glob("*.toml"))
    for i, reg in enumerate(config.registrations):
        problem = _ruleset_problem(reg.ruleset, f"registration[{i}].ruleset")
        if problem:
            problems.append(problem)
        if reg.environment and reg.environment not in environments:
            problems.append(
                f"unknown registration[{i}].environment {reg.environment!r} "
                f"(shipped: {', '.join(environments)})"
            )
    if not (TEMPLATES_DIR / config.language).is_dir():
        problems.append(f"no declaration templates for club.language {config.language!r}")
    try:
        notify_config(config)
    except NotifyConfigError as exc:
        problems.append(str(exc))
    if config.poll_interval_s <= 0 or config.publish_interval_s <= 0:
        problems.append("poll_interval_s and publish_interval_s must be > 0 seconds")
    return problems


def validate_config(config: Config) -> Config:
    """``config`` when :func:`config_problems` finds nothing.

    Raises:
        ConfigError: listing every problem (``check`` and ``run`` stop on it before they
            contact the board).
    """
    problems = config_problems(config)
    if problems:
        raise ConfigError("; ".join(problems), problems)
    return config
