"""The report's "Indicators and win rate (association)" section: shown only for 0/1 per-seat metrics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from balancer.cli import app
from balancer.report import render_report
from balancer.report.render import fmt_points

ROOT = Path(__file__).resolve().parents[2]
EVIL = "<script>alert(1)</script>"
META = {"game": "toy", "variant": "v", "n_players": 2, "agents": ["a", "b"], "games": 4, "seed": 1}


def results() -> pl.DataFrame:
    """4 games x 2 seats (the table of tests/stats/test_association.py, whose hand derivation gives
    with 3/4 = 75.0% [36.5, 94.0], without 1/4 = 25.0% [6.0, 63.5], difference +50.0 [-12.9, +81.0]),
    plus an indicator whose name is markup and a count that is not an indicator."""
    took = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    return pl.DataFrame(
        {
            "variant": ["v"] * 8,
            "game": ["toy"] * 8,
            "n_players": [2] * 8,
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seed": [1] * 8,
            "seat": [1, 2] * 4,
            "agent": ["a", "b"] * 4,
            "score": [1] * 8,
            "rank": [1, 2, 1, 2, 1, 2, 1, 1],
            "turns": [3] * 8,
            "win_share": [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.5, 0.5],
            "metric_took_the_bridge": took,
            f"metric_{EVIL}": [1.0 - t for t in took],
            "metric_coins": [3.0, 0.0, 2.0, 5.0, 1.0, 1.0, 0.0, 4.0],
        }
    )


def report(tmp_path: Path, df: pl.DataFrame, meta: dict) -> str:
    run = tmp_path / "run"
    run.mkdir()
    df.write_parquet(run / "results.parquet")
    (run / "run.json").write_text(json.dumps(meta))
    return render_report(run, tmp_path / "report.html").read_text(encoding="utf-8")


def test_section_with_table_and_forest_plot(tmp_path: Path) -> None:
    html = report(tmp_path, results(), META)
    section = html[html.index('id="indicators"') : html.index('id="methods"')]
    assert "Indicators and win rate (association)" in section
    assert "association, not a cause" in section
    assert section.count("<svg") == 1
    # an interval stays on one line (td.nw): Urban Sketchers' table broke '31.7 –' over '65.0' at 1,280 px
    assert "td.nw { white-space: nowrap; }" in html and "the vertical line at 0 is no difference" in section
    rows = re.findall(
        r"<tr><td>([^<]+)</td><td>(\d+)</td><td>([\d.]+)</td>\s*<td class=\"nw\">([\d.]+) to ([\d.]+)</td>\s*"
        r"<td>(\d+)</td><td>([\d.]+)</td>\s*<td class=\"nw\">([\d.]+) to ([\d.]+)</td>\s*"
        r"<td><b>([^<]+)</b></td><td class=\"nw\">([^<]+) to ([^<]+)</td>\s*<td>[^<]+</td></tr>",
        section,
    )
    # names through the prettifier; the markup name escaped, and its groups the other way round
    assert rows == [
        ("took the bridge", "4", "75.0", "36.5", "94.0", "4", "25.0", "6.0", "63.5", "+50.0", "−12.9", "+81.0"),
        (
            "&lt;script&gt;alert(1)&lt;/script&gt;",
            "4",
            "25.0",
            "6.0",
            "63.5",
            "4",
            "75.0",
            "36.5",
            "94.0",
            "−50.0",
            "−81.0",
            "+12.9",
        ),
    ]
    assert EVIL not in html
    assert "coins" not in section


def test_family_size_and_holm_flags_on_the_page(tmp_path: Path) -> None:
    # the two indicators are complements (same |difference|, same p): Holm's family of 2, each
    # adjusted p = min(1, 2p); neither 95% interval excludes 0, so nothing is flagged or filled
    html = report(tmp_path, results(), META)
    section = html[html.index('id="indicators"') : html.index('id="methods"')]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["indicator_multiplicity"]["family_size"] == 2
    assert "Holm's adjustment over the\n        2 indicators" in section
    assert "Holm-adjusted p\n      (2 indicators)" in section
    q = summary["indicators"][0]["p_adjusted"]
    assert q == min(1.0, 2 * summary["indicators"][0]["p_value"])
    assert f"<td>{q:.3g}</td>" in section and "(flagged)" not in section


def test_no_section_for_a_table_without_indicators(tmp_path: Path) -> None:
    html = report(tmp_path, results().drop("metric_took_the_bridge", f"metric_{EVIL}"), META)
    assert 'id="indicators"' not in html and "association" not in html


def test_no_section_for_citywright_results(tmp_path: Path) -> None:
    # a real run: Citywright's metrics are counts (wasted tiles, empty cells, rulers placed, forced
    # discards), none of them a 0/1 indicator in these games
    out = tmp_path / "cw"
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(ROOT / "configs" / "citywright" / "v1.1.yaml"),
            "--players",
            "2",
            "--agents",
            "greedy,random",
            "--games",
            "6",
            "--seed",
            "1",
            "--out",
            str(out),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "summary.json").read_text())["indicators"] == []
    html = render_report(out, tmp_path / "cw.html").read_text(encoding="utf-8")
    assert "Seat win rates" in html and 'id="indicators"' not in html


def test_signed_points() -> None:
    assert [fmt_points(v) for v in (0.1234, -0.05, 0.0, -0.0001, None)] == ["+12.3", "−5.0", "0.0", "0.0", "–"]


def test_chart_marks_the_holm_flag_not_the_interval_alone(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # an interval that excludes 0 but is not flagged after Holm is drawn unflagged; a summary
    # written before the adjustment (no "significant") falls back to the interval
    from balancer.report import render

    drawn: list = []
    monkeypatch.setattr(render.figures, "difference_chart", lambda panels: drawn.append(panels) or "<svg/>")
    row = {"indicator": "x", "difference": 0.1, "ci_low": 0.01, "ci_high": 0.2}
    render._indicator_context({"indicators": [{**row, "significant": False, "p_adjusted": 0.08}]})
    render._indicator_context({"indicators": [row]})
    assert [panels[0][1][0]["significant"] for panels in drawn] == [False, True]
