"""One information-set MCTS for every game, over the compiled game interface (:mod:`balancer.core.kernel`).

The algorithm is single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley & Whitehouse,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012), with max^n backups for 1 to 5 seats:

- one tree for the information set of the searching seat (the seat to move at the root); a node is
  a sequence of moves from the root, its children keyed by move code;
- every iteration starts from a fresh copy of the root state, determinized for the searching seat
  (``K.determinize``), so that what the seat cannot see is resampled each time and never read;
- descent: at a node, the moves legal *in this determinization* are looked up among the node's
  children (an open-addressing hash table from (node, move) to child, O(1) per move however many
  moves there are). Each child found is *available* this time (its availability count goes up by
  one). If some legal move has no child yet, one of them, drawn uniformly (or, with expansion by
  prior, the one with the best ``K.move_scores``), is expanded (subject to progressive widening,
  when on) and the descent stops; otherwise the child maximising UCT

      mean_p(child) + c * sqrt(ln(availability(child)) / visits(child)) [+ b * prior / (visits + 1)]

  is followed, where ``p`` is the seat to move at the node in this determinization and ``mean_p``
  that seat's mean value (max^n: every seat picks by its own value, never to help another seat);
  the availability count stands in for the parent's visit count (a child is compared only over the
  iterations in which it could have been chosen); the bracketed progressive bias (weight b, off at
  0) adds the child's prior, its move score scaled to [0, 1] among the moves legal at its node when
  it was expanded;
- rollout from the new node with uniform random moves, the game's ``K.policy``, or the best move by
  ``K.move_scores`` (a uniform one with probability epsilon), to the end
  (``K.returns``) or, with a depth limit, for that many decisions, after which ``K.heuristic``
  estimates the values;
- back-up: the value vector (one value in [0, 1] per seat; solo, the seat's solo value) is added to
  every node on the path, each node keeping the sum per seat;
- implicit minimax backups (Lanctot, Winands, Pepels & Sturtevant, CIG 2014; the ``minimax`` weight
  alpha, off at 0, when nothing of them is computed): a new node also gets ``K.heuristic`` of the
  state its move leads to, every node above it on the path the value vector of its child best for
  the seat to move there (max^n over the children grown so far, whatever the determinization), and
  selection's ``mean_p`` becomes ``(1 - alpha) mean_p + alpha minimax_p``.

The move played is the root child with the most visits (or the best mean value for the searching
seat, per :class:`~balancer.agents.params.MCTSParams`). Ties, in selection and at the end, are
broken uniformly with the searcher's generator, so a seed fixes the whole search. Chance inside the
search (``apply``, ``determinize``, rollouts, ties) draws only from the generator given to
:func:`search`, never from the real game's stream; the state searched is copied, never changed.

Everything compiled works over preallocated arrays (:class:`Workspace`, sized from the budget: one
node per iteration plus the root). Functions here that take a kernel are specialised by numba per
kernel; numba cannot cache a function whose argument is a tuple of compiled functions, so
:func:`compiled_for` compiles, per kernel, a copy of :func:`search` (and of the uniform draw) that
reaches the kernel through a module (cached to disk: compiled once per machine, 30 s to a minute for
a game's kernel, then loaded in well under a second; ``benchmarks/bench_mcts.py`` prints it). The
agent and :func:`play_table` (a Python loop over compiled calls) call those copies. docs/mcts.md is the user's account of all this.

**What a game provides** to be played by this module: its :class:`~balancer.core.kernel.Engine`
(the kernel's compiled functions, ``n_players``, ``max_moves``, ``new_state``); nothing else.
To seat its own compiled agents at a table with a search (:func:`play_table`), a game also provides one
dispatcher ``game_agent(code, S, T, row, out, rng) -> k`` that plays the agent numbered ``code``
(``code >= GAME_AGENT``; ``row``: float64[N_PARAMS], that agent's own parameters, e.g. weights;
``out``: int64 scratch of ``max_moves``). It writes the ``k >= 1`` decisions it chooses into
``out[:k]`` (one decision, or a whole turn planned at once, applied in order) and returns ``k``, or a
negative number for a code it does not know. The names of those agents with their codes and rows
come from the game's ``seat_agent`` hook (:mod:`balancer.agents.tables`).
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from ..core.kernel import GAME_AGENT, Engine, uniform_move
from ..core.numba_cache import cache_folder, renamed_copy, sources_digest
from ..core.protocol import Position
from ..core.seeding import game_rngs
from .params import (
    EXPANSION_PRIOR,
    FINAL_VALUE,
    MAX_ITERATIONS,
    N_PARAMS,
    P_BIAS,
    P_DEPTH,
    P_EPSILON,
    P_EXPANSION,
    P_EXPLORATION,
    P_FINAL,
    P_ITERATIONS,
    P_MINIMAX,
    P_ROLLOUT,
    P_WIDENING,
    P_WIDENING_EXPONENT,
    ROLLOUT_POLICY,
    ROLLOUT_SCORES,
    MCTSParams,
    params_for_name,
)

# ws.info fields (what the last search did; for tests, benchmarks and debugging)
I_NODES = 0
"""Nodes in the tree (the root included)."""
I_ITERATIONS = 1
"""Iterations run (0 when the root had a single legal move, played without a search)."""
I_MAX_DEPTH = 2
"""Deepest node reached (the root is depth 0)."""
I_ROOT_SEAT = 3
"""The searching seat."""
I_ROLLOUT_DECISIONS = 4
"""Decisions played in rollouts, summed over the iterations."""
N_INFO = 5

# seat kinds of a compiled table (play_table)
RANDOM = 0
"""A uniformly random legal move (one ``rng.random()``, as :class:`balancer.core.protocol.UniformAgent`)."""
POLICY = 1
"""The game's compiled rollout policy ``K.policy``."""
MCTS = 2
""":func:`search` with the seat's row of parameters."""
"""Codes from here on are the game's own compiled agents, played by its ``game_agent`` dispatcher."""

_M1 = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 (golden-ratio multiplier) as a signed int64
_M2 = np.int64(-4658895280553007687)  # 0xBF58476D1CE4E5B9 (splitmix64's first multiplier)


# columns of Workspace.nodes
N_VISITS = 0
"""Iterations through the node."""
N_AVAIL = 1
"""Iterations in which the node's move was legal at its parent (availability)."""
N_MOVE = 2
"""The move from the parent (-1 at the root)."""
N_PARENT = 3
N_FIRST_CHILD = 4
"""-1 for none; the children are a linked list through N_NEXT_SIBLING, newest first."""
N_NEXT_SIBLING = 5
N_CHILDREN = 6
N_NODE_COLUMNS = 7

# columns of Workspace.table, the open-addressing hash table (parent, move) -> child
H_NODE = 0
H_MOVE = 1
H_CHILD = 2
"""-1 for an empty slot."""


class Workspace(NamedTuple):
    """Preallocated arrays of one search (reused from one decision to the next).

    N = nodes (budget + 1), H = hash slots (a power of two >= 2N), P = seats, L = state length,
    M = ``max_moves``. Node 0 is the root. (Few arrays, so that the compiled code stays small.)
    """

    nodes: np.ndarray  # int64[N, N_NODE_COLUMNS]: per node the N_* columns
    value: np.ndarray  # float64[N, P]: per node the sum of backed-up values per seat
    table: np.ndarray  # int64[H, 3]: per slot (parent, move, child), child -1 when empty
    state: np.ndarray  # int64[L]: the iteration's determinized copy of the root state
    moves: np.ndarray  # int64[M]: legal moves scratch
    untried: np.ndarray  # int64[M]: legal moves without a child at the current node
    path: np.ndarray  # int64[N + 1]: nodes of the current descent
    ret: np.ndarray  # float64[P]: the value vector being backed up
    info: np.ndarray  # int64[N_INFO]: what the last search did (I_* fields)
    prior: np.ndarray  # float64[N]: per node its move's score scaled to [0, 1] among its siblings
    scores: np.ndarray  # float64[M]: move scores scratch (Kernel.move_scores)
    ident: np.ndarray  # int64[M]: 0, 1, ..., M - 1, never written (the indices scored rollouts range over)
    minimax: np.ndarray  # float64[N, P]: per node the implicit minimax value per seat (params' minimax > 0)
    mover: np.ndarray  # int64[N]: per node the seat to move there when last descended through (minimax > 0)


def _table_size(iterations: int) -> int:
    """Hash slots for a budget: the smallest power of two >= 2 (budget + 1) (load <= 1/2)."""
    size = 1
    while size < 2 * (iterations + 1):
        size *= 2
    return size


def make_workspace(iterations: int, n_players: int, state_len: int, max_moves: int) -> Workspace:
    """A workspace for searches of up to ``iterations`` iterations (ValueError outside 1 ..
    MAX_ITERATIONS, or for a non-positive size)."""
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be 1 to {MAX_ITERATIONS:,}, got {iterations}")
    if n_players < 1 or state_len < 1 or max_moves < 1:
        raise ValueError(f"bad workspace sizes: {n_players} players, state of {state_len}, {max_moves} moves")
    n, h = iterations + 1, _table_size(iterations)
    table = np.zeros((h, 3), np.int64)
    table[:, H_CHILD] = -1
    return Workspace(
        nodes=np.zeros((n, N_NODE_COLUMNS), np.int64),
        value=np.zeros((n, n_players), np.float64),
        table=table,
        state=np.zeros(state_len, np.int64),
        moves=np.zeros(max_moves, np.int64),
        untried=np.zeros(max_moves, np.int64),
        path=np.zeros(n + 1, np.int64),
        ret=np.zeros(n_players, np.float64),
        info=np.zeros(N_INFO, np.int64),
        prior=np.zeros(n, np.float64),
        scores=np.zeros(max_moves, np.float64),
        ident=np.arange(max_moves, dtype=np.int64),
        minimax=np.zeros((n, n_players), np.float64),
        mover=np.zeros(n, np.int64),
    )


def workspace_for(engine: Engine, T: Any, S: np.ndarray, iterations: int) -> Workspace:
    """A workspace for searches of up to ``iterations`` iterations in positions like ``S`` of ``T``."""
    return make_workspace(iterations, int(engine.n_players(T)), int(S.shape[0]), max(1, int(engine.max_moves(T))))


# --------------------------------------------------------------------------------------------------
# the tree: nodes and the hash table (node, move) -> child


@nb.njit(cache=True)
def _slot(node, move, mask):
    """First probe slot of (node, move): a multiply-xorshift mix of both, masked to the table."""
    h = (node * _M1) ^ move
    h = (h ^ (h >> 31)) * _M2
    h = h ^ (h >> 29)
    return h & mask


@nb.njit(cache=True)
def find_child(table, mask, node, move):
    """The child of ``node`` reached by ``move``, or -1 (linear probing from :func:`_slot`)."""
    i = _slot(node, move, mask)
    while True:
        c = table[i, H_CHILD]
        if c < 0:
            return -1
        if table[i, H_NODE] == node and table[i, H_MOVE] == move:
            return c
        i = (i + 1) & mask


@nb.njit(cache=True)
def add_child(nodes, value, table, info, mask, node, move):
    """Create the child of ``node`` reached by ``move`` (which must not exist yet) and return it:
    zero statistics, availability 1 (it is available in the iteration that creates it)."""
    c = info[I_NODES]
    info[I_NODES] = c + 1
    nodes[c, N_VISITS] = 0
    nodes[c, N_AVAIL] = 1
    nodes[c, N_MOVE] = move
    nodes[c, N_PARENT] = node
    nodes[c, N_FIRST_CHILD] = -1
    nodes[c, N_CHILDREN] = 0
    nodes[c, N_NEXT_SIBLING] = nodes[node, N_FIRST_CHILD]
    nodes[node, N_FIRST_CHILD] = c
    nodes[node, N_CHILDREN] += 1
    value[c, :] = 0.0
    i = _slot(node, move, mask)
    while table[i, H_CHILD] >= 0:
        i = (i + 1) & mask
    table[i, H_NODE] = node
    table[i, H_MOVE] = move
    table[i, H_CHILD] = c
    return c


@nb.njit(cache=True)
def reset_tree(nodes, value, table, info, iterations):
    """Empty the tree (root only) and the part of the hash table a search of ``iterations`` uses;
    returns the table's mask."""
    size = 1
    while size < 2 * (iterations + 1):
        size *= 2
    table[:size, H_CHILD] = -1
    info[:] = 0
    info[I_NODES] = 1
    nodes[0, :] = 0
    nodes[0, N_MOVE] = -1
    nodes[0, N_PARENT] = -1
    nodes[0, N_FIRST_CHILD] = -1
    nodes[0, N_NEXT_SIBLING] = -1
    value[0, :] = 0.0
    return size - 1


@nb.njit(cache=True)
def pick_root(nodes, value, seat, by_value, rng):
    """The root child with the most visits (or the best mean for ``seat``), ties uniform."""
    best = -np.inf
    best_move = -1
    ties = 0
    c = nodes[0, N_FIRST_CHILD]
    while c >= 0:
        if by_value:
            key = value[c, seat] / nodes[c, N_VISITS]
        else:
            key = float(nodes[c, N_VISITS])
        if key > best:
            best, best_move, ties = key, nodes[c, N_MOVE], 1
        elif key == best:
            ties += 1
            if rng.random() * ties < 1.0:
                best_move = nodes[c, N_MOVE]
        c = nodes[c, N_NEXT_SIBLING]
    return best_move


# --------------------------------------------------------------------------------------------------
# the search (compiled per kernel; cached to disk through compiled_for's copies)


@nb.njit(inline="always")  # into search: no library level of its own (issue 47)
def rollout(K, S, T, out, rng, kind, depth, values):
    """Play from ``S`` (in place) with ``K.policy`` (``kind == ROLLOUT_POLICY``) or uniform random
    moves, to the end (``values`` = ``K.returns``) or, when ``depth >= 0``, for at most ``depth``
    decisions (``values`` = ``K.heuristic`` if the game is not over by then). Returns the number of
    decisions played."""
    played = 0
    while not K.is_over(S, T):
        if depth >= 0 and played >= depth:
            K.heuristic(S, T, values)
            return played
        if kind == ROLLOUT_POLICY:
            m = K.policy(S, T, out, rng)
        else:
            # uniform_move's draw, with the contract checked: a move exists before the end
            n = K.legal(S, T, out)
            if n == 0:
                raise ValueError("mcts: the kernel gives no legal move before the end (a broken contract)")
            m = out[min(int(rng.random() * n), n - 1)]
        K.apply(S, T, m, rng)
        played += 1
    K.returns(S, T, values)
    return played


@nb.njit(cache=True)
def best_of(scores, idx, k, rng):
    """The position j in ``idx[:k]`` whose ``scores[idx[j]]`` is the largest, ties drawn uniformly
    with ``rng`` (one draw per tie met)."""
    best = -np.inf
    pick = 0
    ties = 0
    for j in range(k):
        x = scores[idx[j]]
        if x > best:
            best, pick, ties = x, j, 1
        elif x == best:
            ties += 1
            if rng.random() * ties < 1.0:
                pick = j
    return pick


@nb.njit(cache=True)
def score_range(scores, n):
    """(min, max) of ``scores[:n]``."""
    lo = np.inf
    hi = -np.inf
    for j in range(n):
        lo = min(lo, scores[j])
        hi = max(hi, scores[j])
    return lo, hi


@nb.njit(inline="always")  # into search: no library level of its own (issue 47)
def scored_rollout(K, S, T, out, scores, ident, rng, epsilon, depth, values):
    """As :func:`rollout`, each move the best by ``K.move_scores`` (ties uniform), or with
    probability ``epsilon`` a uniform one (one ``rng.random()`` per decision decides which).
    ``ident``: int64 ``0, 1, ..., max_moves - 1`` (the indices :func:`best_of` ranges over)."""
    played = 0
    while not K.is_over(S, T):
        if depth >= 0 and played >= depth:
            K.heuristic(S, T, values)
            return played
        n = K.legal(S, T, out)
        if n == 0:
            raise ValueError("mcts: the kernel gives no legal move before the end (a broken contract)")
        if rng.random() < epsilon:
            m = out[min(int(rng.random() * n), n - 1)]
        else:
            K.move_scores(S, T, out, n, scores)
            m = out[best_of(scores, ident, n, rng)]
        K.apply(S, T, m, rng)
        played += 1
    K.returns(S, T, values)
    return played


@nb.njit(cache=True)
def minimax_backup(nodes, mm, mover, path, plen):
    """Implicit minimax back-up along ``path[:plen]``, leaf first: each node above the leaf takes the
    value vector of its child best for the seat to move there (``mover``; max^n; on a tie the newest
    such child, the first in the child list); the leaf keeps the heuristic value it got when it was
    expanded."""
    for j in range(plen - 2, -1, -1):
        nd = path[j]
        s = mover[nd]
        best = -np.inf
        best_child = -1
        c = nodes[nd, N_FIRST_CHILD]
        while c >= 0:
            if mm[c, s] > best:
                best, best_child = mm[c, s], c
            c = nodes[c, N_NEXT_SIBLING]
        mm[nd, :] = mm[best_child, :]


@nb.njit(inline="always")  # into each kernel's cached copy: no library level of its own (issue 47)
def search(K, S, T, params, rng, ws):
    """The move SO-ISMCTS chooses for the seat to move in ``S`` (see the module docstring).

    K: the game's Kernel; S: int64[L] position (not modified); T: its rule table; params: float64
    row of :meth:`MCTSParams.to_array`; rng: the searcher's generator (every draw of the search);
    ws: a :class:`Workspace` of at least ``params[P_ITERATIONS]`` iterations, ``P`` seats, state
    length L. Returns -1 when the game is over, and the only legal move, without searching, when
    there is one. After the call ``ws`` holds the tree (``ws.info``: what was done).
    """
    nodes, value, table, info = ws.nodes, ws.value, ws.table, ws.info
    moves, untried, path, ret, work = ws.moves, ws.untried, ws.path, ws.ret, ws.state
    prior, scores, ident = ws.prior, ws.scores, ws.ident
    mm, mover = ws.minimax, ws.mover
    if K.is_over(S, T):
        info[:] = 0
        return -1
    n_root = K.legal(S, T, moves)
    if n_root == 0:
        raise ValueError("mcts: the kernel gives no legal move before the end (a broken contract)")
    if n_root == 1:
        reset_tree(nodes, value, table, info, 1)
        info[I_ROOT_SEAT] = K.to_move(S, T)
        return moves[0]
    iterations = int(params[P_ITERATIONS])
    if iterations < 1 or iterations + 1 > nodes.shape[0]:
        raise ValueError("mcts: the budget is below 1 or beyond the workspace's size")
    c_uct = params[P_EXPLORATION]
    kind = int(params[P_ROLLOUT])
    depth = int(params[P_DEPTH])
    widen = params[P_WIDENING]
    widen_exp = params[P_WIDENING_EXPONENT]
    bias = params[P_BIAS]
    by_prior = int(params[P_EXPANSION]) == EXPANSION_PRIOR
    epsilon = params[P_EPSILON]
    alpha = params[P_MINIMAX]
    implicit = alpha > 0.0
    knows = bias > 0.0 or by_prior
    n_seats = value.shape[1]
    mask = reset_tree(nodes, value, table, info, iterations)
    seat = K.to_move(S, T)
    info[I_ROOT_SEAT] = seat
    max_depth = 0
    rolled = 0
    for _ in range(iterations):
        for i in range(S.shape[0]):  # (a loop: numba compiles W[:] = S's broadcasting slowly)
            work[i] = S[i]
        K.determinize(work, T, seat, rng)
        node = 0
        path[0] = 0
        plen = 1
        while not K.is_over(work, T):
            n = K.legal(work, T, moves)
            if n == 0:
                raise ValueError("mcts: the kernel gives no legal move before the end (a broken contract)")
            p = K.to_move(work, T)
            if implicit:
                mover[node] = p
            n_untried = 0
            n_found = 0
            best = -np.inf
            best_child = -1
            ties = 0
            for i in range(n):
                m = moves[i]
                ch = find_child(table, mask, node, m)
                if ch < 0:
                    untried[n_untried] = i  # the move's index in moves (and scores)
                    n_untried += 1
                    continue
                nodes[ch, N_AVAIL] += 1
                n_found += 1
                v = nodes[ch, N_VISITS]
                if implicit:  # (1 - alpha) x mean + alpha x the implicit minimax value
                    q = (1.0 - alpha) * (value[ch, p] / v) + alpha * mm[ch, p]
                else:
                    q = value[ch, p] / v
                u = q + c_uct * math.sqrt(math.log(nodes[ch, N_AVAIL]) / v)
                if bias > 0.0:
                    u += bias * prior[ch] / (v + 1.0)
                if u > best:
                    best, best_child, ties = u, ch, 1
                elif u == best:
                    ties += 1
                    if rng.random() * ties < 1.0:
                        best_child = ch
            expand = n_untried > 0
            if expand and widen > 0.0 and n_found > 0:
                expand = n_found < max(1.0, widen * (nodes[node, N_VISITS] + 1.0) ** widen_exp)
            if expand:
                if knows:  # the game's scores of the legal moves here (Kernel.move_scores)
                    K.move_scores(work, T, moves, n, scores)
                if by_prior:  # the best-scored untried move
                    i_m = untried[best_of(scores, untried, n_untried, rng)]
                elif n_untried == 1:
                    i_m = untried[0]
                else:
                    i_m = untried[min(int(rng.random() * n_untried), n_untried - 1)]
                m = moves[i_m]
                ch = add_child(nodes, value, table, info, mask, node, m)
                if knows:  # its prior: its score scaled to [0, 1] among the moves legal here
                    lo, hi = score_range(scores, n)
                    prior[ch] = (scores[i_m] - lo) / (hi - lo) if hi > lo else 0.0
                K.apply(work, T, m, rng)
                if implicit:  # the new leaf's implicit minimax value: the heuristic where it leads
                    K.heuristic(work, T, ret)
                    for s in range(n_seats):
                        mm[ch, s] = ret[s]
                path[plen] = ch
                plen += 1
                break
            K.apply(work, T, nodes[best_child, N_MOVE], rng)
            node = best_child
            path[plen] = node
            plen += 1
        if plen - 1 > max_depth:
            max_depth = plen - 1
        if K.is_over(work, T):
            K.returns(work, T, ret)
        elif kind == ROLLOUT_SCORES:
            rolled += scored_rollout(K, work, T, moves, scores, ident, rng, epsilon, depth, ret)
        else:
            rolled += rollout(K, work, T, moves, rng, kind, depth, ret)
        for j in range(plen):
            nd = path[j]
            nodes[nd, N_VISITS] += 1
            for s in range(n_seats):
                value[nd, s] += ret[s]
        if implicit:
            minimax_backup(nodes, mm, mover, path, plen)
    info[I_ITERATIONS] = iterations
    info[I_MAX_DEPTH] = max_depth
    info[I_ROLLOUT_DECISIONS] = rolled
    return pick_root(nodes, value, seat, int(params[P_FINAL]) == FINAL_VALUE, rng)


@nb.njit
def no_game_agent(code, S, T, row, out, rng):
    """The ``game_agent`` of a game without compiled agents of its own: knows no code."""
    return -1


def play_table(
    K: Any,
    T: Any,
    S: np.ndarray,
    kinds: np.ndarray,
    params: np.ndarray,
    game_rng: np.random.Generator,
    agent_rng: np.random.Generator,
    ws: Workspace,
    max_decisions: int,
    log: np.ndarray,
    after_move: Callable[[np.ndarray, Any], None] | None = None,
) -> int:
    """Play the game in ``S`` (in place) to the end with one agent per seat; returns the decisions
    played (``max_decisions`` when the game did not end by then). ``after_move(S, T)``: called after
    every move (a trajectory's recorder, :class:`~balancer.agents.tables.Trajectory`).

    K: a :class:`CompiledSearch` (the kernel's ``apply`` and ``policy``, the game's ``game_agent``,
    and the cached copies of :func:`search`, of the uniform draw and of the seat to move).
    kinds: int64[P] per seat RANDOM, POLICY, MCTS
    or a game agent code (>= GAME_AGENT, played by ``K.game_agent(code, S, T, params[seat], out,
    rng)``, whose k decisions are applied in order and count k); params: float64[P, N_PARAMS] per
    seat (MCTS parameters, or a game agent's own row); game_rng: the game's own chance (``apply``);
    agent_rng: every agent's choices, the seats drawing from it in turn order (as the Python
    protocol's agents share child 1 of :func:`balancer.core.seeding.game_rngs`); ws: a workspace for
    the largest MCTS budget at the table; log: int64[k], the first k moves are written to it.

    The loop itself is Python over compiled calls: a decision of a search costs milliseconds, so a
    compiled loop would save nothing there, and compiling one (the search, the game's own agents and
    its rules inlined into one function) cost more than every other compiled piece of a game
    (docs/speed.md, First use). A table without a search seat is played by the game's registered
    table in the one compiled table loop (:mod:`balancer.core.table_loop`), checked against this
    loop game for game.
    """
    out = ws.untried
    played = 0
    n_log = log.shape[0]
    next_seat, apply = K.seat, K.apply
    while played < max_decisions:
        seat = int(next_seat(S, T))
        if seat < 0:
            break
        kind = int(kinds[seat])
        if kind == RANDOM:
            m = K.uniform(S, T, out, agent_rng)
        elif kind == POLICY:
            m = K.policy(S, T, out, agent_rng)
        elif kind == MCTS:
            m = K.search(S, T, params[seat], agent_rng, ws)
        else:
            k = int(K.game_agent(kind, S, T, params[seat], out, agent_rng))
            if k < 1:
                raise ValueError("play_table: the game's game_agent does not know this agent code")
            for i in range(k - 1):
                if played < n_log:
                    log[played] = out[i]
                apply(S, T, out[i], game_rng)
                played += 1
                if after_move is not None:
                    after_move(S, T)
            m = out[k - 1]
        if played < n_log:
            log[played] = m
        apply(S, T, m, game_rng)
        played += 1
        if after_move is not None:
            after_move(S, T)
    return played


# --------------------------------------------------------------------------------------------------
# compiled once per machine: the search of one kernel, cached to disk
#
# numba cannot cache a function that receives compiled functions as an argument (a tuple of
# dispatchers is lowered as pointers to Python objects, "dynamic globals"). It can cache one that
# reaches them through a *module*: a module is a compile-time constant, and ``K.legal(...)`` on it is
# a static call, as ``np.sum`` is. So :func:`compiled_for` puts a kernel's functions on a module
# object of their own and compiles copies of the templates below whose global ``K`` is that
# module, each under a name of its own (the kernel's module and a digest of every source its code
# is compiled from), so numba caches each kernel's search in a file of its own in
# ``balancer/agents/__pycache__`` and a change to any of those sources gives a new name.


def _search_entry(S, T, params, rng, ws):  # template: K is the global of each copy
    return search(K, S, T, params, rng, ws)  # noqa: F821


def _uniform_entry(S, T, out, rng):  # template: K is the global of each copy
    return uniform_move(K, S, T, out, rng)  # noqa: F821


def _seat_entry(S, T):  # template: K is the global of each copy
    # the seat to move, or -1 when the game is over: one call from Python instead of two (each call
    # passes the rule table, tens of microseconds for Citywright's)
    if K.is_over(S, T):  # noqa: F821
        return -1
    return K.to_move(S, T)  # noqa: F821


class CompiledSearch(NamedTuple):
    """One kernel's functions with its search and uniform draw compiled (or loaded from numba's
    cache) on first call, and the game's ``game_agent``: what :func:`play_table` plays through."""

    search: Any
    """``(S, T, params, rng, ws) -> move``: :func:`search` over the kernel."""
    uniform: Any
    """``(S, T, out, rng) -> move``: :func:`balancer.core.kernel.uniform_move` over the kernel."""
    seat: Any
    """``(S, T) -> seat``: the seat to move, or -1 when the game is over."""
    apply: Any
    policy: Any
    game_agent: Any
    """The game's ``game_agent`` dispatcher (:func:`no_game_agent` for a game without one)."""


_COPIES: dict[int, tuple[Any, Any, Any, Any]] = {}
"""``(kernel, search, uniform, seat)``: the compiled copies :func:`compiled_for` made in this process, by
kernel identity (the kernel kept, so that its identity is never another's)."""


def _cache_dir() -> Path:
    """Where numba caches this module's compiled copies (``__pycache__``, or under ``NUMBA_CACHE_DIR``)."""
    return cache_folder(Path(__file__).resolve().parent)


_RETIRED = ("play",)
"""Kinds of copies no longer made (the compiled table loop before 3 Dec 2026): their files go."""


def _code_of(fn: Any) -> Any:
    """The Python function a dispatcher compiles (the function itself if it is one)."""
    return getattr(fn, "py_func", fn)


def _kernel_tag(functions: Mapping[str, Any]) -> tuple[str, str]:
    """(name, digest) of one kernel's compiled copies. The name is the module of its ``legal`` and 8
    hex digits of which function fills each field: one name per kernel, however many kernels a
    module holds (a game's kernel with another ``move_scores`` is another kernel). The digest (16 hex
    digits) is of every ``.py`` file in the folders of those functions' modules, of this package and
    of ``balancer/core``: one digest per version of the sources."""
    fields = hashlib.sha256()
    folders = {Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "core"}
    for field, fn in sorted(functions.items()):
        code = _code_of(fn)
        fields.update(f"{field}={code.__module__}.{code.__qualname__};".encode())
        module_file = getattr(sys.modules.get(code.__module__), "__file__", None)
        if module_file:
            folders.add(Path(module_file).resolve().parent)
    sources = hashlib.sha256()
    for folder in sorted(folders):
        sources.update(sources_digest(folder).encode())
    name = re.sub(r"\W", "_", _code_of(functions["legal"]).__module__) + "_" + fields.hexdigest()[:8]
    return name, sources.hexdigest()[:16]


_TAGS: dict[int, tuple[Any, str, str]] = {}
"""``(kernel, name, digest)`` of :func:`_kernel_tag` by kernel identity: the sources are read once
per process (the kernel kept, so that its identity is never another's)."""


def _tag_of(kernel: Any) -> tuple[str, str]:
    """:func:`_kernel_tag` of ``kernel``'s functions, computed once per process."""
    known = _TAGS.get(id(kernel))
    if known is None:
        known = _TAGS[id(kernel)] = (kernel, *_kernel_tag(kernel._asdict()))
    return known[1], known[2]


def _drop_other_versions(kind: str, prefix: str, digest: str) -> None:
    """Delete cache files of this kernel's copies (``prefix``: its name) compiled from other
    versions of its sources, and every file of a retired kind of copy."""
    try:
        for path in _cache_dir().glob(f"mcts._{kind}__{prefix}__*"):
            if digest not in path.name:
                path.unlink(missing_ok=True)
        for retired in _RETIRED:
            for path in _cache_dir().glob(f"mcts._{retired}__*"):
                path.unlink(missing_ok=True)
    except OSError:
        pass


def _has_cache_index(dispatcher: Any) -> bool:
    """Whether numba's cache holds an index for ``dispatcher`` (a compiled function with
    ``cache=True``); False when it cannot tell."""
    try:
        return Path(dispatcher._cache._cache_file._index_path).exists()
    except AttributeError:
        return False


def is_cached(kernel: Any, game_agent: Any = None) -> bool:
    """Whether numba's cache holds the search :func:`compiled_for` makes for ``kernel``, for its
    sources as they are now, and ``game_agent`` (when given), so that a run's first MCTS game loads
    them instead of compiling them."""
    prefix, digest = _tag_of(kernel)
    searched = any(_cache_dir().glob(f"mcts._search__{prefix}__{digest}-*.nbi"))
    return searched and (game_agent is None or _has_cache_index(game_agent))


def compiled_for(kernel: Any, game_agent: Any = None) -> CompiledSearch:
    """The search, uniform draw and table of ``kernel`` (a :class:`~balancer.core.kernel.Kernel`)
    with the game's ``game_agent`` (default :func:`no_game_agent`). The search and the draw are
    cached to disk by numba: compiled once per machine and version of the sources, then loaded in
    every process (see the comment above). A kernel with a closure among its functions is compiled
    in every process, never cached."""
    agent = game_agent if game_agent is not None else no_game_agent
    copies = _COPIES.get(id(kernel))
    if copies is None:
        copies = _COPIES[id(kernel)] = (kernel, *_copies_of(kernel))
    _, search_copy, uniform_copy, seat_copy = copies
    return CompiledSearch(search_copy, uniform_copy, seat_copy, kernel.apply, kernel.policy, agent)


def _copies_of(kernel: Any) -> tuple[Any, Any, Any]:
    """numba dispatchers of :func:`search`, of the uniform draw and of the seat to move over
    ``kernel``, whose global
    ``K`` is a module holding the kernel's functions (compiled on first call or loaded)."""
    functions = kernel._asdict()
    prefix, digest = _tag_of(kernel)
    # a function made by a factory (a closure) is named by its code, not by what it closes over: two
    # such kernels would share a cache file, so theirs are compiled in every process instead
    cache = not any(getattr(_code_of(fn), "__closure__", None) for fn in functions.values())
    namespace = types.ModuleType(f"balancer.agents.mcts.kernel_{prefix}")
    for field, fn in functions.items():
        setattr(namespace, field, fn)

    def copy(template: Any, kind: str) -> Any:
        _drop_other_versions(kind, prefix, digest)
        return nb.njit(cache=cache)(renamed_copy(template, f"_{kind}__{prefix}__{digest}", {"K": namespace}))

    return copy(_search_entry, "search"), copy(_uniform_entry, "uniform"), copy(_seat_entry, "seat")


# --------------------------------------------------------------------------------------------------
# Python side


def root_children(ws: Workspace) -> list[tuple[int, int, int, np.ndarray]]:
    """The root's children after a search: ``(move, visits, availability, mean value per seat)``,
    in creation order."""
    rows = []
    c = int(ws.nodes[0, N_FIRST_CHILD])
    while c >= 0:
        v = int(ws.nodes[c, N_VISITS])
        rows.append((int(ws.nodes[c, N_MOVE]), v, int(ws.nodes[c, N_AVAIL]), ws.value[c] / max(v, 1)))
        c = int(ws.nodes[c, N_NEXT_SIBLING])
    return rows[::-1]


class MCTSAgent:
    """SO-ISMCTS as an agent of the Python protocol (:class:`balancer.core.protocol.Position`).

    engine: the game's compiled interface; T: the rule table it plays (None: the position's own
    ``pos.T``, for a ``make_agent(cfg, name)`` that does not know the player count yet); params: the
    search's parameters. The workspace is allocated on the first decision and kept.
    """

    def __init__(self, engine: Engine, T: Any = None, params: MCTSParams | None = None, name: str | None = None):
        self.engine = engine
        self.T = T
        self.params = params if params is not None else MCTSParams()
        self.name = name or f"mcts@{self.params.iterations}"
        self._row = self.params.to_array()
        self._ws: Workspace | None = None

    def workspace(self, pos: Position) -> Workspace:
        """The agent's workspace, (re)allocated for ``pos``'s shapes when needed."""
        T = self.T if self.T is not None else pos.T
        n, length, m = int(self.engine.n_players(T)), int(pos.S.shape[0]), max(1, int(self.engine.max_moves(T)))
        ws = self._ws
        if ws is None or ws.value.shape[1] != n or ws.state.shape[0] != length or ws.moves.shape[0] != m:
            ws = self._ws = make_workspace(self.params.iterations, n, length, m)
        return ws

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        """The searched move for ``seat`` (0-based, the seat to move) in ``pos``; every draw comes
        from ``rng``; ``pos`` is not changed. ValueError when the game is over or ``seat`` is not
        to move."""
        T = self.T if self.T is not None else pos.T
        kernel = self.engine.kernel
        if kernel.is_over(pos.S, T):
            raise ValueError("the game is over")
        to_move = int(kernel.to_move(pos.S, T))
        if seat != to_move:
            raise ValueError(f"mcts asked to choose for seat {seat} but seat {to_move} is to move")
        return int(compiled_for(kernel).search(pos.S, T, self._row, rng, self.workspace(pos)))


@dataclass(frozen=True)
class TablePlan:
    """What :func:`play_table` needs to know of the agents at a table: per seat a kind code and a
    row of MCTS parameters, and the largest MCTS budget (the workspace's size; 1 without MCTS)."""

    names: tuple[str, ...]
    kinds: np.ndarray
    params: np.ndarray
    max_iterations: int


def table_plan(
    names: Sequence[str],
    base: MCTSParams,
    game_agents: Mapping[str, int] | None = None,
    policy_names: Sequence[str] = (),
) -> TablePlan:
    """The plan of a table seating ``names`` (one per seat): ``random``, ``mcts``, ``mcts@N``, any
    of ``policy_names`` (the game's compiled policy ``K.policy``) or any of ``game_agents`` (name ->
    code >= GAME_AGENT). ``base`` is the game's ``agents.mcts``. ValueError naming the agent for an
    unknown or malformed name."""
    game_agents = dict(game_agents or {})
    for name, code in game_agents.items():
        if code < GAME_AGENT:
            raise ValueError(f"game agent {name!r}: code {code} is below {GAME_AGENT}")
    kinds = np.zeros(len(names), np.int64)
    rows = np.tile(base.to_array(), (len(names), 1))
    top = 1
    for seat, name in enumerate(names):
        params = params_for_name(name, base)
        if params is not None:
            kinds[seat] = MCTS
            rows[seat] = params.to_array()
            top = max(top, params.iterations)
        elif name == "random":
            kinds[seat] = RANDOM
        elif name in policy_names:
            kinds[seat] = POLICY
        elif name in game_agents:
            kinds[seat] = game_agents[name]
        else:
            known = ["random", "mcts", "mcts@N", *policy_names, *game_agents]
            raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(known)}")
    if rows.shape[1] != N_PARAMS:
        raise AssertionError("MCTSParams.to_array and N_PARAMS disagree")
    return TablePlan(tuple(names), kinds, rows, top)


def play_kernel_game(
    engine: Engine,
    T: Any,
    plan: TablePlan,
    seed: np.random.SeedSequence | int,
    game_agent: Any = None,
    max_decisions: int = 10_000_000,
    log_moves: int = 0,
    after_move: Callable[[np.ndarray, Any], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """One whole game at a compiled table: ``(final state S, the first log_moves moves, decisions)``.

    The game's chance comes from child 0 of :func:`balancer.core.seeding.game_rngs` (``new_state``,
    ``apply``), every agent's choices from child 1, as in the Python protocol, so the game equals
    the one the protocol plays with the same agents (``MCTSAgent``, ``UniformAgent``). RuntimeError
    if the game has not ended after ``max_decisions``. ``engine.outcome(S, T)`` gives its accounting.
    ``after_move``: passed to :func:`play_table`.
    """
    n = int(engine.n_players(T))
    if len(plan.kinds) != n:
        raise ValueError(f"the plan seats {len(plan.kinds)} agents for {n} players")
    game_rng, agent_rng = game_rngs(seed)
    S = engine.new_state(T, game_rng)
    ws = workspace_for(engine, T, S, plan.max_iterations)
    log = np.zeros(log_moves, np.int64)
    played = play_table(
        compiled_for(engine.kernel, game_agent),
        T,
        S,
        plan.kinds,
        plan.params,
        game_rng,
        agent_rng,
        ws,
        max_decisions,
        log,
        after_move,
    )
    if not engine.kernel.is_over(S, T):
        raise RuntimeError(f"the game did not end within {max_decisions:,} decisions")
    return S, log, int(played)
