"""Balance heatmaps, admins only (``/balance``, ``/balance/{ruleset}``; issue 17).

One page per shipped ruleset: the simulator's win-rate table as an SVG heatmap (year against
year; for fatigue also magic type against magic type), with the mean length in turns, the
share of draws and of duels closed by the referee at the turn cap. The tables come from
:class:`forumbot.web.balance.BalanceCache` (computed once per process, off the event loop).
"""

from __future__ import annotations

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from forumbot.web.balance import BalanceCache, shipped_rulesets
from forumbot.web.i18n import translator
from forumbot.web.routes.common import deps_of, error_page, language_of, page, render
from forumbot.web.users import User
from rules.balance import Table, svg_heatmap


def _cache(request: Request) -> BalanceCache:
    cache: BalanceCache = deps_of(request).balance
    return cache


def decimal(value: float, language: str) -> str:
    """``value`` with one decimal, a comma in French (``10,5``), a point in English."""
    text = f"{value:.1f}"
    return text.replace(".", ",") if language == "fr" else text


def heatmap(table: Table, language: str) -> Markup:
    """The table's SVG with the page's language (every text escaped by the renderer)."""
    _ = translator(language)
    kind = _("année contre année") if table.kind == "years" else _("magie contre magie")
    title = _("%s : victoires de la ligne (%s)", table.ruleset, kind)
    summary = _(
        "%s duels, %s tours en moyenne, nuls %s %%, clos par l'arbitre %s %%",
        table.duels,
        decimal(table.mean_turns, language),
        decimal(100 * table.draw_share, language),
        decimal(100 * table.capped_share, language),
    )
    return Markup(svg_heatmap(table, title=title, summary=summary, versus=_("contre")))  # noqa: S704


@page
async def balance_index(request: Request, user: User) -> Response:
    """The shipped rulesets, each a link to its page (admins only)."""
    if not user.is_admin:
        return error_page(request, 403, "Réservé aux administrateurs.", user)
    return render(request, "balance.html", {"names": shipped_rulesets(), "b": None}, user=user)


@page
async def balance_page(request: Request, user: User) -> Response:
    """One ruleset's heatmaps and figures (admins only; 404 for an unknown ruleset)."""
    if not user.is_admin:
        return error_page(request, 403, "Réservé aux administrateurs.", user)
    name = str(request.path_params["ruleset"])
    if name not in shipped_rulesets():
        raise HTTPException(404)
    tables = await run_in_threadpool(_cache(request).tables, name)
    language = language_of(request)
    shown = [t for t in (tables.years, tables.magic_types) if t is not None]
    maps = [
        {
            "svg": heatmap(t, language),
            "table": t,
            "mean": decimal(t.mean_turns, language),
            "draws": decimal(100 * t.draw_share, language),
            "capped": decimal(100 * t.capped_share, language),
        }
        for t in shown
    ]
    context = {
        "names": shipped_rulesets(),
        "b": tables,
        "maps": maps,
        "per_pair": _cache(request).duels_per_pair[tables.engine],
        "seed": _cache(request).seed,
    }
    return render(request, "balance.html", context, user=user)


__all__ = ["balance_index", "balance_page", "decimal", "heatmap"]
