"""Balance tables as text: a plain table for the terminal, CSV, and an SVG heatmap (pure strings).

The SVG is self-contained (no script, no external reference); labels are escaped. Colours run
from blue (the row side rarely wins) through white (50 %) to red (the row side usually wins).
"""

from __future__ import annotations

import csv
import io
from html import escape

from rules.balance.simulate import Table, compare


def text_table(table: Table, other: Table | None = None) -> str:
    """Row side's win rate (%) against each column side; with ``other``, its rate and the
    difference in percentage points (``other - table``). Summary lines follow."""
    width = max(6, *(len(c) + 1 for c in table.cols)) + (8 if other else 0)  # a space between
    head = f"{'':>10}" + "".join(f"{c:>{width}}" for c in table.cols)
    lines = [f"{table.ruleset} — win rate of the row side (%), {table.kind}", head]
    diff = compare(table, other) if other else {}
    for r in table.rows:
        row = f"{r:>10}"
        for c in table.cols:
            rate = 100 * table.cells[(r, c)].win_rate
            if other is not None:
                cell = f"{100 * other.cells[(r, c)].win_rate:.0f} ({diff[(r, c)]:+.0f})"
            else:
                cell = f"{rate:.0f}"
            row += f"{cell:>{width}}"
        lines.append(row)
    for name, t in (("", table),) + ((("compared: ", other),) if other else ()):
        lines.append(
            f"{name}{t.ruleset}: {t.duels} duels, mean length {t.mean_turns:.1f} turns, "
            f"draws {100 * t.draw_share:.1f} %, closed by the referee {100 * t.capped_share:.1f} %"
        )
    return "\n".join(lines) + "\n"


def csv_text(table: Table, other: Table | None = None) -> str:
    """One line per cell: row, col, duels, wins, losses, draws, capped, mean_turns, win_rate
    (0..1); with ``other``: its win rate and the difference in percentage points."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    header = ["ruleset", "kind", "row", "col", "duels", "wins", "losses", "draws", "capped",
              "mean_turns", "win_rate"]  # fmt: skip
    if other is not None:
        header += ["other_ruleset", "other_win_rate", "diff_points"]
    w.writerow(header)
    diff = compare(table, other) if other else {}
    for (r, c), cell in table.cells.items():
        line: list[object] = [table.ruleset, table.kind, r, c, cell.duels, cell.wins, cell.losses,
                              cell.draws, cell.capped, round(cell.turns / max(1, cell.duels), 2),
                              round(cell.win_rate, 4)]  # fmt: skip
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


def svg_heatmap(
    table: Table,
    cell: int = 44,
    *,
    title: str | None = None,
    summary: str | None = None,
    versus: str = "vs",
) -> str:
    """The win-rate table as an SVG heatmap (one square per pair, the rate written in it).

    ``title``, ``summary`` (the line under the squares) and ``versus`` (in each square's
    tooltip) default to English; the review page passes its own language's. Every text is
    XML-escaped."""
    left, top = 90, 60
    w = left + cell * len(table.cols) + 10
    h = top + cell * len(table.rows) + 40
    title = escape(title or f"{table.ruleset}: win rate of the row side ({table.kind})")
    vs = escape(versus)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
        f"<title>{title}</title>",
        f'<text x="4" y="16" font-size="14">{title}</text>',
    ]
    for j, c in enumerate(table.cols):
        x = left + j * cell + cell // 2
        parts.append(f'<text x="{x}" y="{top - 8}" text-anchor="middle">{escape(c)}</text>')
    for i, r in enumerate(table.rows):
        y = top + i * cell
        parts.append(
            f'<text x="{left - 6}" y="{y + cell // 2 + 4}" text-anchor="end">{escape(r)}</text>'
        )
        for j, c in enumerate(table.cols):
            rate = table.cells[(r, c)].win_rate
            x = left + j * cell
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{_colour(rate)}" '
                f'stroke="#888"><title>{escape(r)} {vs} {escape(c)}: {100 * rate:.0f} %'
                "</title></rect>"
            )
            parts.append(
                f'<text x="{x + cell // 2}" y="{y + cell // 2 + 4}" '
                f'text-anchor="middle">{100 * rate:.0f}</text>'
            )
    line = escape(
        summary
        or f"{table.duels} duels, mean {table.mean_turns:.1f} turns, draws "
        f"{100 * table.draw_share:.1f} %, closed by the referee {100 * table.capped_share:.1f} %"
    )
    parts.append(f'<text x="4" y="{h - 12}">{line}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


__all__ = ["csv_text", "svg_heatmap", "text_table"]
