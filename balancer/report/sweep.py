"""The sweep report: every tracked number against the swept value with 95% intervals (a heatmap per
number for two paths), and for each target the values whose intervals meet it.

Figures are drawn on their own canvas and inlined as SVG (:mod:`balancer.report.figures.sweep`);
the page is rendered by jinja2 with autoescape on, so names from files are escaped. Computes nothing
that :mod:`balancer.sweep` did not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import Environment
from markupsafe import Markup

from balancer.config import field_at
from balancer.core.kernel import COMPLETION
from balancer.core.metrics import PER_PLAYER, MetricSpecs
from balancer.data import portable_path
from balancer.outcomes import SweepResult
from balancer.paths import changes_text, value_text
from balancer.report import pages
from balancer.report.figures.sweep import heatmap_chart, line_chart
from balancer.report.pages import fmt_scaled
from balancer.report.render import metric_label, write_atomically
from balancer.stats.tracked import is_rate


def number_label(name: str, specs: MetricSpecs | None = None) -> str:
    """``seat_win_rate:4`` -> ``seat 4``; ``agent_win_rate:greedy`` -> ``greedy``;
    ``wasted_tiles_per_player`` -> the metric's label (as the game's ``specs`` declare it);
    ``matchup:deck:a:b`` -> ``a vs b``."""
    if name.startswith("seat_win_rate:"):
        return f"seat {name.split(':')[1]}"
    if name.startswith("agent_win_rate:"):
        return name.split(":", 1)[1]
    if name.startswith("matchup:"):
        _, _, a, b = name.split(":", 3)
        return f"{a} vs {b}"
    return metric_label(name.removesuffix(PER_PLAYER), specs)


def path_label(model: Any, path: str) -> str:
    """The x-axis label of a swept key: its description and unit from the config model's field
    metadata (``Field(description=..., json_schema_extra={"unit": ...})``) as ``"description (unit)"``,
    followed by the path on a new line; the path alone when the field has neither (or the path does
    not lead to a model field). ``model``: the game's pydantic config class."""
    from balancer.paths import PathError, parse_path

    try:
        parts = parse_path(path)
    except PathError:
        return path
    info = field_at(model, tuple(parts))
    if info is None:
        return path
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    unit = extra.get("unit")
    description = (info.description or "").strip()
    if not description and not unit:
        return path
    # one line (issue 50): the description's first clause and the unit; the path is in the title
    text = re.split(r"[;:(]| - ", description)[0].strip().rstrip(",.") if description else path
    if unit:
        text += f" ({unit})"
    return text


def _groups(numbers: Sequence[str], specs: MetricSpecs | None = None) -> list[tuple[str, list[str]]]:
    """Figures of a run: seat win rates together, agent win rates together, each metric alone,
    match-ups by label."""
    seats = [n for n in numbers if n.startswith("seat_win_rate:")]
    agents = [n for n in numbers if n.startswith("agent_win_rate:")]
    out = []
    if len(seats) > 1:
        out.append(("seat win rates", seats))
    if agents:
        out.append(("agent win rates", agents))
    for n in numbers:
        if not n.startswith(("seat_win_rate:", "agent_win_rate:", "matchup:")):
            out.append((number_label(n, specs), [n]))
    labels = dict.fromkeys(n.split(":")[1] for n in numbers if n.startswith("matchup:"))
    for label in labels:
        pairs = [n for n in numbers if n.startswith(f"matchup:{label}:") and n.split(":")[2] < n.split(":")[3]]
        out.append((f"match-ups by {label}", pairs))
    return out


def _band(result: SweepResult, run: str, names: Sequence[str]) -> tuple[float, float] | None:
    """The target range drawn on a figure: the bounds of a target that covers all its numbers."""
    for term in result.plan.terms:
        if term.run != run or term.target.matrix is not None:
            continue
        covered = {n for n, _ in term.members(list(names))}
        if covered and covered >= set(names):
            fair = term.fair if term.fair is not None else 0.5
            return term.target.bounds(fair)
    return None


def _worth_a_figure(result: SweepResult, run: str, name: str) -> bool:
    """Every number but ``completion`` when every game of every point ended by the rules (a flat 100%
    panel says nothing; the completion notes on the page still count the games)."""
    if name != COMPLETION:
        return True
    return any(result.estimates[(run, p.label)].get(name, {}).get("mean", 1.0) != 1.0 for p in result.plan.points)


def sweep_figures(result: SweepResult) -> list[dict[str, Any]]:
    """One block per run and figure: ``{run, title, svg}``."""
    plan = result.plan
    specs = plan.base.spec.metrics
    paths = list(plan.values)
    base_value = {p: _base_value(result, p) for p in paths}
    blocks = []
    for run_name, run in plan.sweep.runs.items():
        first = plan.points[0].label
        names = [n for n in result.estimates[(run_name, first)] if _worth_a_figure(result, run_name, n)]
        for title, group in _groups(names, specs):
            rate = all(is_rate(n) for n in group)
            scale = 100.0 if rate else 1.0
            unit = " (%)" if rate else ""
            fair = (
                1.0 / run.players
                if group[0].startswith(("seat_win_rate", "agent_win_rate"))
                else (0.5 if group[0].startswith("matchup:") else None)
            )
            if len(paths) == 1:
                xs = plan.values[paths[0]]
                series = []
                for n in group:
                    ests = [result.estimates[(run_name, p.label)].get(n, _nan()) for p in plan.points]
                    series.append(
                        (
                            number_label(n, specs),
                            [e["mean"] for e in ests],
                            [e["ci_low"] for e in ests],
                            [e["ci_high"] for e in ests],
                        )
                    )
                svg = line_chart(
                    xs,
                    series,
                    xlabel=path_label(plan.base.spec.config_model, paths[0]),
                    ylabel=title + unit,
                    title=f"{run_name}: {title} by {paths[0]}",
                    scale=scale,
                    fair=fair,
                    band=_band(result, run_name, group),
                    marks=[(base_value[paths[0]], f"base variant ({value_text(base_value[paths[0]])})", ":")],
                )
                blocks.append({"run": run_name, "title": title, "svg": Markup(svg)})
            else:
                rows, cols = plan.values[paths[0]], plan.values[paths[1]]
                for n in group:
                    shape = (len(rows), len(cols))
                    mean, low, high = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
                    met = np.zeros(shape, dtype=bool)
                    for p in plan.points:
                        i, j = rows.index(p.values[paths[0]]), cols.index(p.values[paths[1]])
                        e = result.estimates[(run_name, p.label)].get(n, _nan())
                        mean[i, j], low[i, j], high[i, j] = e["mean"], e["ci_low"], e["ci_high"]
                        met[i, j] = _all_met(result, run_name, p.label)
                    svg = heatmap_chart(
                        rows,
                        cols,
                        mean,
                        low,
                        high,
                        row_label=path_label(plan.base.spec.config_model, paths[0]),
                        col_label=path_label(plan.base.spec.config_model, paths[1]),
                        title=f"{run_name}: {number_label(n, specs)}{unit}",
                        scale=scale,
                        centre=fair,
                        met=met if plan.terms else None,
                    )
                    blocks.append({"run": run_name, "title": number_label(n, specs), "svg": Markup(svg)})
    return blocks


def _nan() -> dict[str, float]:
    return {"mean": math.nan, "ci_low": math.nan, "ci_high": math.nan, "games": 0}


def _base_value(result: SweepResult, path: str) -> Any:
    from balancer.paths import get_path, parse_path

    return get_path(result.plan.base.resolved.data, parse_path(path))


def _all_met(result: SweepResult, run: str, label: str) -> bool:
    est = result.estimates[(run, label)]
    terms = [t for t in result.plan.terms if t.run == run]
    return bool(terms) and all(t.verdict(est) in ("met", "consistent") for t in terms)


def target_rows(result: SweepResult) -> list[dict[str, Any]]:
    """Per target: ``{title, meets: [point texts], rows: [{point, verdict, distance, numbers}]}``."""
    out = []
    verdicts = result.verdicts()  # per term, per point: the result's own verdicts and distances
    n = len(result.plan.points)
    for i, term in enumerate(result.plan.terms):
        rows, meets = [], []
        for v in verdicts[i * n : (i + 1) * n]:
            rows.append(
                {
                    "point": changes_text(v["values"]),
                    "verdict": v["verdict"],
                    "distance": v["distance"],
                    "numbers": v["rows"],
                    "rate": all(is_rate(r["number"]) for r in v["rows"]),
                }
            )
            if v["verdict"] in ("met", "consistent"):
                meets.append(changes_text(v["values"]))
        out.append(
            {
                "title": term.title,
                "meets": meets,
                "rows": rows,
                "kind": "consistent"
                if (term.target.equal and term.target.within is None) or term.target.matrix is not None
                else "met",
            }
        )
    return out


def environment(specs: MetricSpecs | None = None) -> Environment:
    """The jinja2 environment of the sweep and tune pages (autoescape on, strict undefined); the
    ``label`` filter names metrics as the game's ``specs`` declare them."""
    return pages.environment(
        fmt=fmt_scaled,
        count=lambda v: f"{int(v):,}" if v is not None else "–",
        label=lambda name: number_label(name, specs),
        value=value_text,
        changes=changes_text,
    )


def render_sweep(result: SweepResult, out_html: Path | str) -> Path:
    """Write the sweep's self-contained HTML report to ``out_html`` (atomically); return its path."""
    plan = result.plan
    page_dir = Path(out_html).parent  # paths on the page: shipped names, or relative to the page
    cells = [
        {
            "run": c.run,
            "point": changes_text(next(p.values for p in plan.points if p.label == c.variant)),
            "games": c.meta.get("games"),
            "seconds": c.meta.get("elapsed_seconds"),
            "reused": c.reused,
            "dir": portable_path(c.out_dir, page_dir),
            "config": portable_path(c.config_path, page_dir),
        }
        for c in result.cells.values()
    ]
    first = next(iter(result.cells.values()))
    html = (
        environment(plan.base.spec.metrics)
        .get_template("sweep.html.j2")
        .render(
            plan=plan,
            sweep=plan.sweep,
            base=portable_path(plan.base.path, page_dir),
            plan_path=portable_path(plan.path, page_dir),
            base_variant=str(plan.base.cfg.variant),
            game=plan.base.spec.display_name,
            paths=list(plan.values),
            base_values={p: value_text(_base_value(result, p)) for p in plan.values},
            blocks=sweep_figures(result),
            targets=target_rows(result),
            cells=cells,
            games=result.games,
            played=result.games_played,
            wall_seconds=result.wall_seconds,
            simulated_seconds=result.simulated_seconds,
            warmup_seconds=result.warmup_seconds,
            versions=first.meta.get("versions", {}),
            seed=plan.sweep.seed,
            engine=first.meta.get("engine_sha256", "")[:12],
        )
    )
    out = Path(out_html)
    write_atomically(out, html)
    return out
