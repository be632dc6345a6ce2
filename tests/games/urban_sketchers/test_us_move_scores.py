"""Urban Sketchers' game knowledge for the search (``kernel.move_scores``, ``kernel.heuristic``):
the greedy agent's own decision is always among the best-scored moves, a hand-set position gets the
values derived by hand, and the progress heuristic is what its docstring says."""

from __future__ import annotations

import numpy as np
import pytest
import us_reference as usref
from test_us_examples import position
from us_reference.rules import FUNDING, K_PLACE, P_MAIN, P_SUPPLY, P_TRAVEL, SUPPLY, WHITE

from balancer.core import protocol
from balancer.core.fixed_draws import FixedDraws
from balancer.core.seeding import game_seed
from balancer.games import urban_sketchers as us
from balancer.games.urban_sketchers import fast, kernel

TIE = fast.TIE


def scores_of(S: np.ndarray, T, codes: list[int]) -> np.ndarray:
    moves = np.zeros(T.L.max_moves, np.int64)
    moves[: len(codes)] = codes
    out = np.full(T.L.max_moves, np.nan)
    kernel.move_scores(S, T, moves, len(codes), out)
    return out[: len(codes)]


@pytest.mark.parametrize("n", [2, 4])
def test_greedy_decision_has_a_best_move_score(us_cfg, n):
    """At every decision of greedy games (two fixed seeds), the greedy agent's decision has the
    highest move score (within greedy's own tie tolerance, fast.TIE). By construction:
    ``move_scores`` is the greedy agent's own evaluation (fast.turn_values for the choice of a die,
    fast.sub_values inside an action and at Set Up, the Travel and Supply rules scored 1 for their
    decision), over every legal move, and greedy picks a best one among its candidates, which are
    legal moves (a placement it leaves out, the same action and space at a higher cost, is worth no
    more). The look-aheads of a choice of a die draw from a generator, so the statement holds for
    greedy run with the generator ``move_scores`` uses (core's FixedDraws: exact ties to the first
    best decision, chance fixed); with the game's own generator it holds at every decision inside an
    action (a decision's value reads no draw), while at the choice of a die a tie broken otherwise
    inside a look-ahead can change a completed turn's value."""
    T = kernel.compile(us_cfg, n)
    L, R, W, ws = T.L, T.R, T.W, T.ws
    out = np.zeros(T.L.max_moves, np.int64)
    kinds: dict[str, int] = {"main": 0, "rule": 0, "value": 0}
    for seed in range(2):
        pos = us.SPEC.new_game(us_cfg, n, game_seed(7, seed))
        rng = np.random.default_rng(seed)
        while not protocol.is_over(pos):
            codes = protocol.legal_moves(pos)
            ph = int(pos.S[fast.G_PHASE])
            values = scores_of(pos.S, T, codes)
            assert np.all(np.isfinite(values))
            fixed = kernel.encode_move(fast.choose(pos.S, L, R, W, 1, FixedDraws(), ws))
            assert values[codes.index(fixed)] >= values.max() - TIE, (ph, kernel.decode_move(fixed))
            pick = int(kernel.greedy(pos.S, T, out, rng))
            if ph != P_MAIN:
                assert values[codes.index(pick)] >= values.max() - TIE, (ph, kernel.decode_move(pick))
            if ph == P_TRAVEL or ph == P_SUPPLY:
                assert values[codes.index(pick)] == 1.0 and sorted(set(values.tolist())) in ([1.0], [0.0, 1.0])
            kinds["main" if ph == P_MAIN else "rule" if ph in (P_TRAVEL, P_SUPPLY) else "value"] += len(codes) > 1
            protocol.apply(pos, pick)
    assert min(kinds.values()) > 20, kinds


def test_move_scores_of_a_hand_set_choice_of_a_die(us_cfg):
    """Round 1, two players, seat 1 to choose a die with no money, no cards, no tiles (the examples'
    ``position``). Funding with the green 3 (free: the matching colour) is completed by the only
    decision there, taking 4 money (Funding: 4, +1 per published sketchbook: none yet); Supply with
    the white 5 on a space whose tile shows t gives |5 - t| resources, all taken by the greedy
    Supply rule (the Backpack of 12 is empty). Greedy values money at ``agents.greedy.money`` and a
    resource at ``agents.greedy.resource`` and nothing else changes, so the two scores differ by
    resource x |5 - t| - money x 4 (base.yaml: 0.4 x |5 - t| - 0.25 x 4)."""
    s = position(us_cfg, 2)
    S = usref.load(s)
    T = kernel.compile(us_cfg, 2)
    green, white = 3, 4
    assert s.dcol[green] != WHITE and s.dcol[white] == WHITE and s.dice[white] == 5
    w = us_cfg.agents.greedy
    fund = kernel.encode_move((K_PLACE, green, FUNDING * 8, 0))
    legal = [int(c) for c in kernel_legal(S, T)]
    assert fund in legal
    for k in range(len(s.sup_tile)):
        supply = kernel.encode_move((K_PLACE, white, SUPPLY * 8 + k, 0))
        assert supply in legal
        got = scores_of(S, T, [fund, supply])
        assert got[1] - got[0] == pytest.approx(w.resource * abs(5 - s.sup_tile[k]) - w.money * 4)
    before = S.copy()
    scores_of(S, T, legal)
    assert np.array_equal(S, before)


def kernel_legal(S: np.ndarray, T) -> np.ndarray:
    out = np.zeros(T.L.max_moves, np.int64)
    return out[: kernel.legal(S, T, out)]


def test_heuristic_weighs_progress_as_documented(us_cfg):
    """With ``progress`` 0 the heuristic is the old score margin; with 1 a seat's value is the greedy
    value of its holdings: in the hand-set position (equal seats, worth 0.5 each) giving seat 1 ten
    money more (2 points now: 10 // 5; 2.5 in greedy value at 0.25 a money) moves its value to
    1 / (1 + exp(-margin / scale)) with margin 2 (progress 0), 2.5 (progress 1), 2.25 (one half)."""
    s = position(us_cfg, 2)
    s.money[0] += 10
    S = usref.load(s)
    T0 = kernel.compile(us_cfg, 2)
    for progress, margin in ((0.0, 2.0), (1.0, 2.5), (0.5, 2.25)):
        T = T0._replace(progress=progress)
        out = np.zeros(2)
        kernel.heuristic(S, T, out)
        assert out[0] == pytest.approx(1 / (1 + np.exp(-margin / T.scale)))
        assert out[1] == pytest.approx(1 / (1 + np.exp(margin / T.scale)))


def test_move_scores_do_not_depend_on_the_other_moves_listed(us_cfg):
    """A move's score is the same alone and among all legal moves (core's FixedDraws keeps no
    stream that earlier look-aheads would advance), at every choice of a die of a greedy game."""
    T = kernel.compile(us_cfg, 2)
    pos = us.SPEC.new_game(us_cfg, 2, game_seed(7, 3))
    rng = np.random.default_rng(3)
    checked = 0
    while not protocol.is_over(pos):
        codes = protocol.legal_moves(pos)
        if int(pos.S[fast.G_PHASE]) == P_MAIN and len(codes) > 1:
            every = scores_of(pos.S, T, codes)
            for k in range(0, len(codes), 7):
                assert scores_of(pos.S, T, [codes[k]])[0] == every[k]
            checked += 1
        protocol.apply(pos, int(kernel.greedy(pos.S, T, np.zeros(T.L.max_moves, np.int64), rng)))
    assert checked > 20


@pytest.mark.parametrize("n", [2, 4])
def test_die_scores_complete_each_distinct_turn_once_with_the_same_values(us_cfg, n):
    """At every choice of a die of games played by the rollout policy (a uniform die, greedy inside
    the action), the move scores equal fast.turn_values over every legal decision, exactly: the
    placements ``kernel._die_scores`` completes once (the same Supply amount; the same action,
    sketchbook, Opportunist and cost with another die) get the value each would get on its own."""
    T = kernel.compile(us_cfg, n)
    out = np.zeros(T.L.max_moves, np.int64)
    shared = checked = 0
    for seed in range(2):
        pos = us.SPEC.new_game(us_cfg, n, game_seed(7, seed))
        rng = np.random.default_rng(seed)
        while not protocol.is_over(pos):
            codes = protocol.legal_moves(pos)
            if int(pos.S[fast.G_PHASE]) == P_MAIN and len(codes) > 1:
                rows = np.array([kernel.decode_move(c) for c in codes], np.int64)
                each = np.zeros(len(codes))
                S = pos.S.copy()
                fast.turn_values(S, T.L, T.R, T.W, rows, len(codes), FixedDraws(), T.ws, each)
                got = scores_of(pos.S, T, codes)
                assert np.array_equal(got, each)
                shared += len(codes) - len(set(got.tolist()))
                checked += 1
            protocol.apply(pos, int(kernel.policy(pos.S, T, out, rng)))
    assert checked > 20 and shared > checked
