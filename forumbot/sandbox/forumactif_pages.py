"""Forumactif-like markup for the Forumactif sandbox board, two display versions.

Written for the sandbox after the STRUCTURE of Forumactif's default templates and real pages
(``fixtures/forumactif``: REPORT.md sections 1-3, 5, 6): what a client or the parser relies on,
chrome trimmed. Nothing is copied from the fixtures:

* every page: the ``_userdata`` script core prints (``session_logged_in``, ``username``,
  ``user_id``, ``tpl_used``, ``user_level``, ``page_logout``; AwesomeBB has an extra first block);
* topic pages: JSON-LD ``BreadcrumbList`` + ``DiscussionForumPosting`` (``comment[]`` = every post
  of the page but the topic's first, ``url`` ending ``#<post id>``, ISO dates with offset),
  post containers with class ``post--{ID}`` and an element ``id="{ID}"``, the version's slots
  (prosilver ``div.content > div``, ``p.author``; AwesomeBB ``div.post-content``,
  ``span.post-author-name``, ``span.post-date``), the edit line
  ``Dernière édition par X le DATE, édité N fois``, pagination "Page X sur Y" with the
  ``start = (start - 1) * N`` script, the quick reply (``tid``, ``t``, ``lt``, ``auth[]`` x2);
* Game Master dice posts (README A5): ``Le membre 'X' a effectué l'action suivante : Lancer des
  dés<br /><br />'Duel' : <img alt="3"/><img alt="5"/>``;
* the full posting form (``/post``: ``auth[]`` x2, ``mode``, ``t``, ``lt``, ``post_dice_0`` select,
  ``nb_rolls_0``), the PM compose form, forum listings, message pages.

User-supplied values are escaped here; post bodies arrive rendered by :func:`render_message`.
Escaping, dates, the BBCode subset and the layout live in
:mod:`forumbot.sandbox.forumactif_markup` (re-exported here); this module holds the topic,
listing and form pages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from forumbot.sandbox.forumactif_markup import (
    VERSIONS,
    Viewer,
    dice_html,
    dice_text,
    esc,
    format_date,
    iso,
    layout,
    local,
    message_page,
    plain_text,
    render_message,
    slug,
    userdata_script,
)

__all__ = [
    "PostView",
    "TopicRow",
    "VERSIONS",
    "Viewer",
    "dice_html",
    "dice_text",
    "esc",
    "format_date",
    "forum_body",
    "hidden",
    "index_body",
    "iso",
    "jsonld",
    "layout",
    "local",
    "login_form",
    "message_page",
    "pagination",
    "plain_text",
    "pm_folder",
    "pm_form",
    "pm_read",
    "post_html",
    "poster_name",
    "posting_form",
    "quick_reply",
    "render_message",
    "slug",
    "topic_body",
    "userdata_script",
]


# ---------------------------------------------------------------------------- topics


@dataclass(frozen=True)
class PostView:
    """One post ready to display (``content_html`` already rendered)."""

    post_id: int
    subject: str
    author_id: int | None
    author: str
    author_posts: int
    time_s: float
    content_html: str
    edit_by: str | None = None
    edit_time_s: float | None = None
    edit_count: int = 0


def poster_name(user_id: int | None, name: str) -> str:
    """``POSTER_NAME``: a coloured group link for members, plain ``Invité`` for guests."""
    if user_id is None:
        return esc(name)
    return (
        f'<a href="/u{user_id}"><span class="group-3 usr_grp_clr" style="color:#2E7D32">'
        f"<strong>{esc(name)}</strong></span></a>"
    )


def _edited(view: PostView, zone: ZoneInfo) -> str:
    if not view.edit_count or view.edit_by is None or view.edit_time_s is None:
        return ""
    return (
        f"<br /><br />Dernière édition par {esc(view.edit_by)} le "
        f"{format_date(view.edit_time_s, zone)}, édité {view.edit_count} fois"
    )


def post_html(view: PostView, index: int, topic_url: str, version: str, zone: ZoneInfo) -> str:
    """One post container of ``version``."""
    row = "row1" if index % 2 == 0 else "row2"
    pid = view.post_id
    name = poster_name(view.author_id, view.author)
    date = format_date(view.time_s, zone)
    quote = (
        f'<a href="/post?p={pid}&amp;mode=quote"><img src="/empty.gif" class="i_icon_quote" '
        'alt="Répondre en citant" title="Répondre en citant" /></a>'
    )
    if version == "awesomebb":
        return (
            f'<div id="post-{pid}" class="post-wrap {row} post--{pid}">\n'
            f'<div id="{pid}" class="post-header"><h2><span><a href="{topic_url}#{pid}">'
            f"{esc(view.subject)}</a></span></h2>"
            f'<div class="post-buttons"><ul><li class="btn-quote">{quote}</li></ul></div></div>\n'
            '<div class="post-body"><div class="post">\n'
            f'<div class="post-content">\n{view.content_html}\n{_edited(view, zone)}\n</div>\n'
            f'<div class="post-footer"><span class="post-date">{date}</span></div>\n'
            '</div><aside class="post-aside"><div class="post-author">'
            f'<span class="post-author-name">{name}</span>'
            f'<span class="post-author-title">Messages : {view.author_posts}</span>'
            "</div></aside></div>\n</div>\n"
        )
    return (
        f'<div id="p{pid}" class="post {row} post--{pid}" style="">\n'
        '<div class="inner"><span class="corners-top"><span></span></span>\n'
        f'<div style="position: relative; top: -30px; width: 1px;" id="{pid}"></div>\n'
        '<div class="postbody">\n'
        f'<ul class="profile-icons"><li>{quote}</li></ul>\n'
        f'<h2 class="topic-title"> <a href="{topic_url}#{pid}">{esc(view.subject)}</a></h2>\n'
        '<p class="author"><img src="/empty.gif" alt="Message" title="Message" />'
        f"&nbsp;par&nbsp;{name} {date}</p>\n"
        '<div class="clearfix"></div>\n'
        f'<div class="content clearfix">\n<div>{view.content_html}</div>\n</div>\n'
        f"{_edited(view, zone)}\n</div>\n"
        f'<div class="postprofile" id="profile{pid}"><dl><dt>'
        f'<strong style="font-size:1.2em">{name}</strong></dt>'
        f'<dd><span class="label">Messages : </span>{view.author_posts}</dd></dl></div>\n'
        '<div class="clear"></div>\n'
        '<span class="corners-bottom"><span></span></span></div>\n</div>\n'
    )


def pagination(topic_id: int, topic_slug: str, page: int, pages: int, per_page: int) -> str:
    """``{PAGINATION}`` with the page-jump script (``start = (start - 1) * N``), or ``""``."""
    if pages <= 1:
        return ""
    script = (
        '<script type="text/javascript">\n//<![CDATA[\nfunction do_pagination_start()\n{\n'
        "    var start = document.go_page.start.value;\n"
        f"    start = (start > {pages}) ? {pages} : start;\n"
        f"    start = (start - 1) * {per_page};\n"
        "    start = (isNaN(start) || start < 0 ) ? 0 : start;\n"
        f"self.location.href = ['','t{topic_id}p'+start+'-{topic_slug}'].join('/');\n"
        "}\n//]]>\n</script>"
    )
    links: list[str] = []
    for number in range(1, pages + 1):
        if number == page:
            links.append(f"<strong>{number}</strong>")
            continue
        start = (number - 1) * per_page
        href = f"/t{topic_id}p{start}-{topic_slug}" if start else f"/t{topic_id}-{topic_slug}"
        links.append(f'<a href="{href}">{number}</a>')
    return (
        f'<div class="pagination">{script}<a href="javascript:Pagination();">'
        f"Page <strong>{page}</strong> sur <strong>{pages}</strong></a> &bull;<span> "
        + '<span class="page-sep">, </span>'.join(links)
        + "</span></div>"
    )


def hidden(name: str, value: str) -> str:
    """``<input type="hidden">``."""
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}" />'


def quick_reply(fields: Sequence[tuple[str, str]]) -> str:
    """``{QUICK_REPLY_FORM}`` (AwesomeBB real markup, REPORT.md 6.3; the same fields in every
    version, A8)."""
    head = [(k, v) for k, v in fields if k != "auth[]"]
    auth = [(k, v) for k, v in fields if k == "auth[]"]
    return (
        '<div class="block quick-reply"><form id="quick_reply" action="/post" method="post" '
        'name="post">'
        + "".join(hidden(k, v) for k, v in head)
        + '<textarea id="text_editor_textarea" name="message" rows="1"></textarea>'
        '<input name="post" type="submit" value="send" title="Envoyer"/>'
        '<input name="preview" type="submit" value="visibility" title="Prévisualisation"/>'
        + "".join(hidden(k, v) for k, v in auth)
        + "</form></div>"
    )


def jsonld(
    *,
    base: str,
    forum_id: int,
    forum_name: str,
    topic_url: str,
    page_url: str,
    title: str,
    pages: int,
    first: PostView,
    on_page: Sequence[PostView],
    first_on_page: bool,
    zone: ZoneInfo,
    texts: dict[int, str],
) -> str:
    """``BreadcrumbList`` + ``DiscussionForumPosting`` scripts of a topic page."""
    crumbs = {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": 1, "item": {"@id": base + "/", "name": "Accueil"}},
            {
                "@type": "ListItem",
                "position": 2,
                "item": {"@id": f"{base}/f{forum_id}-{slug(forum_name)}", "name": forum_name},
            },
            {"@type": "ListItem", "position": 3, "item": {"@id": topic_url, "name": title}},
        ],
    }

    def author(view: PostView) -> dict[str, str]:
        if view.author_id is None:
            return {"@type": "Person", "name": "Anonymous", "url": f"{base}/u-1"}
        return {"@type": "Person", "name": view.author, "url": f"{base}/u{view.author_id}"}

    comments = [
        {
            "@type": "Comment",
            "text": texts[view.post_id],
            "datePublished": iso(view.time_s, zone),
            "author": author(view),
            "url": f"{page_url}#{view.post_id}",
        }
        for view in on_page
        if not (first_on_page and view.post_id == first.post_id)
    ]
    posting = {
        "@context": "https://schema.org",
        "@type": "DiscussionForumPosting",
        "headline": title,
        "name": title,
        "url": topic_url,
        "datePublished": iso(first.time_s, zone),
        "pageStart": "1",
        "pageEnd": str(pages),
        "author": author(first),
        "text": texts.get(first.post_id, ""),
        "comment": comments,
    }
    return "".join(
        '<script type="application/ld+json">'
        + json.dumps(block, ensure_ascii=True).replace("/", "\\/")
        + "</script>"
        for block in (crumbs, posting)
    )


def topic_body(
    *,
    title: str,
    topic_url: str,
    posts_html: str,
    pagination_html: str,
    quick_reply_html: str,
    version: str,
) -> str:
    """``viewtopic_body``: title, pagination, posts, pagination, quick reply."""
    if version == "awesomebb":
        head = f'<div class="page-title"><h1><a href="{topic_url}">{esc(title)}</a></h1></div>'
    else:
        head = f'<h2 class="topic-title"><a href="{topic_url}">{esc(title)}</a></h2>'
    return (
        f'{head}\n<div class="topic-actions">{pagination_html}</div>\n{posts_html}\n'
        f'<div class="topic-actions">{pagination_html}</div>\n{quick_reply_html}'
    )


# ---------------------------------------------------------------------------- listings


@dataclass(frozen=True)
class TopicRow:
    """One row of a forum listing."""

    topic_id: int
    title: str
    author_id: int
    author: str
    replies: int
    last_post_id: int
    last_post_url: str
    last_author_id: int
    last_author: str
    last_time: str


def forum_body(forum_name: str, rows: Sequence[TopicRow], version: str) -> str:
    """``viewforum_body`` + ``topics_list_box`` of ``version``."""
    items: list[str] = []
    for row in rows:
        url = f"/t{row.topic_id}-{slug(row.title)}"
        author = poster_name(row.author_id, row.author)
        last = poster_name(row.last_author_id, row.last_author)
        if version == "awesomebb":
            items.append(
                '<div class="posts-section"><div class="posts-icon"></div>'
                f'<div class="posts-description"><h3><a href="{url}">{esc(row.title)}</a></h3>'
                f"<p>par {author}</p></div>"
                '<div class="posts-statistics">'
                f'<span class="posts-statistics-replies">{row.replies} <span>Réponses</span></span>'
                "</div>"
                f'<div class="posts-lastpost"><span>{last}</span>'
                f'<a class="posts-lastpost-time" href="{row.last_post_url}">{row.last_time}</a>'
                "</div></div>"
            )
        else:
            items.append(
                '<li class="row row1"><dl class="icon"><dd class="dterm">'
                '<div class="topic-title-container"><h2 class="topic-title hierarchy">'
                f'<a class="topictitle" href="{url}">{esc(row.title)}</a></h2></div><br />'
                f'<span class="span-tab">par <strong>{author}</strong></span></dd>'
                f'<dd class="posts">{row.replies} <dfn>Réponses</dfn></dd>'
                '<dd class="views">0 <dfn>Vues</dfn></dd>'
                f'<dd class="lastpost"><span>{last}&nbsp;<dfn>Dernier message</dfn> '
                f'<a href="{row.last_post_url}"><img src="/icon_latest_reply.gif" '
                'alt="Voir le dernier message" /></a><br style="clear:left;" />'
                f"{row.last_time}</span></dd></dl></li>"
            )
    if not items:
        items.append("<p>Il n'y a pas de messages dans ce forum.</p>")
    if version == "awesomebb":
        return (
            f'<h1 class="page-title">{esc(forum_name)}</h1><div class="posts-list">'
            + "".join(items)
            + "</div>"
        )
    return (
        f'<h1 class="page-title">{esc(forum_name)}</h1>'
        '<div class="forumbg"><ul class="topiclist topics bg_none">'
        + "".join(items)
        + "</ul></div>"
    )


def index_body(forums: Sequence[tuple[int, str, int]]) -> str:
    """Board index: one link ``/f{F}-slug`` per forum with its topic count."""
    rows = "".join(
        f'<li class="row"><a class="forumtitle" href="/f{fid}-{slug(name)}">{esc(name)}</a> '
        f'<dd class="topics">{count}</dd></li>'
        for fid, name, count in forums
    )
    return f'<ul class="topiclist forums">{rows}</ul>'


# ---------------------------------------------------------------------------- forms


def login_form(error: str | None, redirect: str = "") -> str:
    """The core login page: ``username``, ``password``, ``autologin``, ``login`` (6.1)."""
    message = f'<p class="error">{esc(error)}</p>' if error else ""
    return (
        f'{message}<form action="/login" method="post" name="form_login">'
        '<dl><dt><label for="username">Nom d\'utilisateur:</label></dt>'
        '<dd><input type="text" name="username" id="username" size="20" maxlength="40" '
        'value="" /></dd></dl>'
        '<dl><dt><label for="password">Mot de passe:</label></dt>'
        '<dd><input type="password" id="password" name="password" size="20" maxlength="25" '
        "/></dd></dl>"
        '<input type="checkbox" name="autologin" id="autologin" checked="checked" />'
        f"{hidden('redirect', redirect)}"
        '<input type="submit" name="login" value="Connexion" class="button1" /></form>'
    )


def posting_form(
    *,
    fields: Sequence[tuple[str, str]],
    subject: str,
    message: str,
    dice: Sequence[tuple[int, str]],
    error: str | None,
    preview_html: str = "",
    review: Sequence[PostView] = (),
    zone: ZoneInfo,
    edit_reason: str | None = None,
) -> str:
    """The full editor (``posting_body``): subject, message, every hidden field, the dice
    block (``post_dice_0`` select + ``nb_rolls_0``, only when ``dice`` is offered), the
    ``edit_reason`` text field when editing (``edit_reason`` not None: its value)."""
    parts: list[str] = []
    if error:
        parts.append(
            '<div id="preview" class="post row2"><div class="inner">'
            f'<p class="center" style="color: red;">{esc(error)}</p></div></div>'
        )
    if preview_html:
        parts.append(f'<div class="post preview"><div class="content">{preview_html}</div></div>')
    parts.append('<form action="/post" method="post" name="post" enctype="multipart/form-data">')
    parts.append(
        f'<input type="text" name="subject" value="{esc(subject)}" maxlength="255" '
        'placeholder="Titre du message" />'
    )
    parts.append(f'<textarea id="text_editor_textarea" name="message">{esc(message)}</textarea>')
    if edit_reason is not None:
        parts.append(
            '<dl><dt><label>Raison de l\'édition</label></dt><dd><input type="text" '
            f'name="edit_reason" value="{esc(edit_reason)}" maxlength="255" /></dd></dl>'
        )
    parts.extend(hidden(k, v) for k, v in fields)
    parts.append(
        '<button type="submit" name="post" value="Envoyer" accesskey="s">Envoyer</button>'
        '<input type="submit" name="preview" value="Prévisualiser" />'
        '<input type="checkbox" name="disable_html" /><input type="checkbox" name="notify" />'
        '<input type="checkbox" name="attach_sig" checked="checked" />'
    )
    if dice:
        options = '<option value="">-</option>' + "".join(
            f'<option value="{dice_id}">{esc(name)}</option>' for dice_id, name in dice
        )
        parts.append(
            '<fieldset><legend>Lancer de dés</legend><div id="list_dice">'
            f'<select name="post_dice_0" id="post_dice">{options}</select>'
            '<input type="text" size="2" maxlength="3" name="nb_rolls_0" id="nb_rolls" '
            'value="1" /></div></fieldset>'
        )
    parts.append("</form>")
    if review:
        rows = "".join(
            f'<div class="topic-review-post"><strong>{esc(v.author)}</strong> · '
            f"{format_date(v.time_s, zone)}<div>{v.content_html}</div></div>"
            for v in review
        )
        parts.append(f'<div class="topic-review"><h2>Revue du sujet</h2>{rows}</div>')
    return "".join(parts)


def pm_form(recipient: str, subject: str, message: str, fields: Sequence[tuple[str, str]]) -> str:
    """The PM editor (``posting_body`` ``switch_privmsg``): ``username[]``, subject, message."""
    return (
        '<form action="/privmsg" method="post" name="post">'
        f'<input type="text" name="username[]" value="{esc(recipient)}" />'
        f'<input type="text" name="subject" value="{esc(subject)}" />'
        f'<textarea name="message">{esc(message)}</textarea>'
        + "".join(hidden(k, v) for k, v in fields)
        + '<input type="submit" name="post" value="Envoyer" /></form>'
    )


def pm_folder(folder: str, rows: Sequence[tuple[int, str, int, str, str]]) -> str:
    """A PM folder (``privmsgs_body`` of phpBB3, REPORT.md 6.4): one ``li.row`` per message,
    ``a.topictitle`` linking to ``/privmsg?folder=F&mode=read&p=N``, then
    ``<em>FROM - DATE</em>`` with the other user's name as a profile link ``/uN``.
    ``rows``: ``(msg_id, subject, other user id, other user name, formatted date)``."""
    items = "".join(
        f'<li class="row row{1 + i % 2}"><dl class="icon"><dt>'
        f'<a href="/privmsg?folder={folder}&amp;mode=read&amp;p={msg_id}" '
        f'class="topictitle">{esc(subject)}</a><br />'
        f'<span style="margin: 0 5px"><em><a href="/u{other_id}">{esc(other)}</a> - '
        f"{esc(date)}</em></span></dt>"
        f'<dd class="mark"><input type="checkbox" name="mark[]2" value="{msg_id}" /></dd>'
        "</dl></li>"
        for i, (msg_id, subject, other_id, other, date) in enumerate(rows)
    )
    return f'<h2>Messagerie : {esc(folder)}</h2><ul class="topiclist pmlist bg_none">{items}</ul>'


def pm_read(subject: str, author_id: int, author: str, date: str, content_html: str) -> str:
    """A PM read page (``privmsgs_read_body`` of phpBB3: ``div.postbody`` with the subject,
    ``p.author`` and the body in ``div.content``)."""
    sender = f'<a href="/u{author_id}">{esc(author)}</a>'
    return (
        '<div class="post row2"><div class="inner"><div class="postbody">'
        f'<div class="h3">{esc(subject)}</div>'
        f'<p class="author">De {sender}, {esc(date)}</p>'
        f'<div class="content">{content_html}</div></div>'
        f'<dl class="postprofile"><dt><br />{sender}</dt></dl></div></div>'
    )
