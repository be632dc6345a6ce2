"""Whole chunks of games in one compiled call: what a game's ``play_chunk`` returns.

A game may register ``play_chunk(cfg, agents, run_seed, start, stop) -> GameBatch`` in its
:class:`~balancer.core.registry.GameSpec`: games ``start..stop-1`` of a run, seated as
:func:`balancer.core.tables.seat_agents` seats them and seeded as
:func:`balancer.core.seeding.game_rngs` seeds them (:mod:`balancer.core.fastseed` does that in
compiled code), played without a Python object per game. The runner turns a batch into its rows
(:func:`balancer.sim.records.batch_table`) exactly as it turns the per-game :class:`Outcome` of
``play_game`` into rows, so the two paths give the same results, column for column (tested per game).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

DEFAULT_CHUNK_GAMES = 2000
"""The most games of a runner's default chunk, unless the game says otherwise for a table
(``GameSpec.chunk_games``, e.g. a compiled table that plays 100,000 games a second)."""


@dataclass(frozen=True)
class GameBatch:
    """Outcomes of ``g`` consecutive games of ``n`` seats (index 0 of a seat axis is seat 1).

    scores: int64[g, n] final totals. tiebreak: int64[g, n, k] compared after the score, larger is
    better. components: name -> int64[g, n] (summing to ``scores``), in the order the game reports
    them. metrics: name -> float64[g, n]. turns: int64[g, n]. labels: name -> (int codes [g, n],
    the text of each code). ended_by: int64[g], how each game ended (an index into
    :data:`balancer.core.kernel.ENDED_BY`), or None when every game ended by the rules.
    standings: float64[g, K, n], each game's trajectory (:attr:`balancer.core.game.Outcome.standings`:
    per checkpoint, per seat), NaN after a game's last checkpoint; with ``checkpoints``: int64[g],
    each game's number of checkpoints (1..K). Both None when the game records no trajectory.
    """

    scores: np.ndarray
    tiebreak: np.ndarray
    components: dict[str, np.ndarray]
    metrics: dict[str, np.ndarray]
    turns: np.ndarray
    labels: dict[str, tuple[np.ndarray, tuple[str, ...]]] = field(default_factory=dict)
    ended_by: np.ndarray | None = None
    standings: np.ndarray | None = None
    checkpoints: np.ndarray | None = None

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])


def ranks_and_shares(scores: np.ndarray, tiebreak: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`balancer.core.game.ranks_and_win_shares` over a batch: competition ranks
    int32[g, n] (1 best; players equal on score and every tie-breaker share a rank) and win shares
    float64[g, n] (1/k to each of k players tied first, else 0)."""
    keys = np.concatenate([scores[:, :, None], tiebreak], axis=2).astype(np.int64)  # [g, n, 1 + k]
    mine, other = keys[:, :, None, :], keys[:, None, :, :]  # [g, n, n, 1 + k]
    greater = np.zeros(keys.shape[:2] + (keys.shape[1],), dtype=bool)
    equal_so_far = np.ones_like(greater)
    for c in range(keys.shape[2]):  # lexicographic: the first column that differs decides
        greater |= equal_so_far & (other[..., c] > mine[..., c])
        equal_so_far &= other[..., c] == mine[..., c]
    ranks = (1 + greater.sum(axis=2)).astype(np.int32)
    first = ranks == 1
    shares = first / first.sum(axis=1, keepdims=True)
    return ranks, shares.astype(np.float64)
