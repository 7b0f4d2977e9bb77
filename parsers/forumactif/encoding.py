"""Decode Forumactif HTTP bodies to text.

Boards created before 2008-09-17 are served in an 8-bit charset (French boards:
``windows-1252``); later boards in UTF-8 (REPORT.md section 8, Etana
``S_CONTENT_ENCODING``). The charset is read, in this order, from the caller's
declared encoding (HTTP ``Content-Type``), a byte-order mark, then the page's own
``<meta charset>`` / ``<meta http-equiv="content-type">``. ``iso-8859-1`` and
``latin-1`` are read as ``windows-1252``, as browsers do (curly quotes live in
0x80-0x9F; WHATWG labels, :mod:`parsers.charset`); a page declaring nothing is
detected (UTF-8 when valid, else charset-normalizer).
"""

from __future__ import annotations

import codecs
import re

from parsers.charset import codec_for_label, detect_charset

_META_RE = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""",
    re.IGNORECASE,
)


def normalise_charset(name: str) -> str:
    """Return the Python codec name to use for a declared charset.

    ``latin-1`` family -> ``cp1252``; unknown names -> ``utf-8``.
    """
    return codec_for_label(name) or "utf-8"


def sniff_charset(data: bytes) -> str | None:
    """Charset declared inside the page (BOM or ``<meta>`` in the first 4 KiB), or None."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    match = _META_RE.search(data[:4096])
    if match is None:
        return None
    return normalise_charset(match.group(1).decode("ascii", "replace"))


def page_codec(data: bytes, declared: str | None = None) -> str:
    """The codec :func:`decode_html` reads ``data`` with (declared, BOM, ``<meta>``, detection)."""
    charset = normalise_charset(declared) if declared else sniff_charset(data)
    return charset if charset is not None else detect_charset(data)


def decode_html(data: str | bytes, declared: str | None = None) -> str:
    """Turn an HTTP body into text.

    Args:
        data: the body; ``str`` is returned unchanged.
        declared: charset from the HTTP ``Content-Type`` header, if known.

    Returns:
        The decoded page. Bytes that are invalid in the chosen charset are
        replaced (U+FFFD) rather than raising; an undeclared body that is not
        valid UTF-8 is detected with charset-normalizer (:func:`parsers.charset.detect_charset`).
    """
    if isinstance(data, str):
        return data
    charset = page_codec(data, declared)
    if charset == "utf-8" and data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    return data.decode(charset, errors="replace")
