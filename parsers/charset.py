"""Charset labels and detection for both platforms, following the WHATWG Encoding Standard.

Browsers read a page labelled ``iso-8859-1``, ``latin1`` or ``us-ascii`` as windows-1252
(https://encoding.spec.whatwg.org/#names-and-labels): the bytes 0x80-0x9F are then curly
quotes, dashes and ``€``, never C1 controls, so « l’ennemi » stays « l’ennemi » and not
``l\\x92ennemi``. A page with no declared charset that is not valid UTF-8 is detected with
``charset-normalizer`` (windows-1252 when it has no better guess).
"""

from __future__ import annotations

import codecs

__all__ = ["MIN_DETECT_BYTES", "codec_for_label", "detect_charset"]

# WHATWG labels of windows-1252 (the ones Python maps elsewhere: latin-1, ascii).
_WINDOWS_1252_LABELS = frozenset(
    {
        "ansi_x3.4-1968",
        "ascii",
        "cp1252",
        "cp819",
        "csisolatin1",
        "ibm819",
        "iso-8859-1",
        "iso-ir-100",
        "iso8859-1",
        "iso88591",
        "iso_8859-1",
        "iso_8859-1:1987",
        "l1",
        "latin1",
        "latin-1",
        "us-ascii",
        "windows-1252",
        "x-cp1252",
    }
)


def codec_for_label(label: str) -> str | None:
    """The Python codec for a declared charset label, per WHATWG; None when unknown.

    Examples:
        >>> codec_for_label("ISO-8859-1"), codec_for_label(" latin1 "), codec_for_label("UTF8")
        ('cp1252', 'cp1252', 'utf-8')
        >>> codec_for_label("x-unknown") is None
        True
    """
    name = label.strip().strip("\"'").lower()
    if name in _WINDOWS_1252_LABELS:
        return "cp1252"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


#: Shorter undeclared non-UTF-8 bodies are read as windows-1252 without detection.
MIN_DETECT_BYTES = 512


def detect_charset(data: bytes) -> str:
    """The codec of an undeclared page (see module doc).

    ``utf-8`` when the bytes are valid UTF-8; else ``cp1252`` for a body under
    :data:`MIN_DETECT_BYTES` (too short for a statistical guess) or when charset-normalizer
    lists it among the clean decodings (or finds none); else charset-normalizer's best guess.

    Examples:
        >>> detect_charset("« l’ennemi »".encode("utf-8")), detect_charset(b"l\\x92ennemi")
        ('utf-8', 'cp1252')
        >>> detect_charset(("Дуэль начинается сегодня вечером. " * 20).encode("cp1251"))
        'cp1251'
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"
    if len(data) < MIN_DETECT_BYTES:
        return "cp1252"
    # Imported on first use (about 3.5 MiB; most pages say their charset or are UTF-8).
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    codecs_found = [codec_for_label(match.encoding) for match in matches]
    if not codecs_found or "cp1252" in codecs_found:
        return "cp1252"
    return codecs_found[0] or "cp1252"
