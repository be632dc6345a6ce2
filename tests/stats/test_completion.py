"""Completion (balancer/stats/completion.py): games a safety stop ended, counted by cause with Wilson
intervals, the labels held in them, and the sentences the terminal and the report print."""

from __future__ import annotations

import polars as pl
import pytest

from balancer.stats.aggregate import summarize, wilson_interval
from balancer.stats.completion import completion, completion_lines


def results(ended: list[str]) -> pl.DataFrame:
    """Two-seat games, one per entry of ``ended``; seat 1 holds deck "ibex" in stopped games, "bull" else."""
    rows = []
    for i, e in enumerate(ended):
        for seat in (1, 2):
            deck = ("ibex" if seat == 1 else "eagle") if e != "rules" else "bull"
            rows.append(
                {"game_index": i, "seat": seat, "agent": "random", "score": 1, "win_share": 0.5, "ended_by": e}
                | {"label_deck": deck}
            )
    return pl.DataFrame(rows)


def test_three_of_five_thousand_at_the_turn_cap():
    """3 of 5,000 stopped at the turn cap (games 7, 1000, 4999): share 0.0006; the Wilson 95%
    interval of 3/5000 is 0.02%-0.18% (the issue's example, computed by wilson_interval); the labels
    of those games: ibex 3 (seat 1), eagle 3 (seat 2)."""
    ended = ["rules"] * 5000
    for i in (7, 1000, 4999):
        ended[i] = "turn_cap"
    c = completion(results(ended).lazy(), 5000, 0.95)
    assert c is not None
    assert (c.games, c.by_rules, c.not_by_rules) == (5000, 4997, 3)
    assert c.not_by_rules_share == pytest.approx(0.0006)
    assert (c.not_by_rules_ci_low, c.not_by_rules_ci_high) == wilson_interval(3, 5000, 0.95)
    assert round(100 * c.not_by_rules_ci_low, 2) == 0.02 and round(100 * c.not_by_rules_ci_high, 2) == 0.18
    [cause] = c.by_cause
    assert (cause.cause, cause.games, cause.game_indices) == ("turn_cap", 3, [7, 1000, 4999])
    assert cause.labels == {"deck": {"eagle": 3, "ibex": 3}}
    import dataclasses

    lines = completion_lines(dataclasses.asdict(c), lambda i: f"balancer play x --game-index {i}")
    assert lines[0] == "3 of 5,000 games (0.06%, 95% CI 0.02-0.18%) stopped at the turn cap before the game's end"
    assert "  replay game 1000: balancer play x --game-index 1000" in lines
    assert lines[-1].startswith("the win rates include these games")


def test_every_game_by_the_rules_says_nothing():
    """No stopped game: completion 1 (Wilson upper bound exactly 1), no cause, no line to print."""
    c = completion(results(["rules"] * 10).lazy(), 10, 0.95)
    assert c is not None and c.rate == 1.0 and c.ci_high == 1.0 and c.by_cause == []
    assert completion_lines({"games": 10, "not_by_rules": 0, "by_cause": []}) == []


def test_summary_json_has_completion_only_with_the_column():
    """summary.json gains "completion" from an ended_by column; results without one (written before
    it existed) are summarised as before."""
    df = results(["rules", "turn_cap"])
    assert summarize(df, {})["completion"]["not_by_rules"] == 1
    assert "completion" not in summarize(df.drop("ended_by"), {})
