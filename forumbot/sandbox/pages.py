"""Prosilver (French) markup for the sandbox board's pages.

The STRUCTURE copies the real phpBB 3.3.15 pages in ``fixtures/html/phpbb`` (ids, classes, form
fields, French strings) — only what a client or a parser relies on; the chrome is trimmed.
Every value coming from users (names, titles, subjects, messages) is escaped here; post bodies
arrive already rendered by :mod:`forumbot.sandbox.bbcode`.

The layout, the login form and one post's HTML live in :mod:`forumbot.sandbox.pages_layout`
(re-exported here); this module holds the topic, forum, posting and PM pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forumbot.sandbox.bbcode import format_date_fr, iso_utc
from forumbot.sandbox.board_model import BUTTON_TOPIC_LOCKED, TOPIC_LOCKED
from forumbot.sandbox.pages_layout import (
    PostView,
    Viewer,
    _profile_link,
    esc,
    hidden,
    layout,
    login_form,
    message_box,
    post_html,
)

__all__ = [
    "PmRowView",
    "PostView",
    "TopicRowView",
    "Viewer",
    "esc",
    "forum_body",
    "hidden",
    "index_body",
    "layout",
    "login_form",
    "message_box",
    "pm_folder_body",
    "pm_view_body",
    "post_html",
    "post_review_block",
    "posting_form",
    "topic_body",
    "topic_pagination",
]


def topic_pagination(topic_id: int, total_posts: int, page: int, pages: int, per_page: int) -> str:
    """``div.pagination`` of a topic: "N messages • Page 1 sur 1" for a single page, else the
    page buttons with ``li.active`` on the current page (as the real board)."""
    if pages <= 1:
        return (
            f'\t\t\t<div class="pagination">\n\t\t\t{total_posts} message'
            f"{'s' if total_posts != 1 else ''}\n\t\t\t\t\t\t\t&bull; Page <strong>1</strong> "
            "sur <strong>1</strong>\n\t\t\t\t\t</div>\n"
        )

    def href(n: int) -> str:
        start = (n - 1) * per_page
        return f"./viewtopic.php?t={topic_id}" + (f"&amp;start={start}" if start else "")

    items = []
    if page > 1:
        items.append(
            f'\t\t\t<li class="arrow previous"><a class="button button-icon-only" '
            f'href="{href(page - 1)}" rel="prev" role="button"><span class="sr-only">'
            "Précédente</span></a></li>"
        )
    for n in range(1, pages + 1):
        if n == page:
            items.append(f'\t\t\t<li class="active"><span>{n}</span></li>')
        else:
            items.append(
                f'\t\t\t\t<li><a class="button" href="{href(n)}" role="button">{n}</a></li>'
            )
    if page < pages:
        items.append(
            f'\t\t\t<li class="arrow next"><a class="button button-icon-only" '
            f'href="{href(page + 1)}" rel="next" role="button"><span class="sr-only">'
            "Suivante</span></a></li>"
        )
    joined = "\n".join(items)
    return (
        f'\t\t\t<div class="pagination">\n\t\t\t{total_posts} messages\n'
        f"\t\t\t\t\t\t\t<ul>\n{joined}\n\t</ul>\n\t\t\t\t\t</div>\n"
    )


def topic_body(
    *,
    topic_id: int,
    forum_id: int,
    forum_name: str,
    title: str,
    start: int,
    posts_html: str,
    pagination: str,
    logged_in: bool,
    quick_reply: Sequence[tuple[str, str]] | None,
    locked: bool = False,
) -> str:
    """``#page-body`` of viewtopic: breadcrumb with ``data-forum-id``, ``h2.topic-title``,
    action bar with pagination, the posts, ``form#qr_postform`` (last page, logged in).
    ``locked``: prosilver's ``S_IS_LOCKED`` reply button (title ``TOPIC_LOCKED``, « Verrouillé »,
    ``fa-lock``); the caller gives no quick reply then."""
    start_q = f"&amp;start={start}" if start else ""
    reply_button = ""
    if logged_in and locked:
        reply_button = (
            f'\t\t\t<a href="./posting.php?mode=reply&amp;t={topic_id}" class="button" '
            f'title="{esc(TOPIC_LOCKED)}">\n\t\t\t\t<span>{BUTTON_TOPIC_LOCKED}</span> '
            '<i class="icon fa-lock fa-fw" aria-hidden="true"></i>\n\t\t\t</a>\n'
        )
    elif logged_in:
        reply_button = (
            f'\t\t\t<a href="./posting.php?mode=reply&amp;t={topic_id}" class="button" '
            'title="Répondre"><span>Répondre</span></a>\n'
        )
    qr = ""
    if quick_reply is not None:
        fields = "\n".join(hidden(k, v) for k, v in quick_reply)
        qr = (
            f'\t<form method="post" action="./posting.php?mode=reply&amp;t={topic_id}" '
            'id="qr_postform">\n\t<div class="panel">\n\t\t<div class="inner">\n'
            '\t\t\t\t<h2 class="quickreply-title">Réponse rapide</h2>\n'
            '\t\t\t\t<fieldset class="fields1">\n'
            '\t\t\t\t\t<dl style="clear: left;">\n'
            '\t\t\t\t\t\t<dt><label for="subject">Sujet :</label></dt>\n'
            '\t\t\t\t\t\t<dd><input type="text" name="subject" id="subject" size="45" '
            f'maxlength="124" tabindex="2" value="Re: {esc(title)}" class="inputbox autowidth" '
            "/></dd>\n\t\t\t\t\t</dl>\n"
            '\t\t\t\t<div id="message-box" class="message-box">\n'
            '\t\t\t\t\t<textarea style="height: 9em;" name="message" rows="7" cols="76" '
            'tabindex="3" class="inputbox"></textarea>\n\t\t\t\t</div>\n'
            '\t\t\t\t</fieldset>\n\t\t\t\t<fieldset class="submit-buttons">\n'
            f"{fields}\n"
            '\t\t\t\t\t<input type="submit" accesskey="f" tabindex="6" name="preview" '
            'value="Éditeur complet &amp; Aperçu" class="button2" id="qr_full_editor" />&nbsp;\n'
            '\t\t\t\t\t<input type="submit" accesskey="s" tabindex="7" name="post" '
            'value="Envoyer" class="button1" />&nbsp;\n'
            "\t\t\t\t</fieldset>\n\t\t</div>\n\t</div>\n</form>\n"
        )
    return (
        '<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">'
        '<li class="breadcrumbs"><span class="crumb"><a href="./index.php" accesskey="h">'
        '<span itemprop="name">Index du forum</span></a></span>'
        f'<span class="crumb" data-forum-id="{forum_id}"><a href="./viewforum.php?f={forum_id}">'
        f'<span itemprop="name">{esc(forum_name)}</span></a></span></li></ul>\n'
        f'<h2 class="topic-title"><a href="./viewtopic.php?t={topic_id}{start_q}">{esc(title)}'
        "</a></h2>\n\n"
        f'<div class="action-bar bar-top">\n{reply_button}{pagination}\t\t</div>\n\n'
        f"{posts_html}"
        f"{qr}"
        f'\t<div class="action-bar bar-bottom">\n{reply_button}{pagination}\t</div>\n'
    )


@dataclass(frozen=True)
class TopicRowView:
    """One viewforum row."""

    topic_id: int
    title: str
    poster_id: int
    poster: str
    time_s: float
    replies: int
    last_post_id: int
    last_poster_id: int
    last_poster: str
    last_time_s: float


def forum_body(
    forum_id: int, forum_name: str, rows: Sequence[TopicRowView], logged_in: bool,
    page: int = 1, pages: int = 1, per_page: int = 25, total: int | None = None,
) -> str:  # fmt: skip
    """``#page-body`` of viewforum: ``ul.topiclist.topics`` with one ``li.row`` per topic
    (``a.topictitle``, ``div.topic-poster``, ``dd.posts``, ``dd.lastpost`` link ``p=N#pN``);
    ``page`` of ``pages`` (a ``rel="next"`` link to ``start=page*per_page`` before the last)."""
    new_topic = ""
    if logged_in:
        new_topic = (
            f'\t\t<a href="./posting.php?mode=post&amp;f={forum_id}" class="button" '
            'title="Écrire un nouveau sujet"><span>Nouveau sujet</span></a>\n'
        )
    shown = len(rows) if total is None else total
    count = f"{shown} sujet{'s' if shown != 1 else ''}"
    following = ""
    if page < pages:
        following = (
            f'\t\t\t<ul><li class="arrow next"><a class="button button-icon-only" '
            f'href="./viewforum.php?f={forum_id}&amp;start={page * per_page}" rel="next" '
            'role="button"><span class="sr-only">Suivante</span></a></li></ul>\n'
        )
    head = (
        f'<h2 class="forum-title"><a href="./viewforum.php?f={forum_id}">{esc(forum_name)}'
        f'</a></h2>\n<div class="action-bar bar-top">\n{new_topic}'
        f'\t<div class="pagination">\n\t\t{count}\n\t\t\t\t\t&bull; Page <strong>{page}</strong> '
        f"sur <strong>{pages}</strong>\n{following}\t\t\t</div>\n\t</div>\n"
    )
    if not rows:
        return head + (
            '<div class="panel">\n\t<div class="inner">\n\t<strong>Il n’y a aucun sujet ou '
            "message dans ce forum.</strong>\n\t</div>\n</div>\n"
        )
    items = []
    for i, row in enumerate(rows):
        bg = "bg1" if i % 2 == 0 else "bg2"
        items.append(
            f'\t\t\t\t<li class="row {bg}">\n\t\t\t\t\t\t<dl class="row-item topic_read">\n'
            '\t\t\t\t<dt title="Aucun message non lu">\n'
            f'\t\t\t\t\t<a href="./viewtopic.php?t={row.topic_id}" class="row-item-link"></a>'
            '\t\t\t\t\t<div class="list-inner">\n'
            f'\t\t\t\t\t\t<a href="./viewtopic.php?t={row.topic_id}" class="topictitle">'
            f"{esc(row.title)}</a>\t\t\t\t\t\t<br />\n"
            '\t\t\t\t\t\t<div class="topic-poster responsive-hide left-box">\n'
            f"\t\t\t\t\t\t\tpar {_profile_link(row.poster_id, row.poster)} &raquo; "
            f'<time datetime="{iso_utc(row.time_s)}">{format_date_fr(row.time_s)}</time>\n'
            "\t\t\t\t\t\t</div>\n\t\t\t\t\t</div>\n\t\t\t\t</dt>\n"
            f'\t\t\t\t<dd class="posts">{row.replies} <dfn>Réponses</dfn></dd>\n'
            '\t\t\t\t<dd class="views">0 <dfn>Vues</dfn></dd>\n'
            '\t\t\t\t<dd class="lastpost">\n'
            "\t\t\t\t\t<span><dfn>Dernier message </dfn>par "
            f"{_profile_link(row.last_poster_id, row.last_poster)}"
            f'\t\t\t\t\t\t<a href="./viewtopic.php?p={row.last_post_id}#p{row.last_post_id}" '
            'title="Aller au dernier message"><span class="sr-only"></span></a>\n'
            f'\t\t\t\t\t\t<br /><time datetime="{iso_utc(row.last_time_s)}">'
            f"{format_date_fr(row.last_time_s)}</time>\n\t\t\t\t\t</span>\n\t\t\t\t</dd>\n"
            "\t\t\t</dl>\n\t\t\t\t\t</li>\n"
        )
    return head + (
        '<div class="forumbg">\n\t\t<div class="inner">\n\t\t<ul class="topiclist">\n'
        '\t\t\t<li class="header">\n\t\t\t\t<dl class="row-item">\n'
        '\t\t\t\t\t<dt><div class="list-inner">Sujets</div></dt>\n'
        '\t\t\t\t\t<dd class="posts">Réponses</dd>\n\t\t\t\t\t<dd class="views">Vues</dd>\n'
        '\t\t\t\t\t<dd class="lastpost"><span>Dernier message</span></dd>\n'
        "\t\t\t\t</dl>\n\t\t\t</li>\n\t\t</ul>\n"
        f'\t\t<ul class="topiclist topics">\n{"".join(items)}\t\t\t\t</ul>\n'
        "\t\t</div>\n\t</div>\n"
    )


def index_body(forums: Sequence[tuple[int, str, int, int]]) -> str:
    """Board index: one row per forum ``(forum_id, name, topics, posts)``."""
    rows = "".join(
        f'\t\t<li class="row"><dl class="row-item forum_read"><dt><div class="list-inner">'
        f'<a href="./viewforum.php?f={fid}" class="forumtitle">{esc(name)}</a></div></dt>'
        f'<dd class="topics">{topics} <dfn>Sujets</dfn></dd>'
        f'<dd class="posts">{posts} <dfn>Messages</dfn></dd></dl></li>\n'
        for fid, name, topics, posts in forums
    )
    return (
        '<div class="forabg">\n\t<div class="inner">\n\t<ul class="topiclist forums">\n'
        f"{rows}\t</ul>\n\t</div>\n</div>\n"
    )


def posting_form(
    *,
    action: str,
    heading: str,
    title_html: str,
    subject: str,
    message: str,
    fields: Sequence[tuple[str, str]],
    error: str | None = None,
    review_html: str = "",
    pm_recipients: Sequence[tuple[int, str]] | None = None,
) -> str:
    """``form#postform`` (posting.php and PM compose): optional post-review block first, then
    ``#postingbox`` with the ``p.error`` line, subject, message textarea, hidden fields and
    buttons ``save``/``preview``/``post`` (+ ``add_to``/``add_bcc`` and ``username_list`` for
    PMs)."""
    error_html = f'\t<p class="error">{esc(error)}</p>\n' if error else ""
    pm_html = ""
    if pm_recipients is not None:
        recipients = "".join(
            f'\t\t\t<li><a href="./memberlist.php?mode=viewprofile&amp;u={uid}" '
            f'class="username">{esc(name)}</a>&nbsp;<input type="submit" name="remove_u[{uid}]" '
            'value="Supprimer" class="button2" /></li>\n'
            for uid, name in pm_recipients
        )
        pm_html = (
            "\t\t<dl>\n\t\t\t<dt><label><strong>Ajouter des destinataires :</strong>"
            '<textarea id="username_list" name="username_list" class="inputbox" cols="50" '
            'rows="2" tabindex="1"></textarea></label></dt>\n\t\t\t<dd>\n'
            '\t\t\t\t<input type="submit" name="add_to" value="Ajouter" class="button2" '
            'tabindex="1" />\n\t\t\t\t<input type="submit" name="add_bcc" value="Ajouter [CCI]" '
            'class="button2" tabindex="1" />\n\t\t\t</dd>\n\t\t</dl>\n'
            f'\t\t<dl><dt>Destinataires :</dt><dd><ul class="recipients">\n{recipients}'
            "\t\t</ul></dd></dl>\n"
        )
    hidden_html = "\n".join(hidden(k, v) for k, v in fields)
    return (
        f"{title_html}\n"
        f'<form id="postform" method="post" action="{esc(action)}" '
        'enctype="multipart/form-data">\n'
        f"{review_html}"
        '<div class="panel" id="postingbox">\n\t<div class="inner">\n\n'
        f'\t<h3>{esc(heading)}</h3>\n\n\t\t<fieldset class="fields1">\n{error_html}{pm_html}'
        '\t\t<dl>\n\t\t<dt><label for="icon">Icône de message :</label></dt>\n\t\t<dd>\n'
        '\t\t\t<label for="icon"><input type="radio" name="icon" id="icon" value="0" '
        'checked="checked" tabindex="1" /> Aucune</label>\n\t\t</dd>\n\t\t</dl>\n'
        '\t\t<dl style="clear: left;">\n\t\t\t<dt><label for="subject">Sujet :</label></dt>\n'
        '\t\t\t<dd><input type="text" name="subject" id="subject" size="45" maxlength="124" '
        f'tabindex="2" value="{esc(subject)}" class="inputbox autowidth" /></dd>\n\t\t</dl>\n'
        '\t\t<div id="message-box" class="message-box">\n'
        '\t\t<textarea name="message" id="message" rows="15" cols="76" tabindex="4" '
        f'class="inputbox">{esc(message)}</textarea>\n\t\t</div>\n\t\t</fieldset>\n'
        '\t\t<fieldset class="submit-buttons">\n'
        f"{hidden_html}\n"
        '\t\t\t<input type="submit" accesskey="k" tabindex="7" name="save" '
        'value="Sauvegarder le brouillon" class="button2" />&nbsp; '
        '<input type="submit" tabindex="5" name="preview" value="Aperçu" class="button1" />'
        '&nbsp;\n\t\t\t<input type="submit" accesskey="s" tabindex="6" name="post" '
        'value="Envoyer" class="button1 default-submit-action" />&nbsp;\n'
        "\t\t</fieldset>\n\t</div>\n</div>\n"
        '<div class="panel bg3" id="options-panel"><div class="inner"><fieldset '
        'class="fields1"><div><label for="attach_sig"><input type="checkbox" '
        'name="attach_sig" id="attach_sig" checked="checked" /> Attacher ma signature</label>'
        "</div></fieldset></div></div>\n"
        "</form>\n"
    )


def post_review_block(posts: Sequence[PostView]) -> str:
    """The "Revue du message" block a reply POST gets when ``topic_cur_post_id`` is stale:
    the explanation line and the new posts (``div.post`` without ``id="pN"``)."""
    items = "".join(
        '<div class="post bg2">\n\t<div class="inner">\n\n'
        f'\t<div class="postbody" id="ppr{p.post_id}">\n'
        f'\t\t<h3><a href="./viewtopic.php?p={p.post_id}#p{p.post_id}">{esc(p.subject)}</a></h3>'
        f'\n\t\t<p class="author">par <strong>{_profile_link(p.author_id, p.author)}</strong> '
        f"&raquo; {format_date_fr(p.time_s)}</p>\n"
        f'\t\t<div class="content">{p.content_html}</div>\n\t</div>\n\n\t</div>\n</div>\n\n'
        "<hr />\n\n"
        for p in posts
    )
    return (
        "\n<h3>Revue du message</h3>\n\n"
        "<p>Au moins un nouveau message a été ajouté à ce sujet. Vous pouvez revoir votre "
        "message en conséquence.</p>\n\n"
        f"{items}"
    )


@dataclass(frozen=True)
class PmRowView:
    """One PM folder row: the other party is the sender (inbox) or the recipient."""

    msg_id: int
    subject: str
    other_id: int
    other: str
    time_s: float
    unread: bool


def pm_folder_body(folder: str, folder_id: int, title: str, rows: Sequence[PmRowView]) -> str:
    """``ucp.php?i=pm&folder=…``: ``ul.pmlist`` rows with ``a.topictitle`` links
    ``ucp.php?i=pm&mode=view&f=<folder id>&p=<msg id>`` (or "Pas de message")."""
    if not rows:
        listing = "\t<p><strong>\n\t\t\t\t\t\t\tPas de message\n\t\t\t\t\t</strong></p>\n"
    else:
        prefix = "Par" if folder == "inbox" else "À"
        items = "".join(
            f'\t\t\t<li class="row bg{2 - i % 2}">\n'
            f'\t\t\t\t<dl class="row-item {"pm_unread" if r.unread else "pm_read"}">\n'
            '\t\t\t\t\t<dt><div class="list-inner">\n'
            f'\t\t\t\t\t\t<a href="./ucp.php?i=pm&amp;mode=view&amp;f={folder_id}&amp;'
            f'p={r.msg_id}" class="topictitle">{esc(r.subject)}</a> <br />\n'
            f"\t\t\t\t\t\t{prefix} {_profile_link(r.other_id, r.other)}\n"
            "\t\t\t\t\t</div></dt>\n"
            f'\t\t\t\t\t<dd class="info"><span>Envoyé : {format_date_fr(r.time_s)}</span></dd>\n'
            f'\t\t\t\t\t<dd class="mark"><input type="checkbox" name="marked_msg_id[]" '
            f'value="{r.msg_id}" /></dd>\n\t\t\t\t</dl>\n\t\t\t</li>\n'
            for i, r in enumerate(rows)
        )
        listing = (
            '\t\t<ul class="topiclist cplist pmlist responsive-show-all missing-column">\n'
            f"{items}\t\t</ul>\n"
        )
    return (
        '<h2 class="ucp-title">Panneau de l’utilisateur</h2>\n'
        f"\t<h2>Lire les messages : {esc(title)}</h2>\n"
        '<form id="viewfolder" method="post" action="./ucp.php?i=pm&amp;mode=view&amp;'
        f'action=view_folder&amp;f={folder_id}">\n<div class="panel">\n\t<div class="inner">\n'
        f"{listing}\t</div>\n</div>\n</form>\n"
    )


def pm_view_body(
    msg_id: int,
    subject: str,
    author_id: int,
    author: str,
    to_id: int,
    to: str,
    time_s: float,
    content_html: str,
) -> str:
    """``ucp.php?i=pm&mode=view&p=N``: the message with author, recipient and content."""
    return (
        '<h2 class="ucp-title">Panneau de l’utilisateur</h2>\n'
        f'<div id="post-{msg_id}" class="panel bg3 post pm has-profile">\n\t<div class="inner">\n'
        '\t<div class="postbody">\n'
        f'\t\t<h3 class="first">{esc(subject)}</h3>\n'
        f'\t\t<p class="author"><strong>Envoyé :</strong> {format_date_fr(time_s)}<br />\n'
        f"\t\t<strong>De :</strong> {_profile_link(author_id, author)}<br />\n"
        f"\t\t<strong>À :</strong> {_profile_link(to_id, to)}\n\t\t</p>\n"
        f'\t\t<div class="content">{content_html}</div>\n'
        "\t</div>\n\t</div>\n</div>\n"
    )
