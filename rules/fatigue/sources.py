"""Rule id -> quoted sentence for the fatigue ruleset's trail (seed 001 in French, RULES.md).

Spell entries quote the spell's own ``source`` from ``rules/data/fatigue.toml``.
"""

from __future__ import annotations

SEED = "seed 001"
RULES = "RULES.md, Ruleset fatigue"

FATIGUE_SOURCES: dict[str, str] = {
    "fatigue.start": (
        f"{SEED}: \"Ce n'est qu'au top départ de l'arbitre que le duel pourra débuter.\""
    ),
    "fatigue.cast_before_start": (
        f"{SEED}: \"Ce n'est qu'au top départ de l'arbitre que le duel pourra débuter.\" "
        f'({RULES}: "A spell before it is `cast_before_start`")'
    ),
    "fatigue.initiative": (
        f"{SEED}: \"Le premier des deux duellistes à poster en début de tour s'octroie le poste "
        "d'initiative. L'initiative n'offre qu'un choix d'action : 'lancer un sort'.\""
    ),
    "fatigue.initiative_not_cast": (
        f"{SEED}: \"L'initiative n'offre qu'un choix d'action : 'lancer un sort'.\""
    ),
    "fatigue.first_declaration": (
        f"{SEED}: \"La première déclaration de l'arbitre permet d'établir les éventuels effets du "
        "poste d'initiative.\""
    ),
    "fatigue.defense": (
        f"{SEED}: \"Le deuxième des deux duellistes à poster a, quant à lui, trois choix d'action "
        ": 'Lancer un sort' [...] 'esquiver' ou 'esquiver et riposter'.\""
    ),
    "fatigue.second_declaration": (
        f"{SEED}: \"La deuxième déclaration de l'arbitre permet d'établir les effets des postes "
        "d'initiative et de défense. Avec elle se termine le tour.\""
    ),
    "fatigue.dice": (
        f'{SEED}: "Le lancer de sort est soumis à l\'utilisation du dé à 6 faces." ({RULES}: '
        '"one d6 per action that carries a bet")'
    ),
    "fatigue.bet": (f'{RULES}: "the bet is won when the die shows one of the faces bet on."'),
    "fatigue.invalid_bet": (
        f'{SEED}: "Le duelliste devra, en bas de son poste, parier sur une série de chiffres '
        '[1,2,3,4] ou [3,4,5,6]." (esquiver et riposter: "[1,2,3] ou [4,5,6]")'
    ),
    "fatigue.cast": (
        f'{SEED}: "Lancer un sort : Cette action permet de lancer un sort. Elle est par défaut '
        "inratable, mais une esquive, une esquive-riposte ou un sort de protection par exemple "
        'peuvent parfois la contrer."'
    ),
    "fatigue.defender_cast": (
        f"{SEED}: \"'Lancer un sort' : cette action ne pourra pas échouer par défaut, mais le "
        "duelliste ne pourra, par conséquent, pas éviter l'attaque du poste d'initiative s'il est "
        'visé"'
    ),
    "fatigue.dodge": (
        f'{SEED}: "Esquiver : Cette action permet d\'esquiver un sort si celui-ci le permet." '
        f'({RULES}: "Succeeds when its own bet is won **and** the cast\'s bet is lost [D]")'
    ),
    "fatigue.undodgeable": (
        f'{SEED}: "Cette action permet d\'esquiver un sort si celui-ci le permet."'
    ),
    "fatigue.dodge_riposte": (
        f"{SEED}: \"Outre le fait d'esquiver le sort adverse si celui-ci le permet, cette action "
        'permet par la même occasion de riposter en lançant à son tour un sort." '
        f'({RULES}: "otherwise the incoming spell lands and the riposte fails")'
    ),
    "fatigue.riposte_vs_undodgeable": (
        f'{RULES}, Fine points: "dodge_riposte against a spell that cannot be dodged: the '
        "incoming spell lands; the riposte lands if the riposte's bet succeeded.\""
    ),
    "fatigue.dodge_twice": (
        f'{SEED}: "il est interdit d\'utiliser cette action deux tours de suite." ({RULES}, Fine '
        'points: "A forbidden second dodge fails (as if no dodge), costs 20 PV, and the incoming '
        'spell lands.")'
    ),
    "fatigue.double_target": (
        f'{SEED}: "A2 ne doit pas viser directement B1 car déjà visé par A1" / "Ne peut pas viser '
        'directement A1 car déjà visé par B2" (duo.toml: double_target_effect = "void", the spell '
        "has no effect)"
    ),
    "fatigue.cast_limit": (
        f"{SEED}: \"Un duelliste peut réutiliser un sort autant de fois qu'il le désire au cours "
        "d'un duel (sauf contre-indication)\" (the spellbook's max_casts is the "
        "contre-indication); \"Si une règle, quelle qu'elle soit, du règlement officiel du club "
        'de duels n\'est pas respectée, le fautif se verra retirer 20 PV."'
    ),
    "fatigue.missing_target": (
        f'{SEED}: "Cette action permet de lancer un sort sur la cible de son choix" (one spell, '
        "one target: a post naming two targets has its spell resolve nothing until the referee "
        "decides; docs/rules-readings.md, D2)"
    ),
    "fatigue.damage": (
        f"{SEED}: \"Dès lors qu'un duelliste est victime d'un sort, celui perd automatiquement des "
        'points de vies et reste toujours touché par les effets dudit sortilège"'
    ),
    "fatigue.magic_type": (
        f"{SEED}: \"l'utilisation de certains sorts et leurs résultats seront parfois différents "
        "selon le type de magie du duelliste\" (modifiers: rules/data/fatigue.toml, club's to set)"
    ),
    "fatigue.ward": (
        f'{SEED}: "une esquive, une esquive-riposte ou un sort de protection par exemple peuvent '
        'parfois la contrer."'
    ),
    "fatigue.heal": (
        f'{RULES}: "Results can depend on the duellist\'s magic type and on context"; heals are '
        "capped at the starting PV (setting heal_cap)"
    ),
    "fatigue.effects": (
        f"{RULES}, Fine points: \"a spell's effect starts with the next turn (it never binds the "
        "post that answers it) and lasts its spellbook duration in turns. The same effect does "
        'not stack: the longer remaining duration is kept; different effects stack."'
    ),
    "fatigue.effects_expire": (
        f'{RULES}, Fine points: "[a spell\'s effect] lasts its spellbook duration in turns."'
    ),
    "fatigue.damage_over_time": (
        f'{SEED}: "reste toujours touché par les effets dudit sortilège (effets indiqués dans la '
        'partie bottin des sorts)"'
    ),
    "fatigue.reused_spell": (
        f'{SEED}: "à partir du moment où son adversaire est affecté ou directement ciblé par un '
        "sort, il est formellement interdit au lanceur de le réutiliser une seconde fois sur son "
        "adversaire. En cas de non-respect de cette règle, l'arbitre fera perdre 20 PV "
        'supplémentaires au duelliste pour acharnement déloyal."'
    ),
    "fatigue.reuse_memory": (
        f'{RULES}, Fine points: "For `reused_spell`, a dodged spell did directly target its '
        'target; a riposte that failed, or a void spell, did not."'
    ),
    "fatigue.spell_above_level": (
        f'{SEED}: "Première année : sorts de niveau 1. [...] Adultes : sorts de niveau '
        f'1,2,3,4,5,6,7 et 8." ({RULES}, Fine points: "A spell above the caster\'s level has no '
        'effect and costs 20 PV.")'
    ),
    "fatigue.unknown_spell": (
        'RULES.md, Common: "Bold text that matches nothing is an `unknown_spell` for the referee '
        'to judge."'
    ),
    "fatigue.missing_spell": (
        f'{SEED}: "Il est demandé aux duellistes de préciser en gras à la fin de leur post le sort '
        'lancé."'
    ),
    "fatigue.no_action": (
        f"{SEED}: \"A noter qu'un duelliste n'a pas le droit de ne pas agir pendant un tour, sauf "
        "s'il y est contraint.\""
    ),
    "fatigue.endure": (
        f'{RULES}, Fine points: "A duellist left with no legal action posts role-play and '
        'endures: that counts as their post, no violation."'
    ),
    "fatigue.barred_action": (
        f'{RULES}, Fine points: "An action forbidden by an effect (casting while barred, dodging '
        "under no_dodge) is ignored and proposed to the referee as `barred_action` (20 PV if "
        'confirmed)."'
    ),
    "fatigue.short_post": (
        f'{SEED}: "Chaque post doit, au minimum, faire 10 lignes." ({RULES}: "A short post is '
        'proposed to the referee as `short_post`, not applied automatically [D]")'
    ),
    "fatigue.late_edit": (
        f"{SEED}: \"L'édition d'un poste est autorisée dans le cas seul où personne n'a encore "
        'posté après le post concerné."'
    ),
    "fatigue.result_stated": (
        f"{SEED}: \"un duelliste n'a toutefois pas le droit de donner le résultat d'un sort "
        "lancé ; la déclaration de l'arbitre s'en chargera.\""
    ),
    "fatigue.violation": (
        f"{SEED}: \"Si une règle, quelle qu'elle soit, du règlement officiel du club de duels "
        "n'est pas respectée, le fautif se verra retirer 20 PV.\""
    ),
    "fatigue.three_violations": (
        f'{SEED}: "Si un duelliste ne respecte pas les différents points du règlement officiel, '
        "et ce à trois reprises lors du duel, son adversaire sera automatiquement désigné "
        f'vainqueur." ({RULES}, Fine points: "both reaching three in the same declaration is a '
        'draw.")'
    ),
    "fatigue.end": (
        f'{SEED}: "Pour gagner un duel, il suffit de faire tomber les points de fatigue de son '
        f'adversaire à 0 pour l\'obliger à abandonner." ({RULES}, Fine points: "The duel ends at '
        "the declaration that records a duellist's third violation or 0 PV, even a first "
        'declaration.")'
    ),
    "fatigue.double_ko": (
        f'{RULES}: "Both at 0 in one declaration: the one with more PV left wins, a tie is a '
        'draw [D]."'
    ),
    "fatigue.concession": (f'{RULES}: "conceding also gives the opponent the win [D]."'),
    "fatigue.relaunch": (
        f"{SEED}: \"Si 36h ou 48h (selon type de duel) après la première déclaration de l'arbitre "
        "le second duelliste n'a pas posté sa défense, l'arbitre relancera automatiquement le jeu "
        f'en invitant l\'autre duelliste à poster un autre sort." ({RULES}: "the initiative '
        'spell resolves undefended and the turn closes [D]")'
    ),
    "fatigue.abandoned": (
        f'{SEED}: "l\'arbitre relancera une dernière fois avant de mettre fin au duel." '
        f'({RULES}: "the duel closes with no winner, no loser and no rewards [D]")'
    ),
    "fatigue.effects_pending": (
        f'{RULES}, Fine points: "Each declaration lists the effects still running."'
    ),
}
