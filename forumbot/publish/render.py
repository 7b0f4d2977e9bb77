"""Declarations drafted from jinja2 templates, with player text that can never inject markup.

Every value a template prints goes through :func:`neutralise` (the environment's
``finalize``), so a duellist named ``[url=http://x]moi[/url]`` or a bold spell
``[img]...[/img]`` prints as inert text: ``[ ] < >`` become their fullwidth look-alikes
``［ ］ ＜ ＞`` (phpBB has no BBCode escape; Forumactif may render HTML), control, bidi and
invisible characters are dropped (:func:`parsers.invisible.strip_invisible`: Unicode's
Default_Ignorable_Code_Point, Hangul fillers included, and the C categories), bare URLs,
``www.`` and e-mail
addresses are defused so no board turns them into links inside the referee's declaration
(``https://x`` prints ``https：//x``), line breaks inside one value are folded into spaces,
and a value longer than :data:`MAX_VALUE_CHARS` is cut (a huge bold cannot push a
declaration past the forum's post size limit). Only the templates' own literal BBCode
reaches the forum. A value wrapped in :class:`Trusted` is
printed as is (only for fragments the bot builds itself).

Templates live in ``forumbot/publish/templates/<language>/``; French is the default.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from forumbot.i18n import ELIDING_INITIALS
from forumbot.publish.deadline_text import fill_deadline
from forumbot.publish.typography import TypographyExtension, number, signed, typeset
from parsers.invisible import strip_invisible

TEMPLATES_DIR = Path(__file__).parent / "templates"
_TRANSLATE = str.maketrans({"[": "［", "]": "］", "<": "＜", ">": "＞"})
_URL = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(//)|\b(www)\.|(?<=\w)@(?=\w)")


def _defuse_url(m: re.Match[str]) -> str:
    if m.group(1):
        return f"{m.group(1)}：{m.group(2)}"  # fullwidth colon: no longer a URL scheme
    if m.group(3):
        return f"{m.group(3)}．"  # fullwidth full stop: no "www." auto-link
    return "＠"  # no e-mail auto-link
MAX_VALUE_CHARS = 200  # one printed value; a 1 MB bold must not make a 1 MB declaration


class Trusted(str):
    """A string the bot built itself: printed by templates without neutralisation."""


class Verbatim(Trusted):
    """A template's literal printed exactly as written (players' syntax, ``|verbatim``):
    neither neutralised nor typeset."""


def neutralise(value: Any) -> Any:
    """Make one printed value inert for BBCode and HTML (see module docstring).

    Non-strings pass through, except a negative int, printed with the minus sign « − »
    (U+2212, :mod:`forumbot.publish.typography`); ``None`` prints as an empty string.
    """
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return number(value)
    if isinstance(value, Verbatim):
        return str(value)
    if isinstance(value, Trusted):
        return typeset(value)  # the bot's own words: French typography too
    if not isinstance(value, str):
        return value
    text = "".join(" " if ch in "\n\r\t" else ch for ch in strip_invisible(value))
    text = " ".join(text.split())
    text = _URL.sub(_defuse_url, text)
    if len(text) > MAX_VALUE_CHARS:
        text = text[: MAX_VALUE_CHARS - 1] + "…"
    return text.translate(_TRANSLATE)


_ARTICLE = re.compile(r"^(Le|La|Les|L')(?=[ ']|(?<=')\w)")
_ANY_ARTICLE = re.compile(r"^(le|la|les|l')(?=[ ']|(?<=')\w)", re.IGNORECASE)


def _de(name: str) -> str:
    """French "de" before a name, elided before a vowel or h: ``d'Aurora``, ``de Blaise``."""
    return f"d'{name}" if name.startswith(ELIDING_INITIALS) else f"de {name}"


def _inline(name: str) -> str:
    """A name starting with a capitalised article, for the middle of a sentence:
    ``Le strangulot du bassin`` -> ``le strangulot du bassin``; others unchanged."""
    return _ARTICLE.sub(lambda m: m.group(1).lower(), name, count=1)


def _que(name: str) -> str:
    """French "que" before a name, elided before a vowel or h: ``qu'Odric``, ``que Blaise``."""
    return f"qu'{name}" if name.startswith(ELIDING_INITIALS) else f"que {name}"


def _to(name: str) -> str:
    """French "à" before a name, contracted with its article: ``Le strangulot`` -> ``au
    strangulot``, ``Les lierres`` -> ``aux lierres``, ``La tentacula`` -> ``à la tentacula``,
    ``L'esprit`` -> ``à l'esprit``, ``Aurora`` -> ``à Aurora``."""
    m = _ANY_ARTICLE.match(name)
    if m is None:
        return f"à {name}"
    rest = name[m.end():].lstrip()
    article = m.group(1).lower()
    if article == "le":
        return f"au {rest}"
    if article == "les":
        return f"aux {rest}"
    if article == "l'":
        return f"à l'{rest}"
    return f"à la {rest}"


_ARTICLE_OF = {"le": "du", "les": "des", "la": "de la", "l'": "de l'"}


def of_name(name: str) -> str:
    """French « de » before a name, contracted with its article: ``La tentacula vénéneuse``
    -> ``de la tentacula vénéneuse``, ``Le strangulot`` -> ``du strangulot``, ``L'esprit`` ->
    ``de l'esprit``, ``Aurora`` -> ``d'Aurora`` (reader after issue 25, C5 and C39)."""
    low = name.lower()
    for article, contracted in _ARTICLE_OF.items():
        if low.startswith(article + ("" if article.endswith("'") else " ")):
            rest = name[len(article):].lstrip()
            return f"{contracted}{rest}" if contracted.endswith("'") else f"{contracted} {rest}"
    return _de(name)


_DRAW = re.compile(r"^reward:(creature|mechanism):(\S+):(\d+) (\d+)/(\d+)$")
_DRAW_KIND_FR = {"creature": "de la créature", "mechanism": "du mécanisme"}


def _draw(audit: str, names: Any = None) -> str | Trusted:
    """A 2v2 reward draw as players read it, one sentence that also holds what the
    verification tool needs to recompute it (issue 25). With ``names`` (``{"creature:<key>":
    display name, "mechanism:<key>": …}``, the environment's, :func:`forumbot.duels.
    duo_context.turn_context`), the source is named as the ruleset writes it (reader3: never
    a lowercase key): ``reward:creature:strangulot:42 3/4`` -> ``la récompense du strangulot
    du bassin, gagnée au message n° 42, tirée au sort avec un dé à 4 faces, qui a donné 3``
    (after « reçoit en récompense 20 PV : »; newcomer 7 #22: no nested parentheses, and no
    « (tirage : 3) », a second colon in the sentence)
    (:mod:`forumbot.duels.verify` finds the key again in the environment; seventh reader, C2:
    « 3 sur 4 » said nothing to a player; the die's faces, not « les 4 récompenses possibles »,
    since a table's entries are weighted: the strangulot's 4 faces draw among 3 rewards).
    A source missing from ``names`` (or no ``names``) keeps the key: ``la récompense de la créature
    « strangulot », …``. A draw of another shape is returned as is. :class:`Trusted`, the
    bot's own words, written with their no-break spaces (a plain value's spaces are
    collapsed by the renderer)."""
    m = _DRAW.match(audit.strip())
    if m is None:
        return audit
    kind, key, post_id, value, sides = m.groups()
    name = (names or {}).get(f"{kind}:{key}")
    source = (
        of_name(neutralise(str(name))) if name
        else f"{_DRAW_KIND_FR[kind]} «\u202f{key}\u202f»"
    )  # fmt: skip
    return Trusted(
        f"la récompense {source}, gagnée au message "
        f"n°\u00a0{post_id}, tirée au sort avec un dé à {sides}\u00a0faces, "
        f"qui a donné {value}"
    )


def _verbatim(text: str) -> Verbatim:
    """A string literal of a template printed exactly as written (players' syntax such as
    « Déplacement : zone 2 »): :class:`~forumbot.publish.typography.TypographyExtension` skips
    a literal followed by this filter."""
    return Verbatim(text)


_MAGIC_FR = {"discrete": "discrète"}
_SOURCE_FR = {
    "unlisted_spell": "sort hors liste de l'adversaire",
    "shield": "Charme du Bouclier",
}


def _source(source: str) -> str:
    """The source of a modifier or effect as players read it: an internal id becomes French
    (``magic:flamboyante`` -> ``magie flamboyante``, ``unlisted_spell`` -> ``sort hors liste
    de l'adversaire``); a spell name is kept."""
    if source.startswith("magic:"):
        key = source.removeprefix("magic:")
        return f"magie {_MAGIC_FR.get(key, key)}"
    return _SOURCE_FR.get(source, source)


@jinja2.pass_context
def _message(context: Any, post_id: Any) -> Trusted:
    """« message n° 12 » linked to the post when the context has ``post_link`` (the board's
    post address with ``{id}``, :attr:`forumbot.duels.flow.FlowSettings.post_link`):
    ``[url=…]message n° 12[/url]``; plain text otherwise. ``post_id`` must be an int."""
    number = int(post_id)
    text = f"message n°\u00a0{number}"
    link = context.get("post_link")
    if isinstance(link, str) and link.startswith(("http://", "https://")):
        url = link.replace("{id}", str(number))
        if not any(ch in url for ch in "[] \n"):
            return Trusted(f"[url={url}]{text}[/url]")
    return Trusted(text)


VERIFICATION_TOOL = "l'outil de vérification du club"
"""What the posts call ``forumbot verify-dice`` (players never see a command's name)."""
VERIFICATION_UNLINKED = (
    ", qui relit ce sujet et refait chaque tirage (demandez le lien à l'arbitre)"
)
"""Said after :data:`VERIFICATION_TOOL` when there is no page to link to: what the tool does
and whom to ask (a post to both players: « vous »)."""


@jinja2.pass_context
def _verification(context: Any, words: Any = VERIFICATION_TOOL) -> Trusted:
    """« l'outil de vérification du club », linked to the page that tells players how to check
    the dice when the context has ``verify_docs_url`` (``club.verify_docs_url``, issue 25):
    ``[url=…]l'outil de vérification du club[/url]``; otherwise the words and what the tool
    does, with whom to ask (:data:`VERIFICATION_UNLINKED`)."""
    text = str(words)
    link = context.get("verify_docs_url")
    if isinstance(link, str) and link.startswith(("http://", "https://")):
        if not any(ch in link for ch in "[] \n"):
            return Trusted(f"[url={link}]{text}[/url]")
    return Trusted(text + VERIFICATION_UNLINKED)


def make_environment(language: str = "fr") -> jinja2.Environment:
    """A jinja2 environment for ``language`` with neutralising ``finalize`` and French
    typography on the templates' own text (:class:`~forumbot.publish.typography.
    TypographyExtension`: applied once at compile time to every template's literals, never to
    an interpolated value; ``{{ "Cible : nom"|verbatim }}`` prints players' syntax as is).

    Raises:
        ValueError: when no templates exist for that language.
    """
    folder = TEMPLATES_DIR / language
    if not folder.is_dir():
        raise ValueError(f"no declaration templates for language {language!r}")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=False,  # BBCode, not HTML: neutralise() does the escaping
        finalize=neutralise,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        extensions=[TypographyExtension],
    )
    env.filters["signed"] = signed
    env.filters["verbatim"] = _verbatim
    env.filters["message"] = _message
    env.filters["de"] = _de
    env.filters["inline"] = _inline
    env.filters["source"] = _source
    env.filters["que"] = _que
    env.filters["to"] = _to
    env.filters["of"] = of_name
    env.filters["draw"] = _draw
    # a value printed as the bot's own words (a magic type's owl sentence from the club's
    # ruleset, a topic title in a heading): neutralised, then typeset (reader2 T1, T2)
    env.filters["typeset"] = lambda value: Trusted(typeset(neutralise(str(value))))
    env.globals["verification_tool"] = _verification
    return env


@functools.cache
def _environment(language: str, *, own_words: bool) -> jinja2.Environment:
    """The environment :func:`render` uses for ``language``, made once per process (jinja2
    then compiles each template once, not at every render: issue 12, a poll of 30 duels spent
    a fifth of its CPU recompiling templates). ``own_words``: the variant whose ``finalize``
    prints untrusted strings as "" (:data:`RENDER_CHECKS`)."""
    env = make_environment(language)
    if own_words:
        env.finalize = _own_words_only
    return env


RENDER_CHECKS: list[Callable[[str, str, str], None]] = []
"""Called as ``check(template, language, text)`` after every :func:`render`; empty in
production. The test suite registers the BBCode and French checks of
:mod:`forumbot.publish.checks` here (tests/conftest.py), so every branch a test reaches is
checked. ``text`` is then a :class:`Rendered`: its ``own_words`` are the same render with every
untrusted string value left out, so a check of the bot's own wording (« tu » / « vous »,
gendered words) is not set off by what a player wrote."""


class Rendered(str):
    """A rendered text handed to :data:`RENDER_CHECKS`, with ``own_words``: the template's
    words and the trusted or numeric values only (player text and other plain strings
    printed as "")."""

    own_words: str


def _own_words_only(value: Any) -> Any:
    # players' words and the syntax players type (Verbatim) are not the bot's wording
    if isinstance(value, str) and (not isinstance(value, Trusted) or isinstance(value, Verbatim)):
        return ""
    return neutralise(value)


def render(template: str, context: dict[str, Any], language: str = "fr") -> str:
    """Render ``<language>/<template>`` with ``context``; returns BBCode text.

    A context with ``hours`` (a ruleset's deadline) is given its ``deadline`` phrase first,
    in place (:func:`forumbot.publish.deadline_text.fill_deadline`: « avant le jeudi 3 décembre à
    20 h 54 », from ``planned_at`` in ``timezone``), so a stored context renders the same date.

    Raises:
        jinja2.TemplateNotFound, jinja2.UndefinedError: on a template bug.
    """
    fill_deadline(context)
    if isinstance(context.get("deadline"), str):  # the bot's words, with no-break spaces
        context["deadline"] = Trusted(context["deadline"])
    text = _environment(language, own_words=False).get_template(template).render(**context)
    text = re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
    if RENDER_CHECKS:
        checked = Rendered(text)
        checked.own_words = (
            _environment(language, own_words=True).get_template(template).render(**context)
        )
        for check in RENDER_CHECKS:
            check(template, language, checked)
    return text


MARKER_STYLES: dict[str, tuple[int, str]] = {
    # phpBB: [size] is a percentage (1 to the board's max_post_font_size, 200 by default);
    # 50 is the editor's own smallest choice (« Très petite »), so a board whose editor
    # offers it accepts it. The colour is a light grey-blue near prosilver's post
    # backgrounds (#ECF3F7, #E1EBF2): readable on a close look, never in the way.
    "phpbb3": (50, "#B4C0CA"),
    # Forumactif: [size] is in pixels (`<span style="font-size: 16px; line-height: normal">`,
    # shared/fixtures/forumactif/REPORT.md): [size=70] printed the marker 70 px high. 9 px is
    # the smallest size Forumactif's editor lists; a neutral light grey fits its light and
    # dark themes alike.
    "forumactif": (9, "#A8A8A8"),
}
"""Per platform: the marker's ``[size]`` (phpBB %, Forumactif px) and ``[color]`` (issue 25:
as discreet as each platform allows while the marker text stays in the rendered HTML and in
the quote/edit source, where :meth:`find_marker` and the outbox searches look)."""


def marker_line(key: str, platform: str = "phpbb3") -> str:
    """The marker appended to every bot post: how the bot recognises its own posts.

    Shape: ``[size=N][color=#…]forumbot·<key>·[/color][/size]`` with the platform's
    :data:`MARKER_STYLES` (unknown platform: phpBB's); ``find_marker`` searches for the text
    ``forumbot·<key>·`` (see :func:`marker_text`), which no tag splits.
    """
    size, color = MARKER_STYLES.get(platform, MARKER_STYLES["phpbb3"])
    return f"\n[size={size}][color={color}]{marker_text(key)}[/color][/size]"


def client_platform(client: object) -> str:
    """The platform a forum client posts to (its ``platform`` class attribute; ``phpbb3``
    for a client without one, e.g. a test double)."""
    return str(getattr(client, "platform", "phpbb3"))


def marker_text(key: str) -> str:
    """The visible text of the marker for an idempotency key: ``forumbot·<key>·``.

    The closing ``·`` makes every marker a whole token: ``forumbot·b1t7-turn1·`` is not a
    substring of ``forumbot·b1t7-turn10·``.
    """
    return f"forumbot·{key}·"
