"""The staff's catalogue (issue 25): one Babel ``.po`` for the CLI and the review page, read
at start, complete, its placeholders those of the English messages."""

from __future__ import annotations

import io
import re
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from forumbot.i18n import (
    catalogue,
    figures,
    po_path,
    staff_language,
    translate,
    translate_detail,
    translator,
)
from forumbot.web.i18n import pick_language

ROOT = Path(__file__).resolve().parents[2]


def _extracted() -> set[tuple[str | None, str]]:
    """Every message ``pybabel extract`` finds with the command written in babel.cfg."""
    cfg = (ROOT / "babel.cfg").read_text(encoding="utf-8")
    # pybabel's default keywords the command keeps: ``_`` and ``ngettext`` (a message with
    # its plural, newcomer6 C7: its singular names it here)
    keywords: dict[str, object] = {"_": None, "ngettext": (1, 2)}
    for word in re.findall(r"-k (\S+)", cfg.splitlines()[0]):
        name, _colon, spec = word.partition(":")
        if not spec:
            keywords[name] = None
            continue
        parts = spec.split(",")
        context = [int(p[:-1]) for p in parts if p.endswith("c")]
        numbers = tuple(int(p) for p in parts if not p.endswith("c"))
        keywords[name] = ((context[0], "c"), *numbers) if context else numbers
    method_map, options_map = parse_mapping_cfg(io.StringIO(cfg))
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(ROOT),
        method_map,
        options_map,
        keywords=keywords,  # type: ignore[arg-type]
    ):
        found.add((context, message if isinstance(message, str) else message[0]))
    return found


def test_every_message_of_the_code_has_its_french() -> None:
    with po_path("fr").open("rb") as po:
        catalog = read_po(po, locale="fr")
    translated = {
        (m.context, m.id if isinstance(m.id, str) else m.id[0])
        for m in catalog
        if m.id and (m.string if isinstance(m.string, str) else all(m.string)) and not m.fuzzy
    }
    extracted = _extracted()
    assert len(extracted) > 300  # the CLI's and the page's messages, not an empty walk
    assert sorted(extracted - translated, key=str) == []
    assert sorted(translated - extracted, key=str) == []  # no stale entry either
    assert not catalog.obsolete


def test_placeholders_are_the_english_ones() -> None:
    with po_path("fr").open("rb") as po:
        catalog = read_po(po, locale="fr")
    problems = [(m.id, [str(e) for e in errors]) for m, errors in catalog.check()]
    assert problems == []
    for message in catalog:
        if message.id:
            wanted = sorted(re.findall(r"%[sr%]", str(message.id)))
            assert sorted(re.findall(r"%[sr%]", str(message.string))) == wanted, message.id


def test_the_catalogue_is_read_from_the_po_and_translates() -> None:
    _ = translator("fr")
    assert _("no declaration %s", 9) == "aucune déclaration 9"
    assert _("%s's points", "Aurora Vexley") == "Points d'Aurora Vexley"  # elided
    assert translator("en")("no declaration %s", 9) == "no declaration 9"
    assert translate("fr", "Nothing the catalogue knows") == "Nothing the catalogue knows"
    assert catalogue("fr") is catalogue("fr")  # read once


def test_a_library_error_is_translated_whole_or_not_at_all() -> None:
    missing = "cannot read configuration /x.toml: No such file or directory"
    assert translate_detail("fr", missing) == (
        "impossible de lire la configuration /x.toml : aucun fichier ou dossier de ce nom"
    )
    assert translate_detail("fr", "declaration 4 is held: it can no longer change") == (
        "la déclaration 4 est mis en attente : elle ne peut plus changer"
    )
    assert translate_detail("fr", "no duel 3; no declaration 4") == (
        "aucun duel 3 ; aucune déclaration 4"
    )
    assert translate_detail("fr", "no duel 3; a sentence nobody listed") is None
    assert translate_detail("fr", "invalid TOML: Expected '=' (at line 1)") is None
    assert translate_detail("en", "anything") == "anything"


def test_the_language_from_board_language() -> None:
    assert staff_language("fr") == staff_language("fr-FR") == staff_language("FR") == "fr"
    assert staff_language("") == staff_language(None) == staff_language("en") == "en"
    assert staff_language("de") == "en"  # no catalogue: English
    assert pick_language(None, None) == "fr"  # the page's default: the bundled French board
    assert pick_language(None, None, "en") == "en"
    assert pick_language("fr", None, "en") == "fr"
    assert pick_language(None, "en", "fr") == "en"


def test_decimal_figures_take_the_comma_in_french() -> None:
    values = ("10.6", "-0.5", "http://127.0.0.1:9", "v1.2.3", 3, "0")
    assert figures("fr", values) == ("10,6", "-0,5", "http://127.0.0.1:9", "v1.2.3", 3, "0")
    assert figures("en", values) == values
