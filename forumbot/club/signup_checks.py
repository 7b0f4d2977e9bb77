"""What the desk checks on a readable sign-up before either desk acts on it (issue 15: "sign-ups
read as a person would").

:func:`check_signup` runs after :func:`parsers.registration.parse_signup` and before the 1v1 or
2v2 desk (:mod:`forumbot.club.registrations`), **[D]** each:

- **Not sure means ask.** A sign-up with doubts (:attr:`parsers.registration.Signup.doubts`:
  two partners named, two years, an open request that names someone, two duel formats; or a
  format that is not the thread's, « deux contre deux » in the 1v1 thread) becomes a referee
  task (``referee_tasks``, kind ``signup_unsure``, no duel, the post quoted) and is recorded
  ``referee``; the player gets one French reply saying a referee will read it
  (``signup_referee.bbcode.j2``). Nothing is paired, no topic is opened.
- **Partners are members.** A partner without a recorded profile is looked up on the board
  (:meth:`forumbot.forums.base.MemberDirectory.member_exists`, cached by the client). No such
  member: the sign-up is refused (``unknown_partner``) with a French reply asking the player to
  check the name (``signup_unknown_partner.bbcode.j2``), and no pairing. The board could not say
  (None, or a client without look-ups): a labelled partner (``Partenaire :``) is taken as
  written; a free-text one (« je défie X ») is a doubt, so a referee task.
- **A returning duellist may leave out their year or magic type** (:func:`from_profile`): the
  account's one recorded profile says them (RULES.md: they are fixed between duels). Only when
  the post names no partner and no other character: otherwise it is refused for what it lacks
  (« il manque ton année d'études »), never read as an open request of the profile.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from forumbot.club.context import DeskContext
from forumbot.club.profiles import get_profile, profiles_of
from forumbot.club.replies import draft_reply, record_post
from forumbot.config import Registration
from forumbot.forums.base import MemberDirectory
from forumbot.publish.render import render
from forumbot.storage import iso
from parsers.magic_types import MAGIC_TYPES
from parsers.model import Post
from parsers.registration import Signup, SignupError, find_signup_stakes, fold, parse_signup

log = logging.getLogger("forumbot.club.registrations")

#: Each doubt as the player and the referee read it (French).
DOUBTS_FR = {
    "several_partners": "plusieurs partenaires sont nommés",
    "several_years": "plusieurs années d'études sont indiquées",
    "open_and_partner": "le message demande un duel ouvert et nomme aussi un partenaire",
    "several_kinds": (
        "le message parle à la fois d'un duel en un contre un et d'un duel en deux contre deux"
    ),
    "kind_mismatch_1v1": (
        "le message demande un duel en un contre un, dans le sujet des duels en deux contre deux"
    ),
    "kind_mismatch_2v2": (
        "le message demande un duel en deux contre deux, dans le sujet des duels en un contre un"
    ),
    "whose_details": (
        "on ne sait pas si l'année et le type de magie indiqués sont les tiens ou ceux de ton "
        "partenaire"
    ),
    "withdrawal_and_signup": (
        "le message annonce un désistement et contient aussi une fiche d'inscription"
    ),
    "partner_unverified": (
        "le forum n'a pas permis de vérifier que ton partenaire en est membre"
    ),
}


def check_signup(ctx: DeskContext, reg: Registration, post: Post, s: Signup) -> int | None:
    """Check a readable sign-up (see the module docstring). Returns the replies drafted when it
    was answered here (the desk does nothing more with it), None when the desk goes on."""
    doubts = list(s.doubts)
    if s.kind is not None and s.kind != reg.kind:
        doubts.append(f"kind_mismatch_{s.kind}")
    if s.partner is not None and get_profile(ctx.storage, ctx.board_id, s.partner.name) is None:
        exists = member_exists(ctx, s.partner.name)
        if exists is False:
            return refuse_unknown_partner(ctx, reg, post, s.partner.name)
        if exists is None and s.partner.source == "free":
            doubts.append("partner_unverified")
    if doubts:
        return ask_referee(ctx, reg, post, tuple(dict.fromkeys(doubts)))
    return None


def member_exists(ctx: DeskContext, name: str) -> bool | None:
    """The board's answer for ``name`` (None when the client cannot look members up)."""
    client = ctx.client
    if not isinstance(client, MemberDirectory):
        return None
    return client.member_exists(name)


def refuse_unknown_partner(ctx: DeskContext, reg: Registration, post: Post, partner: str) -> int:
    """Refuse a sign-up whose partner is no member (``unknown_partner``); one reply. Returns 1."""
    text = render(
        "signup_unknown_partner.bbcode.j2",
        {"author": post.author, "post_id": post.post_id, "partner": partner, "kind": reg.kind,
         "post_link": ctx.post_link},  # fmt: skip
        ctx.language,
    )
    record_post(ctx, post, "rejected", "unknown_partner", text, None)
    draft_reply(ctx, reg, post, "unknown_partner", text)
    log.info("sign-up %s by %s: partner %r is no member", post.post_id, post.author, partner)
    return 1


def ask_referee(
    ctx: DeskContext, reg: Registration, post: Post, doubts: tuple[str, ...]
) -> int:
    """Hand the sign-up to a referee: one ``referee_tasks`` row (kind ``signup_unsure``, no duel,
    keyed by board and post so it is made once, the post quoted in ``text``, the doubts in
    ``note``), the post recorded ``referee``, one French reply. Returns 1."""
    reasons = [DOUBTS_FR.get(d, d) for d in doubts]
    quoted = f'[quote="{post.author}" post_id={post.post_id}]{post.text}[/quote]'
    ctx.storage.club_rows.open_task(
        {
            "board_id": ctx.board_id,
            "duel_id": None,
            "kind": "signup_unsure",
            "source_key": f"b{ctx.board_id}-signup{post.post_id}",
            "duellist": post.author,
            "subject": f"Inscription à relire ({reg.kind}, sujet {reg.topic_id}) : {post.author}",
            "text": quoted,
            "post_id": post.post_id,
            "status": "open",
            "created_at": iso(ctx.now()),
            "note": "; ".join(reasons),
        }
    )
    text = render(
        "signup_referee.bbcode.j2",
        {"author": post.author, "post_id": post.post_id, "reasons": reasons,
         "post_link": ctx.post_link},  # fmt: skip
        ctx.language,
    )
    record_post(ctx, post, "referee", "signup_unsure", "; ".join(doubts), None)
    draft_reply(ctx, reg, post, "signup_unsure", text)
    ctx.storage.commit()
    log.info("sign-up %s by %s: not sure (%s): referee task", post.post_id, post.author,
             ", ".join(doubts))  # fmt: skip
    return 1


__all__ = ["DOUBTS_FR", "ask_referee", "check_signup", "member_exists", "refuse_unknown_partner"]


def from_profile(
    ctx: DeskContext, post: Post, error: SignupError, known: Mapping[str, str] | None
) -> Signup | None:
    """The sign-up of a returning duellist who left out their year or magic type
    (``error.code`` ``missing_year`` / ``missing_magic_type``), read with the account's one
    recorded profile (its character, year and types; the post's stakes), or None when it is
    not one: no profile or several, another error, or a post that, with what it lacks written
    from the profile, names a partner or a character other than the profile's (it is then
    refused for what it lacks: a partner is never dropped into an open request).

    ``known``: the ruleset's magic types (key -> label), None for the parser's default ones.
    """
    if error.code not in ("missing_year", "missing_magic_type"):
        return None
    mine = profiles_of(ctx.storage, ctx.board_id, post.author)
    if len(mine) != 1:
        return None
    profile, labels = mine[0], known or MAGIC_TYPES
    lines = {
        "missing_year": f"Année : {'adulte' if profile.year == 'adult' else profile.year}",
        "missing_magic_type": "Type de magie : "
        + " et ".join(labels.get(t, t) for t in profile.magic_types),
    }
    text, code = post.text, error.code
    read: Signup | SignupError = error
    for _ in lines:  # what the post lacks, written as the profile says it
        text = f"{text}\n{lines[code]}"
        again = replace(post, text=text)
        read = parse_signup(again, magic_types=known) if known else parse_signup(again)
        if isinstance(read, Signup) or read.code not in lines:
            break
        code = read.code
    if not isinstance(read, Signup) or read.partner is not None:
        return None
    if fold(read.name) not in (fold(profile.character), fold(post.author)):
        return None
    return Signup(
        post.post_id, post.author, profile.character, profile.year, profile.magic_types,
        stakes=find_signup_stakes(post.text),
    )  # fmt: skip
