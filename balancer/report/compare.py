"""One self-contained HTML page comparing two rule variants (``balancer compare``).

Reads ``comparison.json`` written by :func:`balancer.compare.compare_variants` and renders
``templates/compare.html.j2`` with jinja2 autoescape on: every name from data (config paths,
variants, agents, metric names) is escaped; only the SVG figure made here is marked safe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from balancer.core.metrics import MetricSpecs, humanize
from balancer.core.registry import metric_specs_of
from balancer.limits import read_json_bounded
from balancer.outdir import normalised, write_atomic
from balancer.report.figures import difference_chart, is_missing
from balancer.report.pages import fmt_scaled
from balancer.report.render import display_name, environment, metric_label, p_value_text

TEMPLATE_NAME = "compare.html.j2"
COMPARISON_FILE = "comparison.json"
FLAG = "◆"
# section key in comparison.json -> (heading, unit shown, scale applied to values)
SECTIONS: tuple[tuple[str, str, str, float], ...] = (
    ("seat_win_rate", "Seat win rates", "%", 100.0),
    ("agent_win_rate", "Agent win rates", "%", 100.0),
    ("score", "Points per player", "points", 1.0),
    ("metrics", "Metrics", "", 1.0),
)


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
    return f"{v:+,.{digits}f}".replace("-", "−")


def p_cell(p: float | None) -> str:
    """A table cell's p-value: :func:`balancer.report.render.p_value_text`; ``None`` or NaN -> ``"–"``."""
    return "–" if p is None or is_missing(p) else p_value_text(p)


# --------------------------------------------------------------------------- figure


# --------------------------------------------------------------------------- context


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
                "direction": ("up" if (r.get("difference") or 0) > 0 else "down") if r.get("significant") else "",
                "n": r.get("n"),
            }
        )
    return out


def build_context(comparison: Mapping[str, Any]) -> dict[str, Any]:
    """Everything ``compare.html.j2`` needs, from a ``comparison.json`` dict (figure as ``Markup``)."""
    c = comparison
    specs = metric_specs_of({"game": c.get("game")})
    sections = []
    panels = []
    for key, heading, unit, scale in SECTIONS:
        rows = c.get(key) or []
        if not rows:
            continue
        diff_unit = "percentage points" if scale == 100.0 else (unit or "the metric's own unit")
        sections.append(
            {
                "key": key,
                "heading": heading,
                "unit": unit,
                "diff_unit": diff_unit,
                "rows": _rows(rows, unit, scale, metrics=key == "metrics", specs=specs),
            }
        )
        if key == "metrics":
            rows = [{**r, "name": metric_label(r["name"], specs)} for r in rows]
        panels.append((f"{heading} (difference in {diff_unit})", rows, scale))
    all_rows = [r for key, *_ in SECTIONS for r in (c.get(key) or [])]
    tests = sorted({r.get("test") for r in all_rows if r.get("test")})
    confidence = float(c.get("confidence") or 0.95)
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
        "agents": ", ".join(map(str, c.get("agents") or [])),
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
        "family_size": (c.get("multiplicity") or {}).get("family_size", len(all_rows)),
        "alpha_text": f"{1 - confidence:g}",
        "n_rows": len(all_rows),
        "sections": sections,
        "tests": tests,
        "flag": FLAG,
        "chart": Markup(difference_chart(panels)),
        "command": c.get("command") or "",
        "only_in_a": c.get("only_in_a") or [],
        "only_in_b": c.get("only_in_b") or [],
    }


def render_comparison_html(comparison: Mapping[str, Any]) -> str:
    """Render the comparison page to a string."""
    return environment().get_template(TEMPLATE_NAME).render(**build_context(comparison))


def render_comparison(out_dir: Path, html: Path) -> Path:
    """Write the self-contained HTML comparison of ``out_dir/comparison.json`` to ``html``.

    Parent directories of ``html`` are created; an existing file is overwritten (the page is
    derived from the results). Returns ``html``.

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
    text = render_comparison_html(comparison)
    html.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(html, text)  # a link planted as the report is refused, not followed
    return html
