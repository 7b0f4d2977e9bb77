"""The sentences of the players' guide that state the rules deciding results (issue 25, reader
pass W11–W16), each generated from the ruleset file's settings (``rules/data/*.toml``) and, for
the two-against-two game, ``rules/data/duo.toml``: a club that changes a setting changes the
guide, and no sentence is written per ruleset by hand where the file can say it.

Every function returns :class:`~forumbot.publish.render.Trusted` French sentences (the bot's own
words: the renderer typesets them, :mod:`forumbot.publish.typography`). Sources: RULES.md
« Ruleset classic (seed 000) », « Fine points (classic) », « Ruleset fatigue (seed 001) »,
« Fine points (fatigue) » and « duels two against two »; seeds 000 and 001.
"""

from __future__ import annotations

from typing import Any

from forumbot.publish.render import Trusted
from rules.ruleset import Ruleset

_NUMBERS = {1: "un", 2: "deux", 3: "trois", 4: "quatre", 5: "cinq", 6: "six", 8: "huit"}


def words(n: int) -> str:
    """A small count in words (``2`` -> ``deux``), else its digits."""
    return _NUMBERS.get(n, str(n))


def _turns(n: int, *, start: str = "au tour suivant") -> str:
    """``au tour suivant`` (1 turn) or ``pendant les 2 tours suivants``."""
    return start if n <= 1 else f"pendant les {n} tours suivants"


def effect_fr(effect: Any, rs: Ruleset) -> Trusted | None:
    """One spell effect in French, from who it binds (``applies``), when (``when``, the
    ruleset's ``effect_start`` / ``shield_applies``) and for how long (``duration``); None for
    an effect that is not worth a word (the spell's family). Unknown kinds: « effet décrit par
    l'arbitre »."""
    kind = str(getattr(effect, "kind", "") or getattr(effect, "type", ""))
    amount = int(getattr(effect, "amount", 0) or 0)
    turns = int(getattr(effect, "duration", 1) or 1)
    who = "son lanceur" if getattr(effect, "applies", "target") == "caster" else "la cible"
    when = "ce tour-ci" if getattr(effect, "when", "next_turn") == "same_turn" else _turns(turns)
    unit = rs.unit
    classic = rs.engine == "classic"
    sign = f"{amount:+d}".replace("-", "\u2212")
    if kind == "spell_family":
        return None
    if kind == "shield":
        same = str(rs.settings.get("shield_applies", "same_turn")) == "same_turn"
        text = (
            f"ajoute {amount} au dé de défense de son lanceur "
            f"{'dans le même message' if same else 'au tour suivant'}, "
            "et son lanceur n'attaque pas ce tour-là"
        )
    elif kind == "counter_spell":
        text = (
            "annule le sort adverse du même tour (ses dégâts et ses nouveaux effets), "
            "et son lanceur n'attaque pas ce tour-là"
        )
    elif kind == "no_attack":
        verb = "attaquer" if classic else "lancer de sort"
        text = f"{who} ne peut pas {verb} {when}"
    elif kind == "no_dodge":
        text = f"{who} ne peut pas esquiver {when}"
    elif kind == "damage_over_time":
        text = (
            f"{who} perd {amount} {unit} au tour suivant" if turns <= 1
            else f"{who} perd {amount} {unit} par tour {_turns(turns)}"
        )  # fmt: skip
    elif kind == "ward":
        bearer = "le lanceur" if who == "son lanceur" else "la cible"
        text = f"{when}, chaque sort qui touche {bearer} lui fait {amount} {unit} de moins"
    elif kind == "heal":
        capped = str(rs.settings.get("heal_cap", "none")) == "starting_points"
        text = f"rend {amount} {unit} à {who}" + (
            " sans dépasser ses PV de départ" if capped else ""
        )
    else:
        text = {
            "pv_damage": f"{amount} {unit} de dégâts à la cible",
            "extra_damage": f"{amount} {unit} de plus si le sort touche",
            "undodgeable": "ne peut pas être esquivé",
            "defense_modifier": f"{sign} au dé de défense de {who} {when}",
            "attack_modifier": f"{sign} au dé d'attaque de {who} {when}",
        }.get(kind, "effet décrit par l'arbitre")
    return Trusted(text)


def classic_turn_rules(rs: Ruleset, platform: str | None) -> list[Trusted]:
    """Classic: the dice, how a spell hits and what it costs, the repeated and the unlisted
    spell, the start and the end (RULES.md « Ruleset classic », settings ``tie_rule``,
    ``repeated_spell_voids``, ``unlisted_spell_*``, ``double_ko``)."""
    s, unit, n = rs.settings, rs.unit, rs.dice_per_post
    dice = f"{words(n)} dés « {rs.dice_name} » à {words(rs.dice_faces)} faces"
    if platform == "forumactif":
        roll = (
            f"Chaque duelliste lance avec son message {dice} du forum (bouton « Lancer des dés »)."
        )
    elif platform == "phpbb3":
        roll = f"Pour chaque message, l'arbitre lance {dice}."
    else:
        roll = f"Chaque message a ses {dice}, lancés par l'arbitre ou par le forum."
    out = [
        "Chaque tour, chaque duelliste poste un message, dans l'ordre qu'il veut, avec son sort "
        "en gras à la fin du message. Le tour se résout quand les deux messages sont là.",
        f"{roll} Le premier donne l'attaque, le second la défense.",
    ]
    if s.get("tie_rule", "lands") == "lands":
        out.append(
            "Un sort touche quand son dé d'attaque est au moins égal au dé de défense adverse, "
            f"égalité comprise. Il enlève alors autant de {unit} que son dé d'attaque."
        )
    else:
        out.append(
            "Un sort touche quand son dé d'attaque dépasse le dé de défense adverse (à égalité, "
            f"il est dévié). Il enlève alors autant de {unit} que son dé d'attaque."
        )
    if s.get("repeated_spell_voids", True):
        out.append(
            "Lancer deux fois de suite le même sort est interdit. Le second est sans effet, "
            "sans dégâts, mais son dé de défense compte."
        )
    else:
        out.append(
            "Lancer deux fois de suite le même sort est une infraction, relevée par l'arbitre."
        )
    if s.get("unlisted_spell_proposal", "advantage") == "advantage":
        adv, turns = (
            int(s.get("unlisted_spell_advantage", 2)),
            int(s.get("unlisted_advantage_turns", 1)),
        )
        damage = (
            ", qui compte aussi pour les dégâts" if s.get("unlisted_advantage_damage", True) else ""
        )
        out.append(
            "Un sort hors de cette liste est sans effet. L'arbitre choisit alors entre la "
            f"disqualification et un avantage pour l'adversaire : +{adv} à son dé d'attaque "
            f"{_turns(turns)}{damage}."
        )
    else:
        out.append("Un sort hors de cette liste est sans effet et peut valoir la disqualification.")
    out.append(
        "Un sort lancé avant le top de l'arbitre vaut la disqualification, que l'arbitre confirme."
    )
    end = f"Le duel s'arrête quand un duelliste tombe à 0 {unit} ou moins."
    if s.get("double_ko", "higher_remaining_wins") == "higher_remaining_wins":
        end += (
            f" Si les deux y tombent au même tour, celui qui garde le plus de {unit} gagne, "
            "et une égalité parfaite donne un match nul."
        )
    else:
        end += " Si les deux y tombent au même tour, le duel est nul."
    out.append(end)
    return [Trusted(t) for t in out]


def _bets(choices: Any) -> str:
    return " ou ".join("[" + ",".join(str(x) for x in c) + "]" for c in choices)


def fatigue_bet_rules(rs: Ruleset) -> list[Trusted]:
    """What a bet decides (RULES.md « Actions, dice and bets », settings ``dodge_success``,
    ``riposte_vs_undodgeable``, ``missing_bet``, ``invalid_bet``, ``dodge_twice_penalty``)."""
    s = rs.settings
    out = [f"Un pari est gagné quand le dé « {rs.dice_name} » montre l'un des chiffres choisis."]
    if s.get("dodge_success", "own_won_and_cast_lost") == "own_won":
        out.append(
            "Une esquive réussit quand son pari est gagné. Le pari d'un sort lancé ne change rien."
        )
    else:
        out.append(
            "Le pari d'un sort lancé ne compte que contre une esquive. Une esquive réussit quand "
            "son pari est gagné et celui du sort esquivé perdu."
        )
    out.append(
        "Une esquive et riposte réussit à la même condition. Le sort adverse est alors évité et "
        "la riposte touche l'initiateur. Sinon, le sort adverse touche et la riposte échoue."
    )
    riposte = s.get("riposte_vs_undodgeable", "own_bet_won")
    tail = {
        "own_bet_won": "la riposte touche quand même si son pari est gagné",
        "same_condition": "la riposte touche si son pari est gagné et celui du sort perdu",
    }.get(str(riposte), "la riposte échoue")
    out.append(f"Un sort qui ne peut pas être esquivé touche toujours. Contre lui, {tail}.")
    cost = int(s.get("dodge_twice_penalty", 0))
    twice = "Esquiver deux tours de suite est interdit. La seconde esquive échoue"
    twice += f" et coûte {cost} {rs.unit}." if cost else "."
    if not s.get("dodge_riposte_counts_as_dodge", False):
        twice += " Esquiver et riposter ne compte pas comme une esquive pour cette règle."
    out.append(twice)
    if s.get("no_dodge_bars_riposte", False):  # second reader after issue 25, W2
        out.append("Une cible qui ne peut pas esquiver ne peut pas non plus esquiver et riposter.")
    missing = "Un pari absent ou non autorisé compte comme perdu"
    if s.get("invalid_bet", "applied") == "applied":
        missing += f" et coûte {int(s.get('violation_penalty', 20))} {rs.unit}"
    out.append(missing + ".")
    return [Trusted(t) for t in out]


def fatigue_turn_rules(rs: Ruleset, duo: bool, together: int = 2) -> list[Trusted]:
    """How a turn goes and when effects start (RULES.md « Turn » of 1v1 and 2v2, Fine points
    « Effects »: a spell's effect starts with the next turn, ``effect_start``)."""
    if duo:
        out = [
            "Chaque duelliste poste un message par tour. Le premier message du tour est une "
            "initiative, et l'arbitre publie une déclaration après chaque message"
            + (
                " (après deux messages quand les quatre duellistes sont dans la même zone)."
                if together == 2
                else "."
            ),  # fmt: skip
            "Quand deux adversaires sont seuls dans une zone, ils jouent entre eux comme en un "
            "contre un : initiative, puis défense.",
        ]
    else:
        out = [
            "Le premier duelliste qui poste prend l'initiative, et il ne peut que lancer un sort. "
            "Après la première déclaration de l'arbitre, le duelliste visé poste sa défense. Il "
            "peut lancer un sort, esquiver, ou esquiver et riposter. La seconde déclaration "
            "donne l'effet des deux messages et clôt le tour.",
        ]
    out.append(
        "Un sort lancé ne rate pas. Sans esquive réussie, il prend effet. Un défenseur qui lance "
        "un sort n'évite pas celui de l'initiative, et les deux sorts prennent effet."
    )
    out.append(
        "Les effets qui durent (perte de PV par tour, protection, interdiction d'esquiver ou de "
        "lancer un sort) commencent au tour suivant celui du sort et durent le nombre de tours "
        "indiqué. Un sort de protection ne protège donc pas du sort du tour où il est lancé."
    )
    return [Trusted(t) for t in out]


def fatigue_violation_rules(rs: Ruleset, duo: bool) -> list[Trusted]:
    """Infractions and their cost (seed 001 « acharnement déloyal », « retirer 20 PV », « à
    trois reprises »; settings ``reused_spell_penalty``, ``reuse_counts_dodged``,
    ``spell_above_level_penalty``, ``violation_penalty``, ``violations_to_lose``,
    ``both_lose_by_violations``; house rule ``recast_same_opponent``)."""
    s, unit = rs.settings, rs.unit
    out = []
    reuse = int(s.get("reused_spell_penalty", 20))
    seen = (
        "déjà touché ou visé (même esquivé)"
        if s.get("reuse_counts_dodged", True)
        else "déjà touché"
    )
    ban = (
        f"Un sort qui a {seen} un adversaire ne peut plus être lancé sur lui par le même "
        f"lanceur. Il reste sans effet et coûte {reuse} {unit} (acharnement déloyal)"
    )
    if rs.house_rule("recast_same_opponent"):
        ban += ", sauf règle du club ci-dessous"
    out.append(ban + ". L'adversaire, lui, peut relancer ce sort en retour.")
    above = int(s.get("spell_above_level_penalty", 20))
    out.append(f"Un sort au-dessus de son niveau est sans effet et coûte {above} {unit}.")
    out.append(
        f"Toute autre infraction au règlement du club coûte {int(s.get('violation_penalty', 20))} "
        f"{unit}. L'arbitre confirme ou lève chaque infraction relevée."
    )
    n = int(s.get("violations_to_lose", 3))
    side = "au duo adverse" if duo else "à l'adversaire"
    both = (
        "les deux camps y arrivent dans la même déclaration, le duel est nul"
        if s.get("both_lose_by_violations", "draw") == "draw"
        else "les deux camps y arrivent dans la même déclaration, les PV départagent"
    )
    out.append(
        f"{words(n).capitalize()} infractions dans un même duel donnent la victoire {side}. "
        f"Si {both}."
    )
    return [Trusted(t) for t in out]


def fatigue_end_rules(rs: Ruleset, duo: bool, duo_settings: Any = None) -> list[Trusted]:
    """The end of a duel (RULES.md « End » of fatigue and 2v2; settings ``double_ko``,
    ``both_duos_down``)."""
    unit = rs.unit
    if duo:
        higher = getattr(duo_settings, "both_duos_down", "higher_total_wins") == "higher_total_wins"
        return [
            Trusted(
                f"Un duelliste à 0 {unit} ou moins est hors de combat. Il ne poste plus et ses "
                f"{unit} ne changent plus. Un duo perd quand ses deux membres sont hors de combat."
            ),
            Trusted(
                "Si les deux duos tombent dans la même déclaration, "
                + (
                    f"celui qui garde le plus de {unit} au total gagne, "
                    "et une égalité donne un match nul."
                    if higher
                    else "le duel est nul."
                )  # fmt: skip
            ),
        ]
    higher = rs.settings.get("double_ko", "higher_remaining_wins") == "higher_remaining_wins"
    return [
        Trusted(
            f"Un duelliste à 0 {unit} ou moins doit abandonner, et son adversaire gagne. Si les "
            "deux y tombent dans la même déclaration, "
            + (
                f"celui qui garde le plus de {unit} gagne, et une égalité donne un match nul."
                if higher
                else "le duel est nul."
            )  # fmt: skip
        )
    ]


def duo_zone_rules(rs: Ruleset, settings: Any) -> list[Trusted]:
    """Zones, moves, double targets and creatures of a 2v2 (seed 001 « Se déplacer », « un seul
    duelliste par duo », RULES.md « duels two against two »; ``rules/data/duo.toml``:
    ``extra_move``, ``extra_move_effect``, ``missing_move``, ``missing_move_blame``,
    ``move_alone``, ``double_target``, ``double_target_effect``)."""
    pen, unit = int(rs.settings.get("violation_penalty", 20)), rs.unit
    out = [
        "La salle a quatre zones. L'ouverture du duel donne la zone de départ de chacun, tirée "
        "au sort, et chaque duelliste reçoit par hibou la description de chaque zone où il entre.",
        "À chaque tour, un seul membre de chaque duo se déplace, "
        "et ce déplacement est obligatoire.",
    ]

    def cost(status: str, what: str) -> str:
        if status == "applied":
            return f"{what} coûte {pen} {unit}"
        if status == "proposed":
            return f"{what} est signalé à l'arbitre, qui peut retirer {pen} {unit}"
        return ""

    extra = cost(
        str(getattr(settings, "extra_move", "applied")),
        "Un second déplacement du même duo dans un tour",
    )
    if extra:
        stays = getattr(settings, "extra_move_effect", "stays") == "stays"
        out.append(
            extra + (", et il est refusé, le duelliste restant où il était." if stays else ".")
        )
    missing = cost(
        str(getattr(settings, "missing_move", "applied")), "Un tour sans déplacement pour un duo"
    )
    if missing:
        blame = getattr(settings, "missing_move_blame", "last_poster") == "last_poster"
        out.append(
            missing + (", retirés à celui des deux qui a posté le dernier." if blame else ".")
        )
    if getattr(settings, "move_alone", "proposed") != "off":
        out.append("Se déplacer sans autre action n'est permis qu'avec l'accord de l'arbitre.")
    double = str(getattr(settings, "double_target", "applied"))
    if double != "off":
        void = getattr(settings, "double_target_effect", "void") == "void"
        out.append(
            "Quand un duelliste est seul dans une zone avec ses deux adversaires, ceux-ci ne "
            "peuvent pas le viser tous les deux dans le même tour. Quand les quatre sont dans la "
            "même zone, les deux membres d'un duo ne peuvent pas viser le même adversaire dans le "
            "même tour. " + cost(double, "Le second sort" + (", sans effet," if void else "")) + "."
        )
    out.append(
        "Des créatures peuplent la salle. L'ouverture donne leurs PV et leur capacité unique. "
        "Vaincre une créature ou résoudre un mécanisme rapporte une récompense tirée au sort."
    )
    return [Trusted(t) for t in out]


__all__ = [
    "classic_turn_rules",
    "duo_zone_rules",
    "effect_fr",
    "fatigue_bet_rules",
    "fatigue_end_rules",
    "fatigue_turn_rules",
    "fatigue_violation_rules",
    "words",
]
