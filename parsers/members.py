"""Member look-ups on a board's pages, pure: does the board have a member of this name?

Issue 15 ("free text names only members"): a free-text phrase such as « je défie X » names a
partner only when X is a member of the board. The forum clients fetch the page
(:mod:`forumbot.forums.members`); these functions read it:

- phpBB 3.3 (prosilver): ``memberlist.php?mode=viewprofile&un=NAME`` shows the member's
  profile (``dl.profile-details``, ``h2.memberlist-title``), or phpBB's ``NO_USER`` message
  (« L’utilisateur demandé n’existe pas. » / "The requested user does not exist.", sent with
  HTTP 404 by ``msg_handler``);
- Forumactif: the member list searched by name (``/memberlist?username=NAME``) lists profile
  links ``/u<id>``; the member exists when one of them is the name (case and accents ignored).

Each returns True, False, or None when the page says neither (another style, a permission
page): the caller then does not know.
"""

from __future__ import annotations

import re
import unicodedata

import lxml.etree
import lxml.html

_NO_USER = (
    "n’existe pas",
    "n'existe pas",
    "does not exist",
    "aucun membre",
    "no members found",
    "aucun utilisateur",
)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


def _root(html: str) -> lxml.html.HtmlElement | None:
    if not html.strip():
        return None
    try:
        return lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return None


def phpbb_profile_name(html: str, name: str) -> str | bool | None:
    """Read a phpBB ``memberlist.php?mode=viewprofile&un=NAME`` page (HTTP 200 or 404) and
    give the member's own spelling of the name (issue 24 F11: the review page stores it).

    Returns:
        The profile's ``username`` span text (``span.username`` or ``span.username-coloured``,
        whitespace collapsed) when the page is the profile of ``name`` (case and accents
        ignored; phpBB looks ``un`` up the same way); True when it is that profile but the
        spelling is only in the title; False on phpBB's "no such user" message; None otherwise.
    """
    root = _root(html)
    if root is None:
        return None
    profile = root.xpath(
        "//dl[contains(concat(' ', normalize-space(@class), ' '), ' profile-details ')]"
        " | //h2[contains(concat(' ', normalize-space(@class), ' '), ' memberlist-title ')]"
    )
    if profile:
        wanted = _fold(name)
        spans = root.xpath(
            "//dl[contains(@class, 'profile-details')]//span[contains(@class, 'username')]"
        )
        for span in spans:
            if wanted and _fold(span.text_content()) == wanted:
                return " ".join(span.text_content().split())
        title = " ".join(
            _fold(el.text_content())
            for el in [*root.xpath("//h2[contains(@class, 'memberlist-title')]"), *spans]
        )
        return True if wanted and wanted in title else None
    panel = " ".join(
        el.text_content() for el in root.xpath("//div[@id='message'] | //div[@class='inner']")
    )
    if any(marker in panel.casefold() for marker in _NO_USER):
        return False
    return None


def phpbb_profile_exists(html: str, name: str) -> bool | None:
    """Read a phpBB ``memberlist.php?mode=viewprofile&un=NAME`` page (HTTP 200).

    Returns:
        True when the page is a member's profile (its title or its ``username`` span is
        ``name``, case and accents ignored; phpBB looks ``un`` up the same way), False on
        phpBB's "no such user" message, None otherwise (:func:`phpbb_profile_name`).
    """
    found = phpbb_profile_name(html, name)
    return None if found is None else bool(found)


_PROFILE_LINK = re.compile(r"^(?:https?://[^/]+)?/u(\d+)(?:[-?#].*)?$")


def forumactif_member_name(html: str, name: str) -> str | bool | None:
    """Read a Forumactif member list searched by ``name`` (``/memberlist?username=NAME``) and
    give the member's own spelling of the name (issue 24 F11).

    Returns:
        The text of the first profile link ``/u<id>`` of the list that reads ``name`` (case
        and accents ignored; whitespace collapsed), False when the page is a member list
        without it (some other members, or the board's "no member" message), None when the
        page is no member list.
    """
    root = _root(html)
    if root is None:
        return None
    wanted = _fold(name)
    links = [a for a in root.xpath("//a[@href]") if _PROFILE_LINK.match(a.get("href", ""))]
    for a in links:
        if wanted and _fold(a.text_content()) == wanted:
            return " ".join(a.text_content().split())
    text = _fold(root.text_content())
    is_list = bool(root.xpath("//form[contains(@action, 'memberlist')]")) or "memberlist" in (
        " ".join(root.xpath("//body/@class | //body/@id"))
    )
    if is_list and (any(m in text for m in (_fold(x) for x in _NO_USER)) or links):
        return False
    return None


def forumactif_member_listed(html: str, name: str) -> bool | None:
    """Read a Forumactif member list searched by ``name`` (``/memberlist?username=NAME``).

    Returns:
        True when a profile link ``/u<id>`` of the list reads ``name`` (case and accents
        ignored), False when the page is a member list without it (some other members, or the
        board's "no member" message), None when the page is no member list
        (:func:`forumactif_member_name`).
    """
    found = forumactif_member_name(html, name)
    return None if found is None else bool(found)


__all__ = [
    "forumactif_member_listed",
    "forumactif_member_name",
    "phpbb_profile_exists",
    "phpbb_profile_name",
]
