"""Parameters of the generic search agents, as they appear under ``agents.mcts`` in a game's YAML.

They are agent parameters, not rules: a variant file that changes them changes how the players play,
never what the rules are. Every knob of the search is here, in one model a tuner can search (as
TAG's ``MCTSParams``). An agent name may override the budget: ``mcts@1000`` is the game's ``mcts``
with 1,000 iterations per decision.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from ..core.config import Strict

MAX_ITERATIONS = 1_000_000
"""The largest budget per decision an agent name or a YAML may ask for (the tree holds one node per
iteration)."""

_NAME = re.compile(r"^mcts(?:@(\d+))?$")


class MCTSParams(Strict):
    """Information-set MCTS (one tree per searching seat, a determinization per iteration, values per
    seat backed up max^n style, UCT selection with availability counts)."""

    iterations: int = Field(1000, ge=1, le=MAX_ITERATIONS,
                            description="iterations (determinize, select, expand, roll out, back up) per decision")
    exploration: float = Field(0.7, ge=0.0, le=100.0,
                               description="UCT exploration constant c in mean + c sqrt(ln(available) / visits); values are in [0, 1]")
    rollout: Literal["random", "policy"] = Field(
        "policy", description="rollout moves: uniform random, or the game's cheap compiled policy")
    depth: int | None = Field(None, ge=0, le=100_000,
                              description="rollout decisions before the game's heuristic value stands in for the end; null = play to the end")
    final: Literal["visits", "value"] = Field(
        "visits", description="the move played: the most visited child (robust), or the best mean value")


def parse_mcts_name(name: str) -> int | None | Literal[False]:
    """For ``mcts`` None (the YAML's budget), for ``mcts@N`` the budget N, for any other name False.

    Raises ValueError for a malformed budget (``mcts@0``, ``mcts@10000000``).
    """
    if not name.startswith("mcts"):
        return False
    match = _NAME.match(name)
    if match is None:
        if name.startswith("mcts@") or name == "mcts@":
            raise ValueError(f"agent {name!r}: the budget after @ must be a whole number of iterations, e.g. mcts@1000")
        return False
    if match.group(1) is None:
        return None
    budget = int(match.group(1))
    if not 1 <= budget <= MAX_ITERATIONS:
        raise ValueError(f"agent {name!r}: the budget must be 1 to {MAX_ITERATIONS:,} iterations")
    return budget
