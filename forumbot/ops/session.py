"""The one way ``run``, ``check`` and ``doctor`` open the bot's session on the board (issue 22).

* :func:`bot_client`: the forum client, built by :func:`forumbot.app.make_client` with the
  configuration's password (``bot.password_env`` / ``bot.password_file``); the three
  commands never build one another way, so they send the same credentials.
* :func:`log_in`: the one login. Only a real refusal stops it (``LoginFailed``: a wrong
  password, a CAPTCHA, a banned or inactive account) or a wrong address
  (``BoardNotFound``: exit 78). An outage (the board down, a challenge or maintenance page in
  front of it, any 5xx, a network error) is raised at once by ``check`` and ``doctor`` (they
  report it); ``run`` passes an :class:`OutageWait` and waits it out at start-up, with backoff
  and bounded log noise: one warning when the outage is first met, one reminder an hour, one
  line when the board is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from forumbot.config import Config
from forumbot.errors import BoardNotFound, BoardPaused, LoginFailed, ServerError
from forumbot.forums.base import ForumClient

log = logging.getLogger("forumbot.ops.session")


@dataclass(frozen=True)
class OutageWait:
    """How the start-up login waits out an outage.

    Attributes:
        first_s: seconds before the second attempt; each wait doubles it.
        cap_s: longest wait between two attempts, seconds.
        give_up_after_s: seconds after which the outage is raised (``run --give-up-after``;
            None: never, the default: a supervisor that restarts on exit 69 gives up after a
            few quick restarts, so waiting in place is what keeps the bot alive).
        remind_s: seconds between two reminder lines while the outage lasts.
        sleep: waits that many seconds (tests: a fake clock's sleep).
        clock: monotonic seconds (tests: the fake clock).
    """

    first_s: float = 15.0
    cap_s: float = 600.0
    give_up_after_s: float | None = None
    remind_s: float = 3600.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic


def bot_client(
    config: Config,
    *,
    password: str | None = None,
    transport: httpx.BaseTransport | None = None,
    keep_session: bool = True,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> ForumClient:
    """The bot's forum client for ``config`` (:func:`forumbot.app.make_client`), with the
    configuration's password unless ``password`` is given (doctor passes the one it read).

    Raises:
        ConfigError: no password.
    """
    from forumbot.app import make_client

    secret = config.password() if password is None else password
    return make_client(
        config, secret, transport, sleep=sleep, clock=clock, keep_session=keep_session
    )


def log_in(client: ForumClient, wait: OutageWait | None = None) -> int:
    """Log ``client`` in; with ``wait``, wait out an outage (module doc).

    Returns:
        how many attempts failed on an outage before the login went through (0: at once).

    Raises:
        LoginFailed: (CaptchaRequired) the board refused; never retried.
        BoardNotFound: the login page answers 404.
        ServerError, httpx.TransportError: an outage, without ``wait`` (or past its
            ``give_up_after_s``).
    """
    failures = 0
    started = wait.clock() if wait is not None else 0.0
    reminded = started
    if wait is not None:
        _quiet_retries(client, True)  # one line per outage, not one per retry
    try:
        while True:
            try:
                client.login()
            except (LoginFailed, BoardNotFound):
                raise
            except (ServerError, httpx.TransportError) as exc:
                if wait is None:
                    raise
                failures += 1
                now = wait.clock()
                if wait.give_up_after_s is not None and now - started >= wait.give_up_after_s:
                    raise
                delay = min(wait.cap_s, wait.first_s * 2 ** (failures - 1))
                if isinstance(exc, BoardPaused):
                    delay = max(delay, min(exc.wait_s, wait.cap_s))
                what = f"{type(exc).__name__}: {exc}"
                if failures == 1:
                    log.warning(
                        "login: the board is not answering as itself (%s); waiting for it, "
                        "retrying with backoff up to every %.0f s (a refused password still "
                        "stops)",
                        what,
                        wait.cap_s,
                    )
                elif now - reminded >= wait.remind_s:
                    reminded = now
                    log.warning(
                        "login: still waiting for the board after %.0f s (%d attempts; last: %s)",
                        now - started,
                        failures,
                        what,
                    )
                else:
                    log.debug("login attempt %d: %s; next in %.0f s", failures, what, delay)
                wait.sleep(delay)
                continue
            if failures and wait is not None:
                log.warning(
                    "login: the board is back after %.0f s (%d failed %s): logged in",
                    wait.clock() - started,
                    failures,
                    "attempt" if failures == 1 else "attempts",
                )
            return failures
    finally:
        _quiet_retries(client, False)


def _quiet_retries(client: ForumClient, quiet: bool) -> None:
    """The client's per-retry lines at DEBUG while an outage is waited out (phpBB client's
    ``retry_log_level``; other clients log no per-retry line)."""
    if hasattr(client, "retry_log_level"):
        client.retry_log_level = logging.DEBUG if quiet else logging.INFO
