"""A tuner that is safe to follow (issue 50, item 2): ``--write`` writes only a candidate that passed its
confirmation on fresh seeds and beat the base there, else nothing (exit 1, saying so), and the page
shows no failed candidate in bold; candidates that are the same game under the rules are tried once.

The stand-in game (standin_game.py) has its answer by construction: at two players with edge [3, 0],
seat 1 wins 31.5/36, 28/36, 23.5/36, 1/2 of the games at a seat-2 bonus of 0, 1, 2, 3 more than seat 1's.
"""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.core.metrics import MetricSpecs, categories
from balancer.tune import load_tune, run_tune

runner = CliRunner()

TUNE = """\
tune: t
title: a tune
base: base.yaml
seed: 1
runs:
  two: {{players: 2, agents: [roller], games: 270}}
space:
  {space}
objective:
  seat_win_rate: equal
search: {{sampler: grid, rungs: 2, eta: 3}}
budget: {{games: 20000}}
confirm: {{games: 600}}
response: {{steps: 0}}
"""


def _run(tmp_path, space: str, *extra: str):
    file = tmp_path / "configs" / "tune.yaml"
    file.write_text(TUNE.format(space=space), encoding="utf-8")
    report = tmp_path / "out" / "report.html"
    args = ["tune", str(file), "-o", str(report), "--results", str(tmp_path / "results"), "--jobs", "1", "--quiet"]
    return runner.invoke(app, [*args, *extra]), report


def test_write_refuses_a_candidate_that_fails_its_confirmation(standin, tmp_path):
    # seat 2's bonus 0..2: the best, 2, still leaves seat 1 at 23.5/36 = 65% (missed, as the base's 87.5%):
    # nothing is written, exit 1, the reason said, and the page shows no best in bold
    tuned = tmp_path / "configs" / "tuned.yaml"
    result, report = _run(tmp_path, "bonus.2[1]: {int: [0, 2]}", "--write", str(tuned))
    assert result.exit_code == 1, result.output
    assert not tuned.exists()
    assert (
        f"--write {tuned}: nothing written: the best candidate failed its confirmation on fresh seeds" in result.output
    )
    page = report.read_text(encoding="utf-8")
    assert '<tr class="best">' not in page and "not recommended" in page
    assert "<td><b>2</b></td>" not in page  # the failed value is not bold in the space table either


def test_write_writes_a_candidate_that_passed_and_beat_the_base(standin, tmp_path):
    # 0..3: the best, 3, equalises the seats exactly (consistent; the base missed): written, exit 0
    tuned = tmp_path / "configs" / "tuned.yaml"
    result, report = _run(tmp_path, "bonus.2[1]: {int: [0, 3]}", "--write", str(tuned))
    assert result.exit_code == 0, result.output
    assert tuned.is_file() and "bonus" in tuned.read_text()
    assert '<tr class="best">' in report.read_text(encoding="utf-8")


def test_candidates_with_the_same_bonus_differences_are_tried_once(standin, tmp_path, monkeypatch):
    # both seats' bonuses 0..2 (9 pairs); with the bonus marked as the game's position bonus, only the
    # difference bonus[1] - bonus[0] (-2..2: 5 values) changes who wins, so 5 candidates are measured
    import standin_game

    metrics = MetricSpecs(scores=categories("die", "bonus", position_bonus="bonus"))
    monkeypatch.setattr(standin_game, "SPEC", dataclasses.replace(standin_game.SPEC, metrics=metrics))
    file = tmp_path / "configs" / "tune.yaml"
    file.write_text(TUNE.format(space="bonus.2[0]: {int: [0, 2]}\n  bonus.2[1]: {int: [0, 2]}"), encoding="utf-8")
    result = run_tune(load_tune(file), tmp_path / "results", jobs=1)
    diffs = sorted(c.values["bonus.2[1]"] - c.values["bonus.2[0]"] for c in result.candidates)
    assert diffs == [-2, -1, 0, 1, 2]


def test_the_response_plots_each_neighbour_at_its_own_value(standin, tmp_path, monkeypatch):
    # as above (only bonus[1] - bonus[0] counts); the best is [0, 2] (difference 2, the only one), and the
    # response around it asks for bonus.2[0] = 0, 1 ([1, 2]: difference 1, the same game as [0, 1], and
    # [2, 2]...) and bonus.2[1] = 1, 2. A neighbour that is the same game as a measured candidate is
    # shown at the value asked for, with that candidate's measurement; it was shown at the other
    # candidate's values ([1, 2] drawn at bonus.2[0] = 0, on top of the best).
    import standin_game

    metrics = MetricSpecs(scores=categories("die", "bonus", position_bonus="bonus"))
    monkeypatch.setattr(standin_game, "SPEC", dataclasses.replace(standin_game.SPEC, metrics=metrics))
    file = tmp_path / "configs" / "tune.yaml"
    text = TUNE.format(space="bonus.2[0]: {int: [0, 2]}\n  bonus.2[1]: {int: [0, 2]}")
    file.write_text(text.replace("response: {steps: 0}", "response: {steps: 1}"), encoding="utf-8")
    result = run_tune(load_tune(file), tmp_path / "results", jobs=1)
    assert result.best is not None and result.best.values == {"bonus.2[0]": 0, "bonus.2[1]": 2}
    shown = {path: [c.values for c in cands] for path, cands in result.response.items()}
    assert shown == {
        "bonus.2[0]": [{"bonus.2[0]": 0, "bonus.2[1]": 2}, {"bonus.2[0]": 1, "bonus.2[1]": 2}],
        "bonus.2[1]": [{"bonus.2[0]": 0, "bonus.2[1]": 1}, {"bonus.2[0]": 0, "bonus.2[1]": 2}],
    }
    one = next(c for c in result.candidates if c.values["bonus.2[1]"] - c.values["bonus.2[0]"] == 1)
    assert result.response["bonus.2[0]"][1].evaluations is one.evaluations  # measured once, shown at [1, 2]


def test_the_response_moves_to_a_better_neighbour_and_is_measured_around_it(standin, tmp_path):
    # one candidate for the search (budget), then the response: at seed 5 the grid proposes a seat-2
    # bonus of 1 first; its neighbour 2 is better (seat 1 wins 23.5/36 against 28/36), and 3 better still
    # (1/2: equal by construction), 4 worse again. The response used to stay around 1 ([0, 1, 2]) while
    # the page named 2 the best and said every panel held the others "at the best"; it now moves on
    # until no neighbour is better: the best 3 with its neighbours 2 and 4.
    text = TUNE.format(space="bonus.2[1]: {int: [0, 6]}")
    text = text.replace("seed: 1", "seed: 5").replace("response: {steps: 0}", "response: {steps: 1}")
    text = text.replace("budget: {games: 20000}", "budget: {games: 20000, candidates: 1}")
    file = tmp_path / "configs" / "tune.yaml"
    file.write_text(text, encoding="utf-8")
    result = run_tune(load_tune(file), tmp_path / "results", jobs=1)
    assert result.candidates[0].values == {"bonus.2[1]": 1}  # the search's only candidate
    assert result.best is not None and result.best.values == {"bonus.2[1]": 3}
    assert [c.values["bonus.2[1]"] for c in result.response["bonus.2[1]"]] == [2, 3, 4]


def test_the_tune_pages_figures_and_tables_say_games_agents_and_seed(standin, tmp_path):
    """Issue 50, publishing: every --figures / --tables caption says the games, agents and seed; the
    tune page's facts gave its runs' players and agents and the seed but no games. The captions now say
    the games of the search, the response and the confirmation (the page's own counts)."""
    import re

    figures, tables = tmp_path / "figs", tmp_path / "tabs"
    result, report = _run(tmp_path, "bonus.2[1]: {int: [0, 3]}", "--figures", str(figures), "--tables", str(tables))
    assert result.exit_code == 0, result.output
    page = report.read_text(encoding="utf-8")
    search = re.search(r"([\d,]+) games for the search", page)[1]  # the page's own counts
    confirm = re.search(r"([\d,]+) for the confirmation", page)[1]
    for folder in (figures, tables):
        entries = [
            line for line in (folder / "captions.md").read_text(encoding="utf-8").splitlines() if line.startswith("- `")
        ]
        assert entries
        for line in entries:
            assert "seed: 1" in line and "agents roller" in line, line
            assert f"games: {search} for the search" in line and f"{confirm} for the confirmation" in line, line


def test_two_rules_that_both_score_0_are_told_apart():
    """The objective floors each distance at 0 (the noise subtracted from a squared gap can exceed it),
    so an exactly fair rule and a 52/48 one on 100 games both scored 0 and the ranking took whichever
    was tried first. By construction: seat 1 wins 50 and 52 of 100 games; the mean's sampling variance
    is about 0.0025 (p(1 - p)/games), the squared gaps 0 and 0.0004, so both squared distances are
    negative, both objectives 0; before the floor they are -sqrt(0.0025) and -sqrt(0.0021): the fair rule
    is the nearer and is ranked first, whatever its index. (The confirmation still refuses a best that
    only ties the base at 0: such a rule is not shown to beat it.)"""
    import math
    from pathlib import Path
    from types import SimpleNamespace

    import numpy as np

    from balancer.outcomes import Candidate, Evaluation
    from balancer.sweep.targets import RunShape, bootstrap_objective, resolve_terms, signed_objective
    from balancer.tune.search import Tuner

    (term,) = resolve_terms({"seat_win_rate": "equal"}, {"two": RunShape("two", ["roller"] * 2, [], [])}, "f: o")

    def numbers(wins: int, games: int = 100) -> dict:
        first = np.array([1.0] * wins + [0.0] * (games - wins))
        return {"two": {"seat_win_rate:1": first, "seat_win_rate:2": 1.0 - first}}

    fair, off = numbers(50), numbers(52)
    assert bootstrap_objective([term], fair)[0] == 0.0 == bootstrap_objective([term], off)[0]
    var_fair, var_off = 0.25 * 100 / 99 / 100, 0.52 * 0.48 * 100 / 99 / 100  # per-game variance (ddof 1) / games
    assert signed_objective([term], fair) == pytest.approx(-math.sqrt(var_fair))
    assert signed_objective([term], off) == pytest.approx(-math.sqrt(var_off - 0.02**2))
    assert signed_objective([term], fair) < signed_objective([term], off)

    def candidate(index: int, nums: dict) -> Candidate:
        ev = Evaluation(0, {"two": 100}, 0.0, 0.0, 0.1, {}, signed=signed_objective([term], nums))
        return Candidate(index, {"x": index}, f"c{index}", Path(f"c{index}.yaml"), evaluations={0: ev})

    ranked = Tuner.ranked(SimpleNamespace(candidates={0: candidate(0, off), 1: candidate(1, fair)}))
    assert [c.label for c in ranked] == ["c1", "c0"]  # the fair rule first (was c0, the first tried)
