"""The study report: grouped bars (one bar per variant, 95% whiskers, published values, if any, as markers),
a "changes" table like the rulebook appendix, and the figures as SVG, PNG and PDF files for a rulebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
from markupsafe import Markup

from balancer.core.metrics import MetricSpec, MetricSpecs
from balancer.core.registry import metric_specs_of
from balancer.data import portable_path
from balancer.outcomes import StudyResult
from balancer.outdir import normalised, write_atomic
from balancer.report import figures as figs
from balancer.report import pages
from balancer.report.figures import write_figure_files
from balancer.report.pages import fmt_scaled
from balancer.report.render import is_rate_metric, metric_label
from balancer.sim.results import scan_results
from balancer.stats.labels import Order, matchup_matrix

VARIANT_COLOURS = ("#999999", "#0072B2", "#E69F00", "#009E73", "#CC79A7")
"""The first ("from") variant grey, the second ("to") blue, further ones in the report palette."""


@dataclass
class Series:
    """Our values for one variant: one per category (fractions for rates, units for metrics)."""

    variant: str
    values: list[float]
    lows: list[float]
    highs: list[float]
    published: list[float | None]


@dataclass
class FigureData:
    """Everything a figure and its rows of the changes table need."""

    index: int
    title: str
    run: str
    show: str
    categories: list[str]
    unit: str  # "%" for rates, the metric's unit otherwise
    scale: float  # 100 for rates shown in percent, 1 for metrics
    series: list[Series]
    fair: float | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    matrix: list[dict[str, Any]] = field(default_factory=list)  # matchups: one table row per (variant, row, col)

    @property
    def has_published(self) -> bool:
        """True if any value of the figure has a published counterpart (else no published column)."""
        return any(p is not None for s in self.series for p in s.published)


def _metric_name(show: str) -> str:
    return show.split(":", 1)[1]


def _specs(result: StudyResult, run: str) -> MetricSpecs | None:
    """The metric specs of ``run``'s cells (the first variant's run.json, else the study's game)."""
    for variant in result.study.variants:
        cell = result.cells.get((run, variant))
        if cell is not None:
            return metric_specs_of(cell.meta or {"game": result.study.game})
    return metric_specs_of({"game": result.study.game})


def _declared(result: StudyResult, run: str, name: str) -> MetricSpec | None:
    specs = _specs(result, run)
    return specs.metric(name) if specs is not None else None


def _metric_is_rate(result: StudyResult, run: str, name: str) -> bool:
    """True if metric ``name`` is a rate: as the game declares it (the cells' ``metric_specs``), else
    by the convention of :func:`balancer.report.render.is_rate_metric` in every variant's cell of
    ``run`` (named ``*_win``, or every per-player value 0 or 1)."""
    declared = _declared(result, run, name)
    if declared is not None:
        return declared.is_rate
    if is_rate_metric(name):
        return True
    column = f"metric_{name}"
    for variant in result.study.variants:
        lf = scan_results(result.cells[(run, variant)].out_dir)
        if column not in lf.collect_schema().names():
            return False
        values = lf.select(pl.col(column).unique()).collect()[column].to_list()
        if not is_rate_metric(name, values):
            return False
    return True


def unshown_runs(result: StudyResult) -> list[Any]:
    """A seat-win-rate figure (``title, run, show, published``) for each run of two or more players
    that none of the study's figures shows (a ladder's runs have their own page: none)."""
    if getattr(result.study, "ladder", None) is not None:
        return []
    shown = {fig.run for fig in result.study.figures}
    return [
        SimpleNamespace(
            title=f"{name}: win rate by seat (a run no figure of the study file shows)",
            run=name,
            show="seat_win_rate",
            published=None,
        )
        for name, run in result.study.runs.items()
        if name not in shown and run.players >= 2
    ]


def figure_data(result: StudyResult) -> list[FigureData]:
    """Our numbers and the published ones for every figure of the study, per variant; then, for each
    run of two or more players that no figure shows, its seat win rates (:func:`unshown_runs`), so that
    every run played is on the page, not only in its Methods table."""
    out = []
    labels = list(result.study.variants)
    for i, fig in enumerate([*result.study.figures, *unshown_runs(result)]):
        run = result.study.runs[fig.run]
        series = []
        if fig.show.startswith("matchups:"):
            out.append(
                FigureData(
                    i,
                    fig.title,
                    fig.run,
                    fig.show,
                    [],
                    "%",
                    100.0,
                    [],
                    matrix=matchup_rows(result, fig.run, fig.show.split(":", 1)[1]),
                )
            )
            continue
        if fig.show == "seat_win_rate":
            categories = [f"seat {s}" for s in range(1, run.players + 1)]
        elif fig.show == "agent_win_rate":
            categories = list(dict.fromkeys(run.table))
        else:
            categories = [metric_label(_metric_name(fig.show), _specs(result, fig.run))]
        for label in labels:
            summary = result.cells[(fig.run, label)].summary
            pub = (fig.published or {}).get(label)
            published: list[float | None]
            if fig.show == "seat_win_rate":
                rows = sorted(summary["seat_win_rate"], key=lambda r: r["seat"])
                vals = [(r["rate"], r["ci_low"], r["ci_high"]) for r in rows]
                published = [p / 100 for p in pub] if isinstance(pub, list) else [None] * len(rows)
            elif fig.show == "agent_win_rate":
                by_agent = {r["agent"]: r for r in summary["agent_win_rate"]}
                vals = [(by_agent[a]["rate"], by_agent[a]["ci_low"], by_agent[a]["ci_high"]) for a in categories]
                published = [pub[a] / 100 if isinstance(pub, dict) and a in pub else None for a in categories]
            else:
                m = summary["metrics"][_metric_name(fig.show) + "_per_player"]
                vals = [(m["mean"], m["ci_low"], m["ci_high"])]
                published = [float(pub) if isinstance(pub, (int, float)) else None]
            series.append(Series(label, [v[0] for v in vals], [v[1] for v in vals], [v[2] for v in vals], published))
        rate = fig.show in ("seat_win_rate", "agent_win_rate") or _metric_is_rate(
            result, fig.run, _metric_name(fig.show)
        )
        out.append(
            FigureData(
                i,
                fig.title,
                fig.run,
                fig.show,
                categories,
                "%" if rate else "",
                100.0 if rate else 1.0,
                series,
                fair=(
                    1.0 / run.players
                    if fig.show == "seat_win_rate"
                    or (fig.show == "agent_win_rate" and len(set(run.table)) == run.players)
                    else None
                ),
            )
        )
    return out


ORDERS: tuple[tuple[Order, str], ...] = (
    ("first", "row moves first"),
    ("second", "row moves second"),
    ("any", "both seat orders"),
)


def matchup_rows(result: StudyResult, run: str, label: str) -> list[dict[str, Any]]:
    """Rows ``{variant, order, row, col, games, rate, ci_low, ci_high}`` of the match-up matrix of
    ``label`` in every variant's cell of ``run`` (read from its results.parquet)."""
    rows = []
    for variant in result.study.variants:
        lf = scan_results(result.cells[(run, variant)].out_dir)
        for order, _ in ORDERS:
            for r in matchup_matrix(lf, label, order).iter_rows(named=True):
                rows.append({"variant": variant, "order": order} | r)
    return rows


def matchup_chart(data: FigureData) -> figs.Figure:
    """Heatmaps of a matchups figure: per variant, the row value moving first and moving second."""
    values = sorted({r["row"] for r in data.matrix} | {r["col"] for r in data.matrix})
    panels = []
    for variant in dict.fromkeys(r["variant"] for r in data.matrix):
        for order, name in ORDERS[:2]:
            rows = [r for r in data.matrix if r["variant"] == variant and r["order"] == order]
            panels.append((f"{variant}: {name}", *figs.matrix_panel(values, rows)))
    return figs.matchup_heatmap(values, panels, data.title)


def grouped_chart(data: FigureData) -> figs.Figure:
    """Bars per category, one per variant, with 95% whiskers; published values as black markers
    (:func:`balancer.report.figures.grouped_bars`)."""
    if data.show in ("seat_win_rate", "agent_win_rate"):
        ylabel = "win rate (%)"
    else:
        ylabel = data.categories[0] + (" (%)" if data.unit == "%" else "")
    return figs.grouped_bars(
        data.categories,
        [(s.variant, s.values, s.lows, s.highs) for s in data.series],
        ylabel=ylabel,
        xlabel={"seat_win_rate": "seat", "agent_win_rate": "agent"}.get(data.show, ""),
        title=data.title,
        scale=data.scale,
        fair=data.fair,
        colours=VARIANT_COLOURS,
        published=[s.published for s in data.series],
    )


def cell_rows(result: StudyResult, page_dir: Path | str = ".") -> list[dict[str, Any]]:
    """The table of a study's cells the report ends with, one dict per cell in play order: run,
    variant, config (its shipped name, or a path relative to ``page_dir``, the page's folder:
    :func:`balancer.data.portable_path`) and the first 12 hex digits of its sha256, games, agents,
    seconds played, whether the finished cell was reused, and its directory (relative to ``page_dir``)."""
    return [
        {
            "run": c.run,
            "variant": c.variant,
            "config": portable_path(c.config_path, page_dir),
            "sha": c.meta.get("config_sha256", "")[:12],
            "games": c.meta.get("games"),
            "agents": ", ".join(c.meta.get("agents", [])),
            "seconds": c.meta.get("elapsed_seconds"),
            "reused": c.reused,
            "dir": portable_path(c.out_dir, page_dir),
        }
        for c in result.cells.values()
    ]


FLOW_COLUMNS = (
    ("margin", "margin (points)", 1.0, 1, False),
    ("length", "length (turns)", 1.0, 1, False),
    ("lead_changes", "lead changes", 1.0, 2, True),
    ("comebacks", "comebacks (%)", 100.0, 1, True),
    ("decided_at", "decided at (% of the game)", 100.0, 1, True),
)
"""The study page's columns of how the game feels: (key, heading, scale, decimals, read from the
trajectory)."""


def flow_rows(result: StudyResult) -> list[dict[str, Any]]:
    """How the game feels in each cell (issue 49), one dict per cell with a ``flow`` in its
    summary.json, in play order: run, variant, games, and per :data:`FLOW_COLUMNS` key its value and
    95% interval as ``(value, low, high)`` (None where the cell has no such measure: one player a
    game, no trajectory recorded)."""
    rows = []
    for c in result.cells.values():
        flow = (c.summary or {}).get("flow")
        if not flow:
            continue
        trajectory = flow.get("trajectory") or {}
        row: dict[str, Any] = {"run": c.run, "variant": c.variant, "games": flow.get("games")}
        for key, _, _, _, from_trajectory in FLOW_COLUMNS:
            m = (trajectory if from_trajectory else flow).get(key)
            row[key] = None if not m else (m.get("rate", m.get("mean")), m.get("ci_low"), m.get("ci_high"))
        rows.append(row)
    return rows


def render_study(
    result: StudyResult, changes: dict[int, list[dict[str, Any]]], out_html: Path, figures_dir: Path | None = None
) -> Path:
    """Write the study's self-contained HTML report (and, with ``figures_dir``, each figure as SVG,
    PNG and PDF). ``changes``: figure index -> rows of the changes table (see :func:`balancer.study.changes`)."""
    from balancer.report.publish import slug

    data = figure_data(result)
    blocks = []
    stems: set[str] = set()
    for d in data:
        fig = matchup_chart(d) if d.matrix else grouped_chart(d)
        if figures_dir is not None:
            # named after what it shows (its title), not its place and run ('-2-mirror-2p'): issue 50
            stem = f"{slug(result.study.study)}-{slug(d.title)}"
            stem = stem if stem not in stems else f"{stem}-{d.run}"
            stems.add(stem)
            write_figure_files(fig, Path(figures_dir), stem, caption=f"{d.title}. {result.study.title}.")
        rows = changes.get(d.index, [])
        blocks.append({"data": d, "svg": Markup(figs.svg_string(fig)), "changes": rows})
    env = pages.environment(fmt=fmt_scaled)
    cells = cell_rows(result, Path(out_html).parent)
    first = next(iter(result.cells.values()))
    html = env.get_template("study.html.j2").render(
        study=result.study,
        study_path=portable_path(result.study_path, Path(out_html).parent),
        blocks=blocks,
        cells=cells,
        flow=flow_rows(result),
        flow_columns=FLOW_COLUMNS,
        wall_seconds=result.wall_seconds,
        simulated_seconds=result.simulated_seconds,
        warmup_seconds=result.warmup_seconds,  # compile/load apart from play, where run.json records it
        games=result.games,
        versions=first.meta.get("versions", {}),
        variants=list(result.study.variants),
    )
    out_html = normalised(out_html)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out_html, html)
    return out_html
