"""Win rates, seat advantage and per-player metrics from a results table, with intervals.

The input is the long results table of one run (one row per seat per game, see docs/architecture.md,
"Results"): ``variant, game, n_players, game_index, seed, seat, agent, score, rank, win_share,
turns, ended_by, score_<component>..., metric_<name>...``.  Score components and metrics are discovered by
their ``score_`` / ``metric_`` prefixes, so nothing here knows any particular game.

All aggregation is done by polars on a ``LazyFrame`` (streaming engine), so a run of millions of
rows is never materialised and memory does not grow with the number of games: only per-seat,
per-agent and whole-table aggregates are collected, and the per-game sums that the clustered
intervals need are formed over slices of at most :data:`GAME_SLICE` games and added exactly
(:func:`sum_over_games`).

Conventions:

* A *win rate* is a mean of ``win_share``: a game won outright counts 1 for the winner, a game
  whose win is shared by k tied players counts 1/k for each of them (fractional successes).
* Proportions get Wilson score intervals; means get Student-t intervals.
* Rates are fractions in [0, 1] (the report shows percent).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl
from scipy import special

from balancer.core.metrics import MetricSpecs
from balancer.core.registry import metric_specs_of
from balancer.stats import bootstrap
from balancer.stats.completion import completion
from balancer.stats.frames import (
    _DECIMAL,
    _ENGINE,
    DEFAULT_CONFIDENCE,
    METRIC_PREFIX,
    _as_lazy,
    _exact,
    mean_interval,
    prefixed_columns,
    sum_over_games,
    wilson_interval,
)
from balancer.stats.summary import (
    AgentWinRate,
    IndicatorWinRate,
    MetricMean,
    ScoreMean,
    SeatWinRate,
    Summary,
    score_without_key,
)

SCORE_PREFIX = "score_"
REQUIRED_COLUMNS: tuple[str, ...] = ("seat", "agent", "score", "win_share")
"""Columns :func:`summarize` cannot do without (the others are optional)."""


# --------------------------------------------------------------------------- intervals


def seat_uniformity_p(seat_wins: Sequence[float]) -> float | None:
    """Chi-square goodness-of-fit p-value of seat win counts against "every seat equally likely".

    Shared wins are split fractionally: a game won jointly by k players adds 1/k to each winner's
    seat, so the counts sum to the number of games.  The expected count per seat is
    ``sum(seat_wins) / n_seats`` (= games / n when every game has exactly one unit of win share),
    and the test has ``n_seats - 1`` degrees of freedom (the p-value of ``scipy.stats.chisquare``).

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
    expected = np.full(len(obs), total / len(obs))
    # Pearson's statistic and its chi-square tail, as scipy.stats.chisquare forms them (the
    # quantile and tail functions come from scipy.special: scipy.stats costs about 50 MB and a
    # second to import in every run)
    statistic = float((((np.asarray(obs) - expected) ** 2) / expected).sum())
    p = float(special.chdtrc(len(obs) - 1, statistic))
    return None if math.isnan(p) else min(1.0, p)


# --------------------------------------------------------------------------- columns


def _require(columns: Sequence[str], needed: Iterable[str]) -> None:
    missing = [c for c in needed if c not in columns]
    if missing:
        raise ValueError(f"results table lacks required column(s): {', '.join(missing)}")


# --------------------------------------------------------------------------- exact sums
#
# Every sum below is exact, so the summary does not depend on the order in which rows are summed
# (the streaming engine sums in whatever order its morsels arrive, which depends on the Parquet row
# groups, hence on --jobs and --chunk-size).  Win shares are counted by k (a 1/k share of a k-way
# tie) and summed as fractions; integer columns are summed as integers; float columns are rounded
# to 1e-9 and summed as decimals.  Means and variances are then formed with Python fractions, so
# ``summary.json`` is bit-identical for any --jobs, chunk size or row order.


def _share_k() -> pl.Expr:
    """k for a row whose win share is 1/k (a k-way shared win); 0 for a row that did not win."""
    share = pl.col("win_share").cast(pl.Float64)
    return pl.when(share > 0).then((1.0 / share).round(0).cast(pl.Int64)).otherwise(0).alias("_k")


def _moment_exprs(name: str, expr_pair: tuple[pl.Expr, pl.Expr]) -> list[pl.Expr]:
    x, xx = expr_pair
    return [x.count().alias(f"{name}__n"), x.sum().alias(f"{name}__s1"), xx.sum().alias(f"{name}__s2")]


def _moments(rec: dict, name: str) -> tuple[int, float | None, float | None]:
    """(n, mean, sd with ddof=1) from exact sums; mean None when n == 0, sd None when n < 2."""
    n = int(rec[f"{name}__n"] or 0)
    if n == 0:
        return 0, None, None
    s1 = Fraction(rec[f"{name}__s1"] or 0)
    s2 = Fraction(rec[f"{name}__s2"] or 0)
    mean = s1 / n
    if n < 2:
        return n, float(mean), None
    var = max(Fraction(0), (s2 - s1 * s1 / n) / (n - 1))
    return n, float(mean), math.sqrt(var)


# --------------------------------------------------------------------------- queries


def _win_rate_query(lf: pl.LazyFrame, by: str) -> pl.LazyFrame:
    """Rows per (``by`` value, k): the win counts by tie size, summed exactly by the caller."""
    return lf.group_by(by, _share_k()).agg(pl.len().alias("n")).sort(by, "_k")


def _win_counts(df: pl.DataFrame, by: str) -> dict[Any, tuple[int, Fraction, Fraction]]:
    """``{key: (rows, wins, tied_share)}``: wins = sum of 1/k over winning rows (exact);
    tied_share the part of it from shared wins (k >= 2)."""
    out: dict[Any, tuple[int, Fraction, Fraction]] = {}
    for rec in df.iter_rows(named=True):
        n, wins, tied = out.get(rec[by], (0, Fraction(0), Fraction(0)))
        k, count = int(rec["_k"]), int(rec["n"])
        n += count
        if k > 0:
            wins += Fraction(count, k)
            if k > 1:
                tied += Fraction(count, k)
        out[rec[by]] = (n, wins, tied)
    return out


def _win_rate_rows(
    counts: dict[Any, tuple[int, Fraction, Fraction]], by: str, confidence: float
) -> list[dict[str, Any]]:
    """``[{by, rate, ci_low, ci_high, games, wins}]`` sorted by ``by``."""
    rows = []
    for key in sorted(counts):
        n, wins, _ = counts[key]
        wins = min(max(wins, Fraction(0)), Fraction(n))
        low, high = wilson_interval(float(wins), n, confidence)
        rows.append({by: key, "rate": float(wins / n), "ci_low": low, "ci_high": high, "games": n, "wins": float(wins)})
    return rows


def agent_win_rate_row(
    agent: Any, wins: float, seats: int, games: int, every_seat: bool, confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, Any]:
    """An agent's win rate per seat it holds, with an interval that counts *games* as the units.

    The agent's seats of one game are not independent (two greedy seats of one table: at most one of
    them wins), so the interval is not a binomial over seat appearances. In game g the agent's seats
    win a share S_g in [0, 1] of the game (S_g = 1/k per seat among k tied winners); over G games its
    total is ``wins`` and it holds m = ``seats`` / G seats per game (a constant for a rotated table).
    The rate per seat is r = wins / seats = p / m, with p = wins / G its mean share of a game: a
    proportion over G games, whose Wilson interval (l, u) gives r's interval (l / m, u / m). S_g is a
    [0, 1] value of mean p, so its variance is at most p(1 - p) and the interval is never too narrow
    (it is exact for S_g in {0, 1}, games without ties). When the agent holds every seat (a mirror
    table) p = 1 in every game by construction: the rate is 1/n, its interval that point
    (``by_construction``).

    ``design_effect``: the variance of r with games as units, p(1-p)/(G m^2), over the binomial
    variance over seat appearances, r(1-r)/seats (1 for an agent with one seat per game; 0 by
    construction in a mirror table).

    Returns ``{agent, rate, ci_low, ci_high, games, seats, wins, design_effect, by_construction}``.
    Raises ValueError if ``games`` < 1 or ``seats`` < ``games``.
    """
    if games < 1 or seats < games:
        raise ValueError(f"an agent needs at least one game and one seat per game, got {games} games, {seats} seats")
    m = seats / games
    rate = wins / seats
    share = min(max(wins / games, 0.0), 1.0)
    if every_seat:
        low = high = rate
        deff = 0.0
    else:
        low, high = wilson_interval(min(max(wins, 0.0), games), games, confidence)
        low, high = low / m, high / m
        binomial = rate * (1.0 - rate) / seats
        deff = share * (1.0 - share) / (games * m * m) / binomial if binomial > 0 else 1.0
    return {
        "agent": agent,
        "rate": rate,
        "ci_low": low,
        "ci_high": high,
        "games": games,
        "seats": seats,
        "wins": wins,
        "design_effect": deff,
        "by_construction": every_seat,
    }


def _agent_rows(
    counts: dict[Any, tuple[int, Fraction, Fraction]], games: int, n_players: int, confidence: float
) -> list[dict[str, Any]]:
    """``agent_win_rate`` rows (sorted by agent) from the exact win counts per agent over ``games`` games."""
    rows = []
    for agent in sorted(counts):
        seats, wins, _ = counts[agent]
        wins = min(max(wins, Fraction(0)), Fraction(seats))
        rows.append(agent_win_rate_row(agent, float(wins), seats, games, seats == games * n_players, confidence))
    return rows


def _run_query(lf: pl.LazyFrame, metrics: dict[str, pl.DataType]) -> pl.LazyFrame:
    """One row for the whole run, in constant memory: ``_games`` (rows of seat 1) and exact
    sums for the mean and sd of every metric over non-null player rows."""
    exprs = [(pl.col("seat") == 1).sum().alias("_games")]
    for m, dtype in metrics.items():
        exprs += _moment_exprs(m, _exact(m, dtype))
    return lf.select(exprs)


def _metric_game_sums(lf: pl.LazyFrame, metrics: dict[str, pl.DataType]) -> dict[str, Any]:
    """Per metric, exact sums over games of s_g (the game's sum over its finite player rows), k_g
    (their count), s_g^2, s_g k_g and k_g^2: what the clustered interval of
    :func:`_clustered_mean_row` needs (one record; memory bounded by :func:`sum_over_games`)."""
    aggs = []
    for m, dtype in metrics.items():
        x, _ = _exact(m, dtype)
        aggs += [x.sum().alias(f"{m}__gs"), x.count().cast(pl.Int64).alias(f"{m}__gk")]
    exprs = []
    for m in metrics:
        s_, k = pl.col(f"{m}__gs"), pl.col(f"{m}__gk")
        sf = s_.cast(pl.Float64)
        exprs += [
            s_.sum().alias(f"{m}__S"),
            k.sum().alias(f"{m}__K"),
            (k > 0).sum().alias(f"{m}__G"),
            (sf * sf).cast(_DECIMAL).sum().alias(f"{m}__SS"),
            (sf * k).cast(_DECIMAL).sum().alias(f"{m}__SK"),
            (k * k).sum().alias(f"{m}__KK"),
        ]
    return sum_over_games(lf, aggs, exprs)


def _metric_per_game(lf: pl.LazyFrame, metrics: dict[str, pl.DataType]) -> dict[str, np.ndarray]:
    """Per metric, the per-game sums s_g (``<m>__gs``, float) and counts k_g (``<m>__gk``) of its finite
    player rows, in the order of ``game_index`` (so a bootstrap's resamples do not depend on row order);
    one row per game, so it is called only up to :data:`balancer.stats.bootstrap.MAX_GAMES` games."""
    aggs = []
    for m, dtype in metrics.items():
        x, _ = _exact(m, dtype)
        aggs += [x.sum().cast(pl.Float64).alias(f"{m}__gs"), x.count().cast(pl.Int64).alias(f"{m}__gk")]
    df = lf.group_by("game_index").agg(aggs).sort("game_index").collect(engine=_ENGINE)
    return {c: df[c].to_numpy() for c in df.columns if c != "game_index"}


def _clustered_mean_row(rec: dict, name: str, confidence: float) -> dict[str, Any]:
    """Mean per player of a metric with a t interval that treats *games* as the independent units.

    The players of one game are not independent (one player's waste is another's gain; a per-game
    metric is the same number on every seat), so the interval comes from the ratio estimator
    r = sum s_g / sum k_g and its cluster-robust variance G/(G-1) sum (s_g - r k_g)^2 / K^2, with
    G - 1 degrees of freedom (Cochran, *Sampling Techniques*, 1977, §6.4). With the same number of
    players in every game this is the t interval over the per-game means.
    """
    G = int(rec[f"{name}__G"] or 0)
    K = int(rec[f"{name}__K"] or 0)
    if K == 0:
        return {"n": 0, "games": G, "mean": None, "ci_low": math.nan, "ci_high": math.nan}
    S = Fraction(rec[f"{name}__S"] or 0)
    r = S / K
    if G < 2:
        return {"n": K, "games": G, "mean": float(r), "ci_low": math.nan, "ci_high": math.nan}
    SS = Fraction(rec[f"{name}__SS"] or 0)
    SK = Fraction(rec[f"{name}__SK"] or 0)
    KK = Fraction(int(rec[f"{name}__KK"] or 0))
    resid = max(Fraction(0), SS - 2 * r * SK + r * r * KK)
    se = math.sqrt(float(resid * G / (G - 1))) / K
    t = float(special.stdtrit(G - 1, 0.5 + confidence / 2.0))
    return {"n": K, "games": G, "mean": float(r), "ci_low": float(r) - t * se, "ci_high": float(r) + t * se}


def _score_query(
    lf: pl.LazyFrame,
    by: str,
    components: dict[str, pl.DataType],
    score_dtype: pl.DataType,
    bonus: tuple[str, pl.DataType] | None = None,
) -> pl.LazyFrame:
    """Per ``by`` value: rows, exact sums of the total score and of every component; with
    ``bonus`` (the seat-bonus column and its dtype), also of ``score`` minus that column."""
    exprs = [pl.len().alias("_n"), *_moment_exprs("_score", _exact("score", score_dtype))]
    for c, dtype in components.items():
        exprs += _moment_exprs(c, _exact(c, dtype))
    if bonus is not None:
        column, without_bonus = bonus
        both_int = score_dtype.is_integer() and without_bonus.is_integer()
        diff = lf.select((pl.col("score") - pl.col(column)).alias("_d")).collect_schema()["_d"]
        pair = _exact("_nobonus", pl.Int64() if both_int else diff)
        exprs += _moment_exprs("_nobonus", pair)
        lf = lf.with_columns((pl.col("score") - pl.col(column)).alias("_nobonus"))
    return lf.group_by(by).agg(exprs).sort(by)


def _mean_row(rec: dict, name: str, confidence: float) -> dict[str, Any]:
    n, mean, sd = _moments(rec, name)
    low, high = mean_interval(math.nan if mean is None else mean, sd, n, confidence)
    return {"n": n, "mean": mean, "ci_low": low, "ci_high": high}


def _score_rows(df: pl.DataFrame, by: str, components: Sequence[str], confidence: float) -> list[ScoreMean]:
    """The mean score (points per player) of each ``by`` value, with the mean of every component."""
    rows = []
    for rec in df.iter_rows(named=True):
        total = _mean_row(rec, "_score", confidence)
        rows.append(
            ScoreMean(
                by=by,
                key=rec[by],
                n=int(rec["_n"]),
                mean=total["mean"],
                ci_low=total["ci_low"],
                ci_high=total["ci_high"],
                components={c[len(SCORE_PREFIX) :]: _moments(rec, c)[1] for c in components},
            )
        )
    return rows


def _agent_score_sums(
    lf: pl.LazyFrame,
    agents: Sequence[Any],
    score_dtype: pl.DataType,
    metrics: dict[str, pl.DataType] | None = None,
) -> dict[str, Any]:
    """Per agent (the i-th named ``_agent<i>``), the exact per-game sums of its seats' scores that
    :func:`_clustered_mean_row` needs: the score column split into one column per agent (null on the
    other agents' seats) and summed by game with :func:`_metric_game_sums`; with ``metrics``, those
    metrics' per-game sums too, in the same passes over the table (one pass per slice of games, not
    two: a million-game summary made 100 passes)."""
    split = lf.with_columns(
        pl.when(pl.col("agent") == a).then(pl.col("score")).alias(f"_agent{i}") for i, a in enumerate(agents)
    )
    return _metric_game_sums(split, {**(metrics or {}), **{f"_agent{i}": score_dtype for i in range(len(agents))}})


def _clustered_score_rows(
    df: pl.DataFrame, rec: dict[str, Any], components: Sequence[str], confidence: float
) -> list[ScoreMean]:
    """The mean score of each agent (points per seat it holds) with the clustered t interval of
    :func:`_clustered_mean_row`: games, not seats, are the independent units (an agent in two seats
    of a game, or every seat of a mirror table, contributes one cluster per game)."""
    rows = []
    for i, r in enumerate(df.iter_rows(named=True)):
        total = _clustered_mean_row(rec, f"_agent{i}", confidence)
        rows.append(
            ScoreMean(
                by="agent",
                key=r["agent"],
                n=int(r["_n"]),
                mean=total["mean"],
                ci_low=total["ci_low"],
                ci_high=total["ci_high"],
                components={c[len(SCORE_PREFIX) :]: _moments(r, c)[1] for c in components},
            )
        )
    return rows


def _first_value(lf: pl.LazyFrame, column: str, columns: Sequence[str]) -> Any:
    if column not in columns:
        return None
    df = lf.select(pl.col(column).first()).collect(engine=_ENGINE)
    return df.item() if df.height else None


# --------------------------------------------------------------------------- public API


def without_bonus_rows(summary: Mapping[str, Any], specs: MetricSpecs | None) -> list[dict[str, Any]]:
    """The rows of ``summary``'s seat scores without the game's seat bonus (``[]`` when the game
    declares none, or the run has no such column)."""
    category = specs.position_bonus if specs is not None else None
    return list(summary.get(score_without_key(category)) or []) if category else []


def summarize(
    results: pl.LazyFrame | pl.DataFrame,
    meta: dict,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict:
    """:func:`summary_of` ``results`` as the ``summary.json`` dict (:meth:`Summary.as_json`)."""
    return summary_of(results, meta, confidence).as_json()


def summary_of(
    results: pl.LazyFrame | pl.DataFrame,
    meta: dict,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Summary:
    """Summarise one run's results table (the typed :class:`Summary`; its ``as_json()`` is the
    ``summary.json`` dict, docs/architecture.md shape).

    Args:
        results: the long results table (one row per seat per game), lazy or eager.  Needs
            ``seat, agent, score, win_share``; ``score_*`` and ``metric_*`` columns are
            discovered by prefix.
        meta: the run's ``run.json`` dict; ``game``, ``variant``, ``n_players`` and ``seed`` are
            taken from it (falling back to the table's first row); its ``metric_specs`` (else the
            registered game's, :func:`balancer.core.registry.metric_specs_of`) say which score
            category is a seat bonus and which metrics are 0/1 indicators.
        confidence: level of every interval (default 0.95).

    Returns:
        the :class:`Summary`, whose JSON form (NaN replaced by ``None``) has the keys

        * ``game``, ``variant``, ``n_players``, ``games`` (rows of seat 1), ``seed``,
          ``rows``, ``confidence``;
        * ``seat_win_rate``: ``[{seat, rate, ci_low, ci_high, games, wins}]`` sorted by seat —
          rate = mean ``win_share`` of the seat over games, Wilson interval;
        * ``agent_win_rate``: ``[{agent, rate, ci_low, ci_high, games, seats, wins, design_effect,
          by_construction}]`` sorted by agent — rate = summed ``win_share`` / the agent's seat
          appearances (``seats``), its interval with *games* as the independent units (``games``
          counts games; see :func:`agent_win_rate_row`);
        * ``metrics``: ``{"<name>_per_player": {mean, ci_low, ci_high, n, games}}`` for each
          ``metric_<name>`` — the mean per player (n finite player rows) with an interval in
          which games, not players, are the independent units: from 20 to 1,000 games the
          studentized bootstrap over games (:mod:`balancer.stats.bootstrap`: holds for skewed
          metrics), otherwise the t interval (see :func:`_clustered_mean_row`; without a
          ``game_index`` column, rows are treated as independent and ``games`` is absent);
        * ``seat_uniformity_p``: chi-square p-value of the seat win shares against uniform 1/n,
          shared wins split fractionally (see :func:`seat_uniformity_p`); ``None`` if undefined;
        * ``tied_games_share`` (games whose win is shared by 2+ players / games),
          ``tied_games``, ``tied_games_ci_low``, ``tied_games_ci_high`` (Wilson);
        * ``completion`` (only with an ``ended_by`` column): the games that ended by the rules and
          those a safety stop ended, by cause, with Wilson intervals, game indices and the labels
          held in them (:func:`balancer.stats.completion.completion`);
        * ``score_components``: component names (``score_`` prefix removed), in table order;
        * ``score_by_agent`` / ``score_by_seat``: ``[{agent|seat, n, mean, ci_low, ci_high,
          components: {name: mean}}]`` in points per player; the t interval is on the total
          score. By agent it treats *games* as the independent units (the clustered interval of
          :func:`_clustered_mean_row` over the agent's per-game score sums: seats of one game share
          its deal, so their scores are correlated); without a ``game_index`` column, and by seat
          (one appearance per game), each appearance is independent;
        * ``indicators``: for every ``metric_*`` column that is a 0/1 per-seat indicator, the win
          rate of players with it at 1 against those at 0, with intervals that treat games as
          clusters (an association, not a cause; see :mod:`balancer.stats.association`); ``[]``
          when there is none;
        * ``score_without_<category>_by_seat`` (only when the game declares a seat-bonus score
          category and its ``score_<category>`` column exists; :func:`score_without_key`):
          ``[{seat, n, mean, ci_low, ci_high}]``, the mean of ``score - score_<category>``.

        Every sum is exact (see "exact sums" above), so the result is bit-identical whatever the
        row order or Parquet row groups of the input (any ``--jobs`` or chunk size).

    Raises:
        ValueError: if required columns are missing or the table is empty.

    Memory does not grow with the number of games of a lazy source: the per-game sums of the metrics
    are formed over slices of games (:func:`sum_over_games`); every other query aggregates by seat,
    by agent or over the whole table, streamed from the source.
    """
    lf = _as_lazy(results)
    schema = lf.collect_schema()
    columns = schema.names()
    _require(columns, REQUIRED_COLUMNS)
    components = {c: schema[c] for c in prefixed_columns(columns, SCORE_PREFIX)}
    metrics = {m: schema[m] for m in prefixed_columns(columns, METRIC_PREFIX)}
    specs = metric_specs_of(meta)
    category = specs.position_bonus if specs is not None else None
    bonus_column = SCORE_PREFIX + category if category else None
    bonus = (bonus_column, schema[bonus_column]) if bonus_column and bonus_column in columns else None

    clustered = bool(metrics) and "game_index" in columns
    seat_df, agent_df, game_df, score_agent_df, score_seat_df = pl.collect_all(
        [
            _win_rate_query(lf, "seat"),
            _win_rate_query(lf, "agent"),
            _run_query(lf, metrics),
            _score_query(lf, "agent", components, schema["score"]),
            _score_query(lf, "seat", components, schema["score"], bonus),
        ],
        engine=_ENGINE,
    )
    games = int(game_df["_games"][0] or 0) if game_df.height else 0
    if games == 0:
        raise ValueError("results table is empty: no games to summarise")
    seat_counts = _win_counts(seat_df, "seat")
    rows = sum(n for n, _, _ in seat_counts.values())
    tied = int(round(sum((t for _, _, t in seat_counts.values()), Fraction(0))))
    tied = min(tied, games)
    tied_low, tied_high = wilson_interval(tied, games, confidence)

    game_rec = game_df.row(0, named=True)
    metric_summary: dict[str, MetricMean] = {}
    by_game = "game_index" in columns
    agents = score_agent_df["agent"].to_list()
    # the per-game sums of the metrics (their clustered intervals) and of each agent's score, in one go
    game_sums = _agent_score_sums(lf, agents, schema["score"], metrics if clustered else None) if by_game else None
    metric_rec = game_sums if clustered else None
    # up to bootstrap.MAX_GAMES games, a metric's interval is the bootstrap-t over its per-game sums
    per_game = _metric_per_game(lf, metrics) if clustered and games <= bootstrap.MAX_GAMES else None
    for m in metrics:
        name = f"{m[len(METRIC_PREFIX) :]}_per_player"
        if metric_rec is not None:
            row = _clustered_mean_row(metric_rec, m, confidence)
            if per_game is not None and row["games"] >= bootstrap.MIN_GAMES:
                low, high = bootstrap.studentized_ratio_interval(
                    per_game[f"{m}__gs"], per_game[f"{m}__gk"], confidence, seed=m
                )
                if math.isfinite(low) and math.isfinite(high):  # else the t interval (the bootstrap-t has none)
                    row = {**row, "ci_low": low, "ci_high": high}
            metric_summary[name] = MetricMean(row["mean"], row["ci_low"], row["ci_high"], row["n"], row["games"])
        else:
            row = _mean_row(game_rec, m, confidence)
            metric_summary[name] = MetricMean(row["mean"], row["ci_low"], row["ci_high"], row["n"])

    seat_rows = [SeatWinRate(**r) for r in _win_rate_rows(seat_counts, "seat", confidence)]
    n_players = meta.get("n_players") or _first_value(lf, "n_players", columns) or len(seat_rows)
    agent_rows = _agent_rows(_win_counts(agent_df, "agent"), games, int(n_players), confidence)
    # association loads scipy.stats: imported when a summary is made, not when the command line starts
    from balancer.stats.association import indicator_family, indicator_win_rates

    indicator_rows = indicator_win_rates(lf, confidence, specs)

    without_bonus = None
    if bonus is not None and category:
        without_bonus = [
            ScoreMean(by="seat", key=rec["seat"], **_mean_row(rec, "_nobonus", confidence))
            for rec in score_seat_df.iter_rows(named=True)
        ]
    return Summary(
        game=meta.get("game") or _first_value(lf, "game", columns),
        variant=meta.get("variant") or _first_value(lf, "variant", columns),
        n_players=int(n_players),
        games=games,
        seed=meta["seed"] if "seed" in meta else _first_value(lf, "seed", columns),
        rows=rows,
        confidence=confidence,
        seat_win_rate=seat_rows,
        agent_win_rate=[AgentWinRate(**r) for r in agent_rows],
        metrics=metric_summary,
        seat_uniformity_p=seat_uniformity_p([r.wins for r in seat_rows]),
        tied_games_share=tied / games,
        tied_games=tied,
        tied_games_ci_low=tied_low,
        tied_games_ci_high=tied_high,
        score_components=[c[len(SCORE_PREFIX) :] for c in components],
        score_by_agent=(
            _clustered_score_rows(score_agent_df, game_sums, list(components), confidence)
            if game_sums is not None
            else _score_rows(score_agent_df, "agent", list(components), confidence)
        ),
        score_by_seat=_score_rows(score_seat_df, "seat", list(components), confidence),
        indicators=[IndicatorWinRate(**r) for r in indicator_rows],
        seat_bonus=category if without_bonus is not None else None,
        score_without_bonus_by_seat=without_bonus,
        indicator_multiplicity=indicator_family(indicator_rows, confidence) if indicator_rows else None,
        completion=completion(lf, games, confidence),
    )
