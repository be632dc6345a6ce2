"""A chunk's rows from a :class:`~balancer.core.batch.GameBatch`, without a Python object per game.

The columns, their order and types are those of the per-game path in :mod:`balancer.sim.runner`
(DESIGN.md, "Results"): ``variant, game, n_players, game_index, seed, seat, agent, score, rank,
win_share, turns``, then ``score_*``, ``metric_*`` and ``label_*``; rows by game, then seat.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from balancer.core.batch import GameBatch, ranks_and_shares


def _repeat(text: str, rows: int) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), pa.array([text])).cast(pa.string())


def _coded(codes: np.ndarray, names: Sequence[str]) -> pa.Array:
    return pa.DictionaryArray.from_arrays(
        pa.array(codes.reshape(-1).astype(np.int32)), pa.array(list(names), pa.string())
    ).cast(pa.string())


def batch_table(
    batch: GameBatch, game: str, variant: str, agents: Sequence[str], run_seed: int, start: int
) -> pa.Table:
    """The rows of games ``start .. start + batch.games - 1`` of a run seeded ``run_seed`` whose
    game 0 seats ``agents`` (rotated per game as :func:`balancer.core.tables.seat_agents`)."""
    g, n = batch.scores.shape
    rows = g * n
    index = np.arange(start, start + g, dtype=np.int64)
    seat = np.arange(n, dtype=np.int64)
    agent_codes = (seat[None, :] + index[:, None]) % n  # seat s of game i: agents[(s + i) % n]
    names = list(dict.fromkeys(agents))
    by_position = np.array([names.index(a) for a in agents], dtype=np.int64)
    ranks, shares = ranks_and_shares(batch.scores, batch.tiebreak)
    columns: dict[str, pa.Array] = {
        "variant": _repeat(variant, rows),
        "game": _repeat(game, rows),
        "n_players": pa.array(np.full(rows, n, dtype=np.int32)),
        "game_index": pa.array(np.repeat(index, n)),
        "seed": pa.array(np.full(rows, run_seed, dtype=np.int64)),
        "seat": pa.array(np.tile(np.arange(1, n + 1, dtype=np.int32), g)),
        "agent": _coded(by_position[agent_codes], names),
        "score": pa.array(batch.scores.reshape(-1).astype(np.int64)),
        "rank": pa.array(ranks.reshape(-1)),
        "win_share": pa.array(shares.reshape(-1)),
        "turns": pa.array(batch.turns.reshape(-1).astype(np.int64)),
    }
    columns |= {f"score_{k}": pa.array(v.reshape(-1).astype(np.int64)) for k, v in batch.components.items()}
    columns |= {f"metric_{k}": pa.array(v.reshape(-1).astype(np.float64)) for k, v in batch.metrics.items()}
    columns |= {f"label_{k}": _coded(codes, texts) for k, (codes, texts) in batch.labels.items()}
    return pa.table(columns)
