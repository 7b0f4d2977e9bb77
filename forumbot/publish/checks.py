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
_NO_ELISION = re.compile(
    rf"(?<![\w'’])(de|que|ne|je|se|me|te|le|la|jusque|lorsque|puisque) (?=[{_VOWEL}])"
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
