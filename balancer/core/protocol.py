"""The Python game protocol (core/game.py), derived once from a game's compiled interface.

``new_game``/``legal_moves``/``apply``/``is_over``/``outcome`` for notebooks, tests and
``balancer play``: each is a thin call into the game's :class:`~balancer.core.kernel.Engine`, so the
Python protocol and the compiled one cannot disagree about a rule. Moves are the interface's int
codes (one decision each).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .game import Outcome
from .kernel import Engine
from .seeding import game_rngs


@dataclass
class Position:
    """A game in progress: the variant's rule table ``T``, the position ``S`` and the game's own
    chance stream. ``seat_to_move`` is 0-based."""

    engine: Engine
    cfg: Any
    T: Any
    S: np.ndarray
    rng: np.random.Generator
    _out: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))

    @property
    def n_players(self) -> int:
        return self.engine.n_players(self.T)

    @property
    def seat_to_move(self) -> int:
        return int(self.engine.kernel.to_move(self.S, self.T))

    def copy(self) -> Position:
        """An independent copy (state and chance stream)."""
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        return Position(self.engine, self.cfg, self.T, self.S.copy(), rng)


def new_game(engine: Engine, cfg: Any, n_players: int, seed: np.random.SeedSequence | int) -> Position:
    """A game after setup. ``seed`` drives only the game's own chance (child 0 of
    :func:`balancer.core.seeding.game_rngs`); agents draw from child 1. Raises ValueError for an
    unsupported player count."""
    T = engine.compile(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    return Position(engine, cfg, T, engine.new_state(T, game_rng), game_rng)


def _buffer(pos: Position) -> np.ndarray:
    if pos._out.shape[0] == 0:
        pos._out = np.zeros(max(1, pos.engine.max_moves(pos.T)), np.int64)
    return pos._out


def legal_moves(pos: Position) -> list[int]:
    """The legal moves of the seat to move, in the interface's order; [] once the game is over."""
    out = _buffer(pos)
    n = int(pos.engine.kernel.legal(pos.S, pos.T, out))
    return [int(m) for m in out[:n]]


def is_legal_move(pos: Position, move: int) -> bool:
    """True when ``move`` is one of :func:`legal_moves`."""
    out = _buffer(pos)
    n = int(pos.engine.kernel.legal(pos.S, pos.T, out))
    return bool(np.any(out[:n] == int(move)))


def apply(pos: Position, move: int) -> Position:
    """Play ``move`` in place and return the position. Raises ValueError for an illegal move."""
    if not is_legal_move(pos, move):
        raise ValueError(f"illegal move {move}: not among the {len(legal_moves(pos))} legal moves")
    pos.engine.kernel.apply(pos.S, pos.T, np.int64(move), pos.rng)
    return pos


def is_over(pos: Position) -> bool:
    return bool(pos.engine.kernel.is_over(pos.S, pos.T))


def outcome(pos: Position) -> Outcome:
    """The final accounting of a finished game (the game's ``Engine.outcome``)."""
    if not is_over(pos):
        raise ValueError("the game is not over")
    return pos.engine.outcome(pos.S, pos.T)


def describe_move(pos: Position, move: int) -> str:
    """One transcript line for ``move`` before it is applied."""
    return pos.engine.describe_move(pos.S, pos.T, int(move))


class UniformAgent:
    """The ``random`` agent of every game: a legal move drawn uniformly with one ``rng.random()``
    (the same draw as :func:`balancer.core.kernel.uniform_move`)."""

    name = "random"

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        moves = legal_moves(pos)
        if not moves:
            raise ValueError("the game is over")
        return moves[min(int(rng.random() * len(moves)), len(moves) - 1)]
