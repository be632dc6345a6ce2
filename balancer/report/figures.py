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
FIGSIZE = (5.6, 3.3)  # inches

# matplotlib settings every report figure is drawn with (the other report modules use them too)
STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "balancer",
    "font.family": "sans-serif",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#333333",
    "axes.axisbelow": True,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "legend.fontsize": 8.0,
}

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
    """A figure of ``figsize`` inches with constrained layout on an Agg canvas (no pyplot state)."""
    fig = Figure(figsize=figsize, layout="constrained")
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
    with matplotlib.rc_context(STYLE):
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
    with matplotlib.rc_context(STYLE):
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
    with matplotlib.rc_context(STYLE):
        fig = new_figure((FIGSIZE[0], FIGSIZE[1] + 0.4))
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
        ax.set_ylabel("mean points")
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
    loses) through white (50%) to red (the row wins).

    Raises:
        ValueError: if a matrix is not ``len(values)`` x ``len(values)``.
    """
    import numpy as np

    k = len(values)
    fig = new_figure((0.6 + 3.2 * len(panels) * max(1.0, k / 5), 0.9 + 0.55 * k + 0.6))
    with matplotlib.rc_context(STYLE | {"axes.grid": False}):
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        image = None
        for ax, (panel_title, rates, lows, highs) in zip(axes, panels):
            r = np.asarray(rates, dtype=float)
            if r.shape != (k, k) or np.asarray(lows).shape != (k, k) or np.asarray(highs).shape != (k, k):
                raise ValueError(f"panel {panel_title!r}: matrices must be {k} x {k}")
            image = ax.imshow(np.ma.masked_invalid(r * 100), cmap="RdBu_r", vmin=20, vmax=80)
            for i in range(k):
                for j in range(k):
                    if np.isnan(r[i, j]):
                        continue
                    dark = abs(r[i, j] - 0.5) > 0.2  # white text on the deepest colours
                    ax.text(
                        j,
                        i - 0.12,
                        f"{r[i, j] * 100:.0f}",
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="white" if dark else "black",
                    )
                    ax.text(
                        j,
                        i + 0.24,
                        f"{lows[i][j] * 100:.0f}–{highs[i][j] * 100:.0f}",
                        ha="center",
                        va="center",
                        fontsize=5.5,
                        color="#eeeeee" if dark else "#333333",
                    )
            labels = [text_label(v) for v in values]
            ax.set_xticks(range(k), labels, rotation=30, ha="right", rotation_mode="anchor")
            ax.set_yticks(range(k), labels)
            ax.set_xlabel("opponent")
            ax.set_title(text_label(panel_title), loc="left")
            for side in ("top", "right", "left", "bottom"):
                ax.spines[side].set_visible(False)
        axes[0].set_ylabel("win rate of")
        if image is not None:
            fig.colorbar(image, ax=list(axes), shrink=0.8, label="win rate of the row (%)")
        if title:
            fig.suptitle(text_label(title), x=0.01, ha="left", fontsize=10)
    return fig


UP_COLOUR = "#0072B2"
DOWN_COLOUR = "#D55E00"
NEUTRAL_COLOUR = "#777777"

DIFFERENCE_STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "balancer-compare",
    "font.family": "sans-serif",
    "font.size": 8.5,
    "axes.titlesize": 9.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "x",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
}


def is_missing(value: Any) -> bool:
    """None or NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def difference_chart(panels: Sequence[tuple[str, Sequence[Mapping[str, Any]], float]]) -> str:
    """Differences with their interval whiskers and a zero line, one panel per group: a
    comparison's paired differences (B - A), a run's win rate with an indicator minus without it.

    Args:
        panels: ``(title with unit, rows, scale)``; each row needs ``name``, ``difference``,
            ``ci_low``, ``ci_high``, ``significant``; values are multiplied by ``scale`` (100 for
            win rates in percentage points). Rows without a difference are skipped.

    Returns:
        an inline ``<svg>`` string. Significant differences are filled markers (blue up, orange
        down); the others hollow grey.
    """
    panels = [(t, [r for r in rows if not is_missing(r.get("difference"))], s) for t, rows, s in panels]
    panels = [p for p in panels if p[1]]
    heights = [max(len(rows), 1) * 0.24 + 0.55 for _, rows, _ in panels] or [1.0]
    with matplotlib.rc_context(DIFFERENCE_STYLE):
        fig = Figure(figsize=(6.4, sum(heights) + 0.3), layout="constrained")
        FigureCanvasAgg(fig)
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
            ax.set_title(text_label(title), loc="left")
            lows = [scale * (r["ci_low"] if not is_missing(r.get("ci_low")) else r["difference"]) for r in rows]
            highs = [scale * (r["ci_high"] if not is_missing(r.get("ci_high")) else r["difference"]) for r in rows]
            span = max(abs(min(lows + [0.0])), abs(max(highs + [0.0])), 1e-9)
            ax.set_xlim(-span * 1.1, span * 1.1)
        return svg_string(fig)


def write_figure_files(fig: Figure, directory: Path, stem: str) -> list[Path]:
    """Write ``stem.svg`` and ``stem.png`` (200 dpi) into ``directory``; return their paths. Each is
    written through :func:`balancer.outdir.write_atomic`: a link planted under either name, or in place of
    ``directory``, is refused (UnsafeOutputError), never followed."""
    own_directory(directory)
    paths = [directory / f"{stem}.svg", directory / f"{stem}.png"]
    for path in paths:
        refuse_foreign(path)
    with matplotlib.rc_context(STYLE):
        svg, png = io.BytesIO(), io.BytesIO()
        fig.savefig(svg, format="svg", metadata={"Date": None})
        fig.savefig(png, format="png", dpi=200, metadata={"Software": None})
    write_atomic(paths[0], svg.getvalue())
    write_atomic(paths[1], png.getvalue())
    return paths
