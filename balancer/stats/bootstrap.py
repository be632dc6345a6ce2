"""The studentized bootstrap (bootstrap-t) over games of a per-player mean: the interval of a metric
whose per-game values are skewed and correlated within a game (issue 51).

A metric's mean per player is the ratio r = sum_g s_g / sum_g k_g over games g, where s_g is the sum
of the metric over the game's k_g players (:func:`balancer.stats.aggregate._clustered_mean_row`).
Its t interval r +/- t se, with the cluster-robust se, assumes that the studentized ratio
(r - mu) / se is t-distributed; for a skewed per-game value it is not (the mean and se of a
right-skewed sample rise together), and a 95% t interval covered 86% at 30 games and 90% at 60 on a
log-normal metric. The bootstrap-t (Efron & Tibshirani 1993, ch. 12.5; Hall 1992, *The Bootstrap
and Edgeworth Expansion*, §3.5) takes the quantiles of the studentized ratio from resamples of the
games instead, so its error in coverage is of order 1/G against 1/sqrt(G) for each side of the t
interval: every resample redraws G games with replacement (a game's players stay together) and
computes r* and se* as above, t* = (r* - r) / se*; the interval is [r - q_hi se, r - q_lo se]
with q_lo, q_hi the (1 - c)/2 and (1 + c)/2 quantiles of t*.

scipy.stats.bootstrap has no studentized method (percentile, basic and BCa; BCa covered less than
the bootstrap-t on the same data, docs/statistics.md), so it is written here, vectorised over the
resamples. The resamples are drawn from a generator seeded by :data:`SEED` and the metric's name,
so a summary is the same number every time it is made.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

RESAMPLES = 999
"""Bootstrap resamples per interval (B + 1 = 1,000 puts the 2.5% and 97.5% points on resamples)."""

MIN_GAMES = 20
"""The fewest games at which a metric's interval is the bootstrap-t; below, the t interval (with
fewer games the resamples take few distinct values and the bootstrap's own quantiles are rough)."""

MAX_GAMES = 1_000
"""The most games at which a metric's interval is the bootstrap-t; above, the t interval (measured:
94.3 to 94.8% at 1,000 games on the skewed metrics of docs/statistics.md, where the bootstrap would
cost a second per metric at 10,000 games; the per-game values of more games are not kept)."""

SEED = 20261207
"""The bootstrap's seed, with the metric's name (:func:`studentized_ratio_interval`)."""

_CHUNK = 2_000_000
"""Resampled game indices drawn at once (B x G is split into blocks of about this many)."""


def _ratio_and_se(s: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratio sum(s)/sum(k) and its cluster-robust standard error along the last axis (games)."""
    g = s.shape[-1]
    total_k = k.sum(axis=-1)
    r = s.sum(axis=-1) / total_k
    resid = s - r[..., None] * k
    se = np.sqrt(g / (g - 1) * np.square(resid).sum(axis=-1)) / total_k
    return r, se


def studentized_ratio_interval(
    s: np.ndarray,
    k: np.ndarray,
    confidence: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int | str = 0,
) -> tuple[float, float]:
    """The bootstrap-t interval of r = sum(s) / sum(k) with games as the units.

    Args:
        s: per game, the sum of the metric over its players (float, one entry per game).
        k: per game, the number of players with a finite value (games with 0 are left out).
        confidence: two-sided level.
        resamples: B, the bootstrap resamples.
        seed: an int, or a name (a metric's): the generator is seeded by (SEED, crc32 of it).

    Returns:
        (low, high); (nan, nan) with fewer than 2 games or when a quantile of t* is infinite
        (resamples with se* = 0: nearly every game gives the same ratio); (r, r)
        when every game gives the same ratio (se = 0).
    """
    s = np.asarray(s, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    keep = k > 0
    s, k = s[keep], k[keep]
    g = s.size
    if g < 2:
        return math.nan, math.nan
    r_arr, se_arr = _ratio_and_se(s, k)
    r, se = float(r_arr), float(se_arr)
    if not se > 0:
        return r, r
    key = zlib.crc32(seed.encode()) if isinstance(seed, str) else int(seed)
    rng = np.random.default_rng([SEED, key])
    t = np.empty(resamples)
    block = max(1, _CHUNK // g)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        idx = rng.integers(0, g, size=(stop - start, g), dtype=np.intp)
        rb, seb = _ratio_and_se(np.take(s, idx), np.take(k, idx))
        with np.errstate(divide="ignore", invalid="ignore"):
            tb = (rb - r) / seb
        # a resample of games that all give one ratio has se* = 0: t* is 0 at r, else +/- infinity
        tb[seb == 0] = np.sign(rb[seb == 0] - r) * np.inf
        tb[(seb == 0) & (rb == r)] = 0.0
        t[start:stop] = tb
    with np.errstate(invalid="ignore"):  # between two infinite t* numpy's interpolation is nan
        q_lo, q_hi = np.quantile(t, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0])
    if not (np.isfinite(q_lo) and np.isfinite(q_hi)):
        # a tail of resamples met a single ratio (a metric one game moved: rulers placed 12 in 199 of
        # 200 games, so 37% of resamples miss that game): t* is infinite there and its quantile is no
        # bound (it read as nan, stored as a missing end of the interval): no bootstrap-t interval
        return math.nan, math.nan
    return r - float(q_hi) * se, r - float(q_lo) * se
