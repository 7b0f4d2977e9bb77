"""The bot's SQLite storage: one :class:`Storage` over sqlite-utils, and its migrations.

Public surface: :class:`Storage`, :func:`open_storage`, :data:`MIGRATIONS`, :func:`content_hash`,
:func:`iso`, :func:`recorded_board_language`, :data:`StorageOperationalError`. The rooms'
repositories hang off ``Storage`` (``storage.notices``, ...; issue 27: all SQL lives in
storage/). Storage imports nothing else from forumbot (it sits under every other room).
"""

from forumbot.storage.db import (
    Storage,
    content_hash,
    iso,
    open_storage,
    recorded_board_language,
)
from forumbot.storage.migrations import MIGRATIONS
from forumbot.storage.repository import StorageOperationalError

__all__ = [
    "MIGRATIONS",
    "Storage",
    "StorageOperationalError",
    "content_hash",
    "iso",
    "open_storage",
    "recorded_board_language",
]
