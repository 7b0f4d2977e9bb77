"""Rule id -> quoted sentence for the classic ruleset's trail (seed 000 in French, RULES.md).

Spell-effect entries quote the spell's own seed line, kept with the spell in
``rules/data/classic.toml`` (``source``), under rule ids ``classic.spell.<effect type>``.
"""

from __future__ import annotations

SEED = "seed 000"
RULES = "RULES.md, Ruleset classic"

CLASSIC_SOURCES: dict[str, str] = {
    "classic.start": (
        f"{SEED}: \"Aucun sort ne doit être lancé avant le top de l'arbitre sous peine de "
        'disqualification immédiate."'
    ),
    "classic.cast_before_start": (
        f"{SEED}: \"Aucun sort ne doit être lancé avant le top de l'arbitre sous peine de "
        'disqualification immédiate."'
    ),
    "classic.dice": (
        f"{SEED}: \"Pour chaque tour, les deux duellistes posteront l'un après l'autre et devront "
        'lancer deux dés "Duel". [...] Le premier résultat constitue l\'attaque. Le second '
        'résultat, la défense."'
    ),
    "classic.resolution": (
        f'{RULES}: "When both posts are in, the turn resolves simultaneously [D]: each '
        "duellist's attack is compared to the other's defense of the same turn.\""
    ),
    "classic.deflect": (
        f'{SEED}: "Tous les sorts peuvent être déviés par un jet de dé de défense plus puissant '
        f'que l\'attaque de l\'adversaire." ({RULES}: "a tie lands [D]")'
    ),
    "classic.deflect.ties": (
        f'{SEED}: "Tous les sorts peuvent être déviés par un jet de dé de défense plus puissant '
        'que l\'attaque de l\'adversaire." (ruleset setting tie_rule = "deflects")'
    ),
    "classic.damage": (
        f'{SEED}: "A chaque attaque réussie et non détournée, le nombre de point de défense '
        'diminue du nombre indiqué sur son dé."'
    ),
    "classic.no_floor": (
        f'{RULES}: "Effective defense has no floor: it is only compared with the attack."'
    ),
    "classic.repeated_spell": (
        f"{SEED}: \"Il est par ailleurs interdit d'utiliser deux fois de suite le même "
        f'sortilège." ({RULES}: "that spell has no effect, no damage either [D]")'
    ),
    "classic.unlisted_spell": (
        f'{SEED}: "Tout sortilège utilisé et ne faisant pas partie de cette liste donnera un '
        "avantage à l'adversaire voire entraînera la disqualification immédiate du duelliste.\""
    ),
    "classic.missing_spell": (
        'RULES.md, Common: "the spell cast is written in bold at the end of the post '
        '[D for classic]"'
    ),
    "classic.spell_above_level": (
        f'{SEED}: "Bien sûr, vous pouvez connaître un peu plus de sortilège que votre niveau si '
        "vous êtes rat de bibliothèque, mais nosu demanderons un certain fairplay et une "
        "cohérence dans l'histoire.\""
    ),
    "classic.barred": (
        f'{RULES}, fine points: "an attacking spell cast while barred is ignored, with no '
        'violation."'
    ),
    "classic.void_defense": (
        f'{RULES}, fine points: "A void spell (repeated or unlisted) voids the attack only: the '
        "post's defense die still counts.\""
    ),
    "classic.end": (
        f"{SEED}: \"Le duel se termine lorsque l'un des deux duelliste arrive à 0 PD ou si "
        "l'arbitre disqualifie l'un des deux adversaires.\""
    ),
    "classic.double_ko": (
        f'{RULES}: "Both at 0 or below in the same turn: the higher remaining PD wins (PD are not '
        'clamped at 0), an exact tie is a draw [D]."'
    ),
    "classic.effects_pending": (
        f'{RULES}, fine points: "Effects still pending when the duel ends are listed in the final '
        'declaration, nothing more."'
    ),
    "classic.spellbook": (
        f'{SEED}: "La liste des sorts autorisés lors d\'un duel est limitée et est la suivante."'
    ),
    "classic.spell.extra_damage": (
        f'{SEED}: "Sortilège de Feu (enlève 2 PD supplémentaire si l\'attaque réussie)"'
    ),
    "classic.spell.defense_modifier": (
        f'{SEED}: "Maléfice du Pot de Colle (enlève 2 au prochain jet de défense)"'
    ),
    "classic.spell.no_attack": (
        f"{SEED}: \"Sortilège de Confusion (empêche l'adversaire d'attaquer au prochain tour)\""
    ),
    "classic.spell.shield": (
        f"{SEED}: \"Charme du Bouclier (empêche d'attaquer mais ajoute 3 au prochain jet de "
        'défense)"'
    ),
    "classic.spell.counter_spell": (
        f"{SEED}: \"Antisort Général (empêche d'attaquer mais permet d'annuler tout sortilège "
        'jeté)"'
    ),
    "classic.spell.attack_modifier": (
        f'{RULES}: "advantage: +2 to the opponent\'s next attack die, for damage too [D]"'
    ),
    "classic.effects_expire": (
        f'{RULES}: "Maléfice du Pot de Colle: target\'s next defense roll -2 (next turn [D])"; '
        "an effect lasts its duration in turns"
    ),
}
