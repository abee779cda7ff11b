"""Charts of sweeps and odds as SVG text, with no dependency: the same report gives the same
bytes, so the charts are golden-tested like the board renderer (``render.py``).

Each chart is a row of panels; a panel is a bar chart on a 0–1 or 0–max scale with optional
95% intervals drawn as whiskers. Numbers are written with fixed precision and every label is
escaped, so nothing from a pack or a scenario can break the markup.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .markup import clean_text

PANEL_W, PANEL_H = 300, 250
LEFT, BOTTOM, TOP = 44, 76, 28
COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52")


@dataclass(frozen=True)
class Series:
    """One run's bars in a panel (the base, a variant), each with an optional interval."""

    name: str
    values: tuple[float, ...]
    lows: tuple[float, ...] | None = None
    highs: tuple[float, ...] | None = None


def escape(text: str) -> str:
    """``text`` for HTML or SVG: escaped, and what UTF-8 or XML cannot hold (a lone surrogate,
    a control character) replaced by U+FFFD (hexlore/markup.py), so the file is always written."""
    return html.escape(clean_text(text))


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _panel(x0: float, title: str, labels: list[str], series: list[Series], top: float, ylabel: str,
           percent: bool) -> list[str]:
    plot_w, plot_h = PANEL_W - LEFT - 10, PANEL_H - BOTTOM - TOP
    out = [f'<g transform="translate({_n(x0)},0)">',
           f'<text x="{PANEL_W / 2:.0f}" y="16" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="#333"/>',
           f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="#333"/>',
           f'<text x="10" y="{TOP + plot_h / 2:.0f}" transform="rotate(-90 10 {TOP + plot_h / 2:.0f})" '
           f'text-anchor="middle" font-size="10">{escape(ylabel)}</text>']
    top = top if top > 0 else 1.0
    for k in range(5):
        v = top * k / 4
        y = TOP + plot_h - plot_h * k / 4
        shown = f"{100 * v:.0f}%" if percent else _n(v)
        out.append(f'<text x="{LEFT - 4}" y="{y + 3:.1f}" text-anchor="end" font-size="9">{shown}</text>')
    groups = max(1, len(labels))
    group_w = plot_w / groups
    bar_w = group_w * 0.8 / max(1, len(series))
    for g, label in enumerate(labels):
        gx = LEFT + g * group_w
        lx, ly = gx + group_w / 2, TOP + plot_h + 12
        if groups > 6:  # many bars: labels slanted so that they do not run into each other
            out.append(f'<text x="{lx:.1f}" y="{ly}" text-anchor="end" font-size="9" '
                       f'transform="rotate(-40 {lx:.1f} {ly})">{escape(label)}</text>')
        else:
            out.append(f'<text x="{lx:.1f}" y="{ly + 2}" text-anchor="middle" font-size="9">{escape(label)}</text>')
        for s_i, s in enumerate(series):
            value = s.values[g]
            h = plot_h * min(value, top) / top
            x = gx + group_w * 0.1 + s_i * bar_w
            out.append(f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                       f'fill="{COLOURS[s_i % len(COLOURS)]}" data-series="{escape(s.name)}" '
                       f'data-label="{escape(label)}" data-value="{value:.6f}"/>')
            if s.lows is not None and s.highs is not None:
                lo, hi = (TOP + plot_h - plot_h * min(b, top) / top for b in (s.lows[g], s.highs[g]))
                cx = x + bar_w / 2
                out.append(f'<path d="M{cx:.1f} {lo:.1f}V{hi:.1f}M{cx - 3:.1f} {lo:.1f}h6M{cx - 3:.1f} {hi:.1f}h6" '
                           'stroke="#222" fill="none"/>')
    out.append("</g>")
    return out


def _chart(panels: list[tuple], legend: list[str]) -> str:
    width = PANEL_W * max(1, len(panels))
    height = PANEL_H + (18 if len(legend) > 1 else 0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for i, panel in enumerate(panels):
        out += _panel(i * PANEL_W, *panel)
    if len(legend) > 1:
        for i, name in enumerate(legend):
            x = LEFT + i * 160
            out.append(f'<rect x="{x}" y="{PANEL_H + 4}" width="10" height="10" fill="{COLOURS[i % len(COLOURS)]}"/>')
            out.append(f'<text x="{x + 14}" y="{PANEL_H + 13}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def sweep_chart(report: dict) -> str:
    """Win rates with their intervals, game lengths and loss rates per unit type, for the base
    run and its variant (if any), from the report of ``hexlore.sweep``."""
    runs = [("base", report)] + ([("variant", report["variant"])] if "variant" in report else [])
    outcomes = [*report["wins"], "no winner"]

    def rates(name: str, s: dict) -> Series:
        cells = [*s["wins"].values(), s["draws"]]
        return Series(name, tuple(c["rate"] for c in cells), tuple(c["low"] for c in cells),
                      tuple(c["high"] for c in cells))

    wins = [rates(name, s) for name, s in runs]
    lengths = sorted({int(r) for _, s in runs for r in s["length"].get("histogram", {})})
    length_series = [Series(name, tuple(float(s["length"].get("histogram", {}).get(str(r), 0)) for r in lengths))
                     for name, s in runs]
    most = float(-(-max((v for s in length_series for v in s.values), default=1.0) // 4) * 4)  # whole ticks
    kinds = [(side, kind) for side, per in report["losses"].items() for kind in per]
    loss_series = [Series(name, tuple(s["losses"].get(side, {}).get(kind, {}).get("loss_rate", 0.0)
                                      for side, kind in kinds)) for name, s in runs]
    panels = [("win rate (95% Wilson)", outcomes, wins, 1.0, "share of games", True),
              ("game length", [str(r) for r in lengths], length_series, most, "games", False),
              ("units lost", [f"{side} {kind}" for side, kind in kinds], loss_series, 1.0, "loss rate", True)]
    return _chart(panels, [name for name, _ in runs])


def odds_chart(columns: list[str], marginals: list[dict], intervals: list[dict] | None = None) -> str:
    """One panel per outcome: the chance of each value (with its interval when sampled).
    ``marginals[i]`` maps each shown value of ``columns[i]`` to its chance."""
    panels = []
    for i, column in enumerate(columns):
        labels = list(marginals[i])
        values = tuple(float(marginals[i][v]) for v in labels)
        lows = highs = None
        if intervals is not None:
            lows = tuple(intervals[i][v][0] for v in labels)
            highs = tuple(intervals[i][v][1] for v in labels)
        panels.append((column, [str(v) for v in labels], [Series("odds", values, lows, highs)], 1.0, "chance", True))
    return _chart(panels, ["odds"])


def html_report(title: str, tables: list[tuple[str, list[str], list[list]]], svg: str) -> str:
    """A self-contained page: a title, tables of (caption, headers, rows) and the chart."""
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(title)}</title>",
           "<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin:1em 0}"
           "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#eee}"
           "td:first-child{text-align:left}caption{font-weight:bold;text-align:left}</style>",
           f"</head><body><h1>{escape(title)}</h1>"]
    for caption, headers, rows in tables:
        out.append(f"<table><caption>{escape(caption)}</caption><tr>"
                   + "".join(f"<th>{escape(str(h))}</th>" for h in headers) + "</tr>")
        for row in rows:
            out.append("<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>")
        out.append("</table>")
    out.append(svg)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def sweep_html(report: dict, svg: str) -> str:
    """The report of ``hexlore.sweep`` as a page: results of each run, the paired comparison."""
    tables = []
    runs = [("base", report)] + ([("variant", report["variant"])] if "variant" in report else [])
    for name, s in runs:
        rows = [[f"{side} wins", w["count"], _pct(w["rate"]), f"{_pct(w['low'])} – {_pct(w['high'])}"]
                for side, w in s["wins"].items()]
        d, v = s["draws"], s["ended_by_victory"]
        rows.append(["no winner", d["count"], _pct(d["rate"]), f"{_pct(d['low'])} – {_pct(d['high'])}"])
        rows.append(["ended by victory", v["count"], _pct(v["rate"]), f"{_pct(v['low'])} – {_pct(v['high'])}"])
        f = s["first_player"]
        rows.append(["first player won", f["count"], _pct(f["rate"]), f"{_pct(f['low'])} – {_pct(f['high'])}"])
        tables.append((f"{name}: {s['games']} games", ["result", "games", "rate", "95% interval"], rows))
    if "comparison" in report:
        rows = [[side, _pct(c["base"]), _pct(c["variant"]), f"{100 * c['change']:+.1f} pts",
                 f"{100 * c['low']:+.1f} – {100 * c['high']:+.1f}", f"{c['mcnemar_p']:.3g}"]
                for side, c in report["comparison"]["sides"].items()]
        tables.append(("paired comparison (same seeds)",
                       ["side", "base", "variant", "change", "95% interval", "McNemar p"], rows))
    warnings = [w for _, s in runs for w in s.get("warnings", [])]
    page = html_report(f"sweep of {report['scenario']}", tables, svg)
    if warnings:
        notes = "".join(f"<p><strong>warning:</strong> {escape(w)}</p>" for w in warnings)
        page = page.replace("</h1>", "</h1>" + notes, 1)
    return page
