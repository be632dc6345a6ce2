"""Targets on tracked numbers: what a sweep marks as met and what a tune minimises.

**Tracked numbers** of a run, each one value per game so that games are the independent units
(:func:`game_numbers`; :mod:`balancer.check.values` for seats, agents and metrics):

* ``seat_win_rate:<seat>``: the seat's win share in the game (1, 1/k of a k-way shared win, 0);
* ``agent_win_rate:<agent>`` (mixed tables): the mean win share of the seats the agent holds;
* ``<metric>_per_player``: the game's ``metric_<metric>`` averaged over its players;
* ``matchup:<label>:<a>:<b>`` (2 players, a game that labels its seats, e.g. an Urgency deck):
  the win share of the seat labelled ``a`` in a game against ``b`` (no value in other games).

**A target** names a number or a group of them (``seat_win_rate`` is every seat, ``matchups:deck``
every match-up of the label) and what it should be:

* ``equal`` (win rates): every rate at the fair share 1/n (one half for a match-up);
  ``{equal: true, within: 0.02}``: every rate within 2 points of it;
* ``{between: [low, high]}``, ``{at_most: x}``, ``{at_least: x}`` (fractions for win rates, the
  metric's own unit for metrics);
* ``{matrix: {a: {b: 0.6}}}`` (match-ups): the win rate of ``a`` against ``b``, cell by cell;
* each with an optional ``weight`` (default 1) in the objective.

**Its distance** (what a tune minimises, weighted and summed over targets) is the root mean square
over the group's numbers of each estimate's distance from where it should be: from the fair share
(``equal``) or the target cell (``matrix``), or outside the bounds (0 inside). It is in the numbers'
unit (a fraction for win rates: 0.02 = 2 points). Noise only lengthens a distance (E[(x - c)^2] =
(mu - c)^2 + var x), so given each estimate's sampling variance (its per-game values' variance over
the games) a point target's squared distance has that variance subtracted, which makes it unbiased,
and the distance is the square root of it floored at 0 (:meth:`Term.squared_distance`). A bounds
target's distance (0 inside) is not corrected.

**Its verdict** comes from each number's 95% interval: *met* when the interval lies inside the
bounds, *missed* when it lies wholly outside them, else *not shown to be met* (no correction for
several numbers: each is a statement about its own bounds). A plain ``equal`` (or a ``matrix``)
cannot be shown to be met (no interval is a point); it is decided jointly: each number's score test
of "at its centre" (the test the Wilson interval inverts, z = (x - c) / sqrt(c (1 - c) / games)),
Holm-adjusted over the term's numbers (:func:`balancer.stats.paired.holm_adjust`); the term is
*missed* when some adjusted p-value is below 0.05 (that number's verdict *missed*), else
*consistent*. A balanced game is then called missed at most 5% of the time, not 1 - 0.95^4 = 19% (a
4-seat game checked seat by seat).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, model_validator
from scipy import optimize
from scipy.stats import chi2, ncx2, norm

from balancer.check.values import per_game_values
from balancer.core.tables import is_mirror
from balancer.stats.aggregate import mean_interval, wilson_interval
from balancer.stats.paired import holm_adjust
from balancer.stats.tracked import AGENT, MATCHUP, SEAT, is_rate, mean_variance, means_and_variances

NUMBER_KEY = (
    r"(?P<number>seat_win_rate(:[1-8])?|agent_win_rate(:[A-Za-z0-9_.+\-]+)?|"
    r"matchups:[a-z_][a-z0-9_]*|[a-z_][a-z0-9_]*_per_player)"
)
TARGET_KEY = re.compile(rf"^(?:(?P<run>[A-Za-z0-9][A-Za-z0-9._-]*)/)?{NUMBER_KEY}$")
"""A target's key: ``[<run>/]<number>``; the run prefix is needed only when the file has several runs."""

TARGET_KEYS_TEXT = (
    "seat_win_rate, seat_win_rate:<seat>, agent_win_rate, agent_win_rate:<agent>, "
    "matchups:<label> or <metric>_per_player (each optionally prefixed by '<run>/')"
)


class Target(BaseModel):
    """What a tracked number (or group) should be; see the module docstring."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    equal: bool = False
    within: float | None = Field(None, gt=0, lt=1, description="with equal: the tolerance around the fair share")
    between: tuple[float, float] | None = None
    at_most: float | None = None
    at_least: float | None = None
    matrix: dict[str, dict[str, float]] | None = Field(None, description="match-ups: row -> column -> win rate")
    weight: float = Field(1.0, gt=0, description="weight of this target in the objective")

    @model_validator(mode="after")
    def _one_kind(self) -> Target:
        kinds = [
            k
            for k in ("equal", "between", "at_most", "at_least", "matrix")
            if (getattr(self, k) is not None and getattr(self, k) is not False)
        ]
        if len(kinds) != 1:
            raise ValueError(
                "give exactly one of equal, between: [low, high], at_most: x, at_least: x, "
                "matrix: {row: {column: rate}}"
            )
        if self.within is not None and not self.equal:
            raise ValueError("within: goes with equal: true")
        if self.between is not None and not self.between[0] < self.between[1]:
            raise ValueError(f"between: low must be below high, got {list(self.between)}")
        return self

    def bounds(self, fair: float) -> tuple[float, float] | None:
        """``(low, high)`` a number should lie in (``fair``: its fair share), or None for a plain equal."""
        if self.equal:
            return None if self.within is None else (fair - self.within, fair + self.within)
        if self.between is not None:
            return self.between
        if self.at_most is not None:
            return (-math.inf, self.at_most)
        if self.at_least is not None:
            return (self.at_least, math.inf)
        return None

    def text(self) -> str:
        """``equal``, ``within 2 points of equal``, ``between 0.23 and 0.27``, ``at most 6``, ``the matrix``."""
        if self.equal:
            return "equal" if self.within is None else f"within {self.within:g} of equal"
        if self.between is not None:
            return f"between {self.between[0]:g} and {self.between[1]:g}"
        if self.at_most is not None:
            return f"at most {self.at_most:g}"
        if self.at_least is not None:
            return f"at least {self.at_least:g}"
        return "the target matrix"


def parse_target(value: Any) -> Target:
    """A target from its YAML: the string ``equal`` or a mapping (see :class:`Target`)."""
    if value == "equal":
        return Target(equal=True)
    if isinstance(value, dict):
        return Target.model_validate(value)
    raise ValueError(
        "give equal, or a mapping with one of between, at_most, at_least, equal, matrix (and an optional weight)"
    )


# --------------------------------------------------------------------------------------------------
# tracked numbers, per game


def game_numbers(table: pa.Table, agents: Sequence[str]) -> dict[str, np.ndarray]:
    """``{number: float64[games]}`` of a run's results table (game-major, seat-minor rows, as the
    runner writes them): :func:`balancer.check.values.per_game_values` plus, for a 2-player table
    with ``label_<name>`` columns, ``matchup:<name>:<a>:<b>`` for every pair of distinct values
    played (NaN in games between other values)."""
    out = per_game_values(table, agents)
    n = len(agents)
    if n == 2:
        share = table.column("win_share").to_numpy().astype(float).reshape(-1, 2)
        for col in table.column_names:
            if not col.startswith("label_"):
                continue
            name = col.removeprefix("label_")
            labels = np.asarray(table.column(col).to_pylist(), dtype=object).reshape(-1, 2)
            for a, b in sorted(
                {(x, y) for x, y in labels.tolist() if x != y} | {(y, x) for x, y in labels.tolist() if x != y}
            ):
                values = np.full(share.shape[0], np.nan)
                first = (labels[:, 0] == a) & (labels[:, 1] == b)
                second = (labels[:, 1] == a) & (labels[:, 0] == b)
                values[first] = share[first, 0]
                values[second] = share[second, 1]
                out[f"{MATCHUP}:{name}:{a}:{b}"] = values
    return out


def estimate(values: np.ndarray, number: str, confidence: float = 0.95) -> dict[str, float]:
    """``{mean, ci_low, ci_high, games}`` of one number's per-game values (NaN games left out):
    a Wilson interval (shared wins as fractional successes) for a win rate, a t interval for a metric."""
    v = values[np.isfinite(values)]
    n = int(v.size)
    if n == 0:
        return {"mean": math.nan, "ci_low": math.nan, "ci_high": math.nan, "games": 0}
    mean = float(v.mean())
    if is_rate(number):
        low, high = wilson_interval(min(max(float(v.sum()), 0.0), n), n, confidence)
    else:
        low, high = mean_interval(mean, float(v.std(ddof=1)) if n > 1 else math.nan, n, confidence)
    return {"mean": mean, "ci_low": low, "ci_high": high, "games": n}


# --------------------------------------------------------------------------------------------------
# a target resolved against one run


@dataclass
class RunShape:
    """What a run reports: its name, agents by seat (game 0), and the metric and label columns
    of one game (learnt by playing it)."""

    name: str
    agents: list[str]
    metrics: list[str]
    labels: list[str]

    @property
    def players(self) -> int:
        return len(self.agents)


@dataclass
class Term:
    """One target applied to one run: the numbers it covers, each with its fair share (or target
    cell), the target, and the key it was written under."""

    key: str
    run: str
    group: str  # the number or group as written: seat_win_rate, seat_win_rate:4, matchups:deck
    target: Target
    numbers: list[str] = field(default_factory=list)  # fixed numbers; empty for a matchups group
    fair: float | None = None

    def members(self, available: Sequence[str]) -> list[tuple[str, float | None]]:
        """``(number, where it should be)`` for every number of the term present in ``available``
        (the match-ups actually played); ``None`` for bounds targets."""
        if self.group.startswith("matchups:"):
            label = self.group.split(":", 1)[1]
            prefix = f"{MATCHUP}:{label}:"
            played = [n for n in available if n.startswith(prefix)]
            if self.target.matrix is not None:
                out: list[tuple[str, float | None]] = []
                for row, cols in self.target.matrix.items():
                    for col, rate in cols.items():
                        name = f"{prefix}{row}:{col}"
                        if name in played:
                            out.append((name, rate))
                return out
            pairs = [n for n in played if n.split(":")[2] < n.split(":")[3]]
            return [(n, 0.5 if self.target.equal else None) for n in pairs]
        return [(n, self.fair if self.target.equal else None) for n in self.numbers if n in available]

    @property
    def is_point(self) -> bool:
        """A plain ``equal`` or a ``matrix``: every number has one place to be (not a range)."""
        return self.target.matrix is not None or (self.target.equal and self.target.within is None)

    def squared_distance(self, means: dict[str, float], variances: dict[str, float] | None = None) -> float:
        """Mean square over the term's numbers of each mean's distance from where it should be (see
        module docstring); NaN when none of its numbers has a value. With ``variances`` (each mean's
        sampling variance), a point target's squares have them subtracted: an unbiased estimate of
        the true squared distance, which may be negative near 0."""
        d = []
        for name, centre in self.members(list(means)):
            x = means[name]
            if not math.isfinite(x):
                continue
            bounds = self.target.bounds(centre if centre is not None else 0.0)
            if self.is_point:
                v = (variances or {}).get(name, 0.0)
                d.append((x - float(centre)) ** 2 - (v if math.isfinite(v) else 0.0))  # type: ignore[arg-type]
            else:
                low, high = bounds  # type: ignore[misc]
                d.append(max(0.0, low - x, x - high) ** 2)
        return sum(d) / len(d) if d else math.nan

    def distance(self, means: dict[str, float], variances: dict[str, float] | None = None) -> float:
        """RMS over the term's numbers of each mean's distance from where it should be: the square
        root of :meth:`squared_distance`, floored at 0; NaN when none of its numbers has a value."""
        sq = self.squared_distance(means, variances)
        return math.sqrt(max(0.0, sq)) if math.isfinite(sq) else math.nan

    def signed_distance(self, means: dict[str, float], variances: dict[str, float] | None = None) -> float:
        """:meth:`distance` before its floor at 0: the square root of :meth:`squared_distance` with its
        sign, negative where the noise subtracted exceeds the squared gap. Two candidates that both
        read 0 keep their order, the nearer to the target first (an exactly fair 50/50 below a 52/48
        of the same games); NaN when none of its numbers has a value."""
        sq = self.squared_distance(means, variances)
        return math.copysign(math.sqrt(abs(sq)), sq) if math.isfinite(sq) else math.nan

    def is_seat_uniformity(self) -> bool:
        """A plain ``equal`` on every seat's win rate: the objective of the chi-square test of
        uniform seats (:func:`seat_distance_interval`)."""
        return self.group == SEAT and self.target.equal and self.target.within is None

    def verdicts(self, estimates: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
        """One row per number: ``{number, where, mean, ci_low, ci_high, verdict}`` (met, missed, not
        shown to be met, consistent); a point target's rows also carry ``p_adjusted`` (the number's
        score-test p-value, Holm-adjusted over the term's numbers) and ``family_size``, and its
        verdicts come from them (module docstring)."""
        rows = []
        members = self.members(list(estimates))
        adjusted = holm_adjust([_score_p(estimates[n], c) for n, c in members]) if self.is_point else []
        for k, (name, centre) in enumerate(members):
            e = estimates[name]
            lo, hi = e["ci_low"], e["ci_high"]
            extra: dict[str, Any] = {}
            if self.is_point:
                where = f"{centre:.3g}"
                q = adjusted[k]
                extra = {"p_adjusted": q, "family_size": sum(x is not None for x in adjusted)}
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    verdict = "no games"
                elif q is None:  # a centre of 0 or 1 has no score test: its own interval decides
                    verdict = "consistent" if lo <= centre <= hi else "missed"  # type: ignore[operator]
                else:
                    verdict = "missed" if q < ALPHA else "consistent"
            else:
                low, high = self.target.bounds(centre if centre is not None else 0.0)  # type: ignore[misc]
                where = (
                    f"{low:.3g} to {high:.3g}"
                    if math.isfinite(low) and math.isfinite(high)
                    else f"at most {high:.3g}"
                    if math.isfinite(high)
                    else f"at least {low:.3g}"
                )
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    verdict = "no games"
                elif low <= lo and hi <= high:
                    verdict = "met"
                elif hi < low or lo > high:
                    verdict = "missed"
                else:
                    verdict = "not shown to be met"
            rows.append({"number": name, "where": where, **e, "verdict": verdict, **extra})
        return rows

    def verdict(self, estimates: dict[str, dict[str, float]]) -> str:
        """The term's verdict: missed if any number is missed, met (consistent) if all are, else not
        shown to be met; ``no games`` when none of its numbers has a value."""
        rows = [r for r in self.verdicts(estimates) if r["verdict"] != "no games"]
        if not rows:
            return "no games"
        kinds = {r["verdict"] for r in rows}
        if "missed" in kinds:
            return "missed"
        if kinds == {"met"}:
            return "met"
        if kinds == {"consistent"}:
            return "consistent"
        return "not shown to be met"

    @property
    def title(self) -> str:
        prefix = f"{self.run}/" if self.key.startswith(f"{self.run}/") else ""
        return f"{prefix}{self.group}: {self.target.text()}"


def name_problems(targets: Any, runs: Any, where: str) -> list[str]:
    """The lines of :func:`resolve_terms` that need no game and no valid file: a key that is no tracked
    number, a run prefix naming no run of ``runs`` (the file's mapping, valid or not). Told before the
    file's other checks and before a game is probed (an unknown run was named only after them)."""
    if not isinstance(targets, dict):
        return []
    problems = []
    for key in targets:
        m = TARGET_KEY.match(str(key))
        if not m:
            problems.append(f"{where}.{key}: not a tracked number; use {TARGET_KEYS_TEXT}")
        elif isinstance(runs, dict) and m.group("run") and m.group("run") not in runs:
            problems.append(f"{where}.{key}: unknown run {m.group('run')!r}; runs are {', '.join(map(str, runs))}")
    return problems


def resolve_terms(targets: dict[str, Any], runs: dict[str, RunShape], where: str) -> list[Term]:
    """Resolve a file's ``target:`` or ``objective:`` mapping (key -> YAML target) against its runs.

    ``where``: ``"<file>: target"`` for messages. Raises ValueError, one line per problem naming
    ``where.<key>``: a malformed key, an unknown run, a number the run does not report (a seat
    beyond its players, an agent not at its table or a mirror table's agent win rate, a metric or
    label the game does not produce), or a target of the wrong kind for it (``equal`` on a metric,
    ``matrix`` on a seat)."""
    terms, problems = [], []
    for key, raw in targets.items():
        at = f"{where}.{key}"
        m = TARGET_KEY.match(str(key))
        if not m:
            problems.append(f"{at}: not a tracked number; use {TARGET_KEYS_TEXT}")
            continue
        try:
            target = parse_target(raw)
        except ValueError as exc:
            msg = exc.errors()[0]["msg"].removeprefix("Value error, ") if hasattr(exc, "errors") else str(exc)
            if hasattr(exc, "errors") and exc.errors()[0]["type"] == "extra_forbidden":
                msg = (
                    f"unknown key {exc.errors()[0]['loc'][-1]!r}; allowed: equal, within, between, at_most, "
                    "at_least, matrix, weight"
                )
            problems.append(f"{at}: {msg}")
            continue
        run_names = [m.group("run")] if m.group("run") else list(runs)
        if m.group("run") and m.group("run") not in runs:
            problems.append(f"{at}: unknown run {m.group('run')!r}; runs are {', '.join(runs)}")
            continue
        number = m.group("number")
        for run_name in run_names:
            problem = _term_problem(number, target, runs[run_name])
            if problem:
                problems.append(f"{at}: {problem}" + (f" (run {run_name!r})" if len(runs) > 1 else ""))
                continue
            terms.append(_term(str(key), number, target, runs[run_name]))
    if problems:
        raise ValueError("\n".join(problems))
    return terms


def _term_problem(number: str, target: Target, run: RunShape) -> str | None:
    n = run.players
    rate = number.startswith((SEAT, AGENT, "matchups:"))
    if target.equal and not rate:
        return "equal applies to win rates only; give between, at_most or at_least for a metric"
    if target.matrix is not None and not number.startswith("matchups:"):
        return "matrix applies to matchups:<label> only"
    if number.startswith("matchups:") and not (target.equal or target.matrix is not None):
        return "a match-up group takes equal or matrix: {row: {column: rate}}"
    if number.startswith(SEAT):
        if n == 1:
            return "a solo run has one seat; its win rate is 1 by construction"
        if ":" in number and int(number.split(":")[1]) > n:
            return f"{number}: the run has {n} seats"
    elif number.startswith(AGENT):
        if is_mirror(run.agents):
            return (
                f"a mirror table of {run.agents[0]}: every agent win rate is 1/{n} by construction; "
                "target seat_win_rate instead"
            )
        if ":" in number and number.split(":", 1)[1] not in run.agents:
            return f"{number.split(':', 1)[1]!r} does not sit at the table ({', '.join(dict.fromkeys(run.agents))})"
    elif number.startswith("matchups:"):
        label = number.split(":", 1)[1]
        if n != 2:
            return f"match-ups need a 2-player run, the run has {n} players"
        if label not in run.labels:
            return f"the game has no label {label!r}; its labels are {', '.join(run.labels) or 'none'}"
    else:
        metric = number.removesuffix("_per_player")
        if metric not in run.metrics:
            return f"the game reports no metric {metric!r}; its metrics are {', '.join(run.metrics) or 'none'}"
    return None


def _term(key: str, number: str, target: Target, run: RunShape) -> Term:
    n = run.players
    if number == SEAT:
        numbers = [f"{SEAT}:{s}" for s in range(1, n + 1)]
    elif number == AGENT:
        numbers = [f"{AGENT}:{a}" for a in dict.fromkeys(run.agents)]
    elif number.startswith("matchups:"):
        numbers = []
    else:
        numbers = [number]
    return Term(key, run.name, number, target, numbers, fair=1.0 / n if number.startswith((SEAT, AGENT)) else None)


ALPHA = 0.05
"""Level of a point target's joint verdict (Holm over its numbers' score tests)."""


def _score_p(e: dict[str, float], centre: float | None) -> float | None:
    """Two-sided p-value of the score test that a win rate with estimate ``e`` (mean over
    ``e["games"]`` games) is ``centre``: z = (mean - c) / sqrt(c (1 - c) / games), the test whose
    acceptance region the Wilson interval is (its 95% interval holds c exactly when p >= 0.05).
    With shared wins the per-game variance is below c (1 - c), so the test is conservative. None
    without games or a centre strictly inside (0, 1)."""
    n = e.get("games") or 0
    mean = e.get("mean", math.nan)
    if centre is None or n < 1 or not math.isfinite(mean) or not 0.0 < centre < 1.0:
        return None
    z = (mean - centre) / math.sqrt(centre * (1.0 - centre) / n)
    return float(2.0 * norm.sf(abs(z)))


# --------------------------------------------------------------------------------------------------
# the objective


def objective(
    terms: Sequence[Term],
    means: dict[str, dict[str, float]],
    variances: dict[str, dict[str, float]] | None = None,
) -> float:
    """Sum over terms of weight x distance (``means``: run -> number -> mean; ``variances`` the same
    for each mean's sampling variance, which makes a point target's squared distance unbiased, see
    :meth:`Term.squared_distance`); NaN if a term has no value."""
    return float(sum(t.target.weight * t.distance(means[t.run], (variances or {}).get(t.run)) for t in terms))


def signed_objective(terms: Sequence[Term], numbers: dict[str, dict[str, np.ndarray]]) -> float:
    """:func:`bootstrap_objective`'s value with each term's signed distance (:meth:`Term.signed_distance`)
    in place of its distance floored at 0: the same value where no term is floored, and an order for
    the candidates the floor ties at 0 (which the tuner's ranking needs: the objective alone cannot
    tell which of two rules that both score 0 is the nearer to the target). ``numbers``: run ->
    number -> per-game values."""
    per_run = {run: means_and_variances(nums) for run, nums in numbers.items()}
    return float(sum(t.target.weight * t.signed_distance(*per_run[t.run]) for t in terms))


def term_distance(term: Term, numbers: dict[str, np.ndarray]) -> float:
    """The distance of one term from its per-game values ``numbers`` (one run's, number -> values):
    a point target's squared gaps with each mean's sampling variance subtracted, as in the tune
    objective (:func:`bootstrap_objective`'s value for this term alone, before its weight), so a
    sweep's and a tune's pages show the same distance for the same games (in the number's unit: a
    fraction for win rates)."""
    means, variances = means_and_variances(numbers)
    return term.distance(means, variances)


def _invert_ncx2(statistic: float, df: int, confidence: float) -> tuple[float, float]:
    """Equal-tailed interval for the non-centrality lambda of a chi-square statistic on ``df``
    degrees of freedom: lambda_low solves P(X >= statistic | lambda) = (1 - c)/2 (0 when the
    central test does not reject at that level, so the interval holds 0), lambda_high solves
    P(X <= statistic | lambda) = (1 - c)/2 (:class:`scipy.stats.ncx2`)."""
    tail = (1.0 - confidence) / 2.0
    if chi2.sf(statistic, df) >= tail:
        low = 0.0
    else:
        hi = statistic + 10.0 * math.sqrt(statistic + 1.0) + 10.0
        low = float(optimize.brentq(lambda lam: ncx2.sf(statistic, df, lam) - tail, 1e-12, hi))
    if chi2.cdf(statistic, df) <= tail:
        return low, 0.0
    hi = statistic + 10.0 * math.sqrt(statistic + 1.0) + 50.0
    while ncx2.cdf(statistic, df, hi) > tail:
        hi *= 2.0
    high = float(optimize.brentq(lambda lam: ncx2.cdf(statistic, df, lam) - tail, 1e-12, hi))
    return low, high


def seat_distance_interval(shares: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """(statistic, low, high): the interval of the RMS distance D of n seat win rates from 1/n,
    from the chi-square test of uniform seats it stands for.

    ``shares``: (games, n) per-game win shares of the seats (rows summing to 1). Pearson's statistic
    of the seat win counts against games/n each is X^2 = n G sum_s (x_s - 1/n)^2 = n^2 G D_hat^2, on
    n - 1 degrees of freedom; under true rates at RMS distance D it is approximately non-central
    chi-square with lambda = n^2 G D^2. Inverting it (:func:`_invert_ncx2`) gives the interval of
    D = sqrt(lambda / (n^2 G)), which holds 0 whenever the test does not reject uniform seats at
    (1 - confidence)/2. Shared wins make the statistic smaller than a multinomial's (conservative)."""
    games, n = shares.shape
    d = shares.mean(axis=0) - 1.0 / n
    statistic = float(n * games * (d * d).sum())
    lam_low, lam_high = _invert_ncx2(statistic, n - 1, confidence)
    scale = n * n * games
    return statistic, math.sqrt(lam_low / scale), math.sqrt(lam_high / scale)


def bootstrap_objective(
    terms: Sequence[Term],
    numbers: dict[str, dict[str, np.ndarray]],
    rounds: int = 400,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """(objective, low, high) of per-game values ``numbers`` (run -> number -> per-game values,
    :func:`game_numbers`).

    The value is :func:`objective` with each mean's sampling variance (the per-game values'
    variance, ddof 1, over their games) subtracted from a point target's squared distance: unbiased
    in the square, where the plain RMS distance is pushed up by noise (+0.0043 at a true 0 for 4
    seats and 2,000 games).

    The interval: for an objective of one plain ``equal`` on every seat (``seat_win_rate: equal``),
    the inversion of the chi-square test of uniform seats (:func:`seat_distance_interval`), times
    the term's weight; it holds 0 when the seats are not shown to differ. Otherwise a normal
    bootstrap over games: the value plus or minus z times the standard deviation of ``rounds``
    replicates (each run's games resampled with replacement from ``default_rng(seed)``), floored at
    0; its coverage near a target is not measured (docs/statistics.md)."""
    per_run = {run: means_and_variances(nums) for run, nums in numbers.items()}
    means = {run: mv[0] for run, mv in per_run.items()}
    variances = {run: mv[1] for run, mv in per_run.items()}
    value = objective(terms, means, variances)
    if len(terms) == 1 and terms[0].is_seat_uniformity():
        term = terms[0]
        seat_names = [name for name, _ in term.members(list(numbers[term.run]))]
        shares = np.column_stack([numbers[term.run][k] for k in seat_names]) if seat_names else np.empty((0, 0))
        shares = shares[np.isfinite(shares).all(axis=1)] if shares.size else shares
        if shares.shape[0] >= 1 and len(seat_names) == len(term.numbers) and math.isfinite(value):
            _, low, high = seat_distance_interval(shares, confidence)
            return value, term.target.weight * low, term.target.weight * high
    if rounds <= 0:
        return value, math.nan, math.nan
    rng = np.random.default_rng(seed)
    used = {t.run: {name for name, _ in t.members(list(numbers[t.run]))} for t in terms}
    samples = np.empty(rounds)
    for b in range(rounds):
        boot: dict[str, dict[str, float]] = {}
        boot_var: dict[str, dict[str, float]] = {}
        for run, nums in numbers.items():
            names = used.get(run, set())
            boot[run], boot_var[run] = {}, {}
            if not names:
                continue
            games = len(next(iter(nums.values())))
            idx = rng.integers(0, games, games)
            for k in names:
                v = nums[k][idx]
                f = np.isfinite(v)
                boot[run][k] = float(v[f].mean()) if f.any() else math.nan
                boot_var[run][k] = mean_variance(v)
        samples[b] = objective(terms, boot, boot_var)
    finite = samples[np.isfinite(samples)]
    if finite.size < 2 or not math.isfinite(value):
        return value, math.nan, math.nan
    half = float(norm.ppf(0.5 + confidence / 2)) * float(np.std(finite, ddof=1))
    return value, max(0.0, value - half), value + half
