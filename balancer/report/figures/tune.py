"""The tune page's trajectory (:mod:`balancer.report.tune`): the objective of every trial, by rung."""

from __future__ import annotations

import math

import matplotlib
import matplotlib.ticker

from balancer.outcomes import TuneResult
from balancer.report import figures as figs

RUNG_COLOURS = ("#bbbbbb", "#56B4E9", "#0072B2", "#E69F00", "#D55E00", "#CC79A7", "#009E73", "#000000")


def trajectory_chart(result: TuneResult) -> str:
    """Objective of every trial at the rung it reached (95% interval whiskers), coloured by rung, and
    the best objective at the top rung so far as a step line. Inline SVG."""
    cands = {c.index: c for c in result.candidates}
    top = max((len(r) for r in result.plan.rungs.values()), default=1) - 1
    with figs.style():
        fig = figs.new_figure((figs.PAGE_WIDTH, 3.6))
        ax = fig.add_subplot()
        best_x, best_y, best = [], [], math.inf
        seen_rungs = set()
        for t in result.trials:
            if t["rung"] < 0:
                continue
            ev = cands[t["candidate"]].evaluations[t["rung"]]
            colour = RUNG_COLOURS[min(t["rung"], len(RUNG_COLOURS) - 1)]
            games = sum(ev.games.values())
            label = None if t["rung"] in seen_rungs else f"rung {t['rung']} ({games:,} games)"
            seen_rungs.add(t["rung"])
            err = (
                [[max(0.0, ev.objective - ev.low)], [max(0.0, ev.high - ev.objective)]]
                if math.isfinite(ev.low)
                else None
            )
            ax.errorbar(
                [t["trial"]],
                [ev.objective],
                yerr=err,
                fmt="o",
                markersize=3.2 + 0.8 * t["rung"],
                color=colour,
                ecolor=colour,
                elinewidth=0.7,
                capsize=0,
                label=label,
                zorder=2 + t["rung"],
            )
            if t["rung"] == top and ev.objective < best:
                best = ev.objective
            if math.isfinite(best):
                best_x.append(t["trial"])
                best_y.append(best)
        if best_x:
            ax.step(  # above every rung's whiskers (zorder 2 + rung), not hidden under them
                best_x,
                best_y,
                where="post",
                color="#222222",
                linewidth=1.0,
                label="best at the top rung so far",
                zorder=3 + top,
            )
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_xlabel("trial (in the order Optuna proposed them)")
        ax.set_ylabel("objective (smaller is better)")
        ax.set_title(figs.wrap("Search trajectory: each trial at the rung it reached, 95% intervals", 4.5), loc="left")
        handles, labels = ax.get_legend_handles_labels()
        order = sorted(range(len(labels)), key=lambda i: (not labels[i].startswith("rung"), labels[i]))
        ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return figs.svg_string(fig)
