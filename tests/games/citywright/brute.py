"""A brute-force greedy for tests: apply every legal move and rescore the whole table."""

from __future__ import annotations

import numpy as np

import balancer.games.citywright as cw
from balancer.games.citywright.rules import State
from balancer.games.citywright.scoring import score_fast


def copy_game(game: cw.Game) -> cw.Game:
    st = State(*(a.copy() for a in game.state))
    return cw.Game(game.cfg, game.rules, game.geo, game.sp, st, np.random.default_rng(0))


def move_key(game: cw.Game, move: cw.Move, weights: np.ndarray) -> tuple[float, int]:
    """(weighted gain of the mover's table points, tie-break: 2 x tiles landed + new shape)."""
    seat = game.seat_to_move
    before = score_fast(game.state.tables[seat], game.geo, game.sp)
    empty_before = int((game.state.tables[seat] == 0).sum())
    shape = int(game.state.slots[move.slot])
    new_shape = int(move.kind == cw.PLACE and game.state.ticks[seat, shape] == 0)
    after_game = copy_game(game)
    cw.apply(after_game, move)
    after = score_fast(after_game.state.tables[seat], game.geo, game.sp)
    landed = empty_before - int((after_game.state.tables[seat] == 0).sum())
    gain = sum(w * (a - b) for w, a, b in zip(weights[:4], after, before))
    return gain, 2 * landed + new_shape


def best_keys(game: cw.Game, weights: np.ndarray) -> tuple[tuple[float, int], list[cw.Move]]:
    keys = {m: move_key(game, m, weights) for m in cw.legal_moves(game)}
    best = max(keys.values())
    return best, [m for m, k in keys.items() if abs(k[0] - best[0]) < 1e-9 and k[1] == best[1]]
