"""Whole turns for the Águeda rule tests, written in the compiled interface's decisions.

A rule test reads best as one whole turn ("take line 2, place Y R B in row 1, attract 2 tourists to
row 1"); the interface (balancer/games/agueda/kernel.py) asks it as up to four decisions. ``Turn``
is the whole turn; :func:`decisions` writes it as the decisions the kernel asks, one by one on a copy
of the game (each must be among the kernel's legal moves), and :func:`play` plays them on the game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.protocol import Position
from balancer.games.agueda.kernel import last_turn, plan_code, turn_count
from balancer.games.agueda.rules import (
    MAX_LINE,
    MOVE_LEN,
    MV_K,
    MV_LINE,
    MV_ORDER,
    MV_ROW,
    MV_TCOL,
    MV_TOURIST,
    MV_TROW,
    TAKE_BREAK,
)


class Turn(NamedTuple):
    """One whole turn. ``line`` -1: no line could be taken. ``order``: the umbrellas' colour codes
    in placing order. ``tourist``: TAKE_BREAK (0), ATTRACT_ONE (1) or ATTRACT_TWO (2) at board row
    ``tourist_row``, scoring ``tourist_colour`` (ATTRACT_ONE only)."""

    line: int
    row: int
    order: tuple[int, ...] = ()
    tourist: int = TAKE_BREAK
    tourist_row: int = -1
    tourist_colour: int = -1

    def array(self) -> np.ndarray:
        """The rules' int64[MOVE_LEN] form of the turn (what rules.apply_move plays)."""
        mv = np.full(MOVE_LEN, -1, np.int64)
        mv[MV_LINE], mv[MV_ROW], mv[MV_K] = self.line, self.row, len(self.order)
        mv[MV_TOURIST], mv[MV_TROW], mv[MV_TCOL] = self.tourist, self.tourist_row, self.tourist_colour
        for j, c in enumerate(self.order[:MAX_LINE]):
            mv[MV_ORDER + j] = c
        if len(self.order) > MAX_LINE:
            mv[MV_K] = MAX_LINE + 1  # never legal
        return mv

    @classmethod
    def from_array(cls, mv: np.ndarray) -> Turn:
        k = int(mv[MV_K])
        return cls(
            int(mv[MV_LINE]),
            int(mv[MV_ROW]),
            tuple(int(c) for c in mv[MV_ORDER : MV_ORDER + k]),
            int(mv[MV_TOURIST]),
            int(mv[MV_TROW]),
            int(mv[MV_TCOL]),
        )


def decisions(game: Position, turn: Turn) -> list[int] | None:
    """The kernel's decisions that play ``turn`` from ``game`` (at the turn's first decision), or
    None when one of them is not legal. The game is not changed (a copy is stepped)."""
    pos = game.copy()
    start = turn_count(pos.S)
    mv = turn.array()
    out: list[int] = []
    while turn_count(pos.S) == start and not protocol.is_over(pos):
        code = int(plan_code(pos.S, pos.T, mv))
        if code < 0 or not protocol.is_legal_move(pos, code):
            return None
        out.append(code)
        protocol.apply(pos, code)
    # decisions with a single option were taken by the kernel: the turn played must be the one asked
    # (the same colours, placed the same way; the order of what goes back into the bag is free)
    played = Turn.from_array(last_turn(pos.S))
    if turn.line >= 0:
        st = ag.game_state(game)
        placed = min(len(turn.order), int(game.T.rules.row_len - st.fill[game.seat_to_move, turn.row]))
        same = (played.line, played.row, sorted(played.order), played.order[:placed]) == (
            turn.line,
            turn.row,
            sorted(turn.order),
            turn.order[:placed],
        )
    else:
        same = played.line == -1 and turn.order == ()
    if not same or played[3:] != turn[3:]:
        return None
    return out


def is_legal_turn(game: Position, turn: Turn) -> bool:
    return decisions(game, turn) is not None


def play(game: Position, turn: Turn) -> Position:
    """Play ``turn`` decision by decision; ValueError when it is not legal."""
    steps = decisions(game, turn)
    if steps is None:
        raise ValueError(f"illegal turn {turn}")
    for code in steps:
        protocol.apply(game, code)
    return game


def all_turns(game: Position) -> list[Turn]:
    """Every whole turn the decision tree of the seat to move reaches (each leaf's last_turn), in
    the kernel's order: the full list of compound moves, for counting."""
    if protocol.is_over(game):
        return []
    start = turn_count(game.S)
    found: list[Turn] = []

    def walk(pos: Position) -> None:
        if turn_count(pos.S) != start or protocol.is_over(pos):
            found.append(Turn.from_array(last_turn(pos.S)))
            return
        for code in protocol.legal_moves(pos):
            child = pos.copy()
            protocol.apply(child, code)
            walk(child)

    walk(game)
    return found
