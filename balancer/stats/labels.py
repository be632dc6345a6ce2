"""Win rates grouped by a label column, and the 2-player match-up matrix of a label.

A game may tag each seat with labels (``Outcome.labels``): the results then carry a string column
``label_<name>`` per seat (an Urgency seat's deck, an Águeda shop-card pair). Nothing here knows
what a label means: it only groups rows of the long results table (docs/architecture.md, "Results") by the
values of one ``label_<name>`` column.

* :func:`win_rate_by_label`: for each value, the win rate of the seats carrying it (any player
  count), optionally split by other columns (``by=("seat",)`` for a per-game label).
* :func:`matchup_matrix`: two players only; for each ordered pair of values (A, B), the win rate of
  the seat labelled A in games against a seat labelled B, for a chosen seat order: A moving first
  (``order="first"``), second (``"second"``) or both pooled (``"any"``). Mirror pairs (A, A) are
  kept; pooled over both orders their rate is 1/2 by construction.

A win counts ``win_share`` (1/k for each of k tied winners). Intervals are Wilson score intervals
(:func:`balancer.stats.aggregate.wilson_interval`), for win rates by label at the effective sample
size of games as clusters (see :func:`win_rate_by_label`). Rates are fractions in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

from balancer.stats.frames import DEFAULT_CONFIDENCE, _as_lazy, wilson_interval

LABEL_PREFIX = "label_"
Order = Literal["any", "first", "second"]


def label_column(results: pl.LazyFrame | pl.DataFrame, name: str) -> str:
    """The column of label ``name`` (``label_<name>``); ValueError naming the labels present if missing."""
    columns = _as_lazy(results).collect_schema().names()
    column = f"{LABEL_PREFIX}{name}"
    if column not in columns:
        present = [c.removeprefix(LABEL_PREFIX) for c in columns if c.startswith(LABEL_PREFIX)]
        raise ValueError(f"no label {name!r} in the results (labels: {', '.join(present) or 'none'})")
    return column


def _with_interval(df: pl.DataFrame, confidence: float) -> pl.DataFrame:
    """Add ``rate``, ``ci_low``, ``ci_high`` (and ``design_effect`` when ``df`` has the per-game sums
    of :func:`win_rate_by_label`) to rows with ``wins`` and ``games``."""
    clustered = "clusters" in df.columns
    lows, highs, deffs = [], [], []
    for rec in df.iter_rows(named=True):
        wins, n = min(max(rec["wins"], 0.0), rec["games"]), rec["games"]
        deff = _design_effect(rec) if clustered else 1.0
        lo, hi = wilson_interval(wins / deff, n / deff, confidence)
        lows.append(lo)
        highs.append(hi)
        deffs.append(deff)
    out = df.with_columns(
        (pl.col("wins") / pl.col("games")).alias("rate"),
        pl.Series("ci_low", lows, pl.Float64),
        pl.Series("ci_high", highs, pl.Float64),
    )
    if clustered:
        out = out.with_columns(pl.Series("design_effect", deffs, pl.Float64)).drop("clusters", "ss", "sk", "kk")
    return out


def _design_effect(rec: dict) -> float:
    """Cluster-robust over binomial variance of a label value's win rate r = S/K, games as clusters
    (the ratio estimator of Cochran, *Sampling Techniques*, 1977, §6.4, as in
    :mod:`balancer.stats.association`): G/(G-1) sum_g (S_g - r K_g)^2 / K^2 against r(1-r)/K, where
    game g has K_g seats with the value winning S_g. 1 when it cannot be estimated (fewer than 2
    games, a rate of 0 or 1)."""
    g, k, s = rec["clusters"], rec["games"], rec["wins"]
    r = s / k if k else 0.0
    binomial = r * (1 - r) / k if k else 0.0
    if g < 2 or binomial <= 0:
        return 1.0
    q = max(rec["ss"] - 2 * r * rec["sk"] + r * r * rec["kk"], 0.0)
    var = g / (g - 1) * q / (k * k)
    return var / binomial if var > 0 else 1.0


def win_rate_by_label(
    results: pl.LazyFrame | pl.DataFrame, name: str, by: Sequence[str] = (), confidence: float = DEFAULT_CONFIDENCE
) -> pl.DataFrame:
    """Win rate of the seats carrying each value of label ``name``, optionally split further by
    other result columns ``by`` (e.g. ``("seat",)``: for a label that is the same for every seat of
    a game, such as Águeda's shop-card pair, the seat win rates under each value).

    Seats of one game are not independent (two Urgency seats with the same deck: one of them wins),
    so the interval is Wilson's at the effective sample size ``games / design_effect``, the design
    effect from the cluster-robust variance with games as clusters (:func:`_design_effect`; exactly
    the binomial's G/(G-1) when no game holds the value twice).

    Returns a DataFrame sorted by value (then ``by``) with columns ``value`` (str), the ``by``
    columns, ``games`` (seat appearances), ``wins`` (sum of win_share), ``rate``, ``ci_low``,
    ``ci_high``, ``design_effect``. Raises ValueError if the label or a ``by`` column is missing.
    """
    column = label_column(results, name)
    lf = _as_lazy(results)
    missing = [c for c in (*by, "game_index") if c not in lf.collect_schema().names()]
    if missing:
        raise ValueError(f"no column {', '.join(map(repr, missing))} in the results")
    keys = [pl.col(column).alias("value"), *map(pl.col, by)]
    per_game = lf.group_by([*keys, pl.col("game_index")]).agg(
        pl.col("win_share").sum().alias("s"), pl.len().cast(pl.Float64).alias("k")
    )
    df = (
        per_game.group_by(["value", *by])
        .agg(
            pl.col("k").sum().cast(pl.Int64).alias("games"),
            pl.col("s").sum().alias("wins"),
            pl.len().alias("clusters"),
            (pl.col("s") * pl.col("s")).sum().alias("ss"),
            (pl.col("s") * pl.col("k")).sum().alias("sk"),
            (pl.col("k") * pl.col("k")).sum().alias("kk"),
        )
        .sort(["value", *by])
        .collect()
    )
    return _with_interval(df, confidence)


def matchup_matrix(
    results: pl.LazyFrame | pl.DataFrame, name: str, order: Order = "any", confidence: float = DEFAULT_CONFIDENCE
) -> pl.DataFrame:
    """Win rate of label value ``row`` against ``col`` in 2-player games (long format).

    Args:
        results: the results of 2-player games (rows with ``game_index``, ``seat``, ``win_share``
            and ``label_<name>``).
        name: the label (without the ``label_`` prefix).
        order: ``"first"``: the row seat moved first (seat 1); ``"second"``: it moved second;
            ``"any"``: both seat orders pooled.
        confidence: level of the Wilson intervals.

    Returns:
        DataFrame with columns ``row``, ``col`` (str), ``games``, ``wins`` (the row seat's summed
        win_share), ``rate``, ``ci_low``, ``ci_high``, one row per pair that was played, sorted.

    Raises:
        ValueError: for a missing label, a table that is not 2-player, or an unknown ``order``.
    """
    if order not in ("any", "first", "second"):
        raise ValueError(f"order must be 'any', 'first' or 'second', got {order!r}")
    column = label_column(results, name)
    lf = _as_lazy(results)
    if "n_players" in lf.collect_schema().names():
        counts = lf.select(pl.col("n_players").unique()).collect()["n_players"].to_list()
        if counts != [2]:
            raise ValueError(f"a match-up matrix needs 2-player games, the results have {counts} players")
    me = lf.select("game_index", pl.col("seat"), pl.col(column).alias("row"), pl.col("win_share"))
    them = lf.select("game_index", pl.col("seat").alias("other_seat"), pl.col(column).alias("col"))
    pairs = me.join(them, on="game_index").filter(pl.col("seat") != pl.col("other_seat"))
    if order == "first":
        pairs = pairs.filter(pl.col("seat") == 1)
    elif order == "second":
        pairs = pairs.filter(pl.col("seat") == 2)
    df = (
        pairs.group_by("row", "col")
        .agg(pl.len().alias("games"), pl.col("win_share").sum().alias("wins"))
        .sort("row", "col")
        .collect()
    )
    return _with_interval(df, confidence)
