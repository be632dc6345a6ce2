"""One self-contained HTML page comparing two rule variants (``balancer compare``).

Reads ``comparison.json`` written by :func:`balancer.compare.play_comparison` and renders
``templates/compare.html.j2`` with jinja2 autoescape on: every name from data (config paths,
variants, agents, metric names) is escaped; only the SVG figure made here is marked safe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from balancer.core.metrics import MetricSpecs, humanize, spec_of
from balancer.core.registry import metric_specs_of
from balancer.limits import read_json_bounded
from balancer.numtext import number_text
from balancer.outdir import normalised, write_atomic
from balancer.report.figures import difference_chart, is_missing
from balancer.report.pages import fmt_scaled
from balancer.report.render import display_name, environment, metric_label, p_value_text
from balancer.sim.rundir import COMPARISON_FILE, SUMMARY_FILE, RunDir

TEMPLATE_NAME = "compare.html.j2"
FLAG = "◆"
# section key in comparison.json -> (heading, unit shown, scale applied to values)
SECTIONS: tuple[tuple[str, str, str, float], ...] = (
    ("seat_win_rate", "Seat win rates", "%", 100.0),
    ("agent_win_rate", "Agent win rates", "%", 100.0),
    ("score", "Points per player", "points", 1.0),
    ("metrics", "Metrics", "", 1.0),
    ("flow", "How the game feels", "", 1.0),
)
AB_COLOURS = ("#999999", "#0072B2")
"""A grey and B blue, in every figure of a comparison page that draws both variants."""
FLOW_UNITS = {"share": "%", "share of the game": "% of the game"}
"""A flow row's unit (:data:`balancer.stats.flow.FLOW_ROWS`) shown in percent: the row scaled by 100."""


def _flow_rows(section: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the flow section, each in its own unit: shares in percent (differences in
    percentage points), margin in points, length in turns, lead changes per game."""
    out = []
    for r in section:
        unit = str(r.get("unit") or "")
        scale = 100.0 if unit in FLOW_UNITS else 1.0
        row = _rows([r], unit, scale)[0]
        row["name"] = f"{humanize(r['name'])} ({FLOW_UNITS.get(unit, unit)})" if unit else humanize(r["name"])
        out.append(row)
    return out


# --------------------------------------------------------------------------- formatting


def fmt_value(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    """``0.2634, scale 100, digits 1 -> "26.3"``; ``None`` -> ``"–"`` (:func:`balancer.report.pages.fmt_scaled`)."""
    return fmt_scaled(value, scale, digits)


def fmt_diff(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    """Signed difference: ``"+2.50"``, ``"−0.10"``, ``"0"`` for an exact zero; ``None`` -> ``"–"``."""
    if value is None or is_missing(value):
        return "–"
    v = scale * value
    if v == 0:
        return "0"
    return number_text(v, f"+,.{digits}f").replace("-", "−")


def p_cell(p: float | None) -> str:
    """A table cell's p-value: :func:`balancer.report.render.p_value_text`; ``None`` or NaN -> ``"–"``."""
    return "–" if p is None or is_missing(p) else p_value_text(p)


# --------------------------------------------------------------------------- seats


def seat_moves_sentence(rows: Sequence[Mapping[str, Any]], variant_a: str, variant_b: str) -> str:
    """Which seat moved, in words, from the seat rows of a comparison (``seat``, ``from``, ``to``,
    ``difference`` as fractions; ``significant``: flagged after Holm's adjustment over the family,
    :func:`balancer.stats.paired.adjust_family`). ``""`` when there are no seat rows.

    ``"Seat 1 moved up 3.0 percentage points (24.0% → 27.0%) from v1.1 to v1.2; the other seats
    did not move detectably."``"""
    rows = [r for r in rows if not is_missing(r.get("difference"))]
    if not rows:
        return ""
    moved = [r for r in rows if r.get("significant")]
    if not moved:
        return (
            f"No seat's win rate moved detectably from {variant_a} to {variant_b}: no seat's difference "
            "is flagged after Holm's adjustment."
        )
    parts = [
        f"{_seat_name(r)} moved {'up' if r['difference'] > 0 else 'down'} "
        f"{fmt_value(abs(r['difference']), 100.0, 1)} percentage points "
        f"({fmt_value(r.get('from'), 100.0, 1)}% → {fmt_value(r.get('to'), 100.0, 1)}%)"
        for r in moved
    ]
    text = "; ".join(parts)
    text = text[:1].upper() + text[1:] + f" from {variant_a} to {variant_b}"
    rest = len(rows) - len(moved)
    if rest:
        text += f"; the other seat{'s' if rest > 1 else ''} did not move detectably"
    return text + "."


def _seat_name(row: Mapping[str, Any]) -> str:
    """``"seat 2"``: a seat row's ``name``, else its ``seat`` number."""
    return str(row.get("name") or f"seat {row.get('seat')}")


def _seat_number(row: Mapping[str, Any]) -> int | None:
    """A seat row's ``seat``, else the number in its name ``"seat 2"``; None if neither."""
    seat = row.get("seat")
    if isinstance(seat, int):
        return seat
    name = str(row.get("name", ""))
    return int(name[5:]) if name.startswith("seat ") and name[5:].isdigit() else None


def _summary_seats(summary: Mapping[str, Any] | None) -> dict[int, Mapping[str, Any]]:
    """Seat -> ``{rate, ci_low, ci_high}`` of a run's summary.json (empty when missing or malformed)."""
    out: dict[int, Mapping[str, Any]] = {}
    for r in (summary or {}).get("seat_win_rate") or []:
        if isinstance(r, Mapping) and isinstance(r.get("seat"), int) and isinstance(r.get("rate"), (int, float)):
            out[r["seat"]] = r
    return out


def seat_rates_chart(
    rows: Sequence[Mapping[str, Any]],
    variant_a: str,
    variant_b: str,
    n_players: int | None,
    summaries: Mapping[str, Mapping[str, Any] | None] | None = None,
) -> str:
    """Both variants' seat win rates side by side (A grey, B blue) as inline SVG: the comparison's
    ``from`` and ``to`` with the Wilson intervals of each side's ``summary.json`` (``summaries``:
    ``{"a": ..., "b": ...}``) where given, the fair share dashed."""
    from balancer.report.figures import grouped_bars, svg_string

    rows = [{**r, "seat": _seat_number(r)} for r in rows]
    rows = [r for r in rows if r["seat"] is not None]
    series = []
    for side, key, label in (("a", "from", variant_a), ("b", "to", variant_b)):
        known = _summary_seats((summaries or {}).get(side))
        vals = [float(r[key]) if not is_missing(r.get(key)) else float("nan") for r in rows]
        lows = [float(known[r["seat"]]["ci_low"]) if r["seat"] in known else v for r, v in zip(rows, vals)]
        highs = [float(known[r["seat"]]["ci_high"]) if r["seat"] in known else v for r, v in zip(rows, vals)]
        series.append((label, vals, lows, highs))
    fig = grouped_bars(
        [f"seat {r['seat']}" for r in rows],
        series,
        ylabel="win rate (%)",
        title="Seat win rates of both variants",
        scale=100.0,
        fair=1.0 / n_players if n_players else None,
        colours=AB_COLOURS,
    )
    return svg_string(fig)


# --------------------------------------------------------------------------- fairness headline


def fairness_sentence(head: Mapping[str, Any] | None, variant_a: str, variant_b: str) -> str:
    """The comparison's answer to "is B fairer?" in one sentence, from its ``fairness`` headline
    (:func:`balancer.stats.fairness.seat_spread_headline`, verdict after Holm: :func:`balancer.compare.holm_page`):

    ``"Seat spread (best minus worst seat's win rate): v1.0 12.0 points (seat 1 31.0%, seat 4 19.0%),
    v1.1 5.0 points; change -7.0 points (-9.1 to -4.9), adjusted p 0.001: v1.1 is fairer."``
    ``""`` without a headline."""
    if not head or is_missing(head.get("difference")):
        return ""
    if len(head.get("rates_a") or {}) <= 1:  # solo: one seat has no spread to be fairer about
        return "Solo games: one seat, so no seat spread and no fairer variant; the scores below say what changed."

    def ends(side: str) -> str:
        rates = head.get(f"rates_{side}") or {}
        best, worst = str(head.get(f"best_{side}")), str(head.get(f"worst_{side}"))
        if best not in rates or worst not in rates or best == worst:
            return ""
        return f" (seat {best} {fmt_value(rates[best], 100.0, 1)}%, seat {worst} {fmt_value(rates[worst], 100.0, 1)}%)"

    verdict = head.get("verdict")
    answer = (
        f"{variant_b} is fairer"
        if verdict == "fairer"
        else f"{variant_b} is less fair"
        if verdict == "less fair"
        else "cannot tell which is fairer"
    )
    return (
        f"Seat spread (best minus worst seat's win rate): {variant_a} {fmt_value(head['spread_a'], 100.0, 1)} points"
        f"{ends('a')}, {variant_b} {fmt_value(head['spread_b'], 100.0, 1)} points{ends('b')}; change "
        f"{fmt_diff(head['difference'], 100.0, 1)} points ({fmt_diff(head['ci_low'], 100.0, 1)} to "
        f"{fmt_diff(head['ci_high'], 100.0, 1)}), adjusted p {p_cell(head.get('p_adjusted'))}: {answer}."
    )


# --------------------------------------------------------------------------- context


def with_budget(agent: str, iterations: Mapping[str, Any] | None) -> str:
    """A plain ``mcts`` with the variants' budget (``mcts@60``; ``mcts@60 / mcts@100`` when A and B
    differ); any other name, or ``mcts@N`` that names its own, as it is."""
    budgets = [v for v in dict.fromkeys((iterations or {}).values()) if isinstance(v, int)]
    if agent != "mcts" or not budgets:
        return agent
    return " / ".join(f"mcts@{b}" for b in budgets)


def _rows(
    section: Sequence[Mapping[str, Any]],
    unit: str,
    scale: float,
    metrics: bool = False,
    specs: MetricSpecs | None = None,
) -> list[dict[str, Any]]:
    """Table rows of one section; a metric is named by :func:`balancer.report.render.metric_label`
    as the game's ``specs`` declare it (``"turns per player"``, ``"turns per game"``)."""
    digits = 1 if scale == 100.0 else 2
    out = []
    for r in section:
        out.append(
            {
                "name": metric_label(r["name"], specs) if metrics else humanize(r["name"]),
                "from": fmt_value(r.get("from"), scale, digits),
                "to": fmt_value(r.get("to"), scale, digits),
                "difference": fmt_diff(r.get("difference"), scale, digits),
                "ci": (
                    "–"
                    if is_missing(r.get("ci_low")) or is_missing(r.get("ci_high"))
                    else f"{fmt_diff(r['ci_low'], scale, digits)} to {fmt_diff(r['ci_high'], scale, digits)}"
                ),
                "p": p_cell(r.get("p_value")),
                "p_adjusted": p_cell(r.get("p_adjusted")),
                "test": r.get("test") or "",
                "significant": bool(r.get("significant")),
                "mechanical": bool(r.get("mechanical")),
                "direction": ("up" if (r.get("difference") or 0) > 0 else "down") if r.get("significant") else "",
                "n": r.get("n"),
            }
        )
    return out


def leader_chart(
    c: Mapping[str, Any], summaries: Mapping[str, Mapping[str, Any] | None] | None, variant_a: str, variant_b: str
) -> Markup | None:
    """The leader-wins curves of A and B overlaid, with their paired difference per checkpoint below
    (issue 49), when both runs recorded trajectories (each summary's ``flow.trajectory``) and the
    comparison paired them (``leader_wins_curve``); else None."""
    from balancer.report.figures import svg_string
    from balancer.report.figures.flow import leader_wins_figure

    difference = c.get("leader_wins_curve") or []
    curves = []
    for side, name in (("a", variant_a), ("b", variant_b)):
        trajectory = (((summaries or {}).get(side) or {}).get("flow") or {}).get("trajectory") or {}
        curves.append((f"{side.upper()}: {name}", trajectory.get("leader_wins") or []))
    if not difference or not all(points for _, points in curves):
        return None
    n = c.get("n_players")
    fair = 1.0 / n if isinstance(n, int) and n > 0 else None
    unit = str(c.get("checkpoint") or "round")
    return Markup(
        svg_string(
            leader_wins_figure(
                curves,
                fair_share=fair,
                difference=difference,
                checkpoint=unit,
                drawn_before=thin_from(curves),
                colours=AB_COLOURS,  # as in the seat win rates of both variants above
            )
        )
    )


def thin_from(curves: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> int | None:
    """The first checkpoint (0-based) that fewer than ``MIN_CURVE_GAMES`` games of A or B reach: the
    leader-wins figure stops before it (:func:`balancer.report.figures.flow.first_thin_checkpoint`)."""
    from balancer.report.figures.flow import MIN_CURVE_GAMES, first_thin_checkpoint

    return first_thin_checkpoint([points for _, points in curves], MIN_CURVE_GAMES)


def _curves(summaries: Mapping[str, Mapping[str, Any] | None] | None) -> list[tuple[str, Sequence[Any]]]:
    return [
        (
            side,
            ((((summaries or {}).get(side) or {}).get("flow") or {}).get("trajectory") or {}).get("leader_wins") or [],
        )
        for side in "ab"
    ]


def _min_curve_games() -> int:
    from balancer.report.figures.flow import MIN_CURVE_GAMES

    return MIN_CURVE_GAMES


def build_context(
    comparison: Mapping[str, Any], summaries: Mapping[str, Mapping[str, Any] | None] | None = None
) -> dict[str, Any]:
    """Everything ``compare.html.j2`` needs, from a ``comparison.json`` dict (figures as ``Markup``);
    ``summaries``: the two runs' ``summary.json`` (``{"a": ..., "b": ...}``) for the seat win rates'
    intervals."""
    c = comparison
    specs = metric_specs_of({"game": c.get("game")})
    sections = []
    panels = []
    for key, heading, unit, scale in SECTIONS:
        rows = c.get(key) or []
        if not rows:
            continue
        diff_unit = "percentage points" if scale == 100.0 else (unit or "the metric's own unit")
        if key == "flow":
            diff_unit = "the row's own unit (percentage points for a share)"
        sections.append(
            {
                "key": key,
                "heading": heading,
                "unit": unit,
                "diff_unit": diff_unit,
                "rows": (
                    _flow_rows(rows)
                    if key == "flow"
                    else _rows(rows, unit, scale, metrics=key == "metrics", specs=specs)
                ),
            }
        )
        if key == "metrics":
            rows = [{**r, "key": r["name"], "name": metric_label(r["name"], specs)} for r in rows]
        # nothing to draw: a quantity equal in every game (0 in both: a metric never counted,
        # achievements off), or the rule change's own points (in the table, marked "rule")
        rows = [r for r in rows if not r.get("identical") and not r.get("mechanical")]
        if key == "metrics":  # one panel per unit: tiles and percentages never share an axis
            by_unit: dict[str, list[Mapping[str, Any]]] = {}
            for r in rows:
                spec = spec_of(str(r.get("key", r["name"])), specs)
                by_unit.setdefault("percentage points" if spec.is_rate else spec.unit or "", []).append(r)
            for unit_name, group in by_unit.items():
                panel_scale = 100.0 if unit_name == "percentage points" else 1.0
                panels.append((f"{heading} (difference in {unit_name or diff_unit})", group, panel_scale))
        elif key == "flow":  # one panel per unit, shares in percentage points
            flow_units: dict[str, list[Mapping[str, Any]]] = {}
            for r in rows:
                flow_units.setdefault(str(r.get("unit") or ""), []).append({**r, "name": humanize(r["name"])})
            for unit_name, group in flow_units.items():
                shown = "percentage points" if unit_name in FLOW_UNITS else unit_name or diff_unit
                if unit_name.startswith("per ") and len(group) == 1:  # "lead changes per game", not "per game"
                    shown = f"{group[0]['name']} {unit_name}"
                panels.append((f"{heading} (difference in {shown})", group, 100.0 if unit_name in FLOW_UNITS else 1.0))
        elif rows:
            panels.append((f"{heading} (difference in {diff_unit})", rows, scale))
    all_rows = [r for key, *_ in SECTIONS for r in (c.get(key) or [])]
    seat_rows = [r for r in c.get("seat_win_rate") or [] if isinstance(r, Mapping)]
    variant_a, variant_b = c.get("variant_a", "A"), c.get("variant_b", "B")
    tests = sorted({r.get("test") for r in all_rows if r.get("test")})
    confidence = float(c.get("confidence") or 0.95)
    thin = thin_from(_curves(summaries)) if c.get("leader_wins_curve") else None
    return {
        "title": f"{display_name(str(c.get('game', 'game')))}: {c.get('variant_a', 'A')} → {c.get('variant_b', 'B')}",
        "game": c.get("game"),
        "game_title": display_name(str(c.get("game", "game"))),
        "config_a": c.get("config_a"),
        "config_b": c.get("config_b"),
        "variant_a": c.get("variant_a"),
        "variant_b": c.get("variant_b"),
        "sha_a": (c.get("config_sha256_a") or "")[:12],
        "sha_b": (c.get("config_sha256_b") or "")[:12],
        "same_rules": c.get("same_rules"),
        "n_players": c.get("n_players"),
        "agents": (
            with_budget(str((c.get("agents") or [""])[0]), c.get("mcts_iterations"))
            if len(set(c.get("agents") or [])) <= 1
            else ", ".join(with_budget(str(a), c.get("mcts_iterations")) for a in c.get("agents") or [])
        ),
        "agents_heading": "agents" if len(set(c.get("agents") or [])) <= 1 else "agents (rotated over seats)",
        "games": c.get("games"),
        "seed": c.get("seed"),
        "confidence_pct": int(round(100 * confidence)),
        "paired": bool(c.get("paired")),
        "pairing": c.get("pairing") or "",
        "games_paired": c.get("games_paired"),
        "outcome_changed": c.get("outcome_changed_games"),
        "turns_changed": c.get("turns_changed_games"),
        "identical": bool(c.get("identical")),
        "n_significant": sum(1 for r in all_rows if r.get("significant")),
        "mechanical": [humanize(r["name"]) for r in all_rows if r.get("mechanical")],
        "fairness": c.get("fairness"),
        "fairness_sentence": fairness_sentence(c.get("fairness"), str(variant_a), str(variant_b)),
        "family_size": (c.get("multiplicity") or {}).get("family_size", len(all_rows)),
        "alpha_text": f"{1 - confidence:g}",
        "n_rows": sum(1 for r in all_rows if not r.get("mechanical")),
        "sections": sections,
        "tests": tests,
        "flag": FLAG,
        # no panel (identical in every game, or only the rule change's own points moved): said in
        # words on the page instead of an empty "nothing to compare" figure
        "chart": Markup(difference_chart(panels)) if panels else None,
        "seat_chart": (
            Markup(seat_rates_chart(seat_rows, str(variant_a), str(variant_b), c.get("n_players"), summaries))
            if seat_rows
            else None
        ),
        "seat_sentence": seat_moves_sentence(seat_rows, str(variant_a), str(variant_b)),
        "leader_chart": leader_chart(c, summaries, str(variant_a), str(variant_b)),
        "checkpoint": str(c.get("checkpoint") or "round"),
        "thin_from": None if thin is None else thin + 1,  # numbered from 1, as on the figure's axis
        "min_curve_games": _min_curve_games(),
        # the runs that kept no trajectories.parquet (comparison.json's flow_trajectories): named on the page
        "without_trajectories": [
            f"{side.upper()} ({c.get(f'variant_{side}', side.upper())}, folder {c.get(f'run_{side}', '')})"
            for side in "ab"
            if (c.get("flow_trajectories") or {}).get(side) is False
        ],
        "command": c.get("command") or "",
        "only_in_a": c.get("only_in_a") or [],
        "only_in_b": c.get("only_in_b") or [],
    }


def build_many_context(page: Mapping[str, Any]) -> dict[str, Any]:
    """Everything ``compare_many.html.j2`` needs from the ``comparison.json`` of several variants
    (:func:`balancer.compare.play_comparisons`): the ranking by the fairness headline, a chart of the
    spread changes, and per variant its headline sentence and its flagged rows."""
    comparisons = list(page.get("comparisons") or [])
    confidence = float(page.get("confidence") or 0.95)
    variant_a = str(page.get("variant_a", "A"))
    specs = metric_specs_of({"game": page.get("game")})
    variants = []
    for i, c in enumerate(comparisons):
        head = c.get("fairness") or {}
        rows = []
        for key, _, unit, scale in SECTIONS:
            flagged = [r for r in c.get(key) or [] if r.get("significant")]
            rows += _flow_rows(flagged) if key == "flow" else _rows(flagged, unit, scale, key == "metrics", specs)
        all_rows = [r for key, *_ in SECTIONS for r in (c.get(key) or [])]
        variant_b = str(c.get("variant_b", "B"))
        variants.append(
            {
                "index": i,
                "variant": variant_b,
                "config": c.get("config_b"),
                "file": f"comparison-{c.get('run_b')}.json",
                "sentence": fairness_sentence(head, variant_a, variant_b),
                "seat_sentence": seat_moves_sentence(c.get("seat_win_rate") or [], variant_a, variant_b),
                "flagged": rows,
                "n_flagged": len(rows),
                "n_rows": sum(1 for r in all_rows if not r.get("mechanical")),
                "mechanical": [humanize(r["name"]) for r in all_rows if r.get("mechanical")],
                "spread_a": fmt_value(head.get("spread_a"), 100.0, 1),
                "spread_b": fmt_value(head.get("spread_b"), 100.0, 1),
                "change": fmt_diff(head.get("difference"), 100.0, 1),
                "ci": f"{fmt_diff(head.get('ci_low'), 100.0, 1)} to {fmt_diff(head.get('ci_high'), 100.0, 1)}",
                "p_adjusted": p_cell(head.get("p_adjusted")),
                "verdict": head.get("verdict", "–"),
                "head": {**head, "name": variant_b},
            }
        )
    ranking = [i for i in page.get("ranking") or range(len(variants)) if 0 <= i < len(variants)]
    ranked = [variants[i] for i in ranking]
    agents = list(page.get("agents") or [])
    return {
        "title": f"{display_name(str(page.get('game', 'game')))}: {variant_a} against {len(variants)} what-ifs",
        "game_title": display_name(str(page.get("game", "game"))),
        "config_a": page.get("config_a"),
        "variant_a": variant_a,
        "n_players": page.get("n_players"),
        "agents": agents[0] if len(set(agents)) == 1 else ", ".join(agents),
        "agents_heading": "agents" if len(set(agents)) == 1 else "agents (rotated over seats)",
        "games": page.get("games"),
        "seed": page.get("seed"),
        "confidence_pct": int(round(100 * confidence)),
        "family_size": (page.get("multiplicity") or {}).get("family_size", 0),
        "flag": FLAG,
        "variants": variants,
        "ranked": ranked,
        "chart": Markup(
            difference_chart([("Change of seat spread (percentage points)", [v["head"] for v in ranked], 100.0)])
        ),
        "command": page.get("command") or "",
    }


def render_comparison_html(
    comparison: Mapping[str, Any], summaries: Mapping[str, Mapping[str, Any] | None] | None = None
) -> str:
    """Render the comparison page to a string (``summaries``: see :func:`build_context`); the page of
    several variants (a ``comparisons`` list) when the dict holds one."""
    if "comparisons" in comparison:
        return environment().get_template("compare_many.html.j2").render(**build_many_context(comparison))
    return environment().get_template(TEMPLATE_NAME).render(**build_context(comparison, summaries))


def run_summaries(out_dir: Path, comparison: Mapping[str, Any]) -> dict[str, Mapping[str, Any] | None]:
    """The ``summary.json`` of both runs of a comparison (``run_a``, ``run_b`` under ``out_dir``):
    ``{"a": ..., "b": ...}``, None for a side whose summary is missing or unreadable (its seat win
    rates are then drawn without intervals)."""
    out: dict[str, Mapping[str, Any] | None] = {}
    for side in ("a", "b"):
        name = comparison.get(f"run_{side}")
        path = RunDir(Path(out_dir) / str(name)).summary_file
        try:
            data = read_json_bounded(path, SUMMARY_FILE) if isinstance(name, str) and path.is_file() else None
        except (OSError, ValueError):
            data = None
        out[side] = data if isinstance(data, dict) else None
    return out


def render_comparison(out_dir: Path, html: Path, source: str | None = None) -> Path:
    """Write the self-contained HTML comparison of ``out_dir/comparison.json`` to ``html``.

    Parent directories of ``html`` are created; an existing file is overwritten (the caller decides
    whether it may be: :func:`balancer.naming.check_page`). ``source``: the digest of ``out_dir``
    the page records (:func:`balancer.naming.mark_page`), as a run's page does. Returns ``html``.

    Raises:
        FileNotFoundError: if ``out_dir/comparison.json`` does not exist.
        ValueError: if it is not a JSON object.
    """
    path = Path(out_dir) / COMPARISON_FILE
    if not path.is_file():
        raise FileNotFoundError(f"cannot render comparison: {path} does not exist")
    comparison = read_json_bounded(path, "comparison.json")  # ValueError: too large, too deep, not JSON
    if not isinstance(comparison, dict):
        raise ValueError(f"{path} must hold a JSON object, got {type(comparison).__name__}")
    html = normalised(html)  # out/a/../X creates no out/a
    summaries = {} if "comparisons" in comparison else run_summaries(Path(out_dir), comparison)
    text = render_comparison_html(comparison, summaries)
    if source is not None:
        from balancer.naming import mark_page

        text = mark_page(text, source)
    html.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(html, text)  # a link planted as the report is refused, not followed
    return html
