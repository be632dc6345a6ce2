"""Invariants over whole games (hypothesis picks the seeds and the player count): money and
resources never negative, the Backpack never above 12, a sketchbook never above 6 cards or 3 bonus
tiles, every card, bonus tile, resource, theme tile and improvement tile accounted for after every
decision, and every game ends (games of the compiled engine, through the Python protocol)."""

from __future__ import annotations

import numpy as np
import us_reference as usref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from us_reference.rules import State

from balancer.core import protocol
from balancer.games import urban_sketchers as us


def check_invariants(s: State) -> None:
    r = s.rules
    n = r.n
    for p in range(n):
        assert s.money[p] >= 0, f"seat {p + 1} money {s.money[p]}"
        assert len(s.bp[p]) <= r.backpack
        for b in range(r.books):
            assert len(s.books[p][b]) <= r.max_cards
            assert len(s.btiles[p][b]) <= r.max_tiles
        assert sum(1 for x in s.imp[p] if x) <= r.slots
        assert all(0 <= x <= 1 for x in s.opp[p])
        assert all(x >= 0 for x in s.th_up[p]) and all(x >= 0 for x in s.th_down[p])
    # resources: reserve + Backpacks = 16 of each type, none negative
    for res in range(4):
        held = sum(bp.count(res) for bp in s.bp)
        assert s.reserve[res] >= 0 and s.reserve[res] + held == r.res_per_type
    # cards: deck, discard, board, hands, sketchbooks hold each card exactly once
    cards = list(s.deck) + list(s.discard) + [c for c in s.board if c >= 0]
    for p in range(n):
        cards += s.hand[p] + [c for b in s.books[p] for c in b]
    assert sorted(cards) == list(range(r.n_cards))
    # bonus tiles: bag, display, discarded, sketchbooks
    tiles = list(s.bag) + list(s.bdiscard) + [t for t in s.display if t >= 0]
    for p in range(n):
        tiles += [t for b in s.btiles[p] for t in b]
    assert sorted(tiles) == list(range(len(r.tile_kind)))
    for t in range(4):
        assert s.theme_supply[t] >= 0
        assert s.theme_supply[t] + sum(s.th_up[p][t] + s.th_down[p][t] for p in range(n)) == r.themes_per_type
    for k in range(5):
        assert s.imp_supply[k] + sum(1 for p in range(n) if s.imp[p][k]) == r.imp_per_type
    assert 0 <= s.prestige[0] < len(r.prestige_points)


def play_checked(cfg, n: int, seed: int, agent: str, max_moves: int = 100_000) -> State:
    """A whole game of ``agent`` mirrors through the Python protocol (the compiled engine), the
    invariants checked on the position after every decision; the final position as a reference state."""
    pos = us.SPEC.new_game(cfg, n, seed)
    players = [us.make_agent(cfg, agent) for _ in range(n)]
    rng = np.random.default_rng(seed)
    check_invariants(usref.to_reference(pos.S, pos.T))
    for _ in range(max_moves):
        if protocol.is_over(pos):
            return usref.to_reference(pos.S, pos.T)
        assert protocol.legal_moves(pos), "a decision with no legal move"
        protocol.apply(pos, players[pos.seat_to_move].choose(pos, pos.seat_to_move, rng))
        check_invariants(usref.to_reference(pos.S, pos.T))
    raise AssertionError(f"game did not end in {max_moves} decisions (seed {seed})")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]))
def test_random_games_keep_the_invariants(us_cfg, seed, n):
    s = play_checked(us_cfg, n, seed, "random")
    assert s.end_triggered or s.round + 1 >= s.rules.max_rounds
    out = usref.reference_outcome(s)
    assert all(x >= 0 for v in out.components.values() for x in v)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]))
def test_greedy_games_keep_the_invariants_and_end_by_publishing(us_cfg, seed, n):
    s = play_checked(us_cfg, n, seed, "greedy")
    assert s.end_triggered, "greedy games end by the Total published token, not the safety cap"
    assert s.total_pub >= s.rules.end_total
