"""One self-contained HTML report of a run: win rates, seat advantage, score breakdown, methods.

The page has no external resources: figures are inline SVG, the CSS is in the template.  The
template is rendered by jinja2 with autoescape on, so every name coming from data (variant, agent,
config path, command) is escaped; only the SVG produced by :mod:`balancer.report.figures` is
marked safe.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from balancer.report import figures
from balancer.stats.aggregate import (
    RESULTS_FILE,
    RUN_FILE,
    SUMMARY_FILE,
    read_run_meta,
    summarize,
    scan_results,
    write_summary,
)

TEMPLATE_DIR = Path(__file__).parent / "templates"
TEMPLATE_NAME = "report.html.j2"
SIGNIFICANCE = 0.05


# --------------------------------------------------------------------------- formatting


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """Fraction -> percent text without the sign: ``0.2634 -> "26.3"``; ``None`` -> ``"–"``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100.0 * value:.{digits}f}"


def fmt_num(value: float | None, digits: int = 2) -> str:
    """Number with fixed decimals; ``None``/NaN -> ``"–"``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def fmt_p(p: float | None) -> str:
    """p-value text: ``"p = 0.31"``, ``"p = 0.012"``, ``"p < 0.001"``; ``None`` -> ``"p undefined"``."""
    if p is None:
        return "p undefined"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"


def fmt_duration(seconds: float | None) -> str:
    """Seconds -> ``"42.0 s"``, ``"3 min 05 s"`` or ``"2 h 03 min 05 s"``; ``None`` -> ``"–"``."""
    if seconds is None:
        return "–"
    if seconds < 60:
        return f"{seconds:.1f} s"
    total = int(round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min {secs:02d} s"
    return f"{minutes} min {secs:02d} s"


def humanize(name: str) -> str:
    """``"wasted_tiles_per_player" -> "wasted tiles per player"``."""
    return name.replace("_", " ")


# --------------------------------------------------------------------------- wording


def describe_seat_uniformity(summary: Mapping[str, Any]) -> str:
    """The chi-square seat test stated in words (plain text, escaped by the template).

    Args:
        summary: a ``summary.json`` dict (needs ``seat_uniformity_p``, ``seat_win_rate``,
            ``n_players``, ``games``).
    """
    p = summary.get("seat_uniformity_p")
    seats = summary.get("seat_win_rate") or []
    n = summary.get("n_players") or len(seats)
    games = summary.get("games")
    test = (
        f"chi-square test of the seats' win counts against an even 1/{n} share each "
        f"({max(len(seats) - 1, 0)} degrees of freedom, {games} games, shared wins split evenly "
        "between the tied winners)"
    )
    if p is None:
        return f"The seat test is undefined for this run ({test})."
    if p >= SIGNIFICANCE:
        return (
            f"No evidence that the seat changes the chance of winning: {fmt_p(p)} in a {test}. "
            "Differences between the bars are within what chance alone produces."
        )
    best = max(seats, key=lambda r: r["rate"])
    worst = min(seats, key=lambda r: r["rate"])
    return (
        f"The seats do not win equally often: {fmt_p(p)} in a {test}. "
        f"Seat {best['seat']} wins most ({fmt_pct(best['rate'])}%), "
        f"seat {worst['seat']} least ({fmt_pct(worst['rate'])}%), against a fair share of "
        f"{fmt_pct(1.0 / n)}%."
    )


def describe_seat_design(seat_design: str | None) -> str:
    """A sentence on how agents were seated, from ``run.json``'s ``seat_design``."""
    if not seat_design:
        return "Seat design not recorded."
    text = seat_design.strip()
    lowered = text.lower()
    if lowered.startswith("rotated"):
        return (
            "Mixed table: seats rotate between games so that each agent sits in each seat "
            "equally often; seat and agent effects are therefore not confounded."
        )
    if lowered.startswith("mirror"):
        return (
            "Mirror table: every seat is played by the same agent, so differences between seats "
            "come from the rules alone."
        )
    return text


def describe_agents(agents: Sequence[str] | None) -> str:
    """``["greedy", "greedy", "random"] -> "2 × greedy, 1 × random"`` (first-appearance order)."""
    if not agents:
        return "not recorded"
    counts = Counter(agents)
    return ", ".join(f"{k} × {a}" for a, k in counts.items())


# --------------------------------------------------------------------------- context


def _order_agents(rows: Sequence[Mapping[str, Any]], agents: Sequence[str] | None) -> list:
    """Rows ordered as the agents first appear at the table, unknown agents last."""
    order = {a: i for i, a in enumerate(dict.fromkeys(agents or []))}
    return sorted(rows, key=lambda r: (order.get(r["agent"], len(order)), str(r["agent"])))


def _win_chart(rows: Sequence[Mapping[str, Any]], by: str, fair: float | None) -> Markup:
    return Markup(
        figures.win_rate_chart(
            [r[by] for r in rows],
            [r["rate"] for r in rows],
            [r["ci_low"] for r in rows],
            [r["ci_high"] for r in rows],
            fair_share=fair,
            xlabel=by,
        )
    )


def _score_chart(rows: Sequence[Mapping[str, Any]], by: str, components: Sequence[str]) -> Markup:
    return Markup(
        figures.score_breakdown_chart(
            [r[by] for r in rows],
            {c: [r["components"].get(c) for r in rows] for c in components},
            totals=[r["mean"] for r in rows],
            totals_low=[r["ci_low"] for r in rows],
            totals_high=[r["ci_high"] for r in rows],
            xlabel=by,
        )
    )


def build_context(summary: Mapping[str, Any], meta: Mapping[str, Any], title: str | None = None) -> dict:
    """Everything the template needs, figures included (as ``Markup`` SVG).

    Args:
        summary: a ``summary.json`` dict as produced by ``balancer.stats.summarize``.
        meta: the run's ``run.json`` dict.
        title: page title; defaults to ``"<game> · <variant>: balance report"``.
    """
    n = int(summary.get("n_players") or meta.get("n_players") or len(summary["seat_win_rate"]))
    fair = 1.0 / n if n > 0 else None
    seats = sorted(summary["seat_win_rate"], key=lambda r: r["seat"])
    agents = _order_agents(summary["agent_win_rate"], meta.get("agents"))
    components = list(summary.get("score_components") or [])
    score_agents = _order_agents(summary.get("score_by_agent") or [], meta.get("agents"))
    score_seats = sorted(summary.get("score_by_seat") or [], key=lambda r: r["seat"])
    game = summary.get("game") or meta.get("game") or "game"
    variant = summary.get("variant") or meta.get("variant") or "variant"
    sha = meta.get("config_sha256") or ""
    versions = meta.get("versions") or {}
    return {
        "title": title or f"{game} · {variant}: balance report",
        "game": game,
        "variant": variant,
        "n_players": n,
        "games": summary.get("games"),
        "rows": summary.get("rows"),
        "seed": summary.get("seed", meta.get("seed")),
        "fair_share": fair,
        "seats": seats,
        "agents": agents,
        "seat_chart": _win_chart(seats, "seat", fair),
        "agent_chart": _win_chart(agents, "agent", fair),
        "seat_test": describe_seat_uniformity(summary),
        "seat_uniformity_p": summary.get("seat_uniformity_p"),
        "components": components,
        "score_agents": score_agents,
        "score_seats": score_seats,
        "score_agent_chart": _score_chart(score_agents, "agent", components) if score_agents else None,
        "score_seat_chart": _score_chart(score_seats, "seat", components) if score_seats else None,
        "metrics": [
            {"name": humanize(name), **values}
            for name, values in (summary.get("metrics") or {}).items()
        ],
        "tied_share": summary.get("tied_games_share"),
        "tied_games": summary.get("tied_games"),
        "tied_low": summary.get("tied_games_ci_low"),
        "tied_high": summary.get("tied_games_ci_high"),
        "config_path": meta.get("config_path"),
        "config_sha": sha[:12],
        "agents_desc": describe_agents(meta.get("agents")),
        "seat_design": describe_seat_design(meta.get("seat_design")),
        "games_planned": meta.get("games"),
        "jobs": meta.get("jobs"),
        "started": meta.get("started"),
        "elapsed": fmt_duration(meta.get("elapsed_seconds")),
        "versions": sorted(versions.items()),
        "command": meta.get("command"),
        "confidence": summary.get("confidence", 0.95),
    }


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = fmt_pct
    env.filters["num"] = fmt_num
    env.filters["pvalue"] = fmt_p
    return env


def render_html(summary: Mapping[str, Any], meta: Mapping[str, Any], title: str | None = None) -> str:
    """Render the report page to a string (for notebooks: ``IPython.display.HTML(...)``)."""
    return _environment().get_template(TEMPLATE_NAME).render(**build_context(summary, meta, title))


def _load_summary(results_dir: Path, meta: dict) -> dict:
    """``summary.json`` if present and complete, else computed (written when missing)."""
    path = results_dir / SUMMARY_FILE
    if not path.is_file():
        return write_summary(results_dir)
    summary = json.loads(path.read_text(encoding="utf-8"))
    if "score_by_agent" not in summary or "score_by_seat" not in summary:
        # An older or minimal summary: the score breakdown comes from the results table.
        full = summarize(scan_results(results_dir), meta)
        summary = {**full, **summary}
        for key in ("score_by_agent", "score_by_seat", "score_components"):
            summary[key] = full[key]
    return summary


def render_report(results_dir: Path, out_html: Path, title: str | None = None) -> Path:
    """Write the self-contained HTML report of one results directory.

    Reads ``run.json``, ``summary.json`` (computed and written with
    :func:`balancer.stats.write_summary` if missing) and, when the summary lacks the score
    breakdown, ``results.parquet``.  Parent directories of ``out_html`` are created.

    Args:
        results_dir: directory holding ``results.parquet`` and ``run.json``.
        out_html: path of the HTML file to write (overwritten if it exists).
        title: page title; defaults to game and variant.

    Returns:
        ``out_html``.

    Raises:
        FileNotFoundError: naming ``results.parquet`` or ``run.json`` if either is missing.
    """
    results_dir = Path(results_dir)
    out_html = Path(out_html)
    if not results_dir.is_dir():
        raise FileNotFoundError(f"results directory not found: {results_dir}")
    parquet = results_dir / RESULTS_FILE
    if not parquet.is_file() and not any(results_dir.glob("*.parquet")):
        raise FileNotFoundError(f"cannot render report: {parquet} does not exist")
    if not (results_dir / RUN_FILE).is_file():
        raise FileNotFoundError(f"cannot render report: {results_dir / RUN_FILE} does not exist")
    meta = read_run_meta(results_dir)
    summary = _load_summary(results_dir, meta)
    html = render_html(summary, meta, title)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    out_html.write_text(html, encoding="utf-8")
    return out_html
