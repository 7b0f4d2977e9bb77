"""Balance tables as text: a plain table for the terminal, CSV, and an SVG heatmap (pure strings).

The SVG is self-contained (no script, no external reference); labels are escaped. Colours run
from blue (the row side rarely wins) through white (50 %) to red (the row side usually wins).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from html import escape

from rules.balance.simulate import FEW_DUELS, MEANINGLESS_CAPPED, Cell, Table, compare

Say = Callable[..., str]
"""``say(message, *values)``: a caption's English ``%``-template (``%s``, ``%%``) filled with
``values``, in the reader's language (the CLI passes its catalogue's; default English)."""


def N_(message: str) -> str:  # noqa: N802 (gettext's name: marks a caption for the catalogue)
    """``message`` itself: marks an English caption for the staff's catalogue
    (``pybabel extract``, babel.cfg), which the CLI's ``say`` translates."""
    return message


def english(message: str, *values: object) -> str:
    """The default ``say``: ``message % values`` (``%%`` is one « % » even without values)."""
    return message % values


class Count(int):
    """A count of duels in a caption (``10000`` duels played, asked, of a cell), not an
    option's value: a :data:`Say` may group its thousands (the CLI's French: « 10 000 »,
    newcomer 7 #12); ``%s`` writes it as the plain number."""


SayN = Callable[..., str]
"""``say_n(singular, plural, n, *values)``: the form of an English ``%``-template pair for
the count ``n`` (gettext's ``ngettext``: « 1 duel », « 2 duels »), filled with ``values``, in
the reader's language (the CLI passes its catalogue's; default English: :func:`english_n`)."""


def ngettext(singular: str, plural: str) -> tuple[str, str]:
    """``(singular, plural)`` itself: marks an English caption that has a plural for the
    staff's catalogue (gettext's name, which ``pybabel extract`` reads as ``msgid`` and
    ``msgid_plural``); a :data:`SayN` picks the form for its count."""
    return singular, plural


def english_n(singular: str, plural: str, n: int, *values: object) -> str:
    """The default ``say_n``: ``singular`` for ``n == 1``, else ``plural``, ``% values``."""
    return (singular if n == 1 else plural) % values


MEANING_TEMPLATES = {
    "capped": N_(
        "this table means little: %s %% of its duels were closed at the turn cap (no "
        "winner); the spellbook's duels stall"
    ),
    "no_winner": N_("this table means nothing: no duel had a winner"),
    "empty": N_("this table means nothing: no duel was played"),
}
"""The captions of :meth:`rules.balance.simulate.Table.meaningless`, as ``say`` templates
(``capped``: the share of capped duels, ``"%.0f"``)."""

FEW_NOTE = ngettext(
    "this table means little: only %s duel a cell, so chance alone moves a cell by up to %s "
    "points; ask for --duels %s or more (%s a cell)",
    "this table means little: only %s duels a cell, so chance alone moves a cell by up to %s "
    "points; ask for --duels %s or more (%s a cell)",
)
"""The CLI's caption of a table with few duels a cell (:meth:`Table.few`, newcomer 6 C1):
the smallest cell's duels, chance's spread (points), the ``--duels`` that gives
:data:`~rules.balance.simulate.FEW_DUELS` a cell, that count."""

ASKED_NOTE = ngettext(
    "%s duels asked: %s cells of %s whole duel each, so %s played",
    "%s duels asked: %s cells of %s whole duels each, so %s played",
)
"""The CLI's line when ``--duels`` is not a whole number of duels a cell (newcomer 6 C1:
500 asked, 448 played): asked, cells, duels a cell, played (a :data:`SayN` pair: its form
follows the duels a cell, newcomer 7 #1: « 1 whole duels »)."""

MEANING = {
    "capped": "this table means little: {capped:.0f} % of its duels were closed at the turn cap "
    "(no winner); the spellbook's duels stall",
    "no_winner": "this table means nothing: no duel had a winner",
    "empty": "this table means nothing: no duel was played",
}
"""English captions of :meth:`rules.balance.simulate.Table.meaningless` (the CLI's)."""

MIRROR_NOTE = ngettext(
    "Mirror cells (row = column: %s): the two sides are alike, so expect such a cell to read "
    "on average 50 %% minus half its draws and duels closed at the turn cap, and a cell plus "
    "its opposite (column, row) 100 %% minus their draws and duels closed at the turn cap. "
    "With %s duel a cell, chance "
    "alone moves a cell by up to %s points (a pair by %s), 19 times in 20.",
    "Mirror cells (row = column: %s): the two sides are alike, so expect such a cell to read "
    "on average 50 %% minus half its draws and duels closed at the turn cap, and a cell plus "
    "its opposite (column, row) 100 %% minus their draws and duels closed at the turn cap. "
    "With %s duels a cell, chance "
    "alone moves a cell by up to %s points (a pair by %s), 19 times in 20.",
)
"""The mirror cells' note, ONE text for the CLI (under a table whose rows are its columns)
and the review page (:func:`forumbot.web.routes.balance.mirror_note`; newcomer 6 C2): a
``say_n`` pair (its form follows the duels of a cell; ``%%`` is one « % »): :data:`MIRROR_SAME`
of the table's kind, the duels of a cell, chance's spread of a cell and of a pair (points,
95 %: :func:`chance_points`)."""

MIRROR_SAME = {
    "years": N_("same year"),
    "duo years": N_("same year"),
    "magic_types": N_("same magic type"),
}
"""What a mirror cell pairs, by :attr:`Table.kind` (``say`` templates)."""


DRAWS_TITLE = N_("%s — draws (ties) / closed at the turn cap (%%), per cell: two distinct shares")
"""The second table's title (``say`` template): a draw is a tie, a duel closed at the turn
cap has no result; one duel is never both (``wins + losses + draws + capped == duels``).
« closed at the turn cap » is the one name of that share, in the summary line and on the
review page too (newcomer 7 #4: « closed by the referee » beside « capped at the turn cap »)."""


def chance_points(duels: int) -> tuple[int, int]:
    """The half-width (percentage points, rounded) of a 50 % cell's 95 % interval with
    ``duels`` duels (``1.96 * sqrt(0.25 / duels)``, at most 50), and of a pair of cells
    (times sqrt(2)); ``duels`` below 1 counts as 1."""
    band = 1.96 * (0.25 / max(1, duels)) ** 0.5
    return round(min(100 * band, 50)), round(min(100 * band * 2**0.5, 100))


def mirror_text(table: Table, say: Say = english, say_n: SayN = english_n) -> str | None:
    """:data:`MIRROR_NOTE` for ``table`` in ``say``'s and ``say_n``'s language (the duels of
    its smallest cell), or None when its rows are not its columns or it has no duel."""
    if table.rows != table.cols or not table.duels:
        return None
    per = min(c.duels for c in table.cells.values())
    cell, pair = chance_points(per)
    same = say(MIRROR_SAME.get(table.kind, N_("same year")))
    return say_n(*MIRROR_NOTE, per, same, Count(per), cell, pair)


KINDS = {
    "years": N_("years"),
    "magic_types": N_("magic types"),
    "duo years": N_("duo years"),
}
"""The tables' kinds (:attr:`Table.kind`) as captions (``say`` templates)."""

KIND_OF_YEAR = N_("magic types (both duellists: %s)")
"""A magic-type table's kind with its duellists' year (:attr:`Table.year`, newcomer 6 C1:
the table did not say which year it plays)."""

YEARS = {"1": N_("1st year"), "adult": N_("adult")}
"""A year as words (``say`` templates, as ``forumbot check``'s); another is :data:`NTH_YEAR`."""

NTH_YEAR = N_("year %s")


def year_words(year: str, say: Say = english) -> str:
    """``"5"`` as « year 5 » (« 5e année » in French), ``"adult"`` as « adult »."""
    return say(YEARS[year]) if year in YEARS else say(NTH_YEAR, year)


SIDES = {"adult": N_("adult")}
"""Row and column keys that are words (a year), as ``say`` templates: the French table says
« adulte », as the review page's table does (newcomer5 C10: it said « adult »); years are
shown as they are, a magic type by its label when the caller gives them (``labels``)."""


def _side(key: str, say: Say, labels: Mapping[str, str]) -> str:
    """A row's or column's header: its label (a magic type's « Discrète »), else its
    :data:`SIDES` word, else the key itself."""
    if key in labels:
        return labels[key]
    return say(SIDES[key]) if key in SIDES else key


def _rate_cell(table: Table, r: str, c: str, say: Say = english) -> str:
    cell = table.cells[(r, c)]
    if cell.capped_share >= MEANINGLESS_CAPPED:
        return say(N_("capped"))
    lo, hi = cell.interval
    return f"{100 * cell.win_rate:.0f} ({100 * lo:.0f}-{100 * hi:.0f})"


def kind_words(table: Table, say: Say = english) -> str:
    """The table's kind in the title: « years », « magic types (both duellists: year 5) »."""
    if table.kind == "magic_types" and table.year is not None:
        return say(KIND_OF_YEAR, year_words(table.year, say))
    return say(KINDS[table.kind]) if table.kind in KINDS else table.kind


def _warnings(t: Table, say: Say, say_n: SayN) -> list[str]:
    """The « WARNING » lines of a table: why it means little (:meth:`Table.meaningless`) and
    few duels a cell (:meth:`Table.few`)."""
    lines = []
    why = t.meaningless()
    if why is not None:
        template = MEANING_TEMPLATES[why]
        share = (f"{100 * t.capped_share:.0f}",) if "%s" in template else ()
        lines.append(say(N_("WARNING: %s"), say(template, *share)))
    few = t.few()
    if few is not None and why != "empty":
        enough = FEW_DUELS * len(t.cells)
        shown = say_n(*FEW_NOTE, few, few, chance_points(few)[0], enough, FEW_DUELS)
        lines.append(say(N_("WARNING: %s"), shown))
    return lines


def text_table(
    table: Table,
    other: Table | None = None,
    say: Say = english,
    *,
    labels: Mapping[str, str] | None = None,
    asked: int | None = None,
    say_n: SayN = english_n,
    rulesets: Mapping[str, str] | None = None,
) -> str:
    """Row side's win rate (%) against each column side with its 95 % Wilson interval
    (``62 (54-70)``; ``capped`` for a cell whose duels mostly hit the turn cap), then the
    draws and capped duels of each cell (%; one line when there are none), the summary
    (duels, mean and median length, draws, capped), a line when ``asked`` duels were not a
    whole number a cell (:data:`ASKED_NOTE`), the mirror-cell note (:func:`mirror_text`),
    and a caption when the table means little (:meth:`Table.meaningless`, :meth:`Table.few`).
    With ``other``: its rate and the difference in percentage points (``other - table``) in
    each cell, the title naming both (« fatigue compared with faible — faible's win rate … in
    brackets faible's minus fatigue's »).

    ``say``, ``say_n``: how the captions are written (:data:`Say`, :data:`SayN` for those with
    a plural; default English), and the words
    among the rows' and columns' names (:data:`SIDES`: « adulte »); ``labels``: a row or
    column key's header (a magic type's label, « Discrète »); ``rulesets``: a ruleset's name
    as the captions say it (« classique » for ``classic``; newcomer 7 #8), others as they
    are; the figures are not translated."""
    names = dict(labels or {})
    words = dict(rulesets or {})
    base = words.get(table.ruleset, table.ruleset)
    rival = words.get(other.ruleset, other.ruleset) if other is not None else ""
    sides = {key: _side(key, say, names) for key in (*table.rows, *table.cols)}
    left = max(10, *(len(sides[r]) + 1 for r in table.rows))  # « Flamboyante » fits
    width = max(6, *(len(sides[c]) + 1 for c in table.cols)) + (8 if other else 0)  # a space
    if other is None:
        width = max(width, 14)
    head = f"{'':>{left}}" + "".join(f"{sides[c]:>{width}}" for c in table.cols)
    kind = kind_words(table, say)
    if other is None:
        title = say(N_("%s — win rate of the row side (%%), 95 %% interval, %s"), base, kind)
    else:  # the cells are ``other``'s rates (newcomer 7 #4b: the title named only ``table``)
        title = say(
            N_("%s compared with %s — %s's win rate of the row side (%%), in brackets %s's "
               "minus %s's (points), %s"),
            base, rival, rival, rival, base, kind,
        )  # fmt: skip
    lines = [title, head]
    diff = compare(table, other) if other else {}
    for r in table.rows:
        row = f"{sides[r]:>{left}}"
        for c in table.cols:
            if other is not None:
                cell = f"{100 * other.cells[(r, c)].win_rate:.0f} ({diff[(r, c)]:+.0f})"
            else:
                cell = _rate_cell(table, r, c, say)
            row += f"{cell:>{width}}"
        lines.append(row)
    if other is None and any(c.draws or c.capped for c in table.cells.values()):
        small = max(6, *(len(sides[c]) + 1 for c in table.cols))
        lines.append(say(DRAWS_TITLE, base))
        lines.append(f"{'':>{left}}" + "".join(f"{sides[c]:>{small}}" for c in table.cols))
        for r in table.rows:
            row = f"{sides[r]:>{left}}"
            for c in table.cols:
                found = table.cells[(r, c)]
                shares = f"{100 * found.draw_share:.0f}/{100 * found.capped_share:.0f}"
                row += f"{shares:>{small}}"
            lines.append(row)
    elif other is None and table.duels:
        lines.append(say(N_("%s — draws (ties) / closed at the turn cap: none in any cell"),
                         base))  # fmt: skip
    for compared, t in ((False, table),) + (((True, other),) if other else ()):
        per = t.duels // max(1, len(t.cells))
        figures = (
            words.get(t.ruleset, t.ruleset), Count(t.duels), Count(per), f"{t.mean_turns:.1f}",
            f"{t.median_turns:.0f}",
            f"{100 * t.draw_share:.1f}", f"{100 * t.capped_share:.1f}",
        )  # fmt: skip
        if compared:
            summary = N_(
                "compared: %s: %s duels (%s per cell), mean length %s turns, median %s, draws "
                "%s %%, closed at the turn cap %s %%"
            )
        else:
            summary = N_(
                "%s: %s duels (%s per cell), mean length %s turns, median %s, draws %s %%, "
                "closed at the turn cap %s %%"
            )
        lines.append(say(summary, *figures))
        if not compared and asked is not None and asked != t.duels:
            counts = (Count(asked), len(t.cells), Count(per), Count(t.duels))
            lines.append(say_n(*ASKED_NOTE, per, *counts))
        lines.extend(_warnings(t, say, say_n))
    mirror = mirror_text(table, say, say_n)
    if mirror is not None:
        lines.append(mirror)
    return "\n".join(lines) + "\n"


def csv_text(table: Table, other: Table | None = None) -> str:
    """One line per cell: row, col, duels, wins, losses, draws, capped, mean_turns, win_rate,
    win_low, win_high (the 95 % Wilson interval; 0..1); with ``other``: its win rate and the
    difference in percentage points."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    header = ["ruleset", "kind", "row", "col", "duels", "wins", "losses", "draws", "capped",
              "mean_turns", "win_rate", "win_low", "win_high"]  # fmt: skip
    if other is not None:
        header += ["other_ruleset", "other_win_rate", "diff_points"]
    w.writerow(header)
    diff = compare(table, other) if other else {}
    for (r, c), cell in table.cells.items():
        line: list[object] = [table.ruleset, table.kind, r, c, cell.duels, cell.wins, cell.losses,
                              cell.draws, cell.capped, round(cell.turns / max(1, cell.duels), 2),
                              round(cell.win_rate, 4), round(cell.interval[0], 4),
                              round(cell.interval[1], 4)]  # fmt: skip
        if other is not None:
            line += [other.ruleset, round(other.cells[(r, c)].win_rate, 4), diff[(r, c)]]
        w.writerow(line)
    return out.getvalue()


def _colour(rate: float) -> str:
    """Blue (0) -> white (0.5) -> red (1)."""
    if rate >= 0.5:
        k = (rate - 0.5) * 2
        r, g, b = 255, int(255 * (1 - k)), int(255 * (1 - k))
    else:
        k = (0.5 - rate) * 2
        r, g, b = int(255 * (1 - k)), int(255 * (1 - k)), 255
    return f"#{r:02x}{g:02x}{b:02x}"


_CHAR_W = 6.6
"""Approximate width (px) of one character at the heatmap's 12 px sans-serif."""


def _ink(fill: str) -> str:
    """White text on a dark square, black on a light one (``fill`` is ``#rrggbb``)."""
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 140 else "#000000"


def svg_heatmap(
    table: Table,
    cell: int = 48,
    *,
    title: str | None = None,
    summary: str | None = None,
    versus: str = "vs",
    labels: Mapping[str, str] | None = None,
    tooltip: Callable[[Cell, str, str], str] | None = None,
    caption: str | None = None,
    percent: str = " %",
    rates: bool = True,
) -> str:
    """The win-rate table as an SVG heatmap (one square per pair, the rate written in it
    followed by ``percent``; a cell whose duels mostly hit the turn cap is grey with "—").

    ``title``, ``summary`` (the line under the squares), ``versus`` and ``tooltip`` (a
    square's title, given the cell and the two labels) default to English; ``labels`` maps
    a row or column key to the header shown (e.g. ``{"adult": "adulte"}``); ``caption``, when
    given, is written under the summary (the table means little). The review page passes its
    own language's; ``summary=""`` leaves the line out. ``rates=False`` (a table with no
    winner: no all-zero table shown as a result) draws every square grey with "—". Column
    headers wider than a square are
    slanted, the width fits the longest text, a dark square's rate is written in white. Every
    text is XML-escaped."""
    names = dict(labels or {})
    # column headers wider than a square are written slanted (« Flamboyante », « Protectrice »)
    longest = max((len(names.get(c, c)) for c in table.cols), default=0)
    slanted = longest * _CHAR_W > cell - 4
    left, top = 100, (30 + int(longest * _CHAR_W * 0.71) if slanted else 60)
    title = escape(title or f"{table.ruleset}: win rate of the row side, {kind_words(table)}")
    line = escape(
        f"{table.duels} duels, mean {table.mean_turns:.1f} turns, draws "
        f"{100 * table.draw_share:.1f} %, closed at the turn cap {100 * table.capped_share:.1f} %"
        if summary is None else summary
    )  # fmt: skip
    texts = [len(title) * 7.5, len(line) * _CHAR_W, len(caption or "") * _CHAR_W]
    w = int(max(left + cell * len(table.cols) + 10, *texts) + 8)  # no text cut at the edge
    h = top + cell * len(table.rows) + (58 if caption else 40) - (0 if line else 18)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
        f"<title>{title}</title>",
        f'<text x="4" y="16" font-size="14">{title}</text>',
    ]
    for j, c in enumerate(table.cols):
        x = left + j * cell + cell // 2
        label = escape(names.get(c, c))
        if slanted:
            parts.append(
                f'<text x="{x}" y="{top - 8}" transform="rotate(-45 {x} {top - 8})">{label}</text>'
            )
        else:
            parts.append(f'<text x="{x}" y="{top - 8}" text-anchor="middle">{label}</text>')
    for i, r in enumerate(table.rows):
        y = top + i * cell
        label = escape(names.get(r, r))
        parts.append(
            f'<text x="{left - 6}" y="{y + cell // 2 + 4}" text-anchor="end">{label}</text>'
        )
        for j, c in enumerate(table.cols):
            found = table.cells[(r, c)]
            rate = found.win_rate
            x = left + j * cell
            stalled = found.capped_share >= MEANINGLESS_CAPPED or not rates
            if tooltip is not None:
                tip = tooltip(found, names.get(r, r), names.get(c, c))
            else:
                lo, hi = found.interval
                tip = (
                    f"{names.get(r, r)} {versus} {names.get(c, c)}: {100 * rate:.0f} % "
                    f"({100 * lo:.0f}-{100 * hi:.0f} %), {found.wins}/{found.duels} won, "
                    f"draws {100 * found.draw_share:.0f} %, capped {100 * found.capped_share:.0f} %"
                )
            fill = "#cccccc" if stalled else _colour(rate)
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" '
                f'stroke="#888"><title>{escape(tip)}</title></rect>'
            )
            text = "—" if stalled else f"{100 * rate:.0f}{percent}"
            parts.append(
                f'<text x="{x + cell // 2}" y="{y + cell // 2 + 4}" '
                f'text-anchor="middle" fill="{_ink(fill)}">{escape(text)}</text>'
            )
    base = h - (30 if caption else 12)
    if line:  # summary="": the caller prints the figures itself
        parts.append(f'<text x="4" y="{base}">{line}</text>')
    if caption:
        parts.append(f'<text x="4" y="{h - 10}" fill="#a00000">{escape(caption)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


__all__ = [
    "Count", "MEANING", "MIRROR_NOTE", "chance_points", "csv_text", "kind_words", "mirror_text",
    "svg_heatmap", "text_table", "year_words",
]  # fmt: skip
