"""Pure parsing of phpBB 3.3 (prosilver) pages other than topic pages.

What this module reads (all from HTML text, no I/O):

* forms, as a browser would submit them (:func:`parse_form`);
* the viewer's login state from the header (:func:`logged_in_user`, :func:`is_login_box`);
* error boxes and notices answered to a POST (:func:`classify_notice`): flood, FORM_INVALID,
  post review, queued for approval, PM sent, CAPTCHA, wrong credentials, login required,
  not found, permission denied;
* viewforum topic rows (:func:`parse_topic_list`);
* private-message folders (:func:`parse_pm_folder`; a message's text:
  :func:`parsers.pm_text.parse_pm_message_text`);
* the ``<meta http-equiv="refresh">`` target (:func:`meta_refresh_url`).

Source of every string matched: the real phpBB 3.3.15 captures in ``fixtures/html/phpbb`` (French
language pack and English), see ``FLOWS.md``. French pages use the typographic apostrophe (’) and
NO-BREAK SPACEs, so every match goes through :func:`normalize_text`.

Player text is untrusted: before looking for board messages, post bodies (``div.post``,
``#topicreview``, ``textarea``) are removed so a post quoting "Vous ne pouvez pas poster…" cannot
fake a flood error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import lxml.etree
from bs4 import BeautifulSoup, UnicodeDammit
from bs4.filter import SoupStrainer

from parsers.errors import ParseError
from parsers.form_fragment import form_markup
from parsers.tree import html_parser, utf8_html_parser

NoticeKind = Literal[
    "flood",
    "form_invalid",
    "post_review",
    "queued",
    "locked",
    "pm_sent",
    "captcha",
    "wrong_credentials",
    "login_required",
    "not_found",
    "permission_denied",
    "other_error",
    "none",
]

# Board strings, FR then EN, already normalized (see normalize_text).
FLOOD_TEXTS = (
    "vous ne pouvez pas poster un nouveau message, si tôt après le dernier",
    "you cannot make another post so soon after your last",
)
FORM_INVALID_TEXTS = (
    "le formulaire envoyé n'est pas valide",
    "the submitted form was invalid",
)
POST_REVIEW_TEXTS = (
    "au moins un nouveau message a été ajouté",
    "at least one new post has been made",
)
QUEUED_TEXTS = (
    "requiert l'approbation d'un modérateur",
    "approved by a moderator",
)
PM_SENT_TEXTS = (
    "votre message a été envoyé",
    "your message has been sent successfully",
)
CAPTCHA_TEXTS = (
    "nombre maximum autorisé de tentatives",
    "maximum allowed number of login attempts",
)
WRONG_CREDENTIALS_TEXTS = (
    "mot de passe incorrect",
    "nom d'utilisateur incorrect",
    "incorrect password",
    "incorrect username",
)
NOT_FOUND_TEXTS = (
    "le sujet demandé n'existe pas",
    "le forum demandé n'existe pas",
    "the requested topic does not exist",
    "the requested forum does not exist",
    "le forum que vous avez tenté d'atteindre n'existe pas",
    "the forum you selected does not exist",
)
LOCKED_TEXTS = (
    # TOPIC_LOCKED: packs word its end differently (a real 3.3.15 phpBB-fr: « Ce sujet est
    # verrouillé, vous ne pouvez pas modifier de messages ou poster de réponse. »): its opening
    "ce sujet est verrouillé", "this topic is locked",
    # FORUM_LOCKED: posting.php answers it alone in the information box
    "forum verrouillé", "ce forum est verrouillé", "forum locked", "this forum is locked",
)  # fmt: skip
PERMISSION_TEXTS = (
    "vous n'êtes pas autorisé",
    "you are not authorised",
    "you are not authorized",
    # USER_CANNOT_REPLY / USER_CANNOT_POST / USER_CANNOT_FORUM_POST (language/en/posting.php,
    # mcp.php, common.php); the French wording is ASSUMED from the phpBB-fr pack
    "you cannot reply in this forum",
    "you cannot post in this forum",
    "you are not allowed to post",
    "vous ne pouvez pas répondre aux sujets de ce forum",
    "vous ne pouvez pas écrire de nouveaux sujets dans ce forum",
)


def normalize_text(text: str) -> str:
    """Lower-case ``text``, turn typographic apostrophes into ``'`` and collapse white space.

    NO-BREAK SPACE (U+00A0) and NARROW NO-BREAK SPACE (U+202F) count as spaces.
    """
    text = text.replace("\u2019", "'").replace("\u00a0", " ").replace("\u202f", " ")
    return re.sub(r"\s+", " ", text).strip().lower()


def _soup(html: str | bytes, only: SoupStrainer | None = None) -> Any:  # only: e.g. a form
    return BeautifulSoup(html, "lxml", parse_only=only)


def _contains_any(text: str, needles: tuple[str, ...]) -> bool:
    return any(needle in text for needle in needles)


@dataclass(frozen=True)
class HtmlForm:
    """A form as a browser would submit it.

    Attributes:
        form_id: the ``id`` attribute, or None.
        action: the ``action`` attribute, entities decoded (relative, e.g.
            ``./posting.php?mode=reply&t=2``).
        fields: successful controls in document order (hidden/text/password inputs, checked
            checkboxes and radios, textareas, selects), submit buttons excluded. A name may occur
            twice (phpBB's login form has two ``redirect``); PHP keeps the last.
        submits: ``(name, value)`` of each submit button, in document order.
    """

    form_id: str | None
    action: str
    fields: tuple[tuple[str, str], ...]
    submits: tuple[tuple[str, str], ...]

    def value(self, name: str) -> str | None:
        """Value of field ``name`` as PHP sees it (the last one wins), or None."""
        found: str | None = None
        for key, val in self.fields:
            if key == name:
                found = val
        return found

    def has(self, name: str) -> bool:
        """True when the form has a field (not a button) called ``name``."""
        return any(key == name for key, _ in self.fields)

    def submit_value(self, name: str) -> str | None:
        """The value (label) of submit button ``name``, or None when absent."""
        for key, val in self.submits:
            if key == name:
                return val
        return None

    @property
    def has_captcha(self) -> bool:
        """True when the form asks for a CAPTCHA (phpBB ``confirm_code`` / ``confirm_id``)."""
        return self.has("confirm_code") or self.has("confirm_id")

    def payload(self, overrides: dict[str, str], submit: str | None) -> list[tuple[str, str]]:
        """Body fields for a POST: every field, ``overrides`` replacing (or adding) values,
        then the single submit button ``submit`` with its own value.

        Raises:
            ParseError: when ``submit`` names a button the form does not have.
        """
        body: list[tuple[str, str]] = []
        done: set[str] = set()
        for key, val in self.fields:
            if key in overrides:
                if key in done:
                    continue
                body.append((key, overrides[key]))
                done.add(key)
            else:
                body.append((key, val))
        for key, val in overrides.items():
            if key not in done:
                body.append((key, val))
        if submit is not None:
            label = self.submit_value(submit)
            if label is None:
                raise ParseError(f"form {self.form_id!r} has no submit button {submit!r}")
            body.append((submit, label))
        return body


def _form_from_tag(tag: Any) -> HtmlForm:
    fields: list[tuple[str, str]] = []
    submits: list[tuple[str, str]] = []
    for control in tag.find_all(["input", "textarea", "select", "button"]):
        name = control.get("name")
        if not name or control.has_attr("disabled"):
            continue
        if control.name == "textarea":
            fields.append((name, control.get_text()))
            continue
        if control.name == "select":
            options = control.find_all("option")
            chosen = [o for o in options if o.has_attr("selected")] or options[:1]
            for option in chosen:
                value = option.get("value")
                fields.append((name, value if value is not None else option.get_text()))
            continue
        kind = (control.get("type") or ("submit" if control.name == "button" else "text")).lower()
        value = control.get("value") or ""
        if kind in ("submit", "image"):
            submits.append((name, value))
        elif kind in ("checkbox", "radio"):
            if control.has_attr("checked"):
                fields.append((name, control.get("value") or "on"))
        elif kind in ("file", "reset", "button"):
            continue
        else:
            fields.append((name, value))
    return HtmlForm(
        form_id=tag.get("id"),
        action=tag.get("action") or "",
        fields=tuple(fields),
        submits=tuple(submits),
    )


def parse_form(html: str | bytes, form_id: str) -> HtmlForm | None:
    """The form ``<form id=form_id>`` of the page, or None when the page has none.

    phpBB form ids: ``login`` (login page / login box), ``postform`` (posting and PM compose),
    ``qr_postform`` (quick reply at the bottom of a topic's last page).
    """
    strainer = SoupStrainer("form", id=form_id)
    fragment = form_markup(html, form_id)
    if fragment is not None:
        tag = _soup(fragment, strainer).find("form", id=form_id)
        if tag is not None:
            return _form_from_tag(tag)
    tag = _soup(html, strainer).find("form", id=form_id)
    return None if tag is None else _form_from_tag(tag)


def logged_in_user(html: str | bytes) -> str | None:
    """The viewer's user name from the header (``li#username_logged_in span.username``),
    or None for a guest (the header then shows a "Connexion"/"Login" link instead).

    Asked of every page the client reads, so it builds a plain lxml tree (a BeautifulSoup tree
    of a topic page cost a sixth of a 30-duel poll's CPU, issue 12), and only when the page
    names ``username_logged_in`` at all: of the header alone (the page up to the end of the
    first item naming it) when the name is in it, else of the whole page.
    """
    needle = "username_logged_in" if isinstance(html, str) else b"username_logged_in"
    if needle not in html:  # type: ignore[operator]
        return None
    at = html.find("</li>" if isinstance(html, str) else b"</li>", html.find(needle))  # type: ignore[arg-type]
    head = _page_root(html[: at + 5]) if at > 0 else None
    if head is not None and (items := _LOGGED_IN(head)) and _USERNAME(items[0]):
        return _lxml_logged_in_user(head)
    root = _page_root(html)
    return _lxml_logged_in_user(root) if root is not None else None


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_LOGGED_IN = lxml.etree.XPath('//*[@id="username_logged_in"]')
_USERNAME = lxml.etree.XPath(f".//*[{_has_class('username')}]")
_USERNAME_COLOURED = lxml.etree.XPath(f".//*[{_has_class('username-coloured')}]")
_TEXT_NODES = lxml.etree.XPath(".//text()")


def _lxml_logged_in_user(root: Any) -> str | None:
    """The header's user name in an lxml tree: the first ``username`` descendant of
    ``#username_logged_in``, else the first ``username-coloured`` one; its text nodes
    stripped and joined."""
    items = _LOGGED_IN(root)
    if not items:
        return None
    names = _USERNAME(items[0]) or _USERNAME_COLOURED(items[0])
    if not names:
        return None
    text = _stripped_text(names[0])
    return text or None


def is_login_box(html: str | bytes) -> bool:
    """True when the page is (or embeds) the login form answered to a guest.

    Covers the login page itself and the "Vous devez être connecté pour …" boxes answered with
    HTTP 200 when a session silently expired.
    """
    root = _page_root(html)
    return root is not None and bool(_LOGIN_FORM(root)) and _lxml_logged_in_user(root) is None


def _board_text(soup: Any) -> str:
    """Normalized text of the page body with player content removed."""
    body = soup.find(id="page-body") or soup
    for selector in ("div.post", "#topicreview", "textarea", "div.content", "blockquote"):
        for node in body.select(selector):
            node.decompose()
    return normalize_text(body.get_text(" "))


def error_messages(html: str | bytes, soup: Any = None) -> tuple[str, ...]:
    """Texts of the error boxes (``div.error`` on login pages, ``p.error`` in posting forms),
    in order, white space collapsed (case kept); ``soup``: the page already parsed."""
    soup = _soup(html) if soup is None else soup
    body = soup.find(id="page-body") or soup
    out = []
    for node in body.select("div.error, p.error"):
        text = re.sub(r"\s+", " ", node.get_text(" ").replace("\u00a0", " ")).strip()
        if text:
            out.append(text)
    return tuple(out)


_MESSAGE_ID = re.compile(
    r"""<div\b[^>]*?\bid\s*=\s*["']?\s*message\s*(?:["'\s/>]|$)""", re.IGNORECASE
)
"""A ``div`` start tag with an ``id`` valued ``message`` (looked for before any parsing: most
pages have none; the reply form's ``textarea#message`` is not one)."""


def message_box_text(html: str | bytes, soup: Any = None) -> str | None:
    """Text of phpBB's information box (``div#message``), or None when the page has none.

    Asked of every page read (a disabled board answers 200 with that box), so a page whose
    markup has no ``id="message"`` attribute is not parsed at all; ``soup``: already parsed."""
    if not _MESSAGE_ID.search(html if isinstance(html, str) else html.decode("latin-1")):
        return None
    node = (_soup(html) if soup is None else soup).find("div", id="message")
    if node is None:
        return None
    paragraphs = node.find_all("p")
    text = " ".join(p.get_text(" ") for p in paragraphs) if paragraphs else node.get_text(" ")
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


def meta_refresh_url(html: str | bytes) -> str | None:
    """The URL of ``<meta http-equiv="refresh" content="N; url=…">``, or None."""
    soup = _soup(html)
    for meta in soup.find_all("meta"):
        if (meta.get("http-equiv") or "").lower() != "refresh":
            continue
        match = re.search(r"url=(.+)$", meta.get("content") or "", re.IGNORECASE)
        if match:
            return str(match.group(1).strip())
    return None


@dataclass(frozen=True)
class PageNotice:
    """What a phpBB answer page says about the request just made.

    Attributes:
        kind: see :data:`NoticeKind`; ``"none"`` when nothing was recognised.
        message: the board's own text (error box or information box), or None.
    """

    kind: NoticeKind
    message: str | None = None


def classify_notice(html: str | bytes) -> PageNotice:
    """Classify an answer page (typically the 200 answer to a POST).

    Order of checks: CAPTCHA, FORM_INVALID, flood, wrong credentials, post review, PM sent,
    queued for approval, not found, locked (topic or forum: the information box alone),
    permission denied, login required, other error box.
    """
    soup = _soup(html)  # one tree for every check (read before _board_text trims it)
    errors = error_messages(html, soup)
    error_text = normalize_text(" ".join(errors))
    box = message_box_text(html, soup)
    login_form = soup.find("form", id="login")
    logged_in = logged_in_user(html) is not None
    captcha_in_form = login_form is not None and (
        login_form.find(attrs={"name": "confirm_code"}) is not None
        or login_form.find(attrs={"name": "confirm_id"}) is not None
    )
    text = _board_text(soup)
    first_error = errors[0] if errors else None
    if captcha_in_form or _contains_any(error_text, CAPTCHA_TEXTS):
        return PageNotice("captcha", first_error)
    if _contains_any(error_text, FORM_INVALID_TEXTS):
        return PageNotice("form_invalid", first_error)
    if _contains_any(error_text, FLOOD_TEXTS):
        return PageNotice("flood", first_error)
    if _contains_any(error_text, WRONG_CREDENTIALS_TEXTS):
        return PageNotice("wrong_credentials", first_error)
    if _contains_any(text, POST_REVIEW_TEXTS):
        return PageNotice("post_review", None)
    box_text = normalize_text(box or "")
    if _contains_any(box_text, PM_SENT_TEXTS):
        return PageNotice("pm_sent", box)
    if _contains_any(box_text, QUEUED_TEXTS):
        return PageNotice("queued", box)
    if _contains_any(box_text, NOT_FOUND_TEXTS):
        return PageNotice("not_found", box)
    if box_text and _contains_any(box_text, LOCKED_TEXTS):
        return PageNotice("locked", box)
    if _contains_any(text, PERMISSION_TEXTS):
        return PageNotice("permission_denied", box)
    if login_form is not None and not logged_in:
        title = login_form.find(class_="login-title")
        return PageNotice("login_required", title.get_text(strip=True) if title else None)
    if first_error is not None:
        return PageNotice("other_error", first_error)
    return PageNotice("none", box)


@dataclass(frozen=True)
class TopicRow:
    """One topic row of a viewforum page.

    Attributes:
        topic_id: phpBB ``t``.
        title: the topic title as displayed.
        last_post_id: ``p`` of the "last post" link (``viewtopic.php?p=N#pN``), or None.
        replies: the "Réponses"/"Replies" count.
        author: the topic starter's name, or None.
    """

    topic_id: int
    title: str
    last_post_id: int | None
    replies: int
    author: str | None


def _query_int(href: str, key: str) -> int | None:
    values = parse_qs(urlsplit(href).query).get(key)
    if not values:
        return None
    try:
        return int(values[0])
    except ValueError:
        return None


def _leading_int(text: str) -> int:
    match = re.search(r"\d+", text.replace("\u00a0", "").replace(" ", ""))
    return int(match.group(0)) if match else 0


def parse_topic_list(html: str | bytes, source: str = "<html>") -> tuple[TopicRow, ...]:
    """Topic rows of a ``viewforum.php`` page (sub-forum rows excluded), in page order.

    Read at every poll, so it walks a plain lxml tree (a BeautifulSoup tree made the idle poll
    cost several times more CPU, issue 12); bytes are decoded as BeautifulSoup would.

    Raises:
        ParseError: when the page has no topic list at all (neither rows nor the
            "no topics" panel), e.g. a login box or an error page.
    """
    root = _page_root(html)
    lists = _TOPIC_LISTS(root) if root is not None else []
    if not lists:
        if root is not None and (_LOGIN_FORM(root) or _ANY_MESSAGE(root)):
            raise ParseError("no topic list on this page", source)
        return ()  # an empty forum: "Il n’y a aucun sujet ou message dans ce forum."
    rows: list[TopicRow] = []
    for ul in lists:
        for li in _ROWS(ul):
            title_link = _first(_TOPIC_TITLE(li))
            if title_link is None:
                continue
            topic_id = _query_int(title_link.get("href") or "", "t")
            if topic_id is None:
                continue
            last_post_id = None
            lastpost = _first(_LASTPOST(li))
            if lastpost is not None:
                for link in _LINKS(lastpost):
                    pid = _query_int(link.get("href") or "", "p")
                    if pid is not None:
                        last_post_id = pid
                        break
            posts = _first(_POSTS(li))
            first_text = _first(_TEXT_NODES(posts)) if posts is not None else None
            poster = _first(_TOPIC_POSTER(li))
            rows.append(
                TopicRow(
                    topic_id=topic_id,
                    title=_stripped_text(title_link),
                    last_post_id=last_post_id,
                    replies=_leading_int(str(first_text or "")),
                    author=_stripped_text(poster) if poster is not None else None,
                )
            )
    return tuple(rows)


_TOPIC_LISTS = lxml.etree.XPath(f"//ul[{_has_class('topiclist')} and {_has_class('topics')}]")
_ROWS = lxml.etree.XPath(f".//li[{_has_class('row')}]")
_TOPIC_TITLE = lxml.etree.XPath(f".//a[{_has_class('topictitle')}]")
_LASTPOST = lxml.etree.XPath(f".//dd[{_has_class('lastpost')}]")
_POSTS = lxml.etree.XPath(f".//dd[{_has_class('posts')}]")
_LINKS = lxml.etree.XPath(".//a")
_TOPIC_POSTER = lxml.etree.XPath(
    f".//div[{_has_class('topic-poster')}]"
    f"//a[{_has_class('username')} or {_has_class('username-coloured')}]"
)
_LOGIN_FORM = lxml.etree.XPath('//form[@id="login"]')
_ANY_MESSAGE = lxml.etree.XPath('//*[@id="message"]')


def _page_root(html: str | bytes) -> Any:
    """The plain lxml tree of a page, or None for an empty or unparsable one. Bytes are
    decoded as BeautifulSoup would (``UnicodeDammit``); a text that starts with an XML
    declaration naming its encoding (which lxml refuses in a ``str``) is parsed from its
    UTF-8 bytes."""
    text = html if isinstance(html, str) else UnicodeDammit(html).unicode_markup
    if not text or not text.strip():
        return None
    try:
        try:
            return lxml.etree.fromstring(text, html_parser())
        except ValueError:
            return lxml.etree.fromstring(text.encode("utf-8"), utf8_html_parser())
    except lxml.etree.LxmlError:
        return None


def _first(found: Any) -> Any:
    return found[0] if found else None


def _stripped_text(node: Any) -> str:
    """BeautifulSoup's ``get_text(strip=True)`` on an lxml element: its text nodes, each
    stripped, joined."""
    return "".join(str(t).strip() for t in _TEXT_NODES(node))


@dataclass(frozen=True)
class PmRow:
    """One row of a private-message folder (inbox, outbox, sentbox).

    Attributes:
        msg_id: phpBB message id (``p`` of the ``mode=view`` link).
        subject: the subject as displayed.
        other_user: the sender (inbox) or first recipient (outbox/sentbox), or None.
        href: the row's link to the message, entities decoded.
    """

    msg_id: int
    subject: str
    other_user: str | None
    href: str


def parse_pm_folder(html: str | bytes) -> tuple[PmRow, ...]:
    """Rows of a PM folder page (``ucp.php?i=pm&folder=…``), newest first as displayed.

    An empty folder ("Pas de message") gives ``()``. A plain lxml tree (the sent box is read
    before an owl is sent again, and after each restart)."""
    root = _page_root(html)
    rows: list[PmRow] = []
    for li in _PM_ROWS(root) if root is not None else ():
        link = _first(_PM_LINK(li))
        href = (link.get("href") or "") if link is not None else ""
        msg_id = _query_int(href, "p")
        if link is None or msg_id is None:
            continue
        user = _first(_PM_USER(li))
        other = _stripped_text(user) if user is not None else None
        rows.append(PmRow(msg_id, _stripped_text(link), other, href))
    return tuple(rows)


_PM_ROWS = lxml.etree.XPath(f"//ul[{_has_class('pmlist')}]//li[{_has_class('row')}]")
_PM_LINK = lxml.etree.XPath(f".//a[{_has_class('topictitle')}]")
_PM_USER = lxml.etree.XPath(f".//a[{_has_class('username')} or {_has_class('username-coloured')}]")


def sent_pm_id(html: str | bytes) -> int | None:
    """Message id of the PM just sent, from the confirmation page's meta refresh
    (``ucp.php?i=pm&mode=view&p=N``), or None."""
    url = meta_refresh_url(html)
    if url is None:
        return None
    return _query_int(url.replace("&amp;", "&"), "p")
