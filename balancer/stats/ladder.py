"""Statistics of a skill ladder: agents of rising strength (rungs), each in mirror tables and in
match-ups against the others (see :mod:`balancer.ladder` and ``docs/statistics.md``, "Skill ladders").

Games are the independent units everywhere: a game contributes one winner (its win shared 1/k
among k tied winners) to a seat test, one win share of the lone agent to a match-up rate, one
finishing order to a rating (:mod:`balancer.stats.ratings`).

* :func:`seat_rung_test`: does the seat effect change with the rung? The winning seat of a mirror
  game is one draw of a multinomial whose probabilities may depend on the rung. A multinomial logit
  of the winning seat on the rung (a categorical factor) is saturated, so its fitted probabilities
  are the observed shares, and its likelihood-ratio test against the model without the rung (the
  same seat probabilities at every rung) is the G-test of homogeneity of the rungs x seats table of
  wins, on (rungs - 1)(seats - 1) degrees of freedom (Agresti, *Categorical Data Analysis*, 2013,
  §3.2 and §8.1). In the log-linear form this is the test of the seat x rung interaction in
  ``count ~ seat + rung + seat:rung`` (a rung cannot change how many games are won, only by whom).
  scipy's ``chi2_contingency(..., lambda_="log-likelihood")`` computes it; a test checks it against
  statsmodels' multinomial logit and its false-alarm rate on simulated tables without interaction.
* :func:`lone_agent_rates`: the win rate of the one agent of a table that is not like the others
  (the row agent of a match-up), pooled over seats and by the seat it sat in, Wilson intervals.
* :func:`skill_depth`: how far the top rung's win rate against the bottom rung exceeds the fair
  share, as a fraction of the most it could: ``(w - 1/n) / (1 - 1/n)`` (0: skill makes no difference,
  1: the top rung always wins).
* :func:`game_outcomes`: each game's finishing order of rungs, the input of the ratings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from scipy import stats

from balancer.stats.frames import DEFAULT_CONFIDENCE, _as_lazy, wilson_interval
from balancer.stats.ratings import Outcome, outcome_from_places

MIN_EXPECTED = 5.0
"""Below this smallest expected count the G statistic's chi-square tail is not trusted (Cochran's
rule) and :func:`seat_rung_test` takes a simulated p-value instead."""
SIMULATED_TABLES = 10_000
"""Tables drawn for a simulated p-value (its Monte Carlo standard error at p = 0.05: 0.002)."""


def _g_statistics(tables: np.ndarray) -> np.ndarray:
    """G = 2 sum O ln(O / E) of each (rungs, seats) table of ``tables`` (..., rungs, seats), E from
    the table's own margins; 0 ln 0 = 0."""
    rows = tables.sum(axis=-1, keepdims=True)
    cols = tables.sum(axis=-2, keepdims=True)
    expected = rows * cols / tables.sum(axis=(-2, -1), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(tables > 0, tables * np.log(tables / expected), 0.0)
    return 2.0 * terms.sum(axis=(-2, -1))


def simulated_g_p(table: np.ndarray, statistic: float, tables: int = SIMULATED_TABLES, seed: int = 0) -> float:
    """Monte Carlo p-value of the exact conditional (permutation) G-test of homogeneity: the games'
    winning seats (the table rounded to whole games) are shuffled among the games ``tables`` times,
    which keeps both margins (games per rung, wins per seat), and p = (1 + #{G_perm >= G}) /
    (1 + tables) (Davison & Hinkley 1997, §4.2; the Monte Carlo version of Fisher's exact test for
    an R x S table). Valid at any expected count; seeded, so the same table gives the same p.
    ``statistic`` is not used beyond the rounding: G is recomputed on the rounded table."""
    counts = np.rint(np.asarray(table, dtype=float)).astype(np.int64)
    rungs, seats = counts.shape
    rung_of = np.repeat(np.repeat(np.arange(rungs), seats), counts.ravel())
    seat_of = np.repeat(np.tile(np.arange(seats), rungs), counts.ravel())
    observed = float(_g_statistics(counts.astype(float)))
    rng = np.random.default_rng(seed)
    exceed, done = 0, 0
    chunk = max(1, min(tables, 4_000_000 // max(1, seat_of.size)))
    while done < tables:
        k = min(chunk, tables - done)
        perm = np.argsort(rng.random((k, seat_of.size)), axis=1)
        cells = rung_of[None, :] * seats + seat_of[perm]
        offset = (np.arange(k) * rungs * seats)[:, None]
        sims = np.bincount((cells + offset).ravel(), minlength=k * rungs * seats).reshape(k, rungs, seats)
        exceed += int(np.count_nonzero(_g_statistics(sims.astype(float)) >= observed - 1e-9))
        done += k
    return float((1 + exceed) / (1 + tables))


def seat_rung_test(wins: np.ndarray | Sequence[Sequence[float]]) -> dict[str, Any]:
    """Likelihood-ratio (G) test that the seat win shares are the same at every rung.

    Args:
        wins: (rungs, seats) array; entry ``[r, s]`` is the summed win share of seat ``s`` over the
            mirror games of rung ``r`` (each game adds 1 in total, so a row sums to its games).

    Returns:
        ``{statistic, df, p, rungs, seats, min_expected, method}``: G = 2 sum O ln(O / E) with E the
        counts expected when every rung has the pooled seat shares, its degrees of freedom
        (rungs - 1)(seats - 1), and the p-value: the chi-square tail (``method`` "chi-square") when
        every E is at least :data:`MIN_EXPECTED` (5), else the simulated p-value of
        :func:`simulated_g_p` (``method`` "simulated"). Seats that never won at any rung are left
        out (they carry no information and make E zero); ``p`` is None when fewer than two rungs or
        seats remain.

    The rungs' mirror cells share their deals (one study seed: game i of every rung is the same
    deal), so the rows are positively dependent rather than independent: a deal that favours a seat
    does so at every rung, the rows differ less than independent ones would, and the test is
    conservative (its false-alarm rate at most the nominal one; a test measures it).

    Raises:
        ValueError: for a negative entry or a rung without games.
    """
    table = np.asarray(wins, dtype=float)
    if table.ndim != 2:
        raise ValueError(f"wins must be a (rungs, seats) table, got shape {table.shape}")
    if (table < 0).any():
        raise ValueError("wins must not be negative")
    if (table.sum(axis=1) <= 0).any():
        raise ValueError("every rung needs games")
    table = table[:, table.sum(axis=0) > 0]
    rungs, seats = table.shape
    if rungs < 2 or seats < 2:
        return {
            "statistic": None,
            "df": 0,
            "p": None,
            "rungs": rungs,
            "seats": seats,
            "min_expected": None,
            "method": None,
        }
    g, p, df, expected = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    min_expected = float(expected.min())
    method = "chi-square"
    if min_expected < MIN_EXPECTED:
        p, method = simulated_g_p(table, float(g)), "simulated"
    return {
        "statistic": float(g),
        "df": int(df),
        "p": float(p),
        "rungs": rungs,
        "seats": seats,
        "min_expected": min_expected,
        "method": method,
    }


def seat_shift(rates: Sequence[Sequence[float]], fair: float) -> dict[str, Any]:
    """The seat whose distance from the fair share moves most from the bottom rung to the top.

    Args:
        rates: (rungs, seats) win rates (fractions), rungs in order of rising strength.
        fair: the fair share 1/n.

    Returns:
        ``{seat (1-based), bottom, top, change}``: that seat's rate minus ``fair`` at the bottom
        and at the top rung, and their difference (all fractions).
    """
    r = np.asarray(rates, dtype=float) - fair
    change = r[-1] - r[0]
    s = int(np.argmax(np.abs(change)))
    return {"seat": s + 1, "bottom": float(r[0, s]), "top": float(r[-1, s]), "change": float(change[s])}


def describe_shift(shift: Mapping[str, Any], bottom: str, top: str) -> str:
    """Words for :func:`seat_shift`: "seat 4's deficit grows from 4.0 to 9.1 points below the fair
    share from random to greedy" (points = percentage points)."""
    s, a, b = shift["seat"], 100 * shift["bottom"], 100 * shift["top"]

    def side(x: float) -> str:
        return "advantage" if x > 0 else "deficit"

    def a_side(x: float) -> str:
        return "an advantage" if x > 0 else "a deficit"

    if abs(a) < 0.05 and abs(b) < 0.05:
        return f"seat {s}'s win rate stays at the fair share from {bottom} to {top}"
    if (a > 0) == (b > 0) and abs(a) >= 0.05 and abs(b) >= 0.05:
        verb = "grows" if abs(b) > abs(a) else ("shrinks" if abs(b) < abs(a) else "stays")
        where = "above" if a > 0 else "below"
        return (
            f"seat {s}'s {side(a)} {verb} from {abs(a):.1f} to {abs(b):.1f} points {where} the fair share "
            f"from {bottom} to {top}"
        )
    if abs(a) < 0.05:
        return f"seat {s} goes from the fair share at {bottom} to {a_side(b)} of {abs(b):.1f} points at {top}"
    if abs(b) < 0.05:
        return f"seat {s}'s {side(a)} of {abs(a):.1f} points at {bottom} disappears at {top}"
    return (
        f"seat {s} turns from {a_side(a)} of {abs(a):.1f} points at {bottom} into {a_side(b)} of "
        f"{abs(b):.1f} points at {top}"
    )


def describe_test(test: Mapping[str, Any], alpha: float = 0.05) -> str:
    """Words for :func:`seat_rung_test`: whether the seat effect changes with strength, with G, df, p."""
    if test.get("p") is None:
        return "the seat effect cannot be tested here (fewer than two rungs or seats with wins)"
    p = test["p"]
    ptext = "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"
    stat = f"G = {test['statistic']:.1f} on {test['df']} degree{'s' if test['df'] != 1 else ''} of freedom, {ptext}"
    if test.get("method") == "simulated":
        stat += f" by simulation (an expected count of {test['min_expected']:.1f} is below {MIN_EXPECTED:g})"
    if test.get("family_size"):
        q = test["p_adjusted"]
        qtext = "p < 0.001" if q < 0.001 else f"p = {q:.3f}" if q < 0.1 else f"p = {q:.2f}"
        stat += f"; Holm-adjusted over the study's {test['family_size']} ladders: {qtext}"
        p = q
    if p < alpha:
        return f"the seat effect changes with the players' strength (seat x rung likelihood-ratio test: {stat})"
    return (
        f"the games show no change of the seat effect with strength (seat x rung likelihood-ratio test: "
        f"{stat}): the seat shares are consistent with being the same at every rung"
    )


def winner_table(results: pl.LazyFrame | pl.DataFrame, players: int) -> np.ndarray:
    """(seats,) summed win share of each seat in one results table (a mirror cell)."""
    df = _as_lazy(results).group_by("seat").agg(pl.col("win_share").sum()).collect()
    out = np.zeros(players)
    for seat, share in df.iter_rows():
        out[int(seat) - 1] = float(share)
    return out


def lone_agent_rates(
    results: pl.LazyFrame | pl.DataFrame, agent: str, players: int, confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, Any]:
    """Win rate of ``agent``, which sits once at every table of ``results`` (a match-up cell), over games.

    Returns ``{games, wins, rate, ci_low, ci_high, by_seat: [{seat, games, wins, rate, ci_low,
    ci_high}]}``: pooled over seats and by the seat the agent sat in (seat 1 moves first), Wilson
    intervals with games as the units (a shared win counts 1/k). Raises ValueError if ``agent``
    does not sit exactly once at some table.
    """
    lf = _as_lazy(results).filter(pl.col("agent") == agent)
    df = (
        lf.group_by("game_index")
        .agg(pl.len().alias("k"), pl.col("seat").first(), pl.col("win_share").sum().alias("w"))
        .collect()
    )
    if df.height == 0 or (df["k"] != 1).any():
        raise ValueError(f"agent {agent!r} must sit exactly once at every table of the cell")

    def row(frame: pl.DataFrame) -> dict[str, Any]:
        n, w = frame.height, float(frame["w"].sum())
        lo, hi = wilson_interval(min(max(w, 0.0), n), n, confidence) if n else (None, None)
        return {"games": n, "wins": w, "rate": w / n if n else None, "ci_low": lo, "ci_high": hi}

    by_seat = [{"seat": s} | row(df.filter(pl.col("seat") == s)) for s in range(1, players + 1)]
    return row(df) | {"by_seat": by_seat}


def skill_depth(rate: float, low: float, high: float, players: int) -> dict[str, float]:
    """Skill depth from the top rung's win rate against the bottom rung (one top-rung player
    against ``players - 1`` bottom-rung players, seats rotated): ``(w - 1/n) / (1 - 1/n)``.

    0 means the stronger player wins no more than its fair share (a game of luck, for these
    agents), 1 that it always wins; a negative value that the "stronger" rung is weaker. The
    interval is the win rate's (Wilson) interval mapped the same way (the map is increasing).

    >>> skill_depth(8 / 9, 8 / 9, 8 / 9, 2)["depth"]   # p_top / (p_top + p_bottom) = 8 / 9
    0.7777777777777778
    """
    if players < 2:
        raise ValueError(f"skill depth needs at least 2 players, got {players}")
    fair = 1.0 / players

    def f(x: float) -> float:
        return (x - fair) / (1.0 - fair)

    return {"depth": f(rate), "ci_low": f(low), "ci_high": f(high), "rate": rate, "fair": fair}


def game_outcomes(results: pl.LazyFrame | pl.DataFrame, item_of: Mapping[str, int]) -> list[Outcome]:
    """Each game's finishing order of items (``item_of``: agent name -> item index), in game order,
    ties spread over their orders (:func:`balancer.stats.ratings.outcome_from_places`); the place of
    a seat is its ``rank`` (1 best, tied players share a rank). Raises ValueError for an agent not
    in ``item_of``."""
    df = (
        _as_lazy(results)
        .select("game_index", "seat", "agent", "rank")
        .sort("game_index", "seat")
        .group_by("game_index", maintain_order=True)
        .agg(pl.col("agent"), pl.col("rank"))
        .collect()
    )
    unknown = set(df["agent"].explode().unique().to_list()) - set(item_of)
    if unknown:
        raise ValueError(f"agents {sorted(unknown)} have no rating item")
    cache: dict[tuple, Outcome] = {}
    out = []
    for agents, ranks in zip(df["agent"].to_list(), df["rank"].to_list()):
        key = (tuple(agents), tuple(ranks))
        if key not in cache:
            cache[key] = outcome_from_places([item_of[a] for a in agents], ranks)
        out.append(cache[key])
    return out
