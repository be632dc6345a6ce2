"""A solo game's own result: the win rate of the game's declared solo-result metric (a 0/1
indicator, :attr:`balancer.core.metrics.MetricSpec.solo_result`) with its interval."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from balancer.core.metrics import PER_PLAYER, MetricSpecs
from balancer.stats.aggregate import wilson_interval

__all__ = ["PER_PLAYER", "solo_result"]


def solo_result(summary: Mapping[str, Any], specs: MetricSpecs | None) -> dict[str, Any] | None:
    """A solo game's own result, if the game declares one (``specs.solo_result``, a 0/1 metric):
    its win rate with a Wilson interval over the games (``{rate, ci_low, ci_high, games, wins}``,
    fractions, at ``summary["confidence"]``, default 0.95); else None."""
    name = specs.solo_result if specs is not None else None
    m = (summary.get("metrics") or {}).get(name + PER_PLAYER) if name else None
    if not m or not m.get("n"):
        return None
    n = int(m["n"])
    wins = min(max(float(m["mean"]) * n, 0.0), n)
    low, high = wilson_interval(wins, n, float(summary.get("confidence", 0.95)))
    return {"rate": float(m["mean"]), "ci_low": low, "ci_high": high, "games": n, "wins": round(wins)}
