"""``balancer check`` and studies track completion (issue 29): the per-game value is 1 for a game
that ended by the rules, 0 for one a safety stop ended; a study may set ``expect: {completion: ...}``;
a baseline cell may store ``completion``; a baseline without it (saved before) still loads."""

from __future__ import annotations

import pyarrow as pa
import pytest

from balancer.check.run import check_cell_numbers
from balancer.check.values import kind_of, per_game_values
from balancer.study.model import CheckSettings, Run


def table(ended: list[str]) -> pa.Table:
    """Two-seat games, game-major, seat 1 winning each."""
    rows = [(e, s) for e in ended for s in (1, 2)]
    return pa.table(
        {
            "seat": [s for _, s in rows],
            "agent": ["random"] * len(rows),
            "win_share": [1.0 if s == 1 else 0.0 for _, s in rows],
            "ended_by": [e for e, _ in rows],
        }
    )


def test_completion_is_one_per_game_ended_by_the_rules():
    """Games: rules, turn_cap, rules -> completion values 1, 0, 1 (mean 2/3), a proportion like a win rate."""
    values = per_game_values(table(["rules", "turn_cap", "rules"]), ["random", "random"])
    assert values["completion"].tolist() == [1.0, 0.0, 1.0]
    assert kind_of("completion") == "win_rate"


def test_results_without_ended_by_have_no_completion():
    values = per_game_values(table(["rules"]).drop(["ended_by"]), ["random", "random"])
    assert "completion" not in values


def test_a_study_may_expect_completion_and_nothing_misspelt():
    run = Run(players=2, agents=["random"], games=10, expect={"completion": {"at_least": 0.999}})
    assert run.expect["completion"].text() == "at least 0.999"
    with pytest.raises(ValueError, match="completion, margin, length or <metric>_per_player"):
        Run(players=2, agents=["random"], games=10, expect={"completeness": {"at_least": 0.999}})


@pytest.mark.parametrize("with_completion", [True, False])
def test_a_baseline_cell_with_or_without_completion_loads(with_completion):
    number = {"kind": "win_rate", "games": 10, "mean": 0.5, "variance": 0.25}
    numbers = {"seat_win_rate:1": number, "seat_win_rate:2": number}
    if with_completion:
        numbers["completion"] = {"kind": "win_rate", "games": 10, "mean": 1.0, "variance": 0.0}
    cell = {"run": "r", "variant": "v", "players": 2, "agents": ["random", "random"], "numbers": numbers}
    check_cell_numbers(cell, 0, "baseline.json", CheckSettings())  # raises on a number it does not know


def test_completion_is_tested_against_the_baseline_only_when_check_metrics_names_it():
    """Default (check.metrics None: every metric) leaves completion out; naming it tracks it."""
    from balancer.check.values import is_tracked

    assert not is_tracked("completion", None)
    assert is_tracked("completion", ["completion"]) and not is_tracked("completion", ["turns_per_player"])
