"""Pig's own agent: greedy, which rolls until its turn total reaches ``agents.greedy.hold_at`` (or
would reach the target), then holds. One compiled decision, played at every compiled table (beside
``random`` and ``mcts`` seats) through the dispatcher :func:`game_agent`."""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.agents.mcts import GAME_AGENT
from balancer.core.protocol import Position

from .kernel import HOLD, ROLL, SEATS, T_HOLD_AT, T_TARGET, TO_MOVE, TURN_TOTAL

GREEDY = GAME_AGENT  # the compiled code of the greedy agent (game agents' codes start at GAME_AGENT)


@nb.njit(cache=True)
def greedy_move(S, T):
    """HOLD once the turn total reaches ``hold_at`` or would reach the target, else ROLL."""
    total = S[TURN_TOTAL]
    if total > 0 and (total >= T[T_HOLD_AT] or S[SEATS + S[TO_MOVE]] + total >= T[T_TARGET]):
        return HOLD
    return ROLL


@nb.njit(cache=True)
def game_agent(code, S, T, row, out, rng):
    """The dispatcher of Pig's compiled agents (balancer/agents/mcts.py): the one decision of agent
    ``code`` into ``out[0]``; returns 1, or -1 for a code it does not know."""
    if code == GREEDY:
        out[0] = greedy_move(S, T)
        return 1
    return -1


class Greedy:
    """The greedy agent in the Python protocol (``balancer play``, notebooks): the same decision."""

    name = "greedy"

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        return int(greedy_move(pos.S, pos.T))
