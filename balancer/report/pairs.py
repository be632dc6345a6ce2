"""`balancer pairs`: heatmaps of a run's outcomes by a pair label (e.g. Águeda's shop-card pair).

Three heatmaps over the single names of the pairs (:mod:`balancer.stats.pairs`): the first seat's
win rate, the spread between the best and worst seat's win rate, and the mean winning margin; then
the pairs with the largest seat spread and margin, with intervals. One self-contained HTML page
(inline SVG, jinja2 with autoescape: names from the data are escaped); SVG, PNG and PDF copies on request.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
from markupsafe import Markup
from matplotlib.figure import Figure

from ..outdir import normalised, write_atomic
from ..results import scan_results
from ..stats.pairs import pair_matrix, pair_table
from . import figures as figs
from . import pages

TEMPLATE_NAME = "pairs.html.j2"

HEATMAPS = (  # column of the pair table, title, colour-bar label, scale, format
    ("seat1_rate", "First seat's win rate by pair", "win rate of seat 1 (%)", 100.0, "{:.0f}"),
    ("seat_spread", "Seat spread by pair (best minus worst seat's win rate)", "percentage points", 100.0, "{:.0f}"),
    ("margin_mean", "Mean winning margin by pair (winner minus runner-up)", "points", 1.0, "{:.1f}"),
)


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


def render_pairs(results_dir: Path, label: str, out_html: Path, figures_dir: Path | None = None, top: int = 12) -> Path:
    """Write the pair page of the run in ``results_dir`` grouped by ``label`` to ``out_html`` (and
    the heatmaps as SVG, PNG and PDF files into ``figures_dir``). Raises FileNotFoundError (no results), KeyError (no such
    label), ValueError (games of one seat)."""
    df = scan_results(results_dir).collect()
    table = pair_table(df, label)
    players = int(df.select(pl.max("seat")).item())
    charts = []
    for column, title, cbar, scale, fmt in HEATMAPS:
        names, matrix = pair_matrix(table, column)
        fig = pair_heatmap(names, matrix * scale, title, cbar, fmt)
        charts.append(Markup(figs.svg_string(fig)))
        if figures_dir is not None:  # SVG, PNG and PDF, each refusing a link planted under its name
            figs.write_figure_files(fig, Path(figures_dir), f"pairs-{label}-{column}")
    ranked = table.sort(["seat_spread", "margin_mean"], descending=True).head(top)
    html = (
        pages.environment()
        .get_template(TEMPLATE_NAME)
        .render(
            title=f"Outcomes by {label} pair",
            games=f"{table['games'].sum():,}",
            players=players,
            source=str(results_dir),
            label=label,
            pairs=table.height,
            min_games=int(table.select(pl.min("games")).item()),
            max_games=int(table.select(pl.max("games")).item()),
            fair=f"{100 / players:.1f}",
            charts=charts,
            top=ranked.iter_rows(named=True),
        )
    )
    out_html = normalised(out_html)  # out/a/../X creates no out/a
    out_html.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out_html, html)  # a link planted as the page is refused, not followed
    return out_html
