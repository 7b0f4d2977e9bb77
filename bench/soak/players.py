"""The soak's players: names, profiles, and the sign-up phrasings of the corpus the desk reads
(``tests/unit/test_registration_corpus.py``: labelled, free text, emoji, year in words, partner
inline / in a block / by a free phrase, stakes), plus the withdrawals and invalid sign-ups
players write.

Duel posts are the season demo's (:func:`forumbot.demo.season.duel_text` from
:func:`forumbot.demo.season.next_post`): always legal, from the duel's state in force.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST = ("Aurora", "Cassius", "Maelis", "Odric", "Perrine", "Quentin", "Rosalind", "Silas",
         "Nerys", "Ysolde", "Blaise", "Dorian", "Elouan", "Faustine", "Gaspard", "Hortense",
         "Ignace", "Jasmine", "Killian", "Léonie")  # fmt: skip
LAST = ("Vexley", "Thorne", "Dunbar", "Fenwick", "Lowell", "Ashby", "Moor", "Wren", "Corvin",
        "Pike")  # fmt: skip
TYPES = ("brutale", "discrète", "flamboyante", "protectrice", "sournoise")
YEAR_WORDS = {1: "Première", 2: "Deuxième", 3: "Troisième", 4: "Quatrième", 5: "Cinquième",
              6: "Sixième", 7: "Septième"}  # fmt: skip
WITHDRAWALS = (
    "Finalement je retire mon inscription, désolé !",
    "Je ne suis plus disponible ce mois-ci, retirez-moi de la liste.",
)


@dataclass
class Player:
    """A player: account name, year (1-7), magic types."""

    name: str
    year: int
    types: tuple[str, ...]

    @property
    def first(self) -> str:
        """The first name."""
        return self.name.split()[0]


def make_players(count: int, rng: random.Random) -> list[Player]:
    """``count`` distinct players (up to 200), random years and one or two types."""
    names = [f"{f} {last}" for last in LAST for f in FIRST]
    rng.shuffle(names)
    out = []
    for name in names[:count]:
        types = tuple(rng.sample(TYPES, 2 if rng.random() < 0.25 else 1))
        out.append(Player(name, rng.randint(2, 7), types))
    return out


def _types(p: Player) -> str:
    return " et ".join(p.types)


def signup_text(rng: random.Random, me: Player, partner: Player | None, stakes: bool) -> str:
    """One valid 1v1 sign-up of ``me`` (naming ``partner`` when given), in a phrasing of the
    corpus picked at random."""
    y, t = me.year, _types(me)
    if partner is None:
        forms = [
            f"Je m'inscris pour un duel en un contre un.\nNom : {me.name}\nAnnée : {y}e année\n"
            f"Type de magie : {t}",
            f"Nom : {me.name}\nAnnée : {y}ème année\nType de magie : {t}",
            f"Bonjour, je voudrais un duel en un contre un contre n'importe qui, je suis en "
            f"{y}e année, magie {t}.",
            f"🔥 Nom : {me.name} 🔥\n✨ Année : {y} ✨\n💫 Type de magie : {t} 💫",
            f"Nom : {me.name}\nAnnée : {YEAR_WORDS[y]}\nType : {t}",
            f"{me.name}, {y}ème, {t}",
            f"Nom : {me.name}\nAnnée : {y}\nType : {t}\nPartenaire : aucun",
            f"{y}e année, {t}, contre le premier venu",
        ]
    else:
        py, pt = partner.year, _types(partner)
        forms = [
            f"Je m'inscris pour un duel en un contre un.\nNom : {me.name}\nAnnée : {y}e année\n"
            f"Type de magie : {t}\nPartenaire : {partner.name}, {py}e année, {pt}",
            f"Nom : {me.name}\nAnnée : {y}\nType : {t}\nAdversaire : {partner.name} "
            f"({py}e année, {pt})",
            f"Coucou ✨ je défie {partner.name} 😈 ! Moi c'est {me.first}, {y}ème, {t}.",
            f"Je m'inscris avec {partner.name} ({py}e année, {pt}). Je suis en {y}e année, "
            f"magie {t}.",
            f"Nom : {me.name}\nAnnée : {y}ème\nType de magie : {t}\nAdversaire : {partner.name}",
        ]
    text = rng.choice(forms)
    if stakes:
        text += f"\nEnjeux : {rng.choice(('10 gallions', 'une chocogrenouille', 'une plume'))}"
    return text


def invalid_signup_text(rng: random.Random, me: Player) -> str:
    """A sign-up the desk refuses with a reply (the year is missing)."""
    return rng.choice((
        f"Nom : {me.name}\nType de magie : {_types(me)}",
        f"Je m'inscris !\nType de magie : {_types(me)}",
    ))  # fmt: skip
