"""The pair page's heatmaps (:mod:`balancer.report.pairs`): one number over the single names of the pairs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from balancer.report import figures as figs


def pair_heatmap(names: Sequence[str], matrix: np.ndarray, title: str, cbar_label: str, fmt: str = "{:.0f}") -> Figure:
    """A symmetric heatmap of ``matrix`` (names x names, NaN shown grey) with each value written in
    its cell. Raises ValueError when the matrix is not square with one row per name."""
    if matrix.shape != (len(names), len(names)):
        raise ValueError(f"matrix of shape {matrix.shape} for {len(names)} names")
    with figs.style({"axes.grid": False}):
        # the page's width, the colour bar below: the cells get all the width the names leave
        size = min(figs.PAGE_WIDTH, max(4.0, 0.3 * len(names) + 2.0))
        fig = figs.new_figure((size, size + 0.6))
        ax = fig.add_subplot()
        ax.grid(False)
        masked = np.ma.masked_invalid(matrix)
        im = ax.imshow(masked, cmap=heatmap_cmap())
        labels = [figs.text_label(n) for n in names]
        ax.set_xticks(
            range(len(names)),
            labels,
            rotation=90,
            ha="right",
            va="center",
            rotation_mode="anchor",
            fontsize=figs.SMALL_SIZE,
        )
        ax.set_yticks(range(len(names)), labels, fontsize=figs.SMALL_SIZE)
        finite = matrix[np.isfinite(matrix)]
        mid = (finite.min() + finite.max()) / 2 if finite.size else 0.0
        for i in range(len(names)):
            for j in range(len(names)):
                v = matrix[i, j]
                if math.isfinite(v):
                    ax.text(
                        j,
                        i,
                        fmt.format(v),
                        ha="center",
                        va="center",
                        fontsize=figs.SMALL_SIZE,
                        color="white" if v < mid else "black",  # viridis is dark at its low end
                    )
        ax.set_xlabel("one of the pair")
        ax.set_ylabel("the other of the pair")
        ax.set_title(figs.wrap(figs.text_label(title), size), loc="left")
        fig.colorbar(im, ax=ax, location="bottom", shrink=0.6, aspect=30, label=cbar_label)
    return fig


def heatmap_cmap():
    """The heatmaps' colour map (viridis, grey for pairs that never occurred)."""
    import matplotlib

    return matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
