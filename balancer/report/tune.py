"""The tune report: the search's trajectory (objective by trial, with intervals), the best candidates
side by side, each tuned path's response around the optimum, and the confirmation against every target.

Renders what :mod:`balancer.tune.search` measured; computes nothing else.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from markupsafe import Markup

from balancer.data import portable_path
from balancer.outcomes import Candidate, Evaluation, TuneResult
from balancer.paths import changes_text, get_path, parse_path, value_text
from balancer.report.figures.sweep import line_chart, x_range
from balancer.report.figures.tune import trajectory_chart
from balancer.report.render import write_atomically
from balancer.report.sweep import environment, number_label, path_label
from balancer.stats.tracked import is_rate


def _top(candidate: Candidate) -> Evaluation:
    """A candidate's evaluation at the highest rung it reached (every ranked or response candidate has one)."""
    top = candidate.top
    if top is None:
        raise ValueError(f"tune candidate {candidate.label} was never evaluated")
    return top


def response_blocks(result: TuneResult) -> list[dict[str, Any]]:
    """Per tuned path: the objective and each targeted number against the path's value around the
    optimum (the other paths at the best), measured at the top rung: ``{path, svgs}``."""
    blocks: list[dict[str, Any]] = []
    best = result.best
    if best is None:
        return blocks
    base_data = result.plan.base.resolved.data
    for path, cands in result.response.items():
        if len(cands) < 2:
            continue
        cands = sorted(cands, key=lambda c: _sort_key(c.values[path]))
        xs = [c.values[path] for c in cands]
        tops = [_top(c) for c in cands]
        base_value = get_path(base_data, parse_path(path))
        marks = response_marks(base_value, best.values[path])
        xlim = x_range(xs, [v for v, _, _ in marks])  # one x range for every panel of the path
        xlabel = path_label(result.plan.base.spec.config_model, path)
        svgs = [
            line_chart(
                xs,
                [("objective", [t.objective for t in tops], [t.low for t in tops], [t.high for t in tops])],
                xlabel=xlabel,
                ylabel="objective (smaller is better)",
                title=f"Objective by {path} (others at the best)",
                marks=marks,
                xlim=xlim,
            )
        ]
        for run in result.plan.tune.runs:
            names = list(
                dict.fromkeys(
                    n
                    for term in result.plan.terms
                    if term.run == run
                    for n, _ in term.members(list(tops[0].estimates[run]))
                )
            )
            if not names:
                continue
            rate = all(is_rate(n) for n in names)
            fair = (
                1.0 / result.plan.tune.runs[run].players if all(n.startswith("seat_win_rate") for n in names) else None
            )
            series = [
                (
                    number_label(n, result.plan.base.spec.metrics),
                    [t.estimates[run].get(n, {}).get("mean", math.nan) for t in tops],
                    [t.estimates[run].get(n, {}).get("ci_low", math.nan) for t in tops],
                    [t.estimates[run].get(n, {}).get("ci_high", math.nan) for t in tops],
                )
                for n in names[:8]
            ]
            svgs.append(
                line_chart(
                    xs,
                    series,
                    xlabel=xlabel,
                    ylabel="win rate (%)" if rate else "value",
                    title=f"{run}: targeted numbers by {path}",
                    scale=100.0 if rate else 1.0,
                    fair=fair,
                    marks=marks,
                    xlim=xlim,
                )
            )
        blocks.append(
            {
                "path": path,
                "svgs": [Markup(s) for s in svgs],
                "base": value_text(base_value),
                "best": value_text(best.values[path]),
            }
        )
    return blocks


def response_marks(base: Any, best: Any) -> list[tuple[Any, str, str]]:
    """The vertical lines of every response panel of a path: the base variant's value dotted and the
    best candidate's dashed, each named with its value in the legend; one line when they are equal."""
    if base == best:
        return [(base, f"base variant = best ({value_text(base)})", ":")]
    return [(base, f"base variant ({value_text(base)})", ":"), (best, f"best ({value_text(best)})", "--")]


def _sort_key(v: Any) -> Any:
    return (0, float(v), "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0.0, str(v))


def _seat_text(estimates: dict[str, dict[str, float]], players: int) -> str:
    parts = []
    for s in range(1, players + 1):
        e = estimates.get(f"seat_win_rate:{s}")
        if e and math.isfinite(e["mean"]):
            parts.append(f"{100 * e['mean']:.1f}")
    return " / ".join(parts)


def best_rows(result: TuneResult, limit: int = 10) -> list[dict[str, Any]]:
    """The best candidates at the top rung, side by side: values, objective with interval, games,
    seat win rates per run."""
    rows = []
    for i, c in enumerate(result.ranked[:limit]):
        ev = _top(c)
        rows.append(
            {
                "rank": i + 1,
                "vals": [value_text(c.values[p]) for p in result.plan.tune.space],
                "objective": ev.objective,
                "low": ev.low,
                "high": ev.high,
                "games": sum(ev.games.values()),
                "seats": {r: _seat_text(ev.estimates[r], run.players) for r, run in result.plan.tune.runs.items()},
                # bold only when it is recommended: it passed its confirmation and beat the base there
                "is_best": result.best is not None and c.label == result.best.label and result.refusal is None,
                "trials": len(c.trials),
            }
        )
    return rows


def rung_rows(result: TuneResult) -> list[dict[str, Any]]:
    """Per rung: cumulative games per candidate (summed over runs) and how many candidates reached it."""
    rows = []
    n = max(len(r) for r in result.plan.rungs.values())
    for k in range(n):
        games = sum(r[k] for r in result.plan.rungs.values() if k < len(r))
        reached = sum(1 for c in result.candidates if k in c.evaluations)
        rows.append({"rung": k, "games": games, "candidates": reached})
    return rows


def confirmation_rows(result: TuneResult) -> list[dict[str, Any]]:
    """Per run and tracked number: the base and the best at the confirmation, and the paired change."""
    conf = result.confirmation
    if conf is None:
        return []
    rows = []
    for run in result.plan.tune.runs:
        best = conf.best_estimates[run]
        base = conf.base_estimates.get(run, {})
        paired = {}
        for section in ("seat_win_rate", "agent_win_rate"):
            for r in (conf.paired.get(run, {}) or {}).get(section, []):
                key = f"seat_win_rate:{r['seat']}" if section == "seat_win_rate" else f"agent_win_rate:{r['agent']}"
                paired[key] = r
        for r in (conf.paired.get(run, {}) or {}).get("metrics", []):
            paired[f"{r['name']}_per_player"] = r
        for name in best:
            if name.startswith("matchup:"):
                continue
            p = paired.get(name, {})
            rows.append(
                {
                    "run": run,
                    "number": number_label(name, result.plan.base.spec.metrics),
                    "rate": is_rate(name),
                    "best": best[name],
                    "base": base.get(name),
                    "diff": p.get("difference"),
                    "diff_low": p.get("ci_low"),
                    "diff_high": p.get("ci_high"),
                }
            )
    return rows


def render_tune(result: TuneResult, out_html: Path | str, written: Path | None = None, written_text: str = "") -> Path:
    """Write the tune's self-contained HTML report to ``out_html`` (atomically); return its path."""
    plan = result.plan
    base_data = plan.base.resolved.data
    space = [
        {
            "path": p,
            "domain": d.text(),
            "base": value_text(get_path(base_data, parse_path(p))),
            "best": value_text(result.best.values[p]) if result.best else "–",
        }
        for p, d in plan.tune.space.items()
    ]
    refused = [c for c in result.candidates if c.refused]
    html = (
        environment(plan.base.spec.metrics)
        .get_template("tune.html.j2")
        .render(
            result=result,
            plan=plan,
            tune=plan.tune,
            game=plan.base.spec.display_name,
            base=portable_path(plan.base.path, Path(out_html).parent),
            plan_path=portable_path(plan.path, Path(out_html).parent),
            base_variant=str(plan.base.cfg.variant),
            space=space,
            terms=plan.terms,
            trajectory=Markup(trajectory_chart(result)) if result.trials else None,
            best=best_rows(result),
            response=response_blocks(result),
            rungs=rung_rows(result),
            confirmation=result.confirmation,
            confirm_rows=confirmation_rows(result),
            refused=refused,
            written=portable_path(written, Path(out_html).parent) if written else None,
            written_text=written_text,
            best_text=changes_text(result.best.values) if result.best else "–",
            changes=result.changes,
            refusal=result.refusal if result.best is not None else None,
        )
    )
    out = Path(out_html)
    write_atomically(out, html)
    return out
