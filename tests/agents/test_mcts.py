"""The generic SO-ISMCTS (balancer/agents/mcts.py) on stand-in kernels whose right decision is known
by hand (tests/agents/mcts_standins.py). No test is timed; budgets are modest and every expected
move is derived in a comment. Stand-in games: Nim, explicit trees (max^n, chance, depth cut-off),
"show or swap" (hidden hands, chance) and a wide solo game (thousands of legal moves)."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest
from mcts_standins import (
    NimConfig,
    build_tree,
    cards_engine,
    cards_state,
    nim_engine,
    nim_state,
    tree_engine,
    tree_new_state,
    wide_engine,
)

from balancer.agents import mcts as M
from balancer.agents.mcts import (
    GAME_AGENT,
    MCTSAgent,
    make_workspace,
    play_kernel_game,
    rollout,
    root_children,
    search,
    table_plan,
    workspace_for,
)
from balancer.agents.params import ROLLOUT_POLICY, ROLLOUT_RANDOM, MCTSParams
from balancer.core import protocol
from balancer.core.seeding import game_rngs

NIM = nim_engine()
TREE = tree_engine()
CARDS = cards_engine()
WIDE = wide_engine()
WISE = wide_engine(knowing=True)


def run(engine, T, S, rng_seed=0, **params):
    """(move, workspace) of one search of ``S`` with ``MCTSParams(**params)`` (random rollouts
    unless said otherwise) and a generator seeded ``rng_seed``."""
    params.setdefault("rollout", "random")
    p = MCTSParams(**params)
    ws = workspace_for(engine, T, S, p.iterations)
    move = search(engine.kernel, S, T, p.to_array(), np.random.default_rng(rng_seed), ws)
    return int(move), ws


def stats(ws):
    """Root children as comparable tuples (move, visits, availability, mean values)."""
    return [(m, v, a, tuple(np.round(x, 12))) for m, v, a, x in root_children(ws)]


# --------------------------------------------------------------------------------------------------
# a known best move


@pytest.mark.parametrize("pile, best", [(10, 2), (7, 3), (9, 1)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nim_finds_the_winning_take(pile, best, seed):
    # Nim, 2 players, take 1-3, taking the last stone wins: a pile that is a multiple of 4 is lost
    # for the player to move (whatever it takes, the other restores a multiple of 4), so the only
    # winning take leaves one: 10 -> take 2, 7 -> take 3, 9 -> take 1.
    T = NIM.compile(NimConfig(3, pile), 2)
    move, ws = run(NIM, T, nim_state(pile), seed, iterations=3000)
    assert move == best
    # the winning child's mean for seat 0 is the best of the root's (max^n at the root)
    means = {m: x[0] for m, _, _, x in root_children(ws)}
    assert max(means, key=means.get) == best


def test_policy_rollouts_are_the_games_policy():
    # Nim's stand-in policy plays perfectly (Bouton), so a rollout by it has a known result: from
    # 10 stones the player to move (seat 0) wins, from 8 it loses. Uniform rollouts differ: from 10
    # stones seat 0 loses some of them.
    T = NIM.compile(NimConfig(3, 10), 2)
    values = np.zeros(2)
    rng = np.random.default_rng(0)
    for pile, winner in ((10, 0), (8, 1), (5, 0), (4, 1)):
        for _ in range(20):
            S = nim_state(pile)
            rollout(NIM.kernel, S, T, np.zeros(3, np.int64), rng, ROLLOUT_POLICY, -1, values)
            assert S[3] == winner and values[winner] == 1.0 and values.sum() == 1.0
    winners = set()
    for _ in range(50):
        S = nim_state(10)
        rollout(NIM.kernel, S, T, np.zeros(3, np.int64), rng, ROLLOUT_RANDOM, -1, values)
        winners.add(int(S[3]))
    assert winners == {0, 1}
    # and the search with policy rollouts finds the winning take at a small budget: every first
    # rollout below the root is then exact (take 2 -> 1.0 for seat 0, takes 1 and 3 -> 0.0)
    move, _ = run(NIM, T, nim_state(10), 0, iterations=50, rollout="policy")
    assert move == 2


# --------------------------------------------------------------------------------------------------
# max^n: every seat plays for its own value

# Three players. Seat 0 chooses L (10) or R (11).
#   L: seat 1 chooses 20 -> (0, 1, 0) or 21 -> (1, 0, 0); it takes 20 (1 > 0), so L is worth 0 to seat 0.
#   R: seat 1 chooses 22 -> (.5, .5, 0) or 23 -> seat 2's choice of 30 -> (0, 0, 1) or 31 -> (0, 1, 0);
#      seat 2 takes 30 (1 > 0), so 23 is worth 0 to seat 1, which takes 22: R is worth .5 to seat 0.
# max^n: seat 0 plays R; at R seat 1 plays 22. A search that backed up seat 0's value everywhere
# (the others helping seat 0) would play L (hoping for 21, worth 1); one that let seat 2 help
# seat 1 would play 23 at R (hoping for 31).
KINGMAKER = {
    "seat": 0,
    "moves": {
        10: {"seat": 1, "label": "L", "moves": {20: [0, 1, 0], 21: [1, 0, 0]}},
        11: {
            "seat": 1,
            "label": "R",
            "moves": {22: [0.5, 0.5, 0], 23: {"seat": 2, "label": "R23", "moves": {30: [0, 0, 1], 31: [0, 1, 0]}}},
        },
    },
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_max_n_three_players(seed):
    T, labels = build_tree(KINGMAKER, 3)
    rng = np.random.default_rng(0)
    assert run(TREE, T, tree_new_state(T, rng), seed, iterations=2000)[0] == 11
    assert run(TREE, T, tree_new_state(T, rng, labels["L"]), seed, iterations=500)[0] == 20
    assert run(TREE, T, tree_new_state(T, rng, labels["R"]), seed, iterations=1000)[0] == 22
    assert run(TREE, T, tree_new_state(T, rng, labels["R23"]), seed, iterations=200)[0] == 30
    # the root's statistics per seat: below R (played almost always) seat 0 and seat 1 share .5
    move, ws = run(TREE, T, tree_new_state(T, rng), seed, iterations=2000)
    r = {m: x for m, _, _, x in root_children(ws)}[11]
    assert r[0] == pytest.approx(0.5, abs=0.05) and r[1] == pytest.approx(0.5, abs=0.05)


def _temptation(n: int) -> dict:
    # n players (4 or 5), win shares summing to 1. Seat 0 chooses X (1): .3 to itself, the rest shared
    # by the others; or Y (2): seat 1 then chooses 3 -> (.6 to seat 0, .4 to seat 1) or 4 -> (.5 to
    # seat 1, .5 to the last seat). Seat 1 takes 4 (.5 > .4), so Y is worth 0 to seat 0 and seat 0
    # plays X (.3 > 0). Backing up seat 0's values everywhere would play Y (hoping for .6).
    rest = [0.7 / (n - 1)] * (n - 1)
    a = [0.6, 0.4] + [0.0] * (n - 2)
    b = [0.0, 0.5] + [0.0] * (n - 3) + [0.5]
    return {"seat": 0, "moves": {1: [0.3] + rest, 2: {"seat": 1, "label": "Y", "moves": {3: a, 4: b}}}}


@pytest.mark.parametrize("n", [4, 5])
def test_max_n_four_and_five_players(n):
    T, labels = build_tree(_temptation(n), n)
    rng = np.random.default_rng(0)
    for seed in range(3):
        assert run(TREE, T, tree_new_state(T, rng), seed, iterations=1500)[0] == 1
        assert run(TREE, T, tree_new_state(T, rng, labels["Y"]), seed, iterations=300)[0] == 4


def test_solo_with_chance_maximises_the_expected_value():
    # One player. A (1) -> .6 for sure; B (2) -> 1 or 0 with probability .5 each (mean .5); C (3) ->
    # 1 with probability .7, else 0 (mean .7). The solo value is maximised in expectation by C.
    spec = {
        "seat": 0,
        "moves": {1: [0.6], 2: {"chance": [(0.5, [1.0]), (0.5, [0.0])]}, 3: {"chance": [(0.7, [1.0]), (0.3, [0.0])]}},
    }
    T, _ = build_tree(spec, 1)
    for seed in range(3):
        move, ws = run(TREE, T, tree_new_state(T, np.random.default_rng(0)), seed, iterations=3000)
        assert move == 3
        means = {m: x[0] for m, _, _, x in root_children(ws)}
        assert means[1] == pytest.approx(0.6, abs=1e-12)  # every visit of A is worth exactly .6
        assert means[3] == pytest.approx(0.7, abs=0.06)


# --------------------------------------------------------------------------------------------------
# hidden information and chance: show or swap


def test_cards_determinize_keeps_the_observation():
    # the stand-in itself: a determinized state keeps what the seat sees, and changes what it does not
    T = CARDS.compile(10, 3)
    S = cards_state(T, [4, 8, 1], to_move=2, discards=[6, -1, -1])
    seen = CARDS.observation(S, T, 2)
    hidden = set()
    rng = np.random.default_rng(3)
    for _ in range(50):
        D = S.copy()
        CARDS.kernel.determinize(D, T, 2, rng)
        assert np.array_equal(CARDS.observation(D, T, 2), seen)
        assert sorted(D[2:4].tolist() + D[9 : 9 + D[8]].tolist()) == [0, 2, 3, 4, 5, 7, 8, 9]
        hidden.add((int(D[2]), int(D[3])))
    assert len(hidden) > 10


# Show or swap, 10 cards 0-9, two players; seat 0 has shown (kept its card) and seat 1, holding b,
# decides. Seat 1 sees b and that seat 0 kept its card a, but not a nor the deck. Over its
# information set a is uniform on the 9 other cards: show wins iff a < b, probability b/9; swap
# draws x uniformly from the 8 cards left and wins iff x > a, probability 1/2 (a and x are two
# distinct cards drawn from the same 9, either is the larger with probability 1/2).
#   b = 3: show 3/9 = .33 < swap .5 -> swap (1);   b = 6: show 6/9 = .67 > .5 -> show (0).
# A search that read the true a would decide otherwise when the hidden card is rigged: with a = 2,
# b = 3 wins surely by showing; with a = 9, b = 6 loses surely by showing and swapping wins 2/8.


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("b, best, a_plain, a_rigged", [(3, 1, 7, 2), (6, 0, 1, 9)])
def test_hidden_card_does_not_leak(seed, b, best, a_plain, a_rigged):
    T = CARDS.compile(10, 2)
    plain = cards_state(T, [a_plain, b], to_move=1)
    rigged = cards_state(T, [a_rigged, b], to_move=1)
    assert np.array_equal(CARDS.observation(plain, T, 1), CARDS.observation(rigged, T, 1))
    m_plain, ws_plain = run(CARDS, T, plain, seed, iterations=2000)
    m_rigged, ws_rigged = run(CARDS, T, rigged, seed, iterations=2000)
    assert m_plain == m_rigged == best
    # indistinguishable states give the same search, iteration for iteration
    assert stats(ws_plain) == stats(ws_rigged)
    # each child's mean is its win probability within 4 standard errors (a win is 0 or 1)
    for m, visits, _, mean in root_children(ws_plain):
        assert mean[1] == pytest.approx(b / 9 if m == 0 else 0.5, abs=4 * 0.5 / np.sqrt(visits))


def test_three_players_hidden_cards_do_not_leak():
    # Three players; seats 0 and 1 have shown, seat 2 holds b = 4. The two others' cards are a
    # uniform pair from the 9 others: show wins iff both are below 4, C(4,2)/C(9,2) = 6/36 = .17;
    # swap wins iff the drawn card is the highest of three distinct unseen cards, 1/3. So swap (1),
    # also when the hidden cards are rigged (0 and 1) so that showing would win for sure.
    T = CARDS.compile(10, 3)
    for seed in range(3):
        plain = cards_state(T, [8, 6, 4], to_move=2)
        rigged = cards_state(T, [0, 1, 4], to_move=2)
        m1, ws1 = run(CARDS, T, plain, seed, iterations=3000)
        m2, ws2 = run(CARDS, T, rigged, seed, iterations=3000)
        assert m1 == m2 == 1 and stats(ws1) == stats(ws2)


def test_first_seat_same_observation_same_search():
    # Seat 0 decides first (seat 1 then decides too, inside the tree, in every determinization):
    # seat 0 holding 3 cannot tell seat 1's 7 from its 1 (nor the decks), so its searches agree,
    # statistic for statistic, for the same generator.
    T = CARDS.compile(10, 2)
    a, b = cards_state(T, [3, 7]), cards_state(T, [3, 1])
    assert np.array_equal(CARDS.observation(a, T, 0), CARDS.observation(b, T, 0))
    for seed in range(3):
        m1, ws1 = run(CARDS, T, a, seed, iterations=800)
        m2, ws2 = run(CARDS, T, b, seed, iterations=800)
        assert m1 == m2 and stats(ws1) == stats(ws2)
        assert ws1.info[M.I_MAX_DEPTH] == 2  # seat 1's decision is in the tree


# --------------------------------------------------------------------------------------------------
# determinism, budgets, no side effects


def test_same_seed_same_search():
    T = CARDS.compile(10, 2)
    S = cards_state(T, [3, 7])
    m1, ws1 = run(CARDS, T, S, 11, iterations=700)
    m2, ws2 = run(CARDS, T, S, 11, iterations=700)
    assert m1 == m2 and stats(ws1) == stats(ws2)
    T = NIM.compile(NimConfig(3, 21), 3)
    m1, ws1 = run(NIM, T, nim_state(21), 5, iterations=900)
    m2, ws2 = run(NIM, T, nim_state(21), 5, iterations=900)
    assert m1 == m2 and stats(ws1) == stats(ws2)
    assert np.array_equal(ws1.info, ws2.info)


@pytest.mark.parametrize("budget", [1, 2, 17, 500])
def test_the_budget_is_the_number_of_iterations(budget):
    # every iteration passes through the root and through exactly one of its children (the root is
    # not terminal) and creates at most one node
    T = NIM.compile(NimConfig(3, 30), 2)
    move, ws = run(NIM, T, nim_state(30), 0, iterations=budget)
    assert ws.nodes[0, M.N_VISITS] == budget == ws.info[M.I_ITERATIONS]
    children = root_children(ws)
    assert sum(v for _, v, _, _ in children) == budget
    assert ws.info[M.I_NODES] <= budget + 1
    assert len(children) == min(budget, 3)  # the root expands one untried take per iteration
    if budget == 1:
        assert move == children[0][0]


def test_a_forced_move_is_played_without_searching():
    T = NIM.compile(NimConfig(3, 1), 2)
    move, ws = run(NIM, T, nim_state(1), 0, iterations=100)
    assert move == 1 and ws.info[M.I_ITERATIONS] == 0


def test_search_leaves_the_state_and_the_game_stream_alone():
    for engine, T, S in (
        (CARDS, CARDS.compile(10, 2), cards_state(CARDS.compile(10, 2), [3, 7])),
        (NIM, NIM.compile(NimConfig(3, 12), 2), nim_state(12)),
    ):
        before = S.copy()
        run(engine, T, S, 0, iterations=300)
        assert np.array_equal(S, before)
    # through the Python protocol: neither the position nor its own chance stream moves
    pos = protocol.new_game(CARDS, 10, 2, seed=4)
    S0, rng0 = pos.S.copy(), pos.rng.bit_generator.state
    agent = MCTSAgent(CARDS, None, MCTSParams(iterations=300))
    agent.choose(pos, 0, np.random.default_rng(1))
    assert np.array_equal(pos.S, S0) and pos.rng.bit_generator.state == rng0


def test_agent_refuses_the_wrong_seat_and_a_finished_game():
    pos = protocol.new_game(NIM, NimConfig(3, 5), 2, seed=0)
    agent = MCTSAgent(NIM, pos.T, MCTSParams(iterations=10))
    with pytest.raises(ValueError, match="seat 1 but seat 0"):
        agent.choose(pos, 1, np.random.default_rng(0))
    protocol.apply(pos, 3)
    protocol.apply(pos, 2)
    with pytest.raises(ValueError, match="over"):
        agent.choose(pos, 0, np.random.default_rng(0))


def test_a_workspace_too_small_for_the_budget_is_refused():
    T = NIM.compile(NimConfig(3, 10), 2)
    ws = make_workspace(10, 2, 4, 3)
    with pytest.raises(ValueError, match="workspace"):
        search(NIM.kernel, nim_state(10), T, MCTSParams(iterations=11).to_array(), np.random.default_rng(0), ws)
    with pytest.raises(ValueError):
        make_workspace(0, 2, 4, 3)


def test_the_workspace_holds_the_move_indices_once():
    # scored rollouts rank moves by index (best_of over ws.ident): made with the workspace, not per search
    ws = make_workspace(10, 2, 4, 5)
    assert ws.ident.dtype == np.int64 and ws.ident.tolist() == [0, 1, 2, 3, 4]


# --------------------------------------------------------------------------------------------------
# the depth cut-off and the heuristic


def _chain(length: int, h: list[float], end: list[float], first: int) -> dict:
    node: dict | list = end
    for i in range(length):
        node = {"seat": 0, "moves": {first + i: node}, "h": h}
    return node


# Two players; only seat 0 decides: A (1) or B (2), then `CHAIN` forced moves to a leaf. A ends in a
# win for seat 0 (1, 0), B in a loss (0, 1). The heuristic is a lie: (.2, .8) all along A's chain,
# (.9, .1) along B's. The tree grows by at most one node per iteration, so with a budget of 60 and
# a chain of 100 no descent plus 5 rollout decisions reaches a leaf: with a depth limit every value
# backed up is the heuristic's and the search plays B; without one, every rollout ends at the leaf
# and it plays A.
CHAIN = 100
LIAR = {
    "seat": 0,
    "moves": {1: _chain(CHAIN, [0.2, 0.8], [1.0, 0.0], 1000), 2: _chain(CHAIN, [0.9, 0.1], [0.0, 1.0], 5000)},
}


@pytest.mark.parametrize("depth, best", [(None, 1), (0, 2), (5, 2)])
def test_depth_limit_uses_the_heuristic(depth, best):
    T, _ = build_tree(LIAR, 2)
    move, ws = run(TREE, T, tree_new_state(T, np.random.default_rng(0)), 0, iterations=60, depth=depth)
    assert move == best
    means = {m: x for m, _, _, x in root_children(ws)}
    if depth is None:
        assert tuple(means[1]) == (1.0, 0.0) and tuple(means[2]) == (0.0, 1.0)
    else:
        assert means[1] == pytest.approx([0.2, 0.8]) and means[2] == pytest.approx([0.9, 0.1])
        assert ws.info[M.I_ROLLOUT_DECISIONS] <= 60 * depth


def test_rollout_stops_after_depth_decisions():
    # Nim, 2 players, 20 stones: 3 decisions take at most 9, so the game is not over and the values
    # are the heuristic's (1/2 each); without a limit the game ends and the taker of the last stone
    # gets 1.
    T = NIM.compile(NimConfig(3, 20), 2)
    values = np.zeros(2)
    S = nim_state(20)
    played = rollout(NIM.kernel, S, T, np.zeros(3, np.int64), np.random.default_rng(0), ROLLOUT_RANDOM, 3, values)
    assert played == 3 == S[2] and S[0] > 0 and list(values) == [0.5, 0.5]
    S = nim_state(20)
    played = rollout(NIM.kernel, S, T, np.zeros(3, np.int64), np.random.default_rng(0), ROLLOUT_RANDOM, -1, values)
    assert played == S[2] and S[0] == 0 and values[S[3]] == 1.0 and values.sum() == 1.0


# --------------------------------------------------------------------------------------------------
# many legal moves: the child table and progressive widening

WIDTH = 2000
WIDE_T = WIDE.compile((WIDTH, 1234, 42, 1_000_003, -77), 1)


def code(i: int) -> int:
    return i * 1_000_003 - 77


def test_thousands_of_moves():
    # Solo: two picks among 2,000 moves (codes i * 1,000,003 - 77); the value is .9 for the good
    # first pick (1234) plus .1 for the good second pick (42). The first 2,000 iterations expand
    # every root move once (an untried legal move is always expanded first), the good one worth .9
    # or more, every other .1 at most; with c = .1 the bonus of a child visited once is at most
    # .1 sqrt(ln 5000) = .29, so the remaining 3,000 iterations go to the good first pick.
    S = np.array([0, -1, -1], np.int64)
    move, ws = _wide_search(WIDE_T, S, iterations=5000, exploration=0.1)
    assert move == code(1234)
    children = root_children(ws)
    assert len(children) == WIDTH and len({m for m, *_ in children}) == WIDTH
    assert {m: v for m, v, _, _ in children}[code(1234)] >= 2900


def _wide_search(T, S, **params):
    params.setdefault("rollout", "random")
    p = MCTSParams(**params)
    ws = make_workspace(p.iterations, 1, 3, WIDTH)
    return int(search(WIDE.kernel, S, T, p.to_array(), np.random.default_rng(0), ws)), ws


@pytest.mark.parametrize("widening, children", [(0.0, 100), (1.0, 10)])
def test_progressive_widening_bounds_the_children(widening, children):
    # 100 iterations at the root of the wide game. Off, each expands a new root move: 100 children.
    # With k = 1 and exponent 1/2, iteration i (0-based, i visits so far) expands only while the
    # root has fewer than sqrt(i + 1) children: the 2nd to 10th children come at i = 1, 4, 9, 16,
    # 25, 36, 49, 64, 81 (sqrt(i + 1) first exceeds 1, 2, ..., 9), the 11th would need i = 100.
    S = np.array([0, -1, -1], np.int64)
    move, ws = _wide_search(WIDE_T, S, iterations=100, widening=widening, widening_exponent=0.5)
    assert len(root_children(ws)) == children
    if widening:
        assert ws.info[M.I_MAX_DEPTH] == 2  # the search went below the first picks


def test_child_table_against_a_dict():
    # 20,000 (node, move) keys with moves anywhere in int64 (negative too) and few nodes: every one
    # is found again, keys never inserted are not
    rng = np.random.default_rng(7)
    ws = make_workspace(20_000, 1, 1, 1)
    mask = M.reset_tree(ws.nodes, ws.value, ws.table, ws.info, 20_000)
    expected = {}
    while len(expected) < 20_000:
        node = int(rng.integers(0, min(len(expected) + 1, 50)))
        move = int(rng.integers(-(2**62), 2**62))
        if (node, move) in expected:
            continue
        expected[(node, move)] = int(M.add_child(ws.nodes, ws.value, ws.table, ws.info, mask, node, move))
    for (node, move), child in expected.items():
        assert M.find_child(ws.table, mask, node, move) == child
        assert ws.nodes[child, M.N_MOVE] == move and ws.nodes[child, M.N_PARENT] == node
    for _ in range(2000):
        node, move = int(rng.integers(0, 50)), int(rng.integers(-(2**62), 2**62))
        if (node, move) not in expected:
            assert M.find_child(ws.table, mask, node, move) == -1
    # the children lists agree with the table
    count = {}
    for node, _ in expected:
        count[node] = count.get(node, 0) + 1
    for node, k in count.items():
        assert ws.nodes[node, M.N_CHILDREN] == k


def test_final_move_by_visits_or_by_value_ties_uniform():
    # a root with hand-set children: 5 visits worth .2 on average, 3 visits worth .9: the most
    # visited is the first, the best mean the second; two children tied on visits are each chosen
    # about half the time over 400 generators
    ws = make_workspace(10, 1, 1, 1)
    mask = M.reset_tree(ws.nodes, ws.value, ws.table, ws.info, 10)
    a = M.add_child(ws.nodes, ws.value, ws.table, ws.info, mask, 0, 7)
    b = M.add_child(ws.nodes, ws.value, ws.table, ws.info, mask, 0, 8)
    ws.nodes[a, M.N_VISITS], ws.value[a, 0] = 5, 1.0
    ws.nodes[b, M.N_VISITS], ws.value[b, 0] = 3, 2.7
    rng = np.random.default_rng(0)
    assert M.pick_root(ws.nodes, ws.value, 0, False, rng) == 7
    assert M.pick_root(ws.nodes, ws.value, 0, True, rng) == 8
    ws.nodes[b, M.N_VISITS] = 5
    picks = [int(M.pick_root(ws.nodes, ws.value, 0, False, np.random.default_rng(s))) for s in range(400)]
    assert 150 < picks.count(7) < 250 and picks.count(7) + picks.count(8) == 400


# --------------------------------------------------------------------------------------------------
# whole games: the compiled table and the Python protocol agree


def _protocol_game(engine, cfg, n, agents, seed):
    """Moves of a game played through the Python protocol: the game's chance from child 0, every
    agent's choices from child 1 (as the runner seats them)."""
    pos = protocol.new_game(engine, cfg, n, seed)
    _, agent_rng = game_rngs(seed)
    moves = []
    while not protocol.is_over(pos):
        seat = pos.seat_to_move
        move = agents[seat].choose(pos, seat, agent_rng)
        moves.append(int(move))
        protocol.apply(pos, move)
    return pos.S, moves


@pytest.mark.parametrize(
    "engine, cfg, names",
    [
        (CARDS, 10, ["mcts@150", "random"]),
        (CARDS, 10, ["random", "mcts@60", "mcts@90"]),
        (NIM, NimConfig(3, 15), ["mcts@80", "random", "policy"]),
    ],
)
def test_compiled_table_equals_the_python_protocol(engine, cfg, names):
    n = len(names)
    T = engine.compile(cfg, n)
    base = MCTSParams(iterations=1000, rollout="random")
    plan = table_plan(names, base, policy_names=("policy",))
    for seed in range(4):
        S, log, played = play_kernel_game(engine, T, plan, seed, log_moves=200)
        agents = []
        for name in names:
            if name == "random":
                agents.append(protocol.UniformAgent())
            elif name == "policy":
                agents.append(_PolicyAgent(engine))
            else:
                agents.append(MCTSAgent(engine, T, base.model_copy(update={"iterations": int(name[5:])})))
        S2, moves = _protocol_game(engine, cfg, n, agents, seed)
        assert moves == log[:played].tolist()
        assert np.array_equal(S, S2)


class _PolicyAgent:
    name = "policy"

    def __init__(self, engine):
        self.engine = engine

    def choose(self, pos, seat, rng):
        return int(self.engine.kernel.policy(pos.S, pos.T, np.zeros(8, np.int64), rng))


@nb.njit
def _nim_game_agents(code, S, T, row, out, rng):
    # a game's own compiled agents: 16 "greedy" takes as many stones as it may; one decision
    if code == GAME_AGENT:
        out[0] = min(T[1], S[0])
        return 1
    return -1


def test_game_agents_plug_into_the_compiled_table():
    # seat 0 is the game's "greedy" (takes 3 while it can), seat 1 uniform random: in the log every
    # move of seat 0 (even decisions) takes min(3, pile)
    T = NIM.compile(NimConfig(3, 40), 2)
    plan = table_plan(["greedy", "random"], MCTSParams(), game_agents={"greedy": GAME_AGENT})
    S, log, played = play_kernel_game(NIM, T, plan, 3, game_agent=_nim_game_agents, log_moves=100)
    pile = 40
    for i, m in enumerate(log[:played]):
        if i % 2 == 0:
            assert m == min(3, pile)
        pile -= m
    assert pile == 0 and S[0] == 0
    bad = table_plan(["sly", "random"], MCTSParams(), game_agents={"sly": GAME_AGENT + 1})
    with pytest.raises(ValueError, match="game_agent"):
        play_kernel_game(NIM, T, bad, 3, game_agent=_nim_game_agents)


def test_table_plan():
    base = MCTSParams(iterations=300)
    plan = table_plan(["mcts", "mcts@50", "random", "greedy"], base, game_agents={"greedy": GAME_AGENT + 2})
    assert plan.kinds.tolist() == [M.MCTS, M.MCTS, M.RANDOM, GAME_AGENT + 2]
    assert plan.params[0][0] == 300 and plan.params[1][0] == 50 and plan.max_iterations == 300
    with pytest.raises(ValueError, match="unknown agent 'greedy'"):
        table_plan(["greedy"], base)
    with pytest.raises(ValueError, match="mcts@x"):
        table_plan(["mcts@x"], base)
    with pytest.raises(ValueError, match="below"):
        table_plan(["greedy"], base, game_agents={"greedy": 3})
    with pytest.raises(ValueError, match="3 agents for 2 players"):
        play_kernel_game(NIM, NIM.compile(NimConfig(), 2), table_plan(["random"] * 3, base), 0)


def test_every_seat_count_plays_to_the_end():
    # 1 to 5 players of Nim, all MCTS: every game ends, every move legal (the protocol checks it)
    for n in range(1, 6):
        T = NIM.compile(NimConfig(3, 13), n)
        S, log, played = play_kernel_game(
            NIM, T, table_plan(["mcts@40"] * n, MCTSParams(rollout="random")), n, log_moves=64
        )
        assert S[0] == 0 and 0 <= S[3] < n
        assert sum(log[:played]) == 13 and all(1 <= m <= 3 for m in log[:played])


def test_a_kernel_without_moves_before_the_end_is_reported():
    # a decision node with no moves that is not a leaf breaks the contract (legal must give a move
    # before the end): at the root, and below it during the descent
    for spec in ({"seat": 0, "moves": {}}, {"seat": 0, "moves": {1: [1.0], 2: {"seat": 0, "moves": {}}}}):
        T, _ = build_tree(spec, 1)
        with pytest.raises(ValueError, match="no legal move"):
            run(TREE, T, tree_new_state(T, np.random.default_rng(0)), 0, iterations=20)


# --------------------------------------------------------------------------------------------------
# the game's knowledge: move scores in expansion, selection (progressive bias) and rollouts


def _wise_search(T, S, engine=WISE, **params):
    params.setdefault("rollout", "random")
    p = MCTSParams(**params)
    ws = make_workspace(p.iterations, 1, 3, int(T[0]))
    return int(search(engine.kernel, S, T, p.to_array(), np.random.default_rng(0), ws)), ws


def test_expansion_by_prior_grows_the_best_scored_move_first():
    # The wide game (2,000 moves, good picks 1234 then 42) whose move scores are 1 for the good pick
    # and 0 for the rest. Widening k = 1, exponent 1/2: 10 iterations grow root children at
    # i = 0, 1, 4, 9 (test_progressive_widening_bounds_the_children), 4 of them. By prior, the first
    # is 1234, and below it 42 (value .9 + .1 = 1 on the first visit below it); the other three
    # are worth at most .1, so 1234 has the most visits and is played.
    S = np.array([0, -1, -1], np.int64)
    move, ws = _wise_search(WIDE_T, S, iterations=10, widening=1.0, expansion="prior", exploration=0.1)
    children = root_children(ws)
    assert len(children) == 4 and children[0][0] == code(1234)
    assert move == code(1234)
    assert ws.info[M.I_MAX_DEPTH] == 2
    # drawn uniformly instead, 4 of 2,000 moves: 1234 is among them with probability 0.2% (not with
    # this generator), so the same budget misses the good first pick
    move, ws = _wise_search(WIDE_T, S, iterations=10, widening=1.0, exploration=0.1)
    assert code(1234) not in {m for m, *_ in root_children(ws)} and move != code(1234)


def test_progressive_bias_sends_the_visits_to_the_prior():
    # Five moves (codes 0..4), good picks 3 then 1, move scores 1 for the good pick. Exploration 0
    # and depth 0 (no rollout: a new node not at the end is worth the heuristic, 0.5). The first
    # five iterations expand the five root moves, each worth 0.5. Iteration 6 descends into the
    # child maximising 0.5 + b * prior / (v + 1): move 3 (prior 1; the others 0), and grows a child
    # below it, which ends the game: worth .9 (+ .1 for pick 1), so move 3's mean is above 0.5 from
    # then on and every later iteration goes to it: 1 + 95 visits, the others 1 each.
    T = WIDE.compile((5, 3, 1, 1, 0), 1)
    S = np.array([0, -1, -1], np.int64)
    move, ws = _wise_search(T, S, iterations=100, exploration=0.0, bias=1.0, depth=0)
    visits = {m: v for m, v, _, _ in root_children(ws)}
    assert move == 3
    assert visits[3] == 96 and all(v == 1 for m, v in visits.items() if m != 3)
    # without bias iteration 6 draws one of five tied children; a child other than 3 ends the game
    # worth 0 or .1 below it and is left, so the visits spread until 3 is drawn
    _, ws = _wise_search(T, S, iterations=100, exploration=0.0, depth=0)
    assert max(v for _, v, _, _ in root_children(ws)) < 96


def test_scored_rollout_follows_the_scores_unless_epsilon():
    # From the start of the wide game, a rollout by the scores with epsilon 0 plays 1234 then 42:
    # value .9 + .1 = 1. With epsilon 1 every move is uniform: 1 / 2,000 chance of either good pick.
    ident = np.arange(WIDTH)
    out, scores, values = np.zeros(WIDTH, np.int64), np.zeros(WIDTH), np.zeros(1)
    S = np.array([0, -1, -1], np.int64)
    M.scored_rollout(WISE.kernel, S, WIDE_T, out, scores, ident, np.random.default_rng(0), 0.0, -1, values)
    assert list(S) == [2, 1234, 42] and values[0] == pytest.approx(1.0)
    S = np.array([0, -1, -1], np.int64)
    M.scored_rollout(WISE.kernel, S, WIDE_T, out, scores, ident, np.random.default_rng(0), 1.0, -1, values)
    assert S[0] == 2 and (S[1], S[2]) != (1234, 42)


def test_a_search_by_the_scores_with_one_iteration_finds_the_good_pick():
    # One iteration: the root's first child is the prior's (1234) and the rollout by the scores
    # below it plays 42: the tree has one child, worth 1, and it is played.
    S = np.array([0, -1, -1], np.int64)
    move, ws = _wise_search(WIDE_T, S, iterations=1, expansion="prior", rollout="scores", epsilon=0.0)
    assert move == code(1234) and root_children(ws)[0][3][0] == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------------
# compiled once per machine (mcts.compiled_for): the same search, cached by numba


def test_the_cached_search_is_the_search():
    # compiled_for(K).search is search(K, ...) under another name: the same move and the same tree
    # for the same state, parameters and generator (a pile of 10 with takes of 1 to 3: the winning
    # move takes 2, leaving a multiple of 4)
    T = NIM.compile(NimConfig(3, 10), 2)
    S = nim_state(10)
    p = MCTSParams(iterations=400, rollout="random")
    ws = workspace_for(NIM, T, S, p.iterations)
    move = M.compiled_for(NIM.kernel).search(S, T, p.to_array(), np.random.default_rng(5), ws)
    direct, ws2 = run(NIM, T, S, rng_seed=5, iterations=400)
    assert int(move) == direct == 2
    assert stats(ws) == stats(ws2)


def test_the_cached_search_is_loaded_not_compiled_again(monkeypatch):
    # once compiled, a fresh copy (a new process, here a new dispatcher) loads it from numba's cache
    T = NIM.compile(NimConfig(3, 12), 2)
    S = nim_state(12)
    row = MCTSParams(iterations=50, rollout="random").to_array()
    first = M.compiled_for(NIM.kernel).search
    first(S, T, row, np.random.default_rng(0), workspace_for(NIM, T, S, 50))
    monkeypatch.setattr(M, "_COPIES", {})
    again = M.compiled_for(NIM.kernel).search
    assert again is not first
    again(S, T, row, np.random.default_rng(0), workspace_for(NIM, T, S, 50))
    assert again.stats.cache_hits and not again.stats.cache_misses


def _nim_to_move_made_by_a_factory(offset):
    @nb.njit
    def to_move(S, T):
        return S[1] + offset

    return to_move


def test_a_kernel_made_by_a_factory_is_never_cached():
    # a closure is named by its code, not by what it closes over: two kernels from one factory would
    # share a file, so such a kernel's search is compiled in its process and never written to disk
    kernel = NIM.kernel._replace(to_move=_nim_to_move_made_by_a_factory(0))
    made = M.compiled_for(kernel)
    assert type(made.search._cache).__name__ == "NullCache"
    assert type(M.compiled_for(NIM.kernel).search._cache).__name__ != "NullCache"


def test_each_kernel_has_its_own_cache_file_named_by_its_sources():
    # two kernels never share a cache file: the name holds the kernel's module and a digest of which
    # function fills each field, so another move_scores is another file; the sources' digest is
    # the same for kernels of the same folders (it names the version, and an older version's file
    # is deleted when a new one is made)
    name, digest = M._kernel_tag(NIM.kernel._asdict())
    name2, digest2 = M._kernel_tag(WISE.kernel._asdict())
    assert name.startswith("mcts_standins_") and name != name2 and len(digest) == 16 and digest == digest2
    other = NIM.kernel._replace(move_scores=WISE.kernel.move_scores)
    assert M._kernel_tag(other._asdict())[0] not in (name, name2)
    # the search's file is there once a table with a search seat was played, and stays there when
    # another kernel of the same module is compiled
    T = NIM.compile(NimConfig(3, 9), 2)
    play_kernel_game(NIM, T, table_plan(["mcts@5", "random"], MCTSParams()), 1)
    assert M.is_cached(NIM.kernel)
    M.compiled_for(other)
    assert M.is_cached(NIM.kernel) and not M.is_cached(other)


# implicit minimax backups (params' minimax)


def _root_minimax(ws):
    """{move: the root child's implicit minimax vector} after a search."""
    out = {}
    c = int(ws.nodes[0, M.N_FIRST_CHILD])
    while c >= 0:
        out[int(ws.nodes[c, M.N_MOVE])] = tuple(float(x) for x in ws.minimax[c])
        c = int(ws.nodes[c, M.N_NEXT_SIBLING])
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_implicit_minimax_is_the_max_n_value_of_the_tree(seed):
    # KINGMAKER (above) by hand, max^n over its leaves' values (a leaf's heuristic is its value):
    # L (10) is worth (0, 1, 0) (seat 1 takes 20), R23 (0, 0, 1) (seat 2 takes 30), R (11)
    # (.5, .5, 0) (seat 1 takes 22 over 23, worth 0 to it), the root R's (.5, .5, 0). 200 iterations
    # expand all 8 nodes below the root, after which the backed-up values are exact.
    T, _ = build_tree(KINGMAKER, 3)
    move, ws = run(TREE, T, tree_new_state(T, np.random.default_rng(0)), seed, iterations=200, minimax=0.5)
    assert ws.info[M.I_NODES] == 9
    assert _root_minimax(ws) == {10: (0.0, 1.0, 0.0), 11: (0.5, 0.5, 0.0)}
    assert tuple(ws.minimax[0]) == (0.5, 0.5, 0.0)
    assert move == 11


def test_implicit_minimax_at_the_frontier_is_the_heuristic():
    # Two players, seat 0 picks A (1) or B (2), each the start of a chain the search cannot reach the
    # end of in 2 iterations (LIAR's heuristics: A (.2, .8), B (.9, .1)). Two iterations expand A and
    # B; their minimax values are their heuristics, the root's B's (seat 0: .9 > .2).
    T, _ = build_tree(LIAR, 2)
    _, ws = run(TREE, T, tree_new_state(T, np.random.default_rng(0)), 0, iterations=2, depth=0, minimax=1.0)
    mm = _root_minimax(ws)
    assert mm.keys() == {1, 2}
    assert mm[1] == pytest.approx((0.2, 0.8)) and mm[2] == pytest.approx((0.9, 0.1))
    assert tuple(ws.minimax[0]) == pytest.approx((0.9, 0.1))


def test_implicit_minimax_at_one_selects_by_it_alone():
    # LIAR without a depth limit: every rollout reaches the true end (A wins, B loses), while the
    # minimax values of the chains' nodes are the lying heuristic's (no chain's end is in the tree).
    # At alpha 1 selection reads only the minimax values, so the visits go to B; at 0 to A.
    T, _ = build_tree(LIAR, 2)
    S = tree_new_state(T, np.random.default_rng(0))
    assert run(TREE, T, S, 0, iterations=60, minimax=1.0, exploration=0.1)[0] == 2
    assert run(TREE, T, S, 0, iterations=60, minimax=0.0, exploration=0.1)[0] == 1


def test_implicit_minimax_off_changes_nothing():
    # At alpha 0 the minimax arrays are neither written nor read: a workspace whose arrays hold
    # garbage searches exactly as a clean one, and keeps the garbage.
    T, _ = build_tree(KINGMAKER, 3)
    S = tree_new_state(T, np.random.default_rng(0))
    p = MCTSParams(iterations=300, rollout="random")
    clean = workspace_for(TREE, T, S, p.iterations)
    dirty = workspace_for(TREE, T, S, p.iterations)
    dirty.minimax[:] = np.random.default_rng(5).random(dirty.minimax.shape)
    dirty.mover[:] = 2
    before = dirty.minimax.copy()
    a = search(TREE.kernel, S, T, p.to_array(), np.random.default_rng(3), clean)
    b = search(TREE.kernel, S, T, p.to_array(), np.random.default_rng(3), dirty)
    assert a == b and stats(clean) == stats(dirty)
    assert np.array_equal(dirty.minimax, before) and (dirty.mover == 2).all()
    assert not clean.minimax.any()
