"""The review page's forum account link (issue 24 F11, branch h-i24).

``notify_settings.forum_linked_by``: who made the person's forum account (``forum_name``) the
one owls go to: the person on the review page after the board said it is a member
(``"board"``), or an admin on the command line (the admin's name, ``forumbot users notify
--forum-name``). Empty: never linked (owls go to the default, the review-page username). Once
linked, only an admin changes it (:mod:`forumbot.web.forum_account`).
"""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS


@MIGRATIONS(name="h_i24_m001_forum_linked_by")
def h_i24_m001_forum_linked_by(db: sqlite_utils.Database) -> None:
    """``notify_settings.forum_linked_by`` (module doc)."""
    db.table("notify_settings").add_column("forum_linked_by", str)
