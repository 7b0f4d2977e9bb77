"""Reading Forumactif (Forumotion) pages the client needs besides topics: forum listings,
PM folders, and the answers to ``POST /post`` / ``POST /privmsg`` / ``POST /login``.

Pure functions (HTML in, values out); the topic pages themselves are read by
:func:`parsers.forumactif.parse_topic_page`. Sources (``fixtures/forumactif/REPORT.md``):

* listing rows: ``a.topictitle`` (phpBB3/phpBB2/PunBB/Invision), AwesomeBB
  ``.posts-description h3 a[href^="/t"]``; topic links ``/t{T}-slug``, pages ``/t{T}p{start}-slug``,
  the last-post link points at ``/t{T}p{start}-slug#{P}`` (section 3 and 6.2);
* POST answers (section 6.3-6.4): success "enregistré avec succès" (MODERACTOR, French) / "has been
  entered successfully" (CHALO) with a link ``/viewtopic?t=T&p=P#P`` (FAM), maybe in a meta
  refresh; errors "Flood control", "A new message has been posted", "is too long." (CHALO);
  captcha ``#funcaptcha`` / ``g-recaptcha``; PM success "Your message has been sent" (CHALO).
  French error wordings are not documented anywhere: the French patterns below are ASSUMED and
  every pattern list is a parameter.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from lxml import html as lxml_html

from forumbot.forums.base import TopicSummary
from parsers.forumactif.encoding import decode_html
from parsers.forumactif.forms import (
    DEFAULT_FLOOD_PATTERNS,
    DEFAULT_NEW_POST_PATTERNS,
    find_flood_error,
    find_new_post_warning,
    parse_login_form,
)
from parsers.forumactif.htmltext import Element, extract
from parsers.forumactif.userdata import logged_in_username, parse_userdata

log = logging.getLogger("forumbot.forums")

_TOPIC_HREF_RE = re.compile(
    r"^(?:https?://[^/]+)?/t(?P<t>\d+)(?:p(?P<start>\d+))?-[^#?]*(?:\?[^#]*)?(?:#p?(?P<p>\d+))?$"
)
_VIEWTOPIC_RE = re.compile(r"/viewtopic\?(?P<q>[^\"'#\s<>]+)")
_QUERY_INT_RE = r"(?:^|&(?:amp;)?){key}=(\d+)"
_USER_HREF_RE = re.compile(r"^(?:https?://[^/]+)?/u(\d+)(?:[-/?#]|$)")
_INT_RE = re.compile(r"\d+")
_PM_READ_RE = re.compile(r"[?&](?:amp;)?p=(\d+)")

#: Success of ``POST /post``: French from MODERACTOR's regex, English from CHALO.
POSTED_PATTERNS: tuple[str, ...] = (
    r"enregistr[ée] avec succ[èe]s",
    r"has been (?:entered|posted) successfully",
)
#: Success of ``POST /privmsg``: English real (CHALO); French ASSUMED.
PM_SENT_PATTERNS: tuple[str, ...] = (
    r"your message has been sent",
    r"votre message (?:priv[ée] )?a (?:bien )?[ée]t[ée] envoy[ée]",
)
#: Unknown topic/forum/post/user. English real (CHALO "do not exist"); French ASSUMED.
NOT_FOUND_PATTERNS: tuple[str, ...] = (
    r"(?:sujet|message|forum|topic|post)[^.]{0,40}n['’]existe pas",
    r"does not exist|do not exist|n['’]existe(?:nt)? pas",
)
#: The board refuses the action (locked topic, group rights, somebody else's post). ASSUMED
#: wordings (the "propres messages" / "your own posts" ones are phpBB2's ``Edit_own_posts``).
DENIED_PATTERNS: tuple[str, ...] = (
    r"d[ée]sol[ée],? mais seuls",
    r"sorry,? but only",
    r"vous ne pouvez (?:[ée]diter|modifier) que vos propres messages",
    r"you can only edit your own posts",
    r"vous n['’][êe]tes pas autoris[ée]",
    r"vous n['’]avez pas (?:la permission|les droits|l['’]autorisation)",
    r"ce sujet est verrouill[ée]",
    r"this topic is locked",
)
#: The topic or forum is locked (phpBB2's ``Topic_locked`` / ``Forum_locked``, which Forumactif
#: inherits: ASSUMED, no Forumactif capture). Checked before :data:`DENIED_PATTERNS`.
LOCKED_PATTERNS: tuple[str, ...] = (
    r"ce (?:sujet|forum) est verrouill[ée][^.]*",
    r"this (?:topic|forum) is locked[^.]*",
)
#: The post or PM was saved but waits for a moderator. No Forumactif source knows such an
#: answer (REPORT.md has none): these are phpBB's wordings, kept so a board that has one is
#: not read as "not posted" (ASSUMED, logged as unconfirmed when met).
QUEUED_PATTERNS: tuple[str, ...] = (
    r"requiert l['’]approbation d['’]un mod[ée]rateur",
    r"(?:doit|devra) [êe]tre (?:approuv[ée]|valid[ée]) par un mod[ée]rateur",
    r"(?:approved|validated) by a moderator",
)
#: A PM refused because the recipient's inbox is full (phpBB2's ``Inbox_full`` family;
#: Forumactif wording ASSUMED, no capture).
INBOX_FULL_PATTERNS: tuple[str, ...] = (
    r"bo[îi]te de r[ée]ception[^.]{0,80}pleine",
    r"inbox[^.]{0,60}\bfull\b",
)
#: The message or subject is refused as is ("is too long." real, CHALO).
INVALID_PATTERNS: tuple[str, ...] = (
    r"is too long",
    r"est trop long",
    r"trop peu de caract[èe]res",
    r"vous devez (?:entrer|indiquer|sp[ée]cifier)",
    r"you must (?:enter|specify)",
)

_CAPTCHA_MARKERS = ("g-recaptcha", "funcaptcha", "h-captcha", 'name="confirm_code"')
_DELAY_RE = re.compile(
    r"(?P<n>\d+(?:[.,]\d+)?)\s*(?P<unit>secondes?|seconds?|sec\b|s\b|\(s\)|minutes?|min\b)",
    re.IGNORECASE,
)


def _tree(html: str | bytes) -> Element:
    return lxml_html.document_fromstring(decode_html(html) or "<html></html>")


def _squash(text: str) -> str:
    return " ".join(text.split())


def page_text(html: str | bytes) -> str:
    """Visible text of a page (scripts and styles left out), whitespace squashed."""
    tree = _tree(html)
    for el in tree.xpath("//script | //style | //noscript"):
        el.drop_tree()
    return _squash(tree.text_content())


def _search(text: str, patterns: Sequence[str]) -> str | None:
    for pattern in patterns:
        match = re.search(r"[^.!]*(?:" + pattern + r")[^.!]*[.!]?", text, re.IGNORECASE)
        if match:
            return _squash(match.group(0))
    return None


# ---------------------------------------------------------------------------- listings


def _row_of(link: Element, topic_id: int) -> Element:
    """The link's highest ancestor that links to no other topic (the listing row)."""
    row = link
    for ancestor in link.iterancestors():
        if ancestor.tag in ("body", "html"):
            break
        other = False
        for a in ancestor.iter("a"):
            match = _TOPIC_HREF_RE.match(a.get("href") or "")
            if match and int(match.group("t")) != topic_id:
                other = True
                break
        if other:
            break
        row = ancestor
    return row


def _replies(row: Element) -> int:
    for el in row.iter():
        if not isinstance(el.tag, str):
            continue
        classes = (el.get("class") or "").split()
        if any(c in ("posts", "posts-statistics-replies", "replies", "tc2") for c in classes):
            match = _INT_RE.search(el.text_content().replace("\xa0", "").replace(" ", ""))
            if match:
                return int(match.group(0))
    return 0


def parse_topic_listing(html: str | bytes) -> list[TopicSummary]:
    """Topic rows of a forum page (``/f{F}-slug``), in page order.

    Each row: ``topic_id`` and ``title`` from the title link (``a.topictitle``, else the first
    topic link whose text is not a page number), ``last_post_id`` from the highest ``#P``
    fragment of a link to the same topic in the row (the last-post link), ``replies`` from
    the replies cell (``dd.posts``, ``.posts-statistics-replies``), ``author`` from the first
    profile link ``/uN`` of the row (guests: None). Sub-forum links (``/f``) are ignored.
    """
    tree = _tree(html)
    titles: dict[int, Element] = {}
    for link in tree.iter("a"):
        match = _TOPIC_HREF_RE.match(link.get("href") or "")
        if match is None or match.group("p") or match.group("start"):
            continue
        text = _squash(link.text_content())
        if not text or text.isdigit():
            continue
        topic_id = int(match.group("t"))
        is_title = "topictitle" in (link.get("class") or "").split()
        if topic_id not in titles or (
            is_title and "topictitle" not in (titles[topic_id].get("class") or "").split()
        ):
            titles[topic_id] = link
    rows: list[TopicSummary] = []
    for topic_id, link in titles.items():
        row = _row_of(link, topic_id)
        last: int | None = None
        for a in row.iter("a"):
            match = _TOPIC_HREF_RE.match(a.get("href") or "")
            if match and int(match.group("t")) == topic_id and match.group("p"):
                last = max(last or 0, int(match.group("p")))
        author = _profile_name(row)
        rows.append(
            TopicSummary(
                topic_id=topic_id,
                title=_squash(link.text_content()),
                last_post_id=last,
                replies=_replies(row),
                author=author,
            )
        )
    return rows


@dataclass(frozen=True)
class PmRow:
    """One private message of a folder listing: its id, subject, read URL and the other
    user's name (the sender in the inbox, the recipient in the outbox/sentbox; None when
    the row does not show it)."""

    msg_id: int
    subject: str
    href: str
    other_user: str | None = None


def _profile_name(el: Element, skip: Element | None = None) -> str | None:
    """The name of the first profile link (``/uN``, with text) under ``el``, except
    ``skip``; None when there is none."""
    for a in el.iter("a"):
        if a is not skip and _USER_HREF_RE.match(a.get("href") or ""):
            name = _squash(a.text_content())
            if name:
                return name
    return None


def parse_pm_folder(html: str | bytes) -> list[PmRow]:
    """Messages of a PM folder page (``/privmsg?folder=...``), newest first: every link to
    a message (``{listrow.U_READ}``: ``/privmsg?...&p=N``; ``a.topictitle`` on phpBB2,
    phpBB3, ModernBB, PunBB and Invision, a plain link in AwesomeBB's
    ``span.notification-title``) — the default ``privmsgs_body`` of every version
    (REPORT.md 6.4, [M]; no real inbox page was captured).

    The other user (``{listrow.FROM}``) is read from the row holding the link (``li``,
    ``tr`` or AwesomeBB's ``div.notification-row``): a profile link ``/uN`` when the board
    renders the name as one; else phpBB2's ``span.name``; else the text after the subject
    (``[par] FROM - DATE``: phpBB3's ``<em>``, AwesomeBB's ``span.notification-date``,
    PunBB/Invision's ``{L_BY} FROM - DATE``). Forumactif dates contain " - " too ("Lun 30
    Nov 2026 - 16:24"): the name is what comes before the first one."""
    tree = _tree(html)
    rows: list[PmRow] = []
    seen: set[int] = set()
    for link in tree.iter("a"):
        href = link.get("href") or ""
        match = _PM_READ_RE.search(href)
        if "/privmsg" not in href or match is None or "mode=post" in href:
            continue
        if "mode=read" not in href and "topictitle" not in (link.get("class") or "").split():
            continue
        msg_id = int(match.group(1))
        if msg_id in seen:
            continue
        seen.add(msg_id)
        rows.append(PmRow(msg_id, _squash(link.text_content()), href, _pm_row_user(link)))
    return rows


_BY_WORDS = ("par", "by", "de", "from")


def _pm_row_user(link: Element) -> str | None:
    """The user named in the listing row around ``link`` (see :func:`parse_pm_folder`)."""
    row = link.getparent()
    while row is not None and not (
        row.tag in ("li", "tr") or "notification-row" in (row.get("class") or "").split()
    ):
        row = row.getparent()
    if row is None:
        return None
    linked = _profile_name(row, skip=link)
    if linked is not None:
        return linked
    for span in row.iter("span"):
        if "name" in (span.get("class") or "").split():
            return _squash(span.text_content()) or None
    text = _squash(row.text_content())
    subject = _squash(link.text_content())
    after = (text.split(subject, 1)[1] if subject and subject in text else text).strip()
    words = after.split(" ", 1)
    if len(words) == 2 and words[0].casefold() in _BY_WORDS:
        after = words[1]
    name = after.split(" - ", 1)[0].strip() if " - " in after else ""
    return name or None


def pm_message_text(html: str | bytes) -> str:
    """Text of a PM read page, line breaks kept: the message body (``div.postbody
    div.content`` of phpBB3/ModernBB, ``div.content`` of AwesomeBB, ``.entry-content`` of
    PunBB, ``.post-entry`` of Invision, ``div.postbody`` of phpBB2), else the whole page
    text."""
    tree = _tree(html)
    for xpath in (
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' postbody ')]"
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' content ')]",
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' content ')]",
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' entry-content ')]",
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' post-content ')]",
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' post-entry ')]",
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' postbody ')]",
    ):
        found = tree.xpath(xpath)
        if found:
            return "\n\n".join(_lines_of(el) for el in found).strip()
    return page_text(html)


def _lines_of(el: Element) -> str:
    """``el``'s displayed lines (``<br>`` and blocks break lines), blank runs collapsed."""
    lines = [line for line in extract(el, lambda _e: False).texts()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def pm_sender(html: str | bytes) -> str | None:
    """The sender named on a PM read page: the ``{MESSAGE_FROM}`` place of each version's
    ``privmsgs_read_body`` that holds the sender alone (ModernBB ``.postprofile-name``,
    PunBB ``span.username``, Invision ``.postprofile-head``, phpBB3 ``dl.postprofile dt``):
    its profile link ``/uN``, else its text; else the author line (phpBB3 ``p.author``,
    AwesomeBB ``div.block-post-footer-details``: "De {MESSAGE_FROM} à {MESSAGE_TO}"): its
    first profile link when only the label comes before it, else the words between the two
    labels (a plain-text sender before the recipient's link; [L]: one-word labels assumed);
    else phpBB2's label cell "De :" and the cell after it. None when nothing says."""
    tree = _tree(html)
    for xpath in (
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' postprofile-name ')]",
        "//span[contains(concat(' ', normalize-space(@class), ' '), ' username ')]",
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' postprofile-head ')]",
        "//dl[contains(concat(' ', normalize-space(@class), ' '), ' postprofile ')]/dt",
    ):
        for el in tree.xpath(xpath):
            text = _profile_name(el) or _squash(el.text_content())
            if text:
                return text
    for line in tree.xpath(
        "//p[contains(concat(' ', normalize-space(@class), ' '), ' author ')]"
        " | //div[contains(concat(' ', normalize-space(@class), ' '),"
        " ' block-post-footer-details ')]"
    ):
        before = _squash(line.text or "").split()
        first = _profile_name(line)
        if first is not None and len(before) <= 1:  # "De <a>sender</a> à ..."
            return first
        if first is not None and len(before) >= 3:  # "De sender à <a>recipient</a>"
            return " ".join(before[1:-1])  # the words between the two labels
    # phpBB2: a "De :" label cell, then the sender's cell (both ``span.genmed``).
    labels = tree.xpath("//span[contains(concat(' ', normalize-space(@class), ' '), ' genmed ')]")
    for label, value in zip(labels, labels[1:], strict=False):
        if _squash(label.text_content()).endswith(":") and _squash(value.text_content()):
            return _squash(value.text_content())
    return None


# ---------------------------------------------------------------------------- answers

AnswerKind = Literal[
    "posted",
    "pm_sent",
    "flood",
    "new_post",
    "captcha",
    "login_required",
    "not_found",
    "permission_denied",
    "locked",
    "queued",
    "inbox_full",
    "invalid",
    "unknown",
]


@dataclass(frozen=True)
class Answer:
    """What a ``POST /post`` or ``POST /privmsg`` answer says.

    Attributes:
        kind: see :data:`AnswerKind`.
        message: the board's sentence that decided ``kind`` (None when none).
        post_id / topic_id: from the confirmation link ``/viewtopic?t=T&p=P`` when present.
        wait_s: seconds the flood message asks to wait, when it says (else None).
    """

    kind: AnswerKind
    message: str | None = None
    post_id: int | None = None
    topic_id: int | None = None
    wait_s: float | None = None


def parse_delay(text: str) -> float | None:
    """Seconds from a wait hint such as "wait 10 second(s)", "patienter 12 secondes",
    "2 minutes"; None when the text gives none."""
    match = _DELAY_RE.search(text)
    if match is None:
        return None
    value = float(match.group("n").replace(",", "."))
    return value * 60 if match.group("unit").lower().startswith("min") else value


def _int_param(query: str, key: str) -> int | None:
    match = re.search(_QUERY_INT_RE.format(key=key), query)
    return int(match.group(1)) if match else None


def confirmation_ids(html: str) -> tuple[int | None, int | None]:
    """``(topic_id, post_id)`` of the first ``/viewtopic?t=T&p=P`` link, meta refresh or
    ``location.href`` of a confirmation page; ``(None, None)`` when there is none."""
    for match in _VIEWTOPIC_RE.finditer(html):
        query = match.group("q")
        post_id = _int_param(query, "p")
        topic_id = _int_param(query, "t")
        if post_id is not None or topic_id is not None:
            return topic_id, post_id
    return None, None


def is_guest_page(html: str) -> bool:
    """True when the page's ``_userdata`` says nobody is logged in (False when absent)."""
    data = parse_userdata(html)
    return bool(data) and logged_in_username(data) is None


def classify_answer(
    html: str,
    *,
    flood_patterns: Sequence[str] = DEFAULT_FLOOD_PATTERNS,
    new_post_patterns: Sequence[str] = DEFAULT_NEW_POST_PATTERNS,
) -> Answer:
    """Classify the HTML answer to a posting / PM POST (first match wins, in this order:
    flood, captcha, new post meanwhile, success, queued for a moderator, PM sent, guest, inbox
    full, locked, not found, denied, invalid)."""
    flood = find_flood_error(html, flood_patterns)
    text = page_text(html)
    if flood is not None:
        at = text.find(flood[:30])
        window = text[at : at + len(flood) + 200] if at >= 0 else flood
        return Answer("flood", flood, wait_s=parse_delay(window))
    lowered = html.lower()
    if any(marker in lowered for marker in _CAPTCHA_MARKERS):
        return Answer("captcha", "the board asks for a CAPTCHA")
    warning = find_new_post_warning(html, new_post_patterns)
    if warning is not None:
        return Answer("new_post", warning)
    topic_id, post_id = confirmation_ids(html)
    queued = _search(text, QUEUED_PATTERNS)  # before success: "enregistré, mais à approuver"
    if queued is not None:
        return Answer("queued", queued, post_id=post_id, topic_id=topic_id)
    posted = _search(text, POSTED_PATTERNS)
    if posted is not None:
        return Answer("posted", posted, post_id=post_id, topic_id=topic_id)
    sent = _search(text, PM_SENT_PATTERNS)
    if sent is not None:
        return Answer("pm_sent", sent)
    if is_guest_page(html) and parse_login_form(html) is not None:
        return Answer("login_required", "the answer is a guest page with a login form")
    for kind, patterns in (
        ("inbox_full", INBOX_FULL_PATTERNS),
        ("locked", LOCKED_PATTERNS),
        ("not_found", NOT_FOUND_PATTERNS),
        ("permission_denied", DENIED_PATTERNS),
        ("invalid", INVALID_PATTERNS),
    ):
        found = _search(text, patterns)
        if found is not None:
            return Answer(kind, found)  # type: ignore[arg-type]
    if post_id is not None:
        return Answer("posted", None, post_id=post_id, topic_id=topic_id)
    return Answer("unknown", None)


# Wordings of docs/forumactif.md that no source confirms: met on a real board, each is
# logged (one WARNING naming the page and the doc section) so the table can be corrected.
UNCONFIRMED_WORDINGS: tuple[tuple[str, str, str], ...] = (
    ("flood", r"si rapidement|contr[ôo]le du flood|patiente", "Posting and editing"),
    ("new_post", r"nouveau message|a été posté", "Posting and editing"),
    ("invalid", r"trop long", "Posting and editing"),
    ("permission_denied", r".", "Posting and editing"),
    ("locked", r".", "Posting and editing"),
    ("queued", r".", "Posting and editing"),
    ("inbox_full", r".", "Private messages"),
    ("not_found", r"n['’]existe pas", "Private messages"),
    ("pm_sent", r"votre message a été envoyé", "Private messages"),
)
"""``(answer kind, regex over the deciding sentence, docs/forumactif.md section)``."""


_NOTED: set[str] = set()
"""Unconfirmed wordings already logged by this process (one WARNING each, not one per post)."""


def note_answer(answer: Answer, where: str, html: str = "") -> Answer:
    """Log what docs/forumactif.md cannot vouch for, and return ``answer`` unchanged.

    An ``unknown`` answer (no known wording, no confirmation link) is one WARNING with the
    start of the page's text; an answer decided by an **unconfirmed** wording
    (:data:`UNCONFIRMED_WORDINGS`) is one WARNING quoting it. ``where``: the page or form
    path, for the log line."""
    if answer.kind == "unknown":
        head = " ".join(page_text(html).split())[:160] if html else ""
        log.warning(
            "%s: Forumactif answer not understood (kind unknown, treated as not posted): %r "
            '(docs/forumactif.md, section "What stays unconfirmed")',
            where,
            head,
        )
        return answer
    for kind, pattern, section in UNCONFIRMED_WORDINGS:
        if answer.kind == kind and answer.message and re.search(pattern, answer.message, re.I):
            if pattern in _NOTED:
                break  # said once per process: the doc's table is the lasting record
            _NOTED.add(pattern)
            log.warning(
                "%s: Forumactif answer %s decided by an unconfirmed wording %r "
                '(docs/forumactif.md, section "%s")',
                where,
                kind,
                answer.message[:160],
                section,
            )
            break
    return answer


def login_error(html: str) -> str | None:
    """The board's refusal text on a login answer (the sentence around "incorrect" /
    "mot de passe" / "password"), or None."""
    return _search(
        page_text(html),
        (
            r"incorrect",
            r"invalide",
            r"n['’]existe pas",
            r"wrong|invalid",
            r"compte (?:n['’]est pas|est) (?:activ[ée]|d[ée]sactiv[ée]|bloqu[ée])",
        ),
    )
