"""A brute-force greedy for tests: play every legal turn (every sequence of the compiled interface's
decisions, ``turns.all_turn_decisions``) on a copy and rescore the whole table."""

from __future__ import annotations

import numpy as np
from turns import all_turn_decisions, play_decisions

import balancer.games.citywright as cw
from balancer.games.citywright.kernel import PLACE0
from balancer.games.citywright.scoring import score_fast


def copy_game(game: cw.Game) -> cw.Game:
    return game.copy()


def move_key(game: cw.Game, turn: tuple[int, ...], weights: np.ndarray) -> tuple[float, int]:
    """(weighted gain of the mover's table points, tie-break: 2 x tiles landed + new shape) of the
    turn whose decisions are ``turn``."""
    seat = game.seat_to_move
    before = score_fast(game.state.tables[seat], game.geo, game.sp)
    empty_before = int((game.state.tables[seat] == 0).sum())
    placed = len(turn) > 1 and turn[1] >= PLACE0
    new_shape = int(placed and game.state.ticks[seat, int(game.state.slots[turn[0]])] == 0)
    after_game = play_decisions(game.copy(), turn)
    after = score_fast(after_game.state.tables[seat], game.geo, game.sp)
    landed = empty_before - int((after_game.state.tables[seat] == 0).sum())
    gain = sum(w * (a - b) for w, a, b in zip(weights[:4], after, before))
    return gain, 2 * landed + new_shape


def best_keys(game: cw.Game, weights: np.ndarray) -> tuple[tuple[float, int], list[tuple[int, ...]]]:
    """The best key over every legal turn, and the turns (as decisions) that reach it."""
    keys = {t: move_key(game, t, weights) for t in all_turn_decisions(game)}
    best = max(keys.values())
    return best, [t for t, k in keys.items() if abs(k[0] - best[0]) < 1e-9 and k[1] == best[1]]
