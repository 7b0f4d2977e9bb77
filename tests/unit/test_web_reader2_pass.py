"""The review page after the second reader's second snapshot (issue 25, reader2 C21-C25, T4):
one line count for one post, « infraction », wording without gender agreement, one points line
for a 2v2 naming the spells, a duellist who could not act as a sentence with its subject, the
balance caption of a years table, U+2212 for the computed numbers."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from forumbot.publish.typography import plain
from forumbot.storage import Storage
from forumbot.web.history import with_blockers
from forumbot.web.page_words import PageWords, trail_detail_fr
from forumbot.web.views import counted_lines, draft_number_fields, duo_points_trail
from forumbot.web.words import detail_fr
from tests.unit.test_duo_flow import A1, A2
from tests.unit.test_web_duo_numbers import client, duo  # noqa: F401 (pytest fixtures)

pytestmark = pytest.mark.anyio
PASSWORD = "correct horse battery staple"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def words() -> PageWords:
    return PageWords("fr", "Europe/Paris", lambda text, *a: text % a if a else text)


def test_c21_the_header_gives_the_count_the_length_rule_used() -> None:
    trail = [{"quantity": "Aurora Vexley.lines", "value": 11, "rule": "fatigue.short_post",
              "detail": "11 displayed lines (at 100 characters), 10 needed"},
             {"quantity": "Aurora Vexley.die", "value": 3, "detail": "post 24"}]  # fmt: skip
    assert counted_lines(trail) == {"Aurora Vexley": (11, 10)}
    assert counted_lines([]) == {}


def test_c22_infraction_and_no_gendered_participle() -> None:
    w = words()
    assert plain(w.quantity("Aurora Vexley.violation.repeated_spell")) == (
        "Aurora Vexley : infraction « sort répété »"
    )
    text = plain(detail_fr("Aurora Vexley already moved this turn"))
    assert text == "Aurora Vexley avait déjà fait son déplacement ce tour-ci"
    alone = detail_fr("Aurora Vexley is alone in the zone with Cassius Thorne and Dorian Pike")
    assert "(e)" not in text + alone and "il n'y a que Aurora Vexley" in alone


def test_c23_a_2v2_points_field_has_one_line_naming_the_spells() -> None:
    entries = (
        {"quantity": "Cassius Thorne.points", "value": 87, "rule": "fatigue.first_declaration",
         "detail": "87 - 0 (violations) = 87 PV"},
        {"quantity": "Cassius Thorne.points", "value": 78, "rule": "fatigue.damage",
         "detail": "87 - 0 (violations) - 9 (spells) - 0 (lasting) + 0 (heal) = 78 PV"},
    )  # fmt: skip
    attacks = [{"attacker": "Blaise Corvin", "defender": "Cassius Thorne", "spell": "Densaugeo",
                "landed": True, "damage": 9},
               {"attacker": "Aurora Vexley", "defender": "Cassius Thorne", "spell": "Reducto",
                "landed": False, "damage": 0}]  # fmt: skip
    (only,) = duo_points_trail(entries, attacks, "Cassius Thorne")
    assert only["rule"] == "fatigue.damage"
    assert trail_detail_fr(only) == "87 \u2212 9 (Densaugeo de Blaise Corvin) = 78 PV"
    (unhit,) = duo_points_trail(entries[:1], attacks, "Blaise Corvin")
    assert trail_detail_fr(unhit) == "87 PV, sans changement"


def test_c24_a_duellist_who_could_not_act_is_the_subject() -> None:
    trail = [{"quantity": "Cassius Thorne.effects.expired", "value": "no_attack",
              "detail": "no_attack from Stupéfix ran its last turn"},
             {"quantity": "Aurora Vexley.effects.expired", "value": "no_attack",
              "detail": "no_attack from Incarcerem ran its last turn"}]  # fmt: skip
    attack = {"attacker": "Cassius Thorne", "defender": "Aurora Vexley", "spell": None,
              "void_reason": "no_action", "landed": False, "damage": 0}  # fmt: skip
    (marked,) = with_blockers([attack], trail)
    assert marked["blocked_by"] == ["Stupéfix"] and "blocked_by" not in attack
    w = words()
    assert w.attack(marked, "fatigue", "PV") == "Cassius Thorne n'a pas pu agir (Stupéfix)"
    dodge = {"attacker": "Aurora Vexley", "defender": "Cassius Thorne", "spell": None,
             "void_reason": "dodge"}  # fmt: skip
    assert w.attack(dodge, "fatigue", "PV") == (
        "Aurora Vexley choisit d'esquiver plutôt que de lancer un sort"
    )
    dodged = {"attacker": "Cassius Thorne", "defender": "Aurora Vexley", "spell": "Reducto",
              "void_reason": "dodged"}  # fmt: skip
    assert w.attack(dodged, "fatigue", "PV") == "Aurora Vexley esquive Reducto de Cassius Thorne"


def _table(kind: str) -> object:
    from rules.balance.simulate import Cell, Table

    keys = ("a", "b")
    cells = {(r, c): Cell(r, c, 20, 10, 10, 0, 0, 200) for r in keys for c in keys}
    return Table("classic", kind, keys, keys, cells)


def test_c25_the_caption_of_a_years_table_says_same_year() -> None:
    from forumbot.web.routes.balance import mirror_note

    years = mirror_note(_table("years"), "fr")  # type: ignore[arg-type]
    magic = mirror_note(_table("magic_types"), "fr")  # type: ignore[arg-type]
    assert years is not None and magic is not None
    # the CLI's own text (newcomer 6 C2): « Cases miroirs (ligne = colonne : même année) »
    assert "colonne\u00a0: même année)" in years and "magie" not in years.split("semblables")[0]
    assert "colonne\u00a0: même type de magie)" in magic
    english = mirror_note(_table("years"), "en")  # type: ignore[arg-type]
    assert english is not None and "Mirror cells (row = column: same year)" in english


async def test_t4_and_c21_on_the_draft_page(  # the 2v2 numbers tests' draft and client
    client: httpx.AsyncClient,  # noqa: F811
    duo: tuple[Storage, int],  # noqa: F811
) -> None:
    """A published draft shows its numbers as text: a negative one with U+2212 (T4); the
    post's header gives its line count and the part the length rule counted (C21)."""
    storage, decl_id = duo
    decl = storage.declaration(decl_id)
    stored = json.loads(decl["context_json"])
    for d in stored["outcome"]["state"]["duellists"]:
        if d["name"] == A2:
            d["points"] = -1
    storage.db.table("declarations").update(
        decl_id, {"context_json": json.dumps(stored), "status": "published"}
    )
    fields = draft_number_fields(storage.declaration(decl_id), stored, {})
    assert any(f.key == f"{A2}.points" and f.value == -1 for f in fields)
    page = await client.get("/login")
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found is not None
    await client.post(
        "/login", data={"csrf_token": found[1], "username": "alice", "password": PASSWORD}
    )
    html = (await client.get(f"/drafts/{decl_id}")).text
    row = re.search(rf"<td>Points de {A2}</td>\s*<td>(.*?)</td>", html, re.S)
    assert row is not None and row.group(1).strip() == "\u22121"
    assert re.search(r"(?<![\w&#;-])-\d", re.sub(r"<[^>]+>", " ", html)) is None
    counted = counted_lines(stored["outcome"]["trail"]).get(A1)
    if counted is not None:
        assert f"dont {counted[0]} comptées ({counted[1]} requises)" in html
    else:  # a post long enough by every count has no lines entry
        assert "comptées" not in html


def test_classic_points_unchanged_has_no_zero_term() -> None:
    """A classic duellist who lost nothing reads « 20 PD, sans changement », not « 20 − 0 = 20 PD »
    (reader h-i25web's note; the trail detail comes from rules/classic.py)."""
    from forumbot.web.words import detail_fr

    assert detail_fr("20 PD, unchanged") == "20 PD, sans changement"
