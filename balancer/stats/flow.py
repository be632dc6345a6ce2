"""How a game feels (issue 49): margin, score distributions, length, and the flow measures of each
game's trajectory, with 95% intervals over games, and their paired differences between two variants.

**The trajectory contract.** A run that records trajectories keeps ``trajectories.parquet`` in its
run directory beside ``results.parquet``: long format, one row per seat per checkpoint per game,

============  =====  =====================================================================
column        type   meaning
============  =====  =====================================================================
variant       str    the variant's name, as in ``results.parquet``
n_players     i32    the game's player count
game_index    i64    the game, as in ``results.parquet`` (the pairing key between variants)
checkpoint    i32    0 .. K-1: the end of each round (of each turn pair, for a game without
                     rounds); K may differ from game to game, checkpoint K-1 is the game's end
seat          i32    1-based, as in ``results.parquet``
standing      f64    the seat's score where it is public mid-game, else the kernel's
                     ``heuristic`` for the seat (each game's page says which)
============  =====  =====================================================================

Every seat of the game has a row at every checkpoint 0..K-1 (:func:`check_trajectories`). The final
results are ``results.parquet`` (docs/architecture.md, "Results"): ``score``, ``win_share`` (1/k
for each of k tied winners), ``turns`` and ``ended_by`` are read from it.

**The measures.** Games are the independent units; every interval is over games, at ``confidence``
(0.95 by default). From the results alone:

* *margin*: the highest final score minus the second highest, in points (>= 0; 0 when the top two
  tie on points, whatever the tie-breaker then decided); ``tied_on_points`` counts those games and
  ``shared_wins`` the games whose win is shared (two seats with ``win_share > 0``). Solo games have
  no margin. Its distribution (quantiles, histogram) and mean with a Student-t interval.
* *seat scores*: each seat's final score over games: quantiles and mean with a t interval.
* *length*: a game's turns, the most any of its seats took (a game played in rounds: its rounds);
  distribution and mean with a t interval, beside ``ended_by`` (games per ending: the rules or a
  safety stop).

From the trajectories and the results (games of one player left out):

* *leader wins*, for each checkpoint k: the share of the games reaching k that were won by the seat
  leading at k, with a Wilson interval. **Ties in the lead**: a game in which several seats lead
  at k credits the leaders' mean win share (their summed ``win_share`` divided by their number):
  the chance that one of the leaders picked at random won. So a checkpoint at which every seat is
  tied (the start) credits 1/n, the fair share; ``tied`` counts the games with a tie in the lead.
  A shared win credits each winner its 1/k. The Wilson interval takes these fractional successes.
* *lead changes* per game: the number of checkpoints at which the sole leader differs from the
  previous sole leader; checkpoints with a tie in the lead are skipped (A, tie, A: no change;
  A, tie, B: one). At most K-1. Mean with a t interval, and its distribution.
* *comebacks*: the share of games won by a seat that was last at the midpoint checkpoint
  ``m = (K-1) // 2`` (after half the rounds, rounded up), with a Wilson interval: a game credits
  the summed win share of its seats last at m (several may tie for last). A game in which every
  seat is tied at the midpoint has no last seat: it is no comeback (credit 0, counted in the
  denominator; ``all_tied_at_midpoint`` counts them).
* *decided at*: the first checkpoint k from which, at every checkpoint, every seat in the lead is
  an eventual winner (seats with ``win_share > 0``; so a sole winner must lead alone, and a shared
  win is decided once only the sharing seats lead), as a share of the game's length: ``(k + 1) / K``
  in (0, 1]. 1 means the game was decided at its last checkpoint, or only by the final scoring
  (the winner did not lead at the end: a hidden score, a tie-breaker). Distribution and mean with
  a t interval.

The leader-wins curve is by checkpoint index: where games differ in length, its late points hold
only the longer games (``games`` says how many).

**Paired differences** (:func:`paired_flow`): two variants played with the same seed play game *i*
on the same deals (docs/architecture.md, "Determinism"), so each measure's per-game values are
paired by ``(n_players, game_index)`` and compared with :func:`balancer.stats.paired.paired_test`
(per-game differences, t interval, the exact sign test when fewer than 30 games differ); when the
games do not pair (other player counts, other games) :func:`balancer.stats.paired.welch_test`.
Its ``rows`` (one per measure; the leader-wins curve as one row, its per-game mean over checkpoints)
are meant for ``compare``'s one Holm family (:func:`balancer.compare.holm_page` adjusts every row
it is given); ``leader_wins`` holds the curve's per-checkpoint differences, each with its own
interval and unadjusted p-value (descriptive: as many tests as checkpoints would swamp the family).

Pure functions over polars frames; no file is read here (the run directory is sim's ``RunDir``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from balancer.stats.frames import DEFAULT_CONFIDENCE, mean_interval, wilson_interval
from balancer.stats.paired import paired_test, welch_test
from balancer.stats.summary import json_clean

__all__ = [
    "TRAJECTORIES_FILE",
    "TRAJECTORY_SCHEMA",
    "Distribution",
    "Share",
    "LeaderPoint",
    "SeatScores",
    "TrajectoryMeasures",
    "FlowMeasures",
    "check_trajectories",
    "per_game_flow",
    "leader_credits",
    "flow_measures",
    "paired_flow",
    "midpoint",
]

TRAJECTORIES_FILE = "trajectories.parquet"
"""The file of a run directory that holds its trajectories (the contract in the module docstring)."""

TRAJECTORY_SCHEMA: Mapping[str, pl.DataType] = {
    "variant": pl.String(),
    "n_players": pl.Int32(),
    "game_index": pl.Int64(),
    "checkpoint": pl.Int32(),
    "seat": pl.Int32(),
    "standing": pl.Float64(),
}
"""The columns of ``trajectories.parquet`` and their types."""

GAME = ("n_players", "game_index")
"""What names a game: the pairing key between two variants played with the same seed."""

QUANTILES: tuple[tuple[str, float], ...] = (
    ("min", 0.0),
    ("q05", 0.05),
    ("q25", 0.25),
    ("median", 0.5),
    ("q75", 0.75),
    ("q95", 0.95),
    ("max", 1.0),
)
"""The quantiles of a distribution (linear interpolation between order statistics)."""

MAX_BINS = 30
"""The most bins of a histogram; integer data spanning fewer values gets one bin per value."""


# --------------------------------------------------------------------------- result types


@dataclass(frozen=True)
class Distribution:
    """A per-game quantity over games: ``n`` games, mean with a Student-t interval at the measures'
    confidence (``None`` bounds under 2 games), ``quantiles`` (:data:`QUANTILES`, by name) and a
    histogram (``edges``: bin edges, one more than ``counts``; integer data: one bin per value,
    centred on it)."""

    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    quantiles: dict[str, float]
    edges: list[float]
    counts: list[int]


@dataclass(frozen=True)
class Share:
    """A share of games (fractional successes allowed: a shared win counts its part) with a Wilson
    interval: ``rate = credit / games``."""

    rate: float | None
    ci_low: float | None
    ci_high: float | None
    games: int
    credit: float


@dataclass(frozen=True)
class LeaderPoint:
    """One point of the leader-wins curve: at ``checkpoint``, the share of the ``games`` reaching it
    won by the seat leading there (Wilson interval); ``tied``: games with a tie in the lead there."""

    checkpoint: int
    rate: float
    ci_low: float
    ci_high: float
    games: int
    tied: int


@dataclass(frozen=True)
class SeatScores:
    """One seat's final score over games (points)."""

    seat: int
    scores: Distribution


@dataclass(frozen=True)
class TrajectoryMeasures:
    """The measures read from trajectories: ``games`` measured (in both files, two or more
    players), ``without_trajectory`` (games of the results with no trajectory), the shortest and
    longest K (checkpoints per game)."""

    games: int
    without_trajectory: int
    checkpoints_min: int
    checkpoints_max: int
    leader_wins: list[LeaderPoint]
    lead_changes: Distribution
    comebacks: Share
    all_tied_at_midpoint: int
    decided_at: Distribution


@dataclass(frozen=True)
class FlowMeasures:
    """How a game feels, from one run (:func:`flow_measures`). ``margin`` is None when no game has
    two players; ``length`` None when the results have no ``turns``; ``trajectory`` None when no
    trajectories were given."""

    confidence: float
    games: int
    margin: Distribution | None
    tied_on_points: int
    shared_wins: int
    seat_scores: list[SeatScores]
    length: Distribution | None
    ended_by: dict[str, int]
    trajectory: TrajectoryMeasures | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN -> None) with the fields' names as keys, for summary.json."""
        out: dict[str, Any] = json_clean(dataclasses.asdict(self))
        return out


# --------------------------------------------------------------------------- checks


def _collect(frame: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def _results_frame(results: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """The results columns the measures read, one variant, with ``n_players`` (counted per game
    when the table has none). Raises ValueError naming a missing column."""
    lf = results.lazy() if isinstance(results, pl.DataFrame) else results
    names = lf.collect_schema().names()
    missing = [c for c in ("game_index", "seat", "score", "win_share") if c not in names]
    if missing:
        raise ValueError(f"results table lacks required column(s): {', '.join(missing)}")
    keep = [
        c
        for c in ("variant", "n_players", "game_index", "seat", "score", "win_share", "turns", "ended_by")
        if c in names
    ]
    df = lf.select(keep).collect()
    if "variant" in df.columns and df["variant"].n_unique() > 1:
        raise ValueError(f"results table holds {df['variant'].n_unique()} variants; the measures are of one")
    if "n_players" not in df.columns:
        df = df.with_columns(pl.len().over("game_index").cast(pl.Int32).alias("n_players"))
    return df.with_columns(pl.col("score").cast(pl.Float64), pl.col("win_share").cast(pl.Float64))


TRAJECTORY_ORDER = ("n_players", "game_index", "checkpoint", "seat")
"""The order in which the measures read the trajectory rows: by game, then checkpoint, then seat."""


def check_trajectories(trajectories: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """The trajectories as an eager frame in :data:`TRAJECTORY_SCHEMA`'s types, checked against
    the contract: every column present, standings finite, one row per (game, checkpoint, seat),
    each game's checkpoints 0..K-1 with every seat at each. Raises ValueError saying what is wrong
    (the first game at fault by its ``game_index``)."""
    return _checked_trajectories(trajectories)[0]


BLOCK_ROWS = 1 << 17
"""Rows per numpy pass over the trajectories (:func:`_layout`, :func:`_trajectory_frames`,
:func:`_ordered_sums`): each pass's temporary arrays stay a megabyte or two, which the allocator
reuses. One pass over a whole slice (6 million checkpoints of 100,000 Urgency games) made each
temporary a fresh 50 MB mapping, and filling its pages cost twenty times the arithmetic on this
machine (``np.where`` over 6.1 million rows: 0.31 CPU s, in blocks of 131,072: 0.016)."""


@dataclass(frozen=True)
class _Layout:
    """Where each game lies in the trajectory rows sorted by :data:`TRAJECTORY_ORDER`: its first row
    (``starts``), its player count and its checkpoints K (int64 arrays, one entry per game, in
    :data:`GAME` order); a game of n players holds the K * n rows from its first, the n seats of
    checkpoint 0 in ascending order, then those of checkpoint 1, and so on."""

    starts: np.ndarray
    players: np.ndarray
    checkpoints: np.ndarray


def _layout(n: np.ndarray, g: np.ndarray, c: np.ndarray, s: np.ndarray) -> _Layout | None:
    """The games' :class:`_Layout` when the rows (the columns of :data:`TRAJECTORY_ORDER`) are sorted
    in that order and keep the contract (every seat at every checkpoint 0..K-1, one row each), else
    None. In numpy, a few passes over the rows, :data:`BLOCK_ROWS` at a time (a polars group_by per
    game took seconds): the games
    follow each other in ascending order, each game's first n rows are checkpoint 0 in ascending
    seats, and every later row is the row n before it one checkpoint on."""
    rows = n.size
    parts = [np.zeros(min(rows, 1), dtype=np.int64)]  # row 0 opens a game; then blocks of rows
    for a in range(1, rows, BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, rows)
        parts.append(np.flatnonzero((g[a:b] != g[a - 1 : b - 1]) | (n[a:b] != n[a - 1 : b - 1])) + a)
    starts = np.concatenate(parts)
    gn, gg = n[starts], g[starts]
    if not ((gn[1:] > gn[:-1]) | ((gn[1:] == gn[:-1]) & (gg[1:] > gg[:-1]))).all():
        return None  # a game's rows are not together, or the games are not in order
    players = gn.astype(np.int64)
    lengths = np.diff(np.append(starts, rows))
    if (players < 1).any() or (lengths % np.maximum(players, 1)).any():
        return None
    for p in np.unique(players):  # the games of one player count follow each other
        p = int(p)
        block = np.flatnonzero(players == p)
        j0, j1 = int(block[0]), int(block[-1]) + 1
        lo, hi = int(starts[j0]), (int(starts[j1]) if j1 < starts.size else rows)
        first = starts[j0:j1]
        if any((c[first + q] != 0).any() for q in range(p)):
            return None
        if not all((s[first + q] > s[first + q - 1]).all() for q in range(1, p)):
            return None
        for a in range(lo + p, hi, BLOCK_ROWS):  # each row against the row p before it
            b = min(a + BLOCK_ROWS, hi)
            same = g[a:b] == g[a - p : b - p]
            if not (~same | ((c[a:b] == c[a - p : b - p] + 1) & (s[a:b] == s[a - p : b - p]))).all():
                return None
    return _Layout(starts, players, lengths // players)


def _sorted(df: pl.DataFrame) -> pl.DataFrame:
    """The rows in :data:`TRAJECTORY_ORDER`: by one int64 key that packs the four columns when their
    ranges fit in 62 bits (a sort by four columns took several times as long), else by the four."""
    keys = [df[c].to_numpy().astype(np.int64) for c in TRAJECTORY_ORDER]
    spans = [int(k.max()) - int(k.min()) + 1 for k in keys]
    if math.prod(spans) >= 2**62:
        return df.sort(TRAJECTORY_ORDER)
    packed = np.zeros(df.height, dtype=np.int64)
    for k, span in zip(keys, spans):
        packed = packed * span + (k - k.min())
    return df[np.argsort(packed, kind="stable")]


def _checked_trajectories(
    trajectories: pl.LazyFrame | pl.DataFrame,
) -> tuple[pl.DataFrame, pl.DataFrame, _Layout]:
    """(:func:`check_trajectories`' frame, the same rows in :data:`TRAJECTORY_ORDER`, its
    :class:`_Layout`). Rows already in that order (as a run writes them) are not sorted again."""
    df = _collect(trajectories)
    missing = [c for c in TRAJECTORY_SCHEMA if c not in df.columns]
    if missing:
        raise ValueError(f"trajectories lack column(s): {', '.join(missing)}")
    try:
        df = df.select(pl.col(c).cast(t) for c, t in TRAJECTORY_SCHEMA.items())
    except pl.exceptions.PolarsError as exc:
        raise ValueError(f"trajectories have a column of the wrong type: {exc}") from None
    if df.select(pl.col("standing").is_null().any() | (~pl.col("standing").is_finite()).any()).item():
        raise ValueError("trajectories hold a standing that is missing or not finite")
    if df.select(pl.any_horizontal(pl.col(*TRAJECTORY_ORDER).is_null().any())).item():
        raise ValueError("trajectories hold a row with no n_players, game_index, checkpoint or seat")
    srt = df
    layout = _layout(*(srt[c].to_numpy() for c in TRAJECTORY_ORDER))
    if layout is None:
        srt = _sorted(df)
        layout = _layout(*(srt[c].to_numpy() for c in TRAJECTORY_ORDER))
    if layout is None:
        _raise_broken_contract(df)
        raise AssertionError("the trajectory contract's two checks disagree")  # pragma: no cover
    return df, srt, layout


def _raise_broken_contract(df: pl.DataFrame) -> None:
    """Raise the ValueError that says how the trajectories break the contract: a (game, checkpoint,
    seat) of two rows, else the first game (by ``game_index``) that is not every seat at every
    checkpoint 0..K-1. Run only on trajectories :func:`_layout` refused."""
    if df.select(pl.struct(*GAME, "checkpoint", "seat").is_duplicated().any()).item():
        raise ValueError("trajectories have more than one row for some (game, checkpoint, seat)")
    shape = df.group_by(GAME).agg(
        pl.col("checkpoint").min().alias("lo"),
        pl.col("checkpoint").max().alias("hi"),
        pl.col("checkpoint").n_unique().alias("k"),
        pl.col("seat").n_unique().alias("seats"),
        pl.len().alias("rows"),
    )
    bad = shape.filter(
        (pl.col("lo") != 0)
        | (pl.col("hi") + 1 != pl.col("k"))
        | (pl.col("rows") != pl.col("k") * pl.col("seats"))
        | (pl.col("seats") != pl.col("n_players"))
    )
    if bad.height:
        g = bad.sort("game_index").row(0, named=True)
        raise ValueError(
            f"trajectory of game {g['game_index']} is not every seat at every checkpoint 0..K-1 "
            f"(checkpoints {g['lo']}..{g['hi']}, {g['seats']} of {g['n_players']} seats, {g['rows']} rows)"
        )


# --------------------------------------------------------------------------- per game


def midpoint(k: int) -> int:
    """The midpoint checkpoint of a game of ``k`` checkpoints: ``(k - 1) // 2``, the end of the
    round that completes half the game, rounded up (4 checkpoints: 1; 5: 2; 1: 0)."""
    return (k - 1) // 2


def _duplicate_seats(res: pl.DataFrame) -> bool:
    """Whether some (game, seat) has two rows: the distinct count of one integer key per (n_players,
    game_index, seat) (a hash of one int64 column: a tenth of the time of a struct's)."""
    if res.height == 0:
        return False
    seat, n, g = res["seat"], res["n_players"], res["game_index"]
    small = 0 <= int(seat.min()) and int(seat.max()) < 1024 and 0 <= int(n.min()) and int(n.max()) < 64  # type: ignore[arg-type]
    if small and 0 <= int(g.min()) and int(g.max()) < 2**46:  # type: ignore[arg-type]
        key = (g.cast(pl.Int64) * 64 + n.cast(pl.Int64)) * 1024 + seat.cast(pl.Int64)
        return key.n_unique() < res.height
    return bool(res.select(pl.struct(*GAME, "seat").is_duplicated().any()).item())


def _results_per_game(res: pl.DataFrame) -> pl.DataFrame:
    """One row per game (sorted by :data:`GAME`): margin, shared win, length, ended_by. Raises
    ValueError when a game has two rows for one seat.

    Written for a million games: one global sort by score puts each game's two best scores side by
    side (the margin is the first row's score minus the next row's in the same game), and the rest
    are plain aggregates (a sort or a list inside each game's group took ten times as long)."""
    if _duplicate_seats(res):
        raise ValueError("results table has more than one row for some (game_index, seat)")
    # plain sums and maxima of columns (an expression inside the aggregation is several times slower)
    exprs = [pl.col("_winner").sum()]
    if "turns" in res.columns:
        exprs.append(pl.col("turns").max().cast(pl.Float64).alias("length"))
    games = (
        res.with_columns((pl.col("win_share") > 0).cast(pl.Int32).alias("_winner"))
        .group_by(GAME)
        .agg(exprs)
        .with_columns((pl.col("_winner") > 1).alias("shared_win"))
        .drop("_winner")
    )
    same_game = (pl.col("game_index") == pl.col("game_index").shift(-1)) & (
        pl.col("n_players") == pl.col("n_players").shift(-1)
    )
    new_game = ~(
        (pl.col("game_index") == pl.col("game_index").shift(1)) & (pl.col("n_players") == pl.col("n_players").shift(1))
    ).fill_null(False)
    best = (
        res.select(*GAME, "score", *(["ended_by"] if "ended_by" in res.columns else []))
        .sort([*GAME, "score"], descending=[False, False, True])
        .with_columns(pl.when(same_game).then(pl.col("score") - pl.col("score").shift(-1)).alias("margin"))
        .filter(new_game)
        .drop("score")
    )
    games = games.sort(GAME)  # both in game order, one row per game: side by side, no join
    return games.hstack(best.drop(GAME).get_columns())


CREDITS_SCHEMA: Mapping[str, pl.DataType] = {
    "n_players": pl.Int32(),
    "game_index": pl.Int64(),
    "checkpoint": pl.Int32(),
    "credit": pl.Float64(),
    "tied": pl.Boolean(),
}
"""The columns of :func:`leader_credits`' frame."""

TRAJECTORY_GAME_SCHEMA: Mapping[str, pl.DataType] = {
    "n_players": pl.Int32(),
    "game_index": pl.Int64(),
    "checkpoints": pl.Int32(),
    "comeback": pl.Float64(),
    "all_tied_at_midpoint": pl.Boolean(),
    "decided_at": pl.Float64(),
    "lead_changes": pl.Int64(),
}
"""The trajectory columns of :func:`per_game_flow`'s frame, with :data:`GAME`."""


def _seat_shares(res: pl.DataFrame, traj: pl.DataFrame, keys: pl.DataFrame) -> np.ndarray:
    """The final win share of each (n_players, game_index, seat) row of ``keys``; raises ValueError
    naming the first trajectory row (by ``game_index``) with no result."""
    results = res.select(*GAME, "seat", "win_share")
    share = keys.join(results, on=[*GAME, "seat"], how="left", maintain_order="left")["win_share"]
    if share.null_count():
        t = traj.drop("variant").join(results, on=[*GAME, "seat"], how="left")
        g = t.filter(pl.col("win_share").is_null()).sort("game_index").row(0, named=True)
        raise ValueError(
            f"trajectories hold game {g['game_index']} seat {g['seat']} ({g['n_players']} players), "
            "which the results do not"
        )
    return share.to_numpy()


def _game_blocks(j0: int, ks: np.ndarray) -> Iterator[tuple[int, int]]:
    """Consecutive ranges ``[ja, jb)`` of the games ``j0 ..`` whose checkpoints are ``ks``, each of at
    most :data:`BLOCK_ROWS` checkpoints (or one game, when a game alone has more)."""
    ends = np.cumsum(ks)
    ja = 0
    while ja < ks.size:
        base = int(ends[ja - 1]) if ja else 0
        jb = max(ja + 1, int(np.searchsorted(ends, base + BLOCK_ROWS, side="right")))
        yield j0 + ja, j0 + jb
        ja = jb


def _block_flow(
    x: np.ndarray, w: np.ndarray, k: np.ndarray, ck: np.ndarray
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The trajectory values of consecutive games of p players: ``x`` their standings, one row per
    checkpoint of each game in turn and one column per seat; ``w`` their seats' final win shares
    [games, p]; ``k`` their checkpoints; ``ck`` the checkpoint of each row of ``x``. Returns (per game:
    checkpoints, comeback, all_tied_at_midpoint, decided_at, lead_changes; per row: the leaders'
    mean win share, and whether several seats lead)."""
    p = x.shape[1]
    top, bottom = x[:, 0].copy(), x[:, 0].copy()
    for q in range(1, p):
        np.maximum(top, x[:, q], out=top)
        np.minimum(bottom, x[:, q], out=bottom)
    leaders = np.zeros(x.shape[0], dtype=np.int64)
    credit = np.zeros(x.shape[0])  # the leaders' summed win share, seat by seat, then their mean
    last_share = np.zeros(x.shape[0])
    loser_leads = np.zeros(x.shape[0], dtype=bool)
    lead_seat = np.zeros(x.shape[0], dtype=np.int64)  # the first leader's column
    for q in range(p):  # sums in seat order, as the seats' rows come
        leads = x[:, q] == top
        share = np.repeat(w[:, q], k)  # the seat's final win share at each of its game's checkpoints
        leaders += leads
        lead_seat[leads & (leaders == 1)] = q
        loser_leads |= leads & (share <= 0)
        credit += np.where(leads, share, 0.0)
        last_share += np.where(x[:, q] == bottom, share, 0.0)
    credit /= leaders
    all_tied = leaders == p
    first_row = np.cumsum(k) - k  # each game's checkpoint 0 among the block's checkpoints
    mid = first_row + (k - 1) // 2
    # the first checkpoint from which only winners lead: one after the last one a non-winner led at
    last_loser = np.maximum.reduceat(np.where(loser_leads, ck, -1), first_row)
    # lead changes: the sole leader differs from the game's previous sole leader
    sole = np.flatnonzero(leaders == 1)
    sole_seat = lead_seat[sole]
    game_of = np.repeat(np.arange(k.size), k)[sole]
    change = (sole_seat[1:] != sole_seat[:-1]) & (game_of[1:] == game_of[:-1])
    per = {
        "checkpoints": k,
        "comeback": np.where(all_tied[mid], 0.0, last_share[mid]),
        "all_tied_at_midpoint": all_tied[mid],
        "decided_at": np.minimum(last_loser + 2, k) / k,
        "lead_changes": np.bincount(game_of[1:][change], minlength=k.size),
    }
    return per, credit, leaders > 1


def _trajectory_frames(
    res: pl.DataFrame, traj: pl.DataFrame, srt: pl.DataFrame, layout: _Layout
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(one row per game with a trajectory and two or more players, :data:`TRAJECTORY_GAME_SCHEMA`;
    one row per checkpoint of those games, :data:`CREDITS_SCHEMA`; both sorted by :data:`GAME` then
    checkpoint), from the checked trajectories ``traj``, the same rows ``srt`` in
    :data:`TRAJECTORY_ORDER` and their :class:`_Layout`. Raises ValueError for a trajectory row with
    no result.

    In numpy (a polars group_by over millions of (game, checkpoint) groups took ten times as long):
    the games of n players, a block of games at a time (:data:`BLOCK_ROWS`), are one [checkpoints, n]
    array of standings, read a seat's column at a time, and each game's values are reductions over
    its checkpoints (:func:`_block_flow`)."""
    starts, players, ks = layout.starts, layout.players, layout.checkpoints
    n, g = srt["n_players"].to_numpy(), srt["game_index"].to_numpy()
    checkpoint, standing = srt["checkpoint"].to_numpy(), srt["standing"].to_numpy()
    # each game's seats (those of checkpoint 0, the same at every checkpoint) and their final win shares
    first = np.repeat(starts, players) + (
        np.arange(int(players.sum())) - np.repeat(np.cumsum(players) - players, players)
    )
    shares = _seat_shares(res, traj, srt[first].select(*GAME, "seat"))
    share_starts = np.cumsum(players) - players
    games_parts, credit_parts = [], []
    for p in np.unique(players[players > 1]):  # ascending, as the rows are
        p = int(p)
        block = np.flatnonzero(players == p)  # games next to each other
        for j0, j1 in _game_blocks(int(block[0]), ks[block[0] : block[-1] + 1]):
            lo, hi = int(starts[j0]), (int(starts[j1]) if j1 < starts.size else srt.height)
            w = shares[share_starts[j0] : share_starts[j0] + (j1 - j0) * p].reshape(-1, p)
            per, credit, tied = _block_flow(standing[lo:hi].reshape(-1, p), w, ks[j0:j1], checkpoint[lo:hi:p])
            games_parts.append(
                pl.DataFrame(
                    {"n_players": n[starts[j0:j1]], "game_index": g[starts[j0:j1]], **per},
                    schema=TRAJECTORY_GAME_SCHEMA,
                )
            )
            credit_parts.append(
                pl.DataFrame(
                    {
                        "n_players": n[lo:hi:p],
                        "game_index": g[lo:hi:p],
                        "checkpoint": checkpoint[lo:hi:p],
                        "credit": credit,
                        "tied": tied,
                    },
                    schema=CREDITS_SCHEMA,
                )
            )
    if not games_parts:
        return pl.DataFrame(schema=TRAJECTORY_GAME_SCHEMA), pl.DataFrame(schema=CREDITS_SCHEMA)
    return pl.concat(games_parts), pl.concat(credit_parts)


def leader_credits(results: pl.LazyFrame | pl.DataFrame, trajectories: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """One row per (game, checkpoint) of the games with two or more players: ``n_players,
    game_index, checkpoint, credit`` (the leaders' mean win share, in [0, 1]: the leader-wins
    curve's per-game value) and ``tied`` (several seats lead)."""
    _, credits = _flow_frames(_results_frame(results), trajectories)
    assert credits is not None
    return credits


def _flow_frames(
    res: pl.DataFrame, trajectories: pl.LazyFrame | pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """(:func:`per_game_flow`'s frame, :func:`leader_credits`' frame or None without trajectories)."""
    games = _results_per_game(res)
    if trajectories is None:
        return games, None
    per, credits = _trajectory_frames(res, *_checked_trajectories(trajectories))
    return games.join(per, on=GAME, how="left").sort(GAME), credits


def per_game_flow(
    results: pl.LazyFrame | pl.DataFrame, trajectories: pl.LazyFrame | pl.DataFrame | None = None
) -> pl.DataFrame:
    """One row per game of the results: ``n_players, game_index, margin`` (points, null for a solo
    game), ``shared_win``, ``length`` (turns) and ``ended_by`` when the results have them, and with
    trajectories ``checkpoints`` (K), ``lead_changes``, ``comeback`` (the win share of the seats
    last at the midpoint, 0 when all tie there), ``all_tied_at_midpoint`` and ``decided_at`` (in
    (0, 1]), null for a game without a trajectory or of one player. The module docstring defines
    each. Raises ValueError on a table that breaks its contract."""
    return _flow_frames(_results_frame(results), trajectories)[0]


# --------------------------------------------------------------------------- summaries


def _histogram(x: np.ndarray) -> tuple[list[float], list[int]]:
    if x.size == 0:
        return [], []
    lo, hi = float(x.min()), float(x.max())
    if np.all(x == np.round(x)) and hi - lo + 1 <= MAX_BINS:
        edges = np.arange(lo - 0.5, hi + 1.0, 1.0)
    elif lo == hi:
        edges = np.array([lo - 0.5, hi + 0.5])
    else:
        edges = np.histogram_bin_edges(x, bins=min(MAX_BINS, max(5, int(math.sqrt(x.size)))))
    counts, edges = np.histogram(x, bins=edges)
    return [float(e) for e in edges], [int(c) for c in counts]


def _distribution(values: Sequence[float] | np.ndarray | pl.Series, confidence: float, edges=None) -> Distribution:
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return Distribution(0, None, None, None, {}, [], [])
    mean = float(x.mean())
    lo, hi = mean_interval(mean, float(x.std(ddof=1)) if n > 1 else None, n, confidence)
    quantiles = {name: float(np.quantile(x, q)) for name, q in QUANTILES}
    if edges is None:
        e, c = _histogram(x)
    else:
        counts, be = np.histogram(x, bins=np.asarray(edges, dtype=np.float64))
        e, c = [float(v) for v in be], [int(v) for v in counts]
    return Distribution(n, mean, None if math.isnan(lo) else lo, None if math.isnan(hi) else hi, quantiles, e, c)


def _share(credit: float, games: int, confidence: float) -> Share:
    if games == 0:
        return Share(None, None, None, 0, 0.0)
    credit = min(max(float(credit), 0.0), float(games))  # float sums of 1/k shares
    lo, hi = wilson_interval(credit, games, confidence)
    return Share(credit / games, lo, hi, games, credit)


DECIDED_EDGES = tuple(i / 10 for i in range(11))
"""The decided-at histogram's bins where games differ in length: tenths of the game (the last holds
1.0). Where every game has the same K checkpoints, one bin per value (k+1)/K, centred on it."""


def decided_edges(k_min: int, k_max: int) -> list[float]:
    """The decided-at histogram's bin edges for games of ``k_min`` to ``k_max`` checkpoints: one bin
    centred on each possible value 1/K, 2/K, ..., 1 when every game has the same K (up to
    :data:`MAX_BINS`), else :data:`DECIDED_EDGES`."""
    if k_min == k_max and 1 <= k_max <= MAX_BINS:
        return [(j + 0.5) / k_max for j in range(k_max + 1)]
    return list(DECIDED_EDGES)


SLICE_GAMES = 100_000
"""Games per pass of :func:`flow_measures` over a lazy results table (and its trajectories): what
bounds its memory (every measure is per game, so the slices' per-game values and the curve's sums
add up to those of one pass)."""


def _game_slices(
    results: pl.LazyFrame | pl.DataFrame,
    trajectories: pl.LazyFrame | pl.DataFrame | None,
    slice_games: int | None = None,
) -> Iterator[tuple[pl.LazyFrame | pl.DataFrame, pl.LazyFrame | pl.DataFrame | None]]:
    """(results, trajectories) of consecutive ranges of ``game_index``: the whole tables when the
    results are eager or span at most ``slice_games`` (default :data:`SLICE_GAMES`) games, else one
    pair per range (a Parquet scan reads only the row groups of its range)."""
    width = slice_games or SLICE_GAMES
    if isinstance(results, pl.DataFrame) or "game_index" not in results.collect_schema().names():
        yield results, trajectories
        return
    lo, hi = (
        results.select(pl.col("game_index").min().alias("lo"), pl.col("game_index").max().alias("hi")).collect().row(0)
    )
    if lo is None or hi - lo < width:
        yield results, trajectories
        return
    if trajectories is not None:
        missing = [c for c in TRAJECTORY_SCHEMA if c not in trajectories.lazy().collect_schema().names()]
        if missing:
            raise ValueError(f"trajectories lack column(s): {', '.join(missing)}")
        t_lo, t_hi = (
            trajectories.lazy()
            .select(pl.col("game_index").min().alias("lo"), pl.col("game_index").max().alias("hi"))
            .collect()
            .row(0)
        )
        if t_lo is not None and (t_lo < lo or t_hi > hi):
            g = t_lo if t_lo < lo else t_hi
            raise ValueError(f"trajectories hold game {g}, which the results do not")
    for start in range(int(lo), int(hi) + 1, width):
        inside = pl.col("game_index").is_between(start, start + width - 1)
        part = results.filter(inside)
        yield part, (None if trajectories is None else trajectories.filter(inside))


def flow_measures(
    results: pl.LazyFrame | pl.DataFrame,
    trajectories: pl.LazyFrame | pl.DataFrame | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> FlowMeasures:
    """How a game feels, from one run's results (``results.parquet``: ``game_index, seat, score,
    win_share`` needed; ``n_players, turns, ended_by`` used when present) and, when given, its
    trajectories (``trajectories.parquet``, the contract in the module docstring).

    Returns a :class:`FlowMeasures`: margin (points), each seat's scores (points), length (turns)
    with the games per ending, and with trajectories the leader-wins curve, lead changes, comebacks
    and decided-at; every interval at ``confidence`` over games.

    Raises:
        ValueError: a table lacks a column, holds two rows for one (game, seat) or (game,
            checkpoint, seat), several variants, a trajectory that is not every seat at every
            checkpoint, or a trajectory of a game the results do not hold.
    """
    parts, seat_parts, curve_parts, variants = [], [], [], set()
    for res_part, traj_part in _game_slices(results, trajectories):
        res = _results_frame(res_part)
        if "variant" in res.columns:
            variants |= set(res["variant"].unique().to_list())
            if len(variants) > 1:
                raise ValueError(f"results table holds {len(variants)} variants; the measures are of one")
        games_part, credits = _flow_frames(res, traj_part)
        parts.append(games_part)
        seat_parts.append(res.select("seat", "score"))
        if credits is not None:
            curve_parts.append(_curve_sums(credits))
    games = pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]
    scores = pl.concat(seat_parts) if len(seat_parts) > 1 else seat_parts[0]
    margin_values = games["margin"].drop_nulls()
    margin = _distribution(margin_values, confidence) if margin_values.len() else None
    seats = []
    for seat in sorted(scores["seat"].unique().to_list()):
        seats.append(SeatScores(int(seat), _distribution(scores.filter(pl.col("seat") == seat)["score"], confidence)))
    length = _distribution(games["length"], confidence) if "length" in games.columns else None
    ended_by: dict[str, int] = {}
    if "ended_by" in games.columns:
        counts = games.group_by("ended_by").len().sort("ended_by")
        ended_by = {str(r["ended_by"]): int(r["len"]) for r in counts.iter_rows(named=True)}
    trajectory = None
    if trajectories is not None:
        trajectory = _trajectory_measures(pl.concat(curve_parts, how="vertical_relaxed"), games, confidence)
    return FlowMeasures(
        confidence=confidence,
        games=games.height,
        margin=margin,
        tied_on_points=int((margin_values == 0).sum()),
        shared_wins=int(games["shared_win"].sum()),
        seat_scores=seats,
        length=length,
        ended_by=ended_by,
        trajectory=trajectory,
    )


def _curve_sums(credits: pl.DataFrame) -> pl.DataFrame:
    """Per checkpoint: the summed credit, the games and the games tied for the lead (sums, so that
    slices of games add up). Summed in the rows' order (games, then checkpoints): polars' group-by sums
    floats in no fixed order, so the same games gave leader-wins rates that differed in the last bit
    from run to run, and summary.json was not the same for the same games."""
    return _ordered_sums(credits["checkpoint"].to_numpy(), credits["credit"].to_numpy(), credits["tied"].to_numpy())


def _ordered_sums(
    checkpoint: np.ndarray, credit: np.ndarray, tied: np.ndarray, games: np.ndarray | None = None
) -> pl.DataFrame:
    """``checkpoint, credit, games, tied``: per checkpoint present, the sums of ``credit`` and ``tied``
    and the count of rows (or the sum of ``games``), each added in the arrays' order, one row after
    the other (:func:`numpy.add.at`, :data:`BLOCK_ROWS` rows at a time: the same bits as one
    sequential pass), so that the result is the same bits for the same rows."""
    size = int(checkpoint.max()) + 1 if checkpoint.size else 0
    sums = np.zeros((3, size))  # credit, games, tied
    rows = np.zeros(size, dtype=np.int64)
    for a in range(0, checkpoint.size, BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, checkpoint.size)
        k = checkpoint[a:b].astype(np.intp)
        np.add.at(sums[0], k, credit[a:b].astype(np.float64, copy=False))
        np.add.at(sums[1], k, 1.0 if games is None else games[a:b].astype(np.float64))
        np.add.at(sums[2], k, tied[a:b].astype(np.float64))
        np.add.at(rows, k, 1)
    present = rows > 0
    return pl.DataFrame(
        {
            "checkpoint": np.arange(size, dtype=np.int32)[present],
            "credit": sums[0][present],
            "games": np.rint(sums[1][present]).astype(np.int64),
            "tied": np.rint(sums[2][present]).astype(np.int64),
        }
    )


def _trajectory_measures(curve_sums: pl.DataFrame, games: pl.DataFrame, confidence: float) -> TrajectoryMeasures:
    measured = games.filter(pl.col("checkpoints").is_not_null())
    multi = games.filter(pl.col("n_players") > 1)
    # the slices' sums added in slice order (a group-by would add them in no fixed order)
    curve = _ordered_sums(
        curve_sums["checkpoint"].to_numpy(),
        curve_sums["credit"].to_numpy(),
        curve_sums["tied"].to_numpy(),
        curve_sums["games"].to_numpy(),
    )
    points = []
    for r in curve.iter_rows(named=True):
        s = _share(r["credit"], int(r["games"]), confidence)
        points.append(
            LeaderPoint(
                int(r["checkpoint"]),
                float(s.rate or 0.0),
                float(s.ci_low or 0.0),
                float(s.ci_high or 0.0),
                s.games,
                int(r["tied"]),
            )
        )
    n = measured.height
    ks = measured["checkpoints"].to_numpy()
    return TrajectoryMeasures(
        games=n,
        without_trajectory=multi.height - n,
        checkpoints_min=int(ks.min()) if n else 0,
        checkpoints_max=int(ks.max()) if n else 0,
        leader_wins=points,
        lead_changes=_distribution(measured["lead_changes"], confidence),
        comebacks=_share(float(measured["comeback"].sum()), n, confidence),
        all_tied_at_midpoint=int(measured["all_tied_at_midpoint"].sum()),
        decided_at=_distribution(
            measured["decided_at"], confidence, edges=decided_edges(int(ks.min()), int(ks.max())) if n else None
        ),
    )


# --------------------------------------------------------------------------- paired


FLOW_ROWS: tuple[tuple[str, str, str], ...] = (
    ("margin", "margin", "points"),
    ("length", "length", "turns"),
    ("leader wins", "leader_wins", "share"),
    ("lead changes", "lead_changes", "per game"),
    ("comebacks", "comeback", "share"),
    ("decided at", "decided_at", "share of the game"),
)
"""(row name, per-game column, unit) of :func:`paired_flow`'s rows, in order."""


def paired_flow(
    a: pl.LazyFrame | pl.DataFrame,
    b: pl.LazyFrame | pl.DataFrame,
    trajectories_a: pl.LazyFrame | pl.DataFrame | None = None,
    trajectories_b: pl.LazyFrame | pl.DataFrame | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """The flow measures of variant B minus those of A, game by game (module docstring, "Paired
    differences").

    Args:
        a, b: the two runs' results tables (one variant each).
        trajectories_a, trajectories_b: their trajectories; the trajectory rows are left out unless
            both are given.
        confidence: the level of every interval.

    Returns:
        a JSON-ready dict ``{"confidence", "paired": bool, "pairing": why, "games_paired",
        "rows": [row...], "leader_wins": [row...]}``. Each row is
        :func:`balancer.stats.paired.paired_test`'s (or ``welch_test``'s) dict with ``name``,
        ``kind`` ("flow") and ``unit``: ``from``/``to`` the means in A and B, ``difference`` B - A,
        ``ci_low``/``ci_high``, ``p_value`` (unadjusted), ``test``. ``rows`` holds margin, length,
        and with trajectories leader wins (each game's mean credit over its checkpoints), lead
        changes, comebacks and decided at: the rows for compare's Holm family. ``leader_wins``: one
        row per checkpoint reached in both (``checkpoint`` set), the per-game credit differences.

    Raises:
        ValueError: as :func:`flow_measures`.
    """
    with_traj = trajectories_a is not None and trajectories_b is not None
    ga, ca = _flow_frames(_results_frame(a), trajectories_a if with_traj else None)
    gb, cb = _flow_frames(_results_frame(b), trajectories_b if with_traj else None)
    keys_a, keys_b = ga.select(GAME), gb.select(GAME)  # each sorted, one row per game
    paired = keys_a.equals(keys_b)
    if paired:
        reason = f"paired by (n_players, game_index): the same {keys_a.height} games in both"
    else:
        pa = sorted(keys_a["n_players"].unique().to_list())
        pb = sorted(keys_b["n_players"].unique().to_list())
        alone = keys_a.join(keys_b, on=GAME, how="anti").height + keys_b.join(keys_a, on=GAME, how="anti").height
        why = f"player counts differ (A: {pa}, B: {pb})" if pa != pb else f"{alone} games are in one run only"
        reason = f"{why}, so games cannot be paired"
    if ca is not None and cb is not None:
        mean_a = ca.group_by(GAME).agg(pl.col("credit").mean().alias("leader_wins"))
        mean_b = cb.group_by(GAME).agg(pl.col("credit").mean().alias("leader_wins"))
        ga = ga.join(mean_a, on=GAME, how="left")
        gb = gb.join(mean_b, on=GAME, how="left")

    def compare(xa: pl.DataFrame, xb: pl.DataFrame, column: str) -> dict[str, Any]:
        if paired:
            both = (
                xa.select(*GAME, pl.col(column).alias("a"))
                .join(xb.select(*GAME, pl.col(column).alias("b")), on=GAME, how="inner")
                .drop_nulls()
            )
            if both.height:
                return paired_test(both["a"].to_numpy(), both["b"].to_numpy(), confidence)
        return welch_test(xa[column].drop_nulls().to_numpy(), xb[column].drop_nulls().to_numpy(), confidence)

    rows = []
    for name, column, unit in FLOW_ROWS:
        if (
            column in ga.columns
            and column in gb.columns
            and ga[column].drop_nulls().len()
            and gb[column].drop_nulls().len()
        ):
            rows.append({"name": name, "kind": "flow", "unit": unit, **compare(ga, gb, column)})
    curve = []
    if ca is not None and cb is not None:
        for k in sorted(set(ca["checkpoint"].unique().to_list()) & set(cb["checkpoint"].unique().to_list())):
            xa = ca.filter(pl.col("checkpoint") == k)
            xb = cb.filter(pl.col("checkpoint") == k)
            row = compare(xa, xb, "credit")
            # a difference of two shares lies in [-1, 1]: a t interval of a few games can reach past it
            for end, bound in (("ci_low", max), ("ci_high", min)):
                if row.get(end) is not None and math.isfinite(row[end]):
                    row[end] = bound(row[end], -1.0) if end == "ci_low" else bound(row[end], 1.0)
            curve.append(
                {"name": f"leader wins at checkpoint {k}", "kind": "flow", "unit": "share", "checkpoint": int(k), **row}
            )
    return json_clean(
        {
            "confidence": confidence,
            "paired": paired,
            "pairing": reason,
            "games_paired": keys_a.height if paired else 0,
            "rows": rows,
            "leader_wins": curve,
        }
    )
