"""A tiny health endpoint: ``GET /health`` on 127.0.0.1 answers the bot's status as JSON.

Shape of the answer (HTTP 200 when ``status`` is ``ok`` or ``starting``, else 503, so
``curl -f`` and container health checks can use it)::

    {"status": "ok", "last_poll_at": "2026-11-30T11:45:07+00:00",
     "last_publish_at": "2026-11-30T11:45:22+00:00", "pending_drafts": 2, "last_error": null}

The HTTP thread never touches the database: :class:`HealthState` is filled by the jobs
themselves (:func:`tracked_jobs` wraps ``Bot.poll`` / ``Bot.publish``), on their own thread,
and the endpoint only reads a snapshot under a lock.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from forumbot.app import Bot
    from forumbot.duels.referee import PollReport

log = logging.getLogger("forumbot.ops.health")

_T = TypeVar("_T")

PENDING_STATUSES = ("draft", "approved", "held", "publishing")
"""Declaration statuses counted as ``pending_drafts`` (not yet on the forum)."""

HEALTH_PATHS = ("/health", "/healthz")
"""The paths answered with the whole status."""

HEALTHY = frozenset({"ok", "starting", "leased_elsewhere"})
"""Statuses answered with HTTP 200; the others (``stale``, ``failing``, ``error``) get 503."""


class HealthState:
    """Thread-safe record of the jobs' last runs, read by the health endpoint.

    Status rules (``stale_after_s`` seconds, e.g. 3 poll intervals):

    - ``starting``: no successful poll yet, and the state is younger than ``stale_after_s``;
    - ``failing``: the most recent poll failed (exception, or a watched forum unreadable);
    - ``stale``: the last successful poll is older than ``stale_after_s`` (or never happened
      and the state is older than that): the scheduler is stuck or stopped;
    - ``ok`` otherwise.

    Args:
        now: the clock (aware datetimes); the state's creation time is read from it.
        stale_after_s: seconds without a successful poll before ``stale``.
    """

    def __init__(self, now: Callable[[], datetime], stale_after_s: float) -> None:
        self._now = now
        self.stale_after_s = stale_after_s
        self._lock = threading.Lock()
        self._started_at = now()
        self._last_ok: dict[str, datetime] = {}
        self._last_failed: dict[str, bool] = {}
        self._last_error: str | None = None
        self._pending: int | None = None

    def record(
        self,
        job: str,
        *,
        ok: bool,
        error: str | None = None,
        pending_drafts: int | None = None,
    ) -> None:
        """Record one run of ``job`` (``"poll"`` or ``"publish"``) ending now.

        ``pending_drafts`` (when given) replaces the pending count; ``error`` is kept as the
        last error until a later successful run of the same job clears it.
        """
        at = self._now()
        with self._lock:
            self._last_failed[job] = not ok
            if ok:
                self._last_ok[job] = at
                if not any(self._last_failed.values()):
                    self._last_error = None
            elif error is not None:
                self._last_error = f"{job}: {error}"
            if pending_drafts is not None:
                self._pending = pending_drafts

    def snapshot(self) -> dict[str, Any]:
        """The health answer: ``status``, ``last_poll_at``, ``last_publish_at`` (ISO 8601 or
        None), ``pending_drafts`` (int, None before the first count), ``last_error``."""
        now = self._now()
        with self._lock:
            last_poll = self._last_ok.get("poll")
            last_publish = self._last_ok.get("publish")
            reference = last_poll or self._started_at
            if self._last_failed.get("poll"):
                status = "failing"
            elif (now - reference).total_seconds() > self.stale_after_s:
                status = "stale"
            elif last_poll is None:
                status = "starting"
            else:
                status = "ok"
            return {
                "status": status,
                "last_poll_at": last_poll.isoformat() if last_poll else None,
                "last_publish_at": last_publish.isoformat() if last_publish else None,
                "pending_drafts": self._pending,
                "last_error": self._last_error,
            }

    def track(
        self,
        job: str,
        fn: Callable[[], _T],
        *,
        succeeded: Callable[[_T], bool] | None = None,
        pending: Callable[[], int] | None = None,
    ) -> Callable[[], _T]:
        """Wrap ``fn`` so each run is recorded; exceptions are recorded then re-raised
        (the scheduler's guard still logs them, and LoginFailed still stops the bot).

        Args:
            succeeded: judges the result (default: any return is a success).
            pending: counts pending drafts after the run, on the job's thread.
        """

        def run() -> _T:
            try:
                result = fn()
            except Exception as exc:
                self.record(job, ok=False, error=f"{type(exc).__name__}: {exc}")
                raise
            ok = succeeded(result) if succeeded is not None else True
            count = pending() if pending is not None else None
            self.record(
                job, ok=ok, error=None if ok else "a watched forum failed", pending_drafts=count
            )
            return result

        return run


def tracked_jobs(
    bot: Bot, health: HealthState, publisher: Bot | None = None
) -> tuple[Callable[[], list[PollReport]], Callable[[], list[int]]]:
    """``(poll, publish)``: ``bot.poll`` / ``publisher.publish`` recording into ``health``.

    ``publisher`` (default ``bot``) is the bot wired for the publish worker (its own database
    connection, :func:`forumbot.ops.scheduler.build_scheduler`); each job counts the pending
    drafts on its own connection, on its own thread.

    A poll counts as failed when it raises or when a watched forum gave no report
    (``Bot.poll`` logs and skips a forum whose read failed: the board is down).
    Both count the pending drafts (statuses :data:`PENDING_STATUSES`) after running.
    """
    watched = len(bot.config.watch)
    pub = publisher if publisher is not None else bot

    def pending_of(which: Bot) -> Callable[[], int]:
        return lambda: len(which.storage.declarations(PENDING_STATUSES))

    poll = health.track(
        "poll",
        bot.poll,
        succeeded=lambda reports: len(reports) >= watched,
        pending=pending_of(bot),
    )
    publish = health.track("publish", pub.publish, pending=pending_of(pub))
    return poll, publish


class HealthServer:
    """A running health endpoint (a daemon thread). Use :meth:`close` to stop it.

    Attributes:
        host, port: where it listens (``port`` is the real one when 0 was asked).
        path: the path its documentation gives: ``/health`` for ``forumbot run``
            (docs/operations.md), ``/healthz`` for ``forumbot serve`` (README,
            deploy/README.md; newcomer5 C11: serve's log said ``/health``); both answer.
    """

    def __init__(
        self, server: ThreadingHTTPServer, thread: threading.Thread, path: str = "/health"
    ) -> None:
        self._server = server
        self._thread = thread
        self.host = str(server.server_address[0])
        self.port = int(server.server_address[1])
        self.path = path

    @property
    def url(self) -> str:
        """``http://host:port/health`` (:attr:`path`)."""
        return f"http://{self.host}:{self.port}{self.path}"

    def close(self) -> None:
        """Stop serving and release the port (waits up to 5 s for the thread)."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _handler(
    status_fn: Callable[[], dict[str, Any]],
    club_status: Callable[[str], dict[str, Any] | None] | None = None,
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "forumbot-health"
        sys_version = ""

        def _send(self, code: int, body: dict[str, Any]) -> None:
            data = json.dumps(body, ensure_ascii=False, default=str).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            path = self.path.split("?", 1)[0]
            club = path.removeprefix("/healthz/") if path.startswith("/healthz/") else None
            if path not in HEALTH_PATHS and (club is None or club_status is None):
                self._send(404, {"error": "not found; try GET /health"})
                return
            try:
                found = club_status(club) if club is not None and club_status else status_fn()
                if found is None:
                    self._send(404, {"error": f"no club {club!r}"})
                    return
                body = dict(found)
            except Exception as exc:  # the endpoint reports, never dies
                log.exception("health: status function failed")
                self._send(500, {"status": "error", "error": type(exc).__name__})
                return
            self._send(200 if body.get("status") in HEALTHY else 503, body)

        do_HEAD = do_GET  # noqa: N815

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            log.debug("health: " + format, *args)

    return Handler


def start_health_server(
    port: int,
    status_fn: Callable[[], dict[str, Any]],
    host: str = "127.0.0.1",
    *,
    club_status: Callable[[str], dict[str, Any] | None] | None = None,
) -> HealthServer:
    """Serve ``GET /health`` (also ``/healthz``) on ``host:port`` (``port=0``: any free port)
    in a daemon thread; with ``club_status`` (``forumbot serve``), ``GET /healthz/<club>``
    answers ``club_status(club)`` (None: 404).

    ``status_fn()`` gives the JSON body (e.g. :meth:`HealthState.snapshot`); its ``status``
    picks the HTTP code (200 for ``ok``/``starting``, else 503); if it raises, the answer is
    500 ``{"status": "error"}``. Other paths answer 404. Binds to loopback by default: the
    endpoint is for the local supervisor, not the internet.

    Raises:
        OSError: the port is taken.
    """
    server = ThreadingHTTPServer((host, port), _handler(status_fn, club_status))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="forumbot-health", daemon=True)
    thread.start()
    handle = HealthServer(server, thread, "/health" if club_status is None else "/healthz")
    if club_status is None:
        log.info("health endpoint on %s", handle.url)
    else:
        log.info("health endpoint on %s (one club: %s/<club>)", handle.url, handle.url)
    return handle
