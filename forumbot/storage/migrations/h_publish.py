"""What the publisher must remember outside one process (issue 22, branch h-publish): the
restores of the database, and when the markers of rows written before a start must be looked
for on the board.

- ``publish_restores``: one row per ``forumbot restore`` (written by
  :func:`forumbot.ops.backup.restore` into the restored database itself, ``create table if not
  exists`` there too: the backup may predate this migration). ``started_at`` is set by the
  first start after it (:meth:`forumbot.publish.poster.PublishState.at_start`); until
  ``check_until`` every declaration and owl has its marker looked for before its first post.
- ``publish_marks``: ``name`` -> ``value`` (``owls_fresh_after``: the largest owl id when the
  last process started; an owl written before it may already be in the bot's sent box).
"""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS

RESTORES_DDL = (
    "create table if not exists publish_restores (id integer primary key, restored_at text, "
    "backup text, started_at text, check_until text)"
)
"""The ``publish_restores`` table, as the restore writes it into a backup of any age."""


@MIGRATIONS(name="h_publish_m001_restores_and_marks")
def h_publish_m001_restores_and_marks(db: sqlite_utils.Database) -> None:
    """``publish_restores`` and ``publish_marks`` (module doc)."""
    db.execute(RESTORES_DDL)
    db.execute("create table if not exists publish_marks (name text primary key, value text)")
