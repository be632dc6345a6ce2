"""summary.json says how the game feels (issue 49): ``flow`` holds the margin, each seat's score
distribution and the length (balancer.stats.flow), unless the run asked for ``--no-flow`` (for runs of
a million games); run.json records the choice."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from balancer import api
from balancer.cli import app


def test_summary_holds_the_flow_of_the_run_s_own_games(tmp_path):
    out = tmp_path / "run"
    api.run("citywright/v1.1", 3, "greedy", games=24, seed=3, out=out)
    flow = json.loads((out / "summary.json").read_text())["flow"]
    results = pl.read_parquet(out / "results.parquet")
    # by hand, apart from balancer.stats.flow: each game's best score minus its second best
    margins = (
        results.group_by("game_index")
        .agg(pl.col("score").sort(descending=True).head(2))
        .select(pl.col("score").list.get(0) - pl.col("score").list.get(1))
    )
    assert flow["games"] == 24 and flow["margin"]["n"] == 24
    assert flow["margin"]["mean"] == pytest.approx(margins.to_series().mean())
    assert flow["margin"]["ci_low"] <= flow["margin"]["mean"] <= flow["margin"]["ci_high"]
    seat1 = next(s for s in flow["seat_scores"] if s["seat"] == 1)["scores"]
    assert seat1["mean"] == pytest.approx(results.filter(pl.col("seat") == 1)["score"].mean())
    assert flow["length"]["mean"] == pytest.approx(
        results.group_by("game_index").agg(pl.col("turns").max())["turns"].mean()
    )
    assert json.loads((out / "run.json").read_text())["flow"] is True


def test_no_flow_leaves_it_out_and_changes_nothing_else(tmp_path):
    args = ["run", "citywright/v1.1", "-p", "3", "-n", "12", "--seed", "4", "-j", "1", "-q"]
    runner = CliRunner()
    assert runner.invoke(app, [*args, "-o", str(tmp_path / "on")]).exit_code == 0
    result = runner.invoke(app, [*args, "-o", str(tmp_path / "off"), "--no-flow"])
    assert result.exit_code == 0, result.output
    on = json.loads((tmp_path / "on" / "summary.json").read_text())
    off = json.loads((tmp_path / "off" / "summary.json").read_text())
    assert "flow" in on and "flow" not in off
    on.pop("flow")
    assert on == off  # the rest of the summary is the same
    assert json.loads((tmp_path / "off" / "run.json").read_text())["flow"] is False


def test_a_results_folder_s_parts_never_include_its_trajectories(tmp_path):
    """Without results.parquet, scan_results reads every Parquet part, but trajectories.parquet
    (another table, issue 49's contract) is not a part of the results."""
    from balancer.sim.results import scan_results

    pl.DataFrame({"game_index": [0, 0], "seat": [1, 2], "score": [3.0, 1.0], "win_share": [1.0, 0.0]}).write_parquet(
        tmp_path / "part-0.parquet"
    )
    pl.DataFrame({"game_index": [0], "checkpoint": [0], "seat": [1], "standing": [1.0]}).write_parquet(
        tmp_path / "trajectories.parquet"
    )
    assert scan_results(tmp_path).collect().columns == ["game_index", "seat", "score", "win_share"]
