"""Post -> Action: spell matching, bets, action kind, target, move (parsers.action)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import parsers.action
import parsers.detect
import parsers.text
from parsers.action import (
    SpellMatcher,
    is_label,
    parse_action,
    parse_bet_line,
    parse_kind,
    parse_move_line,
    parse_target_line,
)
from parsers.model import Action, Post
from parsers.phpbb import parse_topic_page
from parsers.text import count_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"

CLASSIC = {
    "Sortilège de Feu": [],
    "Sortilège de Désarmement": ["Expelliarmus"],
    "Sortilège de Chatouillis": [],
    "Sortilège de Découpe": [],
    "Sortilège de Glace": [],
    "Maléfice du Pot de Colle": [],
    "Sortilège de Confusion": [],
    "Sortilège de chant": [],
    "Apparition d'insectes": [],
    "Charme du Bouclier": ["Protego"],
    "Antisort Général": [],
}
DUEL1 = {
    "Lance de givre": [],
    "Bouclier de cendres": [],
    "Tempête d'aiguilles": [],
    "Flamme noire": [],
    "Miroir de glace": [],
    "Pluie de cendres": [],
    "Prison de givre": [],
    "Souffle du phénix": ["Phénix"],
    "Hiver éternel": [],
    "Dernier brasier": [],
}


def make_post(text: str, bold: tuple[str, ...] = ()) -> Post:
    return Post(
        post_id=1,
        author="Éloïse Brumerive",
        author_id=14,
        posted_at=None,
        edited=None,
        text=text,
        bold=bold,
        quotes=(),
        line_count=count_lines(text),
    )


@pytest.mark.parametrize("module", [parsers.action, parsers.text, parsers.detect])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0


# -- spells -----------------------------------------------------------------------------------

CLASSIC_MATCHES = [
    ("Sortilège de Feu", "Sortilège de Feu"),
    ("sortilege de feu", "Sortilège de Feu"),
    ("SORTILEGE DE FEU", "Sortilège de Feu"),
    ("Sortilege de feux", "Sortilège de Feu"),
    ("Sortilège du Feu", "Sortilège de Feu"),
    ("Sort : Sortilège de Feu", "Sortilège de Feu"),
    ("« Sortilège de Feu » !", "Sortilège de Feu"),
    ("sortilege de desarment", "Sortilège de Désarmement"),
    ("expelliarmus", "Sortilège de Désarmement"),
    ("Sortilège de Chatouille", "Sortilège de Chatouillis"),
    ("Sortilege de decoupe!", "Sortilège de Découpe"),
    ("Sortillège de Glace", "Sortilège de Glace"),
    ("Sortilège de Glasse", "Sortilège de Glace"),
    ("Malefice du pot de colle", "Maléfice du Pot de Colle"),
    ("Maléfice du Pot de Cole", "Maléfice du Pot de Colle"),
    ("Sortilège de Confution", "Sortilège de Confusion"),
    ("Sortilege de Chant", "Sortilège de chant"),
    ("sortilège de chants", "Sortilège de chant"),
    ("Aparition d'insecte", "Apparition d'insectes"),
    ("Apparition d’insectes", "Apparition d'insectes"),
    ("Charme du bouclié", "Charme du Bouclier"),
    ("Charm du Bouclier", "Charme du Bouclier"),
    ("Charme bouclier", "Charme du Bouclier"),
    ("PROTEGO", "Charme du Bouclier"),
    ("antisort general", "Antisort Général"),
]


@pytest.mark.parametrize(("bold", "canonical"), CLASSIC_MATCHES)
def test_classic_spells_with_typos_and_missing_accents(bold: str, canonical: str) -> None:
    assert SpellMatcher(CLASSIC).match(bold) == canonical


@pytest.mark.parametrize(
    "bold",
    [
        "Feu",  # a fragment: WRatio's partial match gives 90
        "Glace",
        "Bouclier",
        "Pot de colle",
        "Sort :",
        "Sortilège",
        "Sortilège de",
        "Sortilège de Foudre",  # WRatio 86 against "Sortilège de Feu"
        "Maléfice de Glace",
        "Lance de givre",  # WRatio 86 against "Sortilège de Désarmement" (partial)
        "Victoire d'Aurora Vexley",
        "victoire",
    ],
)
def test_classic_false_positives_are_rejected(bold: str) -> None:
    assert SpellMatcher(CLASSIC).match(bold) is None


def test_feu_and_glace_are_never_confused() -> None:
    m = SpellMatcher(CLASSIC)
    assert m.match("Sortilège de Feu") == "Sortilège de Feu"
    assert m.match("Sortilège de Glace") == "Sortilège de Glace"
    assert m.match("Sortilege de Glace") != "Sortilège de Feu"


def test_ambiguous_text_matches_nothing() -> None:
    m = SpellMatcher({"Rayon de lune": [], "Rayon de lume": []})
    assert m.match("Rayon de lune") == "Rayon de lune"  # exact wins
    assert m.match("Rayon de lu") is None  # both score the same


def test_generic_word_not_shared_still_does_not_decide() -> None:
    # One-spell book: "sortilège" is generic, so "Foudre" is compared with "Feu".
    m = SpellMatcher({"Sortilège de Feu": []})
    assert m.match("Sortilège de Foudre") is None
    assert m.match("Sortilège de Feux") == "Sortilège de Feu"


def test_threshold_is_a_parameter() -> None:
    post = make_post("Je lance.\nSortilege de feux", ("Sortilege de feux",))
    assert parse_action(post, CLASSIC).spell == "Sortilège de Feu"
    assert parse_action(post, CLASSIC, threshold=99.0).spell is None


# -- the real duel posts ------------------------------------------------------------------------

# post id -> (spell, unknown_bold) with the DUEL1 spellbook
REAL_SPELLS = {
    3: ("Lance de givre", ()),
    4: ("Bouclier de cendres", ()),
    7: ("Tempête d'aiguilles", ()),
    8: ("Flamme noire", ()),
    12: ("Miroir de glace", ()),
    13: ("Pluie de cendres", ()),
    17: ("Prison de givre", ()),
    18: ("Souffle du phénix", ()),
    22: ("Hiver éternel", ()),
    23: ("Dernier brasier", ()),
    24: (None, ("Victoire d'Aurora Vexley",)),
    25: (None, ("victoire",)),
}


def real_posts() -> dict[int, Post]:
    posts: dict[int, Post] = {}
    for name in (
        "viewtopic_t2_page1_fr.html",
        "viewtopic_t2_page2_fr.html",
        "viewtopic_t2_page3_fr.html",
    ):
        page = parse_topic_page((FIXTURES / name).read_bytes(), name)
        posts.update({p.post_id: p for p in page.posts})
    return posts


def test_real_posts_spells_with_duel_spellbook() -> None:
    posts = real_posts()
    assert len(posts) == 26
    for post_id, post in posts.items():
        action = parse_action(post, DUEL1)
        spell, unknown = REAL_SPELLS.get(post_id, (None, ()))
        assert (action.spell, action.unknown_bold) == (spell, unknown), post_id
        # none of the real posts carries a bet, an action line, a target or a move
        assert (action.bet, action.kind, action.target, action.move_to) == (None,) * 4, post_id


def test_real_post_quoting_a_spell_only_counts_its_own() -> None:
    posts = real_posts()
    # p4 quotes Aurora's "Lance de givre" and casts "Bouclier de cendres"
    assert parse_action(posts[4], DUEL1) == Action(
        spell="Bouclier de cendres", spell_text="Bouclier de cendres"
    )
    # p9 (referee) quotes Cassius' "Flamme noire": no spell of its own
    assert parse_action(posts[9], DUEL1).spell is None


def test_real_posts_with_typos_in_the_spellbook_names() -> None:
    posts = real_posts()
    typo_book = {"Lance de givres": [], "Bouclier de cendre": [], "Tempete d'aiguille": []}
    assert parse_action(posts[3], typo_book).spell == "Lance de givres"
    assert parse_action(posts[4], typo_book).spell == "Bouclier de cendre"
    assert parse_action(posts[7], typo_book).spell == "Tempete d'aiguille"
    assert parse_action(posts[8], typo_book).spell is None
    assert parse_action(posts[8], typo_book).unknown_bold == ("Flamme noire",)


def test_real_posts_against_classic_spellbook_are_unknown() -> None:
    posts = real_posts()
    action = parse_action(posts[3], CLASSIC)
    assert action.spell is None
    assert action.spell_text == "Lance de givre"
    assert action.unknown_bold == ("Lance de givre",)


# -- bets ---------------------------------------------------------------------------------------

BET_LINES = [
    ("[3,4,5,6]", (3, 4, 5, 6)),
    ("[3-4-5-6]", (3, 4, 5, 6)),
    ("3456", (3, 4, 5, 6)),
    ("Pari : 3,4,5,6", (3, 4, 5, 6)),
    ("Pari: [1, 2, 3]", (1, 2, 3)),
    ("pari 4-5-6", (4, 5, 6)),
    ("PARI : [1,2,3,4].", (1, 2, 3, 4)),
    ("Pari : [6,5,4]", (4, 5, 6)),
    ("Pari : [4,4,5,6]", (4, 5, 6)),
    ("Bet: [1,2]", (1, 2)),
    ("Pari : 5", (5,)),
    ("- Pari : 1/2/3", (1, 2, 3)),
    ("Je parie sur 4, 5 et 6", (4, 5, 6)),
    ("**[1,2,3]**", (1, 2, 3)),
    ("Sortilège de Feu [3,4,5,6]", (3, 4, 5, 6)),
    ("Action : esquiver | Pari : [1,2,3,4]", (1, 2, 3, 4)),
    ("5", None),
    ("[7,8]", None),
    ("Pari : [0,1]", None),
    ("Pari : sur Aurora", None),
    ("Aurora Vexley : 20 PV", None),
    ("Nombre de tours : 5", None),
    ("(ex. Pari : [1,2])", None),
    ("— Terminez par votre pari (ex. Pari : [1,2]) ou par votre action", None),
    ("Je vise [la tête] de Cassius", None),
]


@pytest.mark.parametrize(("line", "bet"), BET_LINES)
def test_bet_lines(line: str, bet: tuple[int, ...] | None) -> None:
    assert parse_bet_line(line) == bet


@given(st.text(max_size=60))
def test_bet_line_never_raises_and_gives_clean_faces(line: str) -> None:
    bet = parse_bet_line(line)
    if bet is not None:
        assert list(bet) == sorted(set(bet))
        assert all(1 <= face <= 6 for face in bet)


def test_bet_prefers_the_bottom_of_the_post() -> None:
    text = "Pari : [1,2,3,4]\nJe change d'avis.\nSortilège de Feu\nPari : [3,4,5,6]"
    assert parse_action(make_post(text), CLASSIC).bet == (3, 4, 5, 6)


# -- kind, target, move -------------------------------------------------------------------------

KIND_LINES = [
    ("Action : lancer un sort", "cast"),
    ("Action : esquiver", "dodge"),
    ("Action : esquive", "dodge"),
    ("Action : esquiver et riposter", "dodge_riposte"),
    ("Action : esquive-riposte", "dodge_riposte"),
    ("Action : riposte", "dodge_riposte"),
    ("Action: cast", "cast"),
    ("Action: dodge", "dodge"),
    ("Action: dodge and riposte", "dodge_riposte"),
    ("Esquive !", "dodge"),
    ("J'esquive.", "dodge"),
    ("Esquive et riposte", "dodge_riposte"),
    ("*esquive-riposte*", "dodge_riposte"),
    ("Je lance un sort", "cast"),
    ("Action : parer", None),
    ("Elle esquive de justesse le sort de Cassius.", None),
    ("La riposte de Cassius était bien pensée.", None),
]


@pytest.mark.parametrize(("line", "kind"), KIND_LINES)
def test_kind_from_footer_line(line: str, kind: str | None) -> None:
    assert parse_action(make_post(f"Un récit.\n{line}"), CLASSIC).kind == kind


@pytest.mark.parametrize(
    ("value", "kind"),
    [("lancer un sort", "cast"), ("Esquiver", "dodge"), ("esquive riposte", "dodge_riposte")],
)
def test_parse_kind(value: str, kind: str) -> None:
    assert parse_kind(value) == kind


@pytest.mark.parametrize(
    ("line", "target", "move"),
    [
        ("Cible : Cassius Thorne", "Cassius Thorne", None),
        ("cible: moi-même.", "moi-même", None),
        ("Déplacement : zone 2", None, "zone 2"),
        ("Deplacement: zone 3", None, "zone 3"),
        ("Se déplacer vers la zone 1", None, "la zone 1"),
        ("Je me déplace vers zone 4 !", None, "zone 4"),
        ("Cible : Théodric | Déplacement : zone 2", "Théodric", "zone 2"),
        ("Je vise la cible", None, None),
    ],
)
def test_target_and_move_lines(line: str, target: str | None, move: str | None) -> None:
    assert parse_target_line(line) == target
    assert parse_move_line(line) == move


def test_labels_are_not_unknown_bold() -> None:
    assert [is_label(b) for b in ("Sort :", "Action :", "Cible :", "Pari :", "Déplacement :")] == [
        True
    ] * 5
    text = "Récit.\nSort : Sortilège de Feu\nCible : Théodric\nPari : [3,4,5,6]"
    post = make_post(text, ("Sort :", "Sortilège de Feu", "Cible :", "Pari :"))
    action = parse_action(post, CLASSIC)
    assert action == Action(
        spell="Sortilège de Feu",
        spell_text="Sortilège de Feu",
        unknown_bold=(),
        bet=(3, 4, 5, 6),
        kind=None,
        target="Théodric",
        move_to=None,
    )


def test_last_matching_bold_is_the_spell_and_others_are_unknown() -> None:
    post = make_post(
        "Je pense au Sortilège de Glace.\nMais je lance :\nSortilège de Feu",
        ("Sortilège de Glace", "Tourbillon", "Sortilège de Feu", "enfin"),
    )
    action = parse_action(post, CLASSIC)
    assert action.spell == "Sortilège de Feu"
    assert action.spell_text == "Sortilège de Feu"
    assert action.unknown_bold == ("Tourbillon", "enfin")


def test_no_bold_no_footer_gives_empty_action() -> None:
    assert parse_action(make_post("Belle riposte de Cassius."), CLASSIC) == Action()


# -- the referee's rules text trap (Forumactif built thread, post 301) ----------------------------

RULES_POST = """Bienvenue à tous dans l'arène du Club de Duel !
Aujourd'hui s'affrontent Éloïse Brumerive et Théodric Vermillon.
Règles du duel
— Chaque duelliste poste à son tour, un seul sortilège par message.
— Le nom du sort doit figurer en gras à la fin du message.
— Terminez par votre pari (ex. Pari : [1,2]) ou par votre action (Action : esquiver, \
Déplacement : zone 2).
— Le Maître du Jeu lance le Dé du Duel après chaque message.
— Trois touches et le duel est terminé.
Que le meilleur gagne, et pas de sortilèges interdits ce soir !"""


def test_rules_text_in_the_middle_is_not_an_action() -> None:
    action = parse_action(make_post(RULES_POST, ("Règles du duel",)), CLASSIC)
    assert action == Action(spell_text="Règles du duel", unknown_bold=("Règles du duel",))


def test_rule_lines_as_whole_lines_in_the_middle_are_outside_the_footer() -> None:
    text = "Rappel des règles :\nAction : esquiver\nPari : [1,2]\nCible : l'arbitre\n" + "\n".join(
        f"Ligne de récit {i}." for i in range(1, 7)
    )
    post = make_post(text)
    assert parse_action(post, CLASSIC) == Action()
    # a wider footer window reaches them: the window is a parameter
    wide = parse_action(post, CLASSIC, footer_lines=12)
    assert (wide.kind, wide.bet, wide.target) == ("dodge", (1, 2), "l'arbitre")


def test_duel_post_with_footer() -> None:
    lines = [f"Ligne de récit {i}." for i in range(1, 13)]
    text = "\n".join([*lines, "Sortilège de Feu", "Action : lancer un sort", "Pari : [3,4,5,6]"])
    action = parse_action(make_post(text, ("Sortilège de Feu",)), CLASSIC)
    assert action == Action(
        spell="Sortilège de Feu",
        spell_text="Sortilège de Feu",
        bet=(3, 4, 5, 6),
        kind="cast",
    )


def test_dodge_riposte_post_with_move() -> None:
    text = (
        "Théodric roule sur le côté.\nIl pointe sa baguette.\nCharme du Bouclier\n"
        "Action : esquiver et riposter\nDéplacement : zone 3\nPari : [4,5,6]"
    )
    action = parse_action(make_post(text, ("Charme du Bouclier",)), CLASSIC)
    assert (action.spell, action.kind, action.bet, action.move_to) == (
        "Charme du Bouclier",
        "dodge_riposte",
        (4, 5, 6),
        "zone 3",
    )
