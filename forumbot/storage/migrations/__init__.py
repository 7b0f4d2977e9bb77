"""Schema migrations of the bot's database (sqlite-utils ``Migrations``), in the order they apply.

Each migration is appended, never edited: an existing database applies only the ones it lacks
(their names are recorded in ``_sqlite_migrations``). The review page's tables (``users``,
``duel_referees``, ``web_sessions``) are migrations here too: storage never imports ``web``.

One module per room's tables, imported here in the order the migrations apply; a new migration
goes at the end of the last module (or a new module imported last). Never edit an applied one.
"""

import importlib

from forumbot.storage.migrations.registry import MIGRATIONS

APPLY_ORDER = (
    "duels", "web", "club", "notices", "dice", "h_reads", "h_publish", "h_i24", "h_i25web",
)  # fmt: skip
"""The migration modules in the order they register, which is the order they apply (a sorted
import would put the club's tables before the duels they refer to)."""

for _module in APPLY_ORDER:
    importlib.import_module(f"forumbot.storage.migrations.{_module}")

__all__ = ["APPLY_ORDER", "MIGRATIONS"]

