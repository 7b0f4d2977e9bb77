"""Notice settings: the ``[notify]`` table of the configuration and each person's own settings.

The ``[notify]`` table (issue 18)::

    [notify]
    review_url = "https://arbitres.monforum.example"   # the review page, for the links
    owl_gather_s = 900       # owls to one person gathered over 15 minutes...
    owl_lead_s = 120         # ...but sent this long before a draft publishes by itself
    claim_limit_s = 7200     # a taken draft publishes by itself again after 2 hours
    claim_total_s = 14400    # ...and however often re-taken, 4 hours after its first take
    max_attempts = 5         # an Apprise notice failing this many times is "failed"
    default_channels = ["owl", "apprise"]
    [notify.referee]         # Apprise URLs of a role: "referee" or "admin"
    urls_env = "FORUMBOT_NOTIFY_REFEREE"
    [notify.admin]
    urls_file = "/etc/forumbot/notify-admin.urls"
    [notify.people.rita]     # one person's own URLs (e-mail, their ntfy topic)
    urls_env = "FORUMBOT_NOTIFY_RITA"

Apprise URLs carry secrets (webhook tokens, SMTP passwords): they never sit in the TOML. A
table names an environment variable (``urls_env``: URLs separated by spaces, commas or new
lines) or a file (``urls_file``: one URL per line, ``#`` comments; relative to the
configuration file's folder). An inline ``urls`` is refused (:class:`NotifyConfigError`).

Per person (table ``notify_settings``, set by ``forumbot users notify`` and the review page's
"Mes notifications"): the channels (``owl``: a private message on the board, to the person's
forum account ``forum_name``, default their username; ``apprise``: their own URLs, else their
role's), and quiet hours ``HH:MM-HH:MM`` in the board's timezone during which nothing but owls
is sent (an Apprise notice waits for their end).

Quiet hours and drafts (issue 23): quiet hours are the person's choice and are kept. The owl
(a private message on the board, read when they come) still goes during them, before the draft
publishes; an Apprise notice waits for their end, and when its draft went out meanwhile it is
still sent and says so (« déjà publiée le …, avant ce message »,
:mod:`forumbot.notify.items`): a person never reads a stale « part tout seul ».
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import regex

from forumbot.config import ConfigError, check_secret_file
from forumbot.storage import Storage, iso
from parsers.names import look_alike

CHANNELS = ("owl", "apprise")
ROLES = ("referee", "admin")
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
# HTML / BBCode brackets, controls, format characters (bidi overrides) and every character
# that renders as nothing (Unicode Default_Ignorable_Code_Point): refused in a forum name.
_HOSTILE_NAME = regex.compile(r"[<>\[\]\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]")


class NotifyConfigError(ConfigError):
    """The ``[notify]`` table or a person's setting is wrong (message names it); a
    configuration error like any other (exit code 78 at the command line)."""


@dataclass(frozen=True)
class UrlSource:
    """Where a set of Apprise URLs comes from: an environment variable or a file."""

    urls_env: str = ""
    urls_file: str = ""

    def urls(self, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
        """The URLs (empty when the variable is unset or the file is missing or empty).

        Raises:
            NotifyConfigError: the file exists but cannot be read.
            ConfigError: the file may be written by other users (a warning is logged when
                they may read it: :func:`forumbot.config.check_secret_file`).
        """
        env = os.environ if environ is None else environ
        raw = ""
        if self.urls_file:
            path = Path(self.urls_file)
            if path.exists():
                check_secret_file(path, "notify urls_file")
                try:
                    raw = path.read_text(encoding="utf-8")
                except OSError as exc:
                    raise NotifyConfigError(f"cannot read {path}: {exc}") from exc
                raw = "\n".join(line.split("#", 1)[0] for line in raw.splitlines())
        elif self.urls_env:
            raw = env.get(self.urls_env, "")
        return tuple(u for u in re.split(r"[\s,]+", raw) if u)


@dataclass(frozen=True)
class NotifyConfig:
    """The parsed ``[notify]`` table (see module docstring; durations in seconds).

    Attributes:
        review_url: base URL of the review page ("" = links are paths only).
        timezone: the board's timezone (quiet hours, dates in notices).
        owl_gather_s: later items wait up to this long after a person's last owl, to be
            gathered (the first item of a notice goes at once, issue 23).
        owl_lead_s: a gathered owl goes earlier, this long before one of its drafts
            publishes by itself (no draft publishes before its owl).
        claim_limit_s: how long a take holds back the draft's auto-publication.
        claim_total_s: how long all the takes of one draft hold it back together, counted
            from its first take however often it is renewed (issue 24 F5).
        max_attempts: Apprise sends before a notice is ``failed``.
        default_channels: channels of a person without settings.
        roles: role -> URL source; people: username (casefolded) -> URL source.
    """

    review_url: str = ""
    timezone: str = "Europe/Paris"
    owl_gather_s: int = 900
    owl_lead_s: int = 120
    claim_limit_s: int = 7200
    claim_total_s: int = 14400
    max_attempts: int = 5
    default_channels: tuple[str, ...] = ("owl", "apprise")
    roles: Mapping[str, UrlSource] = field(default_factory=dict)
    people: Mapping[str, UrlSource] = field(default_factory=dict)

    @property
    def tz(self) -> ZoneInfo:
        """The board's timezone."""
        return ZoneInfo(self.timezone)

    def link(self, path: str) -> str:
        """An absolute link to ``path`` on the review page (or the path alone)."""
        return self.review_url.rstrip("/") + path

    def apprise_source(self, username: str, role: str) -> tuple[str, UrlSource] | None:
        """``(group, source)`` of the Apprise URLs for that person: their own
        (``people:<name>``) or their role's (``role:<role>``); None when neither is set."""
        own = self.people.get(username.casefold())
        if own is not None:
            return f"people:{username.casefold()}", own
        if role in self.roles:
            return f"role:{role}", self.roles[role]
        return None


def _source(table: object, where: str, base: Path) -> UrlSource:
    if not isinstance(table, dict):
        raise NotifyConfigError(f"{where} must be a table")
    if "urls" in table:
        raise NotifyConfigError(
            f"{where}.urls: Apprise URLs carry secrets and never go in the TOML; "
            "name an environment variable (urls_env) or a file (urls_file)"
        )
    unknown = set(table) - {"urls_env", "urls_file"}
    if unknown:
        raise NotifyConfigError(f"{where}.{sorted(unknown)[0]}: unknown setting")
    env = table.get("urls_env", "")
    file = table.get("urls_file", "")
    if not isinstance(env, str) or not isinstance(file, str) or not (env or file):
        raise NotifyConfigError(f"{where} needs urls_env or urls_file (a string)")
    if file and not Path(file).is_absolute():
        file = str(base / file)
    return UrlSource(env, file)


MAX_SECONDS = {
    "owl_gather_s": 86400,
    "owl_lead_s": 86400,
    "claim_limit_s": 86400,
    "claim_total_s": 2 * 86400,
    "max_attempts": 100,
}
"""Upper bounds of the ``[notify]`` numbers (issue 24 F6: a claim of 10^9 s held a draft
until 2058, 10^12 s crashed the take); a value beyond is refused at load."""


def _seconds(table: Mapping[str, object], key: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise NotifyConfigError(f"notify.{key} must be whole seconds >= 0, got {value!r}")
    top = MAX_SECONDS[key]
    if value > top:
        unit = "" if key == "max_attempts" else " seconds"
        raise NotifyConfigError(f"notify.{key} must be at most {top}{unit}, got {value}")
    return value


def parse_notify(
    table: Mapping[str, object], timezone: str = "Europe/Paris", base_dir: str = ""
) -> NotifyConfig:
    """Parse a ``[notify]`` table (``Config.notify``; ``base_dir``: ``Config.config_dir``).

    Raises:
        NotifyConfigError: naming the bad setting (an inline ``urls`` included).
    """
    base = Path(base_dir or ".")
    roles = {r: _source(table[r], f"notify.{r}", base) for r in ROLES if r in table}
    people_table = table.get("people", {})
    if not isinstance(people_table, dict):
        raise NotifyConfigError("notify.people must be a table of [notify.people.<name>]")
    people = {
        str(name).casefold(): _source(t, f"notify.people.{name}", base)
        for name, t in people_table.items()
    }
    known = {
        "review_url",
        "owl_gather_s",
        "owl_lead_s",
        "claim_limit_s",
        "claim_total_s",
        "max_attempts",
        "default_channels",
        "people",
        *ROLES,
    }
    for key in table:
        if key not in known:
            raise NotifyConfigError(f"notify.{key}: unknown setting")
    channels = table.get("default_channels", ["owl", "apprise"])
    if not isinstance(channels, list) or any(c not in CHANNELS for c in channels):
        raise NotifyConfigError(f"notify.default_channels: a list of {', '.join(CHANNELS)}")
    review_url = table.get("review_url", "")
    if not isinstance(review_url, str):
        raise NotifyConfigError("notify.review_url must be a URL")
    attempts = _seconds(table, "max_attempts", 5)
    return NotifyConfig(
        review_url=review_url,
        timezone=timezone,
        owl_gather_s=_seconds(table, "owl_gather_s", 900),
        owl_lead_s=_seconds(table, "owl_lead_s", 120),
        claim_limit_s=_seconds(table, "claim_limit_s", 7200),
        claim_total_s=_seconds(table, "claim_total_s", 14400),
        max_attempts=max(1, attempts),
        default_channels=tuple(channels),
        roles=roles,
        people=people,
    )


def notify_config(config: Any) -> NotifyConfig:
    """The :class:`NotifyConfig` of a :class:`forumbot.config.Config` (its ``notify`` table,
    timezone and folder). Raises :class:`NotifyConfigError`."""
    return parse_notify(
        getattr(config, "notify", {}) or {},
        getattr(config, "timezone", "Europe/Paris"),
        getattr(config, "config_dir", ""),
    )


# -- per person ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PersonSettings:
    """One person's notice settings.

    Attributes:
        username: the review page account.
        forum_name: the board account owls go to.
        channels: subset of :data:`CHANNELS`.
        quiet_start, quiet_end: ``"HH:MM"`` in the board's timezone, or "" (no quiet hours).
        forum_linked_by: who linked ``forum_name`` (``"board"``: the person, on the review page,
            after the board's member look-up; else the admin who set it), "" when never set
            (issue 24 F11, :mod:`forumbot.web.forum_account`).
    """

    username: str
    forum_name: str
    channels: tuple[str, ...]
    quiet_start: str = ""
    quiet_end: str = ""
    forum_linked_by: str = ""

    @property
    def quiet_text(self) -> str:
        """``"22:00-07:30"`` or ""."""
        return f"{self.quiet_start}-{self.quiet_end}" if self.quiet_start else ""


def person_settings(storage: Storage, username: str, cfg: NotifyConfig) -> PersonSettings:
    """The settings of ``username`` (defaults when none were set)."""
    row = storage.notices.settings_row(username)
    if row is None:
        return PersonSettings(username, username, tuple(cfg.default_channels))
    return PersonSettings(
        username,
        row["forum_name"] or username,
        tuple(json.loads(row["channels_json"] or "[]")),
        row["quiet_start"] or "",
        row["quiet_end"] or "",
        row.get("forum_linked_by") or "",
    )


def parse_quiet(text: str) -> tuple[str, str]:
    """``"22:00-07:30"`` -> ``("22:00", "07:30")``; ``""`` or ``"-"`` -> no quiet hours.

    Raises:
        NotifyConfigError: not two ``HH:MM`` times, or both equal.
    """
    text = text.strip()
    if text in ("", "-", "aucune", "none"):
        return "", ""
    parts = [p.strip() for p in text.split("-")]
    if len(parts) != 2 or not all(_HHMM.match(p) for p in parts):
        raise NotifyConfigError(f"quiet hours are HH:MM-HH:MM (e.g. 22:00-07:30), got {text!r}")
    start, end = (f"{int(p.split(':')[0]):02d}:{p.split(':')[1]}" for p in parts)
    if start == end:
        raise NotifyConfigError("quiet hours must start and end at different times")
    return start, end


def forum_account_of_other(
    storage: Storage, username: str, forum_name: str, cfg: NotifyConfig
) -> tuple[str, str] | None:
    """``(user, their forum account)`` of another review-page account whose forum account
    (set, else their username) looks like ``forum_name`` (:func:`parsers.names.look_alike`:
    the same name in another case, or the same letters to the eye), or None."""
    for other in storage.notices.usernames():
        if other.casefold() == username.casefold():
            continue
        theirs = person_settings(storage, other, cfg).forum_name
        if look_alike(theirs, forum_name):
            return other, theirs
    return None


def set_person_settings(
    storage: Storage,
    username: str,
    actor: str,
    now: datetime,
    *,
    channels: tuple[str, ...] | None = None,
    quiet: str | None = None,
    forum_name: str | None = None,
    cfg: NotifyConfig | None = None,
    linked_by: str | None = None,
) -> PersonSettings:
    """Change ``username``'s settings (only the arguments given); audit-logged
    (``notify.settings``). Returns the new settings.

    A new ``forum_name`` is NFKC-normalised, its spaces collapsed; it is refused when it holds
    HTML or BBCode brackets, controls, bidi or invisible characters, or looks like the forum
    account of another review-page account (their set one, else their username; the
    confusables skeleton, :func:`parsers.names.look_alike`): owls must not go to a name that
    only looks like someone's (issue 24 F11, F12). ``linked_by`` records who linked it
    (``"board"`` after the review page's member look-up, else the admin; default ``actor``).

    Raises:
        NotifyConfigError: unknown user, unknown channel, bad quiet hours, empty, hostile or
            look-alike forum name.
    """
    cfg = cfg or NotifyConfig()
    user = storage.notices.user_any_case(username)
    if user is None:
        raise NotifyConfigError(f"no user {username!r}")
    name = user["username"]
    before = person_settings(storage, name, cfg)
    new_channels = before.channels if channels is None else tuple(dict.fromkeys(channels))
    for c in new_channels:
        if c not in CHANNELS:
            raise NotifyConfigError(f"unknown channel {c!r} (expected {', '.join(CHANNELS)})")
    start, end = (before.quiet_start, before.quiet_end) if quiet is None else parse_quiet(quiet)
    forum = before.forum_name
    linked = before.forum_linked_by
    if forum_name is not None:
        forum = " ".join(unicodedata.normalize("NFKC", forum_name).split())
        linked = actor if linked_by is None else linked_by
        if _HOSTILE_NAME.search(forum):
            raise NotifyConfigError(
                "the forum account name may not hold HTML or BBCode brackets, bidi controls or "
                "invisible characters"
            )
        other = forum_account_of_other(storage, name, forum, cfg)
        if other is not None:
            raise NotifyConfigError(
                f"the forum account {forum!r} looks like {other[1]!r}, the forum account of "
                f"the review-page user {other[0]!r}"
            )
    if not forum or len(forum) > 100:
        raise NotifyConfigError("the forum account name is 1 to 100 characters")
    after = PersonSettings(name, forum, new_channels, start, end, linked)
    storage.notices.save_settings(
        {
            "username": name,
            "forum_name": forum,
            "channels_json": json.dumps(list(new_channels)),
            "quiet_start": start,
            "quiet_end": end,
            "forum_linked_by": linked,
            "updated_by": actor,
            "updated_at": iso(now),
        }
    )
    storage.audit(
        actor,
        "notify.settings",
        f"user:{name}",
        {"channels": list(before.channels), "quiet": before.quiet_text, "forum": before.forum_name},
        {"channels": list(new_channels), "quiet": after.quiet_text, "forum": forum},
        now,
    )
    return after


def quiet_until(settings: PersonSettings, now: datetime, tz: ZoneInfo) -> datetime | None:
    """When ``now`` falls in the person's quiet hours (board timezone), the end of them
    (aware, UTC-comparable); else None. A window like ``22:00-07:30`` spans midnight."""
    if not settings.quiet_start:
        return None
    local = now.astimezone(tz)
    start = time.fromisoformat(settings.quiet_start)
    end = time.fromisoformat(settings.quiet_end)
    t = local.time().replace(tzinfo=None)
    day = local.date()
    if start < end:
        inside = start <= t < end
        end_day = day
    else:
        inside = t >= start or t < end
        end_day = day + timedelta(days=1) if t >= start else day
    if not inside:
        return None
    return datetime.combine(end_day, end, tzinfo=tz)


__all__ = [
    "CHANNELS",
    "NotifyConfig",
    "NotifyConfigError",
    "PersonSettings",
    "UrlSource",
    "forum_account_of_other",
    "notify_config",
    "parse_notify",
    "parse_quiet",
    "person_settings",
    "quiet_until",
    "set_person_settings",
]
