"""Seat assignment: who sits where in game ``i`` of a run.

A mirror table (one agent in every seat) needs nothing. A mixed table rotates: in game ``i`` seat
``s`` (0-based) gets ``agents[(s + i) % n]``, so over any ``n`` consecutive games each agent sits in
each seat exactly once, and seat advantage cancels out of agent win rates.
"""

from __future__ import annotations

from typing import Sequence


def seat_agents(agents: Sequence[str], game_index: int) -> list[str]:
    """Agents by seat for game ``game_index``; ``agents`` lists them by seat for game 0."""
    n = len(agents)
    return [agents[(s + game_index) % n] for s in range(n)]


def is_mirror(agents: Sequence[str]) -> bool:
    """True when every seat has the same agent."""
    return len(set(agents)) <= 1


def seat_design(agents: Sequence[str]) -> str:
    """One sentence for the report's methods block."""
    if is_mirror(agents):
        return f"mirror table: {agents[0]} in every seat"
    return "mixed table, seats rotated every game so that each agent sits in each seat equally often"
