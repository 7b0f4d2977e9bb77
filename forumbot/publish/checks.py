"""Checks of what the bot writes to players: BBCode as phpBB reads it, and French wording.

:func:`bbcode_problems` behaves like phpBB's BBCode parser on the tags the bot may write: every
tag known, every opened tag closed in order, ``[*]`` only directly inside ``[list]`` (a bare
``[*]`` shows as a literal « [*] » on a real phpBB). :func:`french_problems` is a lint of the
mistakes a French reader found in earlier declarations (issue 15): missing elision before a
vowel (« de Aurora », « que Odric »), « 1 » before a plural (« 1 lignes »), internal
``key:value`` tokens (« magic:flamboyante »), English words (« None », « shield »), « (s) »
plural hacks (« tour(s) »), « tu » and « vous » addressing the reader in one text (an owl or a
reply to one player says « tu »; a public declaration « vous » to several), and a number
glued to the next line's rank (« chocogrenouilles : 02. » when a line break is missing),
« à le » / « à les » (« au », « aux »), and gendered words about a duellist (« disqualifié »,
« empêché », « le perdant », « protégé », « son coéquipier »: the wording stays neutral).

Issue 25 adds, on the bot's own words (``own_words``: player text left out): French
typography (:mod:`forumbot.publish.typography`: no-break spaces before « : ; ! ? », inside
« », after « n° », « − » for a negative number), one colon per sentence, no internal names
(snake_case keys, English words), every points line's changes adding up to its total
(« 40 − 34 (Stupéfix) − 10 (Sectumsempra) = −4 PV »), every damage breakdown adding up to
the damage (« perd 40 PV (46 de base, Fianto Duri −6 en défense) », :func:`breakdown_problems`)
and every loss a line states
(« Cassius Thorne perd 34 PV ») listed in that duellist's points line, and a date and time in
every post that waits for players (:func:`deadline_problems`, for the rulesets that have a
deadline). The second reader pass adds :func:`wording_problems` (« message #123 », « ne peut
plus attaquer »).

Both return a list of human-readable problems (empty when the text is clean); neither raises.
The test suite runs both on every text :func:`forumbot.publish.render.render` produces.
"""

from __future__ import annotations

import re

KNOWN_TAGS = frozenset(
    {"b", "i", "u", "s", "size", "color", "list", "*", "quote", "code", "url", "spoiler", "center"}
)
"""Tags the bot's templates may write (phpBB 3.3 defaults plus Forumactif's center/spoiler)."""

_TAG = re.compile(r"\[(/?)([a-z*]+)(?:=[^\]\n]*)?\]", re.IGNORECASE)


def bbcode_problems(text: str) -> list[str]:
    """Problems of ``text`` as BBCode: unknown tag, unbalanced tag, ``[*]`` outside a list.

    Player text never reaches this as markup: :func:`~forumbot.publish.render.neutralise`
    turns its brackets into fullwidth look-alikes, which this checker ignores.
    """
    problems: list[str] = []
    stack: list[str] = []
    for m in _TAG.finditer(text):
        closing, name = m.group(1) == "/", m.group(2).lower()
        where = f"at {m.start()} ({text[max(0, m.start() - 20):m.end() + 20]!r})"
        if name not in KNOWN_TAGS:
            problems.append(f"unknown tag [{m.group(1)}{name}] {where}")
            continue
        if name == "*":
            if closing:
                continue  # phpBB accepts an optional [/*]
            if not stack or stack[-1] != "list":
                problems.append(f"[*] outside [list] {where}")
            continue
        if not closing:
            stack.append(name)
            continue
        if not stack or stack[-1] != name:
            problems.append(f"[/{name}] closes {stack[-1] if stack else 'nothing'} {where}")
            if name in stack:
                while stack and stack.pop() != name:
                    pass
            continue
        stack.pop()
    problems += [f"[{name}] never closed" for name in stack]
    return problems


_VOWEL = "aeiouyàâäéèêëîïôöûüœAEIOUYÀÂÄÉÈÊËÎÏÔÖÛÜŒ"
_NO_ELISION_EXCEPT = r"(?!(?:oui|onze|onzième)\b)"
"""Words before which French never elides (« au lieu de oui », « le onze »)."""
_NO_ELISION = re.compile(
    rf"(?<![\w'’])(de|que|ne|je|se|me|te|le|la|jusque|lorsque|puisque) "
    rf"{_NO_ELISION_EXCEPT}(?=[{_VOWEL}])"
)
_ONE_PLURAL = re.compile(r"(?<![\d,.])\b1 ([a-zàâéèêîôûç]+s)\b")
_SINGULAR_S = frozenset({"fois", "temps", "pas", "bras", "corps", "repos", "avis", "sens", "gras"})
_INTERNAL = re.compile(
    r"\b(?:magic|reward|creature|mechanism|item|rule|spell|zone|effect|family):[\w:]+"
    r"|\b[a-z]+_[a-z_]+\b"
)
_PLURAL_HACK = re.compile(r"\w\((?:s|x|e|es)\)")
_TU = re.compile(
    r"(?<![\w'’])(tu|toi|te|t'|ton|ta|tes)(?![\w'’])|(?<![\w'’])t['’](?=\w)", re.IGNORECASE
)
_VOUS = re.compile(r"(?<![\w'’])(vous|votre|vos)(?![\w'’])", re.IGNORECASE)
_RUN_TOGETHER = re.compile(r"\d\d?\. \[b\][^\n]*\d\d+\. \[b\]")
_NO_CONTRACTION = re.compile(r"(?<![\w'’])à (le|les) ")
_GENDERED = re.compile(
    r"\b(disqualifiée?|empêchée?|le perdant|la perdante|protégée?|son coéquipier(?! ou)|"
    r"sa coéquipière)\b"
)
_ENGLISH = re.compile(
    r"\b(None|True|False|null|undefined|winner|loser|shield|turn|draft|damage|points left|"
    r"the|and|with|effective|attack|defense|landed)\b"
)


def french_problems(text: str) -> list[str]:
    """Problems of the French wording of ``text`` (see module docstring); markers ignored."""
    body = re.sub(r"forumbot·[^·]*·", "", text)
    body = _TAG.sub(" ", body)
    body = re.sub(r"https?://\S+", " ", body)
    # The bot's own words (a Rendered text's render without its plain string values): what a
    # player wrote cannot set off the tu/vous and gendered-word checks.
    own = _TAG.sub(" ", re.sub(r"forumbot·[^·]*·", "", getattr(text, "own_words", text)))
    problems = [
        f"no elision: « {body[m.start():m.end() + 12]}… »" for m in _NO_ELISION.finditer(body)
    ]
    problems += [
        f"« 1 » with a plural: « {m.group(0)} »"
        for m in _ONE_PLURAL.finditer(body)
        if m.group(1) not in _SINGULAR_S
    ]
    problems += [f"internal token: « {m.group(0)} »" for m in _INTERNAL.finditer(body)]
    problems += [f"English word: « {m.group(0)} »" for m in _ENGLISH.finditer(body)]
    problems += [f"no contraction: « {m.group(0)}… »" for m in _NO_CONTRACTION.finditer(body)]
    problems += [f"gendered wording: « {m.group(0)} »" for m in _GENDERED.finditer(own)]
    problems += [f"« (s) » plural: « {m.group(0)} »" for m in _PLURAL_HACK.finditer(body)]
    tu, vous = _TU.search(own), _VOUS.search(own)
    if tu and vous:
        problems.append(f"« tu » and « vous » mixed: « {tu.group(0)} » and « {vous.group(0)} »")
    problems += [
        f"lines run together: « {m.group(0)[-30:]} »" for m in _RUN_TOGETHER.finditer(text)
    ]
    return problems


_CODE_BLOCK = re.compile(r"\[code\].*?\[/code\]", re.DOTALL | re.IGNORECASE)
_TYPO_RULES = (
    (re.compile(r"(?<=\S) [;!?:](?!//)"), "ordinary space before « {0} » (no-break space)"),
    (re.compile(r"(?<=[\w»)\]])[;!?](?=\s|$)"), "no space before « {0} »"),
    (re.compile(r"(?<=\w):(?=\s)"), "no space before « {0} »"),
    (re.compile(r"«(?!\u202f)|(?<!\u202f)»"), "guillemet without a narrow no-break space: « {0} »"),
    (re.compile(r"n°(?!\u00a0)"), "« n° » without a no-break space"),
    (re.compile(r"(?<=\d)[ \u00a0]%"), "ordinary space before « % » (narrow no-break space)"),
    (re.compile(r"(?<![\w\]).,/+\-−])-(?=\d)"), "hyphen as a minus sign: « {0} »"),
)


def typography_problems(text: str) -> list[str]:
    """French typography of the bot's own words of ``text`` (a :class:`Rendered` text's
    ``own_words``, else the whole text), ``[code]`` blocks and URLs left out (module doc)."""
    own = getattr(text, "own_words", text)
    own = re.sub(r"forumbot·[^·]*·", "", own)
    own = _CODE_BLOCK.sub("", own)
    own = re.sub(r"\[url=[^\]]*\]", "", own)
    own = _TAG.sub("", own)
    own = re.sub(r"https?://\S+", "", own)
    problems = []
    for rule, message in _TYPO_RULES:
        for m in rule.finditer(own):
            where = own[max(0, m.start() - 25): m.end() + 15].replace("\n", " ")
            problems.append(f"{message.format(m.group(0).strip())}: « {where} »")
    return problems


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n")
_QUOTED = re.compile(r"«[^«»\n]*»")


def colon_problems(text: str) -> list[str]:
    """Sentences of the bot's own words holding two colons or more (« X contre Y : attaque 4
    contre défense 2 : le sort touche »): one colon per sentence."""
    own = getattr(text, "own_words", text)
    own = _CODE_BLOCK.sub("", re.sub(r"forumbot·[^·]*·", "", own))
    own = re.sub(r"\[url=[^\]]*\]", "", own)
    own = re.sub(r"https?://\S+", "", _TAG.sub("", own))
    out = []
    for sentence in _SENTENCE_END.split(own):
        # a colon inside « … » is quoted syntax (« Déplacement : zone 2 »), not the sentence's
        counted = _QUOTED.sub("«»", sentence)
        if counted.count(":") - counted.count("://") > 1:
            out.append(f"two colons in one sentence: « {sentence.strip()[:90]} »")
    return out


_NUM = r"[−-]?\d+"
_BALANCE = re.compile(
    rf"^\W*(?P<name>[^:\n]+?)\s?:\s?(?P<start>{_NUM})(?P<items>(?:\s[−+-]\s\d+(?:\s\([^)]*\))?)+)"
    rf"\s=\s(?P<end>{_NUM})\s(?:PV|PD)\b",
    re.MULTILINE,
)
_ITEM = re.compile(r"\s([−+-])\s(\d+)")
_FLOORED = re.compile(r"(?P<start>\d+) − (?P<dealt>\d+), ramené à 0 (?:PV|PD)\b")
"""A creature's PV line when the damage dealt went past its PV (« 40 − 51, ramené à 0 PV »,
``duo_turn.bbcode.j2``; seventh reader of issue 25, C1)."""
_LOSS = re.compile(r"(?P<name>[A-ZÀ-Ý][^,;:()\n]*?) perd (?P<n>\d+) (?:PV|PD)\b")


def _int(text: str) -> int:
    return int(text.replace("−", "-"))


def balance_problems(text: str) -> list[str]:
    """Points lines whose changes do not add up (« 40 − 34 − 10 = −4 PV »), a floor at 0 that
    the damage did not reach (« 40 − 30, ramené à 0 PV »), and losses stated elsewhere
    (« Cassius Thorne perd 34 PV ») missing from that duellist's points line."""
    body = _TAG.sub("", re.sub(r"forumbot·[^·]*·", "", str(text)))
    body = body.replace("\u00a0", " ").replace("\u202f", " ")
    problems = []
    listed: dict[str, list[int]] = {}
    for m in _BALANCE.finditer(body):
        items = [(-1 if sign in "−-" else 1) * int(n) for sign, n in _ITEM.findall(m["items"])]
        start, end = _int(m["start"]), _int(m["end"])
        if start + sum(items) != end:
            problems.append(f"changes do not add up: « {m.group(0).strip()} »")
        listed[m["name"].strip()] = [-i for i in items if i < 0]
    for m in _FLOORED.finditer(body):
        if int(m["dealt"]) <= int(m["start"]):
            problems.append(f"not below 0, nothing to bring back: « {m.group(0)} »")
    for m in _LOSS.finditer(body):
        name = m["name"].strip()
        for known in listed:
            if name.endswith(known):
                if int(m["n"]) not in listed[known]:
                    problems.append(f"« {known} perd {m['n']} » not in {known}'s points line")
                break
    return problems


_BREAKDOWN = re.compile(
    r"(?P<n>\d+) (?:PV|PD)\b[^(\n.]{0,60}?\((?P<base>\d+) de base(?P<parts>(?:, [^,()\n]+?"
    r" [+−-]\d+(?: en défense)?)*)\)"
)
_PART = re.compile(r" ([+−-])(\d+)(?: en défense)?$")


def breakdown_problems(text: str) -> list[str]:
    """Damage breakdowns whose parts do not add up to the damage stated: « perd 40 PV (46 de
    base, Fianto Duri −6 en défense) » needs 46 − 6 = 40 (0 when the parts go below 0). Every
    damage a magic type, ward or effect changes is printed so in 1v1 and 2v2 (reader after
    issue 25, W8)."""
    body = _TAG.sub("", re.sub(r"forumbot·[^·]*·", "", str(text)))
    body = body.replace("\u00a0", " ").replace("\u202f", " ")
    problems = []
    for m in _BREAKDOWN.finditer(body):
        total = int(m["base"])
        for part in m["parts"].split(", ")[1:]:
            sign = _PART.search(part)
            if sign is None:
                problems.append(f"unreadable damage part « {part} » in « {m.group(0)} »")
                continue
            total += (-1 if sign[1] in "−-" else 1) * int(sign[2])
        if max(0, total) != int(m["n"]):
            problems.append(f"damage breakdown does not add up: « {m.group(0)} »")
    return problems


_WAITS = re.compile(
    r"à vous pour le tour|de se défendre|Doi(?:ven)?t (?:encore )?poster|prend l'initiative du tour"
    r"|Merci de lancer|Le duel commence",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"avant le (?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) \d{1,2}(?:er)? "
    r"\w+(?: \d{4})? à \d{1,2} h(?: \d{2})?"
)


DEADLINE_TEMPLATES = frozenset(
    {
        "fatigue_opening.bbcode.j2",
        "fatigue_turn.bbcode.j2",
        "fatigue_relaunch.bbcode.j2",
        "duo_opening.bbcode.j2",
        "duo_turn.bbcode.j2",
        "duo_relaunch.bbcode.j2",
    }
)
"""Templates of the rulesets with a deadline (fatigue 1v1: 36 h, 2v2: 48 h) whose posts
wait for players; classic has no deadline (seed 000)."""


def deadline_problems(text: str) -> list[str]:
    """A post that waits for players (« à vous pour le tour 2 », « Doit encore poster », and
    « Doivent encore poster » of the posts published before newcomer 7's #19)
    without a deadline as a date and time (« avant le jeudi 3 décembre à 20 h 54 »). Called
    for the rulesets that have a deadline (:data:`DEADLINE_TEMPLATES`)."""
    body = str(text).replace("\u00a0", " ").replace("\u202f", " ")
    if _WAITS.search(body) and not _DATE.search(body):
        return [f"waits for players without a dated deadline: « {_WAITS.search(body)[0]} »"]
    return []


_SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b|\b(?:verify-dice|forumbot [a-z-]+)\b")


def internal_name_problems(text: str) -> list[str]:
    """Code names in the bot's own words (« attack_modifier », « forumbot verify-dice »)."""
    own = getattr(text, "own_words", text)
    own = re.sub(r"forumbot·[^·]*·", "", own)
    own = re.sub(r"\[url=[^\]]*\]|https?://\S+", "", own)
    return [f"internal name: « {m.group(0)} »" for m in _SNAKE.finditer(own)]


_BARE_POST_NUMBER = re.compile(r"\bmessage #\s?\d+")
_NO_LONGER = re.compile(r"\bne peut plus (?:attaquer|esquiver|lancer de sort)\b")


def wording_problems(text: str) -> list[str]:
    """Patterns the second French reader pass found (issue 25): a post named by a bare number
    (« message #123 »: the ``|message`` filter prints « message n° 123 » linked to the post),
    and « ne peut plus attaquer » where every other text says « ne peut pas attaquer au tour
    suivant » (one term for one effect)."""
    own = getattr(text, "own_words", text)
    own = re.sub(r"forumbot·[^·]*·", "", own)
    problems = [f"post by a bare number: « {m.group(0)} »" for m in _BARE_POST_NUMBER.finditer(own)]
    problems += [f"« ne peut plus », say « ne peut pas »: « {m.group(0)} »"
                 for m in _NO_LONGER.finditer(own)]  # fmt: skip
    return problems


def lint_problems(text: str) -> list[str]:
    """Every check of issue 25 on one rendered text (typography, colons, balances, internal
    names); :func:`deadline_problems` is separate (it depends on the ruleset)."""
    return (
        typography_problems(text)
        + colon_problems(text)
        + balance_problems(text)
        + breakdown_problems(text)
        + internal_name_problems(text)
        + wording_problems(text)
    )
