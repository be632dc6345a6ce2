"""The compiled game interface (docs/architecture.md, "Compiled game interface").

Every game compiles its rules once, here, and everything generic is built on it: the Python protocol
(:mod:`balancer.core.protocol`: ``legal_moves``/``apply`` for notebooks, tests and ``balancer
play``), the random agent, the generic agents such as MCTS (:mod:`.generic_agents`), and the conformance suite.

A game's engine (its ``kernel.py``) provides

- ``compile(cfg, n_players) -> T``: the variant for one player count, as *the rule table* ``T``:
  one int64 array, or a NamedTuple of arrays and ints where a game needs several dtypes. Generic
  code never looks inside ``T``; it passes it through untouched.
- ``new_state(T, rng) -> S``: a game after setup, resolved with ``rng`` (the game's own chance
  stream) up to the first decision. ``S`` is **one** C-contiguous int64 array holding the whole
  position, so that a copy is ``S.copy()`` (or ``dst[:] = S``) and a search can keep many.
- the compiled functions of :class:`Kernel` below, over ``(S, T)``.

Moves are int64 codes: one decision each. A game whose turn is a compound choice (Citywright: a
ruler, where it goes, which tile on which cell, the free pick) splits it into several decisions
of the same player, the state remembering the ones already taken, so that a search sees a branching
factor it can handle. Each game's ``kernel.py`` docstring documents its encoding.

Chance never appears as a decision: ``apply`` resolves it with the generator it is given (the game's
stream in real play, the searcher's own stream inside a search) up to the next decision. Hidden
information (deck orders, other players' hands, the bag) lives in ``S``; ``determinize`` resamples
everything a seat cannot see from that seat's point of view, keeping everything it can, so that a
search run on a determinized copy cannot learn what the seat does not know.

Rules of the contract, checked for every registered game by ``tests/test_kernel_conformance.py``:

- same ``T`` and the same seed give the same game, move for move;
- a copy is independent: applying moves to a copy never changes the original;
- before the end, ``legal`` returns at least one move, and every move it returns can be applied;
  after the end it returns 0;
- ``to_move`` is a seat in ``0 .. n_players-1``;
- ``returns`` at the end: values in [0, 1]; in a game of several players they are the win shares
  (1/k to each of k players tied first after every tie-breaker, else 0) and sum to 1;
- ``heuristic`` gives values in [0, 1] at every state;
- ``move_scores`` is finite for every legal move, deterministic, and changes neither ``S`` nor the moves;
- ``determinize(S, T, seat, rng)`` keeps ``observation(S, T, seat)`` unchanged, and two states with
  the same observation for ``seat`` become the same state for the same generator;
- the interface's random games equal the Python protocol's, move for move.

Functions that take a :class:`Kernel` as an argument (the generic agents, playouts) are compiled
once per process: numba specialises them per kernel but cannot cache that to disk, so they must
not use ``cache=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from .game import Outcome

ENDED_BY: tuple[str, ...] = ("rules", "turn_cap", "no_legal_move", "repeated_position")
"""How a game ended (the results' ``ended_by`` column; :attr:`Kernel.ended_by` returns the index):
by the rules, or by a safety stop: the turn cap (a game's ``max_turns``), a seat with no legal move
where the rules give it none, a position repeated where the game can detect one."""
RULES, TURN_CAP, NO_LEGAL_MOVE, REPEATED_POSITION = range(len(ENDED_BY))

ENDED_BY_TEXT: dict[str, str] = {
    "turn_cap": "stopped at the turn cap before the game's end",
    "no_legal_move": "stopped because a seat had no legal move",
    "repeated_position": "stopped at a repeated position",
}
"""What the terminal and the report say of the games a safety stop ended, by cause."""


def turn_cap_line(cap: str, why: str) -> str:
    """A transcript's line for a game the turn cap ``cap`` (its YAML key, and what it was set to if
    the line should say) ended: ``Ended by: the turn cap (cap), not the rules: why.``"""
    return f"Ended by: the turn cap ({cap}), not the rules: {why}."


GAME_AGENT = 16
"""The first agent code of a game's own compiled agents at a compiled table (codes below it are the
generic ones: random, the rollout policy, mcts); a game numbers its agents ``GAME_AGENT + k`` and its
``game_agent`` dispatcher plays them (:mod:`balancer.agents.mcts`, :mod:`balancer.core.table_loop`)."""

COMPLETION = "completion"
"""The tracked number (check, sweep, tune) of the share of games that ended by the rules."""


@nb.njit
def no_move_scores(S, T, moves, n, out):  # type: ignore[no-untyped-def]  # numba types it
    """``Kernel.move_scores`` of a game that gives its search no knowledge of its moves: 0 each.
    Not cached: it is compiled for every game's ``T`` type, and numba's cache index of a function
    holds all of them, so one process would fail to read types of a module it never imported."""
    for i in range(n):
        out[i] = 0.0


class Kernel(NamedTuple):
    """The compiled functions of one game's interface (each a numba dispatcher).

    ``S``: int64[:] position; ``T``: the rule table (opaque); ``rng``: numpy Generator.
    """

    to_move: Callable[..., int]
    """``(S, T) -> int``: the 0-based seat whose decision it is."""
    legal: Callable[..., int]
    """``(S, T, out) -> n``: the legal moves written to ``out[:n]`` (int64[max_moves]), in a fixed
    order; 0 once the game is over."""
    apply: Callable[..., None]
    """``(S, T, move, rng)``: play ``move`` (one of ``legal``) in place, then resolve chance with
    ``rng`` up to the next decision or the end. Does not check legality."""
    is_over: Callable[..., bool]
    """``(S, T) -> bool``."""
    scores: Callable[..., None]
    """``(S, T, out)``: points per seat so far (final at the end) into ``out`` (int64[n])."""
    returns: Callable[..., None]
    """``(S, T, out)``: at the end, the value per seat that a search backs up, into ``out``
    (float64[n], each in [0, 1]): the win share (tie-breakers included) with several players; solo,
    the game's own solo result (documented per game)."""
    heuristic: Callable[..., None]
    """``(S, T, out)``: an estimate in [0, 1] per seat of ``returns`` from any state (e.g. score
    margin scaled), for searches that stop before the end; equals ``returns`` at the end."""
    determinize: Callable[..., None]
    """``(S, T, seat, rng)``: resample in place what ``seat`` cannot see; a game without hidden
    information does nothing."""
    policy: Callable[..., int]
    """``(S, T, out, rng) -> move``: the game's cheap compiled rollout policy (uniform random unless
    the game has something better and cheap); ``out`` is scratch of ``max_moves``."""
    ended_by: Callable[..., int]
    """``(S, T) -> code``: how a finished game ended, an index into :data:`ENDED_BY`: ``RULES`` (0)
    when it ended by the rules, else the safety stop that ended it (``TURN_CAP``, ``NO_LEGAL_MOVE``,
    ``REPEATED_POSITION``). Meaningful once ``is_over``; a game without safety stops returns ``RULES``."""
    move_scores: Callable[..., None] = no_move_scores
    """``(S, T, moves, n, out)``: the game's own knowledge of the decision in ``S``: a score per
    legal move ``moves[:n]`` (as :attr:`legal` wrote them) into ``out[:n]`` (float64), for the seat to
    move, higher better, finite, on any scale (a search compares siblings only). It is the immediate
    gain the game's greedy computes (points, a placement's value, a race move's progress); for a
    decision that opens a compound turn, the best gain of a turn it can complete. Deterministic: no
    generator, and ``S`` is not changed. The default, :func:`no_move_scores`, knows nothing (zeros)."""


@dataclass(frozen=True)
class Engine:
    """A game's compiled interface as Python sees it: the kernel and the few Python-side hooks.

    compile: ``(cfg, n_players) -> T`` (cached by the game; raises ValueError for an unsupported count).
    new_state: ``(T, rng) -> S`` (int64[:]).
    n_players: ``T -> int``.
    max_moves: ``T -> int``: a bound on ``legal``'s count for this variant (the size of ``out``).
    observation: ``(S, T, seat) -> int64[:]``: everything ``seat`` can see (the whole of ``S`` for a
        game without hidden information); what ``determinize`` must keep. Used by tests.
    outcome: ``(S, T) -> Outcome``: the final accounting of a finished game (scores, tie-breakers,
        components, metrics, turns, labels).
    describe_move: ``(S, T, move) -> str``: one line for a transcript, before ``move`` is applied.
    trajectory_buffer, record_checkpoint: how a table the generic search loop plays records the game's
        trajectory (``Outcome.standings``), as the game's own table loop does; None when that loop
        records none. ``trajectory_buffer``: ``T -> array[K, n]`` of zeros, room for the most
        checkpoints a game has; ``record_checkpoint``: ``(S, T, traj, k) -> k'``, called after every
        move with the checkpoints recorded so far: when the move ended checkpoint ``k``, it writes each
        seat's standing into ``traj[k]`` and returns ``k + 1``, else ``k``.
    """

    kernel: Kernel
    compile: Callable[[Any, int], Any]
    new_state: Callable[[Any, np.random.Generator], np.ndarray]
    n_players: Callable[[Any], int]
    max_moves: Callable[[Any], int]
    observation: Callable[[np.ndarray, Any, int], np.ndarray]
    outcome: Callable[[np.ndarray, Any], Outcome]
    describe_move: Callable[[np.ndarray, Any, int], str]
    trajectory_buffer: Callable[[Any], np.ndarray] | None = None
    record_checkpoint: Callable[[np.ndarray, Any, np.ndarray, int], int] | None = None


@nb.njit(cache=True)
def ended_by_rules(S, T):  # type: ignore[no-untyped-def]  # numba types it
    """``Kernel.ended_by`` of a game that has no safety stop (it always ends by its rules): ``RULES``."""
    return RULES


def ended_by_name(kernel: Kernel, S: np.ndarray, T: Any) -> str:
    """The :data:`ENDED_BY` name of how the finished game ``S`` ended (``kernel.ended_by``)."""
    return ENDED_BY[int(kernel.ended_by(S, T))]


# --------------------------------------------------------------------------------------------------
# generic compiled helpers over any kernel (compiled per process: no cache=True, see the docstring)


@nb.njit
def uniform_move(K, S, T, out, rng):  # type: ignore[no-untyped-def]  # numba types it
    """A legal move drawn uniformly (one ``rng.random()``); -1 when the game is over."""
    n = K.legal(S, T, out)
    if n == 0:
        return -1
    return out[min(int(rng.random() * n), n - 1)]


@nb.njit
def random_playout(K, S, T, out, rng, max_moves):  # type: ignore[no-untyped-def]  # numba types it
    """Play uniformly random moves from ``S`` (in place) until the end or ``max_moves`` decisions;
    returns the number of decisions played. Chance and choices both draw from ``rng``."""
    played = 0
    while played < max_moves and not K.is_over(S, T):
        m = uniform_move(K, S, T, out, rng)
        K.apply(S, T, m, rng)
        played += 1
    return played


@nb.njit
def policy_playout(K, S, T, out, rng, max_moves):  # type: ignore[no-untyped-def]  # numba types it
    """As :func:`random_playout` with the game's rollout policy ``K.policy``."""
    played = 0
    while played < max_moves and not K.is_over(S, T):
        m = K.policy(S, T, out, rng)
        K.apply(S, T, m, rng)
        played += 1
    return played
