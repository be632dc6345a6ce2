"""A solo game's own result: the win rate of the game's 0/1 metric ``solo_win`` with its interval."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from balancer.stats.aggregate import wilson_interval

SOLO_WIN = "solo_win"
"""The 0/1 metric a game reports when a solo player can win or lose (Águeda's solo mode)."""
PER_PLAYER = "_per_player"
"""The suffix of a metric's per-player mean in ``summary.json`` (``metrics.<name>_per_player``)."""


def solo_result(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """A solo game's own result, if the game reports one as the 0/1 metric ``solo_win``: its win
    rate with a Wilson interval over the games (``{rate, ci_low, ci_high, games, wins}``, fractions,
    at ``summary["confidence"]``, default 0.95); else None."""
    m = (summary.get("metrics") or {}).get(SOLO_WIN + PER_PLAYER)
    if not m or not m.get("n"):
        return None
    n = int(m["n"])
    wins = min(max(float(m["mean"]) * n, 0.0), n)
    low, high = wilson_interval(wins, n, float(summary.get("confidence", 0.95)))
    return {"rate": float(m["mean"]), "ci_low": low, "ci_high": high, "games": n, "wins": round(wins)}
