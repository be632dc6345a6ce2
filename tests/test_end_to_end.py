"""End to end on the real engine: a tiny Citywright study through the CLI, then its report opened.

Also the determinism promise of docs/architecture.md: the same seed gives the same results for any --jobs and
chunk size.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from balancer.cli import app

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
runner = CliRunner()
AGENTS = "greedy,random,park,industrial"


def _run(out: Path, *extra: str) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            str(V11),
            "--players",
            "4",
            "--agents",
            AGENTS,
            "--games",
            "24",
            "--seed",
            "3",
            "--out",
            str(out),
            "--quiet",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output


def test_tiny_study_runs_and_its_report_opens(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _run(a, "--jobs", "1")
    _run(b, "--jobs", "2", "--chunk-size", "5")
    rows_a = pl.read_parquet(a / "results.parquet")
    rows_b = pl.read_parquet(b / "results.parquet")
    # same seed, same games, whatever the jobs and chunking
    assert rows_a.equals(rows_b)
    # 24 games x 4 seats; a mixed table rotates seats, so each agent sits in each seat 24 / 4 = 6 times
    assert rows_a.height == 96
    per_seat = rows_a.group_by("agent", "seat").len()
    assert per_seat.height == 16 and set(per_seat["len"].to_list()) == {6}
    # each game's win shares sum to 1 and every seat took the rulebook's 12 turns
    shares = rows_a.group_by("game_index").agg(pl.col("win_share").sum())
    assert all(abs(s - 1.0) < 1e-12 for s in shares["win_share"].to_list())
    assert set(rows_a["turns"].to_list()) == {12}
    # the score categories add up to the total
    parts = [c for c in rows_a.columns if c.startswith("score_")]
    assert (rows_a.select(pl.sum_horizontal(parts) - pl.col("score")).to_series() == 0).all()

    summary = json.loads((a / "summary.json").read_text())
    assert summary["games"] == 24 and summary["n_players"] == 4
    seat_rates = [s["rate"] for s in summary["seat_win_rate"]]
    assert abs(sum(seat_rates) - 1.0) < 1e-9

    html_path = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(a), "-o", str(html_path)])
    assert result.exit_code == 0, result.output
    html = html_path.read_text()
    assert "<svg" in html and "Seat win rates" in html
    for agent in AGENTS.split(","):
        assert agent in html
    # self-contained: nothing fetched from elsewhere
    assert not re.search(r'(src|href)\s*=\s*"https?://', html)
    # the seat table shows seat 1's win rate as computed in summary.json
    assert f"{100 * summary['seat_win_rate'][0]['rate']:.1f}" in html
