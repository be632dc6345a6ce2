"""Report figures as inline SVG strings (matplotlib, no pyplot, no global backend change).

Every function returns a standalone ``<svg>...</svg>`` element ready to paste into HTML: the XML
prologue is stripped, text stays text (``svg.fonttype = "none"``, styled by the page font), and
element ids are prefixed per figure so several figures can share one page.  Figures are drawn on
an Agg canvas and saved with the SVG backend; the caller's pyplot backend (e.g. a notebook's
inline backend) is never touched.

Labels come from data (agent names, variants) and are escaped by matplotlib's SVG writer; ``$``
is escaped so that a name is never parsed as mathtext.
"""

from __future__ import annotations

import io
import itertools
import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from balancer.core.metrics import humanize
from balancer.outdir import own_directory, refuse_foreign, write_atomic

#: Okabe-Ito colour-blind-safe palette; component i always gets colour i.
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
    "#000000",
)
BAR_COLOUR = "#0072B2"
FAIR_COLOUR = "#444444"
BASE_COLOUR = "#777777"

PAGE_WIDTH = 6.5
"""Inches: the text width of a printed page (letter or A4 with 1 in margins). Every report figure is at
most this wide, so that it prints, and shows on a page, at 100% with the font sizes below."""
FONT_SIZE = 9.0
"""Points: the body text of every figure (tick labels, axis labels, legends); titles are 10 pt."""
SMALL_SIZE = 7.5
"""Points: the smallest text of any figure (a heatmap cell's interval)."""
DPI = 200
"""Dots per inch of a figure's PNG file."""
FIGSIZE = (PAGE_WIDTH, 3.4)  # inches
FORMATS: tuple[str, ...] = ("svg", "png", "pdf")
"""The files a figure is saved as (:func:`write_figure_files`)."""

# The one matplotlib style of every report figure (:func:`style`): one font scale, page width, dpi.
STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "balancer",
    "pdf.fonttype": 42,
    "font.family": "sans-serif",
    "font.size": FONT_SIZE,
    "axes.titlesize": 10.0,
    "axes.labelsize": FONT_SIZE,
    "xtick.labelsize": FONT_SIZE,
    "ytick.labelsize": FONT_SIZE,
    "legend.fontsize": FONT_SIZE,
    "legend.title_fontsize": FONT_SIZE,
    "figure.titlesize": 10.0,
    "figure.figsize": FIGSIZE,
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#333333",
    "axes.axisbelow": True,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
}


def style(overrides: Mapping[RcKeyType, Any] | None = None) -> Any:
    """The context every report figure is drawn and saved in: :data:`STYLE`, with ``overrides``
    (``style({"axes.grid": False})`` for a heatmap)."""
    return matplotlib.rc_context(STYLE | dict(overrides or {}))


def wrap(text: str, width_in: float, size: float = 10.0) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``size`` points (a title's
    width: an average character of a sans-serif font is about 0.55 of its size); its own line
    breaks are kept."""
    chars = max(12, int(width_in * 72 / (0.55 * size)))
    lines = (textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False) for line in text.split("\n"))
    return "\n".join("\n".join(parts) for parts in lines)


_figure_ids = itertools.count(1)


def text_label(text: object) -> str:
    """A data label safe for matplotlib text: ``$`` escaped so mathtext never parses it."""
    return str(text).replace("$", r"\$")


def _set_category_ticks(ax: matplotlib.axes.Axes, labels: Sequence[object]) -> None:
    """Category tick labels, slanted when they would not fit side by side."""
    texts = [text_label(lab) for lab in labels]
    ax.set_xticks(range(len(texts)), texts)
    if sum(len(t) for t in texts) > 48 or any(len(t) > 16 for t in texts):
        ax.tick_params(axis="x", labelrotation=25)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
            tick.set_rotation_mode("anchor")
    ax.set_xlim(-0.6, len(texts) - 0.4)


def new_figure(figsize: tuple[float, float] = FIGSIZE) -> Figure:
    """A figure of ``figsize`` inches, at most :data:`PAGE_WIDTH` wide, with constrained layout on an
    Agg canvas (no pyplot state)."""
    fig = Figure(figsize=(min(figsize[0], PAGE_WIDTH), figsize[1]), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _namespace_ids(svg: str, prefix: str) -> str:
    """Prefix every ``id`` and its ``#id`` references so figures on one page never collide."""
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if not ids:
        return svg

    def ref(match: re.Match[str]) -> str:
        name = match.group(2)
        return f"{match.group(1)}{prefix}{name}" if name in ids else match.group(0)

    svg = re.sub(r'(\bid=")([^"]+)(?=")', ref, svg)
    return re.sub(r"(#)([A-Za-z_][\w.:-]*)", ref, svg)


def svg_string(fig: Figure) -> str:
    """Serialise a figure to an inline ``<svg>`` element (no XML prologue, ids made unique)."""
    buf = io.StringIO()
    with style():
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    return _namespace_ids(text, f"f{next(_figure_ids)}-")


def win_rate_chart(
    labels: Sequence[object],
    rates: Sequence[float],
    ci_low: Sequence[float | None],
    ci_high: Sequence[float | None],
    *,
    fair_share: float | None,
    xlabel: str,
    title: str | None = None,
) -> str:
    """Bar chart of win rates with interval whiskers and a dashed fair-share line.

    Args:
        labels: one bar label per group (seat numbers, agent names).
        rates: win rates as fractions in [0, 1]; drawn in percent.
        ci_low, ci_high: interval bounds as fractions (``None`` draws no whisker).
        fair_share: fraction drawn as a dashed horizontal line (1/n), or ``None``.
        xlabel: x-axis label, e.g. ``"seat"``.
        title: optional axes title.

    Returns:
        an inline ``<svg>`` string.

    Raises:
        ValueError: if the sequences differ in length.
    """
    if not len(labels) == len(rates) == len(ci_low) == len(ci_high):
        raise ValueError("labels, rates, ci_low and ci_high must have the same length")
    with style():
        fig = new_figure()
        ax = fig.add_subplot()
        xs = list(range(len(labels)))
        pct = [100.0 * r for r in rates]
        below = [max(0.0, 100.0 * (r - lo)) if lo is not None else 0.0 for r, lo in zip(rates, ci_low)]
        above = [max(0.0, 100.0 * (hi - r)) if hi is not None else 0.0 for r, hi in zip(rates, ci_high)]
        ax.bar(xs, pct, width=0.6, color=BAR_COLOUR, zorder=2, label="win rate")
        ax.errorbar(
            xs,
            pct,
            yerr=[below, above],
            fmt="none",
            ecolor="#222222",
            elinewidth=1.0,
            capsize=4,
            zorder=3,
            label="95% Wilson interval",
        )
        if fair_share is not None:
            ax.axhline(
                100.0 * fair_share,
                color=FAIR_COLOUR,
                linestyle="--",
                linewidth=1.0,
                zorder=4,
                label=f"fair share ({100.0 * fair_share:.1f}%)",
            )
        tops = [p + a for p, a in zip(pct, above)] + [100.0 * (fair_share or 0.0)]
        ax.set_ylim(0, min(100.0, max(tops + [1.0]) * 1.08))
        _set_category_ticks(ax, labels)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("win rate (%)")
        if title:
            ax.set_title(text_label(title))
        fig.legend(loc="outside upper center", ncols=3)
        return svg_string(fig)


def score_breakdown_chart(
    labels: Sequence[object],
    components: Mapping[str, Sequence[float | None]],
    *,
    totals: Sequence[float | None] | None = None,
    totals_low: Sequence[float | None] | None = None,
    totals_high: Sequence[float | None] | None = None,
    xlabel: str,
    title: str | None = None,
) -> str:
    """Stacked bar chart of mean points per score component, one bar per group.

    Positive components stack upwards from 0, negative ones (penalties) downwards.  If ``totals``
    are given, the mean total score is marked on each bar with its interval.

    Args:
        labels: one bar label per group (agents or seats).
        components: component name -> mean points per group (same length as ``labels``);
            ``None`` counts as 0.  Colours follow the mapping's order (see ``PALETTE``).
        totals, totals_low, totals_high: optional mean total score per group and its interval.
        xlabel: x-axis label.
        title: optional axes title.

    Returns:
        an inline ``<svg>`` string.

    Raises:
        ValueError: if a component's length differs from ``labels``.
    """
    n = len(labels)
    for name, values in components.items():
        if len(values) != n:
            raise ValueError(f"component {name!r} has {len(values)} values for {n} labels")
    with style():
        fig = new_figure((PAGE_WIDTH, FIGSIZE[1] + 0.4))
        ax = fig.add_subplot()
        xs = list(range(n))
        pos = [0.0] * n
        neg = [0.0] * n
        for i, (name, values) in enumerate(components.items()):
            vals = [float(v or 0.0) for v in values]
            bottoms = [pos[j] if v >= 0 else neg[j] for j, v in enumerate(vals)]
            ax.bar(
                xs,
                vals,
                bottom=bottoms,
                width=0.6,
                color=PALETTE[i % len(PALETTE)],
                edgecolor="white",
                linewidth=0.5,
                zorder=2,
                label=text_label(name.replace("_", " ")),
            )
            for j, v in enumerate(vals):
                if v >= 0:
                    pos[j] += v
                else:
                    neg[j] += v
        if totals is not None:
            tx = [x for x, t in zip(xs, totals) if t is not None]
            ty = [float(t) for t in totals if t is not None]
            yerr = None
            if totals_low is not None and totals_high is not None:
                pairs = [
                    (
                        max(0.0, t - (lo if lo is not None else t)),
                        max(0.0, (hi if hi is not None else t) - t),
                    )
                    for t, lo, hi in zip(totals, totals_low, totals_high)
                    if t is not None
                ]
                yerr = [[p[0] for p in pairs], [p[1] for p in pairs]]
            ax.errorbar(
                tx,
                ty,
                yerr=yerr,
                fmt="o",
                color="#222222",
                markersize=3.5,
                elinewidth=1.0,
                capsize=3,
                zorder=4,
                label="total (95% CI)",
            )
        if any(v < 0 for v in neg):
            ax.axhline(0.0, color="#333333", linewidth=0.8, zorder=3)
        _set_category_ticks(ax, labels)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean points per player")
        if title:
            ax.set_title(text_label(title))
        fig.legend(loc="outside right upper")
        return svg_string(fig)


def matrix_panel(values: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> tuple[list, list, list]:
    """Long match-up rows (``row``, ``col``, ``rate``, ``ci_low``, ``ci_high``, as from
    :func:`balancer.stats.labels.matchup_matrix`) -> the square matrices (rates, lows, highs) of
    :func:`matchup_heatmap`, rows and columns in the order of ``values``, NaN where not played."""
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    mats: list[list[list[float]]] = [[[math.nan] * k for _ in range(k)] for _ in range(3)]
    for r in rows:
        i, j = index[r["row"]], index[r["col"]]
        mats[0][i][j], mats[1][i][j], mats[2][i][j] = r["rate"], r["ci_low"], r["ci_high"]
    return mats[0], mats[1], mats[2]


CELL_INCHES = 0.46
"""The side of a heatmap cell: room for its rate and, below, its interval at :data:`SMALL_SIZE`."""
PANEL_INCHES = 0.8
"""What a heatmap panel needs beside its cells: its row names and the gap to the next panel."""
COLOURBAR_INCHES = 0.8


def panel_grid(panels: int, k: int) -> tuple[int, int]:
    """(rows, columns) of ``panels`` heatmaps of ``k`` x ``k`` cells on a page: as many side by side
    as fit :data:`PAGE_WIDTH` beside the colour bar, each :data:`CELL_INCHES` per cell plus
    :data:`PANEL_INCHES`, at least one."""
    if panels <= 0:
        return 1, 1
    fit = int((PAGE_WIDTH - COLOURBAR_INCHES) // (k * CELL_INCHES + PANEL_INCHES))
    cols = max(1, min(panels, fit))
    return -(-panels // cols), cols


def heatmap_size(panels: int, k: int, extra_height: float = 0.0) -> tuple[float, float]:
    """Inches (width, height) of a figure of ``panels`` heatmaps of ``k`` x ``k`` cells in the grid of
    :func:`panel_grid`: as wide as its panels and colour bar need, at most :data:`PAGE_WIDTH`, so a
    small matrix is not set in the middle of an empty page-wide figure."""
    rows, cols = panel_grid(panels, k)
    width = min(PAGE_WIDTH, cols * (k * CELL_INCHES + PANEL_INCHES) + COLOURBAR_INCHES + 0.4)
    return width, 0.5 + extra_height + rows * (1.2 + CELL_INCHES * k)


def heatmap_panels(
    fig: Figure,
    labels: Sequence[str],
    panels: Sequence[tuple[str, Any, Any, Any]],
    norm: Any,
    *,
    xlabel: str,
    ylabel: str,
    digits: int = 0,
) -> list[matplotlib.axes.Axes]:
    """Draw heatmaps of win rates (fractions) on ``fig`` in the grid of :func:`panel_grid`, each cell
    with its rate in percent and, below, its interval at :data:`SMALL_SIZE`; a dash where not
    played; one colour bar. ``panels``: (title, rates, lows, highs), square matrices."""
    import numpy as np

    k = len(labels)
    nrows, ncols = panel_grid(len(panels), k)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    image = None
    for ax, (title, rates, lows, highs) in zip(axes, panels):
        r, lo, hi = (np.asarray(m, dtype=float) for m in (rates, lows, highs))
        if r.shape != (k, k) or lo.shape != (k, k) or hi.shape != (k, k):
            raise ValueError(f"panel {title!r}: matrices must be {k} x {k}")
        image = ax.imshow(np.ma.masked_invalid(r * 100), cmap="RdBu_r", norm=norm)
        for i in range(k):
            for j in range(k):
                if np.isnan(r[i, j]):
                    ax.text(j, i, "–", ha="center", va="center", color="#999999")
                    continue
                dark = abs(float(norm(r[i, j] * 100)) - 0.5) > 0.33  # white text on the deepest colours
                ax.text(j, i - 0.14, f"{r[i, j] * 100:.{digits}f}", ha="center", va="center",
                        color="white" if dark else "black")  # fmt: skip
                ax.text(j, i + 0.24, f"{lo[i, j] * 100:.0f}–{hi[i, j] * 100:.0f}", ha="center", va="center",
                        fontsize=SMALL_SIZE, color="#eeeeee" if dark else "#333333")  # fmt: skip
        names = [text_label(v) for v in labels]
        ax.set_xticks(range(k), names, rotation=30, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(k), names)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        # wrapped to the panel's own width (its cells and names), never running past the figure
        ax.set_title(
            wrap(text_label(title), max(1.5, k * CELL_INCHES + 0.4), FONT_SIZE), loc="left", fontsize=FONT_SIZE
        )
        for side in ("top", "right", "left", "bottom"):
            ax.spines[side].set_visible(False)
    for ax in axes[len(panels) :]:
        ax.set_axis_off()
    if image is not None:
        fig.colorbar(image, ax=list(axes), shrink=0.8, label="win rate of the row (%)")
    return list(axes)


def matchup_heatmap(
    values: Sequence[str],
    panels: Sequence[tuple[str, Sequence[Sequence[float]], Sequence[Sequence[float]], Sequence[Sequence[float]]]],
    title: str = "",
) -> Figure:
    """A heatmap per panel of a label's match-up matrix (see :func:`balancer.stats.labels.matchup_matrix`).

    Args:
        values: the label values, rows and columns in this order.
        panels: (panel title, rates, ci_low, ci_high), each a square matrix ``[row][col]`` of
            fractions in [0, 1] (NaN where the pair was not played): the row value's win rate
            against the column value.
        title: figure title.

    Each cell shows the rate in percent and, below, the 95% interval; colours run from blue (the row
    loses) through white (50%) to red (the row wins). Panels sit side by side as far as the page's
    width allows (:func:`panel_grid`).

    Raises:
        ValueError: if a matrix is not ``len(values)`` x ``len(values)``.
    """
    from matplotlib.colors import Normalize

    k = len(values)
    fig = new_figure(heatmap_size(len(panels), k))
    with style({"axes.grid": False}):
        heatmap_panels(fig, values, panels, Normalize(20, 80), xlabel="opponent", ylabel="win rate of")
        if title:
            fig.suptitle(wrap(text_label(title), fig.get_figwidth()), x=0.01, ha="left")
    return fig


UP_COLOUR = "#0072B2"
DOWN_COLOUR = "#D55E00"
NEUTRAL_COLOUR = "#777777"


def is_missing(value: Any) -> bool:
    """None or NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def symmetric_span(lows: Sequence[float], highs: Sequence[float], floor: float = 1.0) -> float:
    """The half-width of an axis centred on 0 that holds every interval: the largest ``|end|``, or
    ``floor`` when every end is 0 (an axis of +-1e-9 would print as ``1e-9``)."""
    span = max([abs(v) for v in (*lows, *highs) if math.isfinite(v)], default=0.0)
    return span if span > 0 else floor


def dodge_offsets(n: int, positions: Sequence[float], spread: float = 0.4) -> list[float]:
    """Offsets along x of ``n`` series drawn at the same ``positions``, so that their whiskers sit
    side by side: spread evenly over ``spread`` of the smallest gap between two positions (1 for a
    single position), centred on 0; ``[0.0]`` for one series."""
    if n <= 1:
        return [0.0] * n
    xs = sorted(set(float(x) for x in positions))
    gap = min((b - a for a, b in zip(xs, xs[1:])), default=1.0)
    step = spread * gap / (n - 1)
    return [(j - (n - 1) / 2) * step for j in range(n)]


def nonzero_components(components: Mapping[str, Sequence[float | None]]) -> tuple[list[str], list[str]]:
    """(kept, dropped) component names: a component whose every value is 0 or missing (a scoring
    category switched off, e.g. achievements) is dropped, the others kept in order."""
    kept: list[str] = []
    dropped: list[str] = []
    for name, values in components.items():
        (kept if any(v is not None and not is_missing(v) and v != 0 for v in values) else dropped).append(name)
    return kept, dropped


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[float]]],
    *,
    ylabel: str,
    xlabel: str = "",
    title: str = "",
    scale: float = 1.0,
    fair: float | None = None,
    colours: Sequence[str] = PALETTE,
    published: Sequence[Sequence[float | None]] | None = None,
) -> Figure:
    """Bars per category, one per series (label, values, lows, highs; fractions times ``scale``) with
    95% whiskers; ``published`` values (one list per series, ``None`` where there is none) as black
    diamonds; ``fair``: a dashed fair-share line. A legend entry for every mark."""
    import numpy as np

    with style():
        fig = new_figure((PAGE_WIDTH, 3.6))
        ax = fig.add_subplot()
        n = max(len(series), 1)
        width = 0.8 / n
        x = np.arange(len(categories))
        has_published = published is not None and any(v is not None for row in published for v in row)
        drawn_published = False  # one legend entry for the published values of every series
        for j, (label, values, lows, highs) in enumerate(series):
            pos = x - 0.4 + width * (j + 0.5)
            vals = np.asarray(values, dtype=float) * scale
            err = np.nan_to_num(
                np.clip(
                    [vals - np.asarray(lows, dtype=float) * scale, np.asarray(highs, dtype=float) * scale - vals],
                    0,
                    None,
                )
            )
            ax.bar(
                pos,
                vals,
                width * 0.92,
                color=colours[j % len(colours)],
                label=f"{text_label(label)} ({'ours, ' if has_published else ''}95% CI)",
                yerr=err,
                capsize=3,
                error_kw={"elinewidth": 0.9, "ecolor": "#222222"},
            )
            pub = [(p, v) for p, v in zip(pos, published[j] if published else []) if v is not None]
            if pub:
                ax.scatter([p for p, _ in pub], [v * scale for _, v in pub], marker="D", s=22, color="black",
                           zorder=5, label=None if drawn_published else "published")  # fmt: skip
                drawn_published = True
        if fair is not None:
            ax.axhline(fair * scale, color=FAIR_COLOUR, linestyle="--", linewidth=0.9,
                       label=f"fair share ({fair * 100:.1f}%)")  # fmt: skip
        ax.set_xticks(x, [text_label(c) for c in categories])
        ax.set_ylabel(text_label(ylabel))
        if xlabel:
            ax.set_xlabel(text_label(xlabel))
        if title:
            ax.set_title(wrap(text_label(title), PAGE_WIDTH), loc="left")
        fig.legend(loc="outside lower center", ncols=3)
    return fig


def difference_chart(panels: Sequence[tuple[str, Sequence[Mapping[str, Any]], float]]) -> str:
    """Differences with their interval whiskers and a zero line, one panel per group: a
    comparison's paired differences (B - A), a run's win rate with an indicator minus without it.

    Args:
        panels: ``(title with unit, rows, scale)``; each row needs ``name``, ``difference``,
            ``ci_low``, ``ci_high``, ``significant``; values are multiplied by ``scale`` (100 for
            win rates in percentage points). Rows without a difference are skipped.

    Returns:
        an inline ``<svg>`` string. Significant differences are filled markers (blue up, orange
        down); the others hollow grey; the legend names the three.
    """
    from matplotlib.lines import Line2D

    panels = [(t, [r for r in rows if not is_missing(r.get("difference"))], s) for t, rows, s in panels]
    panels = [p for p in panels if p[1]]
    heights = [max(len(rows), 1) * 0.26 + 0.65 for _, rows, _ in panels] or [1.0]
    with style({"axes.grid.axis": "x"}):
        fig = new_figure((PAGE_WIDTH, sum(heights) + 0.6))
        if not panels:
            ax = fig.add_subplot()
            ax.text(0.5, 0.5, "nothing to compare", ha="center", va="center")
            ax.set_axis_off()
            return svg_string(fig)
        axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=heights)[:, 0]
        for ax, (title, rows, scale) in zip(axes, panels):
            ys = list(range(len(rows)))[::-1]
            for y, r in zip(ys, rows):
                d = scale * r["difference"]
                lo = scale * r["ci_low"] if not is_missing(r.get("ci_low")) else d
                hi = scale * r["ci_high"] if not is_missing(r.get("ci_high")) else d
                sig = bool(r.get("significant"))
                colour = (UP_COLOUR if d > 0 else DOWN_COLOUR) if sig else NEUTRAL_COLOUR
                ax.errorbar(
                    [d],
                    [y],
                    xerr=[[max(0.0, d - lo)], [max(0.0, hi - d)]],
                    fmt="o",
                    color=colour,
                    markerfacecolor=colour if sig else "white",
                    markersize=4.5,
                    elinewidth=1.1,
                    capsize=2.5,
                    zorder=3,
                )
            ax.axvline(0.0, color="#333333", linewidth=0.9, zorder=2)
            ax.set_yticks(ys, [text_label(humanize(r["name"])) for r in rows])
            ax.set_ylim(-0.7, len(rows) - 0.3)
            ax.set_title(wrap(text_label(title), PAGE_WIDTH), loc="left")
            lows = [scale * (r["ci_low"] if not is_missing(r.get("ci_low")) else r["difference"]) for r in rows]
            highs = [scale * (r["ci_high"] if not is_missing(r.get("ci_high")) else r["difference"]) for r in rows]
            span = symmetric_span(lows, highs)
            ax.set_xlim(-span * 1.1, span * 1.1)
        marks = [
            Line2D([], [], marker="o", linestyle="", color=UP_COLOUR, label="up, flagged"),
            Line2D([], [], marker="o", linestyle="", color=DOWN_COLOUR, label="down, flagged"),
            Line2D(
                [], [], marker="o", linestyle="", color=NEUTRAL_COLOUR, markerfacecolor="white", label="not flagged"
            ),
            Line2D([], [], color="#333333", linewidth=0.9, label="no change"),
        ]
        fig.legend(handles=marks, loc="outside lower center", ncols=4)
        return svg_string(fig)


def figure_files(fig: Figure) -> dict[str, bytes]:
    """A figure's files in every format of :data:`FORMATS` (SVG, PNG at :data:`DPI`, PDF), as bytes,
    drawn in :data:`STYLE`, without dates (the same figure gives the same bytes)."""
    metadata: dict[str, dict[str, Any]] = {
        "svg": {"Date": None},
        "png": {"Software": None},
        "pdf": {"CreationDate": None, "ModDate": None},
    }
    out = {}
    with style():
        for fmt in FORMATS:
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=DPI, metadata=metadata[fmt])
            out[fmt] = buf.getvalue()
    return out


def write_figure_files(fig: Figure, directory: Path, stem: str) -> list[Path]:
    """Write ``stem.svg``, ``stem.png`` (:data:`DPI` dpi) and ``stem.pdf`` into ``directory`` (the
    bytes of :func:`figure_files`); return their paths. Each is written through
    :func:`balancer.outdir.write_atomic`: a link planted under any of the names, or in place of
    ``directory``, is refused (UnsafeOutputError), never followed, and nothing is written."""
    own_directory(directory)
    paths = [directory / f"{stem}.{fmt}" for fmt in FORMATS]
    for path in paths:
        refuse_foreign(path)
    files = figure_files(fig)
    for path, fmt in zip(paths, FORMATS):
        write_atomic(path, files[fmt])
    return paths
