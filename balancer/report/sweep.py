"""The sweep report: every tracked number against the swept value with 95% intervals (a heatmap per
number for two paths), and for each target the values whose intervals meet it.

Figures are matplotlib, drawn on their own canvas and inlined as SVG (:mod:`balancer.report.figures`);
the page is rendered by jinja2 with autoescape on, so names from files are escaped. Computes nothing
that :mod:`balancer.sweep` did not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from jinja2 import Environment
from markupsafe import Markup
from matplotlib.colors import Normalize

from balancer.config import field_at
from balancer.core.kernel import COMPLETION
from balancer.core.metrics import PER_PLAYER, MetricSpecs
from balancer.data import portable_path
from balancer.report import figures as figs
from balancer.report import pages
from balancer.report.pages import fmt_scaled
from balancer.report.render import metric_label, write_atomically
from balancer.sweep.paths import changes_text, value_text
from balancer.sweep.runner import SweepResult
from balancer.sweep.targets import is_rate, term_distance


def numeric(values: Sequence[Any]) -> bool:
    """True when every value is an int or float (not a bool): the x axis is then to scale."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


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
            )
        for value, label, linestyle in marks:
            mx = marked_x(xs, value)
            if mx is not None:
                ax.axvline(mx, color=figs.BASE_COLOUR, linestyle=linestyle, linewidth=1.0, label=figs.text_label(label))
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
        ax.set_xlabel(figs.wrap(figs.text_label(xlabel), figs.PAGE_WIDTH - 2.0, figs.FONT_SIZE))
        ax.set_ylabel(figs.text_label(ylabel))
        ax.set_title(figs.wrap(figs.text_label(title), figs.PAGE_WIDTH), loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), title="95% intervals" if len(series) > 1 else None)
        return figs.svg_string(fig)


def path_label(model: Any, path: str) -> str:
    """The x-axis label of a swept key: its description and unit from the config model's field
    metadata (``Field(description=..., json_schema_extra={"unit": ...})``) as ``"description (unit)"``,
    followed by the path on a new line; the path alone when the field has neither (or the path does
    not lead to a model field). ``model``: the game's pydantic config class."""
    from balancer.sweep.paths import PathError, parse_path

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
    text = description or path
    if unit:
        text += f" ({unit})"
    return f"{text}\n{path}" if description else text


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
    from balancer.sweep.paths import get_path, parse_path

    return get_path(result.plan.base.resolved.data, parse_path(path))


def _all_met(result: SweepResult, run: str, label: str) -> bool:
    est = result.estimates[(run, label)]
    terms = [t for t in result.plan.terms if t.run == run]
    return bool(terms) and all(t.verdict(est) in ("met", "consistent") for t in terms)


def target_rows(result: SweepResult) -> list[dict[str, Any]]:
    """Per target: ``{title, meets: [point texts], rows: [{point, verdict, distance, numbers}]}``."""
    out = []
    for term in result.plan.terms:
        rows, meets = [], []
        for p in result.plan.points:
            est = result.estimates[(term.run, p.label)]
            verdict = term.verdict(est)
            nums = term.verdicts(est)
            rows.append(
                {
                    "point": changes_text(p.values),
                    "verdict": verdict,
                    "distance": term_distance(term, result.numbers[(term.run, p.label)]),
                    "numbers": nums,
                    "rate": all(is_rate(n["number"]) for n in nums),
                }
            )
            if verdict in ("met", "consistent"):
                meets.append(changes_text(p.values))
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
            versions=first.meta.get("versions", {}),
            seed=plan.sweep.seed,
            engine=first.meta.get("engine_sha256", "")[:12],
        )
    )
    out = Path(out_html)
    write_atomically(out, html)
    return out
