"""Issue 13, owls before their announcement: a text posted in a topic never says owls were
sent before they are (the topic is posted first, the owls 20-60 s later on a real board), so
it speaks of them in the future: « recevra par hibou »."""

from __future__ import annotations

import re
from pathlib import Path

from forumbot.publish.render import render

TEMPLATES = Path(__file__).resolve().parents[2] / "forumbot" / "publish" / "templates" / "fr"
ALREADY_SENT = re.compile(
    r"\b(?:a|ont|avez|as) reçu\b|\breçoi(?:t|vent|s|vez)\b|\b(?:envoyés?|envoyées?|partis?)\b"
)


def sentences_about_owls(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if "hibou" in s.lower()]


def test_no_topic_text_says_the_owls_are_already_sent() -> None:
    topic_templates = [
        p for p in sorted(TEMPLATES.glob("*.bbcode.j2")) if "owl" not in p.name
    ]  # the owls themselves may say what they carry
    said = {
        p.name: s
        for p in topic_templates
        for s in sentences_about_owls(p.read_text(encoding="utf-8"))
        if ALREADY_SENT.search(s)
    }
    assert said == {}
    owls_announced = [
        p.name for p in topic_templates if "recevra par hibou" in p.read_text(encoding="utf-8")
    ]
    assert owls_announced == ["duo_opening.bbcode.j2", "signup_duel_topic.bbcode.j2"]


def test_the_duel_topic_announces_the_owls_in_the_future() -> None:
    duellist = {"name": "Aurora Vexley", "year_label": "3e année", "points": 30,
                "types_label": "brutale"}  # fmt: skip
    text = render(
        "signup_duel_topic.bbcode.j2",
        {"first": duellist, "second": {**duellist, "name": "Cassius Thorne"},
         "unit": "PV", "stakes": None, "commitment": "ab" * 32},
        "fr",
    )  # fmt: skip
    (owls,) = sentences_about_owls(text)
    assert owls.startswith("Chaque duelliste recevra par hibou") and not ALREADY_SENT.search(owls)
