"""Errors raised by the parsers.

Exception tree::

    ParseError            a page or post could not be read (fields: source, reason)
    └── UnknownPageError  no known platform/markup matched the page
"""

from __future__ import annotations


class ParseError(Exception):
    """A page could not be turned into posts.

    Attributes:
        source: what was parsed (a file name, a URL, or ``"<html>"``).
        reason: human-readable reason, English.
    """

    def __init__(self, reason: str, source: str = "<html>") -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class UnknownPageError(ParseError):
    """No known platform or display version matched the page."""
