"""Balance heatmaps, admins only (``/balance``, ``/balance/{ruleset}``; issue 17).

One page per shipped ruleset: the simulator's win-rate table as an SVG heatmap (year against
year; for fatigue also magic type against magic type), with the mean length in turns, the
share of draws and of duels closed at the turn cap. The tables come from
:class:`forumbot.web.balance.BalanceCache` (computed once per process, off the event loop).
"""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from forumbot.i18n import Plural, thousands
from forumbot.web.balance import BalanceCache, BalanceTables, command, shipped_rulesets
from forumbot.web.i18n import page_translator
from forumbot.web.page_words import ruleset_fr
from forumbot.web.routes.common import deps_of, error_page, language_of, page, render
from forumbot.web.users import User
from rules.balance import Cell, Table, svg_heatmap
from rules.balance.render import chance_points, mirror_text, year_words


def _cache(request: Request) -> BalanceCache:
    cache: BalanceCache = deps_of(request).balance
    return cache


def decimal(value: float, language: str) -> str:
    """``value`` with one decimal, a comma in French (``10,5``), a point in English."""
    text = f"{value:.1f}"
    return text.replace(".", ",") if language == "fr" else text


def count(n: int, language: str) -> str:
    """A count of duels as the CLI writes it (:func:`forumbot.i18n.thousands`)."""
    return thousands(n, language)


def _pct(share: float, language: str) -> str:
    """A share (0..1) as a whole percentage with the page's percent sign (``62 %``)."""
    return f"{100 * share:.0f}\u202f%" if language == "fr" else f"{100 * share:.0f} %"


def labels_for(tables: BalanceTables, table: Table, language: str) -> dict[str, str]:
    """Readable headers: « 1re », « 2e »… « 7e et + », « adulte » for years (``1st``,
    ``7th+``, ``adult`` in English), the ruleset's own label for a magic type (« Discrète »,
    never ``discrete``)."""
    if table.kind == "magic_types":
        return {k: tables.labels.get(k, k) for k in table.rows}
    out = {}
    for key in table.rows:
        year, plus = (key[:-1], "+") if key.endswith("+") else (key, "")  # classic's « 7+ »
        if not year.isdigit():
            out[key] = "adulte" if language == "fr" and key == "adult" else key
        elif language == "fr":
            out[key] = ("1re" if year == "1" else f"{year}e") + (" et +" if plus else "")
        else:
            out[key] = {"1": "1st", "2": "2nd", "3": "3rd"}.get(year, f"{year}th") + plus
    return out


def caption(table: Table, language: str) -> str | None:
    """Why the table means little (:meth:`Table.meaningless`; fewer than
    :data:`~rules.balance.simulate.FEW_DUELS` duels a square, :meth:`Table.few`), in the
    page's language, or None: no all-zero, stalled or few-duel table is shown as a result."""
    _ = page_translator(language)
    why = table.meaningless()
    parts = []
    if why == "capped":
        parts.append(_(
            "This table means little: %s of its duels were closed at the turn cap, with no "
            "winner (this spellbook's duels stall).",
            _pct(table.capped_share, language),
        ))  # fmt: skip
    elif why == "no_winner":
        parts.append(_("This table means nothing: no duel had a winner."))
    elif why == "empty":
        parts.append(_("This table means nothing: no duel was played."))
    few = table.few()
    if few is not None and why != "empty":
        parts.append(_(
            "This table means little: only %s duels a cell, so chance alone moves a cell "
            "by up to %s points.",
            few, chance_points(few)[0],
        ))  # fmt: skip
    return " ".join(parts) or None


def _mirror_figures(table: Table) -> dict[str, Any] | None:
    """What the table says about its mirror claims (W19): the diagonal's and the symmetric
    pairs' ranges, the chance band of one square (95 %, p = 0.5, the smallest count of a
    square) and how many squares fall beyond their expected value by more than it. None when
    the rows are not the columns or no duel was played."""
    if table.rows != table.cols or not table.cells:
        return None
    counts = [c.duels for c in table.cells.values() if c.duels]
    if not counts:
        return None
    n = min(counts)
    band = 1.96 * math.sqrt(0.25 / n)
    diagonal, pairs, beyond, squares = [], [], 0, 0
    for r in table.rows:
        cell = table.cells[(r, r)]
        expected = 0.5 * (1 - cell.draw_share - cell.capped_share)
        diagonal.append(cell.win_rate)
        squares += 1
        beyond += abs(cell.win_rate - expected) > band
    for i, r in enumerate(table.rows):
        for c in table.rows[i + 1 :]:
            one, two = table.cells[(r, c)], table.cells[(c, r)]
            pairs.append(one.win_rate + two.win_rate)
            expected = 1 - (one.draw_share + one.capped_share + two.draw_share
                            + two.capped_share) / 2  # fmt: skip
            squares += 1
            beyond += abs(one.win_rate + two.win_rate - expected) > band * math.sqrt(2)
    return {"n": n, "band": band, "diagonal": (min(diagonal), max(diagonal)),
            "pairs": (min(pairs), max(pairs)) if pairs else None, "beyond": beyond,
            "checked": squares}  # fmt: skip


def mirror_note(table: Table, language: str) -> str | None:
    """The table's mirror caption: the CLI's own text (:func:`rules.balance.render.mirror_text`,
    one catalogue message for both; newcomer 6 C2), then what this table shows (W19: its
    claims are true of the table it captions): the diagonal's and the symmetric pairs' ranges
    and how many squares fall beyond chance's spread. None when the rows are not the
    columns or no duel was played."""
    figures = _mirror_figures(table)
    if figures is None:
        return None
    _ = page_translator(language)
    text = mirror_text(table, _, lambda one, many, n, *values: _(Plural(one, many, n), *values))
    lo, hi = figures["diagonal"]
    pairs = figures["pairs"]
    shown = _(
        "In this table the diagonal goes from %s to %s and the symmetric pairs from %s to %s "
        "together; cells and pairs further from 50 %% or 100 %% than chance allows: %s of %s "
        "(chance alone would give about %s).",
        _pct(lo, language), _pct(hi, language),
        _pct(pairs[0] if pairs else 0, language), _pct(pairs[1] if pairs else 0, language),
        figures["beyond"], figures["checked"], max(1, round(0.05 * figures["checked"])),
    )  # fmt: skip
    return f"{text} {shown}"


def stats_line(table: Table, language: str) -> str:
    """The table's figures, once (C42): duels, mean and median length, draws, duels closed
    at the turn cap (one term, the tooltips' « clos au plafond de tours »)."""
    _ = page_translator(language)
    return _(
        "%s duels · mean length: %s turns · median length: %s turns · draws: %s %% · "
        "closed at the turn cap: %s %%",
        count(table.duels, language), decimal(table.mean_turns, language),
        f"{table.median_turns:.0f}",
        decimal(100 * table.draw_share, language), decimal(100 * table.capped_share, language),
    )  # fmt: skip


def heatmap(table: Table, language: str, tables: BalanceTables | None = None) -> Markup:
    """The table's SVG with the page's language (every text escaped by the renderer):
    readable headers (:func:`labels_for`), each square's rate with « % », its tooltip the
    95 % Wilson interval, the count, the draws and capped duels; the caption when the table
    means little (:func:`caption`)."""
    _ = page_translator(language)
    kind = _("year against year")
    if table.kind != "years":  # the year both duellists play (newcomer 6 C1)
        kind = _("magic type against magic type, %s", year_words(table.year or "5", _))
    ruleset = ruleset_fr(table.ruleset) if language == "fr" else table.ruleset
    title = _("%s: win rate of the row side (%s)", ruleset, kind)
    names = labels_for(tables, table, language) if tables is not None else {}

    def tip(cell: Cell, row: str, col: str) -> str:
        lo, hi = cell.interval
        return _(
            "%s vs %s: %s won (95 %% interval: %s to %s), %s of %s duels; draws %s, closed at "
            "the turn cap %s",
            row, col, _pct(cell.win_rate, language), _pct(lo, language), _pct(hi, language),
            cell.wins, cell.duels, _pct(cell.draw_share, language),
            _pct(cell.capped_share, language),
        )  # fmt: skip

    # the figures are printed once, under the heatmap (:func:`stats_line`; C42)
    svg = svg_heatmap(
        table, title=title, summary="", versus=_("vs"), labels=names, tooltip=tip,
        caption=caption(table, language),
        percent="\u202f%" if language == "fr" else " %",
        rates=table.meaningless() not in ("no_winner", "empty"),
    )  # fmt: skip
    return Markup(svg)  # noqa: S704


def source_line(table: Table, duels: int, language: str) -> str:
    """Where the table's figures come from (newcomer 6 C3): its duels a square, and the
    ``--duels`` asked when whole duels a square leave some out; the command follows."""
    _ = page_translator(language)
    per = table.duels // max(1, len(table.cells))
    if table.duels != duels:
        return _(
            "%s duels a cell (%s asked, rounded down to whole duels a cell); the same "
            "figures:",
            count(per, language), count(duels, language),
        )  # fmt: skip
    return _("%s duels a cell; the same figures:", count(per, language))


@page
async def balance_index(request: Request, user: User) -> Response:
    """The shipped rulesets, each a link to its page (admins only)."""
    if not user.is_admin:
        return error_page(request, 403, "Admins only.", user)
    return render(request, "balance.html", {"names": shipped_rulesets(), "b": None}, user=user)


@page
async def balance_page(request: Request, user: User) -> Response:
    """One ruleset's heatmaps and figures (admins only; 404 for an unknown ruleset)."""
    if not user.is_admin:
        return error_page(request, 403, "Admins only.", user)
    name = str(request.path_params["ruleset"])
    if name not in shipped_rulesets():
        raise HTTPException(404)
    tables = await run_in_threadpool(_cache(request).tables, name)
    language = language_of(request)
    shown = [t for t in (tables.years, tables.magic_types) if t is not None]
    cache = _cache(request)
    maps = [
        {
            "command": command(name, t, cache.duels, cache.seed),
            "source": source_line(t, cache.duels, language),
            "svg": heatmap(t, language, tables),
            "table": t,
            "caption": caption(t, language),
            "median": f"{t.median_turns:.0f}",  # whole turns, as the CLI prints it
            "mean": decimal(t.mean_turns, language),
            "draws": decimal(100 * t.draw_share, language),
            "capped": decimal(100 * t.capped_share, language),
            "stats": stats_line(t, language),
            "mirror": mirror_note(t, language),
        }
        for t in shown
    ]
    context = {
        "names": shipped_rulesets(),
        "b": tables,
        "maps": maps,
        "duels": count(cache.duels, language),
        "seed": cache.seed,
    }
    return render(request, "balance.html", context, user=user)


__all__ = [
    "balance_index", "balance_page", "caption", "count", "decimal", "heatmap", "labels_for",
    "mirror_note", "source_line", "stats_line",
]  # fmt: skip
