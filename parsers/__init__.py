"""Pure parsers: forum HTML -> posts, post -> action. No I/O, no clock, no RNG."""

from __future__ import annotations

from parsers.errors import ParseError, UnknownPageError
from parsers.model import Action, DiceRoll, Edit, Post, Quote, ReplyForm, TopicPage

__all__ = [
    "Action",
    "DiceRoll",
    "Edit",
    "ParseError",
    "Post",
    "Quote",
    "ReplyForm",
    "TopicPage",
    "UnknownPageError",
]
