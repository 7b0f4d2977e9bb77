"""The board's language as its pages say it (issue 25, branch h-i25web).

``boards.language``: the primary language subtag of the board's ``<html lang>``
(:func:`parsers.page_language.page_language`: ``"fr"``, ``"en"``), recorded when the bot reads
a board page (``doctor``, ``check``, the first poll of ``run``); empty until then.
``boards.language_read_at``: when it was last recorded (ISO 8601 UTC). The staff's command
line speaks ``board.language`` when the configuration sets it, else this, else English.
"""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS


@MIGRATIONS(name="h_i25web_m001_board_language")
def h_i25web_m001_board_language(db: sqlite_utils.Database) -> None:
    """``boards.language`` and ``boards.language_read_at`` (module doc)."""
    db.table("boards").add_column("language", str)
    db.table("boards").add_column("language_read_at", str)
