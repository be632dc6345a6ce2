"""Tunes on the stand-in game (standin_game.py), whose answer is known by construction: the bonus that
equalizes the seats is the edge it compensates ([3] at two players, [0, 1, 2, 3] at four)."""

from __future__ import annotations

import json

import yaml

from balancer.config import load_config
from balancer.tune import load_tune, run_tune
from balancer.tune.write import tuned_text, write_variant


def _tune(tmp_path, body: str):
    path = tmp_path / "configs" / "tune.yaml"
    path.write_text(body, encoding="utf-8")
    return load_tune(path)


TWO = """\
tune: two
title: seat 2's bonus at two players
base: base.yaml
seed: 7
runs:
  two: {players: 2, agents: [roller], games: 900}
space:
  bonus.2[1]: {int: [0, 8]}
objective:
  seat_win_rate: equal
search: {rungs: 3, eta: 3}
budget: {games: 20000}
confirm: {games: 3000}
response: {steps: 2}
"""


def test_grid_tune_finds_the_bonus_that_equalizes_two_seats(standin, tmp_path):
    plan = _tune(tmp_path, TWO)
    assert plan.rungs == {"two": [100, 300, 900]}
    assert plan.sampler_name() == "grid"  # 9 candidates x 100 games fit the budget
    result = run_tune(plan, tmp_path / "results", jobs=1)
    assert result.best.values == {"bonus.2[1]": 3}
    assert {c.values["bonus.2[1]"] for c in result.candidates} == set(range(9))
    # successive halving: all nine had a first look, fewer went on, and the games show it
    reached = [sum(1 for t in result.trials if t["rung"] >= k) for k in range(3)]
    assert reached[0] == 9 and reached[2] < reached[1] < 9
    assert result.games_search < 9 * 900
    # confirmation with fresh seeds: seat 1 consistent with 1/2 (the exact rate at this bonus)
    conf = result.confirmation
    assert conf.games == {"two": 3000}
    assert conf.verdicts[0]["verdict"] == "consistent"
    assert conf.verdicts[0]["base_verdict"] == "missed"  # the base (bonus 0): seat 1 wins 87.5%
    e = conf.best_estimates["two"]["seat_win_rate:1"]
    assert e["ci_low"] <= 0.5 <= e["ci_high"]
    # the response around 3: 1..5, measured at the top rung
    assert [
        c.values["bonus.2[1]"] for c in sorted(result.response["bonus.2[1]"], key=lambda c: c.values["bonus.2[1]"])
    ] == [1, 2, 3, 4, 5]


def test_tpe_tune_finds_the_four_player_compensation(standin, tmp_path):
    # edge [3, 2, 1, 0]; seat 1 gets no bonus, seats 2-4 get 0-4 each (125 candidates): the seats are
    # equal exactly at [1, 2, 3] (every total a die + 3); one unit off moves a seat by several points
    plan = _tune(
        tmp_path,
        """\
tune: four
title: four seats
base: base.yaml
seed: 3
runs:
  four: {players: 4, agents: [roller], games: 900}
space:
  bonus.4[1]: {int: [0, 4]}
  bonus.4[2]: {int: [0, 4]}
  bonus.4[3]: {int: [0, 4]}
objective:
  seat_win_rate: equal
search: {sampler: auto, rungs: 3, eta: 3, startup: 10}
budget: {candidates: 50}
confirm: {games: 2000}
response: {steps: 1}
""",
    )
    assert plan.sampler_name() == "tpe"  # 125 candidates do not fit a budget of 50
    result = run_tune(plan, tmp_path / "results", jobs=1)
    assert result.best.values == {"bonus.4[1]": 1, "bonus.4[2]": 2, "bonus.4[3]": 3}
    searched = {c.label for c in result.candidates} - {c.label for row in result.response.values() for c in row}
    assert len(searched) <= 50
    assert result.confirmation.verdicts[0]["verdict"] == "consistent"


def test_tune_resumed_replays_the_same_search_from_its_cells(standin, tmp_path):
    plan = _tune(tmp_path, TWO.replace("budget: {games: 20000}", "budget: {candidates: 5}"))
    first = run_tune(plan, tmp_path / "results", jobs=1)
    state = json.loads((tmp_path / "results" / plan.folder / "search.json").read_text())
    assert state["status"] == "finished" and state["trials"] == len(first.trials)
    again = run_tune(
        _tune(tmp_path, TWO.replace("budget: {games: 20000}", "budget: {candidates: 5}")), tmp_path / "results", jobs=1
    )
    assert again.games_played == 0
    assert [t["candidate"] for t in again.trials] == [t["candidate"] for t in first.trials]
    assert again.best.values == first.best.values
    assert again.games_search == first.games_search


def test_written_variant_extends_the_base_and_sets_only_the_changed_key(standin, tmp_path):
    result = run_tune(_tune(tmp_path, TWO), tmp_path / "results", jobs=1)
    target = tmp_path / "configs" / "tuned.yaml"
    text = tuned_text(result, target, command="balancer tune configs/tune.yaml")
    write_variant(target, text)
    data = yaml.safe_load(target.read_text())
    assert data == {"extends": "base.yaml", "bonus": {"2": [0, 3]}}
    assert "Confirmation (two, 3,000 fresh games" in text and "Found: bonus.2[1]=3." in text
    cfg = load_config(target)
    assert cfg.bonus == {"2": [0, 3], "4": [0, 0, 0, 0]} and cfg.variant == "tuned"
