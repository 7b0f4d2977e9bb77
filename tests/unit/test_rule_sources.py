"""Every rule source the review page quotes is filled in: no ``{RULES}`` or ``{SEED}`` left
unformatted (a newcomer saw « ({RULES}: "a tie lands [D]") » on the page)."""

from __future__ import annotations

import rules.classic_sources as classic_sources
import rules.fatigue.sources as fatigue_sources


def _texts(module: object) -> list[str]:
    found: list[str] = []
    for value in vars(module).values():
        if isinstance(value, dict):
            found += [v for v in value.values() if isinstance(v, str)]
    return found


def test_no_placeholder_is_left_in_a_rule_source() -> None:
    texts = _texts(classic_sources) + _texts(fatigue_sources)
    assert len(texts) > 10
    assert [t for t in texts if "{RULES}" in t or "{SEED}" in t] == []
