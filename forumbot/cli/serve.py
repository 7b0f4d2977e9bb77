"""``serve``: every club of a folder in one process (issue 27; docs/operations.md,
"Many clubs in one process")."""

from __future__ import annotations

import logging
import os
import time

import click

from forumbot.cli._common import error
from forumbot.exit_codes import CONFIG_ERROR


@click.command()
@click.option(
    "--boards",
    "boards_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder of club files (*.toml, each one forumbot.toml); the club is the file's stem.",
)
@click.option(
    "--workers",
    default=4,
    show_default=True,
    type=click.IntRange(min=1),
    help="Worker threads shared by every club (one job per club at a time).",
)
@click.option(
    "--health-port",
    default=0,
    show_default=True,
    type=click.IntRange(min=0, max=65535),
    help="Serve GET /healthz (and /healthz/<club>) on 127.0.0.1:PORT; 0: no endpoint.",
)
@click.option(
    "--watch-interval",
    "watch_interval_s",
    default=0.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Look at the folder's files every that many seconds and reload on a change "
    "(0: reload only on SIGHUP).",
)
@click.option(
    "--inline-wait",
    "inline_wait_s",
    default=5.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Longest Retry-After waited in place, seconds; longer pauses that board only.",
)
@click.option(
    "--lease-url",
    envvar="FORUMBOT_LEASE_URL",
    default=None,
    help="Share the clubs with other serve workers through leases in this PostgreSQL database "
    "(postgresql://...; every club's storage.url a schema of it) [env FORUMBOT_LEASE_URL].",
)
@click.option(
    "--lease-ttl",
    "lease_ttl_s",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds a club lease lives unless renewed (renewed every third of it); a dead "
    "worker's clubs are taken over after it.",
)
@click.option(
    "--worker-id",
    default=None,
    help="This worker's name in the lease table [default: host:pid].",
)
@click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    default=None,
    help="Log lines as text or JSON [default: $FORUMBOT_LOG_FORMAT, else text].",
)
def serve(
    boards_dir: str,
    workers: int,
    health_port: int,
    watch_interval_s: float,
    inline_wait_s: float,
    lease_url: str | None,
    lease_ttl_s: float,
    worker_id: str | None,
    log_format: str | None,
) -> None:
    """Referee every club whose file is in --boards DIR, in this one process: each club its
    own board, database and pause; SIGHUP reloads the folder (added files start, removed
    ones stop, changed ones restart; an invalid file is refused, the others go on). With
    --lease-url, several workers share the clubs: each runs the clubs it holds the lease of."""
    from forumbot.ops.boards_dir import club_paths
    from forumbot.ops.club_log import install_club_logging
    from forumbot.ops.serve import Serve
    from forumbot.ops.startup import quiet_logs

    if (log_format or os.environ.get("FORUMBOT_LOG_FORMAT")) == "json":
        from forumbot.ops.logs import configure_json_logging

        configure_json_logging(logging.INFO)
    quiet_logs()
    install_club_logging()
    if not club_paths(boards_dir):  # a ConfigError for a missing folder: exit 78
        logging.getLogger("forumbot.ops.serve").warning(
            "no *.toml club file in %s yet: add one, then send SIGHUP", boards_dir
        )
    try:
        leases = None
        if lease_url is not None:
            from forumbot.ops.leases import Leaser, default_worker_id
            from forumbot.storage.engine import is_postgres

            if not is_postgres(lease_url):
                raise ValueError("--lease-url must be a postgresql:// URL")
            leases = Leaser(holder=worker_id or default_worker_id(), ttl_s=lease_ttl_s,
                            clock=time.monotonic, lease_url=lease_url)  # fmt: skip
        server = Serve(
            boards_dir,
            workers=workers,
            inline_wait_s=inline_wait_s,
            watch_interval_s=watch_interval_s,
            leases=leases,
        )
    except ValueError as exc:
        raise error("%s", exc, code=CONFIG_ERROR) from exc
    server.serve_forever(health_port=health_port)


COMMANDS = (serve,)
