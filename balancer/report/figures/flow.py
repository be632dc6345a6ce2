"""How a game feels (issue 49): the figures of :mod:`balancer.stats.flow`'s measures, in the reports'
print style. Each function takes the measures as the JSON-ready dicts of
:meth:`balancer.stats.flow.FlowMeasures.to_dict` and :func:`balancer.stats.flow.paired_flow` (what
summary.json and comparison.json hold), draws them, computes nothing, and returns the
:class:`~matplotlib.figure.Figure` (a page inlines it with :func:`balancer.report.figures.svg_string`).

Checkpoints are discrete: every interval is an error bar at its checkpoint, never a band drawn
between two checkpoints (nothing is measured between them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from balancer.report import figures as figs

ZERO_COLOUR = "#444444"
MIN_CURVE_GAMES = 20
"""The fewest games a checkpoint of the leader-wins curve is drawn with: where games differ in length the
late checkpoints hold only the longest few (Urgency's 145th round: one game, a Wilson interval of 21 to 100%),
and a tail of such whiskers filled the figure. Fewer than 20 games give an interval wider than about
+/-20 points; the points stay in summary.json and comparison.json."""
DIFFERENCE_COLOUR = "#000000"
"""The paired difference B - A in black: neither A's grey nor B's blue (a comparison page's A and B)."""


def first_thin_checkpoint(curves: Sequence[Sequence[Mapping[str, Any]]], min_games: int) -> int | None:
    """The first checkpoint (0-based, as stored) that fewer than ``min_games`` games of some curve reach,
    from which :func:`leader_wins_figure` draws nothing; None when every checkpoint has enough, when the
    points do not say how many games reach them, or when the first checkpoint is already that thin (a run
    of fewer games is drawn whole)."""
    thin = [
        int(p["checkpoint"])
        for points in curves
        for p in points
        if isinstance(p.get("games"), (int, float)) and p["games"] < min_games
    ]
    # a run of fewer games than that is drawn whole (every checkpoint is thin there, and says so by its whiskers)
    return min(thin) if thin and min(thin) > 0 else None


def _pct(x: Any) -> float:
    return 100.0 * float(x) if x is not None else float("nan")


def _bars(points: Sequence[Mapping[str, Any]], key: str = "rate", scale: float = 100.0) -> tuple[list, list, list]:
    """(values, below, above) of points with ``key``, ``ci_low``, ``ci_high`` (None -> no whisker)."""
    vals = [scale * float(p[key]) for p in points]
    below = [
        max(0.0, v - scale * float(p["ci_low"])) if p.get("ci_low") is not None else 0.0 for v, p in zip(vals, points)
    ]
    above = [
        max(0.0, scale * float(p["ci_high"]) - v) if p.get("ci_high") is not None else 0.0 for v, p in zip(vals, points)
    ]
    return vals, below, above


def leader_wins_figure(
    curves: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
    *,
    fair_share: float | None = None,
    difference: Sequence[Mapping[str, Any]] | None = None,
    title: str = "Games won by the seat leading at each checkpoint",
    checkpoint: str = "round",
    drawn_before: int | None = None,
    colours: Sequence[str] | None = None,
) -> Figure:
    """The leader-wins curve: for each checkpoint, the share of games won by the seat leading there
    (percent), a marker with its 95% Wilson interval as an error bar, one series per curve (A and B
    side by side in ``compare``), and a dashed fair share (1/n: a leader no likelier to win than
    anyone). With ``difference`` (:func:`balancer.stats.flow.paired_flow`'s ``leader_wins`` rows:
    ``checkpoint, difference, ci_low, ci_high``) a second panel below draws B - A per checkpoint in
    percentage points with its paired interval, and a line at 0.

    Args:
        curves: (label, points) with points ``{checkpoint, rate, ci_low, ci_high}`` (fractions).
        fair_share: the fraction drawn dashed, or None.
        difference: the paired rows, or None for one panel.
        title: the figure's title.
        checkpoint: what ends a checkpoint in this game (``GameSpec.checkpoint``: "round", "turn of the
            table"), for the axis; checkpoints are numbered from 1 there (index 0 of the data is "1").
        drawn_before: draw only the checkpoints before this one (0-based; :func:`first_thin_checkpoint`,
            which the caption then names), or None for every checkpoint.
        colours: one colour per curve (compare's A grey and B blue, as in its seat win rates), or None
            for the palette's.

    Raises:
        ValueError: no curve, or a curve without a point (an empty panel).
    """
    if drawn_before is not None:
        curves = [(label, [p for p in points if int(p["checkpoint"]) < drawn_before]) for label, points in curves]
        difference = [r for r in difference or [] if int(r["checkpoint"]) < drawn_before] or None
    if not curves or any(not points for _, points in curves):
        raise ValueError("the leader-wins figure needs at least one curve, each with a point")
    two = bool(difference)
    with figs.style():
        fig = figs.new_figure((figs.PAGE_WIDTH, 5.2 if two else 3.4))
        axes = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2)) if two else [fig.add_subplot()]
        ax = axes[0]
        xs_all = sorted({int(p["checkpoint"]) for _, points in curves for p in points})
        offsets = figs.dodge_offsets(len(curves), xs_all, spread=0.3)
        palette = list(colours) if colours else list(figs.PALETTE)
        for j, ((label, points), dx) in enumerate(zip(curves, offsets)):
            pts = sorted(points, key=lambda p: p["checkpoint"])
            vals, below, above = _bars(pts)
            colour = palette[j % len(palette)]
            ax.errorbar(
                [int(p["checkpoint"]) + dx for p in pts],
                vals,
                yerr=[below, above],
                fmt="o",
                markersize=4,
                color=colour,
                ecolor=colour,
                elinewidth=1.2,
                capsize=3,
                label=figs.text_label(label),
                zorder=3,
            )
        if fair_share is not None:
            ax.axhline(
                100.0 * fair_share,
                color=figs.FAIR_COLOUR,
                linestyle="--",
                linewidth=1.0,
                label=f"fair share ({100.0 * fair_share:.0f}%)",
                zorder=2,
            )
        ax.set_ylim(0, 102)
        ax.set_ylabel("leader won (%)")
        ax.set_title(figs.wrap(figs.text_label(title), figs.PAGE_WIDTH), loc="left")
        ax.legend(loc="lower right", ncols=min(3, len(curves) + (fair_share is not None)))
        if two:
            dx_ax = axes[1]
            rows = sorted(difference or [], key=lambda r: r["checkpoint"])
            usable = [r for r in rows if r.get("difference") is not None]
            vals, below, above = _bars(usable, key="difference")
            dx_ax.errorbar(
                [int(r["checkpoint"]) for r in usable],
                vals,
                yerr=[below, above],
                fmt="o",
                markersize=4,
                color=DIFFERENCE_COLOUR,
                elinewidth=1.2,
                capsize=3,
                label="B - A, 95% paired interval",
                zorder=3,
            )
            dx_ax.axhline(0.0, color=ZERO_COLOUR, linewidth=0.8, zorder=2)
            lows = [v - b for v, b in zip(vals, below)]
            highs = [v + a for v, a in zip(vals, above)]
            span = min(figs.symmetric_span(lows, highs, floor=1.0), 100.0)  # a difference of shares: +/-100 at most
            dx_ax.set_ylim(-1.1 * span, 1.1 * span)
            dx_ax.set_ylabel("difference (percentage points)")  # as the page's tables and differences say it
            dx_ax.legend(loc="lower right")
        bottom = axes[-1]
        # cut before a thin checkpoint, the last one drawn is no game's end
        end = "; the last, the game's end" if drawn_before is None else ""
        bottom.set_xlabel(f"checkpoint: the end of each {checkpoint}{end}")
        step = max(1, -(-len(xs_all) // 20))  # at most about 20 labelled ticks
        bottom.set_xticks(xs_all, labels=[str(x + 1) if i % step == 0 else "" for i, x in enumerate(xs_all)])
        # room beyond the first and last checkpoints: 0.6 of a checkpoint, or 2% of a long axis (Urgency's
        # 145 rounds put the first marker on the y axis and the last on the frame)
        pad = max(0.6, 0.02 * (max(xs_all) - min(xs_all)))
        bottom.set_xlim(min(xs_all) - pad, max(xs_all) + pad)
    return fig


def distribution_figure(
    panels: Sequence[tuple[str, str, Sequence[tuple[str, Mapping[str, Any]]]]],
    *,
    title: str | None = None,
) -> Figure:
    """Histograms side by side (margin, decided-at, length, lead changes), one panel per measure:
    the counts of games per bin (:class:`balancer.stats.flow.Distribution`'s ``edges`` and
    ``counts``) as a bar per bin, one series per run (A and B as outlines in ``compare``), and each
    run's mean as a marker above the bars with its 95% t interval as a horizontal error bar.

    Args:
        panels: (panel title, x label, [(series label, distribution dict), ...]); a distribution
            with no game is left out of its panel, a panel with none left out of the figure.
        title: the figure's title, or None.

    Raises:
        ValueError: when no panel has a distribution to draw.
    """
    kept = [(t, x, [(lab, d) for lab, d in series if d and d.get("n") and d.get("counts")]) for t, x, series in panels]
    kept = [p for p in kept if p[2]]
    if not kept:
        raise ValueError("no distribution to draw")
    with figs.style():
        fig = figs.new_figure((figs.PAGE_WIDTH, 2.8 if title is None else 3.1))
        axes = fig.subplots(1, len(kept), squeeze=False)[0]
        for ax, (ptitle, xlabel, series) in zip(axes, kept):
            top = 0
            for j, (label, d) in enumerate(series):
                edges = [float(e) for e in d["edges"]]
                counts = [int(c) for c in d["counts"]]
                colour = figs.PALETTE[j % len(figs.PALETTE)]
                widths = [b - a for a, b in zip(edges, edges[1:])]
                overlay = len(series) > 1
                ax.bar(
                    edges[:-1],
                    counts,
                    width=widths,
                    align="edge",
                    color="none" if overlay else colour,
                    edgecolor=colour,
                    linewidth=1.2 if overlay else 0.4,
                    label=figs.text_label(label),
                    zorder=2,
                )
                top = max(top, max(counts, default=0))
            for j, (_label, d) in enumerate(series):
                if d.get("mean") is None:
                    continue
                y = top * (1.08 + 0.08 * j)
                lo, hi = d.get("ci_low"), d.get("ci_high")
                err = [[d["mean"] - lo], [hi - d["mean"]]] if lo is not None and hi is not None else None
                ax.errorbar(
                    [d["mean"]],
                    [y],
                    xerr=err,
                    fmt="v",
                    markersize=5,
                    color=figs.PALETTE[j % len(figs.PALETTE)],
                    capsize=3,
                    zorder=3,
                )
            ax.set_ylim(0, max(1.0, top * (1.2 + 0.08 * len(series))))
            ax.set_title(figs.wrap(figs.text_label(ptitle), figs.PAGE_WIDTH / len(kept)), loc="left")
            ax.set_xlabel(figs.text_label(xlabel))
            if all(float(e) + 0.5 == round(float(e) + 0.5) for _, d in series for e in d["edges"]):
                # bins centred on whole numbers; min_n_ticks=1: one whole number (every game 12 turns)
                # is ticked once, not as a run of fractional ticks that run into each other
                ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
            ax.set_ylabel("games")
            ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))  # 10,000 games, as the page writes it
            if len(series) > 1:
                ax.legend(loc="upper left")
        if title:
            fig.suptitle(figs.text_label(title), x=0.0, ha="left")
    return fig


def seat_scores_figure(
    seat_scores: Sequence[Mapping[str, Any]] | Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
    *,
    title: str = "Final score by seat",
) -> Figure:
    """Each seat's final scores as a box: the box from the 25th to the 75th percentile, the median a
    line across it, whiskers out to the 5th and 95th percentiles, the mean a diamond (quantiles of
    :class:`balancer.stats.flow.Distribution`; no game is drawn alone). ``seat_scores``: the
    ``seat_scores`` list of :meth:`~balancer.stats.flow.FlowMeasures.to_dict` (``{seat, scores}``),
    or (label, that list) pairs for runs side by side.

    Raises:
        ValueError: when no seat has a game.
    """
    given: list[Any] = list(seat_scores)
    pairs: list[tuple[str, Sequence[Mapping[str, Any]]]] = (
        given if given and isinstance(given[0], tuple) else [("", given)]
    )
    runs = [(label, [s for s in rows if s["scores"].get("n")]) for label, rows in pairs]
    runs = [(label, rows) for label, rows in runs if rows]
    if not runs:
        raise ValueError("no seat has a score to draw")
    seats = sorted({int(s["seat"]) for _, rows in runs for s in rows})
    with figs.style():
        fig = figs.new_figure()
        ax = fig.add_subplot()
        offsets = figs.dodge_offsets(len(runs), list(range(len(seats))), spread=0.45)
        width = 0.5 / len(runs)
        for j, ((label, rows), dx) in enumerate(zip(runs, offsets)):
            colour = figs.PALETTE[j % len(figs.PALETTE)]
            stats = []
            positions = []
            for s in rows:
                q = s["scores"]["quantiles"]
                stats.append(
                    {
                        "med": q["median"],
                        "q1": q["q25"],
                        "q3": q["q75"],
                        "whislo": q["q05"],
                        "whishi": q["q95"],
                        "mean": s["scores"]["mean"],
                        "fliers": [],
                        "label": "",
                    }
                )
                positions.append(seats.index(int(s["seat"])) + dx)
            ax.bxp(
                stats,
                positions=positions,
                widths=width,
                showmeans=True,
                patch_artist=True,
                boxprops={"facecolor": colour, "alpha": 0.35, "edgecolor": colour},
                medianprops={"color": colour, "linewidth": 1.6},
                whiskerprops={"color": colour},
                capprops={"color": colour},
                meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": colour, "markersize": 4},
                manage_ticks=False,
            )
            if label:
                ax.plot([], [], color=colour, linewidth=6, alpha=0.5, label=figs.text_label(label))
        figs.set_category_ticks(ax, [f"seat {s}" for s in seats])
        low, high = ax.get_ylim()  # room above and below: a whisker or a box edge never on the frame
        pad = 0.06 * (high - low) if high > low else 0.5
        ax.set_ylim(low - pad, high + pad)
        ax.set_xlabel("seat")
        ax.set_ylabel("final score (points)")
        ax.set_title(figs.wrap(figs.text_label(title), figs.PAGE_WIDTH), loc="left")
        if any(label for label, _ in runs):
            ax.legend(loc="upper right", ncols=len(runs))
    return fig
