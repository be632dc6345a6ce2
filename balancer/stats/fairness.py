"""The fairness headline of a comparison: how far apart the seats' win rates are, A to B.

The designer's question about a rule change is usually "is the game fairer?". The **seat spread**
of a run is its best seat's win rate minus its worst seat's (fractions in [0, 1]; 0 when every seat
wins equally often). Its change from A to B, ``spread_b - spread_a``, is measured on the same games:
the interval is a paired bootstrap over games (bias-corrected and accelerated, BCa: Efron 1987;
Efron & Tibshirani 1993, ch. 14): each of
``resamples`` draws picks games with replacement, the *same* games in A and B (common random
numbers), and recomputes both spreads from those games. The max and min are re-taken in every
draw, so the seat that is best may change between draws, as it may between studies. The bias
correction matters: a spread near 0 is folded (never negative), so its draws sit above it and a plain
percentile interval would lean towards "fairer" for a side whose seats are even.

The verdict: ``"fairer"`` when the interval lies below zero (B's seats are closer together),
``"less fair"`` when above, ``"cannot tell"`` otherwise. Its two-sided p-value is the BCa interval
inverted (1 - c for the level c whose interval just reaches 0), so that p < 1 - c exactly when the
interval excludes 0; it lets the headline join a Holm family with the other rows of a page.

A spread estimated from few games is biased upward (the max of noisy rates exceeds the max of the
true ones); the bias is about the same in A and B when they share games, so the difference is less
biased than either spread. Pure functions: no files.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

__all__ = ["seat_matrix", "spread_difference", "seat_spread_headline", "VERDICTS"]

VERDICTS = ("fairer", "less fair", "cannot tell")
DEFAULT_RESAMPLES = 2000
_CHUNK = 250


def seat_matrix(table: pl.LazyFrame | pl.DataFrame) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """``(game_index, shares, seats)`` of a results table: ``shares[i, j]`` is seat ``seats[j]``'s
    ``win_share`` in game ``game_index[i]`` (games sorted; a seat missing from a game counts 0)."""
    df = table.collect() if isinstance(table, pl.LazyFrame) else table
    wide = (
        df.select("game_index", "seat", pl.col("win_share").cast(pl.Float64))
        .pivot(on="seat", index="game_index", values="win_share", aggregate_function="sum")
        .sort("game_index")
        .fill_null(0.0)
    )
    seats = sorted(int(c) for c in wide.columns if c != "game_index")
    shares = wide.select([str(s) for s in seats]).to_numpy().astype(np.float64)
    return wide["game_index"].to_numpy(), shares, seats


def _spreads(weights: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """The seat spread of each row of ``weights`` (draw x games, each row summing to 1) over ``shares``."""
    rates = weights @ shares
    return rates.max(axis=1) - rates.min(axis=1)


def _spread_rows(rates: np.ndarray) -> np.ndarray:
    return rates.max(axis=1) - rates.min(axis=1)


def _jackknife(a: np.ndarray, b: np.ndarray, paired: bool) -> np.ndarray:
    """The change of spread with each game left out (paired: the same game from both sides; else
    each side's games in turn, the other side whole), for BCa's acceleration."""

    def loo(x: np.ndarray) -> np.ndarray:
        n = x.shape[0]
        return (x.sum(axis=0)[None, :] - x) / max(n - 1, 1)

    whole_a, whole_b = _spread_rows(a.mean(axis=0)[None, :])[0], _spread_rows(b.mean(axis=0)[None, :])[0]
    if paired:
        return _spread_rows(loo(b)) - _spread_rows(loo(a))
    return np.concatenate([whole_b - _spread_rows(loo(a)), _spread_rows(loo(b)) - whole_a])


def _bca_constants(draws: np.ndarray, estimate: float, jack: np.ndarray) -> tuple[float, float]:
    """BCa's bias correction z0 (the share of draws below the estimate, as a normal quantile) and
    acceleration (the skewness of the jackknife values)."""
    from scipy.stats import norm

    b = draws.size
    below = (np.sum(draws < estimate) + 0.5 * np.sum(draws == estimate)) / b
    z0 = float(norm.ppf(min(max(below, 1.0 / (b + 1)), b / (b + 1.0))))
    dev = jack.mean() - jack
    denom = 6.0 * float(np.sum(dev**2)) ** 1.5
    return z0, (float(np.sum(dev**3)) / denom if denom > 0 else 0.0)


def _bca_interval(draws: np.ndarray, estimate: float, jack: np.ndarray, confidence: float) -> tuple[float, float]:
    """Efron's (1987) bias-corrected and accelerated percentile interval of ``draws`` around
    ``estimate``: the bias correction z0 (from the share of draws below the estimate) matters here,
    as a spread near 0 is folded (a max minus a min is never negative) and its draws sit above it."""
    from scipy.stats import norm

    z0, acc = _bca_constants(draws, estimate, jack)
    tail = (1.0 - confidence) / 2.0
    ends = []
    for q in (tail, 1.0 - tail):
        z = z0 + float(norm.ppf(q))
        ends.append(float(norm.cdf(z0 + z / (1.0 - acc * z))))
    low, high = (float(x) for x in np.quantile(draws, ends))
    return low, high


def _bca_p_value(draws: np.ndarray, estimate: float, jack: np.ndarray) -> float:
    """The two-sided p-value that agrees with :func:`_bca_interval`: 1 - c for the level c whose
    interval just reaches 0 (0 at the share of draws below 0, mapped back through BCa's bias
    correction and acceleration), so the interval excludes 0 exactly when p < 1 - c."""
    from scipy.stats import norm

    b = draws.size
    z0, acc = _bca_constants(draws, estimate, jack)
    share = (np.sum(draws < 0) + 0.5 * np.sum(draws == 0)) / b
    w = float(norm.ppf(min(max(share, 0.5 / b), 1.0 - 0.5 / b))) - z0
    level = float(norm.cdf(w / (1.0 + acc * w) - z0))
    return float(min(1.0, 2.0 * min(level, 1.0 - level)))


def spread_difference(
    shares_a: np.ndarray,
    shares_b: np.ndarray,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    paired: bool = True,
) -> dict[str, Any]:
    """The seat spread of A and B and its change, with a bootstrap interval.

    Args:
        shares_a, shares_b: games x seats win shares (rows of one game; paired: row i of A and of B
            are the same game's seed, so they must have the same shape).
        confidence: two-sided level of the interval.
        resamples: bootstrap draws (the interval's ends move by about 0.1 point between seeds at 2,000).
        seed: the bootstrap's own seed (the result is reproducible).
        paired: resample the same games in A and B; False resamples each side on its own.

    Returns:
        ``{"spread_a", "spread_b", "difference", "ci_low", "ci_high", "p_value", "verdict",
        "resamples", "paired", "n"}`` (fractions; ``difference = spread_b - spread_a``).
    """
    a, b = np.asarray(shares_a, dtype=np.float64), np.asarray(shares_b, dtype=np.float64)
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] == 0 or b.shape[0] == 0:
        raise ValueError("seat spread: need at least one game on each side")
    if paired and a.shape != b.shape:
        raise ValueError(f"seat spread: paired tables differ in shape ({a.shape} and {b.shape})")
    spread_a = float(a.mean(axis=0).max() - a.mean(axis=0).min())
    spread_b = float(b.mean(axis=0).max() - b.mean(axis=0).min())
    rng = np.random.default_rng(seed)
    draws = []
    for start in range(0, resamples, _CHUNK):
        k = min(_CHUNK, resamples - start)
        wa = rng.multinomial(a.shape[0], np.full(a.shape[0], 1.0 / a.shape[0]), size=k) / a.shape[0]
        wb = wa if paired else rng.multinomial(b.shape[0], np.full(b.shape[0], 1.0 / b.shape[0]), size=k) / b.shape[0]
        draws.append(_spreads(wb, b) - _spreads(wa, a))
    d = np.concatenate(draws)
    diff = spread_b - spread_a
    jack = _jackknife(a, b, paired)
    low, high = _bca_interval(d, diff, jack, confidence)
    if np.all(d == 0) and diff == 0:
        low = high = 0.0
        p = 1.0
    else:
        p = _bca_p_value(d, diff, jack)
    # from p, which agrees with the interval (an end exactly at 0, among discrete draws, aside)
    verdict = ("fairer" if diff < 0 else "less fair") if p < 1.0 - confidence else "cannot tell"
    return {
        "spread_a": spread_a,
        "spread_b": spread_b,
        "difference": diff,
        "ci_low": low,
        "ci_high": high,
        "p_value": p,
        "verdict": verdict,
        "resamples": int(resamples),
        "paired": bool(paired),
        "n": int(a.shape[0]),
    }


def seat_spread_headline(
    a: pl.LazyFrame | pl.DataFrame,
    b: pl.LazyFrame | pl.DataFrame,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """:func:`spread_difference` of two results tables, paired when they hold the same games and
    seats (else each side is resampled on its own); adds ``best_a``/``worst_a``/``best_b``/``worst_b``
    (the seats at the ends) and the seats' rates ``rates_a``/``rates_b`` (``{seat: rate}``)."""
    ga, sa, seats_a = seat_matrix(a)
    gb, sb, seats_b = seat_matrix(b)
    paired = seats_a == seats_b and ga.shape == gb.shape and bool(np.array_equal(ga, gb))
    out = spread_difference(sa, sb, confidence, resamples, seed, paired)
    for side, shares, seats in (("a", sa, seats_a), ("b", sb, seats_b)):
        rates = shares.mean(axis=0)
        out[f"best_{side}"] = seats[int(np.argmax(rates))]
        out[f"worst_{side}"] = seats[int(np.argmin(rates))]
        out[f"rates_{side}"] = {str(s): float(r) for s, r in zip(seats, rates)}
    return out
