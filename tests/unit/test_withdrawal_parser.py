"""parsers.withdrawal: the withdrawal phrases of a registration thread (issue 23 soak)."""

from __future__ import annotations

import pytest

from parsers.withdrawal import classify_withdrawal, find_withdrawal


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Je retire mon inscription", "retire"),
        ("Bonjour,\nje me désiste, désolé !", "desiste"),
        ("Désinscription", "desinscription"),
        ("Merci de me désinscrire du tournoi", "desinscription"),
        ("J'annule ma demande.", "annule"),
        ("J’annule ma participation", "annule"),
        ("finalement je ne participe plus", "ne_participe_plus"),
        ("Je ne pourrai finalement plus jouer... je ne participerai plus", "ne_participe_plus"),
        ("Retirez-moi de la liste svp", "retirez"),
        ("Annulez mon inscription", "retirez"),
    ],
)
def test_clear_withdrawals_are_read(text: str, phrase: str) -> None:
    found = find_withdrawal(text)
    assert found is not None and found.phrase == phrase
    assert classify_withdrawal(text, signup_readable=False) == ("withdrawal", found)


@pytest.mark.parametrize(
    "text",
    [
        "Nom : Aurora Vexley\nAnnée : 5e année\nType de magie : brutale",
        "Je retire ce que j'ai dit hier, voici ma fiche",
        "Je ne me désiste pas !",
        "Pas de désinscription pour moi, je reste",
        "Sans désistement possible une fois le duel lancé ?",
        "J'annule mon cours de potions pour venir",
        "Je participe !",
    ],
)
def test_other_posts_are_not_withdrawals(text: str) -> None:
    assert find_withdrawal(text) is None
    assert classify_withdrawal(text, signup_readable=True) is None


def test_a_withdrawal_with_a_whole_sign_up_is_for_a_referee() -> None:
    text = "Je retire mon inscription\nNom : Aurora\nAnnée : 5e année\nType de magie : brutale"
    verdict = classify_withdrawal(text, signup_readable=True)
    assert verdict is not None and verdict[0] == "unsure"
