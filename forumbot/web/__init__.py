"""The review web page (issue 6): referees change drafts, admins judge violations.

Public surface:

- :func:`create_app` (lazy: importing :mod:`forumbot.web` does not import Starlette, so
  the review tables are storage migrations and load without the web extras).
- :mod:`forumbot.web.users`: accounts (argon2 hashes), roles, duel referees.
- :mod:`forumbot.web.sessions`: server-side session records (logout, password change,
  disable/enable and inactivity end them).
- :mod:`forumbot.web.judging`: admins' confirm / dismiss of violations, filters, CSV.
- :mod:`forumbot.web.site` and :mod:`forumbot.web.host`: ``forumbot web --boards``, every
  club of a folder under ``/c/<club>/`` (each its own accounts) and the host's page (issue 27).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from forumbot.web.app import create_app

        return create_app
    raise AttributeError(name)
