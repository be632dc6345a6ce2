"""The pruned greedy search against the same search without pruning (``exhaustive.py``).

Branch and bound may only skip moves strictly worse than the best found, so on every position the
pruned search must choose exactly the exhaustive search's move, the random tie-break included
(same tie set, same priorities), and draw from the generator exactly as often. Positions come from
seeded games of greedy agents, specialists and random agents (ragged tables) at every player count
and under both rulebook versions, at every stage of the game; each is searched with several seeds
(a new tie-break salt each time).
"""

from __future__ import annotations

import numpy as np
import pytest
from exhaustive import exhaustive_move

import balancer.games.citywright as cw
from balancer.core import protocol
from balancer.games.citywright.agents import agent_params, greedy_move, workspace
from balancer.games.citywright.rules import G_PHASE

MIX = ["greedy", "residential", "commercial", "park", "industrial"]
TURN_STEP = 5  # keep every 5th turn start of a game
SEEDS_PER_POSITION = 2


def positions(cfg, n: int, agents: list[str], seed: int) -> list[cw.Game]:
    """Copies of every TURN_STEP-th turn start of a seeded game played by ``agents``."""
    game = cw.new_game(cfg, n, seed)
    rng = np.random.default_rng(seed)
    players = [cw.make_agent(cfg, a) for a in agents]
    out, step = [], 0
    while not protocol.is_over(game):
        if game.S[G_PHASE] == 0:
            if step % TURN_STEP == seed % TURN_STEP:
                out.append(game.copy())
            step += 1
        seat = game.seat_to_move
        protocol.apply(game, players[seat].choose(game, seat, rng))
    return out


def check_same_moves(cfg, games: list[cw.Game], agents: list[str]) -> int:
    """Search every position with each agent of ``agents`` and several seeds; returns the count."""
    checked = 0
    ws = None
    for i, game in enumerate(games):
        if ws is None:
            ws = workspace(game.rules, game.T.lay.cells)
        for agent in agents:
            _, weights = agent_params(cfg, agent)
            for s in range(SEEDS_PER_POSITION):
                seed = 1000 * i + 10 * s + len(agent)
                rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
                mv_a, mv_b = np.zeros(8, np.int64), np.zeros(8, np.int64)
                S0 = game.S.copy()
                greedy_move(game.state, game.rules, game.geo, game.sp, weights, rng_a, mv_a, ws)
                exhaustive_move(game.state, game.rules, game.geo, game.sp, weights, rng_b, mv_b)
                assert np.array_equal(game.S, S0), "the search must not change the position"
                assert mv_a.tolist() == mv_b.tolist(), (agent, i, s)
                # the same draws: both generators are at the same point of their stream
                assert rng_a.random() == rng_b.random(), (agent, i, s)
                checked += 1
    return checked


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_pruned_search_equals_exhaustive_search(cw_cfg, n):
    games = positions(cw_cfg, n, ["greedy"] * n, 10 + n)
    games += positions(cw_cfg, n, (MIX * 2)[n : 2 * n], 20 + n)
    games += positions(cw_cfg, n, ["random"] * n, 30 + n)
    assert len(games) >= 8
    assert check_same_moves(cw_cfg, games, MIX) == len(games) * len(MIX) * SEEDS_PER_POSITION


@pytest.mark.parametrize("n", [2, 3])
def test_pruned_search_equals_exhaustive_search_v1_0(cw_cfg_v10, n):
    # v1.0: a different residential bound (largest cluster size x 2) and, at 2 players, crowded
    # tables with forced discards and discard-for-tile
    games = positions(cw_cfg_v10, n, (MIX * 2)[n : 2 * n], 40 + n)
    games += positions(cw_cfg_v10, n, ["random"] * n, 50 + n)
    assert len(games) >= 8
    assert check_same_moves(cw_cfg_v10, games, ["greedy", "residential"]) == len(games) * 2 * SEEDS_PER_POSITION


@pytest.mark.parametrize("ruling", ["every_player", "no_one"])
def test_pruned_search_equals_exhaustive_search_with_achievements(ruling):
    """Achievements on (configs/citywright/achievements.yaml) under both Tree-lined rulings: the
    bound on Tree-lined and the all-parks-zero case (the early turns) prune nothing the exhaustive
    search would choose."""
    from test_oracle import achievements_cfg

    cfg = achievements_cfg(ruling)
    games = positions(cfg, 3, (MIX * 2)[3:6], 60)
    games += positions(cfg, 3, ["random"] * 3, 61)
    games += positions(cfg, 4, ["greedy"] * 4, 62)
    assert check_same_moves(cfg, games, ["greedy", "park"]) == len(games) * 2 * SEEDS_PER_POSITION
