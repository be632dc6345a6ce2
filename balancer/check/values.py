"""The tracked numbers of a cell, as one value per game (so that games are the independent units).

* ``seat_win_rate:<seat>``: the seat's win share in the game (1, 1/k of a k-way shared win, or 0).
* ``agent_win_rate:<agent>`` (mixed tables only; in a mirror table it is 1/n by construction): the
  mean win share of the seats the agent holds in the game.
* ``<metric>_per_player`` (every ``metric_<metric>`` column, or those chosen): the metric's mean over
  the players of the game; its mean over games is the summary's mean per player.
* ``completion`` (results with an ``ended_by`` column): 1 when the game ended by the rules, 0 when a
  safety stop ended it (the summary's ``completion.rate``); a proportion, tested like a win rate.
* ``margin`` (two or more players): the game's highest final score minus the second highest, and
  ``length`` (results with a ``turns`` column): the most turns a player took: how the game feels
  (issue 49; :mod:`balancer.stats.flow` defines both). Tracked, like ``completion``, only where
  ``check.metrics`` names them.
* ``lead_changes``, ``comeback``, ``decided_at`` and ``leader_wins`` (games that record trajectories,
  two or more players): the game's lead changes, the win share of the seats last at its midpoint (its
  mean over games is the comeback rate), the share of the game played when only winners led from
  then on, and the leaders' mean win share over its checkpoints (the leader-wins curve's per-game
  value): :mod:`balancer.stats.flow` defines each. Tracked only where ``check.metrics`` names them.

Nothing here knows a game: seats, agents and metrics come from the results table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from balancer.core.kernel import COMPLETION
from balancer.core.tables import is_mirror
from balancer.stats.tracked import AGENT, SEAT

METRIC_PREFIX = "metric_"
TRAJECTORY_NUMBERS = ("lead_changes", "comeback", "decided_at", "leader_wins")
"""Per-game numbers of how a game feels read from its trajectory (module docstring)."""
FLOW_NUMBERS = ("margin", "length", *TRAJECTORY_NUMBERS)
"""Per-game numbers of how a game feels (module docstring), tracked only where ``check.metrics`` names them."""


def kind_of(key: str) -> str:
    """``"win_rate"`` for seat and agent win rates and for ``completion`` (proportions of games),
    ``"metric"`` for the rest."""
    return "win_rate" if key.startswith((SEAT, AGENT)) or key == COMPLETION else "metric"


def is_tracked(key: str, metrics: Sequence[str] | None) -> bool:
    """Whether ``balancer check`` tests number ``key`` against the baseline: every seat and agent win
    rate, the metrics of ``check.metrics`` (all of them when it is None), and ``completion``,
    ``margin`` and ``length`` when ``check.metrics`` names them (an ``expect:`` target is tested in
    any case)."""
    if key == COMPLETION or key in FLOW_NUMBERS:
        return metrics is not None and key in metrics
    return kind_of(key) == "win_rate" or metrics is None or key in metrics


def count_tracked(baseline: Mapping[str, Any], metrics: Sequence[str] | None) -> tuple[int, int]:
    """(numbers stored, numbers tracked by :func:`is_tracked`) over the cells of a baseline dict."""
    keys = [key for cell in baseline["cells"] for key in cell["numbers"]]
    return len(keys), sum(1 for key in keys if is_tracked(key, metrics))


def per_game_values(
    table: pa.Table,
    agents: Sequence[str],
    metrics: Sequence[str] | None = None,
    flow: bool = False,
    trajectories: pa.Table | None = None,
) -> dict[str, np.ndarray]:
    """``{number: float64[games]}`` from a results table whose rows are game-major and seat-minor
    (as the runner writes them). ``agents``: the run's agents by seat for game 0; ``metrics``: the
    ``<name>_per_player`` numbers to keep (None keeps every metric); ``flow``: also ``margin`` and
    ``length``, and with the games' ``trajectories`` (``trajectories.parquet``'s rows) the numbers of
    :data:`TRAJECTORY_NUMBERS` (:data:`FLOW_NUMBERS`; ``check`` and ``baseline`` ask for them, a
    sweep's or a tune's numbers do not).

    Raises ValueError when the table's rows are not whole games.
    """
    n = len(agents)
    if table.num_rows % n:
        raise ValueError(f"{table.num_rows} rows are not whole games of {n} players")
    share = table.column("win_share").to_numpy().astype(float).reshape(-1, n)
    out = {f"{SEAT}:{s + 1}": share[:, s].copy() for s in range(n)}
    if not is_mirror(agents):
        names = np.asarray(table.column("agent").to_pylist(), dtype=object).reshape(-1, n)
        for a in dict.fromkeys(agents):
            mask = names == a
            out[f"{AGENT}:{a}"] = (share * mask).sum(axis=1) / mask.sum(axis=1)
    if "ended_by" in table.column_names:
        ended = np.asarray(table.column("ended_by").to_pylist(), dtype=object).reshape(-1, n)
        out[COMPLETION] = (ended[:, 0] == "rules").astype(float)
    if flow and n >= 2 and "score" in table.column_names:
        top = np.sort(table.column("score").to_numpy(zero_copy_only=False).astype(float).reshape(-1, n), axis=1)
        out["margin"] = top[:, -1] - top[:, -2]
    if flow and "turns" in table.column_names:
        out["length"] = table.column("turns").to_numpy(zero_copy_only=False).astype(float).reshape(-1, n).max(axis=1)
    if flow and n >= 2 and trajectories is not None:
        out.update(trajectory_values(table, trajectories, n))
    for col in table.column_names:
        if col.startswith(METRIC_PREFIX):
            name = f"{col[len(METRIC_PREFIX) :]}_per_player"
            if metrics is None or name in metrics:
                values = table.column(col).to_numpy(zero_copy_only=False).astype(float).reshape(-1, n)
                with np.errstate(all="ignore"):
                    out[name] = np.nanmean(np.where(np.isfinite(values), values, np.nan), axis=1)
    return out


def trajectory_values(table: pa.Table, trajectories: pa.Table, n: int) -> dict[str, np.ndarray]:
    """:data:`TRAJECTORY_NUMBERS` of the games of ``table`` (game-major rows of ``n`` seats), in its
    game order, from their ``trajectories`` (:func:`balancer.stats.flow.per_game_flow` and
    :func:`~balancer.stats.flow.leader_credits`, which check the trajectory contract: ValueError
    when it is broken); NaN for a game without a trajectory."""
    import polars as pl

    from balancer.stats.flow import leader_credits, per_game_flow

    res, traj = pl.from_arrow(table), pl.from_arrow(trajectories)
    assert isinstance(res, pl.DataFrame) and isinstance(traj, pl.DataFrame)
    per = per_game_flow(res, traj).select("game_index", "lead_changes", "comeback", "decided_at")
    wins = leader_credits(res, traj).group_by("game_index").agg(pl.col("credit").mean().alias("leader_wins"))
    order = pl.DataFrame({"game_index": table.column("game_index").to_numpy()[::n]})
    values = order.join(per.join(wins, on="game_index", how="left"), on="game_index", how="left", maintain_order="left")
    return {key: values[key].cast(pl.Float64).fill_null(float("nan")).to_numpy() for key in TRAJECTORY_NUMBERS}


def moments(values: np.ndarray) -> tuple[int, float, float]:
    """(games, mean, sample variance with ddof=1; 0 for a single game) of finite per-game values."""
    v = values[np.isfinite(values)]
    n = int(v.size)
    if n == 0:
        return 0, float("nan"), float("nan")
    return n, float(v.mean()), float(v.var(ddof=1)) if n > 1 else 0.0
