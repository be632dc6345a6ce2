"""``balancer check`` and ``baseline save`` can track how a game feels (issue 49): ``margin`` (a
game's highest final score minus the second highest) and ``length`` (the most turns a player took),
one value per game, tracked where ``check.metrics`` names them, like ``completion``."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from balancer.check.run import check_cell_numbers
from balancer.check.values import is_tracked, kind_of, per_game_values
from balancer.cli import app
from balancer.study.model import CheckSettings, Run

V11 = Path(__file__).resolve().parent.parent / "configs" / "citywright" / "v1.1.yaml"


def test_margin_and_length_are_one_value_per_game_worked_by_hand():
    """Three-player games, game-major rows: scores (10, 7, 9) -> margin 10-9 = 1; (4, 4, 2) -> 0 (a tie
    on points); (3, 8, 1) -> 8-3 = 5. Turns (5, 5, 4) -> length 5; (6, 7, 7) -> 7; (3, 3, 3) -> 3."""
    scores, turns = [10, 7, 9, 4, 4, 2, 3, 8, 1], [5, 5, 4, 6, 7, 7, 3, 3, 3]
    table = pa.table(
        {
            "seat": [1, 2, 3] * 3,
            "agent": ["random"] * 9,
            "score": scores,
            "win_share": [1, 0, 0, 0.5, 0.5, 0, 0, 1, 0],
            "turns": turns,
        }
    )
    assert "margin" not in per_game_values(table, ["random"] * 3)  # a sweep's or a tune's numbers: not asked
    values = per_game_values(table, ["random"] * 3, flow=True)
    assert values["margin"].tolist() == [1.0, 0.0, 5.0]
    assert values["length"].tolist() == [5.0, 7.0, 3.0]
    assert kind_of("margin") == kind_of("length") == "metric"
    solo = per_game_values(table.slice(0, 3), ["random"], flow=True)  # one player a game: no runner-up, no margin
    assert "margin" not in solo and solo["length"].tolist() == [5.0, 5.0, 4.0]


def test_tracked_only_where_named_and_a_study_may_expect_them():
    assert not is_tracked("margin", None) and not is_tracked("length", None)  # default: every metric, not these
    assert is_tracked("margin", ["margin"]) and not is_tracked("length", ["margin"])
    run = Run(players=2, agents=["greedy"], games=10, expect={"margin": {"at_most": 20}, "length": {"at_least": 5}})
    assert run.expect["margin"].text() == "at most 20"
    number = {"kind": "metric", "games": 10, "mean": 6.0, "variance": 4.0}
    win = {"kind": "win_rate", "games": 10, "mean": 0.5, "variance": 0.25}
    numbers = {"seat_win_rate:1": win, "seat_win_rate:2": win, "margin": number, "length": number}
    cell = {"run": "r", "variant": "v", "players": 2, "agents": ["greedy", "greedy"], "numbers": numbers}
    check_cell_numbers(
        cell, 0, "baseline.json", CheckSettings(metrics=["margin"])
    )  # raises on a number it does not know


STUDY = """\
study: feel
title: feel
game: citywright
seed: 5
variants: {v1.1: variant.yaml}
runs:
  mirror-3p: {players: 3, agents: [random], games: 40}
check: {tolerance: {win_rate: 0.3, metric_sd: 1.5}, metrics: [margin], looks: 1}
"""


@pytest.fixture
def study(tmp_path):
    (tmp_path / "variant.yaml").write_text(f"extends: {V11}\n", encoding="utf-8")
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    return path


def test_a_baseline_tracks_the_margin_and_an_unchanged_game_passes(tmp_path, study):
    """The baseline stores each cell's margin (its mean over games equals the mean of each game's best
    minus second-best score, read from the results apart from balancer.check); the check of the same
    study tests it (it appears among the checked numbers) and passes: fresh games of the same rules."""
    import polars as pl

    base = tmp_path / "base.json"
    runner = CliRunner()
    saved = runner.invoke(app, ["baseline", "save", str(study), "-o", str(base), "--results", str(tmp_path / "r"),
                                "-j", "1", "-q"])  # fmt: skip
    assert saved.exit_code == 0, saved.output
    cell = json.loads(base.read_text())["cells"][0]
    results = pl.read_parquet(next((tmp_path / "r").rglob("results.parquet")))
    by_hand = (
        results.group_by("game_index")
        .agg(pl.col("score").sort(descending=True).head(2))
        .select((pl.col("score").list.get(0) - pl.col("score").list.get(1)).mean())
    )
    assert cell["numbers"]["margin"]["mean"] == pytest.approx(by_hand.item())
    assert cell["numbers"]["margin"]["games"] == 40 and cell["numbers"]["margin"]["kind"] == "metric"
    out = tmp_path / "check.md"
    checked = runner.invoke(app, ["check", str(study), "--baseline", str(base), "-j", "1", "-q",
                                  "--allow-underpowered", "--markdown", str(out)])  # fmt: skip
    assert checked.exit_code == 0, checked.output
    table = out.read_text(encoding="utf-8")
    assert "margin" in table and "length" not in table, table


@pytest.mark.parametrize(
    ("line", "key", "says"),
    [
        # a measure named as the report words it: the line says the name check tracks it by
        ("check: {metrics: [margin, comebacks]}", "check.metrics[1]", "check tracks comebacks per game as 'comeback'"),
        ("check: {metrics: [margn]}", "check.metrics[0]", "did you mean 'margin'?"),  # a typo
        ("check: {metrics: [wasted_tiles]}", "check.metrics[0]", "did you mean 'wasted_tiles_per_player'?"),
    ],
)
def test_a_name_check_cannot_track_is_refused_before_any_game(tmp_path, study, line, key, says):
    """Before, validate and plan accepted any name in check.metrics; baseline save played every game,
    wrote a baseline without the number, then exited 2 with 'the file was edited or truncated'. Now the
    study is refused on reading: one line naming the file and the key, exit 2, no baseline written."""
    study.write_text(STUDY.replace("check: {tolerance: {win_rate: 0.3, metric_sd: 1.5}, metrics: [margin], looks: 1}",
                                   line), encoding="utf-8")  # fmt: skip
    runner = CliRunner()
    for args in (["validate", str(study)], ["plan", str(study)],
                 ["baseline", "save", str(study), "-o", str(tmp_path / "b.json"), "--results", str(tmp_path / "r"),
                  "-j", "1", "-q"]):  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and f"{study}: {key}: " in lines[0] and says in lines[0], result.output
    assert not (tmp_path / "b.json").exists() and not (tmp_path / "r").exists()


def test_an_expect_target_on_no_metric_of_the_game_is_refused(study):
    study.write_text(STUDY.replace("games: 40}", "games: 40, expect: {wasted_tylez_per_player: {at_most: 9}}}"),
                     encoding="utf-8")  # fmt: skip
    result = CliRunner().invoke(app, ["validate", str(study)])
    assert result.exit_code == 2
    assert "runs.mirror-3p.expect.wasted_tylez_per_player: 'wasted_tylez_per_player' is no metric of citywright" in (
        result.output
    )
    assert "did you mean 'wasted_tiles_per_player'?" in result.output


def test_the_trajectory_numbers_are_one_value_per_game_worked_by_hand():
    """Two two-player games (issue 49: a baseline can track lead changes, comebacks, decided-at and
    the leader-wins curve). Game 0, seat 1 wins; standings by checkpoint (1, 0), (1, 2), (3, 2): sole
    leaders seat 1, seat 2, seat 1 -> 2 lead changes; midpoint (3 - 1) // 2 = 1, where seat 1 is last
    and wins -> comeback 1; a non-winner (seat 2) leads at checkpoint 1, so only winners lead from
    checkpoint 2 on: decided at the third of 3 checkpoints -> 1.0; the leaders' win share 1, 0, 1 ->
    leader_wins 2/3. Game 1, seat 1 wins; (0, 0), (2, 1): a tie, then seat 1 -> 0 lead changes (a tie
    has no sole leader); all tied at the midpoint 0 -> comeback 0; the loser shares the lead at
    checkpoint 0, so winners alone lead from checkpoint 1, the second of 2 -> 1.0; leader_wins
    ((1 + 0) / 2 + 1) / 2 = 0.75. A game without a trajectory (game 2) is NaN, not a value."""
    import numpy as np

    table = pa.table(
        {
            "n_players": [2] * 6,
            "game_index": [0, 0, 1, 1, 2, 2],
            "seat": [1, 2] * 3,
            "agent": ["random"] * 6,
            "score": [3.0, 2.0, 2.0, 1.0, 5.0, 1.0],
            "win_share": [1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        }
    )
    rows = [(0, 0, 1, 1), (0, 0, 2, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 2, 1, 3), (0, 2, 2, 2),
            (1, 0, 1, 0), (1, 0, 2, 0), (1, 1, 1, 2), (1, 1, 2, 1)]  # fmt: skip
    trajectories = pa.table(
        {
            "variant": ["v"] * len(rows),
            "n_players": pa.array([2] * len(rows), pa.int32()),
            "game_index": pa.array([r[0] for r in rows], pa.int64()),
            "checkpoint": pa.array([r[1] for r in rows], pa.int32()),
            "seat": pa.array([r[2] for r in rows], pa.int32()),
            "standing": pa.array([float(r[3]) for r in rows], pa.float64()),
        }
    )
    assert "lead_changes" not in per_game_values(table, ["random"] * 2, flow=True)  # no trajectories: not given
    values = per_game_values(table, ["random"] * 2, flow=True, trajectories=trajectories)
    assert values["lead_changes"][:2].tolist() == [2.0, 0.0]
    assert values["comeback"][:2].tolist() == [1.0, 0.0]
    assert values["decided_at"][:2].tolist() == [1.0, 1.0]
    assert values["leader_wins"][:2].tolist() == pytest.approx([2 / 3, 0.75])
    assert all(np.isnan(values[k][2]) for k in ("lead_changes", "comeback", "decided_at", "leader_wins"))
    assert all(
        kind_of(k) == "metric" and not is_tracked(k, None) and is_tracked(k, [k]) for k in values if k[0] in "lcd"
    )


def test_a_baseline_tracks_lead_changes_and_an_unchanged_game_passes(tmp_path, study):
    """check.metrics: [lead_changes]: the baseline stores each cell's lead changes per game, whose mean
    is the run's summary.json flow mean (the same games, read by the run's own summary), and the check
    of the same study tests it and passes."""
    study.write_text(STUDY.replace("metrics: [margin]", "metrics: [lead_changes, comeback]"), encoding="utf-8")
    base = tmp_path / "base.json"
    runner = CliRunner()
    saved = runner.invoke(app, ["baseline", "save", str(study), "-o", str(base), "--results", str(tmp_path / "r"),
                                "-j", "1", "-q"])  # fmt: skip
    assert saved.exit_code == 0, saved.output
    numbers = json.loads(base.read_text())["cells"][0]["numbers"]
    summary = json.loads(next((tmp_path / "r").rglob("summary.json")).read_text())
    flow = summary["flow"]["trajectory"]
    assert numbers["lead_changes"]["games"] == 40
    assert numbers["lead_changes"]["mean"] == pytest.approx(flow["lead_changes"]["mean"])
    out = tmp_path / "check.md"
    checked = runner.invoke(app, ["check", str(study), "--baseline", str(base), "-j", "1", "-q",
                                  "--allow-underpowered", "--markdown", str(out)])  # fmt: skip
    assert checked.exit_code == 0, checked.output
    table = out.read_text(encoding="utf-8")
    assert "/lead\\_changes |" in table and "/comeback |" in table and "margin" not in table, table
