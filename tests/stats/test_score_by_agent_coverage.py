"""Issue 32, item 1: the score-by-agent interval treats games, not seat appearances, as the units.

Truth by construction: an agent's score in seat s of game g is ``mu + u_g + e_gs`` with a game
effect ``u_g ~ N(0, 1)`` shared by the seats of one game (their deal) and noise ``e_gs ~ N(0, 0.5^2)``:
the within-game correlation is 1 / 1.25 = 0.8 and the true mean per seat is ``mu``. With the same
number of seats per game the clustered interval is the t interval over the per-game means, exact
for normal data, so its coverage is 95% up to simulation error: 1,000 replicates give a standard
error of sqrt(0.95 * 0.05 / 1000) = 0.0069, and 0.925-0.975 is 3.6 standard errors either side.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from balancer.stats.aggregate import _clustered_mean_row, summary_of

REPS = 1000


def _records(scores: np.ndarray) -> list[dict[str, float]]:
    """The per-game sums :func:`_clustered_mean_row` reads, for every replicate of (reps, games, seats)."""
    s = scores.sum(axis=2)
    k = scores.shape[2]
    games = scores.shape[1]
    return [
        {
            "x__S": float(row.sum()),
            "x__K": k * games,
            "x__G": games,
            "x__SS": float((row * row).sum()),
            "x__SK": float(row.sum() * k),
            "x__KK": k * k * games,
        }
        for row in s
    ]


@pytest.mark.parametrize(
    ("games", "seats", "label"),
    [(2000, 4, "mirror table, every seat"), (30, 2, "30 games, two seats"), (200, 3, "an agent in 3 seats")],
)
def test_clustered_interval_covers_95(games: int, seats: int, label: str) -> None:
    rng = np.random.default_rng(32)
    mu = 40.0
    scores = mu + rng.normal(0, 1, (REPS, games, 1)) + rng.normal(0, 0.5, (REPS, games, seats))
    hits = 0
    for rec in _records(scores):
        row = _clustered_mean_row(rec, "x", 0.95)
        hits += row["ci_low"] <= mu <= row["ci_high"]
    assert 0.925 <= hits / REPS <= 0.975, label
    # the interval over seat appearances, each taken as independent, covers far less (the bug)
    flat = scores.reshape(REPS, -1)
    half = 1.96 * flat.std(axis=1, ddof=1) / np.sqrt(flat.shape[1])
    naive = np.mean(np.abs(flat.mean(axis=1) - mu) <= half)
    assert naive < 0.90


def test_summary_uses_the_clustered_interval() -> None:
    """summary_of's score_by_agent equals the t interval over per-game means: 3 games of a mirror
    table of 2 seats with scores (1, 3), (2, 2), (6, 4): per-game means 2, 2, 5, mean 3, sd sqrt(3),
    t(2, 0.975) = 4.302653, half-width 4.302653 * sqrt(3) / sqrt(3) = 4.302653."""
    df = pl.DataFrame(
        {
            "game_index": [0, 0, 1, 1, 2, 2],
            "seat": [1, 2] * 3,
            "agent": ["greedy"] * 6,
            "score": [1, 3, 2, 2, 6, 4],
            "win_share": [0.0, 1.0, 0.5, 0.5, 1.0, 0.0],
        }
    )
    row = summary_of(df, {"game": "x", "variant": "v", "n_players": 2, "seed": 1}).score_by_agent[0]
    assert row.mean == pytest.approx(3.0)
    assert row.n == 6
    assert row.ci_low == pytest.approx(3 - 4.302653, abs=1e-6)
    assert row.ci_high == pytest.approx(3 + 4.302653, abs=1e-6)
