"""Paired differences between two rule variants played with common random numbers.

Two runs of a game with the same seed play game *i* with the same seed sequence
``SeedSequence(seed, spawn_key=(i,))`` and draw the deals (site boards, shuffles) from a stream of
their own, so game *i* of variant A and game *i* of variant B see the same deals wherever the rules
allow (common random numbers, docs/architecture.md "Determinism"). Their results tables are therefore *paired*
by ``(game_index, seat)``: the difference of a quantity is measured game by game, and the noise the
two games share cancels.

Every quantity is first reduced to **one value per game** (so the games, not the players, are the
independent units):

* seat *s* win rate: the seat's ``win_share`` in that game (1, 0, or 1/k for a win shared by k);
* agent win rate: the agent's win share in that game, the sum of ``win_share`` over its seats
  divided by its number of seats (a mirror table of one agent gives 1/n per game);
* score (``score`` total and each ``score_<component>``, in points) and each ``metric_<name>`` (in
  the metric's own unit, e.g. tiles) and ``turns``: the mean over the game's players.

The mean of these per-game values is the quantity's mean in the run (a win rate as a fraction in
[0, 1], a score in points per player). For each quantity A -> B:

* **paired** (complete pairing, see below): the per-game differences ``d_i = B_i - A_i`` get a
  paired t-test (Student 1908; :func:`scipy.stats.ttest_rel`), the interval is
  ``mean(d) +- t_{n-1, (1+c)/2} * sd(d) / sqrt(n)``;
* when every ``d_i`` is exactly 0: difference 0, interval [0, 0], p = 1.0, test
  ``"identical in every game"``;
* **unpaired** (pairing incomplete): Welch's unequal-variance t-test (Welch 1947;
  :func:`scipy.stats.ttest_ind` with ``equal_var=False``) on the two samples of per-game values, the
  interval ``diff +- t_{df} * sqrt(s_a^2/n_a + s_b^2/n_b)`` with Welch-Satterthwaite ``df``.

Pairing is complete when both tables have the same player count, the same set of
``(game_index, seat)`` keys and the same agent in every ``(game_index, seat)``; otherwise every
quantity falls back to Welch, and ``pairing`` says why.

**Sparse rows.** When fewer than 30 games differ (a rule that rarely matters), the t-test's normal
approximation fails (it flags 12.9% of unchanged rows at 4 changed games): such a row is tested by
the exact sign test on the games that differ (:func:`sign_test_p`; ``test`` says so).

**Many rows at once.** A comparison tests every row (16 or more); at 5% each, some row of an
unchanged variant is flagged about half the time. The rows' p-values are therefore Holm-adjusted as
one family (:func:`holm_adjust`, :func:`adjust_family`) and a row is flagged (``significant``) on
its adjusted p-value, so that an unchanged variant shows any flag at most 5% of the time.

Assumptions: games are independent of each other (they are: each has its own seed); a shared win
counts as the fraction 1/k; the t interval is an approximation for 0/1- or fraction-valued data
(win shares), which is fine at the sample sizes of a comparison (hundreds to thousands of games) by
the central limit theorem, but not for a handful of games.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from balancer.stats.summary import json_clean


def _stats() -> Any:
    """:mod:`scipy.stats`, imported on first use: every run's summary imports this module (for
    :func:`adjust_family`), and scipy.stats costs about half a second and 50 MB to import."""
    from scipy import stats

    return stats


PAIRED_TEST = "paired t-test on per-game differences"
SIGN_TEST = "exact sign test on the games that differ"
SPARSE_GAMES = 30
"""Below this many games whose difference is not 0, a paired row is tested by the exact sign test
(:func:`sign_test_p`) instead of the t-test, whose normal approximation fails on a handful of
non-zero differences (4 of 2,000 games changed by +1 give t-test p = 0.045, sign test p = 0.125)."""
HOLM = "Holm"
WELCH_TEST = "Welch t-test"
IDENTICAL = "identical in every game"
KEYS = ("game_index", "seat")
SCORE_PREFIX = "score_"
METRIC_PREFIX = "metric_"
DEFAULT_CONFIDENCE = 0.95

__all__ = [
    "paired_differences",
    "paired_test",
    "welch_test",
    "holm_adjust",
    "sign_test_p",
    "adjust_family",
    "PAIRED_TEST",
    "WELCH_TEST",
    "IDENTICAL",
    "SIGN_TEST",
]


# --------------------------------------------------------------------------- the two tests


def _none_if_nan(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _scipy_p(test, *args, **kwargs) -> float | None:
    """p-value of a scipy.stats test; its precision-loss warning for a (nearly) constant sample is
    silenced (the interval is computed here from the variances directly)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _none_if_nan(float(test(*args, **kwargs).pvalue))


def _t_quantile(confidence: float, df: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return float(_stats().t.ppf(0.5 + confidence / 2.0, df))


def sign_test_p(d: np.ndarray) -> float:
    """Two-sided exact sign test of per-game differences ``d``: under "no change" a game that differs
    is equally likely to differ up or down, so the number of positive differences among the m
    non-zero ones is Binomial(m, 1/2) (:func:`scipy.stats.binomtest`; games with d = 0 carry no
    information and are left out). 4 of 4 up: p = 2 / 2^4 = 0.125. Returns 1.0 when no d differs."""
    nonzero = d[d != 0]
    m = int(nonzero.size)
    if m == 0:
        return 1.0
    return float(_stats().binomtest(int((nonzero > 0).sum()), m, 0.5).pvalue)


def holm_adjust(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's (1979) step-down adjusted p-values, which control the family-wise error rate under any
    dependence between the tests: the i-th smallest of m p-values becomes
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``. ``None`` entries are not tested: they stay ``None``
    and do not count in m. Equal to ``statsmodels.stats.multitest.multipletests(p, method="holm")``
    (a test checks it)."""
    idx = [i for i, p in enumerate(p_values) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(p_values)
    if not idx:
        return out
    p = np.array([float(p_values[i]) for i in idx])  # type: ignore[arg-type]
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    for rank, k in enumerate(order):
        out[idx[int(k)]] = float(adjusted[rank])
    return out


def adjust_family(rows: Sequence[dict[str, Any]], confidence: float) -> dict[str, Any]:
    """Holm-adjust the p-values of ``rows`` as one family, in place: every row gets ``p_adjusted``
    (``None`` when not tested) and ``significant`` becomes "Holm-adjusted p below 1 - confidence"
    (its per-row decision is kept as ``significant_alone``). Rows identical in every game are exact,
    not tested: they are left out of the family. Returns ``{method, family_size, alpha}``."""
    alpha = 1.0 - confidence
    tested = [None if r.get("identical") else r.get("p_value") for r in rows]
    adjusted = holm_adjust(tested)
    for r, q in zip(rows, adjusted):
        r["significant_alone"] = bool(r.get("significant"))
        r["p_adjusted"] = q
        r["significant"] = bool(q is not None and q < alpha)
    return {"method": HOLM, "family_size": sum(q is not None for q in adjusted), "alpha": round(alpha, 12)}


def paired_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    confidence: float = DEFAULT_CONFIDENCE,
    sparse_games: int = SPARSE_GAMES,
) -> dict[str, Any]:
    """Paired comparison of two equal-length samples (one value per game, ``a[i]`` and ``b[i]`` from
    the same game).

    Returns ``{from, to, difference, ci_low, ci_high, p_value, test, significant, n, identical}``:
    ``from``/``to`` the means of ``a``/``b``, ``difference`` the mean of ``b[i] - a[i]`` (in the
    unit of the data), its Student-t interval and :func:`scipy.stats.ttest_rel` p-value.
    Every difference exactly 0 -> difference 0, interval [0, 0], p 1.0, test ``"identical in every
    game"``. Fewer than ``sparse_games`` (default :data:`SPARSE_GAMES`, 30) games with a non-zero difference -> the p-value is
    the exact sign test's (:func:`sign_test_p`), ``test`` says so, ``games_changed`` counts those
    games, ``significant`` is p below 1 - confidence and the t interval is descriptive only (it may
    exclude 0 when the test does not reject). All of 30 or more differences equal but not 0 ->
    interval [d, d], p 0.0. Fewer than 2 games -> interval and p are ``None``. Otherwise
    ``significant`` is True when the interval excludes 0 (the t-test's p below 1 - confidence).
    This is one row's own decision: :func:`paired_differences` replaces it by the Holm-adjusted one.

    Raises ValueError if the lengths differ or a sample is empty.
    """
    xa = np.asarray(a, dtype=np.float64)
    xb = np.asarray(b, dtype=np.float64)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples must have the same length, got {xa.size} and {xb.size}")
    n = int(xa.size)
    if n == 0:
        raise ValueError("paired samples are empty")
    d = xb - xa
    out: dict[str, Any] = {
        "from": float(xa.mean()),
        "to": float(xb.mean()),
        "n": n,
        "n_a": n,
        "n_b": n,
        "paired": True,
        "test": PAIRED_TEST,
        "identical": False,
    }
    if not np.any(d):
        return out | {
            "difference": 0.0,
            "ci_low": 0.0,
            "ci_high": 0.0,
            "p_value": 1.0,
            "test": IDENTICAL,
            "identical": True,
            "significant": False,
        }
    diff = float(d.mean())
    out["difference"] = diff
    if n < 2:
        return out | {"ci_low": None, "ci_high": None, "p_value": None, "significant": False}
    changed = int(np.count_nonzero(d))
    sd = float(d.std(ddof=1))
    if sd == 0.0 and changed >= sparse_games:  # every game moved by exactly the same non-zero amount
        return out | {
            "ci_low": diff,
            "ci_high": diff,
            "p_value": 0.0,
            "significant": True,
            "test": f"{PAIRED_TEST} (every game differs by the same amount)",
        }
    half = _t_quantile(confidence, n - 1) * sd / math.sqrt(n)
    low, high = diff - half, diff + half
    if changed < sparse_games:
        p = sign_test_p(d)
        return out | {
            "ci_low": low,
            "ci_high": high,
            "p_value": p,
            "significant": bool(p < 1.0 - confidence),
            "test": SIGN_TEST,
            "games_changed": changed,
        }
    p_t = _scipy_p(_stats().ttest_rel, xb, xa)
    return out | {"ci_low": low, "ci_high": high, "p_value": p_t, "significant": bool(low > 0 or high < 0)}


def welch_test(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, Any]:
    """Unpaired comparison of two independent samples (one value per game) by Welch's t-test.

    Returns the same keys as :func:`paired_test` with ``test = "Welch t-test"``: ``difference`` is
    ``mean(b) - mean(a)``, the interval ``diff +- t_df * sqrt(var_a/n_a + var_b/n_b)`` with the
    Welch-Satterthwaite degrees of freedom, the p-value from
    ``scipy.stats.ttest_ind(b, a, equal_var=False)``. Both samples constant: interval [d, d] and
    p 1.0 (equal) or 0.0 (different). A sample with fewer than 2 values: interval and p ``None``;
    an empty sample: ``difference`` ``None`` too.
    """
    xa = np.asarray(a, dtype=np.float64)
    xb = np.asarray(b, dtype=np.float64)
    na, nb = int(xa.size), int(xb.size)
    out: dict[str, Any] = {
        "from": float(xa.mean()) if na else None,
        "to": float(xb.mean()) if nb else None,
        "n": min(na, nb),
        "n_a": na,
        "n_b": nb,
        "paired": False,
        "test": WELCH_TEST,
        "identical": False,
        "difference": None,
        "ci_low": None,
        "ci_high": None,
        "p_value": None,
        "significant": False,
    }
    if na == 0 or nb == 0:
        out["test"] = f"not compared: no values in {'A' if na == 0 else 'B'}"
        return out
    diff = out["to"] - out["from"]
    out["difference"] = diff
    if na < 2 or nb < 2:
        return out
    va, vb = float(xa.var(ddof=1)), float(xb.var(ddof=1))
    se2 = va / na + vb / nb
    if se2 == 0.0:
        return out | {"ci_low": diff, "ci_high": diff, "p_value": 1.0 if diff == 0 else 0.0, "significant": diff != 0}
    df = se2 * se2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    half = _t_quantile(confidence, df) * math.sqrt(se2)
    p = _scipy_p(_stats().ttest_ind, xb, xa, equal_var=False)
    low, high = diff - half, diff + half
    return out | {"ci_low": low, "ci_high": high, "p_value": p, "significant": bool(low > 0 or high < 0)}


# --------------------------------------------------------------------------- tables


def _collect(table: pl.LazyFrame | pl.DataFrame, name: str) -> pl.DataFrame:
    df = table.collect() if isinstance(table, pl.LazyFrame) else table
    missing = [c for c in ("game_index", "seat", "agent", "win_share") if c not in df.columns]
    if missing:
        raise ValueError(f"results table {name} lacks required column(s): {', '.join(missing)}")
    if df.height == 0:
        raise ValueError(f"results table {name} is empty")
    dup = df.select(pl.struct(*KEYS).is_duplicated().any()).item()
    if dup:
        raise ValueError(f"results table {name} has more than one row for some (game_index, seat)")
    return df


def _prefixed(columns: Sequence[str], prefix: str) -> list[str]:
    return [c for c in columns if c.startswith(prefix) and len(c) > len(prefix)]


def _n_players(df: pl.DataFrame) -> list[int]:
    if "n_players" in df.columns:
        return sorted(int(x) for x in df["n_players"].unique().drop_nulls())
    return sorted(int(x) for x in df.group_by("game_index").len()["len"].unique())


def _pairing(a: pl.DataFrame, b: pl.DataFrame) -> tuple[bool, str, int]:
    """(paired?, reason in words, number of games in both)."""
    games_a = set(a["game_index"].unique().to_list())
    games_b = set(b["game_index"].unique().to_list())
    common = len(games_a & games_b)
    pa, pb = _n_players(a), _n_players(b)
    if pa != pb:
        return False, f"player counts differ (A: {pa}, B: {pb}), so games cannot be paired", common
    joined = a.select(*KEYS, "agent").join(b.select(*KEYS, "agent"), on=list(KEYS), how="full", coalesce=True)
    unmatched = joined.filter(pl.col("agent").is_null() | pl.col("agent_right").is_null()).height
    if unmatched:
        return (
            False,
            (
                f"the tables do not hold the same games and seats ({len(games_a)} games in A, "
                f"{len(games_b)} in B, {unmatched} (game, seat) rows without a partner)"
            ),
            common,
        )
    mismatch = joined.filter(pl.col("agent") != pl.col("agent_right"))
    if mismatch.height:
        g = mismatch["game_index"][0]
        return (
            False,
            (
                f"the agents by seat differ in {mismatch['game_index'].n_unique()} games "
                f"(first: game {g}), so games cannot be paired"
            ),
            common,
        )
    return True, f"paired by (game_index, seat): the same {common} games and seats in both", common


def _per_game(df: pl.DataFrame, seats: list, agents: list, columns: list[str]) -> pl.DataFrame:
    """One row per game: ``seat:<s>``, ``agent:<g>`` win shares and ``col:<c>`` means over players."""
    share = pl.col("win_share").cast(pl.Float64)
    exprs = [share.filter(pl.col("seat") == s).mean().alias(f"seat:{s}") for s in seats]
    exprs += [share.filter(pl.col("agent") == g).mean().alias(f"agent:{g}") for g in agents]
    exprs += [pl.col(c).cast(pl.Float64).mean().alias(f"col:{c}") for c in columns if c in df.columns]
    return df.group_by("game_index").agg(exprs).sort("game_index")


def _values(frame: pl.DataFrame, key: str) -> np.ndarray:
    if key not in frame.columns:
        return np.empty(0)
    return frame[key].drop_nulls().to_numpy().astype(np.float64)


def _compare(
    ga: pl.DataFrame, gb: pl.DataFrame, key: str, paired: bool, confidence: float, sparse_games: int
) -> dict[str, Any]:
    if paired and key in ga.columns and key in gb.columns:
        both = (
            ga.select("game_index", pl.col(key).alias("a"))
            .join(gb.select("game_index", pl.col(key).alias("b")), on="game_index", how="inner")
            .drop_nulls()
        )
        if both.height:
            return paired_test(both["a"].to_numpy(), both["b"].to_numpy(), confidence, sparse_games)
    return welch_test(_values(ga, key), _values(gb, key), confidence)


def paired_differences(
    a: pl.LazyFrame | pl.DataFrame,
    b: pl.LazyFrame | pl.DataFrame,
    confidence: float = DEFAULT_CONFIDENCE,
    sparse_games: int = SPARSE_GAMES,
) -> dict[str, Any]:
    """Compare two results tables (variant A -> variant B), paired by ``(game_index, seat)``.

    Args:
        a, b: long results tables (one row per seat per game, docs/architecture.md "Results"), lazy or eager.
            Needed: ``game_index, seat, agent, win_share``; ``n_players``, ``score``, ``turns``,
            ``score_*`` and ``metric_*`` are used when present (components and metrics found by
            prefix; a column in only one table is listed in ``only_in_a`` / ``only_in_b``).
        confidence: two-sided level of every interval (default 0.95).
        sparse_games: below this many games that differ, a paired row takes the exact sign test.

    Returns:
        a JSON-ready dict (NaN -> ``None``)::

            {"confidence": 0.95, "paired": bool, "pairing": "<why (not) paired>",
             "games_a": int, "games_b": int, "games_paired": int (0 when unpaired),
             "n_players_a": [..], "n_players_b": [..],
             "outcome_changed_games": int | None,   # games whose winner set (seats with win share > 0) differs
             "turns_changed_games": int | None,     # games where some player's number of turns differs
             "identical": bool,                     # paired and every per-game difference is exactly 0
             "seat_win_rate":  [row, ...],          # one per seat, fractions in [0, 1]
             "agent_win_rate": [row, ...],          # one per agent, fractions in [0, 1]
             "score":          [row, ...],          # "total" then each component, points per player
             "metrics":        [row, ...],          # each metric, then "turns", per player
             "only_in_a": [...], "only_in_b": [...]}

        and each ``row`` is ``{"name", "kind", "from", "to", "difference", "ci_low", "ci_high",
        "p_value", "test", "significant", "identical", "paired", "n", "n_a", "n_b"}`` where
        ``difference = to - from`` (B - A; for paired rows the mean per-game difference), ``test`` is
        ``"paired t-test on per-game differences"``, ``"exact sign test on the games that differ"``
        (fewer than 30 games differ), ``"identical in every game"`` or ``"Welch t-test"``.
        ``n`` counts games. Every row is one test of one family (rows identical in every game
        excepted): ``p_adjusted`` is its Holm-adjusted p-value, ``significant`` means
        ``p_adjusted`` < 1 - confidence (a flag that holds the family-wise error rate at that level)
        and ``significant_alone`` is the row's own, unadjusted decision; the intervals are the
        rows' own (unadjusted). ``multiplicity`` is ``{"method": "Holm", "family_size": m,
        "alpha": 1 - confidence}``.

    Raises:
        ValueError: if a table lacks a required column, is empty, or holds two rows for one
            ``(game_index, seat)``.

    See the module docstring for the per-game reduction, the tests and their assumptions.
    """
    da = _collect(a, "A")
    db = _collect(b, "B")
    paired, reason, common = _pairing(da, db)

    seats = sorted(set(da["seat"].unique().to_list()) | set(db["seat"].unique().to_list()))
    agents = list(
        dict.fromkeys(
            da.sort(KEYS)["agent"].unique(maintain_order=True).to_list()
            + db.sort(KEYS)["agent"].unique(maintain_order=True).to_list()
        )
    )
    comps_a, comps_b = _prefixed(da.columns, SCORE_PREFIX), _prefixed(db.columns, SCORE_PREFIX)
    mets_a, mets_b = _prefixed(da.columns, METRIC_PREFIX), _prefixed(db.columns, METRIC_PREFIX)
    comps = comps_a + [c for c in comps_b if c not in comps_a]
    mets = mets_a + [c for c in mets_b if c not in mets_a]
    extra = [c for c in ("score", "turns") if c in da.columns or c in db.columns]
    columns = extra + comps + mets

    ga = _per_game(da, seats, agents, columns)
    gb = _per_game(db, seats, agents, columns)

    def row(name: str, kind: str, key: str) -> dict[str, Any]:
        return {"name": name, "kind": kind, **_compare(ga, gb, key, paired, confidence, sparse_games)}

    seat_rows = [row(f"seat {s}", "seat", f"seat:{s}") | {"seat": s} for s in seats]
    # one agent in every seat (a mirror table): its win rate is 1/n by construction, nothing to compare
    agent_rows = [row(str(g), "agent", f"agent:{g}") | {"agent": g} for g in agents] if len(agents) > 1 else []
    score_rows = []
    if "score" in extra:
        score_rows.append(row("total", "score", "col:score"))
    score_rows += [row(c[len(SCORE_PREFIX) :], "score", f"col:{c}") for c in comps]
    metric_rows = [row(c[len(METRIC_PREFIX) :], "metric", f"col:{c}") for c in mets]
    if "turns" in extra:
        metric_rows.append(row("turns", "metric", "col:turns"))

    outcome_changed = turns_changed = None
    if paired:
        j = da.select(*KEYS, "win_share", *(["turns"] if "turns" in da.columns else [])).join(
            db.select(*KEYS, "win_share", *(["turns"] if "turns" in db.columns else [])),
            on=list(KEYS),
            how="inner",
            suffix="_b",
        )
        changed = j.filter((pl.col("win_share") > 0) != (pl.col("win_share_b") > 0))
        outcome_changed = int(changed["game_index"].n_unique())
        if "turns" in j.columns and "turns_b" in j.columns:
            turns_changed = int(j.filter(pl.col("turns") != pl.col("turns_b"))["game_index"].n_unique())

    all_rows = seat_rows + agent_rows + score_rows + metric_rows
    multiplicity = adjust_family(all_rows, confidence)
    result = {
        "confidence": confidence,
        "paired": paired,
        "pairing": reason,
        "games_a": int(da["game_index"].n_unique()),
        "games_b": int(db["game_index"].n_unique()),
        "games_paired": common if paired else 0,
        "n_players_a": _n_players(da),
        "n_players_b": _n_players(db),
        "outcome_changed_games": outcome_changed,
        "turns_changed_games": turns_changed,
        "identical": bool(paired and all(r["identical"] for r in all_rows)),
        "seat_win_rate": seat_rows,
        "agent_win_rate": agent_rows,
        "score": score_rows,
        "metrics": metric_rows,
        "only_in_a": [c for c in comps_a + mets_a if c not in db.columns],
        "only_in_b": [c for c in comps_b + mets_b if c not in da.columns],
        "multiplicity": multiplicity,
    }
    return json_clean(result)
