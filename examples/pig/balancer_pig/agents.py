"""Pig's own agent: greedy, which rolls until its turn total reaches ``agents.greedy.hold_at`` (or
would reach the target), then holds. One compiled decision: played by Pig's own table
(:func:`play_to_end`, greedy and random seats) and, beside ``mcts`` seats, by balancer's compiled
table through the dispatcher :func:`game_agent`."""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.core.kernel import GAME_AGENT
from balancer.core.protocol import Position

from .kernel import HOLD, ROLL, SEATS, T_HOLD_AT, T_PLAYERS, T_TARGET, TO_MOVE, TURN_TOTAL, apply, is_over, legal

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
    # np.bool_, not the literal False: one compiled play_recorded for both callers, not a specialisation each
    return play_recorded(S, T, kinds, chance, agent_rng, max_decisions, np.bool_(False))[0]


@nb.njit(cache=True)
def play_recorded(S, T, kinds, chance, agent_rng, max_decisions, record):
    """:func:`play_to_end` (the same moves and draws), and, with ``record``, the game's trajectory:
    int64[K, n], each seat's points banked at the end of each round (a round: every seat has taken
    one turn), the last row the game's end (a last partial round ends there). Returns ``(decisions
    played, trajectory)`` (an empty trajectory without ``record``)."""
    n_seats = T[T_PLAYERS]
    out = np.empty(2, np.int64)
    rows = np.empty((16 if record else 0, n_seats), np.int64)
    k = 0  # checkpoints recorded
    turns = 0  # turns taken in all, at the last decision
    played = 0
    while played < max_decisions and not is_over(S, T):
        if kinds[S[TO_MOVE]] == GREEDY:
            move = greedy_move(S, T)
        else:
            n = legal(S, T, out)
            move = out[min(int(agent_rng.random() * n), n - 1)]
        apply(S, T, move, chance)
        played += 1
        if record:
            now = S[SEATS + n_seats : SEATS + 2 * n_seats].sum()
            if now != turns and (now % n_seats == 0 or is_over(S, T)):  # a round ended, or the game
                k = _checkpoint(S, n_seats, rows, k)
                rows = _room(rows, k)
            turns = now
    if record and (k == 0 or (turns % n_seats != 0 and not is_over(S, T))):  # stopped mid-round
        k = _checkpoint(S, n_seats, rows, k)
    return played, rows[:k]


@nb.njit(cache=True)
def _checkpoint(S, n_seats, rows, k):
    for s in range(n_seats):
        rows[k, s] = S[SEATS + s]
    return k + 1


@nb.njit(cache=True)
def _room(rows, k):
    """``rows``, or a copy twice as long when it is full."""
    if k < rows.shape[0]:
        return rows
    bigger = np.empty((2 * rows.shape[0], rows.shape[1]), np.int64)
    bigger[:k] = rows[:k]
    return bigger


class Greedy:
    """The greedy agent in the Python protocol (``balancer play``, notebooks): the same decision."""

    name = "greedy"

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        return int(greedy_move(pos.S, pos.T))
