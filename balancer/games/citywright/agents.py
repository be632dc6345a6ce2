"""Citywright agents: random, greedy and the four district specialists.

- ``random``: uniform over the compiled interface's legal moves at each decision of a turn
  (``kernel.py``: the slot, then the placement (or forced discard, or §9.2 discard-for-tile), then
  the tile order, then the free pick's district), one ``rng.random()`` per decision
  (:func:`balancer.core.kernel.uniform_move`).
- ``greedy``: plays the move with the largest gain in its own final score this turn under the
  variant's own scoring (§6), achievements (§7) included, then the tie-breakers (§8: more tiles
  landed, i.e. fewer empty cells; then a new distinct shape). It searches every move: every ruler,
  orientation, position, tile assignment and free pick; exact ties are broken uniformly at random
  (each move gets a priority hashed from a salt the agent draws from its generator once a turn;
  a ruler held by k slots counts k times). Branch and bound skips placements whose upper bound on
  the gain cannot reach the best move found so far (rulers best bound first, each skipped whole
  when its bound over all its placements falls short; then each placement, free pick and prefix of
  a tile order); it skips only moves strictly worse than the best found, so the chosen move and the
  generator's draws are the same as an exhaustive search's (``tests/games/citywright/test_pruning.py``).
  How the bounds work: the comments in :func:`~.greedy.greedy_search` (``greedy.py``, shared with the
  kernel's move scores); what it costs: ``make bench``.
- ``residential``, ``commercial``, ``park``, ``industrial``: greedy on a weighted gain, the weights
  per scoring category from the config (``agents.specialists``).

Every random choice draws from the numpy Generator passed in. The search is compiled with numba.
The greedy search keeps its own pruned move generator (it plans a whole turn at once); the turn it
picks is played as the interface's decisions (:func:`~.kernel.turn_decisions`), and a test checks over
many positions that each of them is one of the interface's legal moves.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.table_loop import register_table
from . import kernel
from .config import DISTRICTS, CitywrightConfig
from .greedy import greedy_move, workspace, workspace_for
from .kernel import checkpoints_of
from .rules import FINAL_COLUMNS, G_OVER, final_rows, views
from .scoring import score_all

__all__ = ["AGENTS", "agent_params", "game_agent", "greedy_move", "play_new_game", "seat_agent", "workspace"]

AGENTS: tuple[str, ...] = ("random", "greedy", *DISTRICTS)
"""Agent names understood by :func:`agent_params`."""

RANDOM, GREEDY = 0, 1


def agent_params(cfg: CitywrightConfig, name: str) -> tuple[int, np.ndarray]:
    """(kind, weights float64[5]) of an agent; weights are residential, commercial, park,
    industrial and achievements. Raises ValueError for an unknown name."""
    if name == "random":
        return RANDOM, np.zeros(5)
    if name == "greedy":
        return GREEDY, np.ones(5)
    if name in DISTRICTS:
        w = getattr(cfg.agents.specialists, name)
        return GREEDY, np.array([w[d] for d in DISTRICTS] + [1.0])
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")


@nb.njit(cache=True, inline="always")  # no library level of its own above the rules (issue 47)
def play_to_end(S, T, kinds, weights, game_rng, agent_rng, traj):
    """Play the game in buffer ``S`` to its end through the compiled interface. Seat s's agent is
    ``kinds[s]`` (RANDOM: uniform over ``kernel.legal``, one ``agent_rng.random()`` per decision, as
    :func:`balancer.core.kernel.uniform_move`; GREEDY: :func:`greedy_move` with ``weights[s]``,
    planned at the start of its turn and played as :func:`~.kernel.turn_decisions`). The agents draw
    from ``agent_rng``, the game's own chance (deals) from ``game_rng``. ``traj``: int64[K, n] with
    K = :func:`~.kernel.checkpoints_of`, filled with the game's trajectory
    (:func:`~.kernel.record_checkpoint`), or
    int64[0, n] to record none; recording draws nothing and changes no decision."""
    rules = T.rules
    n = rules.n_players
    record = traj.shape[0] > 0
    done = 0  # checkpoints recorded
    out = np.zeros(T.max_moves, np.int64)
    any_greedy = False
    for s in range(n):
        if kinds[s] != RANDOM:
            any_greedy = True
    if not any_greedy:
        # a table of random agents needs no search workspace
        while S[G_OVER] == 0:
            k = kernel.legal(S, T, out)
            kernel.apply(S, T, out[min(int(agent_rng.random() * k), k - 1)], game_rng)
            if record:
                done = kernel.record_checkpoint(S, T, traj, done)
        return
    mv = np.zeros(8, np.int64)
    dec = np.zeros(4, np.int64)
    st = views(S, T.lay)
    ws = workspace_for(T)
    while S[G_OVER] == 0:
        seat = kernel.to_move(S, T)
        if kinds[seat] == RANDOM:
            k = kernel.legal(S, T, out)
            kernel.apply(S, T, out[min(int(agent_rng.random() * k), k - 1)], game_rng)
        else:
            # a greedy seat always starts its turn here: every turn ends before the next seat moves
            greedy_move(st, rules, T.geo, T.sp, weights[seat], agent_rng, mv, ws)
            for i in range(kernel.turn_decisions(S, T, mv, dec)):
                kernel.apply(S, T, dec[i], game_rng)
        if record:
            done = kernel.record_checkpoint(S, T, traj, done)


@nb.njit(cache=True, inline="always")  # no library level of its own above the rules (issue 47)
def play_new_game(T, kinds, weights, game_rng, agent_rng, traj):
    """Set up (§3) and play one whole game in a single compiled call, its trajectory into ``traj``
    (:func:`play_to_end`); returns its :func:`~balancer.games.citywright.rules.final_rows`
    (int64[n, 12]). Only the rows cross back into Python."""
    S = kernel.new_state(T, game_rng)
    play_to_end(S, T, kinds, weights, game_rng, agent_rng, traj)
    st = views(S, T.lay)
    return final_rows(st, T.rules, score_all(st.tables, T.geo, T.sp))


@nb.njit(cache=True, inline="always")  # no library level of its own above the rules (issue 47)
def play_seated(T, kinds, weights, ws, game_rng, agent_rng, record):
    """Citywright's table for the core loop (:mod:`balancer.core.table_loop`): one game set up and
    played by :func:`play_new_game` (seat s: ``kinds[s]``, RANDOM or GREEDY, with ``weights[s]``).
    ``record`` (int64[:func:`record_length`], seat-major): its :func:`~.rules.final_rows`
    (n x len(FINAL_COLUMNS)), then its trajectory (K x n, K = :func:`~.kernel.checkpoints_of`: each seat's
    score at each checkpoint; a record of the final rows alone records none). ``ws``: unused."""
    n = T.rules.n_players
    width = n * len(FINAL_COLUMNS)
    traj = record[width:].reshape(((record.shape[0] - width) // n, n))  # K rows, or none
    record[:width] = play_new_game(T, kinds, weights, game_rng, agent_rng, traj).ravel()


def record_length(rules, trajectories: bool = True) -> int:
    """The length of :func:`play_seated`'s record for ``rules``: final rows, then the trajectory
    (without ``trajectories`` none: :func:`play_seated` then records none)."""
    return rules.n_players * (len(FINAL_COLUMNS) + (checkpoints_of(rules) if trajectories else 0))


register_table(kernel.Compiled, play_seated)


# --------------------------------------------------------------------------------------------------
# Seats beside MCTS (GameSpec.seat_agent, game_agent): the greedy agents as the compiled table's game agents

GAME_AGENT_CODE = 16 + GREEDY
"""The code of a greedy seat at a compiled table (the table's first game agent code, ``GAME_AGENT`` 16, + GREEDY)."""


def seat_agent(cfg: CitywrightConfig, name: str) -> tuple[int, np.ndarray] | None:
    """(code, weights float64[5]) of a greedy agent (``greedy`` or a specialist) for a compiled
    table with MCTS seats; None for ``random`` (the table plays it itself). ValueError for an unknown name."""
    kind, weights = agent_params(cfg, name)
    return None if kind == RANDOM else (GAME_AGENT_CODE, weights)


@nb.njit(cache=True)
def game_agent(code, S, T, row, out, rng):
    """A greedy seat's whole turn at a compiled table: :func:`greedy_move` with weights ``row[:5]``
    from the start of the seat's turn, written as its decisions (:func:`~.kernel.turn_decisions`)
    into ``out``; returns their count, or -1 for a code that is not greedy's."""
    if code != GAME_AGENT_CODE:
        return -1
    mv = np.zeros(8, np.int64)
    dec = np.zeros(4, np.int64)
    w = row[:5].copy()
    greedy_move(views(S, T.lay), T.rules, T.geo, T.sp, w, rng, mv, workspace_for(T))
    k = kernel.turn_decisions(S, T, mv, dec)
    for i in range(k):
        out[i] = dec[i]
    return k
