"""Forumactif (Forumotion) page parsers, for the six display versions.

Versions (``_userdata["tpl_used"]``): ``subsilver`` = phpBB2, ``prosilver`` = phpBB3,
``punbb``, ``invision``, ``modernbb``, ``awesomebb``.

Dice appear on the Game Master's post and are attached to the roller's post (see
:mod:`parsers.forumactif.topic`).
"""

from __future__ import annotations

from parsers.forumactif.late_edit import LateEdit, dice_snapshots, late_edits
from parsers.forumactif.topic import parse_topic_page
from parsers.forumactif.userdata import parse_userdata

__all__ = ["LateEdit", "dice_snapshots", "late_edits", "parse_topic_page", "parse_userdata"]
