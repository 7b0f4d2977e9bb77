"""Sign-up posts (seed 001: "Vous devrez y indiquer votre nom, votre année d'étude et votre type
de magie (2 types maximum [...]), ainsi que ceux de votre partenaire si vous en avez déjà choisi
un.")."""

from __future__ import annotations

import pytest

from forumbot.publish.typography import plain
from parsers.model import Post
from parsers.registration import Partner, Signup, SignupError, parse_signup, parse_year


def post(text: str, author: str = "Aurora Vexley") -> Post:
    return Post(7, author, 3, None, None, text, (), (), len(text.splitlines()))


def ok(text: str, author: str = "Aurora Vexley") -> Signup:
    result = parse_signup(post(text, author))
    assert isinstance(result, Signup), result
    return result


def err(text: str) -> SignupError:
    result = parse_signup(post(text))
    assert isinstance(result, SignupError), result
    return result


@pytest.mark.parametrize(
    ("text", "name", "year", "types"),
    [
        ("Nom : Aurora Vexley\nAnnée : 5e année\nType de magie : Brutale", "Aurora Vexley", "5",
         ("brutale",)),
        ("Nom: Aurora Vexley\nAnnée d'étude: 5ème\nTypes de magie: brutale et discrète",
         "Aurora Vexley", "5", ("brutale", "discrete")),
        ("NOM : Aurora\nANNEE : Cinquième\nTYPE(S) DE MAGIE : DISCRETE / flamboyant", "Aurora",
         "5", ("discrete", "flamboyante")),
        ("Prénom et nom : Héloïse de Montfort\nNiveau : 1ère année\nMagie : Protecteur",
         "Héloïse de Montfort", "1", ("protectrice",)),
        ("- Nom : Aurora\n- Année : adulte\n- Type de magie : sournois", "Aurora", "adult",
         ("sournoise",)),
        ("Nom : Aurora\nAnnée : 7\nType de magie : Brutale (agressive, féroce)", "Aurora", "7",
         ("brutale",)),
        ("Nom : Aurora\nAnnée : 2\nType de magie : sournoisse", "Aurora", "2", ("sournoise",)),
        ("Aurora Vexley, 5e année, brutale et sournoise.", "Aurora Vexley", "5",
         ("brutale", "sournoise")),
        ("Bonjour ! Je m'inscris pour une demande ouverte.\nJe suis en cinquième année, magie "
         "flamboyante.", "Aurora Vexley", "5", ("flamboyante",)),
        ("Je m'appelle Aurora Vexley, je suis en 3e année et ma magie est discrète.",
         "Aurora Vexley", "3", ("discrete",)),
    ],
)  # fmt: skip
def test_seed001_signup_gives_name_year_and_magic_types(
    text: str, name: str, year: str, types: tuple[str, ...]
) -> None:
    """seed 001: "Vous devrez y indiquer votre nom, votre année d'étude et votre type de magie" """
    s = ok(text)
    assert (s.name, s.year, s.magic_types) == (name, year, types)
    assert s.partner is None and s.is_open_request


@pytest.mark.parametrize(
    ("text", "partner"),
    [
        ("Nom : Aurora\nAnnée : 5\nType : brutale\n"
         "Partenaire : Cassius Thorne, 7e année, sournoise",
         Partner("Cassius Thorne", "7", ("sournoise",))),
        ("Nom : Aurora\nAnnée : 5\nType : brutale\n\nPartenaire :\nNom : Cassius\nAnnée : 4\n"
         "Type de magie : discret", Partner("Cassius", "4", ("discrete",))),
        ("Nom : Aurora\nAnnée : 5\nType : brutale\nNom du partenaire : Cassius Thorne\n"
         "Année du partenaire : 6\nType de magie du partenaire : Protectrice",
         Partner("Cassius Thorne", "6", ("protectrice",))),
        ("Aurora Vexley, 5e année, brutale.\nJe m'inscris avec Cassius Thorne (7e année, "
         "sournoise).", Partner("Cassius Thorne", "7", ("sournoise",))),
        ("Nom : Aurora\nAnnée : 5\nType : brutale\nAdversaire : Cassius Thorne",
         Partner("Cassius Thorne", None, ())),
        ("Nom : Aurora\nAnnée : 5\nMagie : brutale\nJe m'inscris contre Cassius Thorne.",
         Partner("Cassius Thorne", None, ())),
    ],
)  # fmt: skip
def test_seed001_partner_details_when_chosen(text: str, partner: Partner) -> None:
    """seed 001: "ainsi que ceux de votre partenaire si vous en avez déjà choisi un." """
    s = ok(text)
    assert s.partner == partner and not s.is_open_request


def test_name_defaults_to_author() -> None:
    assert ok("Année : 4\nType de magie : flamboyante", author="Cassius Thorne").name == (
        "Cassius Thorne"
    )


def test_seed001_two_magic_types_at_most() -> None:
    """seed 001: "votre type de magie (2 types maximum ...)" """
    e = err("Nom : Aurora\nAnnée : 5\nType de magie : brutale, discrète, sournoise")
    assert e.code == "too_many_magic_types"
    assert "deux types de magie au maximum" in e.message and "3" in e.message


def test_unknown_magic_type_message_lists_the_five() -> None:
    e = err("Nom : Aurora\nAnnée : 5\nType de magie : colérique")
    assert e.code == "unknown_magic_type" and "« colérique »" in plain(e.message)
    assert "brutale, discrète, flamboyante, protectrice, sournoise" in e.message


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Nom : Aurora\nType de magie : brutale", "missing_year"),
        ("Nom : Aurora\nAnnée : 9e année\nType : brutale", "invalid_year"),
        ("Nom : Aurora\nAnnée : je ne sais pas\nType : brutale", "invalid_year"),
        ("Nom : Aurora\nAnnée : 5", "missing_magic_type"),
        ("Nom : Aurora\nAnnée : 5\nType : brutale\nPartenaire : Cassius, 7e année, brutale, "
         "discrète, sournoise", "partner_too_many_magic_types"),
        ("Nom : Aurora\nAnnée : 5\nType : brutale\nPartenaire : Cassius, 12e année",
         "partner_invalid_year"),
    ],
)  # fmt: skip
def test_invalid_signups_get_a_french_message(text: str, code: str) -> None:
    e = err(text)
    assert e.code == code and e.post_id == 7
    assert e.message and e.message[0].isupper()


def test_parse_year_variants() -> None:
    assert [parse_year(t) for t in ("en 2nde année", "Septième année", "adulte", "15 ans")] == [
        "2",
        "7",
        "adult",
        None,
    ]
    assert parse_year("1re", labelled=True) == "1"
