"""The one :class:`sqlite_utils.Migrations` every migration module registers on, in import order."""

from sqlite_utils import Migrations

MIGRATIONS = Migrations("forumbot")
