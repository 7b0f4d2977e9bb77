"""The flat, frozen configuration the code reads (:class:`Config`), its defaults from the schema."""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from forumbot.config.errors import ConfigError, ReviewDelay
from forumbot.config.schema import MAX_CONCURRENT_BY_KIND, default_of

VERIFICATION_PATH = "/verification"
"""Where the review page serves docs/verification.md to players (no login):
:attr:`Config.verification_url`, :mod:`forumbot.web.verification`."""

# ---------------------------------------------------------------------------------------
# The flat configuration the code reads
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WatchedForum:
    """A forum whose topics are duel topics."""

    forum_id: int


@dataclass(frozen=True)
class Registration:
    """A registration thread (``[[registration]]``; meanings in :class:`RegistrationSettings`).

    Attributes:
        topic_id: the thread; thread_forum_id: the forum holding it (0 = read the thread).
        forum_id: where the duel topics are opened; kind: ``"1v1"`` or ``"2v2"``.
        ruleset: the duels' ruleset; max_concurrent: duels of this kind at once.
        environment: 2v2 only: the environment of the duels opened (a file of
            ``rules/data/environments/``, without ``.toml``); ``""`` = rotate through them.
    """

    topic_id: int
    forum_id: int
    thread_forum_id: int = default_of("registration", "thread_forum_id")
    kind: str = default_of("registration", "kind")
    ruleset: str = default_of("registration", "ruleset")
    max_concurrent: int = MAX_CONCURRENT_BY_KIND["1v1"]
    environment: str = default_of("registration", "environment")


@dataclass(frozen=True)
class Config:
    """Parsed configuration, flat: each attribute is one setting of the schema (see
    :data:`FLAT_SETTINGS` for which) and takes its default from there."""

    board_url: str
    platform: str
    username: str
    password_env: str = default_of("bot", "password_env")
    password_file: str = default_of("bot", "password_file")
    timezone: str = default_of("board", "timezone")
    ruleset: str = default_of("club", "ruleset")
    review_delay_s: ReviewDelay = default_of("club", "review_delay_s")
    referee_name: str = default_of("club", "referee_name")
    language: str = default_of("club", "language")
    verify_docs_url: str = default_of("club", "verify_docs_url")
    stalemate_turns: int = default_of("club", "stalemate_turns")
    poll_interval_s: float = default_of("poll", "poll_interval_s")
    publish_interval_s: float = default_of("poll", "publish_interval_s")
    flood_interval_s: float = default_of("poll", "flood_interval_s")
    club_posts_per_pass: int = default_of("poll", "club_posts_per_pass")
    edit_watch_interval_s: float = default_of("poll", "edit_watch_interval_s")
    max_clock_skew_s: float = default_of("poll", "max_clock_skew_s")
    follow_after_polls: int = default_of("poll", "follow_after_polls")
    database: str = default_of("storage", "database")
    watch: tuple[WatchedForum, ...] = field(default_factory=tuple)
    game_master: tuple[str, ...] = default_of("board", "game_master")
    dice_actions: tuple[str, ...] = default_of("board", "dice_actions")
    dice_name: str = default_of("board", "dice_name")
    board_language: str = default_of("board", "language")
    backup_keep: int = default_of("storage", "backup_keep")
    backup_hour_utc: int = default_of("storage", "backup_hour_utc")
    backup_dir: str = default_of("storage", "backup_dir")
    health_port: int = default_of("ops", "health_port")
    log_format: str = default_of("ops", "log_format")
    registrations: tuple[Registration, ...] = field(default_factory=tuple)
    leaderboard_topic_id: int = default_of("leaderboard", "topic_id")
    web_https_only: bool = default_of("web", "https_only")
    web_trusted_proxies: tuple[str, ...] = default_of("web", "trusted_proxies")
    web_socket: str = default_of("web", "socket")

    # The raw [notify] table and the configuration file's folder
    # (forumbot.notify.settings parses and checks it: issue 18).
    notify: dict[str, object] = field(default_factory=dict, hash=False, compare=False)
    config_dir: str = ""

    @property
    def verification_url(self) -> str:
        """The page the posts' « l'outil de vérification » links to: ``club.verify_docs_url``
        when set, else the review page's own copy of docs/verification.md
        (:data:`VERIFICATION_PATH`, public) when the review page's public address
        (``notify.review_url``, an ``http(s)://`` URL) is set, else ``""``: no link, and the
        posts say how to verify in words."""
        if self.verify_docs_url.strip():
            return self.verify_docs_url.strip()
        review = self.notify.get("review_url")
        base = review.strip().rstrip("/") if isinstance(review, str) else ""
        return base + VERIFICATION_PATH if base.startswith(("http://", "https://")) else ""

    def password(self, environ: dict[str, str] | None = None) -> str:
        """The bot account's password from the environment or the password file.

        Raises:
            ConfigError: when neither gives one, or the file may be written by others.
        """
        env = os.environ if environ is None else environ
        if self.password_file:
            path = Path(self.password_file)
            check_secret_file(path, "bot.password_file")
            try:
                return path.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"cannot read bot.password_file {path}: {exc}") from exc
        value = env.get(self.password_env, "")
        if not value:
            raise ConfigError(
                f"no password: set the environment variable {self.password_env} "
                "(bot.password_env) or bot.password_file"
            )
        return value


FLAT_SETTINGS: dict[str, str] = {
    "board_url": "board.url",
    "platform": "board.platform",
    "timezone": "board.timezone",
    "game_master": "board.game_master",
    "dice_actions": "board.dice_actions",
    "dice_name": "board.dice_name",
    "board_language": "board.language",
    "username": "bot.username",
    "password_env": "bot.password_env",
    "password_file": "bot.password_file",
    "ruleset": "club.ruleset",
    "review_delay_s": "club.review_delay_s",
    "referee_name": "club.referee_name",
    "language": "club.language",
    "verify_docs_url": "club.verify_docs_url",
    "stalemate_turns": "club.stalemate_turns",
    "poll_interval_s": "poll.poll_interval_s",
    "publish_interval_s": "poll.publish_interval_s",
    "flood_interval_s": "poll.flood_interval_s",
    "club_posts_per_pass": "poll.club_posts_per_pass",
    "edit_watch_interval_s": "poll.edit_watch_interval_s",
    "max_clock_skew_s": "poll.max_clock_skew_s",
    "follow_after_polls": "poll.follow_after_polls",
    "database": "storage.database",
    "backup_keep": "storage.backup_keep",
    "backup_hour_utc": "storage.backup_hour_utc",
    "backup_dir": "storage.backup_dir",
    "health_port": "ops.health_port",
    "log_format": "ops.log_format",
    "leaderboard_topic_id": "leaderboard.topic_id",
    "web_https_only": "web.https_only",
    "web_trusted_proxies": "web.trusted_proxies",
    "web_socket": "web.socket",
}
"""Which setting each scalar :class:`Config` attribute holds (``watch`` and
``registrations`` hold the ``[[watch]]`` and ``[[registration]]`` tables)."""


_warned: set[tuple[str, str]] = set()


def check_secret_file(path: Path, what: str) -> str | None:
    """The one permission check of every secret file (issue 24 F10): the password file,
    ``notify`` URL files, the web secret, the database and the cookie jar.

    Returns:
        None when only the owner may read and write it (or it does not exist yet); otherwise
        one English warning line when its group or other users may read it (or its group may
        write it), also logged once per file at WARNING on ``forumbot.config``.

    Raises:
        ConfigError: the file may be written by other users (``o+w``): whoever can edit it can
            redirect notices or take the bot's account (one line with the ``chmod``).
    """
    refuse_writable_by_others(path, what)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if not mode & 0o077:
        return None
    line = f"{what} {path} is readable by others (mode {mode:04o}); run: chmod 600 {path}"
    if (str(path), what) not in _warned:
        _warned.add((str(path), what))
        logging.getLogger("forumbot.config").warning("%s", line)
    return line


def check_config_file(path: Path) -> str | None:
    """The configuration file's check: refused when other users may write it or its folder
    (a world-writable folder lets anyone replace the file), one warning (returned and logged
    once) when its group may write it.

    Raises:
        ConfigError: ``o+w`` on the file or on its folder (without the sticky bit).
    """
    refuse_writable_by_others(path, "configuration")
    folder = path.resolve().parent if path.exists() else path.parent
    try:
        folder_mode = folder.stat().st_mode
    except OSError:
        folder_mode = 0
    if folder_mode & stat.S_IWOTH and not folder_mode & stat.S_ISVTX:
        raise ConfigError(
            f"refusing configuration {path}: its folder {folder} is writable by other users "
            f"(mode {stat.S_IMODE(folder_mode):04o}); run: chmod o-w {folder}"
        )
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if not mode & stat.S_IWGRP:
        return None
    line = f"configuration {path} is writable by its group (mode {mode:04o}); run: chmod g-w {path}"
    if (str(path), "configuration") not in _warned:
        _warned.add((str(path), "configuration"))
        logging.getLogger("forumbot.config").warning("%s", line)
    return line


def refuse_writable_by_others(path: Path, what: str) -> None:
    """Refuse a file that users other than its owner and group may write (``o+w``):
    whoever can edit the configuration can point ``board.url`` at their own server and
    collect the bot's password.

    Raises:
        ConfigError: one line naming the file, its mode and the ``chmod`` that fixes it.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # the read that follows reports the missing file
    if mode & stat.S_IWOTH:
        raise ConfigError(
            f"refusing {what} {path}: writable by other users (mode {stat.S_IMODE(mode):04o});"
            f" run: chmod o-w {path}"
        )
