"""Magic types written in sign-ups, pure (seed 001: "votre type de magie (2 types maximum)"):
the seed's five types, the other spellings players use, and typo-tolerant matching. Used by
:mod:`parsers.registration` (which re-exports :data:`MAGIC_TYPES` and
:func:`parse_magic_types`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rapidfuzz import fuzz

from parsers.signup_words import fold

MAGIC_TYPES: dict[str, str] = {
    "brutale": "Brutale",
    "discrete": "Discrète",
    "flamboyante": "Flamboyante",
    "protectrice": "Protectrice",
    "sournoise": "Sournoise",
}
# Other spellings people use (masculine forms), by type key.
_TYPE_FORMS: dict[str, tuple[str, ...]] = {
    "brutale": ("brutale", "brutal", "brutales"),
    "discrete": ("discrete", "discret", "discretes"),
    "flamboyante": ("flamboyante", "flamboyant", "flamboyance"),
    "protectrice": ("protectrice", "protecteur", "protectrices", "protection"),
    "sournoise": ("sournoise", "sournois", "sournoises"),
}
_FILLERS = {
    "magie", "type", "types", "de", "du", "la", "le", "ma", "mon", "est", "sont", "plutot",
    "un", "une", "peu", "tres", "et", "ou", "mais", "aussi", "principalement", "surtout",
    "tendance", "a", "dominante", "secondaire", "je", "suis", "il", "elle", "sa", "son",
}  # fmt: skip


def _match_type(word: str, known: Mapping[str, str]) -> str | None:
    best: tuple[float, str] | None = None
    for key in known:
        forms = _TYPE_FORMS.get(key, (fold(key), fold(known[key])))
        for form in forms:
            score = 100.0 if word == form else fuzz.ratio(word, form)
            if score >= 80 and (best is None or score > best[0]):
                best = (score, key)
    return best[1] if best else None


def parse_magic_types(
    text: str, known: Mapping[str, str] = MAGIC_TYPES
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Magic types in a labelled value: (type keys in order, chunks that name no type).

    Chunks are split on commas, ``et``, ``/``, ``&``, ``+``, ``;``; brackets are ignored.

        >>> parse_magic_types("Brutale et discrète")
        (('brutale', 'discrete'), ())
        >>> parse_magic_types("sournois / Protecteur")
        (('sournoise', 'protectrice'), ())
        >>> parse_magic_types("colérique")
        ((), ('colérique',))
    """
    cleaned = re.sub(r"\([^)]*\)", " ", text)
    chunks = re.split(r",|;|/|&|\+|\bet\b|\band\b|\bou\b| - ", cleaned, flags=re.IGNORECASE)
    found: list[str] = []
    unknown: list[str] = []
    for chunk in chunks:
        words = [w for w in re.findall(r"[a-z]+", fold(chunk)) if w not in _FILLERS]
        if not words:
            continue
        keys = [k for k in (_match_type(w, known) for w in words) if k is not None]
        if keys:
            for key in keys:
                if key not in found:
                    found.append(key)
        else:
            unknown.append(chunk.strip(" .!:-"))
    return tuple(found), tuple(unknown)


def types_in_free_text(text: str, known: Mapping[str, str]) -> tuple[str, ...]:
    """Types named in a free-text line (exact forms only: no typo tolerance here)."""
    out: list[str] = []
    for word in re.findall(r"[a-z]+", fold(text)):
        for key in known:
            if word in _TYPE_FORMS.get(key, (fold(key),)) and word != "protection":
                if key not in out:
                    out.append(key)
    return tuple(out)


__all__ = ["MAGIC_TYPES", "parse_magic_types", "types_in_free_text"]
