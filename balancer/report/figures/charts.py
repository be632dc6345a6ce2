"""The shared charts: win rates by seat and agent, the score breakdown, grouped bars of a study and
the difference chart of a comparison."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from balancer.core.metrics import humanize

from .style import (
    BAR_COLOUR,
    FAIR_COLOUR,
    FIGSIZE,
    PAGE_WIDTH,
    PALETTE,
    is_missing,
    new_figure,
    set_category_ticks,
    style,
    svg_string,
    symmetric_span,
    text_label,
    wrap,
)


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
        set_category_ticks(ax, labels)
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
        set_category_ticks(ax, labels)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean points per player")
        if title:
            ax.set_title(text_label(title))
        fig.legend(loc="outside right upper")
        return svg_string(fig)


UP_COLOUR = "#0072B2"


DOWN_COLOUR = "#D55E00"


NEUTRAL_COLOUR = "#777777"


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
            if pub:  # beside the whisker (a third of a bar to the right), never on its cap
                ax.scatter([p + 0.3 * width for p, _ in pub], [v * scale for _, v in pub], marker="D", s=18,
                           color="black", zorder=5, label=None if drawn_published else "published")  # fmt: skip
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
                excludes = lo > 0 or hi < 0  # its own interval excludes 0, though not flagged after Holm
                colour = (UP_COLOUR if d > 0 else DOWN_COLOUR) if sig or excludes else NEUTRAL_COLOUR
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
            ax.set_ylim(-0.8, len(rows) - 0.2)
            ax.set_title(wrap(text_label(title), PAGE_WIDTH), loc="left", pad=10)  # clear of the ticks above
            lows = [scale * (r["ci_low"] if not is_missing(r.get("ci_low")) else r["difference"]) for r in rows]
            highs = [scale * (r["ci_high"] if not is_missing(r.get("ci_high")) else r["difference"]) for r in rows]
            span = symmetric_span(lows, highs)
            ax.set_xlim(-span * 1.2, span * 1.2)  # a margin: no marker or cap against the frame
        marks = [
            Line2D([], [], marker="o", linestyle="", color=UP_COLOUR, label="up, flagged (Holm)"),
            Line2D([], [], marker="o", linestyle="", color=DOWN_COLOUR, label="down, flagged (Holm)"),
            Line2D(
                [],
                [],
                marker="o",
                linestyle="",
                color=UP_COLOUR,
                markerfacecolor="white",
                label="interval excludes 0, test not flagged",
            ),  # fmt: skip
            Line2D(
                [], [], marker="o", linestyle="", color=NEUTRAL_COLOUR, markerfacecolor="white", label="not flagged"
            ),
            Line2D([], [], color="#333333", linewidth=0.9, label="no change"),
        ]
        fig.legend(handles=marks, loc="outside lower center", ncols=3)
        return svg_string(fig)
