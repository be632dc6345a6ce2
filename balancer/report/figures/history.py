"""The history page's figure (:mod:`balancer.report.history`): every tracked number across commits, as
small multiples on one shared axis of commits."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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


PANEL_HEIGHT = 1.5
"""Inches a row of panels takes (plot and title)."""
FRAME_HEIGHT = 1.25
"""Inches the figure adds to its rows: the legend above, the commit labels and the x label below."""
WARN_COLOUR = "#B35900"
"""A drift flag: the panel's title and the ring round the flagged commit (the page's warning colour)."""


@dataclass(frozen=True)
class Panel:
    """One tracked number of the history figure: its title (``run/variant: number``), its points (rows
    of :func:`balancer.stats.drift.points`, any order) and its drift flag (``"drift"``: beyond the
    tolerance though every check passed) at the event ``flag_event`` (the drift's latest point)."""

    title: str
    rows: Sequence[Mapping[str, Any]]
    flag: str = ""
    flag_event: int | None = None


def grid(panels: int) -> tuple[int, int]:
    """(rows, columns) of the small multiples: one column for one number, two up to 18 numbers, else
    three (each panel at least about 1.9 inches wide on a printed page)."""
    cols = 1 if panels <= 1 else (2 if panels <= 18 else 3)
    return math.ceil(max(1, panels) / cols), cols


def figure_height(panels: int) -> float:
    """Inches of the figure of ``panels`` numbers: a row of :data:`PANEL_HEIGHT` per :func:`grid` row plus
    :data:`FRAME_HEIGHT` (16 numbers: 8 rows, 13.25 in, about 1,270 px on a screen at 96 px an inch)."""
    return grid(panels)[0] * PANEL_HEIGHT + FRAME_HEIGHT


def bar_width(axis_inches: float, events: int) -> float:
    """Points of line width of an interval's bar: 3, or less where the commits stand closer, so that
    neighbouring bars keep a gap of at least 60% of their spacing (50 commits on a 2.5-inch axis:
    2.5 * 72 / 50 = 3.6 points apart, bars 1.44 points wide) and never read as a band."""
    return max(0.6, min(3.0, 0.4 * axis_inches * 72 / max(1, events)))


def _draw(ax: Any, p: Panel, at: Mapping[int, int], width: float) -> None:
    rows = sorted(p.rows, key=lambda r: r["event"])
    kind = rows[0]["kind"]
    s = kind_scale(kind)

    def scaled(key: str) -> list[float]:
        return [s * r[key] if r.get(key) is not None else math.nan for r in rows]

    xs = [at[r["event"]] for r in rows]
    est, low, high, base = scaled("estimate"), scaled("ci_low"), scaled("ci_high"), scaled("baseline_value")
    # the interval: a bar at each commit, broken between them (nothing is measured between two commits)
    bx = [v for x in xs for v in (x, x, math.nan)]
    by = [v for lo, hi in zip(low, high, strict=True) for v in (lo, hi, math.nan)]
    bar = bar_width(width, len(at))
    ax.plot(bx, by, color=figs.BAR_COLOUR, alpha=0.45, linewidth=bar, solid_capstyle="butt", label="95% interval")
    ax.plot(xs, est, color=figs.BAR_COLOUR, marker="o", markersize=3, linestyle="none", label="estimate")
    if not all(math.isnan(b) for b in base):
        if len(xs) == 1:  # a step line of one point has no width: a tick at the point
            ax.plot([xs[0] - 0.3, xs[0] + 0.3], [base[0], base[0]], color=BASELINE_COLOUR, linestyle="--",
                    linewidth=0.9, label="baseline")  # fmt: skip
        else:  # the baseline holds from one save to the next
            ax.step(xs, base, where="mid", color=BASELINE_COLOUR, linestyle="--", linewidth=0.9, label="baseline")
    saved = [i for i, r in enumerate(rows) if r.get("event_kind") == "baseline"]
    if saved:
        ax.plot([xs[i] for i in saved], [est[i] for i in saved], "D", color=BASELINE_COLOUR, markersize=4,
                linestyle="none", label="baseline saved")  # fmt: skip
    failed = [i for i, r in enumerate(rows) if r.get("failed")]
    if failed:
        ax.plot([xs[i] for i in failed], [est[i] for i in failed], "X", color=FAIL_COLOUR, markersize=7,
                linestyle="none", label="check failed")  # fmt: skip
    title = figs.text_label(p.title)
    if p.flag == "drift":
        flagged = [i for i, r in enumerate(rows) if r["event"] == p.flag_event]
        if flagged:
            ax.plot([xs[i] for i in flagged], [est[i] for i in flagged], "o", markersize=11, markerfacecolor="none",
                    markeredgecolor=WARN_COLOUR, markeredgewidth=1.6, linestyle="none", clip_on=False,
                    label="drift beyond tolerance, every check passed")  # fmt: skip
        title += " (drift)"
    # a number's name is one long word (forced_discards_per_player): it may break after an underscore, and
    # the title keeps to its panel's width, clear of the next panel's y label (a new user saw them overlap)
    ax.set_title(
        figs.wrap(title.replace("_", "_ "), width, figs.FONT_SIZE).replace("_ ", "_"),
        loc="left",
        fontsize=figs.FONT_SIZE,
        color=WARN_COLOUR if p.flag == "drift" else "#1d1d1f",
    )
    ax.set_ylabel(figs.text_label(y_label(kind, str(rows[0]["number"]))), fontsize=figs.SMALL_SIZE)
    ax.tick_params(axis="y", labelsize=figs.SMALL_SIZE)


def history_figure(panels: Sequence[Panel]) -> Figure:
    """The history page's one figure: small multiples, a panel per tracked number (:func:`grid`: two
    columns, :func:`figure_height` tall), on one shared x axis of events in the order recorded (labelled
    by commit and date on the bottom panels). Each panel draws the estimate at each point with its 95%
    interval as a bar at that point (no band: nothing is measured between commits), the baseline each
    check compared against as a dashed step line, baseline events as diamonds, failed checks as red
    crosses, and a number flagged for drift with its title in orange and its flagged commit ringed. One
    legend above the panels lists every mark drawn."""
    events: dict[int, Mapping[str, Any]] = {}
    for p in panels:
        for r in p.rows:
            events.setdefault(r["event"], r)
    order = sorted(events)
    at = {e: i for i, e in enumerate(order)}
    nrows, ncols = grid(len(panels))
    with figs.style():
        fig = figs.new_figure((figs.PAGE_WIDTH, figure_height(len(panels))))
        axes = fig.subplots(nrows, ncols, sharex=True, squeeze=False).ravel()
        width = (figs.PAGE_WIDTH - 0.2) / ncols - 0.7  # a panel's axis: minus its y label and ticks
        for i, ax in enumerate(axes):
            if i >= len(panels):
                fig.delaxes(ax)
                continue
            _draw(ax, panels[i], at, width)
            low, high = ax.get_ylim()  # room above and below: an interval's bar never runs into the frame
            pad = 0.06 * (high - low) if high > low else 0.5
            ax.set_ylim(low - pad, high + pad)
            if i + ncols >= len(panels):  # no panel below: this one carries the commit labels
                ax.tick_params(axis="x", labelbottom=True)
        labels = thinned_labels([figs.text_label(point_label(events[e])) for e in order], width)
        axes[0].set_xticks(range(len(order)), labels)  # shared by every panel
        axes[0].set_xlim(-0.5, len(order) - 0.5)
        for ax in axes[: len(panels)]:
            ax.tick_params(axis="x", labelsize=figs.SMALL_SIZE)
        fig.supxlabel("commit (short sha) and date (month-day), in the order recorded", fontsize=figs.FONT_SIZE)
        seen: dict[str, Any] = {}
        for ax in axes[: len(panels)]:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(label, handle)
        fig.legend(list(seen.values()), list(seen.keys()), loc="outside upper center", ncols=min(3, len(seen)))
    return fig
