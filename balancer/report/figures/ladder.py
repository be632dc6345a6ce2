"""The ladder page's figures (:mod:`balancer.report.ladder`): seat win rates by rung, the match-up
heatmap and the ratings of one ladder (a variant at one player count)."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from balancer.outcomes import LadderTable
from balancer.report import figures as figs


def seat_chart(t: LadderTable, title: str = "") -> Figure:
    """Seat win rate (y, %) at each rung (x, weakest first): each seat's rate with its 95% interval as
    a whisker at every rung, the seats side by side (:func:`balancer.report.figures.dodge_offsets`),
    nothing drawn between rungs (a rung is an agent, not a point on a scale: no band, no line); the
    fair share dashed, published seat rates (if any) as diamonds at the right."""
    rungs = t.rungs
    x = np.arange(len(rungs), dtype=float)
    offsets = figs.dodge_offsets(t.players, list(x), spread=0.5)
    fig = figs.new_figure((figs.PAGE_WIDTH, 3.6))
    with figs.style():
        ax = fig.add_subplot()
        for s in range(t.players):
            colour = figs.PALETTE[s % len(figs.PALETTE)]
            vals = np.array([rows[s]["rate"] for rows in t.seat_rates], dtype=float) * 100
            lo = np.array([rows[s]["ci_low"] for rows in t.seat_rates], dtype=float) * 100
            hi = np.array([rows[s]["ci_high"] for rows in t.seat_rates], dtype=float) * 100
            err = np.nan_to_num(np.vstack([np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)]))
            ax.errorbar(x + offsets[s], vals, yerr=err, fmt="o", markersize=4, capsize=2.5, elinewidth=1.0,
                        color=colour, label=f"seat {s + 1}")  # fmt: skip
            if t.published is not None:
                # seats with the same published rate (26 / 25 / 23 / 26) side by side, not on top of each other
                same = [o for o in range(t.players) if round(t.published[o], 6) == round(t.published[s], 6)]
                offset = 0.14 * (same.index(s) - (len(same) - 1) / 2)
                ax.scatter(
                    [len(rungs) + offset],
                    [t.published[s] * 100],
                    marker="D",
                    s=26,
                    color=colour,
                    edgecolor="black",
                    linewidth=0.6,
                    zorder=5,
                    label="published" if s == 0 else None,
                )
        ax.axhline(
            t.fair * 100,
            color=figs.FAIR_COLOUR,
            linestyle="--",
            linewidth=0.9,
            label=f"fair share ({t.fair * 100:.1f}%)",
        )
        labels = [figs.text_label(r) for r in rungs] + (["published"] if t.published is not None else [])
        ax.set_xticks(range(len(labels)), labels)
        ax.set_xlim(-0.5, len(labels) - 0.5)
        ax.set_xlabel("rung (agents of rising strength)")
        ax.set_ylabel("seat win rate (%)")
        if title:
            ax.set_title(figs.wrap(figs.text_label(title), figs.PAGE_WIDTH), loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), title="whiskers: 95% interval")
    return fig


def _matrix(t: LadderTable, order: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = len(t.rungs)
    mats = [np.full((k, k), np.nan) for _ in range(3)]
    index = {r: i for i, r in enumerate(t.rungs)}
    for m in t.matchups:
        if m["order"] == order and m["rate"] is not None:
            i, j = index[m["row"]], index[m["col"]]
            mats[0][i, j], mats[1][i, j], mats[2][i, j] = m["rate"], m["ci_low"], m["ci_high"]
    return mats[0], mats[1], mats[2]


def matchup_panels(t: LadderTable) -> list[tuple[str, str]]:
    """(order, panel title) of the heatmap's panels."""
    if t.players == 2:
        return [("first", "row moves first"), ("second", "row moves second"), ("any", "both seat orders")]
    return [("any", f"one row agent against {t.players - 1} column agents (seats rotated)")]


def matchup_chart(t: LadderTable, title: str = "") -> Figure:
    """Heatmaps of the match-up matrix: the row agent's win rate (%) against the column agent, with
    its 95% interval below; white at the fair share, red above it, blue below. At 2 players the
    diagonal of the seat-order panels is the mirror table's seat 1 / seat 2 rate. Panels sit side by
    side as far as a printed page's width allows (:func:`balancer.report.figures.panel_grid`)."""
    panels = matchup_panels(t)
    k = len(t.rungs)
    fig = figs.new_figure(figs.heatmap_size(len(panels), k, extra_height=0.1))
    norm = TwoSlopeNorm(vmin=0.0, vcenter=t.fair * 100, vmax=100.0)
    with figs.style({"axes.grid": False}):
        drawn = [(name, *_matrix(t, order)) for order, name in panels]
        figs.heatmap_panels(fig, t.rungs, drawn, norm, xlabel="against (column)", ylabel="win rate of (row)", digits=1)
        if title:
            fig.suptitle(figs.wrap(figs.text_label(title), fig.get_figwidth()), x=0.01, ha="left")
    return fig


def ratings_chart(t: LadderTable, title: str = "") -> Figure:
    """Each rung's rating (Elo scale: 400 log10 of the strength, the bottom rung at 0) with its 95%
    bootstrap interval, weakest at the bottom."""
    rows = t.ratings.rows() if t.ratings is not None else []
    fig = figs.new_figure((figs.PAGE_WIDTH, 1.2 + 0.42 * max(2, len(rows))))
    with figs.style({"axes.grid.axis": "x"}):
        ax = fig.add_subplot()
        y = np.arange(len(rows))
        vals = np.array([r["elo"] for r in rows])
        lows = np.array([np.nan if r["elo_low"] is None else r["elo_low"] for r in rows], dtype=float)
        highs = np.array([np.nan if r["elo_high"] is None else r["elo_high"] for r in rows], dtype=float)
        # a missing end (the one-sided bound of a rung that never lost or never won) is drawn to the
        # edge of the plot with an arrow head; without replicates there is no interval to draw
        finite = np.concatenate([vals, lows[np.isfinite(lows)], highs[np.isfinite(highs)]])
        span = max(1.0, float(finite.max() - finite.min()))
        edge_lo, edge_hi = float(finite.min()) - 0.15 * span, float(finite.max()) + 0.15 * span
        at_least = np.array([r.get("one_sided") == "at least" for r in rows], dtype=bool)
        at_most = np.array([r.get("one_sided") == "at most" for r in rows], dtype=bool)
        lows = np.where(at_most, edge_lo, lows)
        highs = np.where(at_least, edge_hi, highs)
        drawn = np.isfinite(lows) & np.isfinite(highs)
        ax.hlines(y[drawn], lows[drawn], highs[drawn], color="#222222", linewidth=0.9, zorder=2,
                  label="95% bootstrap interval")  # fmt: skip
        ends = np.concatenate([np.where(at_most, np.nan, lows), np.where(at_least, np.nan, highs)])
        ax.plot(ends, np.concatenate([y, y]), "|", color="#222222", markersize=7, zorder=2)
        ax.plot(
            vals[~at_least & ~at_most], y[~at_least & ~at_most], "o", color=figs.BAR_COLOUR, zorder=3, label="rating"
        )
        if at_least.any():
            ax.plot(
                highs[at_least], y[at_least], ">", color="#222222", markersize=5, zorder=2, label="at least (one-sided)"
            )
        if at_most.any():
            ax.plot(
                lows[at_most], y[at_most], "<", color="#222222", markersize=5, zorder=2, label="at most (one-sided)"
            )
        # the arrow heads end the one-sided intervals at edge_lo/edge_hi: a margin past them keeps each
        # head whole inside the frame (centred on the frame, half of it was cut off)
        margin = 0.05 * (edge_hi - edge_lo)
        ax.set_xlim(edge_lo - margin, edge_hi + margin)
        ax.set_yticks(y, [figs.text_label(r["item"]) for r in rows])
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.axvline(0, color=figs.FAIR_COLOUR, linestyle=":", linewidth=0.8, label=f"{figs.text_label(t.rungs[0])} = 0")
        ax.set_xlabel(f"rating (Elo points, {figs.text_label(t.rungs[0])} = 0)")
        ax.set_ylabel("rung")
        if title:
            ax.set_title(figs.wrap(figs.text_label(title), figs.PAGE_WIDTH), loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig
