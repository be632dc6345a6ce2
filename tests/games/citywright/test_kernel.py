"""Citywright's compiled interface (``kernel.py``): the decision encoding on hand-built positions,
determinize, returns and the heuristic; the greedy agents' turns are legal decision by decision;
greedy tables play exactly the games of the engine before the interface.

The generic contracts (same seed same game, copies, every legal move applies, determinize keeps
the observation, random games equal the protocol's) are checked for every game by
``tests/test_kernel_conformance.py``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from turns import all_turn_decisions, count_turns

import balancer.games.citywright as cw
from balancer.core import protocol
from balancer.core.seeding import game_seed
from balancer.games import get_spec
from balancer.games.citywright.kernel import (
    D4T0,
    DRAFT,
    FORCED_DISCARD,
    KERNEL,
    ORDER,
    ORDER0,
    PASS,
    PICK,
    PICK0,
    PLACE0,
    PLACEMENT,
    observation,
)
from balancer.games.citywright.rules import G_PHASE, G_SLOT, SLOT_LINES

R, C, P, I = 1, 2, 3, 4
TL, TR, BR, BL = 16, 17, 18, 19
DATA = Path(__file__).resolve().parent / "data"


def sid(cfg, name: str) -> int:
    return cfg.rulers.names.index(name)


def placements(game: cw.Game, shape: int) -> list[int]:
    return list(range(int(game.rules.pl_off[shape]), int(game.rules.pl_off[shape + 1])))


def find_placement(game: cw.Game, shape: int, cells: set[int], star: int = -1) -> int:
    found = [
        p
        for p in placements(game, shape)
        if {int(c) for c in game.rules.pl_cells[p, : game.rules.pl_k[p]]} == cells
        and int(game.rules.pl_star[p]) == star
    ]
    assert len(found) == 1
    return found[0]


def decode_order(code: int, k: int) -> tuple[int, ...]:
    code -= ORDER0
    out = []
    for _ in range(k):
        out.append(code % 5)
        code //= 5
    return tuple(out)


# --------------------------------------------------------------------------------------------------
# the decisions of a turn


def test_a_turn_starts_with_the_draft_of_any_filled_slot(cw_cfg):
    # §5 step 1 "Take any one ruler from any slot": after setup all 20 slots hold a ruler (§3.5)
    game = cw.new_game(cw_cfg, 3, 1)
    assert protocol.legal_moves(game) == list(range(20))
    game.state.slots[[2, 7, 19]] = -1
    assert protocol.legal_moves(game) == [s for s in range(20) if s not in (2, 7, 19)]


def test_every_placement_of_the_drafted_ruler_is_a_decision_on_an_empty_table(cw_cfg):
    # on an empty table every placement of the placement table lands (each lands >= 1 tile, §5);
    # an edge ruler at three players has no other option (no forced discard, no §9.2)
    game = cw.new_game(cw_cfg, 3, 2)
    O = sid(cw_cfg, "O")
    game.state.slots[0] = O
    protocol.apply(game, 0)
    assert game.S[G_PHASE] == PLACEMENT and game.S[G_SLOT] == 0 and game.seat_to_move == 0
    assert protocol.legal_moves(game) == [PLACE0 + p for p in placements(game, O)]
    assert len(protocol.legal_moves(game)) == 64  # the O: top-left corner at rows -1..6 x columns -1..6


def test_two_players_may_discard_a_corner_ruler_for_any_tile_on_any_empty_cell(cw_cfg):
    # §9.2: a corner ruler's placements, then one option per empty cell and district (4 x 47 here)
    game = cw.new_game(cw_cfg, 2, 3)
    game.state.tables[0][[0, 48]] = P
    protocol.apply(game, TL)
    moves = protocol.legal_moves(game)
    shape = int(game.state.slots[TL])
    free = [p for p in placements(game, shape) if int(game.rules.pl_mask[p]) & (1 | 1 << 48) == 0]
    d4t = [D4T0 + 4 * c + d for c in range(49) if c not in (0, 48) for d in range(4)]
    assert moves == [PLACE0 + p for p in free] + d4t
    protocol.apply(game, D4T0 + 4 * 24 + (I - 1))  # an industrial tile on cell 24 (row 4, column 4)
    st = game.state
    assert st.tables[0][24] == I and st.gone[TL] == 1 and st.slots[TL] == -1
    assert game.S[G_PHASE] == DRAFT and game.seat_to_move == 1


def test_the_tile_order_is_a_decision_among_the_distinct_orders(cw_cfg):
    # §5 "Assign tiles freely": an O landing 4 cells with the line R, R, C, P can take the tiles in
    # 4! / 2! = 12 distinct orders; each is a decision, and the one chosen lands cell by cell
    game = cw.new_game(cw_cfg, 3, 4)
    st = game.state
    st.site[:] = [R, R, C, P, R, R, C, P, C, C, P, I, I, I, I, P]
    O = sid(cw_cfg, "O")
    st.slots[0] = O
    p = find_placement(game, O, {0, 1, 7, 8})
    protocol.apply(game, 0)
    protocol.apply(game, PLACE0 + p)
    assert game.S[G_PHASE] == ORDER
    moves = protocol.legal_moves(game)
    orders = [decode_order(m, 4) for m in moves]
    assert len(moves) == 12 and sorted(orders) == sorted(set(permutations((R, R, C, P))))
    choice = next(m for m, o in zip(moves, orders) if o == (C, R, P, R))
    protocol.apply(game, choice)
    assert [int(st.tables[0][c]) for c in (0, 1, 7, 8)] == [C, R, P, R]
    assert game.S[G_PHASE] == DRAFT and game.seat_to_move == 1


def test_no_order_decision_when_the_tiles_are_alike(cw_cfg):
    # a line of four R gives one order only: choosing the placement plays the turn
    game = cw.new_game(cw_cfg, 3, 5)
    st = game.state
    st.site[:] = [R, R, R, R, C, C, C, C, P, P, P, P, I, I, I, I]
    I_ = sid(cw_cfg, "I")
    st.slots[0] = I_
    p = find_placement(game, I_, {0, 1, 2, 3})
    protocol.apply(game, 0)
    protocol.apply(game, PLACE0 + p)
    assert game.S[G_PHASE] == DRAFT and [int(x) for x in st.tables[0][:4]] == [R] * 4


def test_the_free_pick_is_a_decision_only_when_the_star_lands(cw_cfg):
    # §5: the free pick goes on the star cell (any district on the site board: 4 options);
    # Q11: when the star overhangs the pick is lost, so there is nothing to choose
    game = cw.new_game(cw_cfg, 3, 7)
    st = game.state
    T5 = sid(cw_cfg, "T5")
    st.slots[TL] = T5
    st.site[:] = [R, R, R, C, C, C, C, P, P, P, P, I, I, I, R, I]  # the TL diagonal 0, 5, 10, 15: R, C, P, I
    on = find_placement(game, T5, {0, 2, 8, 15}, star=1)
    protocol.apply(game, TL)
    protocol.apply(game, PLACE0 + on)
    protocol.apply(game, protocol.legal_moves(game)[0])
    assert game.S[G_PHASE] == PICK and protocol.legal_moves(game) == [PICK0, PICK0 + 1, PICK0 + 2, PICK0 + 3]
    protocol.apply(game, PICK0 + P - 1)
    assert st.tables[0][1] == P and game.S[G_PHASE] == DRAFT
    # the next seat: T5 upside down, its bar and star below the table, stem at cells 35, 42
    st.slots[BR] = T5
    off = find_placement(game, T5, {35, 42}, star=-1)
    protocol.apply(game, BR)
    protocol.apply(game, PLACE0 + off)
    assert game.S[G_PHASE] == ORDER
    protocol.apply(game, protocol.legal_moves(game)[0])
    assert game.S[G_PHASE] == DRAFT and game.seat_to_move == 2
    assert int((st.tables[1] != 0).sum()) == 2 and st.stats[1, 0] == 3


def test_a_ruler_without_placement_offers_only_its_forced_discard(cw_cfg):
    # §5 No legal placement: a full table; the drafted ruler's one option is the forced discard
    game = cw.new_game(cw_cfg, 3, 8)
    game.state.tables[0][:] = P
    protocol.apply(game, 5)
    assert protocol.legal_moves(game) == [FORCED_DISCARD]
    protocol.apply(game, FORCED_DISCARD)
    assert game.state.stats[0, 1] == 1 and game.seat_to_move == 1


def test_with_every_slot_empty_the_only_move_is_the_pass(cw_cfg):
    # §4.2 "leave the remaining slots empty": with nothing to draft the turn is lost
    game = cw.new_game(cw_cfg, 4, 9)
    game.state.slots[:] = -1
    assert protocol.legal_moves(game) == [PASS]
    protocol.apply(game, PASS)
    assert game.seat_to_move == 1 and game.state.stats[0, 3] == 1


def test_count_turns_counts_what_the_walk_finds(cw_cfg):
    # the test helper that bounds the brute force counts exactly the turns the interface's walk lists
    game = cw.new_game(cw_cfg, 2, 10)
    st = game.state
    st.tables[0][:] = P
    st.tables[0][[3, 10, 24, 40, 41, 47]] = 0
    assert count_turns(game) == len(all_turn_decisions(game)) > 100


# --------------------------------------------------------------------------------------------------
# the greedy agents play the interface's moves


@pytest.mark.parametrize("version, n", [("v1.1", 1), ("v1.1", 2), ("v1.1", 3), ("v1.1", 4), ("v1.0", 2)])
def test_every_decision_of_the_greedy_agents_is_a_legal_move(cw_cfg, cw_cfg_v10, version, n):
    # at the start of every turn of random and greedy games (ragged and tidy tables, crowded late turns;
    # v1.0 two players fill their tables and discard corner rulers), each greedy agent plans its turn;
    # its decisions, played one by one on a copy, are each among legal_moves() and end the turn
    cfg = cw_cfg if version == "v1.1" else cw_cfg_v10
    names = ["greedy", "residential", "commercial", "park", "industrial"]
    agents = {a: cw.make_agent(cfg, a) for a in names}
    checked = Counter()
    for seed, mover in ((1, "random"), (2, "greedy"), (3, "random"), (4, "industrial")):
        game = cw.new_game(cfg, n, seed)
        player = cw.make_agent(cfg, mover)
        rng = np.random.default_rng(seed)
        while not protocol.is_over(game):
            if game.S[G_PHASE] == DRAFT:
                for name, agent in agents.items():
                    probe = game.copy()
                    plan = agent.plan(probe, np.random.default_rng(checked[name]))
                    for i, d in enumerate(plan):
                        assert d in protocol.legal_moves(probe), (name, seed, plan, i)
                        protocol.apply(probe, d)
                        assert (probe.S[G_PHASE] == DRAFT) == (i == len(plan) - 1), (name, seed, plan, i)
                    checked[name] += 1
            protocol.apply(game, player.choose(game, game.seat_to_move, rng))
    assert all(checked[a] == 4 * 12 * n * (4 / 3 if (version, n) == ("v1.0", 2) else 1) for a in names)


def test_the_protocol_greedy_agent_returns_its_planned_turn_decision_by_decision(cw_cfg):
    game = cw.new_game(cw_cfg, 3, 11)
    agent = cw.make_agent(cw_cfg, "greedy")
    plan = agent.plan(game.copy(), np.random.default_rng(5))
    rng = np.random.default_rng(5)
    played = []
    while True:
        played.append(agent.choose(game, game.seat_to_move, rng))
        protocol.apply(game, played[-1])
        if game.S[G_PHASE] == DRAFT:
            break
    assert played == plan


def test_the_greedy_agent_does_not_take_over_a_turn_begun_by_another(cw_cfg):
    game = cw.new_game(cw_cfg, 3, 12)
    protocol.apply(game, 3)
    with pytest.raises(ValueError, match="plans whole turns"):
        cw.make_agent(cw_cfg, "greedy").choose(game, 0, np.random.default_rng(0))


def test_greedy_tables_play_the_games_of_the_engine_before_the_interface(cw_cfg, cw_cfg_v10):
    # tests/games/citywright/data/greedy_games_main.json: play_game outcomes of greedy and specialist
    # tables (1-4 players, v1.1 and v1.0, 8 seeds each) recorded with the engine before the compiled
    # interface (commit aee35a5, whose state was ten small arrays and whose moves whole turns). The
    # greedy search and the rules did not change, so every game must come out the same.
    data = json.loads((DATA / "greedy_games_main.json").read_text())
    cfgs = {"v1.1": cw_cfg, "v1.0": cw_cfg_v10}
    assert len(data["games"]) == 120
    for g in data["games"]:
        out = cw.play_game(cfgs[g["variant"]], g["agents"], game_seed(g["seed"], 0))
        assert out.scores == g["scores"], g
        assert [list(t) for t in out.tiebreak] == g["tiebreak"]
        assert out.components == g["components"] and out.metrics == g["metrics"] and out.turns == g["turns"]


# --------------------------------------------------------------------------------------------------
# hidden information


def hand_built(cw_cfg) -> cw.Game:
    """A 4-player game in round 2 whose piles are set by hand: the four-cell draw pile holds
    I, I, L, O (ids 0, 0, 1, 4) top card last, its discard pile T, Z; the five-cell draw pile
    W, V, P (ids 5, 8, 7), its discard pile T5 (6)."""
    game = cw.new_game(cw_cfg, 4, 13)
    st = game.state
    st.g[0] = 1
    st.piles[:] = 0
    st.piles[0, :4] = [0, 0, 1, 4]
    st.piles[1, :2] = [2, 3]
    st.piles[2, :3] = [5, 8, 7]
    st.piles[3, :1] = [6]
    st.pile_n[:] = [4, 2, 3, 1]
    st.tables[1][[0, 1, 2]] = [R, C, P]
    return game


def test_determinize_reshuffles_the_draw_piles_and_keeps_everything_else(cw_cfg):
    game = hand_built(cw_cfg)
    S = game.S.copy()
    seen = set()
    for seed in range(60):
        other = S.copy()
        KERNEL.determinize(other, game.T, 2, np.random.default_rng(seed))
        st = cw.state_views(other, game.T.lay)
        # the draw piles hold the same cards, in an order drawn afresh
        assert sorted(st.piles[0, :4].tolist()) == [0, 0, 1, 4] and sorted(st.piles[2, :3].tolist()) == [5, 7, 8]
        seen.add((tuple(st.piles[0, :4]), tuple(st.piles[2, :3])))
        # everything else, the discard piles included, is what every seat sees: unchanged
        mask = np.ones(S.shape[0], bool)
        lay = game.T.lay
        mask[lay.piles : lay.piles + 4] = False
        mask[lay.piles + 2 * lay.cap : lay.piles + 2 * lay.cap + 3] = False
        assert np.array_equal(other[mask], S[mask])
    # 4!/2! = 12 orders of I, I, L, O times 3! = 6 of W, V, P: 72 equally likely pairs; 60 draws
    # meet at least 30 of them (the expected number is 72 (1 - (71/72)^60) = 41)
    assert len(seen) >= 30


def test_determinize_depends_only_on_what_the_seat_sees(cw_cfg):
    # the same position with the draw piles in another order: the same observation, so the same
    # determinized state for the same generator
    a = hand_built(cw_cfg)
    b = a.copy()
    sb = b.state
    sb.piles[0, :4] = [4, 1, 0, 0]
    sb.piles[2, :3] = [8, 7, 5]
    assert not np.array_equal(a.S, b.S)
    assert np.array_equal(observation(a.S, a.T, 0), observation(b.S, b.T, 0))
    x, y = a.S.copy(), b.S.copy()
    KERNEL.determinize(x, a.T, 0, np.random.default_rng(3))
    KERNEL.determinize(y, a.T, 0, np.random.default_rng(3))
    assert np.array_equal(x, y)
    # the draw pile's order is what a seat cannot see: the observation sorts it
    obs = cw.state_views(observation(a.S, a.T, 1), a.T.lay)
    assert obs.piles[0, :4].tolist() == [0, 0, 1, 4] and obs.piles[2, :3].tolist() == [5, 7, 8]


# --------------------------------------------------------------------------------------------------
# returns and the heuristic


def finished(cfg, n: int, tables: dict[int, dict[int, int]], ticks: dict[int, dict[str, int]] | None = None) -> cw.Game:
    game = cw.new_game(cfg, n, 0)
    st = game.state
    st.tables[:] = 0
    for seat, cells in tables.items():
        for c, d in cells.items():
            st.tables[seat][c] = d
    for seat, shapes in (ticks or {}).items():
        for name, k in shapes.items():
            st.ticks[seat, sid(cfg, name)] = k
    return game


def margin_only(cfg):
    """``cfg`` with the heuristic's progress terms off (``agents.heuristic`` potential and room 0): the
    heuristic is then the logistic of the points margin alone."""
    h = cfg.agents.heuristic.model_copy(update={"potential": 0.0, "room": 0.0})
    return cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"heuristic": h})})


def values(fn, game: cw.Game) -> list[float]:
    out = np.zeros(game.n_players)
    fn(game.S, game.T, out)
    return out.tolist()


def test_returns_are_win_shares_with_the_tie_breakers(cw_cfg):
    # 3 players (seat bonus +2 / +2 / 0, §6.5): seat 1 one R (a cluster of 1: 0 points), seat 2 an
    # empty table: both total 2, seat 1 wins on fewer empty cells (§8) -> 1, 0, 0
    game = finished(cw_cfg, 3, {0: {24: R}})
    game.state.g[3] = 1
    assert values(KERNEL.returns, game) == [1.0, 0.0, 0.0]
    # 4 players (+2, +2, +1, 0): seats 1 and 2 identical tables and ticks -> a shared victory
    game = finished(cw_cfg, 4, {0: {0: C, 1: C}, 1: {0: C, 1: C}}, {0: {"W": 1}, 1: {"W": 1}})
    game.state.g[3] = 1
    assert values(KERNEL.returns, game) == [0.5, 0.5, 0.0, 0.0]
    assert values(KERNEL.heuristic, game) == [0.5, 0.5, 0.0, 0.0]


def test_the_heuristic_is_a_logistic_of_the_margin_over_the_best_other_seat(cw_cfg):
    # 3 players mid-game: seat 1 one park in the middle (row +2, column +2 = 4) plus its seat bonus 2
    # = 6; seat 2 only its bonus, 2; seat 3 nothing. Margins over the best other: +4, -4, -6; with
    # scale 10: 1 / (1 + e^(-0.4)) = 0.5987, 1 / (1 + e^(0.4)) = 0.4013, 1 / (1 + e^(0.6)) = 0.3543
    game = finished(margin_only(cw_cfg), 3, {0: {24: P}})
    assert game.T.scale == 10.0
    totals = np.zeros(3, np.int64)
    KERNEL.scores(game.S, game.T, totals)
    assert totals.tolist() == [6, 2, 0]
    assert values(KERNEL.heuristic, game) == pytest.approx([0.5987, 0.4013, 0.3543], abs=1e-4)


def test_a_specialist_mcts_seat_values_its_own_district_points_with_the_specialist_weights(cw_cfg):
    # The position above (seat 1 a park: 4 district points + seat bonus 2 = 6; seat 2 bonus 2;
    # seat 3 nothing), seat 1 an mcts+park seat: its own park points count 1.5x (agents.specialists
    # .park), so its margin is 1.5 x 4 + 2 - 2 = +6 -> 1 / (1 + e^-0.6) = 0.6457; the other seats
    # still compare their own points with seat 1's face-value 6: margins -4 and -6, as before.
    cfg = margin_only(cw_cfg)
    game = finished(cfg, 3, {0: {24: P}})
    styled = cw.mcts_table(cfg, ["mcts+park@10", "mcts", "greedy"])
    assert styled.value_w.tolist() == [[1.0, 1.0, 1.5, 1.0], [1.0] * 4, [1.0] * 4]
    out = np.zeros(3)
    KERNEL.heuristic(game.S, styled, out)
    assert out.tolist() == pytest.approx([0.6457, 0.4013, 0.3543], abs=1e-4)
    # the end is scored by the rules: the value weights never change who won
    game.state.g[3] = 1
    KERNEL.returns(game.S, styled, out)
    assert out.tolist() == values(KERNEL.returns, game) == [1.0, 0.0, 0.0]
    # a table without a styled seat is the variant's own rule table; a styled one is made once
    assert cw.mcts_table(cfg, ["mcts", "greedy", "random"]) is game.T
    assert cw.mcts_table(cfg, ["mcts+park@10", "mcts", "greedy"]) is styled


def test_the_heuristic_counts_progress_toward_each_next_step_and_the_room_left(cw_cfg):
    # v1.1's agents.heuristic: potential 1, room 1, scale 10; 3 players (seat bonus 2, 2, 0), 12 turns each.
    # Seat 1: R at cell 0 (a cluster of 1: 0 points, half of the next pair's 5 = 2.5), C at cells 10, 12,
    # 20 (three isolated: 3 x 2 = 6 points, 3 of the 5 tiles of the first tier's 5 = 3), I at cell 48
    # (ring +2, half of the next pair's 3 = 1.5): 8 points + bonus 2 = 10; 6 turns taken, so progress
    # (2.5 + 3 + 1.5) x 6 / 12 = 3.5, and room min(44 empty cells, 4 x 6 tiles to come) = 24: 37.5.
    # Seat 2: bonus 2, 6 turns taken: room min(49, 24) = 24: 26. Seat 3: 5 turns taken: room
    # min(49, 28) = 28: 28. Margins over the best other: +9.5, -11.5, -9.5.
    game = finished(cw_cfg, 3, {0: {0: R, 10: C, 12: C, 20: C, 48: I}})
    assert (game.T.potential, game.T.room, game.T.scale) == (1.0, 1.0, 10.0)
    game.state.stats[:, 3] = [6, 6, 5]
    totals = np.zeros(3, np.int64)
    KERNEL.scores(game.S, game.T, totals)
    assert totals.tolist() == [10, 2, 0]
    expected = [1 / (1 + math.exp(-m / 10)) for m in (9.5, -11.5, -9.5)]
    assert values(KERNEL.heuristic, game) == pytest.approx(expected)


def test_solo_value_is_a_logistic_of_the_total_against_par(cw_cfg):
    # solo (§10.3 prints no rank table): 1 / (1 + exp(-(total - solo_par) / scale)), solo_par 130,
    # scale 10. Industrial on the 24 ring cells: 24 x 2 + 12 pairs x 3 = 84 (§6.4); parks on the 25
    # inner cells, touching no R or C, in 5 rows and 5 columns: 5 x 2 + 5 x 2 = 20 (§6.3); total 104
    # -> 1 / (1 + e^2.6)
    ring = [c for c in range(49) if c // 7 in (0, 6) or c % 7 in (0, 6)]
    inner = [c for c in range(49) if c not in ring]
    game = finished(margin_only(cw_cfg), 1, {0: {**{c: I for c in ring}, **{c: P for c in inner}}})
    totals = np.zeros(1, np.int64)
    KERNEL.scores(game.S, game.T, totals)
    assert totals.tolist() == [104]
    game.state.g[3] = 1
    assert values(KERNEL.returns, game) == pytest.approx([1 / (1 + math.exp(2.6))])
    assert values(KERNEL.heuristic, game) == values(KERNEL.returns, game)
    # before the end the par is the share due by now: 6 of 12 turns taken -> par 65, 1 / (1 + e^-3.9)
    game.state.g[3] = 0
    game.state.stats[0, 3] = 6
    assert values(KERNEL.heuristic, game) == pytest.approx([1 / (1 + math.exp(-3.9))])


def test_line_tiles_come_from_the_slot_line(cw_cfg):
    # the order decisions draw on the drafted slot's line (§5 step 2), not on another line
    game = cw.new_game(cw_cfg, 3, 14)
    st = game.state
    st.site[:] = [R, R, R, C, C, C, C, P, P, P, P, I, I, I, I, R]
    O = sid(cw_cfg, "O")
    st.slots[12] = O  # column 1 bottom: site cells 0, 4, 8, 12 = R, C, P, I
    assert [int(st.site[c]) for c in SLOT_LINES[12]] == [R, C, P, I]
    protocol.apply(game, 12)
    protocol.apply(game, PLACE0 + find_placement(game, O, {0, 1, 7, 8}))
    orders = {decode_order(m, 4) for m in protocol.legal_moves(game)}
    assert orders == set(permutations((R, C, P, I)))


def test_mcts_value_styles_are_the_four_districts_and_nothing_else(cw_cfg):
    URGENCY = get_spec("urgency")  # the registry's spec: the game's own, with mcts seated

    assert get_spec("citywright").check_agent("mcts+commercial@200", cw_cfg) is None
    assert get_spec("citywright").check_agent("mcts+industrial", cw_cfg) is None
    message = get_spec("citywright").check_agent("mcts+banana@5", cw_cfg)
    assert message is not None and "'banana'" in message and "mcts+residential" in message
    message = URGENCY.check_agent("mcts+commercial", None)
    assert message is not None and "no value styles" in message
    # the Python protocol's agent has no styled table to read, so it refuses rather than ignore the style
    with pytest.raises(ValueError, match="compiled tables"):
        get_spec("citywright").make_agent(cw_cfg, "mcts+park@5")


def test_an_unknown_agent_hears_of_the_search_and_of_the_closest_name(cw_cfg):
    message = get_spec("citywright").check_agent("MCTS", cw_cfg)
    assert message is not None and message.startswith("unknown agent 'MCTS'; known agents: random, greedy")
    assert "and the generic agents: mcts, mcts@N, mcts+STYLE[@N] (residential, commercial, park, industrial)" in message
    assert message.endswith("(did you mean 'mcts'?)")
    assert get_spec("citywright").check_agent("Greedy", cw_cfg).endswith("(did you mean 'greedy'?)")
    assert "did you mean" not in get_spec("citywright").check_agent("banana", cw_cfg)


def test_a_table_with_styled_mcts_seats_plays_whole_games_the_same_way_twice(cw_cfg):
    agents = ["mcts+commercial@8", "mcts+park@8"]
    first = get_spec("citywright").play_game(cw_cfg, agents, 11)
    again = get_spec("citywright").play_game(cw_cfg, agents, 11)
    assert first == again and len(first.scores) == 2
    # every game ends with every turn taken: 12 turns each at two players (§4.1, v1.1)
    assert first.turns == [12, 12]
    assert "seat 1 (mcts+commercial@8)" in get_spec("citywright").transcript(cw_cfg, agents, 11)
