"""Balance across commits: the moves of a tracked number between consecutive points of a history,
and its cumulative drift since a baseline (pure functions; no file names, no I/O).

A *point* is one event's value of one number: ``estimate`` (the mean of ``games`` per-game values with
sample variance ``variance``), the ``seed`` its games were played with, its ``verdict`` and the
check's ``tolerance``. Two points played with the same seed share their deals game by game (the
study's seeds are fixed, so consecutive checks are common-random-number pairs): they are compared
game by game over the games both played (:func:`balancer.stats.paired.paired_test`); otherwise as
independent means, ``(b - a) / sqrt(var_a / n_a + var_b / n_b)`` against the normal distribution.

* **Steps** (:func:`steps`): every pair of consecutive points of a series drawn on the page; their
  p-values are adjusted over all steps on the page with Holm (as on every other page: the chance that
  any unchanged number shows a significant move on this page is at most ``alpha``). They describe the
  page; they raise no flag.
* **Drift** (:func:`drift`, the flag): the latest point against the anchor (the first baseline event
  of the series, else its first point). A history is looked at again after every check, so a flag
  that held its rate on each page would add up over commits (at a 2-point tolerance, 3.5% of stable
  histories were flagged on the first page, 30.5% on some page within 20 commits). The rate is
  therefore **spent over the whole history**: the k-th check after the anchor may spend
  ``alpha_k = alpha * 6 / (pi^2 k^2)`` (:func:`spent`; these add up to ``alpha`` over any number of
  checks), shared among the m series with weighted Holm (:func:`decide`: a series at look k with
  p-value p is compared as ``p / alpha_k``). A series is *flagged* when Holm rejects it and its
  estimate lies beyond the tolerance; its interval is shown at ``1 - alpha_k / m``. So a history
  whose numbers never change is flagged on any page, ever, with probability at most ``alpha``
  (Bonferroni over looks: no independence between checks is assumed). The price is a wider bound
  at later looks: with m = 3 the two-sided ``z`` is 2.57 at the first check after the anchor (2.39
  when each page spent ``alpha / m``), 3.42 at the 4th, 3.89 at the 10th, 4.39 at the 30th. ``flag`` is ``"drift"`` when every check
  on the way passed (the case a single check cannot see), ``"failed"`` when some check had failed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from scipy import stats

from balancer.stats.paired import holm_adjust, paired_test

SERIES = ("run", "variant", "number")
"""The columns that name one tracked number of one cell."""
Values = Mapping[tuple[int, str, str, str], tuple[int, np.ndarray]]
"""(event, run, variant, number) -> (seed, per-game values)."""


def points(history: pl.DataFrame) -> pl.DataFrame:
    """One row per event and tracked number: the regression row (``test`` ``baseline``) or the
    baseline event's row (``saved``) where there is one, else a target's (``expect``), with
    ``failed`` true when any of the event's rows of that number failed (a regression or a target)."""
    if history.is_empty():
        return history.with_columns(pl.lit(False).alias("failed"))
    rank = pl.when(pl.col("test") == "expect").then(1).otherwise(0)
    failed = history.group_by(["event", *SERIES]).agg((pl.col("verdict") == "fail").any().alias("failed"))
    first = history.with_columns(rank.alias("_rank")).sort(["event", *SERIES, "_rank"])
    first = first.unique(subset=["event", *SERIES], keep="first", maintain_order=True).drop("_rank")
    return first.join(failed, on=["event", *SERIES], how="left").sort(["event", *SERIES])


def compare_points(
    a: Mapping[str, Any], b: Mapping[str, Any], va: np.ndarray | None = None, vb: np.ndarray | None = None,
    confidence: float = 0.95,
) -> dict[str, Any]:  # fmt: skip
    """The move from point ``a`` to point ``b`` (mappings with estimate, variance, games, seed):
    ``{difference, ci_low, ci_high, p_value, paired, n, test}``. Paired over the first
    ``min(games)`` games when both per-game value arrays ``va``/``vb`` are given and the seeds agree,
    else unpaired from the summary numbers (normal interval and p-value)."""
    if va is not None and vb is not None and a.get("seed") is not None and a.get("seed") == b.get("seed"):
        n = int(min(len(va), len(vb), a.get("games") or len(va), b.get("games") or len(vb)))
        if n >= 2:
            r = paired_test(va[:n], vb[:n], confidence)
            return {
                "difference": r["difference"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
                "p_value": r["p_value"],
                "paired": True,
                "n": n,
                "test": f"paired over {n:,} common games",
            }
    if any(p.get(k) is None for p in (a, b) for k in ("estimate", "variance", "games")):
        return {"difference": None, "ci_low": None, "ci_high": None, "p_value": None, "paired": False,
                "n": 0, "test": "not compared (estimate or variance missing)"}  # fmt: skip
    diff = float(b["estimate"]) - float(a["estimate"])
    se2 = float(a["variance"]) / max(int(a["games"]), 1) + float(b["variance"]) / max(int(b["games"]), 1)
    if not math.isfinite(se2) or se2 <= 0:
        p = 1.0 if diff == 0 else 0.0
        return {"difference": diff, "ci_low": diff, "ci_high": diff, "p_value": p, "paired": False,
                "n": min(int(a["games"]), int(b["games"])), "test": "unpaired (no variance)"}  # fmt: skip
    se = math.sqrt(se2)
    half = float(stats.norm.isf((1 - confidence) / 2)) * se
    return {
        "difference": diff,
        "ci_low": diff - half,
        "ci_high": diff + half,
        "p_value": float(2 * stats.norm.sf(abs(diff) / se)),
        "paired": False,
        "n": min(int(a["games"]), int(b["games"])),
        "test": "unpaired (different seeds)",
    }


def _values(values: Values | None, row: Mapping[str, Any]) -> np.ndarray | None:
    if values is None:
        return None
    found = values.get((int(row["event"]), row["run"], row["variant"], row["number"]))
    if found is None or found[0] != row.get("seed"):
        return None
    return found[1]


def _series(pts: pl.DataFrame) -> list[list[dict[str, Any]]]:
    out: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in pts.sort("event").iter_rows(named=True):
        out.setdefault((row["run"], row["variant"], row["number"]), []).append(row)
    return [out[k] for k in sorted(out)]


def steps(pts: pl.DataFrame, values: Values | None = None, alpha: float = 0.05) -> pl.DataFrame:
    """Every move between consecutive points of each series of :func:`points`: run, variant, number,
    the two events and commits, the estimates, the move with its 95% interval, the test, p, the Holm
    adjusted p-value over all steps (``p_holm``), and ``significant`` (``p_holm`` < ``alpha``)."""
    rows = []
    for series in _series(pts):
        for a, b in zip(series, series[1:]):
            move = compare_points(a, b, _values(values, a), _values(values, b))
            rows.append(
                {
                    "run": b["run"],
                    "variant": b["variant"],
                    "number": b["number"],
                    "kind": b["kind"],
                    "from_event": a["event"],
                    "to_event": b["event"],
                    "from_commit": a.get("commit_sha"),
                    "to_commit": b.get("commit_sha"),
                    "from_estimate": a["estimate"],
                    "to_estimate": b["estimate"],
                    **move,
                }
            )
    schema = {"p_value": pl.Float64, "difference": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    frame = pl.DataFrame(rows, schema_overrides=schema, infer_schema_length=None) if rows else pl.DataFrame()
    if frame.is_empty():
        return frame
    adjusted = holm_adjust([None if p is None else float(p) for p in frame["p_value"].to_list()])
    q = np.array([np.nan if a is None else a for a in adjusted], dtype=float)
    return frame.with_columns(pl.Series("p_holm", q), pl.Series("significant", np.nan_to_num(q, nan=1.0) < alpha))


def spent(alpha: float, look: int | np.ndarray) -> float | np.ndarray:
    """The false-alarm rate the ``look``-th check after a series' anchor may spend (1, 2, ...):
    ``alpha * 6 / (pi^2 look^2)``; summed over every look it is ``alpha`` (the Basel series)."""
    k = np.maximum(np.asarray(look, dtype=float), 1.0)
    out = alpha * 6.0 / (math.pi**2 * k**2)
    return float(out) if np.ndim(out) == 0 else out


def decide(p: Sequence[float] | np.ndarray, looks: Sequence[int] | np.ndarray, alpha: float) -> np.ndarray:
    """Which series of one page weighted Holm rejects: series i at look ``looks[i]`` with p-value
    ``p[i]`` (NaN: not tested) is compared by ``r_i = p_i / spent(alpha, look_i)``; the j-th smallest
    ratio (1-based) is rejected while every ratio up to it is at most ``1 / (m - j + 1)``, m the
    tested series. Rejecting any series whose number never changed has probability at most
    ``sum_i spent(alpha, look_i) / m`` on this page, and at most ``alpha`` over all pages of a history.
    A 2-d ``p`` (with ``looks`` broadcast to it) is many pages at once, one a row."""
    arr = np.atleast_2d(np.asarray(p, dtype=float))
    k = np.broadcast_to(np.atleast_2d(np.asarray(looks)), arr.shape)
    ok = np.isfinite(arr)
    m = ok.sum(axis=1, keepdims=True)
    ratio = np.where(ok, arr / np.where(ok, np.asarray(spent(alpha, k)), 1.0), np.inf)
    order = np.argsort(ratio, axis=1, kind="stable")
    ranked = np.take_along_axis(ratio, order, axis=1)
    j = np.arange(arr.shape[1])[None, :]
    passes = (j < m) & (ranked <= 1.0 / np.maximum(m - j, 1))
    rejected = np.logical_and.accumulate(passes, axis=1)
    out = np.zeros(arr.shape, dtype=bool)
    np.put_along_axis(out, order, rejected, axis=1)
    return out if np.ndim(p) == 2 else out[0]


def drift(pts: pl.DataFrame, values: Values | None = None, alpha: float = 0.05) -> pl.DataFrame:
    """Per series of :func:`points` with at least two points: the anchor (its first baseline event,
    else its first point), the latest point, the drift between them with its p-value and its interval
    at ``1 - spent(alpha, look) / m`` (m series, ``look`` the number of checks since the anchor), the
    tolerance, how many checks lay between them and whether all passed, ``held`` (weighted Holm over
    the series rejects no drift: :func:`decide`), ``beyond`` (held and |drift| > tolerance) and
    ``flag`` (``"drift"``: beyond though every check passed; ``"failed"``: beyond, a check failed on
    the way; else ``""``). Over the whole history, a history whose numbers never change is flagged
    with probability at most ``alpha``. ``pts`` may hold only each series' anchor and latest points
    with the columns ``_anchor``, ``_later``, ``_checks``, ``_passed``, ``_weak`` (the whole history's
    counts, :data:`balancer.history.query.ENDS_SQL`). ``underpowered``: how many of the checks since the
    anchor were underpowered (recorded ``powered`` false: each could not detect a change of its
    tolerance, so their passing says little about a drift of that size)."""
    all_series = [s for s in _series(pts) if len(s) >= 2]
    m = max(len(all_series), 1)
    rows = []
    for series in all_series:
        if "_anchor" in series[0]:  # summarised by the reader over the whole history (history.query.ENDS_SQL)
            anchor = next((p for p in series if p["event"] == series[0]["_anchor"]), series[0])
            latest = series[-1]
            if latest is anchor:
                continue
            n_later, n_checks, passed = int(latest["_later"]), int(latest["_checks"]), bool(latest["_passed"])
            weak = int(latest.get("_weak") or 0)
        else:
            saved = [p for p in series if p.get("event_kind") == "baseline"]
            anchor = saved[0] if saved else series[0]
            latest = series[-1]
            if latest is anchor:
                continue
            later = [p for p in series if p["event"] > anchor["event"]]
            checks = [p for p in later if p.get("event_kind") == "check"]
            n_later, n_checks = len(later), len(checks)
            passed = all(p["verdict"] == "pass" and not p.get("failed") for p in checks)
            weak = sum(1 for p in checks if p.get("powered") is False)
        look = max(n_later, 1)
        confidence = 1 - float(spent(alpha, look)) / m
        move = compare_points(anchor, latest, _values(values, anchor), _values(values, latest), confidence)
        tol = next((float(t) for t in (latest.get("tolerance"), anchor.get("tolerance")) if t is not None), math.nan)
        rows.append(
            {
                "run": latest["run"],
                "variant": latest["variant"],
                "number": latest["number"],
                "kind": latest["kind"],
                "anchor_event": anchor["event"],
                "anchor_commit": anchor.get("commit_sha"),
                "latest_event": latest["event"],
                "latest_commit": latest.get("commit_sha"),
                "anchor_estimate": anchor["estimate"],
                "latest_estimate": latest["estimate"],
                "drift": move["difference"],
                "p_value": move["p_value"],
                "ci_low": move["ci_low"],
                "ci_high": move["ci_high"],
                "confidence": confidence,
                "look": look,
                "spent": float(spent(alpha, look)),
                "test": move["test"],
                "tolerance": tol,
                "checks": n_checks,
                "all_passed": passed,
                "underpowered": weak,
            }
        )
    if not rows:
        return pl.DataFrame()
    p = np.array([np.nan if r["p_value"] is None else float(r["p_value"]) for r in rows])
    held = decide(p, [r["look"] for r in rows], alpha)
    for r, h in zip(rows, held):
        d, tol = r["drift"], r["tolerance"]
        beyond = bool(h and d is not None and math.isfinite(tol) and abs(d) > tol)
        r["held"] = bool(h)
        r["beyond"] = beyond
        r["flag"] = ("drift" if r["all_passed"] else "failed") if beyond else ""
    return pl.DataFrame(rows, infer_schema_length=None)
