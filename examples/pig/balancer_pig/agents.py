"""Pig's own agent: greedy, which rolls until its turn total reaches ``agents.greedy.hold_at`` (or
would reach the target), then holds. One compiled decision: played by Pig's own table
(:func:`play_to_end`, greedy and random seats) and, beside ``mcts`` seats, by balancer's compiled
table through the dispatcher :func:`game_agent`."""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.core.kernel import GAME_AGENT
from balancer.core.protocol import Position

from .kernel import HOLD, ROLL, SEATS, T_HOLD_AT, T_TARGET, TO_MOVE, TURN_TOTAL, apply, is_over, legal

RANDOM = 0  # the compiled code of a random seat (balancer's uniform agent)
GREEDY = GAME_AGENT  # the compiled code of the greedy agent (a game's own agents' codes start at GAME_AGENT)


@nb.njit(cache=True)
def greedy_move(S, T):
    """HOLD once the turn total reaches ``hold_at`` or would reach the target, else ROLL."""
    total = S[TURN_TOTAL]
    if total > 0 and (total >= T[T_HOLD_AT] or S[SEATS + S[TO_MOVE]] + total >= T[T_TARGET]):
        return HOLD
    return ROLL


@nb.njit(cache=True)
def game_agent(code, S, T, row, out, rng):
    """The dispatcher of Pig's compiled agents (the contract in docs/mcts.md): the one decision of
    agent ``code`` into ``out[0]``; returns 1, or -1 for a code it does not know."""
    if code == GREEDY:
        out[0] = greedy_move(S, T)
        return 1
    return -1


@nb.njit(cache=True)
def play_to_end(S, T, kinds, chance, agent_rng, max_decisions):
    """Play the game ``S`` to its end (at most ``max_decisions`` decisions) with ``kinds[seat]``
    (RANDOM or GREEDY) at each seat: a random seat draws a legal move uniformly with one
    ``agent_rng.random()`` (as balancer's uniform agent does), the dice roll from ``chance``.
    Returns the decisions played."""
    out = np.empty(2, np.int64)
    played = 0
    while played < max_decisions and not is_over(S, T):
        if kinds[S[TO_MOVE]] == GREEDY:
            move = greedy_move(S, T)
        else:
            n = legal(S, T, out)
            move = out[min(int(agent_rng.random() * n), n - 1)]
        apply(S, T, move, chance)
        played += 1
    return played


class Greedy:
    """The greedy agent in the Python protocol (``balancer play``, notebooks): the same decision."""

    name = "greedy"

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        return int(greedy_move(pos.S, pos.T))
