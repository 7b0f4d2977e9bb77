"""The Forumactif sandbox's member list, ``/memberlist`` (issue 24 F11: the review page looks a
forum account up there; issue 15: free-text partners).

No real Forumactif member list was captured (``/work/shared/fixtures/forumactif`` has its link
only, ``/memberlist`` in the board's menu, and the ``/u<id>`` profile links of every page).
The page is modelled on those: the search form (``action="/memberlist"``, field
``username``), one row per member whose name contains the searched text (case ignored), each
name a profile link ``/u<id>`` coloured by group as ``POSTER_NAME`` is in topics
(:func:`forumbot.sandbox.forumactif_pages.poster_name`), or « Aucun membre trouvé » when none.
"""

from __future__ import annotations

from forumbot.sandbox import forumactif_pages as fp
from forumbot.sandbox.board_model import Request, Response
from forumbot.sandbox.forumactif_model import FaUser, _Session

NO_MEMBER = "Aucun membre trouvé pour ces critères de recherche."


def memberlist_body(search: str, members: list[FaUser]) -> str:
    """The member list page's body: the search form, then a table of ``members`` (HTML
    escaped) or :data:`NO_MEMBER`."""
    form = (
        '<form action="/memberlist" method="get" name="search_form">'
        '<input type="hidden" name="mode" value="username" />'
        f'<input type="text" name="username" value="{fp.esc(search)}" maxlength="40" />'
        '<input type="submit" name="submit" value="Ok" class="button1" /></form>'
    )
    if not members:
        return f'{form}<p class="gen">{fp.esc(NO_MEMBER)}</p>'
    rows = "".join(
        f'<tr><td class="avatar-mini">{fp.poster_name(u.user_id, u.name)}</td></tr>'
        for u in members
    )
    return f'{form}<table class="table1 forumline" id="memberlist"><tbody>{rows}</tbody></table>'


class FaMembers:
    """The member list handler mixed into :class:`forumbot.sandbox.forumactif.ForumactifSandbox`
    (it uses its ``_users`` and ``_page``)."""

    def _memberlist(self, req: Request, session: _Session | None) -> Response:
        search = " ".join(req.query.get("username", "").split())
        wanted = search.casefold()
        members = sorted(
            (u for u in self._users.values() if wanted in u.name.casefold()),
            key=lambda u: u.name.casefold(),
        )
        return self._page(session, "Liste des Membres", memberlist_body(search, members))


__all__ = ["NO_MEMBER", "FaMembers", "memberlist_body"]
