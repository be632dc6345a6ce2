"""The HTML report: one self-contained file, table values present, data names escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from balancer.report import render_report
from balancer.report.render import describe_seat_design, fmt_duration, fmt_p

EVIL = "<script>alert(1)</script>"

META = {
    "game": "toy",
    "variant": "v1.1 <b>bold</b>",
    "config_path": "configs/toy/v1.1.yaml",
    "config_sha256": "0123456789abcdef" * 4,
    "n_players": 2,
    "agents": ["greedy", EVIL],
    "seat_design": "rotated: each agent sits in each seat equally often",
    "games": 4,
    "seed": 7,
    "jobs": 2,
    "started": "2025-01-01T12:00:00",
    "elapsed_seconds": 125.4,
    "versions": {"balancer": "0.1.0", "polars": "1.0"},
    "command": "balancer run configs/toy/v1.1.yaml --games 4",
}


def results() -> pl.DataFrame:
    """4 games x 2 seats; seat 1 wins 2.5 (game 1 shared), seat 2 wins 1.5."""
    return pl.DataFrame(
        {
            "variant": ["v1.1"] * 8,
            "game": ["toy"] * 8,
            "n_players": [2] * 8,
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seed": [7] * 8,
            "seat": [1, 2] * 4,
            "agent": ["greedy", EVIL, EVIL, "greedy"] * 2,
            "score": [10, 5, 7, 7, 3, 9, 8, 2],
            "rank": [1, 2, 1, 1, 2, 1, 1, 2],
            "win_share": [1.0, 0.0, 0.5, 0.5, 0.0, 1.0, 1.0, 0.0],
            "turns": [5] * 8,
            "score_x": [6, 5, 7, 0, 3, 9, 8, 2],
            "score_y": [4, 0, 0, 7, 0, 0, 0, 0],
            "metric_wasted": [1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 0.0, 2.0],
        }
    )


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "results"
    directory.mkdir()
    results().write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(json.dumps(META))
    return directory


def test_report_is_one_self_contained_file(run_dir: Path, tmp_path: Path) -> None:
    out = render_report(run_dir, tmp_path / "out" / "report.html")
    assert out == tmp_path / "out" / "report.html"
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html"]
    html = out.read_text(encoding="utf-8")
    assert "<svg" in html or "data:image/png;base64," in html
    # no external resources: no http(s) src/href, no stylesheet links or scripts
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<link" not in html and "<script" not in html and "@import" not in html


def test_report_contains_seat_table_and_methods(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    seat_table = html[html.index('id="seats"') : html.index('id="agents"')]
    # seat 1: 2.5/4 = 62.5%, Wilson 21.9-90.8; seat 2: 1.5/4 = 37.5%, Wilson 9.2-78.1
    rows = re.findall(r"<tr><td>(\d)</td><td>([\d.]+)</td>\s*<td>([\d.]+) – ([\d.]+)</td>", seat_table)
    assert rows == [("1", "62.5", "21.9", "90.8"), ("2", "37.5", "9.2", "78.1")]
    assert "p = 0.62" in html  # chi2 = 0.25 on 1 df
    assert "No evidence" in html
    assert "25.0" in html  # tied games: 1 of 4
    assert "wasted per player" in html
    assert "0123456789ab" in html and "0123456789abc" not in html
    assert "2 min 05 s" in html
    assert "each agent sits in each seat equally often" in html
    assert "balancer run configs/toy/v1.1.yaml --games 4" in html
    assert (run_dir / "summary.json").is_file()  # computed because it was missing


def test_report_escapes_names_from_data(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert EVIL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html
    assert "v1.1 &lt;b&gt;bold&lt;/b&gt;" in html


def test_report_uses_existing_summary(run_dir: Path, tmp_path: Path) -> None:
    from balancer.stats import write_summary

    summary = write_summary(run_dir)
    summary["seat_win_rate"][0]["rate"] = 0.123  # a marker only the stored summary has
    (run_dir / "summary.json").write_text(json.dumps(summary))
    html = render_report(run_dir, tmp_path / "r.html", title="My title").read_text(encoding="utf-8")
    assert "<td>12.3</td>" in html
    assert "<title>My title</title>" in html


@pytest.mark.parametrize("missing", ["results.parquet", "run.json"])
def test_report_names_missing_file(run_dir: Path, tmp_path: Path, missing: str) -> None:
    (run_dir / missing).unlink()
    with pytest.raises(FileNotFoundError, match=re.escape(missing)):
        render_report(run_dir, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_formatting_helpers() -> None:
    assert fmt_duration(42.04) == "42.0 s"
    assert fmt_duration(3725.2) == "1 h 02 min 05 s"
    assert fmt_p(0.0004) == "p < 0.001"
    assert fmt_p(0.0123) == "p = 0.012"
    assert describe_seat_design("mirror table").startswith("Mirror table")
