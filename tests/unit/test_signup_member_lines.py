"""Issue 23: a 2v2 sign-up with one line per member is read, and so are the partner's year and
magic type written on the partner's own line; what stays truly ambiguous still goes to a
referee (a doubt). Pure (:func:`parsers.registration.parse_signup`)."""

from __future__ import annotations

import pytest

from parsers.model import Post
from parsers.registration import Partner, Signup, parse_signup
from parsers.signup_members import member_line

NERYS = ("Nerys Vale", "4", ("brutale",))


def read(text: str, author: str = "Nerys Vale") -> Signup:
    result = parse_signup(Post(7, author, 3, None, None, text, (), (), len(text.splitlines())))
    assert isinstance(result, Signup), result
    return result


@pytest.mark.parametrize(
    "text",
    [
        "Joueur 1 : Nerys Vale, 4e année, brutale\nJoueur 2 : Ysolde Marr, 5e année, discrète",
        "Inscription en deux contre deux !\nJoueuse 1 : Nerys Vale, 4e année, brutale\n"
        "Joueuse 2 : Ysolde Marr, 5e année, discrète",
        "Membre 1 : Nerys Vale (4e année, brutale)\nMembre 2 : Ysolde Marr (5e année, discrète)",
        "Duelliste n°1 : Nerys Vale - 4e année - brutale\n"
        "Duelliste n°2 : Ysolde Marr - 5e année - discrète",
        "Coéquipière 2 : Ysolde Marr, 5e année, discrète\n"
        "Coéquipière 1 : Nerys Vale, 4e année, brutale",  # the order does not matter
        "Notre duo :\n- Nerys Vale, 4e année, brutale\n- Ysolde Marr, 5e année, discrète",
        "1) Nerys Vale, 4e année, brutale\n2) Ysolde Marr, cinquième année, discrète",
        # the partner's details on her own line
        "Nom : Nerys Vale\nAnnée : 4e année\nType de magie : brutale\nPartenaire : Ysolde Marr\n"
        "Ysolde Marr, 5e année, discrète",
        "Je m'inscris avec Ysolde Marr.\nNerys Vale, 4e année, brutale\n"
        "Ysolde Marr (5e année, discrète)",
        "Nerys Vale, 4e année, brutale\nPartenaire : Ysolde Marr\n5e année, discrète",
    ],
)
def test_one_line_per_member_is_read(text: str) -> None:
    s = read(text)
    assert (s.name, s.year, s.magic_types) == NERYS
    assert s.partner == Partner("Ysolde Marr", "5", ("discrete",))
    assert s.doubts == ()


def test_labelled_lines_still_win_over_a_member_line() -> None:
    s = read(
        "Nom : Nerys Vale\nAnnée : 6e année\nType de magie : brutale\n"
        "Joueur 1 : Nerys Vale, 4e année, discrète\nJoueur 2 : Ysolde Marr, 5e, discrète"
    )
    assert (s.year, s.magic_types) == ("6", ("brutale",))
    assert s.partner == Partner("Ysolde Marr", "5", ("discrete",))


def test_a_single_line_1v1_sign_up_reads_as_before() -> None:
    s = read("Nerys Vale, 4e année, brutale")
    assert (s.name, s.year, s.magic_types, s.partner, s.doubts) == NERYS + (None, ())


@pytest.mark.parametrize(
    ("text", "author", "doubt"),
    [
        # no member line is the poster's: whose details are these?
        ("Joueur 1 : Sol Ravel, 4e année, brutale\nJoueur 2 : Ysolde Marr, 5e année, discrète",
         "Nerys Vale", "whose_details"),
        # a labelled partner and a member line naming someone else
        ("Nom : Nerys Vale\nAnnée : 4\nType : brutale\nPartenaire : Ysolde Marr, 5e, discrète\n"
         "Joueur 2 : Odric Fenwick, 6e année, flamboyant", "Nerys Vale", "several_partners"),
        # three duellists listed for a duo
        ("Joueur 1 : Nerys Vale, 4e année, brutale\nJoueur 2 : Ysolde Marr, 5e année, discrète\n"
         "Joueur 2 : Odric Fenwick, 6e année, flamboyant", "Nerys Vale", "several_partners"),
    ],
)
def test_truly_ambiguous_member_lines_go_to_a_referee(text: str, author: str, doubt: str) -> None:
    assert doubt in read(text, author).doubts


def test_member_line_shapes() -> None:
    assert member_line("Joueur 2 : Ysolde Marr, 4e année, discrète") == (
        2, "Ysolde Marr", "Ysolde Marr, 4e année, discrète")  # fmt: skip
    assert member_line("Bonjour, je m'inscris") is None
    assert member_line("Nom : Nerys Vale") is None
    assert member_line("Enjeux : 5 gallions") is None
