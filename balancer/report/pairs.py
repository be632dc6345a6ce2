"""`balancer pairs`: heatmaps of a run's outcomes by a pair label (e.g. Águeda's shop-card pair).

Three heatmaps over the single names of the pairs (:mod:`balancer.stats.pairs`): the first seat's
win rate, the spread between the best and worst seat's win rate, and the mean winning margin; then
the pairs with the largest seat spread and margin, with intervals. One self-contained HTML page
(inline SVG, jinja2 with autoescape: names from the data are escaped); SVG, PNG and PDF copies on request.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from markupsafe import Markup

from ..outdir import normalised, write_atomic
from ..sim.results import scan_results
from ..stats.pairs import pair_matrix, pair_table
from . import figures as figs
from . import pages
from .figures.pairs import pair_heatmap

TEMPLATE_NAME = "pairs.html.j2"

HEATMAPS = (  # column of the pair table, title, colour-bar label, scale, format
    ("seat1_rate", "First seat's win rate by pair", "win rate of seat 1 (%)", 100.0, "{:.0f}"),
    ("seat_spread", "Seat spread by pair (best minus worst seat's win rate)", "percentage points", 100.0, "{:.0f}"),
    ("margin_mean", "Mean winning margin by pair (winner minus runner-up)", "points", 1.0, "{:.1f}"),
)


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
