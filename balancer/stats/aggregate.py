"""Win rates, seat advantage and per-player metrics from a results table, with intervals.

The input is the long results table of one run (one row per seat per game, see DESIGN.md,
"Results"): ``variant, game, n_players, game_index, seed, seat, agent, score, rank, win_share,
turns, score_<component>..., metric_<name>...``.  Score components and metrics are discovered by
their ``score_`` / ``metric_`` prefixes, so nothing here knows any particular game.

All aggregation is done by polars on a ``LazyFrame`` (streaming engine), so a run of millions of
rows is never materialised and memory does not grow with the number of games: only per-seat,
per-agent and whole-table aggregates are collected.

Conventions:

* A *win rate* is a mean of ``win_share``: a game won outright counts 1 for the winner, a game
  whose win is shared by k tied players counts 1/k for each of them (fractional successes).
* Proportions get Wilson score intervals; means get Student-t intervals.
* Rates are fractions in [0, 1] (the report shows percent).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import polars as pl
from scipy import stats

SCORE_PREFIX = "score_"
METRIC_PREFIX = "metric_"
DEFAULT_CONFIDENCE = 0.95
SUMMARY_FILE = "summary.json"
RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"

_ENGINE = "streaming"


# --------------------------------------------------------------------------- intervals


def _z(confidence: float) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (0.95 -> 1.959964)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def wilson_interval(
    successes: float, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Wilson (1927) score interval for a binomial proportion.

    Args:
        successes: number of successes, may be fractional (a shared win counts 1/k per winner);
            must satisfy ``0 <= successes <= n``.
        n: number of trials (games, or agent-seat appearances), ``n >= 1``.
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


def mean_interval(
    mean: float, sd: float | None, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
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
    t = float(stats.t.ppf(0.5 + confidence / 2.0, df=n - 1))
    half = t * sd / math.sqrt(n)
    return mean - half, mean + half


def seat_uniformity_p(seat_wins: Sequence[float]) -> float | None:
    """Chi-square goodness-of-fit p-value of seat win counts against "every seat equally likely".

    Shared wins are split fractionally: a game won jointly by k players adds 1/k to each winner's
    seat, so the counts sum to the number of games.  The expected count per seat is
    ``sum(seat_wins) / n_seats`` (= games / n when every game has exactly one unit of win share),
    and the test has ``n_seats - 1`` degrees of freedom (``scipy.stats.chisquare``).

    Args:
        seat_wins: summed ``win_share`` per seat, in seat order.

    Returns:
        the p-value in [0, 1] (1.0 for perfectly uniform counts), or ``None`` when the test is
        undefined (fewer than two seats or no wins at all).
    """
    obs = [float(w) for w in seat_wins]
    total = sum(obs)
    if len(obs) < 2 or total <= 0:
        return None
    expected = [total / len(obs)] * len(obs)
    p = float(stats.chisquare(obs, f_exp=expected).pvalue)
    return None if math.isnan(p) else min(1.0, p)


# --------------------------------------------------------------------------- columns


def _as_lazy(results: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    return results.lazy() if isinstance(results, pl.DataFrame) else results


def prefixed_columns(columns: Iterable[str], prefix: str) -> list[str]:
    """Columns starting with ``prefix`` (e.g. ``"score_"``), in table order; ``"score"`` itself is
    not a component because the prefix includes the underscore."""
    return [c for c in columns if c.startswith(prefix) and len(c) > len(prefix)]


def _require(columns: Sequence[str], needed: Iterable[str]) -> None:
    missing = [c for c in needed if c not in columns]
    if missing:
        raise ValueError(f"results table lacks required column(s): {', '.join(missing)}")


# --------------------------------------------------------------------------- queries


def _win_rate_query(lf: pl.LazyFrame, by: str) -> pl.LazyFrame:
    """Per ``by`` value: ``wins`` (summed win_share) and ``n`` (rows)."""
    return (
        lf.group_by(by)
        .agg(pl.col("win_share").cast(pl.Float64).sum().alias("wins"), pl.len().alias("n"))
        .sort(by)
    )


def _win_rate_rows(df: pl.DataFrame, by: str, confidence: float) -> list[dict[str, Any]]:
    """Turn a ``_win_rate_query`` result into ``[{by, rate, ci_low, ci_high, games, wins}]``."""
    rows = []
    for rec in df.iter_rows(named=True):
        n = int(rec["n"])
        wins = min(max(float(rec["wins"]), 0.0), float(n))  # guard float round-off of 1/k sums
        low, high = wilson_interval(wins, n, confidence)
        rows.append(
            {by: rec[by], "rate": wins / n, "ci_low": low, "ci_high": high, "games": n, "wins": wins}
        )
    return rows


def _run_query(lf: pl.LazyFrame, metrics: list[str]) -> pl.LazyFrame:
    """One row for the whole run, in constant memory (no per-game grouping).

    * ``_games``: rows of seat 1 (every game has exactly one);
    * ``_tied``: summed win share of rows with ``0 < win_share < 1`` — the k winners of a tied
      game hold 1/k each, so each tied game adds exactly 1 (rounded by the caller);
    * per metric: mean, sd (ddof=1) and count of non-null values over rows (players).
    """
    share = pl.col("win_share").cast(pl.Float64)
    return lf.select(
        (pl.col("seat") == 1).sum().alias("_games"),
        share.filter((share > 0) & (share < 1)).sum().alias("_tied"),
        *[pl.col(m).cast(pl.Float64).mean().alias(f"{m}__mean") for m in metrics],
        *[pl.col(m).cast(pl.Float64).std().alias(f"{m}__sd") for m in metrics],
        *[pl.col(m).count().alias(f"{m}__n") for m in metrics],
    )


def _score_query(lf: pl.LazyFrame, by: str, components: list[str]) -> pl.LazyFrame:
    """Per ``by`` value: rows, mean/sd of the total score and mean of every component."""
    return (
        lf.group_by(by)
        .agg(
            pl.len().alias("_n"),
            pl.col("score").cast(pl.Float64).mean().alias("_mean"),
            pl.col("score").cast(pl.Float64).std().alias("_sd"),
            *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in components],
        )
        .sort(by)
    )


def _score_rows(
    df: pl.DataFrame, by: str, components: list[str], confidence: float
) -> list[dict[str, Any]]:
    """``[{by, n, mean, ci_low, ci_high, components: {name: mean}}]`` (points per player)."""
    rows = []
    for rec in df.iter_rows(named=True):
        n = int(rec["_n"])
        low, high = mean_interval(rec["_mean"], rec["_sd"], n, confidence)
        rows.append(
            {
                by: rec[by],
                "n": n,
                "mean": rec["_mean"],
                "ci_low": low,
                "ci_high": high,
                "components": {c[len(SCORE_PREFIX) :]: rec[c] for c in components},
            }
        )
    return rows


def _first_value(lf: pl.LazyFrame, column: str, columns: Sequence[str]) -> Any:
    if column not in columns:
        return None
    df = lf.select(pl.col(column).first()).collect(engine=_ENGINE)
    return df.item() if df.height else None


def _json_clean(value: Any) -> Any:
    """Recursively replace NaN/inf by ``None`` so the dict is strict JSON."""
    if isinstance(value, float):
        return None if not math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _json_clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_clean(v) for v in value]
    return value


# --------------------------------------------------------------------------- public API


def summarize(
    results: pl.LazyFrame | pl.DataFrame,
    meta: dict,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict:
    """Summarise one run's results table into the ``summary.json`` dict (DESIGN.md shape).

    Args:
        results: the long results table (one row per seat per game), lazy or eager.  Needs
            ``game_index, seat, agent, score, win_share``; ``score_*`` and ``metric_*`` columns are
            discovered by prefix.
        meta: the run's ``run.json`` dict; ``game``, ``variant``, ``n_players`` and ``seed`` are
            taken from it (falling back to the table's first row).
        confidence: level of every interval (default 0.95).

    Returns:
        a JSON-ready dict (NaN replaced by ``None``) with keys

        * ``game``, ``variant``, ``n_players``, ``games`` (rows of seat 1), ``seed``,
          ``rows``, ``confidence``;
        * ``seat_win_rate``: ``[{seat, rate, ci_low, ci_high, games, wins}]`` sorted by seat —
          rate = mean ``win_share`` of the seat over games, Wilson interval;
        * ``agent_win_rate``: ``[{agent, rate, ci_low, ci_high, games, wins}]`` sorted by agent —
          rate = summed ``win_share`` / agent-seat appearances (``games`` counts appearances);
        * ``metrics``: ``{"<name>_per_player": {mean, ci_low, ci_high, n}}`` for each
          ``metric_<name>`` — the mean per player (n non-null player rows), with a t interval
          over rows; players of one game are treated as independent (constant memory, no
          per-game grouping; with thousands of games the interval is narrow either way);
        * ``seat_uniformity_p``: chi-square p-value of the seat win shares against uniform 1/n,
          shared wins split fractionally (see :func:`seat_uniformity_p`); ``None`` if undefined;
        * ``tied_games_share`` (games whose win is shared by 2+ players / games),
          ``tied_games``, ``tied_games_ci_low``, ``tied_games_ci_high`` (Wilson);
        * ``score_components``: component names (``score_`` prefix removed), in table order;
        * ``score_by_agent`` / ``score_by_seat``: ``[{agent|seat, n, mean, ci_low, ci_high,
          components: {name: mean}}]`` in points per player; the t interval is on the total
          score, treating each appearance as independent.

    Raises:
        ValueError: if required columns are missing or the table is empty.

    Memory does not grow with the number of games: every query aggregates by seat, by agent or
    over the whole table, streamed from the (lazy) source.
    """
    lf = _as_lazy(results)
    columns = lf.collect_schema().names()
    _require(columns, ("seat", "agent", "score", "win_share"))
    components = prefixed_columns(columns, SCORE_PREFIX)
    metrics = prefixed_columns(columns, METRIC_PREFIX)

    seat_df, agent_df, game_df, score_agent_df, score_seat_df = pl.collect_all(
        [
            _win_rate_query(lf, "seat"),
            _win_rate_query(lf, "agent"),
            _run_query(lf, metrics),
            _score_query(lf, "agent", components),
            _score_query(lf, "seat", components),
        ],
        engine=_ENGINE,
    )
    games = int(game_df["_games"][0]) if game_df.height else 0
    if games == 0:
        raise ValueError("results table is empty: no games to summarise")
    rows = int(seat_df["n"].sum())
    tied = int(round(game_df["_tied"][0] or 0.0))
    tied_low, tied_high = wilson_interval(tied, games, confidence)

    metric_summary: dict[str, dict[str, Any]] = {}
    for m in metrics:
        mean = game_df[f"{m}__mean"][0]
        n = int(game_df[f"{m}__n"][0])
        low, high = mean_interval(
            math.nan if mean is None else mean, game_df[f"{m}__sd"][0], n, confidence
        )
        name = f"{m[len(METRIC_PREFIX):]}_per_player"
        metric_summary[name] = {"mean": mean, "ci_low": low, "ci_high": high, "n": n}

    seat_rows = _win_rate_rows(seat_df, "seat", confidence)
    n_players = meta.get("n_players") or _first_value(lf, "n_players", columns) or len(seat_rows)

    summary = {
        "game": meta.get("game") or _first_value(lf, "game", columns),
        "variant": meta.get("variant") or _first_value(lf, "variant", columns),
        "n_players": int(n_players),
        "games": games,
        "seed": meta["seed"] if "seed" in meta else _first_value(lf, "seed", columns),
        "rows": rows,
        "confidence": confidence,
        "seat_win_rate": seat_rows,
        "agent_win_rate": _win_rate_rows(agent_df, "agent", confidence),
        "metrics": metric_summary,
        "seat_uniformity_p": seat_uniformity_p([r["wins"] for r in seat_rows]),
        "tied_games_share": tied / games,
        "tied_games": tied,
        "tied_games_ci_low": tied_low,
        "tied_games_ci_high": tied_high,
        "score_components": [c[len(SCORE_PREFIX) :] for c in components],
        "score_by_agent": _score_rows(score_agent_df, "agent", components, confidence),
        "score_by_seat": _score_rows(score_seat_df, "seat", components, confidence),
    }
    return _json_clean(summary)


def scan_results(results_dir: Path) -> pl.LazyFrame:
    """Lazily scan a results directory: ``results.parquet`` if present, else all ``*.parquet``.

    Raises:
        FileNotFoundError: if the directory holds no Parquet file.
    """
    results_dir = Path(results_dir)
    single = results_dir / RESULTS_FILE
    if single.is_file():
        return pl.scan_parquet(single)
    if any(results_dir.glob("*.parquet")):
        return pl.scan_parquet(results_dir / "*.parquet")
    raise FileNotFoundError(f"no results found: {single} does not exist (nor any *.parquet there)")


def read_run_meta(results_dir: Path) -> dict:
    """Read ``run.json`` of a results directory.

    Raises:
        FileNotFoundError: if ``run.json`` is missing.
        ValueError: if it is not a JSON object.
    """
    path = Path(results_dir) / RUN_FILE
    if not path.is_file():
        raise FileNotFoundError(f"run metadata not found: {path} does not exist")
    meta = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise ValueError(f"{path} must hold a JSON object, got {type(meta).__name__}")
    return meta


def write_summary(results_dir: Path, confidence: float = DEFAULT_CONFIDENCE) -> dict:
    """Compute ``summary.json`` for a results directory and write it beside the results.

    Reads ``results.parquet`` (or every ``*.parquet``) lazily and ``run.json``; writes
    ``summary.json`` atomically (temporary file, then rename), overwriting an older summary.

    Returns:
        the summary dict, as from :func:`summarize`.

    Raises:
        FileNotFoundError: if the results or ``run.json`` are missing.
        ValueError: if the table lacks required columns or is empty.
    """
    results_dir = Path(results_dir)
    meta = read_run_meta(results_dir)
    summary = summarize(scan_results(results_dir), meta, confidence)
    out = results_dir / SUMMARY_FILE
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    return summary
