"""Seat assignment: who sits where in game ``i`` of a run.

A mirror table (one agent in every seat) needs nothing. A mixed table rotates: in game ``i`` seat
``s`` (0-based) gets ``agents[(s + i) % n]``, so over any ``n`` consecutive games each agent sits in
each seat exactly once, and seat advantage cancels out of agent win rates.
"""

from __future__ import annotations

from collections.abc import Sequence


def seat_agents(agents: Sequence[str], game_index: int) -> list[str]:
    """Agents by seat for game ``game_index``; ``agents`` lists them by seat for game 0."""
    n = len(agents)
    return [agents[(s + game_index) % n] for s in range(n)]


def is_mirror(agents: Sequence[str]) -> bool:
    """True when every seat has the same agent."""
    return len(set(agents)) <= 1


def seat_design(agents: Sequence[str], games: int | None = None) -> str:
    """One sentence for the report's methods block; ``games`` (the run's game count) says whether the
    rotation seats every agent in every seat equally often (only when it is a multiple of the seats)."""
    n = len(agents)
    if n == 1:
        return f"solo: {agents[0]} plays alone against the game's own opponent or target"
    if is_mirror(agents):
        return f"mirror table: {agents[0]} in every seat"
    if games is not None and games % n:
        return (
            f"mixed table, seats rotated every game; {games:,} games is not a multiple of the {n} seats, "
            f"so each agent sits in each seat {games // n:,} or {games // n + 1:,} times"
        )
    return "mixed table, seats rotated every game so that each agent sits in each seat equally often"


def uneven_rotation_note(agents: Sequence[str], games: int) -> str | None:
    """A warning when a mixed table's rotation cannot seat every agent in every seat equally often
    (``games`` not a multiple of the seats); None otherwise."""
    n = len(agents)
    if is_mirror(agents) or games % n == 0:
        return None
    return (
        f"note: {games:,} games is not a multiple of the {n} seats: each agent sits in each seat "
        f"{games // n:,} or {games // n + 1:,} times (use a multiple of {n} for equal seating)"
    )
