"""A small inline SVG line chart of each duellist's points over the turns.

Server-side, no script; colours are SVG presentation attributes (allowed by the page's CSP,
unlike inline ``style``). Names are escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup, escape

LEGEND_W, LEGEND_H = 150, 16
"""Width of one legend entry and height of one legend row (CSS pixels)."""


def _n(value: int) -> str:
    """A number with the minus sign (U+2212) of French typography (« −23 »)."""
    return f"\u2212{-value}" if value < 0 else str(value)


COLOURS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#57606a")


def points_chart(
    series: Mapping[str, Sequence[int]],
    *,
    width: int = 480,
    height: int = 200,
    unit: str = "",
    title: str = "",
    point: str = "%(name)s, turn %(turn)s: %(value)s %(unit)s",
) -> Markup:
    """An ``<svg>`` element: x = turn (0 = start), y = points, one polyline per duellist.

    Args:
        series: duellist name -> points after each turn, index 0 being the start.
        width, height: size in CSS pixels.
        unit: the points' unit (e.g. ``"PD"``), printed on the y axis.
        title: accessible title.
        point: each point's tooltip, a %-format with ``name``, ``turn``, ``value`` and
            ``unit`` (the page passes its language's: « Aurora Vexley, tour 2 : 35 PD »).
    Returns:
        Markup safe to print in a template. An empty ``series`` gives an empty chart.
    """
    pad_l, pad_r, pad_t, pad_b = 40, 10, 12, 40
    per_row = max(1, (width - pad_l) // LEGEND_W)  # legend entries a row (a 2v2 has four)
    legend_rows = max(1, -(-len(series) // per_row))
    height += LEGEND_H * (legend_rows - 1)
    pad_b += LEGEND_H * (legend_rows - 1)
    values = [v for vs in series.values() for v in vs]
    top = max(values + [1])
    bottom = min(values + [0])
    turns = max((len(vs) for vs in series.values()), default=1)
    span_x = max(turns - 1, 1)
    span_y = max(top - bottom, 1)
    plot_w = width - pad_l - pad_r
    plot_h = height - pad_t - pad_b

    def x(i: int) -> float:
        return pad_l + plot_w * i / span_x

    def y(v: int) -> float:
        return pad_t + plot_h * (top - v) / span_y

    def tip(name: str, turn: int, value: int) -> str:
        text = point % {"name": name, "turn": turn, "value": _n(value), "unit": unit}
        return text.rstrip()

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img">',
        f"<title>{escape(title)}</title>",
        f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + plot_h}" stroke="#888"/>',
        f'<line x1="{pad_l}" y1="{y(bottom):.1f}" x2="{pad_l + plot_w}" y2="{y(bottom):.1f}" '
        'stroke="#888"/>',
        f'<text x="4" y="{pad_t + 8}" font-size="10" fill="#444">{_n(top)} {escape(unit)}</text>',
        f'<text x="4" y="{y(bottom):.1f}" font-size="10" fill="#444">{_n(bottom)}</text>',
    ]
    for i in range(turns):
        parts.append(
            f'<text x="{x(i):.1f}" y="{pad_t + plot_h + 12}" font-size="10" fill="#444" '
            f'text-anchor="middle">{i}</text>'
        )
    for n, (name, vs) in enumerate(series.items()):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vs))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>'
        )
        for i, v in enumerate(vs):
            parts.append(
                f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}">'
                f"<title>{escape(tip(name, i, v))}</title></circle>"
            )
        lx = pad_l + LEGEND_W * (n % per_row)
        ly = height - LEGEND_H * (legend_rows - n // per_row)
        parts.append(
            f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{lx + 14}" y="{ly + 9}" font-size="11" fill="#222">'
            f"{escape(name)}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
