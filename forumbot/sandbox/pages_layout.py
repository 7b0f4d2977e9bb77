"""Prosilver (French) markup shared by the sandbox board's pages: escaping, the viewer, the
page layout (header, navigation), message boxes, the login form and one post's HTML (see
:mod:`forumbot.sandbox.pages`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from forumbot.sandbox.bbcode import format_date_fr, iso_utc
from forumbot.sandbox.board_model import POST_UNAPPROVED_EXPLAIN


def esc(text: str) -> str:
    """Escape text for HTML content and double-quoted attributes."""
    return escape(text, quote=True)


@dataclass(frozen=True)
class Viewer:
    """Who looks at a page: ``user_id`` 1 = guest (``name`` None); ``sid`` for the logout link."""

    user_id: int
    name: str | None
    sid: str
    unread_pms: int = 0


@dataclass(frozen=True)
class PostView:
    """One post ready to display (``content_html`` already rendered from BBCode)."""

    post_id: int
    subject: str
    author_id: int
    author: str
    author_posts: int
    time_s: float
    content_html: str
    edit_by_id: int | None = None
    edit_by: str | None = None
    edit_time_s: float | None = None
    edit_count: int = 0
    edit_reason: str | None = None
    unapproved: bool = False


def hidden(name: str, value: str) -> str:
    """``<input type="hidden">`` as phpBB writes it."""
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}" />'


def _header(viewer: Viewer) -> str:
    if viewer.name is None:
        right = (
            '<li class="rightside"  data-skip-responsive="true">\n'
            '\t<a href="./ucp.php?mode=login" title="Connexion" accesskey="x" role="menuitem">'
            '<i class="icon fa-power-off fa-fw" aria-hidden="true"></i><span>Connexion</span></a>'
            "\n</li>\n"
            '<li class="rightside" data-skip-responsive="true"><a href="./ucp.php?mode=register"'
            ' role="menuitem"><span>S’enregistrer</span></a></li>'
        )
    else:
        badge_class = "badge" if viewer.unread_pms else "badge hidden"
        right = (
            '<li id="username_logged_in" class="rightside " data-skip-responsive="true">\n'
            '<div class="header-profile dropdown-container">\n'
            '\t<a href="./ucp.php" class="header-avatar dropdown-trigger"> '
            f'<span class="username">{esc(viewer.name)}</span></a>\n'
            '\t<div class="dropdown"><ul class="dropdown-contents" role="menu">\n'
            '\t\t<li><a href="./ucp.php" title="Panneau de l’utilisateur" role="menuitem">'
            "<span>Panneau de l’utilisateur</span></a></li>\n"
            f'\t\t<li><a href="./memberlist.php?mode=viewprofile&amp;u={viewer.user_id}" '
            'title="Profil" role="menuitem"><span>Profil</span></a></li>\n'
            f'\t\t<li><a href="./ucp.php?mode=logout&amp;sid={esc(viewer.sid)}" '
            'title="Déconnexion" accesskey="x" role="menuitem"><span>Déconnexion</span></a></li>\n'
            "\t</ul></div>\n</div>\n</li>\n"
            '<li class="rightside" data-skip-responsive="true">\n'
            '\t<a href="./ucp.php?i=pm&amp;folder=inbox" role="menuitem">'
            '<i class="icon fa-inbox fa-fw" aria-hidden="true"></i><span>Messages privés </span>'
            f'<strong class="{badge_class}">{viewer.unread_pms}</strong></a>\n</li>'
        )
    return (
        '<div id="page-header">\n<div class="headerbar" role="banner"><div class="inner">\n'
        '<div id="site-description" class="site-description">'
        '<a id="logo" class="logo" href="./index.php" title="Index du forum">'
        '<span class="site_logo"></span></a>\n<h1>Club de duel (bac à sable)</h1>\n'
        "<p>Forum phpBB 3.3 simulé pour tester le bot</p></div>\n</div></div>\n"
        '<div class="navbar" role="navigation"><div class="inner">\n'
        '<ul id="nav-main" class="nav-main linklist" role="menubar">\n'
        '<li data-skip-responsive="true"><a href="/app.php/help/faq" rel="help" '
        'role="menuitem"><span>FAQ</span></a></li>\n'
        f"{right}\n</ul>\n</div></div>\n</div>\n"
    )


def layout(
    title: str,
    body: str,
    viewer: Viewer,
    *,
    section: str = "index",
    canonical: str | None = None,
    refresh: tuple[int, str] | None = None,
) -> str:
    """A whole page: head (title, optional canonical link and meta refresh), header with the
    login state, ``#page-body`` holding ``body``, footer with ``#phpbb_alert``."""
    head_extra = ""
    if refresh is not None:
        head_extra += (
            f'<meta http-equiv="refresh" content="{refresh[0]}; url={esc(refresh[1])}" />\n'
        )
    if canonical is not None:
        head_extra += f'\t<link rel="canonical" href="{esc(canonical)}">\n'
    return (
        '<!DOCTYPE html>\n<html dir="ltr" lang="fr">\n<head>\n<meta charset="utf-8" />\n'
        f"{head_extra}<title>{esc(title)}</title>\n"
        "<!--\n\tphpBB style name: prosilver\n-->\n"
        '<link href="./styles/prosilver/theme/stylesheet.css?assets_version=1" '
        'rel="stylesheet">\n</head>\n'
        f'<body id="phpbb" class="nojs notouch section-{section} ltr ">\n'
        '<div id="wrap" class="wrap">\n<a id="top" class="top-anchor" accesskey="t"></a>\n'
        f"{_header(viewer)}"
        '<a id="start_here" class="anchor"></a>\n'
        f'<div id="page-body" class="page-body" role="main">\n{body}\n</div>\n'
        '<div id="page-footer" class="page-footer" role="contentinfo">\n'
        '<div class="copyright"><p class="footer-row"><span class="footer-copyright">'
        'Développé par <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software '
        "&copy; phpBB Limited</span></p></div>\n"
        '<div id="phpbb_alert" class="phpbb_alert"><h3 class="alert_title">&nbsp;</h3>'
        '<p class="alert_text"></p></div>\n</div>\n</div>\n</body>\n</html>\n'
    )


def message_box(text: str, links_html: str = "") -> str:
    """phpBB's information panel ``div#message`` (errors, notices, confirmations)."""
    extra = f"<br /><br />{links_html}" if links_html else ""
    return (
        '<div class="panel" id="message">\n\t<div class="inner">\n'
        '\t<h2 class="message-title">Informations</h2>\n'
        f"\t<p>{esc(text)}{extra}</p>\n\t\t</div>\n</div>"
    )


def login_form(
    action: str,
    fields: Sequence[tuple[str, str]],
    sid: str,
    *,
    title: str = "Connexion",
    error: str | None = None,
    captcha_id: str | None = None,
) -> str:
    """``form#login`` as ``ucp.php?mode=login`` and the "you must be logged in" boxes show it:
    two hidden ``redirect`` (the last one, ``index.php``, wins), ``creation_time``,
    ``form_token``, ``sid``, submit ``login=Connexion``; CAPTCHA fields when asked."""
    error_html = f'\t\t<div class="error">{esc(error)}</div>' if error else ""
    captcha = ""
    if captcha_id is not None:
        captcha = (
            '\n\t<dl>\n\t\t<dt><label for="confirm_code">Code de confirmation :</label></dt>\n'
            '\t\t<dd class="captcha captcha-image"><img src="./ucp.php?mode=confirm&amp;'
            f'confirm_id={esc(captcha_id)}&amp;type=2" alt="Code de confirmation" /></dd>\n'
            '\t\t<dd><input type="text" name="confirm_code" id="confirm_code" size="8" '
            'maxlength="8" tabindex="3" class="inputbox narrow" />\n'
            f'\t\t\t\t<input type="hidden" name="confirm_id" id="confirm_id" '
            f'value="{esc(captcha_id)}" /></dd>\n\t</dl>\n'
        )
    hidden_html = "\n".join(hidden(k, v) for k, v in fields)
    return (
        f'<form action="{esc(action)}" method="post" id="login" data-focus="username">\n'
        '<div class="panel">\n\t<div class="inner">\n\t<div class="content">\n'
        f'\t\t<h2 class="login-title">{esc(title)}</h2>\n'
        f'\t\t<fieldset class="fields1">\n{error_html}\t\t<dl>\n'
        '\t\t\t<dt><label for="username">Nom d’utilisateur :</label></dt>\n'
        '\t\t\t<dd><input type="text" tabindex="1" name="username" id="username" size="25" '
        'value="" class="inputbox autowidth" autocomplete="username" /></dd>\n\t\t</dl>\n'
        '\t\t<dl>\n\t\t\t<dt><label for="password">Mot de passe :</label></dt>\n'
        '\t\t\t<dd><input type="password" tabindex="2" id="password" name="password" '
        'size="25" class="inputbox autowidth" autocomplete="current-password" /></dd>\n'
        f"\t\t</dl>{captcha}\n"
        '\t\t<dl>\n\t\t\t<dt>&nbsp;</dt>\n\t\t\t<dd><label for="autologin"><input '
        'type="checkbox" name="autologin" id="autologin" tabindex="4" /> Se souvenir de '
        "moi</label></dd>\n\t\t</dl>\n"
        f"\t\t{hidden('redirect', './ucp.php?mode=login')}\n{hidden_html}\n"
        f"\t\t<dl>\n\t\t\t<dt>&nbsp;</dt>\n\t\t\t<dd>{hidden('sid', sid)}\n"
        f"{hidden('redirect', 'index.php')}\n"
        '<input type="submit" name="login" tabindex="6" value="Connexion" class="button1" />'
        "</dd>\n\t\t</dl>\n\t\t</fieldset>\n\t</div>\n\t</div>\n</div>\n</form>"
    )


def _profile_link(user_id: int, name: str) -> str:
    return (
        f'<a href="./memberlist.php?mode=viewprofile&amp;u={user_id}" class="username">'
        f"{esc(name)}</a>"
    )


def post_html(post: PostView, index: int, logged_in: bool) -> str:
    """One ``div.post#pN`` with ``dl.postprofile``, ``p.author`` (``<time datetime>``),
    ``div.content`` and the ``div.notice`` edit line when the post shows one."""
    bg = "bg2" if index % 2 == 0 else "bg1"
    h3_class = 'class="first"' if index == 0 else ""
    buttons = ""
    if logged_in:
        buttons = (
            '\t\t\t<ul class="post-buttons">\n\t\t\t\t<li><a href="./posting.php?mode=quote'
            f'&amp;p={post.post_id}" title="Répondre en citant le message" class="button '
            'button-icon-only"><span class="sr-only">Citer</span></a></li>\n\t\t\t</ul>\n'
        )
    notice = ""
    if post.edit_count > 0 and post.edit_by is not None and post.edit_time_s is not None:
        reason = ""
        if post.edit_reason:
            reason = f"<br /><strong>Raison :</strong> <em>{esc(post.edit_reason)}</em>"
        notice = (
            '\t\t\t<div class="notice">\n\t\t\t\tModifié en dernier par '
            f"{_profile_link(post.edit_by_id or 0, post.edit_by)} le "
            f"{format_date_fr(post.edit_time_s)}, modifié {post.edit_count} fois.{reason}\n"
            "\t\t\t</div>\n"
        )
    unapproved = ""
    if post.unapproved:  # prosilver S_POST_UNAPPROVED, seen by the author (not a moderator)
        unapproved = (
            '\t\t\t<p class="post-notice unapproved">\n'
            '\t\t\t\t<span><i class="icon fa-exclamation icon-red fa-fw" aria-hidden="true">'
            "</i></span>\n"
            f"\t\t\t\t<strong>{POST_UNAPPROVED_EXPLAIN}</strong>\n\t\t\t</p>\n\n"
        )
    return (
        f'\t\t<div id="p{post.post_id}" class="post has-profile {bg}">\n'
        '\t\t<div class="inner">\n\n'
        f'\t\t<dl class="postprofile" id="profile{post.post_id}">\n'
        '\t\t\t<dt class="no-profile-rank no-avatar">\n'
        f"\t\t\t\t{_profile_link(post.author_id, post.author)}\t\t\t</dt>\n"
        '\t\t<dd class="profile-posts"><strong>Messages :</strong> <a href="./search.php?'
        f'author_id={post.author_id}&amp;sr=posts">{post.author_posts}</a></dd>\n'
        "\t\t</dl>\n\n"
        '\t\t<div class="postbody">\n'
        f'\t\t\t<div id="post_content{post.post_id}">\n'
        f"\t\t\t<h3 {h3_class}>\n"
        f'\t\t\t\t<a href="./viewtopic.php?p={post.post_id}#p{post.post_id}">'
        f"{esc(post.subject)}</a>\n\t\t\t</h3>\n"
        f"{buttons}"
        '\t\t\t<p class="author">\n'
        f'\t\t\t\t<a class="unread" href="./viewtopic.php?p={post.post_id}#p{post.post_id}" '
        'title="Message"><span class="sr-only">Message</span></a>\n'
        '\t\t\t\t<span class="responsive-hide">par <strong>'
        f"{_profile_link(post.author_id, post.author)}</strong> &raquo; </span>"
        f'<time datetime="{iso_utc(post.time_s)}">{format_date_fr(post.time_s)}</time>\n'
        "\t\t\t</p>\n\n"
        f"{unapproved}"
        f'\t\t\t<div class="content">{post.content_html}</div>\n\n'
        f"{notice}"
        "\t\t\t</div>\n\t\t</div>\n"
        '\t\t<div class="back2top"><a href="#top" class="top" title="Haut">'
        '<span class="sr-only">Haut</span></a></div>\n'
        "\t\t</div>\n\t</div>\n\n"
    )
