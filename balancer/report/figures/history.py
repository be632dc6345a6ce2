"""The history page's panel (:mod:`balancer.report.history`): one tracked number across commits."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from balancer.report import figures as figs

FAIL_COLOUR = "#D55E00"
BASELINE_COLOUR = "#444444"


def kind_scale(kind: str) -> float:
    return 100.0 if kind == "win_rate" else 1.0


def short(sha: str | None) -> str:
    """A commit's short sha (7 hex digits), or ``–`` when the event was recorded outside git."""
    return sha[:7] if sha else "–"


def point_label(row: Mapping[str, Any]) -> str:
    """The x tick of a point: short sha (or the event number) over the commit's (else the record's) date."""
    when = row.get("commit_time") or row.get("recorded_at")
    day = when.strftime("%m-%d") if when is not None else ""
    head = short(row.get("commit_sha")) if row.get("commit_sha") else f"#{row['event']}"
    return f"{head}\n{day}"


LABEL_INCHES = 0.45
"""Width (inches) a commit tick label needs at the panels' 7-point tick font (7 characters of sha)."""


def thinned_labels(labels: Sequence[str], width: float) -> list[str]:
    """``labels`` with all but every k-th blanked (k the smallest step that fits ``width`` inches of
    axis at :data:`LABEL_INCHES` a label), counted back from the last point so the latest commit is
    always labelled. Every point keeps its tick; only the text is dropped."""
    fits = max(2, int(width // LABEL_INCHES))
    step = max(1, math.ceil(len(labels) / fits))
    last = len(labels) - 1
    return [label if (last - i) % step == 0 else "" for i, label in enumerate(labels)]


def y_label(kind: str, number: str) -> str:
    """The y axis of a panel: ``win rate (%)``, or a metric's name in words with its unit
    (``wasted tiles per player``: the metric is a mean per player per game)."""
    if kind == "win_rate":
        return "win rate (%)"
    words = number.replace("_", " ")
    return words if "per player" in words else f"{words} (per player)"


def series_figure(rows: Sequence[Mapping[str, Any]], title: str) -> Figure:
    """One panel: the estimate at each point (x: event order, labelled by commit and date) with its 95%
    interval as a bar at each point (no band: nothing is measured between commits), the baseline each check compared against as a step line, baseline events as
    diamonds and failed checks as red crosses."""
    kind = rows[0]["kind"]
    s = kind_scale(kind)
    xs = list(range(len(rows)))
    est = [s * (r["estimate"] if r["estimate"] is not None else math.nan) for r in rows]
    low = [s * (r["ci_low"] if r["ci_low"] is not None else math.nan) for r in rows]
    high = [s * (r["ci_high"] if r["ci_high"] is not None else math.nan) for r in rows]
    base = [s * (r["baseline_value"] if r["baseline_value"] is not None else math.nan) for r in rows]
    with figs.style():
        width = 5.8  # inches, within figs.PAGE_WIDTH: the page shows panels at their size, as printed
        fig = figs.new_figure((width, 2.9))
        ax = fig.add_subplot()
        # a band or a step line of one point has no width: a lone point gets a bar and a tick instead
        lone = len(xs) == 1
        if lone:
            ax.plot([0, 0], [low[0], high[0]], color=figs.BAR_COLOUR, alpha=0.35, linewidth=6, label="95% interval")
        else:  # a bar at each point, broken between them: nothing is measured between two commits
            bx = [v for x in xs for v in (x, x, math.nan)]
            by = [v for lo, hi in zip(low, high, strict=True) for v in (lo, hi, math.nan)]
            ax.plot(bx, by, color=figs.BAR_COLOUR, alpha=0.35, linewidth=4, solid_capstyle="butt", label="95% interval")
        ax.plot(xs, est, color=figs.BAR_COLOUR, marker="o", markersize=3.5, linewidth=1.2, label="estimate")
        if not all(math.isnan(b) for b in base):
            if lone:
                ax.plot([-0.3, 0.3], [base[0], base[0]], color=BASELINE_COLOUR, linestyle="--", linewidth=1.0,
                        label="baseline")  # fmt: skip
            else:
                ax.step(xs, base, where="mid", color=BASELINE_COLOUR, linestyle="--", linewidth=1.0, label="baseline")
        saved = [i for i, r in enumerate(rows) if r.get("event_kind") == "baseline"]
        if saved:
            ax.plot([xs[i] for i in saved], [est[i] for i in saved], "D", color=BASELINE_COLOUR, markersize=4.5,
                    linestyle="none", label="baseline saved")  # fmt: skip
        failed = [i for i, r in enumerate(rows) if r.get("failed")]
        if failed:
            ax.plot([xs[i] for i in failed], [est[i] for i in failed], "X", color=FAIL_COLOUR, markersize=8,
                    linestyle="none", label="check failed")  # fmt: skip
        labels = thinned_labels([figs.text_label(point_label(r)) for r in rows], width - 1.6)  # minus the legend
        ax.set_xticks(xs, labels)
        ax.tick_params(axis="x", labelsize=figs.SMALL_SIZE)
        ax.set_xlim(-0.5, len(rows) - 0.5)
        ax.set_xlabel("commit (short sha) and date (month-day), in the order recorded")
        ax.set_ylabel(figs.text_label(y_label(kind, str(rows[0]["number"]))))
        ax.set_title(figs.wrap(figs.text_label(title), width), loc="left")
        fig.legend(loc="outside right upper")
    return fig
