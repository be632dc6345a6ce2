"""The pieces every statistic over a results table shares: intervals (Wilson, Student t), column
helpers, and exact sums over games in bounded slices (:func:`sum_over_games`).

Below :mod:`balancer.stats.aggregate` (the summary) and :mod:`balancer.stats.association` (the
indicators), which both build on them. Pure functions; no file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Final

import polars as pl
from scipy import special

METRIC_PREFIX = "metric_"


DEFAULT_CONFIDENCE = 0.95


_ENGINE: Final = "streaming"


GAME_SLICE = 20_000
"""Games per pass of a per-game query over a lazy table (:func:`sum_over_games`): what bounds the
summary's memory (about 15 MB of polars group-by state per slice of 20,000 two-player games)."""


MAX_SLICES = 1_000
"""The most passes of :func:`sum_over_games` (a table of more than 20 million games takes wider slices)."""


def _z(confidence: float) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (0.95 -> 1.959964)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return float(special.ndtri(0.5 + confidence / 2.0))


def wilson_interval(successes: float, n: float, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson (1927) score interval for a binomial proportion.

    Args:
        successes: number of successes, may be fractional (a shared win counts 1/k per winner);
            must satisfy ``0 <= successes <= n``.
        n: number of trials (games, or agent-seat appearances; an effective, fractional count allowed), ``n >= 1``.
        confidence: two-sided confidence level in (0, 1).

    Returns:
        ``(low, high)`` as fractions in [0, 1]; ``low`` is exactly 0 when ``successes == 0``
        and ``high`` exactly 1 when ``successes == n``.

    Raises:
        ValueError: if ``n < 1``, ``successes`` is outside ``[0, n]`` or ``confidence`` is not
            in (0, 1).
    """
    if n < 1:
        raise ValueError(f"n must be a positive number of trials, got {n!r}")
    if not 0.0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n={n}], got {successes!r}")
    z = _z(confidence)
    p = successes / n
    z2n = z * z / n
    denom = 1.0 + z2n
    center = (p + z2n / 2.0) / denom
    half = (z / denom) * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n))
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return low, high


def mean_interval(mean: float, sd: float | None, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Student-t interval ``mean +- t(n-1) * sd / sqrt(n)`` for a sample mean.

    Args:
        mean: sample mean (in the unit of the data, e.g. points or tiles).
        sd: sample standard deviation (ddof=1); ``None``/NaN when undefined.
        n: sample size.
        confidence: two-sided confidence level in (0, 1).

    Returns:
        ``(low, high)`` in the unit of the data; ``(nan, nan)`` when ``n < 2`` or ``sd`` is
        undefined, ``(mean, mean)`` when ``sd == 0``.
    """
    if n < 2 or sd is None or math.isnan(sd):
        return math.nan, math.nan
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    t = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0))
    half = t * sd / math.sqrt(n)
    return mean - half, mean + half


def _as_lazy(results: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    return results.lazy() if isinstance(results, pl.DataFrame) else results


def prefixed_columns(columns: Iterable[str], prefix: str) -> list[str]:
    """Columns starting with ``prefix`` (e.g. ``"score_"``), in table order; ``"score"`` itself is
    not a component because the prefix includes the underscore."""
    return [c for c in columns if c.startswith(prefix) and len(c) > len(prefix)]


_DECIMAL = pl.Decimal(38, 9)


def _exact(col: str, dtype: pl.DataType) -> tuple[pl.Expr, pl.Expr]:
    """Expressions for ``x`` and ``x*x`` in a type whose sum is exact (nulls, NaN, inf dropped)."""
    x = pl.col(col)
    if dtype.is_integer() or dtype == pl.Boolean:
        x = x.cast(pl.Int64)
        return x, x * x
    x = x.cast(pl.Float64)
    x = pl.when(x.is_finite()).then(x)
    return x.cast(_DECIMAL), (x * x).cast(_DECIMAL)


def _key_range(lf: pl.LazyFrame, key: str) -> tuple[int, int] | None:
    """(smallest, largest) value of the integer column ``key``, or None when it has no non-null one."""
    df = lf.select(pl.col(key).min().alias("lo"), pl.col(key).max().alias("hi")).collect(engine=_ENGINE)
    lo, hi = df.row(0)
    return None if lo is None or hi is None else (int(lo), int(hi))


def _exact_total(frames: list[pl.DataFrame]) -> dict[str, Any]:
    """The column sums of one-row frames of integer and decimal sums, as one record; a sum of
    integers or decimals is exact, so the record equals that of one pass over the whole table."""
    if len(frames) == 1:
        return frames[0].row(0, named=True)
    both = pl.concat(frames, how="vertical_relaxed")
    exprs = [
        (pl.col(c).cast(pl.Int64) if dtype.is_integer() or dtype == pl.Boolean else pl.col(c)).sum().alias(c)
        for c, dtype in both.schema.items()
    ]
    return both.select(exprs).row(0, named=True)


def sum_over_games(
    lf: pl.LazyFrame | pl.DataFrame,
    per_game: Sequence[pl.Expr],
    totals: Sequence[pl.Expr],
    key: str = "game_index",
    slice_games: int | None = None,
) -> dict[str, Any]:
    """One record: ``totals`` (integer or decimal sums) over the games of ``per_game`` (aggregates
    of one game's rows, grouped by ``key``).

    A group-by over every game holds every game's row at once (about 0.5 GB per million games), so
    a lazy table whose ``key`` spans more than ``slice_games`` values is summed in slices of
    ``slice_games`` consecutive keys (one pass each; Parquet row-group statistics let each pass read
    only its slice) and the slices' sums are added. Every game lies in one slice and the sums are
    exact, so the record is the same as from one pass. An eager frame is summed in one pass.
    ``slice_games`` defaults to :data:`GAME_SLICE`.
    """
    slice_games = slice_games or GAME_SLICE
    if isinstance(lf, pl.DataFrame):
        return lf.lazy().group_by(key).agg(per_game).select(totals).collect(engine=_ENGINE).row(0, named=True)
    span = _key_range(lf, key) if key in lf.collect_schema().names() else None
    if span is None or span[1] - span[0] < slice_games:
        return _exact_total([lf.group_by(key).agg(per_game).select(totals).collect(engine=_ENGINE)])
    # keys spread far apart (a filtered table) would give many empty slices: at most MAX_SLICES
    # passes, each then wider but holding no more games than the table has
    width = max(slice_games, -(-(span[1] - span[0] + 1) // MAX_SLICES))
    frames = []
    for start in range(span[0], span[1] + 1, width):
        part = lf.filter(pl.col(key).is_between(start, start + width - 1))
        frames.append(part.group_by(key).agg(per_game).select(totals).collect(engine=_ENGINE))
    return _exact_total(frames)
