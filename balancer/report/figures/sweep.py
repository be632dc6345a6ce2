"""The sweep and tune pages' figures (:mod:`balancer.report.sweep`, :mod:`balancer.report.tune`): numbers
against a swept value with 95% whiskers, and a heatmap per number over two swept paths."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.colors import Normalize

from balancer.paths import value_text
from balancer.report import figures as figs


def numeric(values: Sequence[Any]) -> bool:
    """True when every value is an int or float (not a bool): the x axis is then to scale."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


Mark = tuple[Any, str, str]
"""An x value marked with a vertical line: (value, legend label, line style), e.g. the base variant's
value dotted."""


def marked_x(xs: Sequence[Any], value: Any) -> float | None:
    """Where ``value`` sits on the x axis of :func:`line_chart` over ``xs``: itself when the axis is to
    scale, its index among categories, None when a category axis does not hold it."""
    if numeric(xs):
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return float(list(xs).index(value)) if value in list(xs) else None


def x_range(xs: Sequence[Any], marks: Sequence[Any] = ()) -> tuple[float, float]:
    """The x limits that hold every value of ``xs`` and every marked value (:func:`marked_x`), with a
    margin of 5% of the range or 0.3 of the smallest gap, whichever is larger (room for series dodged by
    :func:`balancer.report.figures.dodge_offsets`; half a category on a category axis): the same for
    every panel drawn over ``xs``."""
    pos = [float(x) for x in xs] if numeric(xs) else [float(i) for i in range(len(xs))]
    pos += [m for m in (marked_x(xs, v) for v in marks) if m is not None]
    lo, hi = min(pos), max(pos)
    if not numeric(xs) or hi == lo:
        return lo - 0.5, hi + 0.5
    points = sorted(set(pos))
    gap = min(b - a for a, b in zip(points, points[1:]))
    pad = max(0.05 * (hi - lo), 0.3 * gap)  # room for the dodged series (0.2 of a gap either side)
    return lo - pad, hi + pad


def line_chart(
    xs: Sequence[Any],
    series: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[float]]],
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    scale: float = 1.0,
    fair: float | None = None,
    band: tuple[float, float] | None = None,
    marks: Sequence[Mark] = (),
    xlim: tuple[float, float] | None = None,
) -> str:
    """Each series (label, means, lows, highs) against ``xs`` with 95% whiskers, as inline SVG.

    ``xs`` to scale when numeric, else evenly spaced categories; several series are dodged
    (:func:`balancer.report.figures.dodge_offsets`) so that their whiskers never overlap; ``scale``:
    100 to show fractions in percent; ``fair``: a dashed line (the fair share); ``band``: a shaded
    target range; ``marks``: x values marked with a vertical line and a legend entry (the base
    variant's value, the optimum); ``xlim``: the x range (:func:`x_range`, to give panels one range).
    Every mark has a legend entry."""
    with figs.style():
        fig = figs.new_figure((figs.PAGE_WIDTH, 3.4))
        ax = fig.add_subplot()
        to_scale = numeric(xs)
        pos = np.asarray(xs, dtype=float) if to_scale else np.arange(len(xs), dtype=float)
        offsets = figs.dodge_offsets(len(series), list(pos))
        if fair is not None:
            ax.axhline(
                fair * scale,
                color=figs.FAIR_COLOUR,
                linestyle="--",
                linewidth=0.9,
                label=f"fair share ({figs.text_label(f'{fair * 100:.1f}%')})",
                zorder=5,  # above the whiskers, as the base variant's line: a reference is never hidden under them
            )
        for value, label, linestyle in marks:
            mx = marked_x(xs, value)
            if mx is not None:
                ax.axvline(  # above the whiskers (zorder), so the base is never hidden under them
                    mx,
                    color=figs.BASE_COLOUR,
                    linestyle=linestyle,
                    linewidth=1.2,
                    label=figs.text_label(label),
                    zorder=5,
                )
        for j, (name, means, lows, highs) in enumerate(series):
            m = np.asarray(means, dtype=float) * scale
            lo = np.asarray(lows, dtype=float) * scale
            hi = np.asarray(highs, dtype=float) * scale
            err = np.vstack([np.clip(m - lo, 0, None), np.clip(hi - m, 0, None)])
            err = np.nan_to_num(err)
            ax.errorbar(
                pos + offsets[j],
                m,
                yerr=err,
                fmt="-o",
                markersize=3.5,
                linewidth=1.2,
                capsize=2.5,
                elinewidth=0.8,
                color=figs.PALETTE[j % len(figs.PALETTE)],
                label=figs.text_label(name) + (" (95% CI)" if len(series) == 1 else ""),
            )
        if band is not None:
            _draw_band(ax, band, scale)
        if not to_scale:
            ax.set_xticks(pos, [figs.text_label(value_text(v)) for v in xs])
        elif all(float(v).is_integer() for v in xs) and len(xs) <= 15:
            ax.set_xticks(pos, [value_text(v) for v in xs])
        ax.set_xlim(*(xlim or x_range(xs, [v for v, _, _ in marks])))
        _min_y_span(ax, series, scale)
        ax.set_xlabel(figs.text_label(xlabel))  # one line (path_label gives one)
        ax.set_ylabel(figs.text_label(ylabel))
        ax.set_title(figs.wrap(figs.text_label(title), figs.PAGE_WIDTH), loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), title="95% intervals" if len(series) > 1 else None)
        return figs.svg_string(fig)


def min_y_span(values: Sequence[float], scale: float) -> float:
    """The least y range a panel shows, so that a flat number is not zoomed into its noise: 5
    percentage points for a rate (``scale`` 100), else a fifth of the largest ``|value|`` (1 when all
    are 0)."""
    if scale == 100.0:
        return 5.0
    finite = [abs(v) for v in values if np.isfinite(v)]
    top = max(finite, default=0.0)
    return 0.2 * top if top > 0 else 1.0


def _min_y_span(
    ax: Any, series: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[float]]], scale: float
) -> None:
    """Widen the y axis around its middle to :func:`min_y_span` when it is narrower."""
    values = [float(v) * scale for _, m, lo, hi in series for v in (*m, *lo, *hi)]
    low, high = ax.get_ylim()
    span = min_y_span(values, scale)
    if high - low < span:
        mid = (low + high) / 2.0
        ax.set_ylim(mid - span / 2.0, mid + span / 2.0)


def _draw_band(ax: Any, band: tuple[float, float], scale: float) -> None:
    """Shade a target range over the data's y range (a one-sided bound shades up to the axis edge),
    keeping the range's finite edges in view."""
    y0, y1 = ax.get_ylim()
    edges = [b * scale for b in band if math.isfinite(b)]
    lo_view, hi_view = min([y0, *edges]), max([y1, *edges])
    pad = 0.04 * (hi_view - lo_view or 1.0)
    lo_view, hi_view = (
        lo_view - (pad if edges and min(edges) <= y0 else 0),
        hi_view + (pad if edges and max(edges) >= y1 else 0),
    )
    lo = band[0] * scale if math.isfinite(band[0]) else lo_view
    hi = band[1] * scale if math.isfinite(band[1]) else hi_view
    ax.axhspan(lo, hi, color="#009E73", alpha=0.12, lw=0, label="target")
    ax.set_ylim(lo_view, hi_view)


def heatmap_chart(
    rows: Sequence[Any],
    cols: Sequence[Any],
    means: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    *,
    row_label: str,
    col_label: str,
    title: str,
    scale: float = 1.0,
    centre: float | None = None,
    met: np.ndarray | None = None,
) -> str:
    """A heatmap of one number over two swept paths (``means[i][j]`` at ``rows[i]``, ``cols[j]``),
    each cell with its value and 95% interval; ``centre``: the value shown white (the fair share),
    else the colours span the values; ``met``: cells outlined where the targets are met. Inline SVG."""
    digits = 1
    with figs.style({"axes.grid": False}):
        fig = figs.new_figure((2.6 + 0.95 * len(cols), 1.8 + 0.55 * len(rows)))
        ax = fig.add_subplot()
        m = np.asarray(means, dtype=float) * scale
        finite = m[np.isfinite(m)]
        if centre is not None and finite.size:
            # every value at the centre: one unit either side, not 1e-9 (a colour bar reading 1e-9+2.5e1)
            reach = figs.symmetric_span(list(finite - centre * scale), [])
            norm: Any = Normalize(centre * scale - reach, centre * scale + reach)
            cmap = "RdBu_r"
        else:
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            norm = Normalize(lo - 1.0, hi + 1.0) if hi == lo else Normalize(lo, hi)
            cmap = "viridis"
        image = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, norm=norm, aspect="auto")
        for i in range(len(rows)):
            for j in range(len(cols)):
                if not math.isfinite(m[i, j]):
                    continue
                shade = float(norm(m[i, j]))
                dark = abs(shade - 0.5) > 0.33 if cmap == "RdBu_r" else shade < 0.5  # white text on dark cells
                ax.text(j, i - 0.13, f"{m[i, j]:.{digits}f}", ha="center", va="center",
                        color="white" if dark else "black")  # fmt: skip
                ax.text(
                    j,
                    i + 0.22,
                    f"{lows[i, j] * scale:.{digits}f}–{highs[i, j] * scale:.{digits}f}",
                    ha="center",
                    va="center",
                    fontsize=figs.SMALL_SIZE,
                    color="#eeeeee" if dark else "#333333",
                )
                if met is not None and met[i, j]:
                    ax.add_patch(
                        matplotlib.patches.Rectangle(
                            (j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.6
                        )
                    )
        ax.set_xticks(range(len(cols)), [figs.text_label(value_text(c)) for c in cols])
        ax.set_yticks(range(len(rows)), [figs.text_label(value_text(r)) for r in rows])
        ax.set_xlabel(figs.wrap(figs.text_label(col_label), fig.get_figwidth() - 1.6, figs.FONT_SIZE))
        ax.set_ylabel(figs.wrap(figs.text_label(row_label), fig.get_figheight() - 0.8, figs.FONT_SIZE))
        ax.set_title(figs.wrap(figs.text_label(title), fig.get_figwidth()), loc="left")
        fig.colorbar(image, ax=ax, shrink=0.85, label=figs.text_label(title.split(": ", 1)[-1]))
        if met is not None and met.any():
            outline = matplotlib.patches.Patch(fill=False, edgecolor="black", linewidth=1.6, label="meets every target")
            fig.legend(handles=[outline], loc="outside lower center")
        return figs.svg_string(fig)
