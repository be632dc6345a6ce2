"""Águeda invariants over many random games (hypothesis): 120 umbrellas always accounted for (bag +
market + boards + the solo AI's piles), coins never negative and conserved with the bank, tourists
conserved, rows filled from the left, and every game ends."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.protocol import Position
from balancer.core.seeding import game_rngs
from balancer.games.agueda.rules import umbrellas_accounted


def check_invariants(cfg, game: Position) -> None:
    s = ag.game_state(game)
    assert umbrellas_accounted(s) == 6 * cfg.umbrellas.per_colour
    assert (s.bag >= 0).all()
    assert (s.coins >= 0).all() and s.g[3] >= 0
    assert int(s.coins.sum()) + int(s.g[3]) == cfg.coins.bank
    tourists = s.suitcase + s.occ.sum(axis=1) + (1 - s.unlocked).sum(axis=1) * cfg.tourists.locked_per_mural_row
    assert (tourists == cfg.tourists.in_suitcases + 3 * cfg.tourists.locked_per_mural_row).all()
    L = cfg.board.row_length
    for seat in range(game.n_players):
        for r in range(3):
            f = int(s.fill[seat, r])
            assert 0 <= f <= L and (s.board[seat, r, :f] >= 0).all() and (s.board[seat, r, f:] == -1).all()


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    agents=st.lists(st.sampled_from(["random", "greedy"]), min_size=5, max_size=5),
)
def test_invariants_hold_through_random_games(ag_cfg, n, seed, agents):
    game = ag.SPEC.new_game(ag_cfg, n, seed)
    _, rng = game_rngs(seed)
    players = [ag.make_agent(ag_cfg, a) for a in agents[:n]]
    check_invariants(ag_cfg, game)
    for _ in range(ag.MAX_MOVES):
        if protocol.is_over(game):
            break
        seat = game.seat_to_move
        protocol.apply(game, players[seat].choose(game, seat, rng))
        check_invariants(ag_cfg, game)
    assert protocol.is_over(game)
    out = protocol.outcome(game)
    assert sum(out.components[k][0] for k in out.components) == out.scores[0]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), row_length=st.integers(3, 12))
def test_every_game_ends_whatever_the_row_length(ag_cfg, n, seed, row_length):
    """Longer rows than the bag can fill end by the empty bag (end.bag_empty_triggers_end)."""
    cfg = ag_cfg.model_copy(
        update={
            "board": ag_cfg.board.model_copy(update={"row_length": row_length, "paintbrush": [[1, row_length]] * 3})
        }
    )
    out = ag.play_game(cfg, ["random"] * n, seed)
    assert max(out.turns) <= 6 * 20 and min(out.turns) >= 1
