"""The ladder report: per variant and player count, the seat win rates by rung (the headline figure,
with the seat x rung test in words), the mirror tables of every rung, the match-up heatmap, the
ratings and the skill depth; one self-contained HTML page (figures inline as SVG).

Renders what :mod:`balancer.ladder.analysis` computed; every name that reaches the page (variant,
agent, study) is escaped by jinja2's autoescape, and in the figures (:mod:`balancer.report.figures.ladder`)
by their SVG writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from balancer.core.metrics import humanize
from balancer.core.registry import metric_specs_of
from balancer.data import portable_path
from balancer.outcomes import LadderTable, StudyResult
from balancer.outdir import normalised, write_atomic
from balancer.report import figures as figs
from balancer.report import pages
from balancer.report.figures.ladder import matchup_chart, ratings_chart, seat_chart
from balancer.report.pages import fmt_scaled
from balancer.report.render import display_name, fmt_p, is_rate_metric, metric_label
from balancer.report.study import cell_rows, write_figure_files
from balancer.stats.aggregate import without_bonus_rows

TEMPLATE = "ladder.html.j2"


# --------------------------------------------------------------------------------------------------
# page


def _fmt(value: float | None, scale: float = 100.0, digits: int = 1) -> str:
    """:func:`balancer.report.pages.fmt_scaled` in percent unless told otherwise."""
    return fmt_scaled(value, scale, digits)


def _interval(row: dict[str, Any] | None, scale: float = 100.0, digits: int = 1) -> Markup:
    """``26.3 [24.4–28.3]`` (with the interval in small grey type), or a dash."""
    if row is None or row.get("rate", row.get("mean")) is None:
        return Markup("–")
    value = row.get("rate", row.get("mean"))
    return Markup('{} <span class="ci">[{}–{}]</span>').format(
        _fmt(value, scale, digits), _fmt(row["ci_low"], scale, digits), _fmt(row["ci_high"], scale, digits)
    )


def _metric_rows(t: LadderTable) -> list[dict[str, Any]]:
    """Rows ``{name, label, rate, values: [summary row per rung]}`` of the metrics of the mirror cells."""
    names: list[str] = []
    for m in t.mirror:
        for name in m.summary.get("metrics", {}):
            if name not in names:
                names.append(name)
    out = []
    for name in names:
        values = [m.summary.get("metrics", {}).get(name) for m in t.mirror]
        specs = metric_specs_of(t.mirror[0].meta) if t.mirror else None
        label, rate = metric_label(name, specs), is_rate_metric(name, specs=specs)
        out.append({"name": name, "label": label, "rate": rate, "values": values})
    return out


def _score_rows(t: LadderTable) -> tuple[list[str], list[dict[str, Any]]]:
    """(components, rows ``{rung, seat, score, components}``) from the mirror cells' score by seat; a
    category 0 in every game of every rung (achievements switched off) is left out
    (:func:`balancer.report.figures.nonzero_components`)."""
    components: list[str] = []
    for m in t.mirror:
        for c in m.summary.get("score_components", []):
            if c not in components:
                components.append(c)
    seats = [r for m in t.mirror for r in m.summary.get("score_by_seat", [])]
    components, _ = figs.nonzero_components(
        {c: [(r.get("components") or {}).get(c) for r in seats] for c in components}
    )
    rows = []
    for rung, m in zip(t.rungs, t.mirror):
        unbonused = {r["seat"]: r for r in without_bonus_rows(m.summary, metric_specs_of(m.meta))}
        for r in sorted(m.summary.get("score_by_seat", []), key=lambda r: r["seat"]):
            rows.append(
                {
                    "rung": rung,
                    "seat": r["seat"],
                    "score": r,
                    "without_bonus": unbonused.get(r["seat"]),
                    "components": [r.get("components", {}).get(c) for c in components],
                }
            )
    return components, rows


def _matchup_table(t: LadderTable) -> list[dict[str, Any]]:
    """Rows of the match-up table: every played (row, col) with the pooled rate and per seat order."""
    orders = ["first", "second"] if t.players == 2 else [f"seat {s}" for s in range(1, t.players + 1)]
    rows = []
    for m in t.matchups:
        if m["order"] != "any":
            continue
        rows.append(
            {
                "row": m["row"],
                "col": m["col"],
                "games": m["games"],
                "any": m,
                "orders": [t.matchup(m["row"], m["col"], o) for o in orders],
            }
        )
    return rows


def section(t: LadderTable, figures_dir: Path | None, stem: str) -> dict[str, Any]:
    """Everything the template needs of one ladder (variant x player count), figures as inline SVG."""
    title = f"{t.variant}, {t.players} players"
    seat_fig = seat_chart(t, f"Seat win rate by rung ({title})")
    blocks: dict[str, Any] = {"t": t, "title": title, "seat_svg": Markup(figs.svg_string(seat_fig))}
    files = [(seat_fig, f"{stem}-{t.key}-seats")]
    blocks["matchup_svg"] = blocks["ratings_svg"] = None
    if t.matchups:
        mfig = matchup_chart(t, f"Match-ups ({title})")
        blocks["matchup_svg"] = Markup(figs.svg_string(mfig))
        files.append((mfig, f"{stem}-{t.key}-matchups"))
    if t.ratings is not None:
        rfig = ratings_chart(t, f"Ratings ({title})")
        blocks["ratings_svg"] = Markup(figs.svg_string(rfig))
        files.append((rfig, f"{stem}-{t.key}-ratings"))
    if figures_dir is not None:
        for fig, name in files:
            write_figure_files(fig, Path(figures_dir), name)
    blocks["components"], blocks["score_rows"] = _score_rows(t)
    blocks["metrics"] = _metric_rows(t)
    blocks["matchup_rows"] = _matchup_table(t)
    blocks["orders"] = (
        ["moves first", "moves second"] if t.players == 2 else [f"in seat {s}" for s in range(1, t.players + 1)]
    )
    return blocks


def render_ladder(
    result: StudyResult,
    out_html: Path | str,
    figures_dir: Path | None = None,
    *,
    tables: Sequence[LadderTable],
) -> Path:
    """Write the ladder study's self-contained HTML report (and, with ``figures_dir``, every figure
    as SVG, PNG and PDF); return the page's path. ``tables``: what :func:`balancer.ladder.analysis.analyze`
    made of ``result``."""
    stem = result.study.study
    sections = [section(t, figures_dir, stem) for t in tables]
    env = pages.environment(fmt=_fmt, ci=_interval, pvalue=fmt_p, humanize=humanize)
    cells = cell_rows(result, Path(out_html).parent)  # folders relative to the page, as the study page says them
    first = next(iter(result.cells.values()))
    ladder = result.study.ladder
    html = env.get_template(TEMPLATE).render(
        study=result.study,
        ladder=ladder,
        study_path=portable_path(result.study_path, Path(out_html).parent),
        sections=sections,
        cells=cells,
        game=display_name(result.study.game, first.meta),
        wall_seconds=result.wall_seconds,
        simulated_seconds=result.simulated_seconds,
        warmup_seconds=result.warmup_seconds,
        games=result.games,
        versions=first.meta.get("versions", {}),
    )
    out_html = normalised(out_html)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out_html, html)
    return out_html
