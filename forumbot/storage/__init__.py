"""The bot's SQLite storage: one :class:`Storage` over sqlite-utils, and its migrations.

Public surface: :class:`Storage`, :func:`open_storage`, :data:`MIGRATIONS`, :func:`content_hash`,
:func:`iso`, :func:`recorded_board_language`. Storage imports nothing else from forumbot (it sits
under every other room).
"""

from forumbot.storage.db import (
    Storage,
    content_hash,
    iso,
    open_storage,
    recorded_board_language,
)
from forumbot.storage.migrations import MIGRATIONS

__all__ = [
    "MIGRATIONS",
    "Storage",
    "content_hash",
    "iso",
    "open_storage",
    "recorded_board_language",
]
