"""Urban Sketchers agents as the Python protocol seats them (:func:`make_agent`: on a compiled
position, returning move codes), all on the compiled engine (:mod:`.fast`, :mod:`.kernel`):

- ``random``: uniform over the legal decisions with one ``rng.random()`` (the interface's
  ``UniformAgent``).
- ``greedy`` (:class:`CompiledGreedyAgent`, :func:`.fast.choose`): one action ahead. At the choice of
  a die (and of a theme-tile pair) it tries every choice of :func:`.fast.candidate_moves` (per action
  only the cheapest die) on a copy of the state, finishes the action with its own sub-decisions, and
  keeps the choice whose resulting position has the highest :func:`.fast.position_value` for its seat
  (exact ties broken uniformly at random with the agent's generator, :func:`.fast.pick_best`). Inside
  an action:

  * Travel: heads for the board card of highest value minus the money to reach and pick it
    (shortest path; the Wanderer tile when the card is ``wander_steps`` or more steps away), picks it
    when there, ends when no card is worth its cost or the money runs out (:func:`.fast.travel_move`);
  * Supply: takes the resource type its hand lacks most (the hand's costs after discounts against
    the Backpack), stops when the Backpack is full (:func:`.fast.supply_move`);
  * every other decision (cards to sketch, in which sketchbook and order, Efficient, bonus tiles,
    funding flips, improvements, unflips, extra themes, Set Up discards): the move whose resulting
    position has the highest value, one decision ahead; exact ties broken uniformly at random.
- ``rollout`` (:class:`CompiledRolloutAgent`): flat Monte Carlo over greedy playouts from positions
  determinized for its seat (``agents.rollout`` in the YAML).

:func:`.fast.position_value` (points; weights in ``agents.greedy`` of the YAML): victory points, the
Prestige space's points, money x ``money``, resources x ``resource``, theme tiles x ``theme_tile``,
opportunity tiles face up x ``opportunity``, improvements x ``improvement`` (+ ``advanced`` each
advanced side), cards in hand x ``hand_card`` up to ``hand_cap``, and per sketchbook in progress
``book_fraction`` x what publishing it now would give (points, money, theme tiles, Prestige) plus
``bonus_tile`` per bonus tile plus ``growth`` per free card space while the game is young (scaled by
the share of the end-game total not yet published).

The readable agents these translate, decision for decision and draw for draw, are the tests' oracle
(``tests/games/urban_sketchers/us_reference/agents.py``); no run imports them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import UrbanSketchersConfig
from .rules import P_MAIN, P_OVER

AGENTS: tuple[str, ...] = ("random", "greedy")

SEARCH_AGENTS: tuple[str, ...] = ("rollout",)
"""Agents accepted by name but not listed in :data:`AGENTS` (see ``check_agent`` in the package)."""


# --------------------------------------------------------------------------------------------------
# the agents of the Python protocol (core.protocol: a Position holding the compiled state; moves are
# the interface's codes, kernel.encode)


class CompiledGreedyAgent:
    """``greedy`` on the compiled engine (:func:`.fast.choose`: the same decisions and draws as
    the readable ``GreedyAgent`` of the tests' reference), for the protocol."""

    name = "greedy"

    def __init__(self, cfg: UrbanSketchersConfig):
        self.cfg = cfg
        self._for: tuple | None = None

    def choose(self, pos, seat: int, rng: np.random.Generator) -> int:
        from . import fast, kernel

        T = pos.T
        if self._for is None or self._for[0] is not T:
            cfg, rules, _ = kernel.variant_of(T)
            self._for = (T, fast.fast_weights(self.cfg, rules), fast.workspace(T.L))
        _, weights, ws = self._for
        kind, a, b, c = fast.choose(pos.S, T.L, T.R, weights, 1, rng, ws)
        return kernel.encode_move((kind, a, b, c))


class CompiledRolloutAgent:
    """``rollout`` on the compiled engine, for the protocol: the decisions and draws of the readable
    ``RolloutAgent`` of the tests' reference (``us_reference/agents.py``; ``test_us_kernel.py`` checks
    them decision for decision), with no reference state. Inside an action the greedy decision
    (:func:`.fast.sub_move`); at the choice of a die the greedy agent's candidates
    (:func:`.fast.candidate_moves`), each valued by its turn finished greedily on a copy
    (:func:`.fast.turn_values`: the draws of the reference's ``s.clone(rng, ...)``, ``apply_move`` and
    ``finish_turn``, all from the agent's generator), ranked by that value (ties: the candidates'
    order), then the ``candidates`` best each get ``playouts`` playouts: the position determinized
    for the seat (:func:`.kernel.determinize`), the candidate applied and :func:`.fast.playout` to the
    end or ``horizon_rounds`` rounds on, chance and choices from the agent's generator; the best mean
    :func:`lead` wins (the first on a tie)."""

    name = "rollout"

    def __init__(self, cfg: UrbanSketchersConfig):
        self.cfg = cfg
        ro = cfg.agents.rollout
        self.playouts, self.candidates, self.horizon = ro.playouts, ro.candidates, ro.horizon_rounds
        self._for: tuple | None = None

    def choose(self, pos, seat: int, rng: np.random.Generator) -> int:
        from . import fast, kernel

        S, T = pos.S, pos.T
        L, R = T.L, T.R
        if self._for is None or self._for[0] is not T:
            rules = kernel.variant_of(T)[1]
            self._for = (T, fast.fast_weights(self.cfg, rules), fast.workspace(L), np.zeros((5, L.n), np.int64))
        _, weights, ws, comps = self._for
        if S[fast.G_PHASE] != P_MAIN:
            return kernel.encode_move(fast.sub_move(S, L, R, weights, rng, ws))
        m = fast.candidate_moves(S, L, R, ws.cand, ws.tmp, ws.keys, ws.opts)
        moves = ws.cand[:m].copy()
        if m == 1:
            return kernel.encode_move(moves[0])
        values = np.zeros(m)
        fast.turn_values(S, L, R, weights, moves, m, rng, ws, values)
        ranked = sorted(range(m), key=lambda i: (-float(values[i]), i))
        best, best_v = ranked[0], -1e18
        for i in ranked[: self.candidates]:
            kind, a, b, c = (int(x) for x in moves[i])
            total = 0.0
            for _ in range(self.playouts):
                W = S.copy()
                kernel.determinize(W, T, seat, rng)
                fast.apply_move(W, L, R, kind, a, b, c, rng, ws.opts)
                stop = int(W[fast.G_ROUND]) + self.horizon if self.horizon else 1 << 30
                fast.playout(W, L, R, weights, rng, ws, stop)
                total += lead(W, T, weights, seat, comps)
            if total / self.playouts > best_v:
                best, best_v = i, total / self.playouts
        return kernel.encode_move(moves[best])


def lead(S: np.ndarray, T: Any, weights: Any, p: int, comps: np.ndarray) -> float:
    """Seat p's lead over the best other seat in the compiled state ``S`` of table ``T``: final
    points once the game is over (:func:`.fast.final_components`; ``comps``: scratch int64[5, n]),
    else the greedy values of the seats' holdings (:func:`.fast.position_value`)."""
    from . import fast

    L = T.L
    if S[fast.G_PHASE] == P_OVER:
        fast.final_components(S, L, T.R, comps)
        scores: list[float] = [int(x) for x in comps.sum(axis=0)]
    else:
        scores = [float(fast.position_value(S, L, T.R, weights, q)) for q in range(L.n)]
    return scores[p] - max(scores[q] for q in range(L.n) if q != p)


def make_agent(cfg: UrbanSketchersConfig, name: str):
    """An agent of the Python protocol by name: ``random`` is the interface's uniform agent
    (:class:`balancer.core.protocol.UniformAgent`), ``greedy`` :class:`CompiledGreedyAgent`,
    ``rollout`` :class:`CompiledRolloutAgent`. ValueError for an unknown name."""
    from ...core.protocol import UniformAgent

    if name == "random":
        return UniformAgent()
    if name == "greedy":
        return CompiledGreedyAgent(cfg)
    if name == "rollout":
        return CompiledRolloutAgent(cfg)
    raise ValueError(f"unknown agent {name!r} for urban_sketchers; known: {', '.join(AGENTS + SEARCH_AGENTS)}")


__all__ = [
    "AGENTS",
    "SEARCH_AGENTS",
    "CompiledGreedyAgent",
    "CompiledRolloutAgent",
    "lead",
    "make_agent",
]
