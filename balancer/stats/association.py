"""Win rate of players with and without a per-seat indicator: an association, not a cause.

A game may report a per-seat play metric that is 0 or 1 (``metric_<name>``: did this player take
an improvement, build a monument, ...).  For every such *indicator* this module compares the win
rate (mean ``win_share``) of the player-games where it is 1 with those where it is 0.  Nothing here
knows any game: an indicator is any ``metric_*`` column whose values in the run are all 0 or 1 and
that takes both values (a constant column compares nothing; a count that happens to stay within
{0, 1} in a short run is also picked up, and its "1" then means "exactly one").

**Association, not cause.**  The comparison is observational: players who took something may be
the ones who were winning anyway (a leading player can afford it), and the agents choose it by
their own heuristics.  A difference says "goes with winning", never "makes you win"; only a rule
variant played both ways (``balancer compare``) measures an effect.

**Statistics** (every rate a fraction in [0, 1]; a shared win counts 1/k per tied winner):

* rate of each group: ``r = S / K``, summed win shares over player-games;
* interval of each group: Wilson's score interval, computed at an *effective* sample size
  ``K / deff`` so that it accounts for players of one game not being independent.  The design
  effect ``deff`` is the cluster-robust variance of ``r`` (games as clusters; the ratio-estimator
  variance of Cochran, *Sampling Techniques*, 1977, §6.4, also used for the metric means in
  :func:`balancer.stats.aggregate.summarize`) over the binomial variance ``r(1-r)/K``.  It is
  often below 1: the win shares of one game sum to 1, so players of the same game are negatively
  correlated.  Wilson's interval only needs ``r`` and the sample size, so fractional successes
  from shared wins are fine.  When the variance cannot be estimated (fewer than 2 games, or it
  is 0) ``deff = 1``, the plain Wilson interval over player-games;
* difference ``d = r1 - r0`` with Newcombe's hybrid score interval (Newcombe 1998, *Stat. Med.*
  17:873, method 10) in its MOVER form with a correlation term (Newcombe 1998, *Stat. Med.*
  17:2635; Zou & Donner 2008, *Stat. Med.* 27:1693)::

      low  = d - sqrt((r1-l1)^2 + (u0-r0)^2 - 2 rho (r1-l1)(u0-r0))
      high = d + sqrt((u1-r1)^2 + (r0-l0)^2 - 2 rho (u1-r1)(r0-l0))

  where ``(l, u)`` are the groups' design-adjusted Wilson intervals and ``rho`` the correlation
  of ``r1`` and ``r0`` across games, from the same cluster-robust (sandwich) covariance.  The
  two groups share games, and in one game one player's win is another's loss, so ``rho`` is
  usually negative and widens the interval (while ``deff < 1`` narrows each group's).  With one
  player-game per game (no clustering) and 0/1 outcomes, ``deff = G/(G-1)`` and ``rho = 0``:
  Newcombe's method 10 up to that small-sample factor.  A game-level (cluster) bootstrap is the heavier alternative: on a run of
  300 four-player games with five indicators (4,000 resamples) its percentile intervals for the
  differences agreed with these to within 0.003; flooring ``deff`` at 1 instead made them about
  40% too wide.

**Many indicators at once (multiplicity).**  A run reports every indicator of the game, and the
page marks those whose difference is "significant"; each at 5% on its own, five unrelated
indicators would mark at least one in about 23% of runs.  Each difference therefore gets the
p-value of its own interval (:func:`difference_p_value`: ``1 - c`` for the widest confidence ``c``
whose interval still excludes 0, by bisection on z), the p-values of a run are Holm-adjusted as
one family (:func:`balancer.stats.paired.adjust_family`, the same adjustment as ``compare`` and a
study's changes tables) and a difference is flagged (``significant``) only when its adjusted
p-value is below ``1 - confidence``; ``significant_alone`` keeps the per-indicator decision (the
interval excludes 0).  The intervals shown stay the per-indicator ones.  Holm holds the
family-wise false-flag rate at or below ``1 - confidence`` under any dependence between the
indicators (a test measures it with no true association).

Every sum is exact (win shares rounded to 1e-9 and summed as decimals, as in
:mod:`balancer.stats.aggregate`), so the result does not depend on row order, ``--jobs`` or chunk
size.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Final

import numpy as np
import polars as pl

from balancer.core.metrics import MetricSpecs
from balancer.stats.frames import (
    _DECIMAL,
    _ENGINE,
    DEFAULT_CONFIDENCE,
    METRIC_PREFIX,
    _as_lazy,
    _exact,
    prefixed_columns,
    sum_over_games,
    wilson_interval,
)
from balancer.stats.paired import adjust_family

_Z_MAX: Final = 40.0  # a z beyond which every difference's interval holds 0 (p ~ 1e-349)
_BISECTIONS: Final = 80  # halvings of [0, _Z_MAX]: z to ~3e-23, far below any reported digit


def difference_interval(
    p1: float, ci1: tuple[float, float], p0: float, ci0: tuple[float, float], rho: float = 0.0
) -> tuple[float, float]:
    """Interval for ``p1 - p0`` from the two proportions' own intervals (MOVER).

    With score (Wilson) intervals and ``rho = 0`` this is Newcombe's hybrid score interval
    (Newcombe 1998, method 10); ``rho`` is the correlation of the two estimates (Newcombe's
    paired-data form; Zou & Donner 2008).

    Args:
        p1, p0: the proportions, fractions in [0, 1].
        ci1, ci0: their ``(low, high)`` intervals, fractions containing ``p1`` and ``p0``.
        rho: correlation of the two estimates, in [-1, 1] (0 for independent samples).

    Returns:
        ``(low, high)`` for ``p1 - p0``, clipped to [-1, 1].
    """
    (l1, u1), (l0, u0) = ci1, ci0
    d = p1 - p0
    a, b = p1 - l1, u0 - p0
    c, e = u1 - p1, p0 - l0
    low = d - math.sqrt(max(0.0, a * a + b * b - 2.0 * rho * a * b))
    high = d + math.sqrt(max(0.0, c * c + e * e - 2.0 * rho * c * e))
    return max(-1.0, low), min(1.0, high)


def _wilson_z(rate: np.ndarray, n: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval at ``z`` for arrays of rates (fractions) and effective sizes ``n``:
    :func:`balancer.stats.aggregate.wilson_interval` vectorised (low exactly 0 at rate 0, high
    exactly 1 at rate 1)."""
    z2n = z * z / n
    denom = 1.0 + z2n
    centre = (rate + z2n / 2.0) / denom
    half = (z / denom) * np.sqrt(np.maximum(rate * (1.0 - rate), 0.0) / n + z2n / (4.0 * n))
    low = np.where(rate <= 0.0, 0.0, np.maximum(0.0, centre - half))
    high = np.where(rate >= 1.0, 1.0, np.minimum(1.0, centre + half))
    return low, high


def difference_p_value(
    rate_1: np.ndarray | float,
    n_eff_1: np.ndarray | float,
    rate_0: np.ndarray | float,
    n_eff_0: np.ndarray | float,
    rho: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Two-sided p-value of ``rate_1 - rate_0`` by inverting its interval (module docstring): the
    difference interval at confidence ``c`` (Wilson at the effective sizes ``n_eff``, then
    :func:`difference_interval` with correlation ``rho``) holds 0 exactly when ``c >= 1 - p``.
    Found by bisection on z (the interval widens with z), elementwise over arrays of any equal
    shape, so that simulations call it once. A difference of 0 has p = 1.

    Args:
        rate_1, rate_0: the groups' win rates, fractions in [0, 1].
        n_eff_1, n_eff_0: their effective sample sizes (player-games / design effect), > 0.
        rho: correlation of the two rates across games, in [-1, 1].

    Returns:
        float64 array of p-values in (0, 1], the broadcast shape of the inputs.
    """
    r1, n1, r0, n0, c = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (rate_1, n_eff_1, rate_0, n_eff_0, rho))
    )
    d = r1 - r0
    lo = np.zeros(d.shape)
    hi = np.full(d.shape, _Z_MAX)
    for _ in range(_BISECTIONS):
        z = (lo + hi) / 2.0
        l1, u1 = _wilson_z(r1, n1, z)
        l0, u0 = _wilson_z(r0, n0, z)
        a, b, e, f = r1 - l1, u0 - r0, u1 - r1, r0 - l0
        low = d - np.sqrt(np.maximum(0.0, a * a + b * b - 2.0 * c * a * b))
        high = d + np.sqrt(np.maximum(0.0, e * e + f * f - 2.0 * c * e * f))
        excludes = (low > 0.0) | (high < 0.0)
        lo = np.where(excludes, z, lo)
        hi = np.where(excludes, hi, z)
    from scipy import stats  # on first use: a summary without indicators never needs it (half a second)

    p = 2.0 * stats.norm.sf((lo + hi) / 2.0)
    return np.where(d == 0.0, 1.0, np.minimum(1.0, p))


def indicator_family(rows: list[dict[str, Any]], confidence: float = DEFAULT_CONFIDENCE) -> dict[str, Any]:
    """``{method, family_size, alpha}`` of a run's indicator rows (:func:`indicator_win_rates`):
    Holm over every indicator with a p-value, ``alpha = 1 - confidence`` (``summary.json``'s
    ``indicator_multiplicity``)."""
    return {
        "method": "Holm",
        "family_size": sum(r.get("p_value") is not None for r in rows),
        "alpha": round(1.0 - confidence, 12),  # 0.05, not 0.050000000000000044
    }


def indicator_columns(results: pl.LazyFrame | pl.DataFrame, specs: MetricSpecs | None = None) -> list[str]:
    """The ``metric_*`` columns that are per-seat indicators, in table order.

    An indicator is a numeric (or boolean) metric column whose non-null, non-NaN values are all
    0 or 1 and include both; with ``specs`` (the game's declared metrics), only a metric declared a
    0/1 indicator is one (a count that happens to be 0 or 1 in every game is not).  One pass over
    the table.
    """
    lf = _as_lazy(results)
    schema = lf.collect_schema()
    declared = None if specs is None else {METRIC_PREFIX + name for name in specs.indicators}
    candidates = [
        c
        for c in prefixed_columns(schema.names(), METRIC_PREFIX)
        if (schema[c].is_numeric() or schema[c] == pl.Boolean) and (declared is None or c in declared)
    ]
    if not candidates:
        return []
    exprs = []
    for i, c in enumerate(candidates):
        x = pl.col(c).cast(pl.Float64)
        exprs += [
            (x == 1).sum().alias(f"{i}_1"),
            (x == 0).sum().alias(f"{i}_0"),
            (x.is_not_nan() & (x != 0) & (x != 1)).sum().alias(f"{i}_other"),
        ]
    rec = lf.select(exprs).collect(engine=_ENGINE).row(0, named=True)
    return [c for i, c in enumerate(candidates) if rec[f"{i}_1"] and rec[f"{i}_0"] and not rec[f"{i}_other"]]


def _game_sums(lf: pl.LazyFrame, columns: list[str]) -> dict[str, Any]:
    """One record: per indicator, exact sums over games of the per-game win shares ``s1, s0`` and
    player counts ``k1, k0`` of the seats where it is 1 / 0, and of their products (the moments
    the cluster-robust variances and covariance need; memory bounded by :func:`sum_over_games`).
    Without ``game_index`` every row is its own game."""
    names = lf.collect_schema()
    if "game_index" in names.names():
        key = "game_index"
    else:
        key = "_row"
        lf = lf.with_row_index(key)
    share, _ = _exact("win_share", names["win_share"])
    aggs = []
    for i, c in enumerate(columns):
        x = pl.col(c).cast(pl.Float64)
        for v in (1, 0):
            hit = x == v
            aggs += [
                pl.when(hit).then(share).otherwise(pl.lit(0).cast(_DECIMAL)).sum().alias(f"{i}s{v}"),
                hit.cast(pl.Int64).sum().alias(f"{i}k{v}"),
            ]
    exprs = []
    for i in range(len(columns)):
        s1, k1, s0, k0 = (pl.col(f"{i}{n}") for n in ("s1", "k1", "s0", "k0"))
        f1, f0 = s1.cast(pl.Float64), s0.cast(pl.Float64)
        exprs += [
            ((k1 + k0) > 0).sum().alias(f"{i}G"),
            s1.sum().alias(f"{i}S1"),
            k1.sum().alias(f"{i}K1"),
            s0.sum().alias(f"{i}S0"),
            k0.sum().alias(f"{i}K0"),
            (f1 * f1).cast(_DECIMAL).sum().alias(f"{i}S1S1"),
            (f1 * k1).cast(_DECIMAL).sum().alias(f"{i}S1K1"),
            (k1 * k1).sum().alias(f"{i}K1K1"),
            (f0 * f0).cast(_DECIMAL).sum().alias(f"{i}S0S0"),
            (f0 * k0).cast(_DECIMAL).sum().alias(f"{i}S0K0"),
            (k0 * k0).sum().alias(f"{i}K0K0"),
            (f1 * f0).cast(_DECIMAL).sum().alias(f"{i}S1S0"),
            (f1 * k0).cast(_DECIMAL).sum().alias(f"{i}S1K0"),
            (k1 * f0).cast(_DECIMAL).sum().alias(f"{i}K1S0"),
            (k1 * k0).sum().alias(f"{i}K1K0"),
        ]
    return sum_over_games(lf, aggs, exprs, key=key)


def _group(
    rate: Fraction, k: int, var: Fraction | None, wins: Fraction, confidence: float, suffix: str
) -> dict[str, Any]:
    """One group's row fields: rate, its design-adjusted Wilson interval, counts, design effect."""
    binomial = rate * (1 - rate) / k
    deff = float(var / binomial) if var and binomial > 0 else 1.0
    n_eff = k / deff
    low, high = wilson_interval(float(rate) * n_eff, n_eff, confidence)
    return {
        f"players_{suffix}": k,
        f"wins_{suffix}": float(wins),
        f"rate_{suffix}": float(rate),
        f"ci_low_{suffix}": low,
        f"ci_high_{suffix}": high,
        f"design_effect_{suffix}": deff,
    }


def _indicator_row(rec: dict, i: int, column: str, confidence: float) -> dict[str, Any]:
    """The comparison of one indicator from the sums of :func:`_game_sums`."""

    def get(name: str) -> Fraction:
        return Fraction(rec[f"{i}{name}"] or 0)

    G = int(rec[f"{i}G"] or 0)
    K1, K0 = int(get("K1")), int(get("K0"))
    r1, r0 = get("S1") / K1, get("S0") / K0
    v1 = v0 = cov = None
    if G >= 2:
        # cluster-robust (sandwich) variances: G/(G-1) * sum_g e1_g^2 etc., with the residuals
        # e1_g = (s1_g - r1 k1_g) / K1 and e0_g = (s0_g - r0 k0_g) / K0, expanded into the sums
        c = Fraction(G, G - 1)
        v1 = c * (get("S1S1") - 2 * r1 * get("S1K1") + r1 * r1 * get("K1K1")) / (K1 * K1)
        v0 = c * (get("S0S0") - 2 * r0 * get("S0K0") + r0 * r0 * get("K0K0")) / (K0 * K0)
        cov = c * (get("S1S0") - r0 * get("S1K0") - r1 * get("K1S0") + r1 * r0 * get("K1K0")) / (K1 * K0)
        v1, v0 = max(v1, Fraction(0)), max(v0, Fraction(0))
    rho = float(cov) / math.sqrt(float(v1) * float(v0)) if cov is not None and v1 and v0 else 0.0
    rho = min(1.0, max(-1.0, rho))
    row = {
        "indicator": column[len(METRIC_PREFIX) :],
        "games": G,
        **_group(r1, K1, v1, get("S1"), confidence, "1"),
        **_group(r0, K0, v0, get("S0"), confidence, "0"),
    }
    low, high = difference_interval(
        row["rate_1"], (row["ci_low_1"], row["ci_high_1"]), row["rate_0"], (row["ci_low_0"], row["ci_high_0"]), rho
    )
    row |= {"difference": float(r1 - r0), "ci_low": low, "ci_high": high, "correlation": rho}
    n_eff_1, n_eff_0 = K1 / row["design_effect_1"], K0 / row["design_effect_0"]
    p = float(difference_p_value(row["rate_1"], n_eff_1, row["rate_0"], n_eff_0, rho))
    row |= {"p_value": p, "significant": low > 0.0 or high < 0.0}
    return row


def indicator_win_rates(
    results: pl.LazyFrame | pl.DataFrame, confidence: float = DEFAULT_CONFIDENCE, specs: MetricSpecs | None = None
) -> list[dict[str, Any]]:
    """Win rate of players with each indicator at 1 against those with it at 0 (association).

    Args:
        results: the long results table (one row per seat per game), lazy or eager; needs
            ``win_share``; ``game_index`` groups players into games (without it every row is
            treated as independent).
        confidence: level of every interval (default 0.95).
        specs: the game's declared metrics (see :func:`indicator_columns`), or None.

    Returns:
        one dict per indicator (see :func:`indicator_columns`), in table order::

            {"indicator": name without "metric_", "games": games with a value,
             "players_1", "wins_1", "rate_1", "ci_low_1", "ci_high_1", "design_effect_1",
             "players_0", "wins_0", "rate_0", "ci_low_0", "ci_high_0", "design_effect_0",
             "difference": rate_1 - rate_0, "ci_low", "ci_high", "correlation",
             "p_value", "p_adjusted", "significant", "significant_alone"}

        ``players_*`` count player-games, ``wins_*`` summed win shares, rates and bounds are
        fractions; the difference interval is in fractions too (x100 = percentage points).
        ``p_value`` inverts the difference's interval, ``p_adjusted`` is Holm's over the run's
        indicators, ``significant`` is ``p_adjusted < 1 - confidence`` and ``significant_alone``
        "the interval excludes 0" (:func:`indicator_family` gives the family's size).
        Empty when the table has no indicator.  See the module docstring for the method.

    Raises:
        ValueError: if ``confidence`` is not in (0, 1).
    """
    lf = _as_lazy(results)
    columns = indicator_columns(lf, specs)
    if not columns:
        return []
    rec = _game_sums(lf, columns)
    rows = [_indicator_row(rec, i, c, confidence) for i, c in enumerate(columns)]
    adjust_family(rows, confidence)
    return rows
