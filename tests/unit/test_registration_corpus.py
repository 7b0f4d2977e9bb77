"""A corpus of sign-ups written the way players write them (issue 15: "labelled and free text;
« 5e / 5ème / cinquième / 5 » and « adulte »; one or two types, with typos; partner inline, in a
block, or by a free phrase; 1v1 and 2v2; « un contre un » and « deux contre deux » in every
position; emoji, upper case, a quoted earlier sign-up, a signature"). Each case states the
reading expected.

Posts given as HTML go through :func:`parsers.htmltext.own_text` as the page parsers do (the
quoted earlier sign-up and the signature are not the post's own text).
"""

from __future__ import annotations

from dataclasses import dataclass

import lxml.html
import pytest

from parsers.htmltext import own_text
from parsers.model import Post
from parsers.registration import Signup, SignupError, parse_signup


@dataclass(frozen=True)
class Reading:
    """What a person reads in the sign-up."""

    name: str
    year: str
    types: tuple[str, ...]
    partner: tuple[str, str | None, tuple[str, ...], str] | None = None  # name, year, types, source
    kind: str | None = None
    stakes: str | None = None
    doubts: tuple[str, ...] = ()


M = "Maelis Dunbar"
B, D, F, P, S = "brutale", "discrete", "flamboyante", "protectrice", "sournoise"

CASES: list[tuple[str, str, Reading | str]] = [
    # -- the sign-up of the issue, and the formats in every position --
    ("issue_maelis", "Je m'inscris pour un duel en un contre un.\nNom : Maelis Dunbar\n"
     "Année : 6e année\nType de magie : discrète\nPartenaire : Odric Fenwick, 5e année, flamboyant",
     Reading(M, "6", (D,), ("Odric Fenwick", "5", (F,), "label"), kind="1v1")),
    ("format_first", "Un contre un ! Nom : Maelis\nAnnée : 5\nType : brutale",
     Reading("Maelis", "5", (B,), kind="1v1")),
    ("format_last", "Nom : Maelis Dunbar\nAnnée : 4e\nType de magie : sournoise\n"
     "Je cherche un adversaire pour un un contre un", Reading(M, "4", (S,), kind="1v1")),
    ("format_middle_free", "Bonjour, je voudrais un duel en un contre un contre n'importe qui, "
     "je suis en 3e année, magie protectrice.", Reading(M, "3", (P,), kind="1v1")),
    ("format_upper", "JE M'INSCRIS EN UN CONTRE UN CONTRE N'IMPORTE QUI !! 5EME ANNÉE, BRUTALE",
     Reading(M, "5", (B,), kind="1v1")),
    ("format_digits", "1v1 svp\nNom : Maelis\nAnnée : 2nde année\nMagie : discret",
     Reading("Maelis", "2", (D,), kind="1v1")),
    ("format_2v2_first", "Deux contre deux avec Odric Fenwick (5e année, protecteur). "
     "Je suis en 4e année, sournoise.", Reading(M, "4", (S,), ("Odric Fenwick", "5", (P,), "free"),
                                                 kind="2v2")),
    ("format_2v2_last", "Nom : Maelis\nAnnée : 7\nType de magie : flamboyante\n"
     "Coéquipier : Cassius Thorne, 7e année, brutal\nPour le deux contre deux !",
     Reading("Maelis", "7", (F,), ("Cassius Thorne", "7", (B,), "label"), kind="2v2")),
    ("format_2v2_upper_middle", "Salut, inscription DEUX CONTRE DEUX : je suis en cinquième année, "
     "magie discrète, sans coéquipier pour l'instant.", Reading(M, "5", (D,), kind="2v2")),
    ("format_2vs2", "2 vs 2\nNom : Maelis Dunbar\nAnnée : adulte\nTypes : protectrice / brutale",
     Reading(M, "adult", (P, B), kind="2v2")),
    ("both_formats", "Un contre un ou deux contre deux, peu importe !\nAnnée : 5\nType : brutale",
     Reading(M, "5", (B,), doubts=("several_kinds",))),
    # -- years --
    ("year_5e", "Nom : Maelis\nAnnée : 5e\nType : brutale", Reading("Maelis", "5", (B,))),
    ("year_5eme", "Nom : Maelis\nAnnée : 5ème année\nType : brutale", Reading("Maelis", "5", (B,))),
    ("year_word", "Nom : Maelis\nAnnée : Cinquième\nType : brutale", Reading("Maelis", "5", (B,))),
    ("year_bare", "Nom : Maelis\nAnnée : 5\nType : brutale", Reading("Maelis", "5", (B,))),
    ("year_adult", "Nom : Maelis\nAnnée : Adulte (professeure de potions)\nType : brutale",
     Reading("Maelis", "adult", (B,))),
    ("year_free_bare_ordinal", "Maelis Dunbar, 5ème, flamboyante et discrète",
     Reading(M, "5", (F, D))),
    ("year_free_adult", "Je suis adulte, magie sournoise, demande ouverte.",
     Reading(M, "adult", (S,))),
    ("year_invalid", "Nom : Maelis\nAnnée : 9e\nType : brutale", "invalid_year"),
    ("year_missing", "Nom : Maelis\nType : brutale", "missing_year"),
    ("two_free_years", "Je suis en 5e année. Enfin, en 6e année depuis la rentrée. Magie brutale.",
     Reading(M, "5", (B,), doubts=("several_years",))),
    ("label_year_wins", "Je suis en 3e année l'an dernier...\nAnnée : 4e année\nType : brutale",
     Reading(M, "4", (B,))),
    # -- magic types --
    ("types_two_typos", "Nom : Maelis\nAnnée : 5\nType de magie : brutalle et discète",
     Reading("Maelis", "5", (B, D))),
    ("types_typo_flamboyente", "Nom : Maelis\nAnnée : 5\nMagie : flamboyente",
     Reading("Maelis", "5", (F,))),
    ("types_three", "Nom : Maelis\nAnnée : 5\nTypes : brutale, discrète, sournoise",
     "too_many_magic_types"),
    ("types_unknown", "Nom : Maelis\nAnnée : 5\nType de magie : colérique", "unknown_magic_type"),
    ("label_types_win", "J'ai une magie plutôt brutale je crois\nNom : Maelis\nAnnée : 5\n"
     "Type de magie : protectrice", Reading("Maelis", "5", (P,))),
    # -- partners: inline, block, free phrase, nobody --
    ("partner_block", "Nom : Maelis\nAnnée : 5\nType : brutale\n\nPartenaire :\n"
     "Nom : Odric Fenwick\nAnnée : 5ème\nType de magie : flamboyant",
     Reading("Maelis", "5", (B,), ("Odric Fenwick", "5", (F,), "label"))),
    ("partner_inline_parens", "Nom : Maelis\nAnnée : 5\nType : brutale\n"
     "Adversaire : Cassius Thorne (7e année, sournois)",
     Reading("Maelis", "5", (B,), ("Cassius Thorne", "7", (S,), "label"))),
    ("partner_suffix_labels", "Nom : Maelis\nAnnée : 5\nType : brutale\n"
     "Nom de l'adversaire : Cassius Thorne\nAnnée de l'adversaire : 6\n"
     "Type de magie de l'adversaire : protecteur",
     Reading("Maelis", "5", (B,), ("Cassius Thorne", "6", (P,), "label"))),
    ("partner_free_defie", "Coucou ✨ je défie Odric Fenwick 😈 ! Moi c'est Maelis, 5ème, "
     "flamboyante.", Reading(M, "5", (F,), ("Odric Fenwick", None, (), "free"))),
    ("partner_free_avec", "Je m'inscris avec Cassius Thorne (7e année, sournoise). Je suis en "
     "5e année, magie brutale.", Reading(M, "5", (B,), ("Cassius Thorne", "7", (S,), "free"))),
    ("whose_details", "Je défie Cassius Thorne, 5e année, brutale.",
     Reading(M, "5", (B,), ("Cassius Thorne", None, (), "free"), doubts=("whose_details",))),
    ("partner_free_contre_lowercase", "je m'inscris contre odric, 5e année, brutale",
     Reading(M, "5", (B,))),
    ("partner_label_wins", "Je m'inscris contre Cassius Thorne !\nAnnée : 5\nType : brutale\n"
     "Adversaire : Odric Fenwick", Reading(M, "5", (B,), ("Odric Fenwick", None, (), "label"))),
    ("partner_none", "Nom : Maelis\nAnnée : 5\nType : brutale\nPartenaire : aucun",
     Reading("Maelis", "5", (B,))),
    ("partner_personne", "Nom : Maelis\nAnnée : 5\nType : brutale\nAdversaire : personne",
     Reading("Maelis", "5", (B,))),
    ("partner_pas_encore", "Nom : Maelis\nAnnée : 5\nType : brutale\nCoéquipier : pas encore !",
     Reading("Maelis", "5", (B,))),
    ("partner_label_un", "Nom : Maelis\nAnnée : 5\nType : brutale\nAdversaire : un adversaire au "
     "hasard", Reading("Maelis", "5", (B,))),
    ("partner_label_quelquun", "Nom : Maelis\nAnnée : 5\nType : brutale\nPartenaire : quelqu'un "
     "de 5e année", Reading("Maelis", "5", (B,))),
    ("partner_premier_venu", "5e année, brutale, contre le premier venu", Reading(M, "5", (B,))),
    ("partner_personne_free", "5e année, brutale. Je ne connais personne, contre Personne alors !",
     Reading(M, "5", (B,))),
    ("two_free_partners", "5e année, brutale. Je défie Odric Fenwick, ou sinon contre "
     "Cassius Thorne.", Reading(M, "5", (B,), ("Odric Fenwick", None, (), "free"),
                                doubts=("several_partners",))),
    ("open_and_partner", "Demande ouverte ! 5e année, brutale. Sinon je défie Odric Fenwick.",
     Reading(M, "5", (B,), ("Odric Fenwick", None, (), "free"), doubts=("open_and_partner",))),
    ("partner_no_name", "Nom : Maelis\nAnnée : 5\nType : brutale\nPartenaire :",
     "partner_missing_name"),
    # -- stakes --
    ("stakes_line", "Nom : Maelis\nAnnée : 5\nType : brutale\nEnjeux : 10 gallions",
     Reading("Maelis", "5", (B,), stakes="10 gallions")),
    ("stakes_mid_line", "Maelis Dunbar, 5e année, brutale. Enjeux : une chocogrenouille",
     Reading(M, "5", (B,), stakes="une chocogrenouille")),
    ("stakes_none", "Nom : Maelis\nAnnée : 5\nType : brutale\nEnjeux : aucun",
     Reading("Maelis", "5", (B,))),
    # -- upper case, emoji, names --
    ("upper_labels", "NOM : MAELIS DUNBAR\nANNÉE : 5ÈME\nTYPE DE MAGIE : BRUTALE ET SOURNOISE",
     Reading(M, "5", (B, S))),
    ("emoji_labels", "🔥 Nom : Maelis Dunbar 🔥\n✨ Année : 6 ✨\n💫 Type de magie : discrète 💫",
     Reading(M, "6", (D,))),
    ("first_name_free", "Moi c'est Maelis ! En 2e année, magie sournoise.", Reading(M, "2", (S,))),
]  # fmt: skip

HTML_CASES: list[tuple[str, str, Reading | str]] = [
    ("quoted_earlier_signup",
     '<div class="content"><blockquote cite="./viewtopic.php?p=40#p40"><div><cite>Odric Fenwick '
     "a écrit :</cite>Nom : Odric Fenwick<br>Année : 5<br>Type : flamboyant<br>Demande ouverte"
     "</div></blockquote>J'accepte ! Je suis en 6e année, magie discrète.</div>",
     Reading(M, "6", (D,))),
    ("signature",
     '<div class="content">Nom : Maelis Dunbar<br>Année : 5e année<br>Type de magie : brutale'
     '</div><div class="signature">Maelis Dunbar ✨ 7e année à Serdaigle, magie sournoise ✨</div>',
     Reading(M, "5", (B,))),
    ("quote_and_signature_2v2",
     '<div class="content"><blockquote><div><cite>Cassius Thorne a écrit :</cite>Je cherche un '
     "coéquipier, 7e année, brutal</div></blockquote>Deux contre deux avec Cassius Thorne ! "
     'Moi : 4e année, protectrice.</div><div class="signature">-- Maelis, préfète</div>',
     Reading(M, "4", (P,), ("Cassius Thorne", None, (), "free"), kind="2v2")),
]  # fmt: skip


def _text_of(html: str) -> str:
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    content = root.find(".//div[@class='content']")
    own = own_text(content if content is not None else root)
    return own


def _read(text: str, author: str = M) -> Signup | SignupError:
    return parse_signup(Post(41, author, 60, None, None, text, (), (), len(text.splitlines())))


def _check(result: Signup | SignupError, expected: Reading | str) -> None:
    if isinstance(expected, str):
        assert isinstance(result, SignupError), result
        assert result.code == expected, result
        return
    assert isinstance(result, Signup), result
    partner = (
        None
        if result.partner is None
        else (result.partner.name, result.partner.year, result.partner.magic_types,
              result.partner.source)
    )  # fmt: skip
    got = Reading(result.name, result.year, result.magic_types, partner, result.kind,
                  result.stakes, result.doubts)  # fmt: skip
    assert got == expected


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) + len(HTML_CASES) >= 40


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_signup_corpus(text: str, expected: Reading | str) -> None:
    _check(_read(text), expected)


@pytest.mark.parametrize(
    ("html", "expected"), [c[1:] for c in HTML_CASES], ids=[c[0] for c in HTML_CASES]
)
def test_signup_corpus_from_pages(html: str, expected: Reading | str) -> None:
    _check(_read(_text_of(html)), expected)
