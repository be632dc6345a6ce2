"""Sweeps on the stand-in game (standin_game.py): common random numbers, cached cells, the formula."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
from standin_game import seat1_rate

from balancer.sim.results import scan_results
from balancer.stats.paired import paired_differences
from balancer.sweep import load_sweep, run_sweep


def _sweep(tmp_path, body: str):
    path = tmp_path / "configs" / "sweep.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_identical_points_differ_by_exactly_zero(standin, tmp_path):
    # bonus.2[1] is not read at four players: the two points are different files with identical
    # rules, so common random numbers must make every game, and every paired difference, identical.
    path = _sweep(
        tmp_path,
        """\
sweep: crn
title: two points with identical rules
base: base.yaml
seed: 11
runs:
  four: {players: 4, agents: [roller], games: 200}
paths:
  bonus.2[1]: [0, 5]
""",
    )
    result = run_sweep(load_sweep(path), tmp_path / "results", jobs=1)
    a, b = (result.cells[("four", label)].out_dir for label in ("0", "5"))
    assert result.cells[("four", "0")].meta["config_sha256"] != result.cells[("four", "5")].meta["config_sha256"]
    ta, tb = pq.read_table(a / "results.parquet"), pq.read_table(b / "results.parquet")
    for column in ("score", "win_share", "score_die", "rank"):
        assert ta.column(column).to_pylist() == tb.column(column).to_pylist()
    diffs = paired_differences(scan_results(a), scan_results(b))
    for row in diffs["seat_win_rate"]:
        assert row["difference"] == 0.0 and row["ci_low"] == 0.0 and row["ci_high"] == 0.0
    for name, values in result.numbers[("four", "0")].items():
        np.testing.assert_array_equal(values, result.numbers[("four", "5")][name])


def test_points_that_differ_see_the_same_dice(standin, tmp_path):
    # seat 2's bonus changes the winner but not the dice: the die column is identical point to point
    path = _sweep(
        tmp_path,
        """\
sweep: dice
title: same dice
base: base.yaml
seed: 3
runs:
  two: {players: 2, agents: [roller], games: 300}
paths:
  bonus.2[1]: [1, 3]
""",
    )
    result = run_sweep(load_sweep(path), tmp_path / "results", jobs=1)
    dice = [
        pq.read_table(result.cells[("two", label)].out_dir / "results.parquet").column("score_die").to_pylist()
        for label in ("1", "3")
    ]
    assert dice[0] == dice[1]
    share = [
        pq.read_table(result.cells[("two", label)].out_dir / "results.parquet").column("win_share").to_pylist()
        for label in ("1", "3")
    ]
    assert share[0] != share[1]


def test_sweep_follows_the_formula_and_marks_targets(standin, tmp_path):
    path = _sweep(
        tmp_path,
        """\
sweep: formula
title: seat 2's bonus
base: base.yaml
seed: 5
runs:
  two: {players: 2, agents: [roller], games: 4000}
paths:
  bonus.2[1]: {from: 0, to: 6, step: 1}
target:
  seat_win_rate: equal
  seat_win_rate:1: {between: [0.40, 0.60]}
""",
    )
    result = run_sweep(load_sweep(path), tmp_path / "results", jobs=1)
    for x in range(7):
        est = result.estimates[("two", str(x))]["seat_win_rate:1"]
        # the formula's rate lies in the 95% interval (a 5% miss per point would be a flake on
        # 7 points; the seed is fixed, so this either always passes or never)
        assert est["ci_low"] <= seat1_rate(6, x - 3) <= est["ci_high"], (x, est)
    verdicts = {(v["term"], v["point"]): v["verdict"] for v in result.verdicts()}
    # only a bonus of 3 equalizes (every other point is at least 15 points off, far outside +/-1.6)
    assert [x for x in range(7) if verdicts[("seat_win_rate: equal", str(x))] == "consistent"] == [3]
    # seat 1 between 40% and 60%: 3 is inside with its whole interval; 2 (65.3%) and 4 (34.7%) are missed
    between = "seat_win_rate:1: between 0.4 and 0.6"
    assert verdicts[(between, "3")] == "met"
    assert verdicts[(between, "2")] == verdicts[(between, "4")] == "missed"


def test_a_sweep_run_again_reuses_every_cell(standin, tmp_path):
    path = _sweep(
        tmp_path,
        """\
sweep: again
title: reuse
base: base.yaml
seed: 5
runs:
  two: {players: 2, agents: [roller], games: 100}
paths:
  bonus.2[1]: [0, 1]
  faces: [6, 8]
""",
    )
    first = run_sweep(load_sweep(path), tmp_path / "results", jobs=1)
    assert first.games_played == 400 and len(first.cells) == 4
    second = run_sweep(load_sweep(path), tmp_path / "results", jobs=1)
    assert second.games_played == 0 and all(c.reused for c in second.cells.values())
    assert first.estimates == second.estimates


def test_two_path_report_has_a_heatmap_per_number(standin, tmp_path):
    from balancer.report.sweep import render_sweep

    path = _sweep(
        tmp_path,
        """\
sweep: grid
title: a grid
base: base.yaml
seed: 5
runs:
  two: {players: 2, agents: [roller], games: 60}
paths:
  bonus.2[1]: [2, 3]
  faces: [6, 8, 10]
target:
  seat_win_rate: equal
""",
    )
    result = run_sweep(load_sweep(path), tmp_path / "results", jobs=1)
    html = render_sweep(result, tmp_path / "report.html").read_text(encoding="utf-8")
    # the cells table keeps a run's name and a point on one line ('mirror-4p' broke as 'mirror-' over '4p')
    assert '<tr><td class="nw">two</td><td class="nw">bonus.2[1]=2, faces=6</td>' in html
    assert "td.nw { white-space: nowrap; }" in html
    # seats 1 and 2, the die metric and the even-vs-odd match-up of the parity label: one heatmap each
    assert html.count("<svg") == 4
    assert "points whose intervals meet it" in html
    assert "for metrics the studentized bootstrap over games from 20 to 1,000 games, else Student t" in html


@pytest.mark.parametrize("values", ["[0, 0]", "[]", "{from: 3, to: 1}"])
def test_values_that_are_not_a_sweep(standin, tmp_path, values):
    from balancer.sweep import SweepError

    path = _sweep(
        tmp_path,
        f"""\
sweep: bad
title: bad
base: base.yaml
seed: 5
runs:
  two: {{players: 2, agents: [roller], games: 10}}
paths:
  bonus.2[1]: {values}
""",
    )
    with pytest.raises(SweepError) as err:
        load_sweep(path)
    assert str(err.value).count("\n") == 0 and "paths.bonus.2[1]" in str(err.value)
    assert not (tmp_path / "results").exists()
