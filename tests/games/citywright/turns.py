"""Whole turns for rule tests: a turn written as the rules' move array, turned into the compiled
interface's decisions (``kernel.py``) and played or checked through the Python protocol.

A :class:`Move` is a whole turn (``rules.py``: kind, slot, placement, districts on the landed
non-star cells, the free pick's district); :func:`decisions` gives the interface's decisions that play
it, and :func:`play_turn` / :func:`is_legal_turn` play or check them one by one against
``protocol.legal_moves`` (so every rule a test checks is the interface's). :func:`all_turns` lists every
legal turn by walking the interface's decisions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import balancer.games.citywright as cw
from balancer.core import protocol
from balancer.games.citywright.kernel import (
    D4T0,
    DRAFT,
    FORCED_DISCARD,
    ORDER0,
    PICK0,
    PLACE0,
    turn_array,
    turn_decisions,
)
from balancer.games.citywright.rules import DISCARD_FOR_TILE, FORCED, G_PHASE, MS_INDEX, N_SEQ, PLACE, SLOT_LINES


class Move(NamedTuple):
    """A whole turn. ``districts`` land on the placement's non-star cells in order; ``star`` is the
    free pick's district (five-cell rulers whose star lands, else ignored). For DISCARD_FOR_TILE,
    ``placement`` is the cell and ``districts[0]`` the tile. FORCED with slot -1: every slot is empty
    and the turn is lost."""

    kind: int
    slot: int
    placement: int = 0
    districts: tuple[int, ...] = ()
    star: int = 0

    def array(self) -> np.ndarray:
        mv = np.zeros(8, np.int64)
        mv[0], mv[1], mv[2] = self.kind, self.slot, self.placement
        for j, d in enumerate(self.districts[:4]):
            mv[3 + j] = d
        mv[7] = self.star
        return mv


def move_of(game: cw.Game, decisions: list[int] | tuple[int, ...]) -> Move:
    """The :class:`Move` that ``decisions`` play from ``game`` (at the start of a turn); the star
    district is 0 unless the star lands."""
    mv = turn_array(game.S, game.T, list(decisions))
    kind = int(mv[0])
    if kind == FORCED:
        return Move(FORCED, int(mv[1]))
    if kind == DISCARD_FOR_TILE:
        return Move(kind, int(mv[1]), int(mv[2]), (int(mv[3]),))
    p = int(mv[2])
    k = int(game.rules.pl_k[p])
    return Move(PLACE, int(mv[1]), p, tuple(int(d) for d in mv[3 : 3 + k]), int(mv[7]))


def decisions(game: cw.Game, move: Move) -> list[int] | None:
    """The interface's decisions that play ``move`` from ``game``, or None when no sequence of
    decisions plays exactly that turn (an unknown kind, a slot out of range, tiles the line cannot
    give in a turn whose tile order is not a decision). Legality is checked when they are played."""
    if move.kind not in (PLACE, FORCED, DISCARD_FOR_TILE) or not -1 <= move.slot < 20:
        return None
    if move.slot == -1 and move.kind != FORCED:
        return None
    if move.kind == PLACE and not 0 <= move.placement < len(game.rules.pl_k):
        return None
    out = np.zeros(4, np.int64)
    k = int(turn_decisions(game.S, game.T, move.array(), out))
    dec = [int(d) for d in out[:k]]
    if move.kind == PLACE:
        # the tile order is no decision when the line allows only one: the move must be that one
        landed = move_of(game, dec).districts
        if list(landed) != list(move.districts[: len(landed)]):
            return None
    return dec


def is_legal_turn(game: cw.Game, move: Move) -> bool:
    """True when ``move``'s decisions are each legal in turn and together end the turn."""
    dec = decisions(game, move)
    if dec is None:
        return False
    probe = game.copy()
    for i, d in enumerate(dec):
        if protocol.is_over(probe) or not protocol.is_legal_move(probe, d):
            return False
        protocol.apply(probe, d)
        if probe.S[G_PHASE] == DRAFT and i < len(dec) - 1:
            return False
    return bool(probe.S[G_PHASE] == DRAFT)


def play_turn(game: cw.Game, move: Move) -> cw.Game:
    """Play ``move`` decision by decision; ValueError (and ``game`` untouched) when it is not legal."""
    if not is_legal_turn(game, move):
        raise ValueError(f"illegal turn {move}")
    for d in decisions(game, move):
        protocol.apply(game, d)
    return game


def play_decisions(game: cw.Game, dec: list[int] | tuple[int, ...]) -> cw.Game:
    for d in dec:
        protocol.apply(game, d)
    return game


def all_turn_decisions(game: cw.Game) -> list[tuple[int, ...]]:
    """Every legal turn of the seat to move, as its decisions, by walking the interface."""
    out: list[tuple[int, ...]] = []

    def walk(pos: cw.Game, prefix: tuple[int, ...]) -> None:
        for d in protocol.legal_moves(pos):
            child = pos.copy()
            protocol.apply(child, d)
            if child.S[G_PHASE] == DRAFT:
                out.append(prefix + (d,))
            else:
                walk(child, prefix + (d,))

    if not protocol.is_over(game):
        walk(game, ())
    return out


def all_turns(game: cw.Game) -> list[Move]:
    """Every legal turn of the seat to move, as :class:`Move`."""
    return [move_of(game, dec) for dec in all_turn_decisions(game)]


def count_turns(game: cw.Game) -> int:
    """How many legal turns the seat to move has (:func:`all_turns`' length, counted without walking)."""
    st, rules = game.state, game.rules
    if protocol.is_over(game):
        return 0
    filled = np.uint64(sum(1 << int(c) for c in np.flatnonzero(st.tables[game.seat_to_move])))
    empty = int((st.tables[game.seat_to_move] == 0).sum())
    total = 0
    for slot in range(20):
        shape = int(st.slots[slot])
        if shape < 0:
            continue
        counts = [0] * 5
        for c in SLOT_LINES[slot]:
            counts[int(st.site[c])] += 1
        ms = MS_INDEX[counts[1], counts[2], counts[3], counts[4]]
        lo, hi = int(rules.pl_off[shape]), int(rules.pl_off[shape + 1])
        free = (rules.pl_mask[lo:hi] & filled) == 0
        orders = N_SEQ[ms, rules.pl_k[lo:hi].astype(np.int64)]
        picks = (
            np.where(rules.pl_star[lo:hi] >= 0, len(set(int(x) for x in st.site)), 1) if rules.shape_five[shape] else 1
        )
        n = int((free * orders * picks).sum())
        total += n if n else 1
        if rules.discard_for_tile and slot >= 16:
            total += 4 * empty
    return total if total else 1


def decision_kind(code: int) -> str:
    """What a decision code of the placement phase says: 'place', 'forced' or 'd4t'."""
    if code == FORCED_DISCARD:
        return "forced"
    if D4T0 <= code < PLACE0:
        return "d4t"
    if code >= PLACE0:
        return "place"
    return "order" if code >= ORDER0 else ("pick" if code >= PICK0 else "slot")
