"""Águeda's compiled interface (balancer/games/agueda/kernel.py) on hand-set positions: the move
encoding (a turn split into the line, the row, the order, the tourists; decisions with one option
taken by the kernel), the one int64 buffer, determinize, returns and the heuristic; and the kernel
plays exactly the recorded games: greedy's of the engine before it (main at aee35a5), lookahead's
recorded again once it stopped reading the face-down tour-guide deck.
Positions as in test_agueda_rules.py (v1: lines 0 = cell 2, 1 = cells 1, 5, 2 = cells 0, 4, 8,
3 = cells 3, 7, 4 = cell 6; colours R O Y G B P = 0..5)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from agueda_turns import Turn
from test_agueda_rules import B, G, O, P, R, Y, position, set_row

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.seeding import game_seed
from balancer.games.agueda.kernel import (
    ENGINE,
    HEADER,
    KERNEL,
    M_ORDER,
    M_ROW,
    M_TOURIST,
    NO_LINE,
    PH_LINE,
    PH_ORDER,
    PH_ROW,
    PH_TOURIST,
    last_turn,
    phase,
    turn_count,
)
from balancer.games.agueda.rules import G_AI_PTS, G_DECK, G_OVER, O_AI, O_DECK, TAKE_BREAK

E = -1
DATA = Path(__file__).resolve().parents[2] / "data" / "agueda" / "main-aee35a5-outcomes.json"


def legal(game) -> list[int]:
    return protocol.legal_moves(game)


# ------------------------------------------------------------------------------------------ the encoding


def test_a_fresh_turn_is_asked_as_line_row_order_tourists(ag_cfg):
    """Market R O Y / G B P / R O Y: every line can be taken (codes 0..4); the 3-line (R, B, Y) into
    an empty row: 3 rows, 3! = 6 orders, then 1 break + 3 open tiles x (2 colours + 1 pair) = 10."""
    game = position(ag_cfg)
    assert phase(game.S) == PH_LINE and legal(game) == [0, 1, 2, 3, 4]
    protocol.apply(game, 2)
    assert phase(game.S) == PH_ROW and legal(game) == [M_ROW, M_ROW + 1, M_ROW + 2]
    protocol.apply(game, M_ROW + 1)
    assert phase(game.S) == PH_ORDER and legal(game) == [M_ORDER + p for p in range(6)]
    assert ENGINE.describe_move(game.S, game.T, M_ORDER + 0) == "places red, blue, yellow"
    protocol.apply(game, M_ORDER + 5)  # PERMS[3, 5] = (2, 1, 0): yellow, blue, red
    assert phase(game.S) == PH_TOURIST
    assert legal(game) == [M_TOURIST] + [M_TOURIST + j + 3 * r for r in range(3) for j in (1, 2, 3)]
    assert turn_count(game.S) == 0
    protocol.apply(game, M_TOURIST + 2 + 3 * 1)  # attract 1 tourist to row 2 scoring its second colour (G)
    assert turn_count(game.S) == 1 and game.seat_to_move == 1 and phase(game.S) == PH_LINE
    assert Turn.from_array(last_turn(game.S)) == Turn(2, 1, (Y, B, R), 1, 1, G)
    st = ag.game_state(game)
    assert list(st.board[0, 1, :3]) == [Y, B, R] and st.coins[0] == 1


def test_a_decision_with_one_option_is_taken_by_the_kernel(ag_cfg):
    """Line 0 holds one umbrella: after the row, the order has one option and is not asked. With no
    tourist in a suitcase the break is the only option too: the row completes the turn."""
    game = position(ag_cfg)
    protocol.apply(game, 0)
    protocol.apply(game, M_ROW)
    assert phase(game.S) == PH_TOURIST and len(legal(game)) == 10
    game = position(ag_cfg)
    st = ag.game_state(game)
    st.suitcase[0] = 0
    st.occ[0] = [2, 1, 0]
    protocol.apply(game, 0)
    protocol.apply(game, M_ROW)
    assert turn_count(game.S) == 1 and Turn.from_array(last_turn(game.S)) == Turn(0, 0, (Y,), TAKE_BREAK)


def test_orders_that_land_alike_are_one_option(ag_cfg):
    """Row 1 has one empty space: of the 3-line's 6 orders only the first umbrella stays (the rest
    goes back into the bag), so there are 3 options, one per colour placed (the first order of each:
    PERMS[3] = 012, 021, 102, 120, 201, 210 -> p = 0, 2, 4). Two umbrellas of one colour on a
    2-line are one order: line 3 holds G and O here, line 1 two P's."""
    game = position(ag_cfg, market=(R, P, Y, G, B, P, R, O, Y))
    set_row(game, 0, 0, [O, O, G, G, P, P])
    protocol.apply(game, 2)
    protocol.apply(game, M_ROW)
    assert legal(game) == [M_ORDER + 0, M_ORDER + 2, M_ORDER + 4]
    game = position(ag_cfg, market=(R, P, Y, G, B, P, R, O, Y))
    protocol.apply(game, 1)
    protocol.apply(game, M_ROW + 2)
    assert phase(game.S) == PH_TOURIST  # P, P: a single order, taken by the kernel


def test_no_line_can_be_taken_is_the_one_line_decision(ag_cfg):
    """market.assumed: only the 3-space diagonal holds umbrellas (R, B, Y: costs 1 coin) and the
    player has none: the line decision is NO_LINE alone, then the tourists are asked."""
    game = position(ag_cfg, market=(R, E, E, E, B, E, E, E, Y))
    ag.game_state(game).coins[0] = 0
    assert legal(game) == [NO_LINE]
    protocol.apply(game, NO_LINE)
    assert phase(game.S) == PH_TOURIST
    protocol.apply(game, M_TOURIST)
    assert Turn.from_array(last_turn(game.S))[:3] == (-1, 0, ())


def test_the_position_is_one_buffer(ag_cfg):
    """S is one C-contiguous int64 array; the rules' State is views into it; a copy is independent."""
    game = ag.SPEC.new_game(ag_cfg, 3, 2)
    st = ag.game_state(game)
    assert game.S.dtype == np.int64 and game.S.ndim == 1 and game.S.flags.c_contiguous
    assert all(np.shares_memory(a, game.S) for a in st)
    st.coins[2] = 9
    assert game.S[HEADER:].tolist().count(9) >= 1
    copy = game.S.copy()
    protocol.apply(game, legal(game)[0])
    assert not np.array_equal(copy, game.S) and ag.state(copy, game.T).coins[2] == 9


# ------------------------------------------------------------------------------------------ hidden information


def _deck_slice(game) -> slice:
    """Where the tour-guide deck lies in the buffer S."""
    return slice(int(game.T.off[O_DECK]), int(game.T.off[O_AI]))


def test_determinize_reshuffles_only_the_unrevealed_tour_guides(ag_cfg):
    """Solo Setup 3: the tour-guide deck is face down. After 3 turns (3 cards revealed), determinize
    keeps everything but the order of the 7 cards still in the deck; the revealed ones stay."""
    game = ag.SPEC.new_game(ag_cfg, 1, 5)
    while turn_count(game.S) < 3:
        protocol.apply(game, legal(game)[0])
    st = ag.game_state(game)
    assert st.g[G_DECK] == 3
    before = game.S.copy()
    deck = _deck_slice(game)
    orders = set()
    for seed in range(8):
        S = before.copy()
        KERNEL.determinize(S, game.T, 0, np.random.default_rng(seed))
        rest = np.ones(S.shape[0], bool)
        rest[deck.start + 3 : deck.stop] = False
        assert np.array_equal(S[rest], before[rest])  # all else, revealed cards too
        assert sorted(S[deck][3:]) == sorted(before[deck][3:])
        assert np.array_equal(ENGINE.observation(S, game.T, 0), ENGINE.observation(before, game.T, 0))
        orders.add(tuple(S[deck][3:]))
    assert len(orders) > 1
    # two positions that differ only in the unrevealed order become the same position
    other = before.copy()
    other[deck.start + 3 : deck.stop] = other[deck.start + 3 : deck.stop][::-1]
    a, b = before.copy(), other.copy()
    KERNEL.determinize(a, game.T, 0, np.random.default_rng(1))
    KERNEL.determinize(b, game.T, 0, np.random.default_rng(1))
    assert np.array_equal(a, b)


def test_determinize_on_a_hand_set_deck(ag_cfg):
    """Solo, the 10 tour-guide cards set by hand to the order 4 7 1 9 0 2 | 8 3 6 5 with 6 revealed
    (deck position 6): the seat has seen 4 7 1 9 0 2 and knows the other four are {3, 5, 6, 8} but
    not their order. determinize keeps the six revealed in place and deals the four again: always a
    permutation of {3, 5, 6, 8}, and over 300 generators all 4! = 24 orders occur (each with
    probability 1/24: missing one in 300 draws has probability about 24 * (23/24)^300 < 1e-4, and
    the seeds are fixed). With one card left (position 9) there is one order: nothing changes; with
    none (position 10) the deck is all seen."""
    game = ag.SPEC.new_game(ag_cfg, 1, 3)
    st = ag.game_state(game)
    st.deck[:] = [4, 7, 1, 9, 0, 2, 8, 3, 6, 5]
    st.g[G_DECK] = 6
    deck = _deck_slice(game)
    before = game.S.copy()
    orders = set()
    for seed in range(300):
        S = before.copy()
        KERNEL.determinize(S, game.T, 0, np.random.default_rng(seed))
        assert S[deck][:6].tolist() == [4, 7, 1, 9, 0, 2]
        assert sorted(S[deck][6:].tolist()) == [3, 5, 6, 8]
        rest = np.ones(S.shape[0], bool)
        rest[deck] = False
        assert np.array_equal(S[rest], before[rest])
        orders.add(tuple(S[deck][6:].tolist()))
    assert len(orders) == 24
    assert ENGINE.observation(before, game.T, 0)[deck].tolist() == [4, 7, 1, 9, 0, 2, 3, 5, 6, 8]
    for seen in (9, 10):
        st.g[G_DECK] = seen
        S = game.S.copy()
        KERNEL.determinize(S, game.T, 0, np.random.default_rng(seen))
        assert np.array_equal(S, game.S)


def test_with_several_players_nothing_on_the_table_is_hidden(ag_cfg):
    """Market, boards, coins, tourists, shop cards are open and the bag is the box minus the table:
    determinize changes nothing but the (unused) tour-guide deck."""
    game = ag.SPEC.new_game(ag_cfg, 4, 9)
    for _ in range(20):
        protocol.apply(game, legal(game)[-1])
    deck = _deck_slice(game)
    S = game.S.copy()
    KERNEL.determinize(S, game.T, 2, np.random.default_rng(3))
    rest = np.ones(S.shape[0], bool)
    rest[deck] = False
    assert np.array_equal(S[rest], game.S[rest]) and sorted(S[deck]) == sorted(game.S[deck])


# ------------------------------------------------------------------------------------------ values


def _values(game) -> tuple[np.ndarray, np.ndarray]:
    n = game.n_players
    ret, heur = np.zeros(n), np.zeros(n)
    KERNEL.returns(game.S, game.T, ret)
    KERNEL.heuristic(game.S, game.T, heur)
    return ret, heur


def with_heuristic(cfg, **fields):
    """``cfg`` with ``agents.heuristic`` changed (every progress weight 0 unless given)."""
    zero = {"suitcase": 0.0, "tourists": 0.0, "coins": 0.0, "reach": 0.0, "mural": 0.0, "empty": 0.0}
    h = cfg.agents.heuristic.model_copy(update={**zero, **fields})
    return cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"heuristic": h})})


def test_heuristic_is_a_logistic_of_the_margin(ag_cfg):
    """Without progress terms (every weight of agents.heuristic 0 but the scale): shop cards 07
    (full rows) and 10 (marked umbrellas) score 0 on empty boards. Seat 1: 10 tourist points - 21
    empty spaces = -11; seat 2: 6 - 21 = -15. Margins +4 and -4 at the YAML's agents.heuristic.scale
    s: 1 / (1 + e^(-4/s)) and 1 / (1 + e^(4/s)) (s = 4: 0.731 and 0.269)."""
    k = 4 / ag_cfg.agents.heuristic.scale
    game = position(with_heuristic(ag_cfg), n=2)
    st = ag.game_state(game)
    st.shops[:] = [6, 9]
    st.stats[:, 0] = [10, 6]
    _, heur = _values(game)
    assert heur == pytest.approx([1 / (1 + math.exp(-k)), 1 / (1 + math.exp(k))])
    scores = np.zeros(2, np.int64)
    KERNEL.scores(game.S, game.T, scores)
    assert scores.tolist() == [-11, -15]


def test_heuristic_adds_the_progress_terms(ag_cfg):
    """Weights suitcase 1, tourists 0.75, coins 0.5, reach 0.25, mural 2, empty 0.125, scale 3.5;
    shop cards 07 and 10 without a marker score 0. Seat 1: row 2 holds Y G Y G (tile (Y, G)), 2
    mural tiles flipped (mural points start at 4 tiles), 3 tourists in the suitcase, 2 coins:
    score -17 (empty spaces); progress 3 x 1 + 2 x 0.5 + reach 4 (2 tourists on row 2: 2 Y + 2 G)
    x 0.25 + 2 x 2 + 17 x 0.125 = 11.125: estimate -5.875. Seat 2: empty board, 2 tourists in the
    suitcase and 1 on the tile of row 1, 2 coins: score -21, progress 2 + 0.75 + 1 + reach 0 (no
    umbrella) + 21 x 0.125 = 6.375: estimate -14.625. Margins +8.75 and -8.75: 8.75 / 3.5 = 2.5
    logistic units. With one tourist left in seat 1's suitcase its reach is 2 (one colour) and its
    progress 1 + 1 + 0.5 + 4 + 2.125 = 8.625: margin -8.375 + 14.625 = 6.25."""
    cfg = with_heuristic(ag_cfg, scale=3.5, suitcase=1.0, tourists=0.75, coins=0.5, reach=0.25, mural=2.0, empty=0.125)
    game = position(cfg, n=2)
    st = ag.game_state(game)
    st.shops[:] = [6, 9]
    st.shop_mask[:] = 0
    set_row(game, 0, 1, [Y, G, Y, G])
    st.flipped[0, :2] = 1
    st.suitcase[:] = [3, 2]
    st.occ[1, 0] = 1
    st.coins[:] = [2, 2]
    _, heur = _values(game)
    assert heur == pytest.approx([1 / (1 + math.exp(-2.5)), 1 / (1 + math.exp(2.5))])
    st.suitcase[0] = 1
    _, heur = _values(game)
    assert heur[0] == pytest.approx(1 / (1 + math.exp(-6.25 / 3.5)))


def test_solo_returns_are_the_solo_win_and_ties_go_to_the_ai(ag_cfg):
    """Solo, normal difficulty: AI = its card points 13 + 3 + 2 groups of 4+ (R 4, O 5) x 2 = 20.
    The player (shops 07 and 10: 0 on an empty board): tourist points - 21 empty spaces. 41 - 21 =
    20 ties: the player loses (0); 42 - 21 = 21 wins (1). Before the end the heuristic (without
    progress terms) is the logistic of 20 - 20 = 0: one half; the player's progress terms count
    against the AI's score now (3 tourists in the suitcase at 0.5 each: 21.5 - 20 = 1.5)."""
    cfg = with_heuristic(ag_cfg)
    game = ag.SPEC.new_game(cfg, 1, 5)
    st = ag.game_state(game)
    st.ai[:] = [4, 5, 3, 0, 1, 0]
    st.g[G_AI_PTS] = 13
    st.shops[:] = [6, 9]
    st.stats[0, 0] = 41
    assert _values(game)[1] == pytest.approx([0.5])
    solo = ag.SPEC.new_game(with_heuristic(ag_cfg, suitcase=0.5), 1, 5)
    solo.S[:] = game.S
    assert ag.game_state(solo).suitcase[0] == 3
    k = 1.5 / ag_cfg.agents.heuristic.scale
    assert _values(solo)[1] == pytest.approx([1 / (1 + math.exp(-k))])
    st.g[G_OVER] = 1
    assert _values(game) == ([0.0], [0.0])
    st.stats[0, 0] = 42
    assert _values(game) == ([1.0], [1.0])


def test_returns_break_ties_as_winning_the_game_says(ag_cfg):
    """Two seats with rows of 7, 7 and 4 umbrellas, 4 mural tiles and 15 tourist points each: 15 +
    mural 2 + Shop 07 (2 per full row) 4 + Shop 10 (no marker: 0) - 3 empty spaces = 18 points, 3
    empty spaces and 4 mural tiles each: more coins wins; equal coins share the victory (0.5 each);
    the heuristic equals the returns at the end."""
    game = position(ag_cfg, n=2)
    st = ag.game_state(game)
    st.shops[:] = [6, 9]
    st.shop_mask[:] = 0
    for s in range(2):
        for r, f in enumerate([7, 7, 4]):
            set_row(game, s, r, [R] * f)
        st.flipped[s, :4] = 1
    st.stats[:, 0] = [15, 15]
    st.coins[:] = [1, 3]
    st.g[G_OVER] = 1
    scores = np.zeros(2, np.int64)
    KERNEL.scores(game.S, game.T, scores)
    assert scores.tolist() == [18, 18]
    ret, heur = _values(game)
    assert ret.tolist() == [0.0, 1.0] and heur.tolist() == [0.0, 1.0]
    st.coins[:] = [2, 2]
    assert _values(game)[0].tolist() == [0.5, 0.5]


# ------------------------------------------------------------------------------------------ same games as before


def test_the_kernel_plays_the_games_of_the_engine_before_it(ag_cfg):
    """Greedy tables at 1 to 5 players (30 games each) and lookahead tables (6 games), run seed
    2026: every Outcome (scores, tie-breakers, turns, metrics, labels) equals the recorded one
    (tests/data/agueda/main-aee35a5-outcomes.json). The greedy rows are what main at aee35a5
    recorded: the kernel moved the rules into one buffer and split the turn into decisions, and
    greedy plays as before. The six lookahead rows were recorded again on 2 Dec 2026 (the file's
    ``lookahead`` note): lookahead used to play its rollouts on the true order of the face-down
    tour-guide deck, and now reshuffles the unrevealed cards with its own generator before each
    rollout (``agents.hide_deck``, tests/test_hidden_information.py), which changes its draws, so
    its games, at every player count (the deck is dealt, unused, with several players too)."""
    data = json.loads(DATA.read_text())
    assert len(data["games"]) == 156
    for row in data["games"]:
        out = ag.play_game(ag_cfg, row["agents"], game_seed(data["run_seed"], row["game_index"]))
        got = {
            "scores": out.scores,
            "tiebreak": [list(t) for t in out.tiebreak],
            "turns": out.turns,
            "metrics": out.metrics,
            "labels": out.labels,
        }
        assert got == {k: row[k] for k in got}, (row["agents"], row["game_index"])
