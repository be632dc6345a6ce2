"""A chunk's records: its rows, from :class:`~balancer.core.game.Outcome` objects one game at a time
(:class:`OutcomeRows`) or from a :class:`~balancer.core.batch.GameBatch` without a Python object per
game (:func:`batch_table`), and what is kept of a game that raised (:func:`failure_record`).

The columns, their order and types are the same on both paths (docs/architecture.md, "Results"): ``variant,
game, n_players, game_index, seed, seat, agent, score, rank, win_share, turns, ended_by``, then ``score_*``,
``metric_*`` and ``label_*``; rows by game, then seat.

A game that records trajectories (``Outcome.standings``, ``GameBatch.standings``) also gives a chunk's
trajectory rows (:func:`batch_trajectories`, :meth:`OutcomeRows.trajectories`; the contract of
``trajectories.parquet`` in :mod:`balancer.stats.flow`): ``variant, n_players, game_index, checkpoint,
seat, standing``, rows by game, then checkpoint, then seat.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from balancer.core.batch import GameBatch, ranks_and_shares
from balancer.core.game import Outcome
from balancer.core.kernel import ENDED_BY


def _numbers(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers as an Arrow array of its type, its memory shared (no nulls: a NaN stays
    a NaN, as ``pa.array`` keeps it). ``pa.array`` would do the same, but it imports pandas (about a
    second of a loaded machine, in every run) to ask whether the array is a pandas one."""
    values = np.ascontiguousarray(values)
    if values.dtype.kind not in "iuf" or values.ndim != 1:  # booleans are bits in Arrow: let pyarrow convert
        return pa.array(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def _texts(texts: Sequence[str]) -> pa.Array:
    """Python strings as an Arrow string array (``pa.array(texts, pa.string())``, without pandas:
    :func:`_numbers`)."""
    data = [t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(data) + 1, np.int32)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    return _string_array(offsets, b"".join(data))


def _string_array(offsets: np.ndarray, data: bytes | np.ndarray) -> pa.Array:
    return pa.Array.from_buffers(pa.string(), len(offsets) - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


_SMALL_CODED = 4096
"""The most codes :func:`_coded` turns into text itself."""

_MAX_STRING_BYTES = 2**31 - 1
"""The most bytes of text an Arrow string array (32-bit offsets) holds."""


def _decoded(codes: np.ndarray, names: Sequence[str]) -> pa.Array:
    """``names[code]`` for each code through Arrow's dictionary cast, which says when the text is too
    long for a string array (a chunk of millions of games with long names)."""
    indices = _numbers(codes.reshape(-1).astype(np.int32))
    return pa.DictionaryArray.from_arrays(indices, _texts(list(names))).cast(pa.string())


def _repeat(text: str, rows: int) -> pa.Array:
    """``text`` on each of ``rows`` rows, an Arrow string array."""
    word = text.encode("utf-8")
    if len(word) * rows > _MAX_STRING_BYTES:
        return _decoded(np.zeros(rows, np.int32), [text])
    return _string_array(np.arange(rows + 1, dtype=np.int32) * len(word), word * rows)


def _coded(codes: np.ndarray, names: Sequence[str]) -> pa.Array:
    """The string array of ``names[code]`` for each code. Up to :data:`_SMALL_CODED` codes, built from
    the names' bytes: Arrow's dictionary cast (:func:`_decoded`) imports pyarrow.compute, a tenth of a
    second that a short run would pay for a few rows; past it, the cast is the faster (0.3 ms against
    1.5 ms for 40,000 rows)."""
    words = [n.encode("utf-8") for n in names]
    width = max((len(w) for w in words), default=0)
    table = np.zeros((len(words), width), np.uint8)  # each name's bytes, padded to the longest
    for i, w in enumerate(words):
        table[i, : len(w)] = np.frombuffer(w, np.uint8)
    lengths = np.array([len(w) for w in words], np.int32)
    codes = codes.reshape(-1)
    if len(codes) > _SMALL_CODED or int(lengths.astype(np.int64)[codes].sum()) > _MAX_STRING_BYTES:
        return _decoded(codes, names)
    offsets = np.zeros(len(codes) + 1, np.int32)
    np.cumsum(lengths[codes], out=offsets[1:])
    data = table[codes][np.arange(width) < lengths[codes][:, None]]  # row by row, each name's bytes
    return _string_array(offsets, np.ascontiguousarray(data))


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
        "n_players": _numbers(np.full(rows, n, dtype=np.int32)),
        "game_index": _numbers(np.repeat(index, n)),
        "seed": _numbers(np.full(rows, run_seed, dtype=np.int64)),
        "seat": _numbers(np.tile(np.arange(1, n + 1, dtype=np.int32), g)),
        "agent": _coded(by_position[agent_codes], names),
        "score": _numbers(batch.scores.reshape(-1).astype(np.int64)),
        "rank": _numbers(ranks.reshape(-1)),
        "win_share": _numbers(shares.reshape(-1)),
        "turns": _numbers(batch.turns.reshape(-1).astype(np.int64)),
        "ended_by": _coded(np.repeat(_ended_codes(batch), n), ENDED_BY),
    }
    columns |= {f"score_{k}": _numbers(v.reshape(-1).astype(np.int64)) for k, v in batch.components.items()}
    columns |= {f"metric_{k}": _numbers(v.reshape(-1).astype(np.float64)) for k, v in batch.metrics.items()}
    columns |= {f"label_{k}": _coded(codes, texts) for k, (codes, texts) in batch.labels.items()}
    return pa.table(columns)


def _ended_codes(batch: GameBatch) -> np.ndarray:
    """int64[g]: how each game of ``batch`` ended (index into ``ENDED_BY``); all "rules" when the batch says nothing."""
    if batch.ended_by is None:
        return np.zeros(batch.games, np.int64)
    codes = np.asarray(batch.ended_by, np.int64).reshape(-1)
    if codes.shape[0] != batch.games or codes.min(initial=0) < 0 or codes.max(initial=0) >= len(ENDED_BY):
        raise RuntimeError(f"GameBatch.ended_by must hold one code in 0..{len(ENDED_BY) - 1} per game")
    return codes


def trajectory_table(variant: str, index: np.ndarray, standings: np.ndarray, checkpoints: np.ndarray) -> pa.Table:
    """The trajectory rows of games ``index`` (int64[g]): ``standings`` float64[g, K, n] per game,
    checkpoint and seat, of which game i's first ``checkpoints[i]`` (1..K) checkpoints are kept.
    RuntimeError when the shapes disagree or a kept standing is not finite."""
    standings = np.asarray(standings, np.float64)
    if standings.ndim != 3:
        raise RuntimeError(f"standings must be [games, checkpoints, seats], got {standings.ndim} dimension(s)")
    g, k, n = standings.shape
    counts = np.asarray(checkpoints, np.int64).reshape(-1)
    index = np.asarray(index, np.int64).reshape(-1)
    if counts.shape[0] != g or index.shape[0] != g:
        raise RuntimeError(f"checkpoints must hold one count per game ({g}), got {counts.shape[0]}")
    if g and (counts.min() < 1 or counts.max() > k):
        raise RuntimeError(f"a game's checkpoints must be 1..{k}, got {counts.min()}..{counts.max()}")
    kept = np.arange(k)[None, :] < counts[:, None]  # [g, K]: the checkpoints each game reached
    standing = standings[kept].reshape(-1)  # row-major: by game, then checkpoint, then seat
    if not np.isfinite(standing).all():
        bad = int(np.repeat(index, counts * n)[~np.isfinite(standing)][0])
        raise RuntimeError(f"game {bad}: a standing within its checkpoints is not finite")
    rows = standing.shape[0]
    # each game's rows are its checkpoints 0..counts-1 in turn: a running count less each game's start
    steps = np.ones(rows // n if n else 0, np.int32)
    starts = np.cumsum(counts)[:-1]
    steps[starts] -= counts[:-1].astype(np.int32)
    steps[0:1] = 0
    return pa.table(
        {
            "variant": _repeat(variant, rows),
            "n_players": _numbers(np.full(rows, n, dtype=np.int32)),
            "game_index": _numbers(np.repeat(index, counts * n)),
            "checkpoint": _numbers(np.repeat(np.cumsum(steps, dtype=np.int32), n)),
            "seat": _numbers(np.tile(np.arange(1, n + 1, dtype=np.int32), rows // n if n else 0)),
            "standing": _numbers(standing),
        }
    )


def batch_trajectories(batch: GameBatch, variant: str, start: int) -> pa.Table | None:
    """The trajectory rows of ``batch`` (games ``start ..``), or None when it records none."""
    if batch.standings is None:
        return None
    if batch.checkpoints is None:
        raise RuntimeError("GameBatch.standings needs GameBatch.checkpoints (each game's number of checkpoints)")
    index = np.arange(start, start + batch.games, dtype=np.int64)
    return trajectory_table(variant, index, batch.standings, batch.checkpoints)


def _int_or_float(values: list[Any]) -> pa.Array:
    arr = np.asarray(values)
    if arr.dtype.kind in "iub":
        return _numbers(arr.astype(np.int64))
    return _numbers(arr.astype(np.float64))


def check_outcome(
    outcome: Outcome, n: int, game_index: int, components: list[str], metrics: list[str], labels: list[str]
) -> None:
    """RuntimeError naming game ``game_index`` when ``outcome`` has not ``n`` values per seat in every
    field, or other component/metric/label keys than the chunk's first game."""
    per_seat: dict[str, Sequence[Any]] = {
        "scores": outcome.scores,
        "tiebreak": outcome.tiebreak,
        "turns": outcome.turns,
    }
    per_seat |= {f"components[{k!r}]": v for k, v in outcome.components.items()}
    per_seat |= {f"metrics[{k!r}]": v for k, v in outcome.metrics.items()}
    per_seat |= {f"labels[{k!r}]": v for k, v in outcome.labels.items()}
    if outcome.ended_by not in ENDED_BY:
        raise RuntimeError(f"game {game_index}: Outcome.ended_by {outcome.ended_by!r} is not one of {ENDED_BY}")
    for name, values in per_seat.items():
        if len(values) != n:
            raise RuntimeError(f"game {game_index}: Outcome.{name} has {len(values)} values for {n} seats")
    if list(outcome.components) != components or list(outcome.metrics) != metrics or list(outcome.labels) != labels:
        raise RuntimeError(
            f"game {game_index}: Outcome components/metrics/labels {list(outcome.components)}/{list(outcome.metrics)}/"
            f"{list(outcome.labels)} differ from the first game's {components}/{metrics}/{labels}"
        )


def failure_record(game_index: int, run_seed: int, exc: BaseException) -> dict[str, Any]:
    """What is kept of a failing game: index, run seed, ``"Type: message"`` and the last frames."""
    frames = traceback.extract_tb(exc.__traceback__)[-4:]
    where = [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames]
    return {
        "game_index": game_index,
        "seed": run_seed,
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": " <- ".join(reversed(where)),
    }


class OutcomeRows:
    """The rows of a chunk's games, one :class:`Outcome` at a time: :meth:`check` a game's outcome,
    :meth:`add` it with its seats, ranks and win shares, then :meth:`table` (None before any game)."""

    def __init__(self, game: str, variant: str, n_players: int, run_seed: int):
        self.game, self.variant, self.n, self.run_seed = game, variant, n_players, run_seed
        self.game_idx: list[int] = []
        self.seats: list[int] = []
        self.seat_names: list[str] = []
        self.scores: list[Any] = []
        self.ranks: list[int] = []
        self.shares: list[float] = []
        self.turns: list[Any] = []
        self.ended: list[str] = []
        self.comps: dict[str, list[Any]] | None = None
        self.mets: dict[str, list[Any]] = {}
        self.labs: dict[str, list[str]] = {}
        self.standings: list[np.ndarray] | None = None  # per game [K, n], when the games record them
        self.standing_games: list[int] = []

    def check(self, outcome: Outcome, game_index: int) -> None:
        """:func:`check_outcome` against the first game's keys (which the first call sets), and its
        ``standings``: given by every game or by none, each checkpoint with a value per seat."""
        if self.comps is None:
            self.comps = {k: [] for k in outcome.components}
            self.mets = {k: [] for k in outcome.metrics}
            self.labs = {k: [] for k in outcome.labels}
            self.standings = [] if outcome.standings is not None else None
        check_outcome(outcome, self.n, game_index, list(self.comps), list(self.mets), list(self.labs))
        if (outcome.standings is None) != (self.standings is None):
            given = "gives no" if outcome.standings is None else "gives"
            raise RuntimeError(f"game {game_index}: Outcome.standings: the game {given} standings, the first game not")
        if outcome.standings is not None:
            if not outcome.standings or any(len(row) != self.n for row in outcome.standings):
                raise RuntimeError(
                    f"game {game_index}: Outcome.standings must hold at least one checkpoint of {self.n} values"
                )

    def add(
        self, game_index: int, table: Sequence[str], outcome: Outcome, ranks: Sequence[int], shares: Sequence[float]
    ) -> None:
        """The rows of game ``game_index`` (seated ``table``), checked by :meth:`check` first."""
        assert self.comps is not None, "check() the outcome before add()"
        n = self.n
        self.game_idx.extend([game_index] * n)
        self.seats.extend(range(1, n + 1))
        self.seat_names.extend(table)
        self.scores.extend(outcome.scores)
        self.ranks.extend(ranks)
        self.shares.extend(shares)
        self.turns.extend(outcome.turns)
        self.ended.extend([outcome.ended_by] * n)
        for k, v in outcome.components.items():
            self.comps[k].extend(v)
        for k, m in outcome.metrics.items():
            self.mets[k].extend(m)
        for k, lab in outcome.labels.items():
            self.labs[k].extend(map(str, lab))
        if self.standings is not None and outcome.standings is not None:
            self.standings.append(np.asarray(outcome.standings, dtype=np.float64).reshape(-1, n))
            self.standing_games.append(game_index)

    def trajectories(self) -> pa.Table | None:
        """The trajectory rows of the games added so far, or None when the games record none."""
        if not self.standings:
            return None
        counts = np.array([s.shape[0] for s in self.standings], dtype=np.int64)
        padded = np.full((len(self.standings), int(counts.max()), self.n), np.nan)
        for i, s in enumerate(self.standings):
            padded[i, : s.shape[0]] = s
        return trajectory_table(self.variant, np.asarray(self.standing_games, np.int64), padded, counts)

    def table(self) -> pa.Table | None:
        """The rows added so far, or None when no game's outcome was checked."""
        if self.comps is None:
            return None
        rows = len(self.seats)
        columns: dict[str, pa.Array] = {
            "variant": _texts([self.variant] * rows),
            "game": _texts([self.game] * rows),
            "n_players": _numbers(np.full(rows, self.n, dtype=np.int32)),
            "game_index": _numbers(np.asarray(self.game_idx, dtype=np.int64)),
            "seed": _numbers(np.full(rows, self.run_seed, dtype=np.int64)),
            "seat": _numbers(np.asarray(self.seats, dtype=np.int32)),
            "agent": _texts(self.seat_names),
            "score": _int_or_float(self.scores),
            "rank": _numbers(np.asarray(self.ranks, dtype=np.int32)),
            "win_share": _numbers(np.asarray(self.shares, dtype=np.float64)),
            "turns": _int_or_float(self.turns),
            "ended_by": _texts(self.ended),
        }
        columns |= {f"score_{k}": _int_or_float(v) for k, v in self.comps.items()}
        columns |= {f"metric_{k}": _numbers(np.asarray(v, dtype=np.float64)) for k, v in self.mets.items()}
        columns |= {f"label_{k}": _texts(v) for k, v in self.labs.items()}
        return pa.table(columns)
