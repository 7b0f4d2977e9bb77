"""forumbot: the I/O shell (forum clients, storage, referee loop, poster, scheduler, CLI).

The pure parts live in the top-level packages ``parsers`` and ``rules``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from forumbot._lean import import_lean

import_lean()  # sqlite_utils without numpy, httpx without its CLI, when imported (forumbot._lean)
