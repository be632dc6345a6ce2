"""Group-sequential tests for balance regression checks (docs/statistics.md has the derivation).

A *tracked number* is the mean of a per-game value (a seat's win share, an agent's win share, a
metric averaged over the players of a game). It is compared with a *reference*: the baseline's
mean (which carries its own sampling variance ``ref_var``) or a designer's bound (``ref_var = 0``).
After ``n_k`` new games the difference is ``D_k = mean_k - reference`` with standard error
``se_k = sqrt(var_k / n_k + ref_var)``. The statistics ``Z_k = D_k / se_k`` then have the canonical
joint distribution of group-sequential theory (Jennison & Turnbull 2000, ch. 3): the baseline's
error is common to every look, so ``Cov(D_j, D_k) = Var(D_k)`` for ``j < k`` and
``corr(Z_j, Z_k) = sqrt(I_j / I_k)`` with information ``I = 1 / se^2``.

* **Fail** (a real change, or a target missed): ``Z_k`` beyond the efficacy boundary ``c_k`` on a
  side. The boundaries spend the false-alarm rate with the Lan-DeMets O'Brien-Fleming-type function
  ``a(t) = 2 - 2 Phi(z_{1-a/2} / sqrt(t))`` over the information fraction ``t``; the boundaries are
  found by recursive numerical integration (Armitage, McPherson & Rowe 1969), so that an unchanged
  number fails with probability exactly the stated rate (for normal statistics with known variance).
* **Pass early** (clearly no change larger than the tolerance): the one-sided bound
  ``D_k + f_k se_k`` lies inside the tolerance on every side, with ``f_k`` from a Pocock-type
  spending of half the miss rate ``b(t) = (beta/2) ln(1 + (e - 1) t)``. This rule is non-binding:
  it can only lower the false-alarm rate; it costs at most ``beta/2`` of power (union bound).
* **Last look**: fail beyond ``c_K``, else pass. The cap is planned so that a change as large as the
  tolerance is found with probability at least ``1 - beta``:
  ``(c_K + z_{1-beta/2}) se_K <= tolerance``.

Everything uses scipy.stats.norm. Values are fractions (win rates) or metric units.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

Verdict = Literal["pass", "fail"]
UPPER, LOWER = 1, -1


def obf_spending(t: np.ndarray | float, alpha: float) -> np.ndarray:
    """Lan-DeMets O'Brien-Fleming-type spending: the error spent by information fraction ``t``
    (0 < t <= 1), ``2 - 2 Phi(z_{1-alpha/2} / sqrt(t))``; equals ``alpha`` at ``t = 1``."""
    t = np.clip(np.asarray(t, dtype=float), 1e-12, 1.0)
    return 2.0 * stats.norm.sf(stats.norm.isf(alpha / 2.0) / np.sqrt(t))


def pocock_spending(t: np.ndarray | float, alpha: float) -> np.ndarray:
    """Lan-DeMets Pocock-type spending ``alpha ln(1 + (e - 1) t)``; equals ``alpha`` at ``t = 1``."""
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    return alpha * np.log1p((math.e - 1.0) * t)


def _increments(spent: np.ndarray) -> np.ndarray:
    return np.diff(np.concatenate([[0.0], spent]))


@dataclass(frozen=True)
class Design:
    """Boundaries of one tracked number, one entry per look.

    ``games``: new games played by each look (increasing). ``fractions``: information fractions.
    ``efficacy``: z beyond which the check fails at that look (per side). ``futility``: the one-sided
    z used by the pass-early rule (``inf`` at the last look: no early pass there, the efficacy
    boundary decides). ``alpha_side``: false-alarm rate spent on each side; ``beta``: miss rate at a
    change as large as the tolerance.
    """

    games: tuple[int, ...]
    fractions: tuple[float, ...]
    efficacy: tuple[float, ...]
    futility: tuple[float, ...]
    alpha_side: float
    beta: float


def information_fractions(games: Sequence[int], var: float, ref_var: float) -> np.ndarray:
    """``I_k / I_K`` with ``I = 1 / (var / n + ref_var)``; ``n / n_K`` when both variances are 0."""
    n = np.asarray(games, dtype=float)
    if var <= 0:
        return n / n[-1]
    info = 1.0 / (var / n + ref_var)
    return info / info[-1]


def design(games: Sequence[int], alpha_side: float, beta: float, var: float = 1.0, ref_var: float = 0.0) -> Design:
    """Boundaries for looks after ``games`` new games, at false-alarm rate ``alpha_side`` per side
    and miss rate ``beta``, planned with per-game variance ``var`` and reference variance ``ref_var``.

    Raises ValueError for an empty or decreasing schedule or rates outside (0, 1).
    """
    games = tuple(int(g) for g in games)
    if not games or any(b <= a for a, b in zip(games, games[1:])) or games[0] < 1:
        raise ValueError(f"look schedule must be increasing positive game counts, got {games}")
    if not (0 < alpha_side < 1 and 0 < beta < 1):
        raise ValueError(f"alpha and beta must be in (0, 1), got {alpha_side}, {beta}")
    t = information_fractions(games, var, ref_var)
    efficacy = efficacy_boundaries(t, alpha_side)
    futility = stats.norm.isf(np.maximum(_increments(pocock_spending(t, beta / 2)), 1e-300))
    futility[-1] = math.inf
    return Design(
        games, tuple(map(float, t)), tuple(map(float, efficacy)), tuple(map(float, futility)), alpha_side, beta
    )


GRID = 401  # points of the numerical integration over z (Simpson's rule on [-c, c])


def efficacy_boundaries(t: Sequence[float] | np.ndarray, alpha_side: float) -> np.ndarray:
    """Symmetric boundaries ``c_k`` at information fractions ``t`` (increasing, last 1) such that an
    unchanged number first crosses ``|Z_k| >= c_k`` at look ``k`` with probability exactly
    ``2 (a(t_k) - a(t_{k-1}))``, where ``a`` is O'Brien-Fleming-type spending of ``alpha_side`` per
    side: the recursive numerical integration of Armitage, McPherson & Rowe (1969) (Jennison &
    Turnbull 2000, ch. 19) over the canonical joint distribution, so the looks' correlation is used
    and no error is wasted. Looks that add no information get an infinite boundary.
    """
    return np.array(_efficacy_boundaries(tuple(round(float(x), 5) for x in t), float(alpha_side)))


@functools.lru_cache(maxsize=4096)
def _efficacy_boundaries(t: tuple[float, ...], alpha_side: float) -> tuple[float, ...]:
    """The cached computation of :func:`efficacy_boundaries` (``t`` rounded to 1e-5)."""
    from scipy.integrate import simpson
    from scipy.optimize import brentq

    fractions = np.asarray(t, dtype=float)
    spend = _increments(obf_spending(fractions, 2 * alpha_side) / 2)  # per side
    bounds = np.full(len(fractions), np.inf)
    z: np.ndarray | None = None  # grid of Z_{k-1} over the paths still running
    h = np.empty(0)  # the sub-density of Z_{k-1} on that grid
    prev_t = 0.0
    for k, (tk, a) in enumerate(zip(fractions, spend)):
        dt = tk - prev_t
        if dt <= 1e-12 or a <= 0:
            continue
        if z is None:
            c = float(stats.norm.isf(a))
            z = np.linspace(-c, c, GRID)
            h = stats.norm.pdf(z)
        else:
            r_prev, r, sd = math.sqrt(prev_t), math.sqrt(tk), math.sqrt(dt)
            z_prev, h_prev = z, h

            def crossing(c: float) -> float:  # P(still running, Z_k >= c)
                return float(simpson(h_prev * stats.norm.sf((c * r - z_prev * r_prev) / sd), x=z_prev))  # noqa: B023 (called within this iteration)

            if crossing(40.0) >= a:
                c = 40.0
            elif crossing(0.0) <= a:
                c = 0.0
            else:
                c = brentq(lambda c: crossing(c) - a, 0.0, 40.0, xtol=1e-10)  # noqa: B023 (called within this iteration)
            grid = np.linspace(-c, c, GRID)
            kernel = stats.norm.pdf((grid[:, None] * r - z[None, :] * r_prev) / sd) * (r / sd)
            h = simpson(kernel * h[None, :], x=z, axis=1)
            z = grid
        bounds[k] = c
        prev_t = tk
    return tuple(map(float, bounds))


def final_boundary(looks: int, alpha_side: float) -> float:
    """The last look's efficacy boundary for ``looks`` equally informative looks (for planning)."""
    return float(efficacy_boundaries(np.arange(1, looks + 1) / looks, alpha_side)[-1])


def games_needed(tolerance: float, var: float, ref_var: float, looks: int, alpha_side: float, beta: float) -> float:
    """New games for power ``1 - beta`` at a change of ``tolerance``: the smallest ``n`` with
    ``(c_K + z_{1-beta/2}) sqrt(var / n + ref_var) <= tolerance``. ``inf`` when the reference's own
    variance alone is too large (a bigger baseline is needed); 1 when ``var`` is 0."""
    target = (tolerance / (final_boundary(looks, alpha_side) + stats.norm.isf(beta / 2))) ** 2
    if var <= 0:
        return 1.0
    if target <= ref_var:
        return math.inf
    return var / (target - ref_var)


def detectable_change(d: Design, var: float, ref_var: float) -> float:
    """The smallest change found with probability ``1 - beta`` after the last look of ``d``."""
    se = math.sqrt(var / d.games[-1] + ref_var)
    return (d.efficacy[-1] + float(stats.norm.isf(d.beta / 2))) * se


@dataclass(frozen=True)
class Look:
    """The state of one tracked number at one look: its verdict (None = keep playing), the
    difference ``estimate - reference`` for the nearest reference and its interval at the efficacy
    level (the repeated confidence interval, Jennison & Turnbull ch. 9)."""

    verdict: Verdict | None
    difference: float
    ci_low: float
    ci_high: float
    z: float


def look(d: Design, k: int, estimate: float, se: float, sides: Sequence[tuple[float, int]], tolerance: float) -> Look:
    """Decide at look ``k`` (0-based) of design ``d``.

    ``estimate``: the mean so far; ``se``: its standard error against the reference (including the
    reference's own variance); ``sides``: ``(reference, UPPER)`` fails when the number is clearly
    above the reference, ``(reference, LOWER)`` when clearly below (a regression check has both
    sides on the baseline mean; ``at_most: x`` is ``[(x, UPPER)]``; ``between`` has one of each).
    ``tolerance``: the change (beyond the reference) the check must find; passing early requires
    the one-sided bound to lie within it on every side.
    """
    last = k == len(d.games) - 1
    c, f = d.efficacy[k], d.futility[k]
    verdict: Verdict | None = "pass"
    worst = None
    for ref, direction in sides:
        diff = estimate - ref
        excess = direction * diff  # > 0 means beyond the reference on the failing side
        if se > 0:
            z = excess / se
            clearly_beyond = z >= c
            clearly_within = excess + f * se < tolerance
        else:  # no variance at all: the value is exactly known
            z = math.copysign(math.inf, excess) if excess else 0.0
            clearly_beyond, clearly_within = excess > 0, excess <= 0 or excess < tolerance
        if worst is None or z > worst[0]:
            worst = (z, diff)
        if clearly_beyond:
            verdict = "fail"
            break
        if not clearly_within and not last:
            verdict = None
    z, diff = worst if worst is not None else (0.0, 0.0)
    return Look(verdict, diff, diff - c * se, diff + c * se, z)
