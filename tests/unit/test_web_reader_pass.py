"""The review page after the second French reader pass (issue 25 reader, W17-W20, C24-C44, T6,
T7, T9): a 2v2 duel's history read from its declarations, attacks and trail entries in French by
rule code, the turn players read, the balance caption's claims."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator

import httpx
import pytest

from forumbot.duels.publication import publish_due
from forumbot.storage import Storage, open_storage
from forumbot.web import create_app
from forumbot.web.history import declared_series, declared_turns, turn_read
from forumbot.web.page_words import PageWords, trail_detail_fr, trail_value_fr
from forumbot.web.users import add_user
from tests.unit.test_duo_flow import A1, A2, BODY, NOW, InboxForum, setup

pytestmark = pytest.mark.anyio
PASSWORD = "correct horse battery staple"
INTERNAL = ("damage_over_time", "no_attack", "no_dodge", "damage_percent", "ward", " by ",
            " lands", "never below", "displayed lines", "bet [")  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def words() -> PageWords:
    return PageWords("fr", "Europe/Paris", lambda text, *a: text % a if a else text)


@pytest.fixture
def duo() -> tuple[Storage, int]:
    """A 2v2 duel (review delay 0) whose turn 1 has two published declarations: A1 casts
    Flipendo, then A2 casts Incendio (each a published step, no ``turns`` row)."""
    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    for who, spell in ((A1, "Flipendo"), (A2, "Incendio")):
        forum.add_post(
            7, who, BODY + f"\n[b]{spell}[/b]\nAction : lancer un sort\nPari : [3,4,5,6]"
        )
        ref.poll_duel(duel_id)
        publish_due(storage, forum, lambda: NOW)
    add_user(storage, "alice", PASSWORD, "admin", NOW)
    return storage, duel_id


@pytest.fixture
async def client(duo: tuple[Storage, int]) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(duo[0], secret_key="s" * 48, now=lambda: NOW)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        page = await c.get("/login")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert csrf
        await c.post("/login", data={"username": "alice", "password": PASSWORD,
                                     "csrf_token": csrf.group(1)})  # fmt: skip
        yield c


def test_2v2_turns_come_from_the_published_declarations(duo: tuple[Storage, int]) -> None:
    """W17: the 2v2 flow stores no ``turns`` row; the history is its published steps."""
    storage, duel_id = duo
    assert not list(storage.db["turns"].rows_where("duel_id = ?", [duel_id]))
    published = [d for d in storage.declarations(("published",), duel_id) if d["kind"] == "turn"]
    assert len(published) >= 1
    turns = declared_turns(storage, duel_id)
    assert turns is not None and turns[0]["number"] == 1
    assert sum(len(t["declarations"]) for t in turns) == len(published)
    last = json.loads(published[-1]["context_json"])["outcome"]["state"]["duellists"]
    assert turns[-1]["points"] == [(d["name"], d["points"]) for d in last]
    series = declared_series(storage, duel_id)
    assert series is not None and len(series) == 4  # every duellist, Dorian Pike's side too
    assert all(len(v) == len(turns) + 1 for v in series.values())


async def test_2v2_duel_page_lists_its_turns(
    client: httpx.AsyncClient, duo: tuple[Storage, int]
) -> None:
    page = await client.get(f"/duels/{duo[1]}")
    assert page.status_code == 200
    assert "Aucun tour publié" not in page.text
    assert "Tour 1" in page.text
    assert page.text.count("<polyline") == 4
    assert "deux contre deux" in page.text  # C30: not « fatigue » nor « classic »
    assert "attaque " not in page.text.split("Historique des tours")[1].split("Audit des dés")[0]


def test_fatigue_attack_line_has_no_dice_but_the_damage_parts() -> None:
    """W18: fatigue and 2v2 have no attack/defense dice; the line gives the spell, the damage
    and its parts (the attack dict of the season demo's turn 4, Stupéfix)."""
    w = words()
    stupefix = {"attacker": "Aurora Vexley", "defender": "Cassius Thorne", "spell": "Stupéfix",
                "attack_die": 5, "defense_die": 2, "effective_defense": 0, "landed": True,
                "damage": 41, "attack_value": 41, "void_reason": None,
                "attack_modifiers": [{"amount": 4, "source": "magic:brutale"}],
                "defense_modifiers": [{"amount": -4, "source": "Impervius"}],
                "effects_applied": [{"type": "no_attack", "duration": 1,
                                     "applies": "target"}]}  # fmt: skip
    line = w.attack(stupefix, "fatigue", "PV")
    assert "attaque" not in line and "défense" not in line
    assert line.startswith("Stupéfix d'Aurora Vexley touche Cassius Thorne\u00a0: 41 PV")
    assert "41 de base, magie brutale +4, Impervius \u22124" in line
    assert "no_attack" not in line and "ne peut pas lancer de sort" in line
    protego = {**stupefix, "spell": "Protego", "attacker": "Cassius Thorne",
               "defender": "Aurora Vexley", "damage": 0, "attack_value": 0,
               "attack_modifiers": [], "defense_modifiers": [],
               "effects_applied": [{"type": "ward", "duration": 2, "amount": 8,
                                    "applies": "caster"}]}  # fmt: skip
    line = w.attack(protego, "fatigue", "PV")
    assert "chaque sort qui touche Cassius Thorne lui fait 8 PV de moins" in line
    assert "touche Aurora Vexley" not in line
    classic = {"attacker": "A", "defender": "B", "attack_die": 2, "effective_defense": 3,
               "landed": False, "damage": 0}  # fmt: skip
    assert (
        w.attack(classic, "classic", "PD") == "A → B\u00a0: attaque 2 contre défense 3, dévié, 0 PD"
    )


@pytest.mark.parametrize(
    ("entry", "french"),
    [
        (
            {"rule": "fatigue.bet", "value": False, "detail": "die 6, bet [1,2,3,4]"},
            "dé 6, pari [1,2,3,4] perdu",
        ),
        (
            {"rule": "fatigue.cast", "value": "Feudeymon", "detail": "level 8, year adult"},
            "niveau 8, adulte",
        ),
        (
            {"rule": "fatigue.cast", "detail": "Feudeymon lands on Cassius Thorne"},
            "Feudeymon touche Cassius Thorne",
        ),
        (
            {
                "rule": "fatigue.defender_cast",
                "detail": "Reducto: a cast cannot miss by default; both spells land",
            },
            "Reducto\u00a0: un sort lancé ne manque pas sa cible par défaut\u202f; les deux sorts "
            "touchent",
        ),
        (
            {
                "rule": "fatigue.damage",
                "detail": "Feudeymon: 74 +0 +0 (caster) +0 (target) -6 (ward) = 68 PV "
                "(never below 0)",
            },
            "Feudeymon\u00a0: 74 \u2212 6 (protection) = 68 PV",
        ),
        (
            {
                "rule": "fatigue.damage",
                "detail": "Reducto: 19 +0 +0 (caster) +0 (target) -22 (ward) = 0 PV "
                "(never below 0)",
            },
            "Reducto\u00a0: 19 \u2212 22 (protection) = 0 PV (jamais moins de 0)",
        ),
        (
            {
                "rule": "fatigue.damage",
                "detail": "45 - 0 (violations) - 68 (spells) - 0 (lasting) + 0 (heal) = -23 PV",
            },
            "45 \u2212 68 (sorts) = \u221223 PV",
        ),
        (
            {
                "rule": "fatigue.short_post",
                "detail": "11 displayed lines (at 100 characters), 10 needed",
            },
            "11 lignes comptées (à 100 caractères par ligne), 10 requises",
        ),
        (
            {
                "rule": "fatigue.effects",
                "detail": "Feudeymon by Aurora Vexley: 2 turn(s) from next turn",
            },
            "Feudeymon d'Aurora Vexley, pendant 2 tours à partir du suivant",
        ),
        (
            {"rule": "fatigue.ward", "detail": "Fianto Duri (by Cassius Thorne) still running"},
            "Fianto Duri de Cassius Thorne, toujours actif",
        ),
        (
            {
                "rule": "fatigue.reused_spell",
                "detail": "Blaise Corvin was already affected or targeted by Aurora Vexley's "
                "Impervius",
            },
            "Impervius d'Aurora Vexley a déjà touché ou visé Blaise Corvin",
        ),
        (
            {"rule": "duo.creature", "detail": "Bombarda Maxima hits Le strangulot du bassin"},
            "Bombarda Maxima touche le strangulot du bassin",
        ),
        (
            {
                "rule": "classic.tie",
                "detail": "Aurora Vexley's effective defense 6 vs attack 6: equal: the tie lands",
            },
            "défense effective 6 d'Aurora Vexley contre attaque 6, à égalité, le sort touche",
        ),
    ],
)
def test_trail_details_in_french_by_rule_code(entry: dict[str, object], french: str) -> None:
    """C24, C26, C27, C28, C39, C40, T7: each English trail detail of rules/ in French."""
    got = trail_detail_fr(entry)
    assert got == french
    assert not [w for w in INTERNAL if w in got]
    assert got.count(":") <= 1  # one colon a sentence


def test_self_spell_and_2v2_rule_names() -> None:
    """A spell on its caster in French; the 2v2 second move and a second dodge have French
    names (the page showed « extra move »)."""
    from forumbot.web.words import rule_name

    got = trail_detail_fr({"rule": "fatigue.cast", "detail": "Protego acts on its caster"})
    assert got == "Protego agit sur son lanceur"
    assert rule_name("duo.extra_move", "fr") == "second déplacement du duo"
    assert rule_name("fatigue.dodge_twice", "fr") == "deux esquives de suite"


def test_trail_values_never_show_internal_names() -> None:
    """C26: effect kinds by their French names."""
    assert trail_value_fr("damage_over_time") == "perte de PV par tour"
    assert trail_value_fr("ward (Fianto Duri, 1), damage_over_time (Feudeymon, 2)") == (
        "protection (Fianto Duri, 1 tour), perte de PV par tour (Feudeymon, 2 tours)"
    )
    assert trail_value_fr("Feudeymon -> Cassius Thorne") == "Feudeymon → Cassius Thorne"
    assert trail_value_fr(-23) == "\u221223"


def test_spellbook_source_uses_the_guides_french() -> None:
    """C25: « ward 8 PV for 2 turns » becomes the guide's effect text."""
    from forumbot.web.page_words import guide_spell_text

    w = PageWords("fr", "UTC", lambda t, *a: t % a if a else t, guide_spell_text)
    source = ("fatigue.toml default spellbook (club's to set): Protego, level 2, ward 8 PV "
              "for 2 turns")  # fmt: skip
    text = w.source(source, "fatigue.cast")
    assert text.startswith("Liste des sorts du club\u00a0: Protego, niveau 2, ")
    assert "ward" not in text and " for " not in text
    effects = guide_spell_text("fatigue", "Protego")  # the guide's own French (publish/guide)
    assert effects and text.endswith(effects) and "PV de moins" in effects


def test_turn_read_is_the_last_published_turn(duo: tuple[Storage, int]) -> None:
    """W20: the turn players read, not the state's count of complete turns."""
    storage, duel_id = duo
    duel = storage.duel(duel_id)
    state = json.loads(duel["state_json"])
    assert state["turn"] == 0  # turn 1 not complete yet
    assert turn_read(storage, duel) == 1
    w = words()
    assert w.progress("finished", 10) == "tour 10, le dernier"
    assert w.progress("running", 1) == "tour 2 en cours"
    assert w.winners("Aurora Vexley & Blaise Corvin") == (
        "Vainqueurs\u00a0: Aurora Vexley et Blaise Corvin"
    )


def test_cli_names_the_turn_players_read(duo: tuple[Storage, int]) -> None:
    """W20: `duels list` says « finished after turn 10 » for a 2v2 whose last declaration is
    turn 10's, though only 9 turns are complete (the sentence is h-i25cli's to translate)."""
    from forumbot.cli.drafts import duel_progress

    storage, duel_id = duo
    duel = {**storage.duel(duel_id), "status": "finished",
            "state_json": json.dumps({"turn": 9, "duellists": []})}  # fmt: skip
    assert duel_progress(duel, 10) == "finished after turn 10"
    assert duel_progress(duel) == "finished after turn 9"


def _table(rates: dict[tuple[str, str], int], n: int = 20) -> object:
    from rules.balance.simulate import Cell, Table

    keys = ("a", "b", "c")
    cells = {
        (r, c): Cell(r, c, n, rates[(r, c)], n - rates[(r, c)], 0, 0, 10 * n)
        for r in keys
        for c in keys
    }
    return Table("fatigue", "years", keys, keys, cells)


def test_balance_mirror_caption_is_true_of_its_table() -> None:
    """W19: the caption says « en moyenne », gives chance's spread for the squares' count
    (1.96 · √(0.25 / 20) = 22 points) and reports the table's own diagonal and pairs, so no
    claim is contradicted by the numbers (the reader's Discrète/Discrète 80 %, 4e/6e + 6e/4e =
    120 %)."""
    from forumbot.web.routes.balance import mirror_note, stats_line

    wins = {("a", "a"): 16, ("b", "b"): 3, ("c", "c"): 10, ("a", "b"): 9, ("b", "a"): 13,
            ("a", "c"): 4, ("c", "a"): 20, ("b", "c"): 10, ("c", "b"): 10}  # fmt: skip
    table = _table(wins)
    note = mirror_note(table, "fr")  # type: ignore[arg-type]
    assert note is not None
    # « 50 % » typeset like the rest of the note (U+202F, reader2 T2)
    assert "en moyenne 50\u202f%" in note and "Avec 20 duels par case" in note
    assert "de 22 points au plus (une paire de 31), 19 fois sur 20" in note
    assert "la diagonale va de 15\u202f% à 80\u202f%" in note
    assert "paires symétriques de 100\u202f% à 120\u202f%" in note  # 45+65=110, 20+100=120
    # beyond chance: a 80 and 15 on the diagonal (|Δ| > 22), the 120 pair is within 31
    assert "que ne le permet le hasard\u00a0: 2 sur 6" in note  # NC7 #13: « au-delà de… »
    assert "environ 50\u202f% moins" not in note.replace("en moyenne 50\u202f%", "")
    stats = stats_line(table, "fr")  # type: ignore[arg-type]
    assert stats.startswith("180 duels · durée moyenne\u00a0: 10,0 tours")  # typeset
    assert "clos au plafond de tours" in stats and "arbitre" not in stats


def test_balance_heatmap_layout() -> None:
    """C41: slanted headers when a label is wider than a square, no text cut at the right
    edge, a dark square's rate in white."""
    from rules.balance.render import svg_heatmap

    table = _table({k: (0 if k[0] != k[1] else 10) for k in
                    [(r, c) for r in "abc" for c in "abc"]})  # fmt: skip
    caption = "x" * 120
    svg = svg_heatmap(table, labels={"a": "Flamboyante", "b": "Protectrice", "c": "Sournoise"},
                      summary="", caption=caption)  # fmt: skip
    width = int(re.search(r'width="(\d+)"', svg).group(1))  # type: ignore[union-attr]
    assert width >= 120 * 6.6
    assert 'transform="rotate(-45' in svg
    assert 'fill="#ffffff">0' in svg  # 0 % on full blue: white ink
    assert 'fill="#000000">50' in svg  # 50 % on white: black ink


async def test_duo_duel_page_audit_and_dice_words(
    client: httpx.AsyncClient, duo: tuple[Storage, int]
) -> None:
    """C32: the 2v2 placement and room by their players' names, whole; C33: who rolled, the
    derivation behind « détails »; T6: « Duel n° 1 »; C31: several winners."""
    page = (await client.get(f"/duels/{duo[1]}")).text
    assert "Duel n°\u00a0" in page and "Duel n°1" not in page
    assert "Empreinte de la graine des dés" in page and "SHA-256 de la graine)" not in page
    assert "<td>l&#39;arbitre (bot)</td>" in page
    assert "<details><summary>détails</summary><code>hmac-sha256 v1" in page
    audit = page.split('<table class="audit">')[1]
    assert "en zone bibli" not in audit and "…" not in audit.split("placement")[1][:400]
    assert re.search(r"placement</span>\u00a0: <span class=\"after\">[^<]* en zone \d \(", audit)


def test_source_keeps_the_whole_seed_sentence() -> None:
    """T9: « deux dés "Duel". [...] la défense. » is quoted whole, inner quotes curly."""
    import rules.classic_sources as sources

    table = next(v for v in vars(sources).values() if isinstance(v, dict) and "classic.dice" in v)
    text = words().source(table["classic.dice"], "classic.dice")
    assert "deux dés \u201cDuel\u201d. [...] Le premier résultat" in text
    assert text.endswith("la défense.\u202f»")  # typeset like the posts


def test_page_words_for_tasks_notices_and_units() -> None:
    """C36: one colon; C35: the unit of a penalty; C37/C38/C43 are template text, checked on
    the rendered pages of test_web_app / test_web_drop / test_web_notify."""
    w = words()
    assert w.task_subject("Aurora Vexley tente : le cadran") == (
        "Aurora Vexley tente d'actionner le cadran"
    )
    assert w.unit("classic") == "PD" and w.unit("fatigue") == "PV"
    assert w.roller("forum") == "le forum"
    assert w.num(-17) == "\u221217" and w.num(3, signed=True) == "+3"


async def test_notify_page_gathering_sentence(client: httpx.AsyncClient) -> None:
    """C43: two sentences, no « ce qui arrive … attend le suivant »."""
    page = (await client.get("/me/notify")).text
    assert "Les avis arrivés moins de 15 min après le précédent sont regroupés dans le suivant" in (
        page
    )
    assert "attend le suivant" not in page


def test_countdown_and_drop_words() -> None:
    """C37, C38: the due countdown and the drop button (template and script alike)."""
    from pathlib import Path

    import forumbot.web as web
    from forumbot.i18n import translate

    here = Path(web.__file__).parent
    draft = (here / "templates" / "_draft.html").read_text(encoding="utf-8")
    script = (here / "static" / "countdown.js").read_text(encoding="utf-8")
    assert "dès maintenant" not in script and "au prochain passage" in script
    # the template's English messages, their French from the catalogue (issue 25)
    assert '_("Auto-publish at the next pass")' in draft and '_("Delete this draft")' in draft
    assert translate("fr", "Auto-publish at the next pass") == (
        "Publication automatique au prochain passage"
    )
    assert translate("fr", "Delete this draft") == "Supprimer ce brouillon"


def test_an_initiative_spell_waits_for_the_defense() -> None:
    """A fatigue initiative's attack (void reason ``pending``) is not « sans effet »."""
    pending = {"attacker": "Aurora Vexley", "defender": "Cassius Thorne", "spell": "Stupéfix",
               "landed": False, "damage": 0, "void_reason": "pending"}  # fmt: skip
    line = words().attack(pending, "fatigue", "PV")
    assert line == "Stupéfix d'Aurora Vexley vise Cassius Thorne\u00a0: résolu avec la défense"


def test_a_violation_detail_has_one_colon() -> None:
    """The classic repeated-spell detail with its proposal (page of tests/unit/web_scenario)."""
    got = trail_detail_fr(
        {
            "rule": "classic.repeated_spell",
            "detail": "post 106: Sortilège de Désarmement twice "
            "in a row; proposal: no effect, no damage; the defense die counts",
        }  # fmt: skip
    )
    assert got.startswith("message 106, Sortilège de Désarmement deux fois de suite")
    assert len(re.findall(r"\s:", got)) == 1


def test_page_de_before_a_creature_name() -> None:
    """C39: « PV du strangulot du bassin », « PV de la tentacula vénéneuse »; a name without
    an article and English are unchanged."""
    from forumbot.publish.render import of_name
    from forumbot.web.i18n import page_translator

    fr = page_translator("fr")
    assert fr("%s's PV", of_name("Le strangulot du bassin")) == "PV du strangulot du bassin"
    assert fr("%s's PV", of_name("La tentacula vénéneuse")) == "PV de la tentacula vénéneuse"
    assert fr("%s's PV", of_name("Aurora Vexley")) == "PV d'Aurora Vexley"
    assert fr("Duel #%s", 3) == "Duel n°\u00a03"
    assert page_translator("en")("Duel #%s", 3) == "Duel #3"


async def test_no_internal_name_nor_engine_english_on_the_2v2_pages(
    client: httpx.AsyncClient, duo: tuple[Storage, int]
) -> None:
    """C24-C26 on the rendered pages: the duel page and every draft page of the 2v2 fixture
    show no internal effect name and none of rules/' English trail phrases."""
    storage, duel_id = duo
    paths = [f"/duels/{duel_id}"] + [
        f"/drafts/{d['id']}" for d in storage.declarations(None, duel_id)
    ]
    banned = re.compile(
        r"damage_over_time|no_attack|no_dodge|damage_percent|\bward\b|\blands\b|\bby\b|"
        r"never below|displayed lines|\bturn\(s\)|still running|\blevel \d|\bdie \d"
    )
    trails = 0
    for path in paths:
        page = (await client.get(path)).text
        trails += "Pourquoi ces nombres" in page
        visible = re.sub(r'title="[^"]*"', "", page)  # the stored English stays in titles
        visible = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", visible, flags=re.S)
        found = banned.findall(re.sub(r"<[^>]+>", " ", visible))
        assert not found, (path, found)
    assert trails >= 2  # the turn drafts' rule trails were read
