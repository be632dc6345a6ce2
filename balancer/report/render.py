"""One self-contained HTML report of a run: win rates, seat advantage, score breakdown, methods.

The page has no external resources: figures are inline SVG, the CSS is in the template.  The
template is rendered by jinja2 with autoescape on, so every name coming from data (variant, agent,
config path, command) is escaped; only the SVG produced by :mod:`balancer.report.figures` is
marked safe.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
from jinja2 import Environment
from markupsafe import Markup

from balancer.core.metrics import MetricSpecs, humanize, spec_of
from balancer.core.registry import metric_specs_of
from balancer.numtext import number_text
from balancer.outdir import UnsafeOutputError, normalised, refuse_foreign, write_atomic
from balancer.report import figures, pages
from balancer.report.flow import flow_view
from balancer.sim.results import (
    ResultsFileError,
    read_json_object,
    read_run_meta,
    read_trajectories,
    scan_results,
    summarize_dir,
)
from balancer.sim.rundir import RESULTS_FILE, RUN_FILE, SUMMARY_FILE
from balancer.stats.aggregate import METRIC_PREFIX, without_bonus_rows
from balancer.stats.completion import completion_lines
from balancer.stats.flow import TRAJECTORIES_FILE
from balancer.stats.labels import LABEL_PREFIX, Order, matchup_matrix, win_rate_by_label
from balancer.stats.solo import solo_result

TEMPLATE_NAME = "report.html.j2"
SIGNIFICANCE = 0.05


# --------------------------------------------------------------------------- formatting


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """Fraction -> percent text without the sign: ``0.2634 -> "26.3"``; ``None`` -> ``"–"``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return number_text(100.0 * value, f".{digits}f")


def fmt_num(value: float | None, digits: int = 2) -> str:
    """Number with fixed decimals; ``None``/NaN -> ``"–"``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return number_text(value, f",.{digits}f")


def fmt_count(value: int | float | None) -> str:
    """A count with thousands separators: ``10000 -> "10,000"``; ``None`` -> ``"–"``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}"


def fmt_share(value: float) -> str:
    """Fraction -> short percent text with the sign: ``0.25 -> "25%"``, ``1/3 -> "33.3%"``."""
    text = f"{100.0 * value:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def display_name(game: str, meta: Mapping[str, Any] | None = None) -> str:
    """The game's name as people write it: run.json's ``game_title`` (the game's
    ``GameSpec.display_name``) if recorded, else the registered game's display name (runs made
    before it was recorded), else the registry name with each word capitalised
    (``"urban_sketchers" -> "Urban Sketchers"``)."""
    title = (meta or {}).get("game_title")
    if not (isinstance(title, str) and title.strip()):
        from balancer.games import get_spec

        try:
            title = get_spec(str(game)).display_name
        except (KeyError, ImportError):
            title = None
    if isinstance(title, str) and title.strip():
        return title.strip()
    return " ".join(w[:1].upper() + w[1:] for w in str(game).replace("_", " ").split()) or str(game)


def p_value_text(p: float) -> str:
    """A p-value's digits: ``"0.31"``, ``"0.012"``, ``"< 0.001"``."""
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def fmt_p(p: float | None) -> str:
    """p-value text: ``"p = 0.31"``, ``"p = 0.012"``, ``"p < 0.001"``; ``None`` -> ``"p undefined"``."""
    if p is None:
        return "p undefined"
    text = p_value_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


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


def fmt_points(value: float | None, digits: int = 1) -> str:
    """Difference of two fractions -> signed percentage points: ``0.123 -> "+12.3"``, ``-0.05 -> "−5.0"``,
    a difference that rounds to zero -> ``"0.0"``; ``None`` -> ``"–"``."""
    text = fmt_pct(value, digits)
    if text == "–" or float(text) == 0:
        return text.lstrip("-")
    return "−" + text[1:] if text.startswith("-") else "+" + text


def metric_label(name: str, specs: MetricSpecs | None = None) -> str:
    """How a metric is named on every page (:attr:`balancer.core.metrics.MetricSpec.label`): its
    name or summary key (``"wasted_tiles_per_player"``) -> ``"wasted tiles per player"``, a
    per-game metric ``"turns per game"``. ``specs``: the game's declared metrics; a metric they do
    not declare is named by the results format's convention
    (:func:`balancer.core.metrics.convention_spec`)."""
    return spec_of(name, specs).label


def is_rate_metric(name: str, values: Sequence[float] | None = None, specs: MetricSpecs | None = None) -> bool:
    """True if a metric is a rate or a 0/1 indicator, shown in percent: as ``specs`` declare it;
    an undeclared metric by the convention of :func:`balancer.core.metrics.convention_spec` (named
    ``*_win``, or its per-player ``values`` all 0 or 1)."""
    return spec_of(name, specs, values).is_rate


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
        f"({max(len(seats) - 1, 0)} degree{'' if len(seats) == 2 else 's'} of freedom, {fmt_count(games)} games, shared wins split evenly "
        "between the tied winners)"
    )
    if p is None:
        return f"The seat test is undefined for this run ({test})."
    if p >= SIGNIFICANCE:
        return (
            f"No evidence of a seat effect at this sample size: {fmt_p(p)} in a {test}. "
            "This does not show that the seats are equal: an effect smaller than the intervals "
            "above would go undetected."
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
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def completion_view(summary: Mapping[str, Any], meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the report says of the games a safety stop ended rather than the rules (None when every
    game ended by the rules, or the summary predates ``completion``): the summary's ``completion``
    and its sentences, each stopped game with the ``balancer play`` command that replays it."""
    c = summary.get("completion")
    if not c or not c.get("not_by_rules"):
        return None
    from balancer.core.replay import replay_command

    agents, seed, path = meta.get("agents"), meta.get("seed"), meta.get("config_path")
    replay = (lambda i: replay_command(path, agents, seed, i)) if agents and seed is not None and path else None
    return {**c, "lines": completion_lines(c, replay)}


def describe_agents(agents: Sequence[str] | None, mcts_iterations: Any = None) -> str:
    """``["greedy", "greedy", "random"] -> "2 × greedy, 1 × random"`` (first-appearance order); a
    plain ``mcts`` with the run's budget (``run.json``'s ``mcts_iterations``: ``mcts@60``)."""
    if not agents:
        return "not recorded"
    counts = Counter(agents)
    budget = f"mcts@{mcts_iterations}" if isinstance(mcts_iterations, int) else "mcts"
    return ", ".join(f"{k} × {budget if a == 'mcts' else a}" for a, k in counts.items())


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


def scored_components(components: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """(shown, left out) score categories: a category whose mean is 0 (or missing) in every row of
    ``rows`` (the score by seat: every player of every game) scored nothing in any game, e.g.
    achievements switched off, and is left out of the figures and tables
    (:func:`balancer.report.figures.nonzero_components`)."""
    by_component = {c: [(r.get("components") or {}).get(c) for r in rows] for c in components}
    return figures.nonzero_components(by_component)


def _indicator_context(summary: Mapping[str, Any]) -> tuple[list[dict[str, Any]], Markup | None]:
    """The indicator rows (names through :func:`humanize`) and their forest plot; ``([], None)``
    when the run has no 0/1 per-seat indicator."""
    rows = [{**r, "name": humanize(r["indicator"])} for r in summary.get("indicators") or []]
    if not rows:
        return [], None
    # a filled marker is a difference flagged after Holm's adjustment over the run's indicators
    # (summary.json's ``significant``); a summary written before it has only the intervals, and
    # then an interval that excludes 0 is drawn as flagged, as it was
    marked = [
        {
            **r,
            "significant": r["significant"]
            if r.get("significant") is not None
            else r["ci_low"] > 0 or r["ci_high"] < 0,
        }
        for r in rows
    ]
    chart = figures.difference_chart([("win rate with it minus without it (percentage points)", marked, 100.0)])
    return rows, Markup(chart)


def _mirror_sentence(agents: Sequence[Mapping[str, Any]], fair: float | None) -> str | None:
    """For a mirror table (one distinct agent), the sentence that replaces the agent chart."""
    if len(agents) != 1:
        return None
    agent = agents[0]["agent"]
    share = fmt_share(fair) if fair is not None else "1/n"
    return f"Mirror table: every seat is played by {agent}, so the agent win rate is {share} by construction."


def _matchup_svg(lf: pl.LazyFrame, name: str, values: Sequence[str], confidence: float) -> Markup:
    """Heatmaps of label ``name``'s 2-player match-ups: the row value moving first, and second."""
    panels = []
    orders: tuple[tuple[Order, str], ...] = (("first", "row moves first"), ("second", "row moves second"))
    for order, panel in orders:
        rows = matchup_matrix(lf, name, order, confidence).iter_rows(named=True)
        panels.append((panel, *figures.matrix_panel(values, rows)))
    return Markup(figures.svg_string(figures.matchup_heatmap(values, panels, f"{name}: match-ups")))


def label_sections(
    results: pl.LazyFrame | pl.DataFrame,
    n_players: int,
    confidence: float = 0.95,
    specs: MetricSpecs | None = None,
) -> list[dict]:
    """One section per ``label_<name>`` column of the results: the win rate of each label value.

    A label that differs between the seats of a game (an Urgency deck) gets one row per value,
    ranked by the low end of its interval (best-supported first); with 2 players and 2+ values, also the match-up heatmap. A
    label shared by every seat of a game (an Águeda shop-card pair) gets one row per value with
    each seat's win rate, sorted by value. In a solo game the win is the game's own solo result
    (the metric ``specs`` declare one; a solo seat always "wins" its table); without one there is
    no label section.

    Returns:
        dicts ``{name, per_game, rows, seats, heatmap}``; a row is ``{value, games, rate,
        ci_low, ci_high}`` (per-seat label) or ``{value, games, seats: [{rate, ci_low, ci_high}]}``.
    """
    lf = results.lazy() if isinstance(results, pl.DataFrame) else results
    columns = lf.collect_schema().names()
    names = [c.removeprefix(LABEL_PREFIX) for c in columns if c.startswith(LABEL_PREFIX)]
    if n_players == 1:
        solo = specs.solo_result if specs is not None else None
        if solo is None or METRIC_PREFIX + solo not in columns:
            return []
        lf = lf.with_columns(pl.col(METRIC_PREFIX + solo).cast(pl.Float64).alias("win_share"))
    sections = []
    for name in names:
        column = LABEL_PREFIX + name
        spread = lf.group_by("game_index").agg(pl.col(column).n_unique().alias("k")).select(pl.col("k").max())
        per_game = n_players > 1 and spread.collect().item() == 1
        if per_game:
            df = win_rate_by_label(lf, name, ("seat",), confidence)
            seats = sorted(set(df["seat"].to_list()))
            rows = []
            for (value,), group in df.group_by("value", maintain_order=True):
                by_seat = {r["seat"]: r for r in group.iter_rows(named=True)}
                rows.append(
                    {
                        "value": value,
                        "games": max(r["games"] for r in by_seat.values()),
                        "seats": [by_seat.get(s) for s in seats],
                    }
                )
            values = [r["value"] for r in rows]
        else:
            seats = []
            df = win_rate_by_label(lf, name, (), confidence)
            # by the interval's low end: 3 wins of 3 games (100%, low end 44%) must not lead the table
            rows = sorted(df.iter_rows(named=True), key=lambda r: (-r["ci_low"], -r["rate"], str(r["value"])))
            values = sorted(r["value"] for r in rows)
        heatmap = (
            _matchup_svg(lf, name, values, confidence) if n_players == 2 and not per_game and len(values) >= 2 else None
        )
        sections.append(
            {
                "name": name,
                "label": humanize(name),
                "per_game": per_game,
                "rows": rows,
                "seats": seats,
                "heatmap": heatmap,
            }
        )
    return sections


def _split_note(note: str) -> tuple[str, str]:
    """``"rounds.4: text" -> ("rounds.4", "text")``; a note without a key path -> ``("", note)``."""
    head, sep, tail = note.partition(": ")
    if sep and head and " " not in head:
        return head, tail
    return "", note


def build_context(
    summary: Mapping[str, Any],
    meta: Mapping[str, Any],
    title: str | None = None,
    labels: Sequence[Mapping[str, Any]] = (),
    flow: Mapping[str, Any] | None = None,
) -> dict:
    """Everything the template needs, figures included (as ``Markup`` SVG).

    Args:
        summary: a ``summary.json`` dict as produced by ``balancer.stats.summarize``.
        meta: the run's ``run.json`` dict.
        title: page title; defaults to ``"<Game> <variant>: balance report"``.
        labels: the sections of :func:`label_sections` ("Win rate by <label>").
        flow: the section "How the game feels" (:func:`balancer.report.flow.flow_view`), or None.

    A solo run (1 player) has no seat or agent win rates to show (the one seat always "wins"):
    ``solo`` is True and ``solo_result`` is the game's own result (:func:`solo_result`) or None.
    What the metrics and score categories mean comes from ``meta``'s ``metric_specs``, else from
    the registered game (:func:`balancer.core.registry.metric_specs_of`).
    """
    specs = metric_specs_of(meta)
    n = int(summary.get("n_players") or meta.get("n_players") or len(summary["seat_win_rate"]))
    fair = 1.0 / n if n > 0 else None
    seats = sorted(summary["seat_win_rate"], key=lambda r: r["seat"])
    agents = _order_agents(summary["agent_win_rate"], meta.get("agents"))
    mirror = _mirror_sentence(agents, fair)
    score_agents = _order_agents(summary.get("score_by_agent") or [], meta.get("agents"))
    score_seats = sorted(summary.get("score_by_seat") or [], key=lambda r: r["seat"])
    components, zero_components = scored_components(summary.get("score_components") or [], score_seats)
    no_bonus = sorted(without_bonus_rows(summary, specs), key=lambda r: r["seat"])
    bonus = specs.position_bonus if specs is not None else None
    bonus_by_seat = {r["seat"]: (r.get("components") or {}).get(bonus) for r in score_seats} if bonus else {}
    score_by_seat = {r["seat"]: r.get("mean") for r in score_seats}
    game = summary.get("game") or meta.get("game") or "game"
    variant = summary.get("variant") or meta.get("variant") or "variant"
    sha = meta.get("config_sha256") or ""
    versions = meta.get("versions") or {}
    indicators, indicator_chart = _indicator_context(summary)
    return {
        "title": title or f"{display_name(game, meta)} {variant}: balance report",
        "game": game,
        "game_title": display_name(game, meta),
        "variant": variant,
        "n_players": n,
        "solo": n == 1,
        "solo_result": solo_result(summary, specs) if n == 1 else None,
        "labels": list(labels),
        "games": summary.get("games"),
        "rows": summary.get("rows"),
        "seed": summary.get("seed", meta.get("seed")),
        "fair_share": fair,
        "seats": seats,
        "agents": agents,
        "mirror": mirror,
        "seat_chart": _win_chart(seats, "seat", fair),
        "agent_chart": None if mirror else _win_chart(agents, "agent", fair),
        "seat_test": describe_seat_uniformity(summary),
        "seat_uniformity_p": summary.get("seat_uniformity_p"),
        "no_bonus": [
            {**r, "score": score_by_seat.get(r["seat"]), "bonus": bonus_by_seat.get(r["seat"])} for r in no_bonus
        ],
        "components": components,
        "zero_components": [humanize(c) for c in zero_components],
        "score_agents": score_agents,
        "score_seats": score_seats,
        "score_agent_chart": (_score_chart(score_agents, "agent", components) if score_agents and not mirror else None),
        "score_seat_chart": _score_chart(score_seats, "seat", components) if score_seats else None,
        "metrics": [
            {**values, "name": metric_label(name, specs)} for name, values in (summary.get("metrics") or {}).items()
        ],
        "metric_interval": _metric_interval(summary.get("games")),
        "indicators": indicators,
        "indicator_chart": indicator_chart,
        "indicator_multiplicity": summary.get("indicator_multiplicity"),
        "completion": completion_view(summary, meta),
        "tied_share": summary.get("tied_games_share"),
        "tied_games": summary.get("tied_games"),
        "tied_low": summary.get("tied_games_ci_low"),
        "tied_high": summary.get("tied_games_ci_high"),
        "config_path": meta.get("config_path"),
        "config_sha": sha[:12],
        "assumed": [_split_note(str(a)) for a in (meta.get("assumed") or [])],
        "agents_desc": describe_agents(meta.get("agents"), meta.get("mcts_iterations")),
        "seat_design": describe_seat_design(meta.get("seat_design")),
        "table_note": meta.get("table_note"),
        "games_planned": meta.get("games"),
        "jobs": meta.get("jobs"),
        "started": meta.get("started"),
        "elapsed": fmt_duration(meta.get("elapsed_seconds")),
        "versions": sorted(versions.items()),
        "command": meta.get("command"),
        "confidence": summary.get("confidence", 0.95),
        "flow": flow,
    }


def environment() -> Environment:
    """The jinja2 environment of the run and comparison pages: the report templates, autoescape on,
    strict undefined, and the number filters (``pct``, ``num``, ``count``, ``pvalue``, ``points``)."""
    return pages.environment(pct=fmt_pct, num=fmt_num, count=fmt_count, pvalue=fmt_p, points=fmt_points)


def render_html(
    summary: Mapping[str, Any],
    meta: Mapping[str, Any],
    title: str | None = None,
    labels: Sequence[Mapping[str, Any]] = (),
    flow: Mapping[str, Any] | None = None,
) -> str:
    """Render the report page to a string (for notebooks: ``IPython.display.HTML(...)``)."""
    context = build_context(summary, meta, title, labels, flow)
    return environment().get_template(TEMPLATE_NAME).render(**context)


# --------------------------------------------------------------------------- reading a run


_META_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "game": ((str,), "a string"),
    "game_title": ((str,), "a string"),
    "variant": ((str,), "a string"),
    "config_path": ((str,), "a string"),
    "config_sha256": ((str,), "a string"),
    "n_players": ((int,), "an integer"),
    "agents": ((list,), "a list of agent names"),
    "seat_design": ((str,), "a string"),
    "table_note": ((str,), "a string"),
    "games": ((int,), "an integer"),
    "seed": ((int,), "an integer"),
    "jobs": ((int,), "an integer"),
    "chunk_size": ((int,), "an integer"),
    "started": ((str,), "a string"),
    "elapsed_seconds": ((int, float), "a number"),
    "warmup_seconds": ((int, float), "a number"),
    "versions": ((dict,), "an object"),
    "command": ((str,), "a string"),
    "assumed": ((list,), "a list of strings"),
    "metric_specs": ((dict,), "an object"),
}


def check_run_meta(meta: Mapping[str, Any], path: Path | str) -> None:
    """Raise ResultsFileError naming ``path`` and the key if a known ``run.json`` key has the
    wrong type (``null`` is allowed for every key)."""
    for key, (types, what) in _META_TYPES.items():
        value = meta.get(key)
        if value is None:
            continue
        ok = isinstance(value, types) and not isinstance(value, bool)
        if ok and key in ("agents", "assumed"):
            ok = all(isinstance(v, str) for v in value)
        if ok and key == "versions":
            ok = all(isinstance(v, (str, int, float)) for v in value.values())
        if ok and key == "metric_specs":
            try:
                MetricSpecs.from_json(value)
            except ValueError as exc:
                raise ResultsFileError(f"{path}: {exc}") from None
        if not ok:
            raise ResultsFileError(f"{path}: {key}: expected {what}, got {value!r:.60}")


def _trajectory_games(summary: Mapping[str, Any]) -> tuple[int, int] | None:
    """(games with a trajectory, games without) of a summary's ``flow.trajectory``, or None when it has
    none (a run without trajectories, or a summary.json whose ``flow`` is not the expected mapping)."""
    flow = summary.get("flow")
    t = flow.get("trajectory") if isinstance(flow, Mapping) else None
    if not isinstance(t, Mapping):
        return None
    games, without = t.get("games"), t.get("without_trajectory")
    if not isinstance(games, int) or not isinstance(without, int):
        return None
    return games, without


def _check_stored_summary(stored: Mapping[str, Any], fresh: Mapping[str, Any], path: Path, results: str) -> None:
    """Raise ResultsFileError naming ``path`` if a stored summary.json disagrees with the one
    computed from the results (it is stale, or was edited)."""
    for key in ("games", "rows", "n_players", "seed"):
        if key in stored and stored[key] != fresh.get(key):
            raise ResultsFileError(
                f"{path}: out of date: it says {key} = {stored[key]!r} but {results} gives {fresh.get(key)!r}; "
                "delete it (the report recomputes it) or rerun 'balancer run'"
            )
    stored_t, fresh_t = _trajectory_games(stored), _trajectory_games(fresh)
    if stored_t is not None and fresh_t is not None and stored_t != fresh_t:
        # trajectories.parquet edited or cut after the run (it holds fewer games, or none): the page would
        # show other numbers than summary.json without a word
        raise ResultsFileError(
            f"{path}: out of date: it says flow.trajectory.games = {stored_t[0]} (of {sum(stored_t)} games) but "
            f"{Path(results).parent / TRAJECTORIES_FILE} gives {fresh_t[0]} (of {sum(fresh_t)}); delete it "
            "(the report recomputes it) or rerun 'balancer run'"
        )
    rates = stored.get("seat_win_rate")
    if rates is None:
        return
    fresh_rates = {r["seat"]: r["rate"] for r in fresh["seat_win_rate"]}
    try:
        stored_rates = {r["seat"]: float(r["rate"]) for r in rates}
    except (TypeError, KeyError, ValueError):
        raise ResultsFileError(f"{path}: seat_win_rate: expected a list of {{seat, rate}} objects") from None
    if set(stored_rates) != set(fresh_rates) or any(abs(stored_rates[s] - fresh_rates[s]) > 1e-9 for s in fresh_rates):
        raise ResultsFileError(
            f"{path}: out of date: its seat win rates differ from those of {results}; "
            "delete it (the report recomputes it) or rerun 'balancer run'"
        )


def _load_summary(results_dir: Path, meta: dict) -> dict:
    """The summary computed from the results (never trusting summary.json); a stored
    summary.json is checked against it (ResultsFileError if corrupt or stale) and written when
    missing."""
    summary = summarize_dir(results_dir, meta)
    path = results_dir / SUMMARY_FILE
    results = str(results_dir / RESULTS_FILE)
    refuse_foreign(path)  # a link planted as summary.json is neither read nor written through
    if path.exists():
        _check_stored_summary(read_json_object(path), summary, path, results)
        return summary
    try:  # a cache for 'balancer check' and friends; a read-only results directory is fine
        write_atomic(path, json.dumps(summary, indent=2, allow_nan=False) + "\n")
    except OSError:
        pass
    return summary


class ReportOutputError(OSError):
    """The report cannot be written to the path asked for; ``str()`` starts with that path."""


def check_report_target(out_html: Path | str) -> None:
    """Raise ReportOutputError if ``out_html`` is a directory, lies under a file, or its nearest
    existing directory is not writable. Creates nothing."""
    out_html = Path(out_html)
    if out_html.is_dir():
        raise ReportOutputError(f"{out_html}: is a directory; give the path of an HTML file")
    if out_html.exists() and not out_html.is_file():
        raise ReportOutputError(f"{out_html}: exists and is not a regular file")
    ancestor = out_html.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ReportOutputError(f"{out_html}: cannot be created: {ancestor} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ReportOutputError(f"{out_html}: cannot be created: {ancestor} is not writable")


def write_atomically(out_html: Path, text: str) -> None:
    """Write ``text`` to ``out_html`` via a temporary sibling; on failure nothing is left behind
    (neither the file nor directories created for it)."""
    out_html = normalised(out_html)  # out/a/../X creates no out/a
    created = []
    for parent in reversed(out_html.absolute().parents):
        if not parent.exists():
            created.append(parent)
    try:
        for d in created:
            d.mkdir()
        write_atomic(out_html, text)  # a new temporary file (O_EXCL, O_NOFOLLOW); a link at out_html refused
    except BaseException as exc:
        for d in reversed(created):
            try:
                d.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError) and not isinstance(exc, ReportOutputError | UnsafeOutputError):
            raise ReportOutputError(f"{out_html}: cannot be written ({exc.strerror or exc})") from None
        raise


def render_report(results_dir: Path, out_html: Path, title: str | None = None, source: str | None = None) -> Path:
    """Write the self-contained HTML report of one results directory.

    Reads ``run.json`` and ``results.parquet`` and computes the summary from the results (a
    stored ``summary.json`` is only checked against it, and written if missing). Parent
    directories of ``out_html`` are created; the file is written atomically, so on any error
    nothing is left behind.

    Args:
        results_dir: directory holding ``results.parquet`` and ``run.json``.
        out_html: path of the HTML file to write (overwritten if it exists).
        title: page title; defaults to game and variant.
        source: the record of the results folder the page is made from (a digest,
            :func:`balancer.naming.mark_page`), kept in the page's head when given.

    Returns:
        ``out_html``.

    Raises:
        FileNotFoundError: naming ``results.parquet`` or ``run.json`` if either is missing.
        ResultsFileError (a ValueError): naming the file, if ``run.json``, ``summary.json`` or the
            Parquet results are unreadable, corrupt, of the wrong shape or inconsistent.
        ReportOutputError (an OSError): naming ``out_html``, if it is a directory, lies under a
            file, or cannot be written.
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
    check_report_target(out_html)
    meta = read_run_meta(results_dir)
    check_run_meta(meta, results_dir / RUN_FILE)
    summary = _load_summary(results_dir, meta)
    n = int(summary.get("n_players") or meta.get("n_players") or 0)
    confidence = float(summary.get("confidence", 0.95))
    labels = label_sections(scan_results(results_dir), n, confidence, metric_specs_of(meta))
    trajectories = read_trajectories(results_dir)
    flow = flow_view(
        scan_results(results_dir),
        trajectories,
        n,
        confidence,
        str(parquet),
        str(results_dir / TRAJECTORIES_FILE),
        checkpoint=str(meta.get("checkpoint") or "round"),  # run.json: what ends a checkpoint in this game
        no_flow=meta.get("flow") is False,  # run.json: played with --no-flow
        why_none=str(meta.get("no_trajectories") or ""),  # run.json: why a run with flow on kept none
    )
    html = render_html(summary, meta, title, labels, flow)
    if source is not None:
        from balancer.naming import mark_page

        html = mark_page(html, source)
    write_atomically(out_html, html)
    return out_html


def _metric_interval(games: Any) -> str:
    """What the play metrics' intervals are at this many games (:func:`balancer.stats.aggregate.summary_of`):
    the studentized bootstrap over games from ``MIN_GAMES`` to ``MAX_GAMES`` games, else the t interval."""
    from balancer.stats import bootstrap

    if isinstance(games, int) and bootstrap.MIN_GAMES <= games <= bootstrap.MAX_GAMES:
        return "studentized bootstrap intervals over games (a t interval for a metric nearly every game gives alike)"
    return "t intervals"
