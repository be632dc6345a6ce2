"""Tracked numbers by name, and the mean and its sampling variance of their per-game values.

A tracked number is one value per game (:mod:`balancer.check.values`, :mod:`balancer.sweep.targets`):
``seat_win_rate:<seat>``, ``agent_win_rate:<agent>``, ``matchup:<label>:<a>:<b>`` (win rates) or a
metric's ``<metric>_per_player``. Pure functions; no file, no game.
"""

from __future__ import annotations

import math

import numpy as np

SEAT, AGENT, MATCHUP = "seat_win_rate", "agent_win_rate", "matchup"


def is_rate(number: str) -> bool:
    """Win rates (seat, agent, match-up) get Wilson intervals; metrics Student t intervals."""
    return number.startswith((SEAT, AGENT, MATCHUP))


def means_and_variances(numbers: dict[str, np.ndarray]) -> tuple[dict[str, float], dict[str, float]]:
    """Each number's mean over its finite per-game values (NaN when it has none) and the sampling
    variance of that mean (:func:`mean_variance`): what the corrected distance subtracts."""
    means = {k: float(np.nanmean(v)) if np.isfinite(v).any() else math.nan for k, v in numbers.items()}
    return means, {k: mean_variance(v) for k, v in numbers.items()}


def mean_variance(values: np.ndarray) -> float:
    """The sampling variance of the mean of ``values``' finite entries: var (ddof 1) / count; 0
    with fewer than 2."""
    v = values[np.isfinite(values)]
    return float(v.var(ddof=1) / v.size) if v.size > 1 else 0.0
