"""Heatmap panels side by side as far as a printed page's width allows: the match-up matrices of the
run and study pages and the ladder's (:mod:`balancer.report.figures.ladder`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib
import matplotlib.axes
from matplotlib.figure import Figure

from .style import FONT_SIZE, PAGE_WIDTH, SMALL_SIZE, new_figure, style, text_label, wrap


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
