"""Pig's compiled interface (balancer/core/kernel.py): the rules, once, as numba functions.

Rules. Players take turns, seat 1 first. On a turn a player rolls the die as often as they like,
adding each face to the turn total; rolling the bust face loses the turn total and ends the turn.
Holding banks the turn total and ends the turn. The first player whose banked points reach the
target wins at once. (A safety stop, not a rule: after ``max_turns`` turns in all, the most points
banked wins, ties share; recorded as ended by the turn cap.)

The rule table ``T`` (int64): the player count and the rule numbers of the config. The position
``S`` (int64): the seat to move, its turn total, the game-over flag, then per seat the points
banked, the turns taken and the busts. Moves: ``ROLL`` (0) and ``HOLD`` (1, legal once the turn
total is above 0). Nothing is hidden (the die is chance, resolved in ``apply``), so ``determinize``
does nothing. ``returns``: the win shares. ``heuristic``: each seat's share of the points banked.
``policy``: a uniform random move.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.core.game import Outcome
from balancer.core.kernel import ENDED_BY, RULES, TURN_CAP, Engine, Kernel

from .config import PigConfig

ROLL, HOLD = 0, 1
# T: the rule table
T_PLAYERS, T_TARGET, T_FACES, T_BUST, T_MAX_TURNS, T_HOLD_AT, T_LEN = range(7)
# S: the position; per seat s, BANKED + s, TURNS + n + s, BUSTS + 2n + s
TO_MOVE, TURN_TOTAL, OVER, SEATS = range(4)


def compile_rules(cfg: PigConfig, n_players: int) -> np.ndarray:
    """The rule table of ``cfg`` at ``n_players``; ValueError for a count the variant does not support.
    (Greedy's ``hold_at`` rides along so that the compiled greedy can read it.)"""
    if n_players not in cfg.player_counts:
        raise ValueError(
            f"{n_players} player(s) is not supported by Pig {cfg.variant} (supported: {cfg.player_counts})"
        )
    T = np.zeros(T_LEN, np.int64)
    T[T_PLAYERS], T[T_TARGET], T[T_MAX_TURNS] = n_players, cfg.target, cfg.max_turns
    T[T_FACES], T[T_BUST], T[T_HOLD_AT] = cfg.die.faces, cfg.die.bust, cfg.agents.greedy.hold_at
    return T


def new_state(T: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A game after setup: seat 1 to move, nothing banked (Pig's setup has no chance)."""
    return np.zeros(SEATS + 3 * T[T_PLAYERS], np.int64)


@nb.njit(cache=True)
def to_move(S, T):
    return S[TO_MOVE]


@nb.njit(cache=True)
def is_over(S, T):
    return S[OVER] == 1


@nb.njit(cache=True)
def legal(S, T, out):
    if S[OVER] == 1:
        return 0
    out[0] = ROLL
    if S[TURN_TOTAL] == 0:
        return 1
    out[1] = HOLD
    return 2


@nb.njit(cache=True)
def _end_turn(S, T):
    n = T[T_PLAYERS]
    S[SEATS + n + S[TO_MOVE]] += 1
    S[TURN_TOTAL] = 0
    S[TO_MOVE] = (S[TO_MOVE] + 1) % n
    if S[SEATS + n : SEATS + 2 * n].sum() >= T[T_MAX_TURNS]:
        S[OVER] = 1


@nb.njit(cache=True)
def apply(S, T, move, rng):
    """Roll (the face drawn from ``rng``) or hold."""
    seat = S[TO_MOVE]
    if move == HOLD:
        S[SEATS + seat] += S[TURN_TOTAL]
        if S[SEATS + seat] >= T[T_TARGET]:
            S[SEATS + T[T_PLAYERS] + seat] += 1
            S[OVER] = 1
        else:
            _end_turn(S, T)
        return
    face = 1 + min(int(rng.random() * T[T_FACES]), T[T_FACES] - 1)
    if face == T[T_BUST]:
        S[SEATS + 2 * T[T_PLAYERS] + seat] += 1
        _end_turn(S, T)
    else:
        S[TURN_TOTAL] += face


@nb.njit(cache=True)
def scores(S, T, out):
    for s in range(T[T_PLAYERS]):
        out[s] = S[SEATS + s]


@nb.njit(cache=True)
def returns(S, T, out):
    """The win shares: 1/k to each of the k seats with the most points banked."""
    n = T[T_PLAYERS]
    best = S[SEATS : SEATS + n].max()
    k = (S[SEATS : SEATS + n] == best).sum()
    for s in range(n):
        out[s] = 1.0 / k if S[SEATS + s] == best else 0.0


@nb.njit(cache=True)
def heuristic(S, T, out):
    """Each seat's share of the points banked (plus one each, so that the start is even); the end: returns."""
    if S[OVER] == 1:
        returns(S, T, out)
        return
    n = T[T_PLAYERS]
    total = S[SEATS : SEATS + n].sum() + n
    for s in range(n):
        out[s] = (S[SEATS + s] + 1) / total


@nb.njit(cache=True)
def determinize(S, T, seat, rng):
    pass  # nothing is hidden


@nb.njit(cache=True)
def policy(S, T, out, rng):
    n = legal(S, T, out)
    return out[min(int(rng.random() * n), n - 1)]


@nb.njit(cache=True)
def ended_by(S, T):
    return RULES if S[SEATS : SEATS + T[T_PLAYERS]].max() >= T[T_TARGET] else TURN_CAP


KERNEL = Kernel(to_move, legal, apply, is_over, scores, returns, heuristic, determinize, policy, ended_by)


def outcome(S: np.ndarray, T: np.ndarray) -> Outcome:
    """The final accounting: points banked (the one score category), turns, busts, how it ended."""
    n = int(T[T_PLAYERS])
    banked = [int(x) for x in S[SEATS : SEATS + n]]
    turns = [int(x) for x in S[SEATS + n : SEATS + 2 * n]]
    return Outcome(
        scores=banked,
        tiebreak=[()] * n,
        components={"banked": banked},
        metrics={"game_turns": [float(sum(turns))] * n, "busts": [float(x) for x in S[SEATS + 2 * n : SEATS + 3 * n]]},
        turns=turns,
        ended_by=ENDED_BY[int(ended_by(S, T))],
    )


def describe_move(S: np.ndarray, T: np.ndarray, move: int) -> str:
    """One transcript line, before the move: ``rolls (turn total 8)`` or ``holds 12: banked 40 -> 52``."""
    seat, total = int(S[TO_MOVE]), int(S[TURN_TOTAL])
    if move == HOLD:
        return f"holds {total}: banked {int(S[SEATS + seat])} -> {int(S[SEATS + seat]) + total}"
    return f"rolls (turn total {total})"


ENGINE = Engine(
    kernel=KERNEL,
    compile=compile_rules,
    new_state=new_state,
    n_players=lambda T: int(T[T_PLAYERS]),
    max_moves=lambda T: 2,
    observation=lambda S, T, seat: S.copy(),  # everything is public
    outcome=outcome,
    describe_move=describe_move,
)
