"""Outcomes grouped by a pair label: which pairs favour a seat or make games one-sided.

A game may label its seats with a pair of names (Águeda's two shop cards in play, results column
``label_shops`` = ``"Flora's Fancy Footwear + Shop 07"``). :func:`pair_table` groups a results
table by such a label and gives, per pair: games, the first seat's win rate (Wilson interval),
the spread between the best and the worst seat's win rate, and the mean winning margin (winner's
score minus the runner-up's, points; Student-t interval). :func:`pair_matrix` lays one of those
columns out as a symmetric matrix over the single names, for a heatmap. Nothing here knows a game.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from .aggregate import DEFAULT_CONFIDENCE, mean_interval, wilson_interval

PAIR_COLUMNS = (
    "pair",
    "first",
    "second",
    "games",
    "seat1_rate",
    "seat1_low",
    "seat1_high",
    "seat_spread",
    "margin_mean",
    "margin_low",
    "margin_high",
)


def pair_table(
    results: pl.DataFrame | pl.LazyFrame, label: str, sep: str = " + ", confidence: float = DEFAULT_CONFIDENCE
) -> pl.DataFrame:
    """One row per pair value of column ``label_<label>`` (columns :data:`PAIR_COLUMNS`), most
    games first. ``first``/``second`` are the two names (split at ``sep``; a value without ``sep``
    is paired with itself). Rates are fractions; margins points.

    Raises KeyError when the results have no ``label_<label>`` column, ValueError when they hold
    fewer than 2 seats per game (no seat comparison, no margin), when the label differs between the
    seats of a game (a per-seat label, such as Urgency's deck), or when no value is a pair ``A + B``.
    """
    col = f"label_{label}"
    df = results.collect() if isinstance(results, pl.LazyFrame) else results
    if col not in df.columns:
        labels = [c.removeprefix("label_") for c in df.columns if c.startswith("label_")]
        raise KeyError(f"no column {col!r} in the results; labels: {', '.join(labels) or 'none'}")
    seats = int(df.select(pl.max("seat")).item())
    if seats < 2:
        raise ValueError("a pair table needs games of 2 or more seats")
    check_pair_label(df, label, sep)
    per_game = (
        df.group_by(["game_index", col])
        .agg(
            pl.col("score").sort(descending=True).alias("_s"),
            pl.col("win_share").filter(pl.col("seat") == 1).sum().alias("_w1"),
        )
        .with_columns((pl.col("_s").list.get(0) - pl.col("_s").list.get(1)).alias("_margin"))
    )
    seat_rates = (
        df.group_by([col, "seat"])
        .agg(pl.col("win_share").mean().alias("_r"))
        .group_by(col)
        .agg((pl.col("_r").max() - pl.col("_r").min()).alias("seat_spread"))
    )
    grouped = (
        per_game.group_by(col)
        .agg(
            pl.len().alias("games"),
            pl.col("_w1").sum().alias("_wins"),
            pl.col("_margin").mean().alias("margin_mean"),
            pl.col("_margin").std().alias("_sd"),
        )
        .join(seat_rates, on=col)
    )
    rows = []
    for r in grouped.iter_rows(named=True):
        a, _, b = str(r[col]).partition(sep)
        n = int(r["games"])
        lo, hi = wilson_interval(min(float(r["_wins"]), n), n, confidence)
        mlo, mhi = mean_interval(float(r["margin_mean"]), r["_sd"], n, confidence)
        rows.append(
            {
                "pair": r[col],
                "first": a,
                "second": b or a,
                "games": n,
                "seat1_rate": r["_wins"] / n,
                "seat1_low": lo,
                "seat1_high": hi,
                "seat_spread": r["seat_spread"],
                "margin_mean": r["margin_mean"],
                "margin_low": mlo,
                "margin_high": mhi,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            k: (pl.String if k in ("pair", "first", "second") else pl.Int64 if k == "games" else pl.Float64)
            for k in PAIR_COLUMNS
        },
    ).sort(["games", "pair"], descending=[True, False])


def check_pair_label(df: pl.DataFrame, label: str, sep: str = " + ") -> None:
    """Raise ValueError unless column ``label_<label>`` of ``df`` holds one value per game (the same
    for every seat) and some value is a pair ``A<sep>B``. The message names the label and, for a
    per-seat label of 2-player games, points to the match-up matrix of a study instead."""
    col = f"label_{label}"
    per_seat = df.group_by("game_index").agg(pl.col(col).n_unique().alias("_k")).select(pl.max("_k")).item()
    if per_seat is not None and per_seat > 1:
        hint = (
            f"for 2-player games use a study figure 'show: matchups:{label}' (its match-up matrix)"
            if int(df.select(pl.max("seat")).item()) == 2
            else "a pair page needs one pair per game"
        )
        raise ValueError(f"label {label!r} holds one value per seat, not one pair 'A{sep}B' per game; {hint}")
    if not df[col].cast(pl.String).str.contains(sep, literal=True).any():
        raise ValueError(
            f"label {label!r} holds single values, not pairs 'A{sep}B'; "
            "choose a label whose values name two things, e.g. Águeda's shops"
        )


def pair_matrix(table: pl.DataFrame, value: str) -> tuple[list[str], np.ndarray]:
    """(names sorted, float matrix [names x names]) of column ``value`` of a :func:`pair_table`;
    symmetric, NaN where a pair never occurred. Raises KeyError for an unknown column."""
    if value not in table.columns:
        raise KeyError(f"no column {value!r}; columns: {', '.join(table.columns)}")
    names = sorted(set(table["first"].to_list()) | set(table["second"].to_list()))
    index = {name: i for i, name in enumerate(names)}
    out = np.full((len(names), len(names)), math.nan)
    for a, b, v in zip(table["first"], table["second"], table[value]):
        out[index[a], index[b]] = out[index[b], index[a]] = v
    return names, out
