"""Águeda final scoring: every shop-card condition on one hand-scored board, the mural table, and
the compiled scorer against the readable reference on random boards (Final Scoring 1-3).

The hand board (rows of 7; R O Y G B P are colour codes 0..5, '.' empty):

    row 0:  R R O Y . . .     4 filled
    row 1:  R O Y G B P R     full
    row 2:  B B B . . . .     3 filled

Counts used below: R = 2 + 2 + 0 = 4, B = 0 + 1 + 3 = 4; side-by-side pairs of one colour: row 0
R-R (1), row 2 B-B twice (2) = 3; distinct colours per row: 3, 6, 1; full rows: 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.games.agueda.scoring import final_reference, shop_points, shop_points_reference

R, O, Y, G, B, P = range(6)
BOARD = [[R, R, O, Y, -1, -1, -1], [R, O, Y, G, B, P, R], [B, B, B, -1, -1, -1, -1]]


def card(cfg, name: str) -> int:
    return [c.name for c in cfg.shops.cards].index(name)


def compiled_points(cfg, idx: int, marked: set[int], board, coins: int, tourists: int) -> int:
    rules = ag.compiled(cfg, 2).rules
    arr = np.array(board, np.int8)
    fill = np.array([sum(1 for c in row if c >= 0) for row in board], np.int64)
    mask = sum(1 << c for c in marked)
    return int(shop_points(rules, idx, mask, arr, fill, coins, tourists))


CASES = [
    # name, marked colours, coins, tourists, expected points, derivation
    ("Shop 10", {R}, 0, 0, 4, "umbrellas: 1 per R, 4 R"),
    ("Isabella's Ice Cream Shop", {R, B}, 0, 0, 4, "umbrellas: R + B = 8, 1 per 2 -> 4"),
    ("Shop 13", {R, B, O}, 0, 0, 3, "umbrellas: R 4 + B 4 + O 2 = 10, 1 per 3 -> 3"),
    ("Flora's Fancy Footwear", {R}, 0, 0, 6, "rows_with 2+ R: rows 0 and 1 -> 2 x 3"),
    ("Shop 11", {R}, 0, 0, 0, "rows_with 3+ R: none"),
    ("Shop 11", {B}, 0, 0, 4, "rows_with 3+ B: row 2 -> 4"),
    ("Shop 12", {R, O}, 0, 0, 4, "rows_with 3+ of R/O: row 0 (R R O), row 1 (R O R) -> 2 x 2"),
    ("Shop 03", set(), 0, 0, 3, "adjacent_pairs of any colour: R-R, B-B, B-B -> 3 x 1"),
    ("Shop 04", {B}, 0, 0, 4, "adjacent_pairs of B: 2 x 2"),
    ("Shop 04", {R}, 0, 0, 2, "adjacent_pairs of R: 1 x 2"),
    ("Shop 16", {O, Y}, 0, 0, 0, "adjacent_pairs of O or Y: none"),
    ("Shop 18", set(), 0, 0, 2, "varied_rows 4+ colours: row 1 only -> 2"),
    ("Shop 05", set(), 0, 0, 3, "varied_rows 5+ colours: row 1 -> 3"),
    ("Shop 06", set(), 0, 0, 4, "varied_rows 6 colours: row 1 -> 4"),
    ("Shop 07", set(), 0, 0, 2, "completed_rows: 1 x 2"),
    ("Shop 17", set(), 0, 0, 3, "completed_rows: 1 x 3"),
    ("Shop 08", set(), 9, 0, 6, "coins: 1 per coin, 9 coins capped at 6"),
    ("Shop 08", set(), 4, 0, 4, "coins: 4 coins, under the cap"),
    ("Shop 14", set(), 5, 0, 6, "coins: 3 per 2 coins, 5 coins -> 2 x 3"),
    ("Shop 09", set(), 0, 3, 3, "tourists: 1 per tourist on a tile, 3"),
    ("Shop 15", set(), 0, 3, 3, "tourists: 3 per 2 tourists, 3 -> 1 x 3"),
]


@pytest.mark.parametrize(
    "name,marked,coins,tourists,expected,why",
    CASES,
    ids=[f"{c[0]}-{c[5].split(':')[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_shop_card_conditions(ag_cfg, name, marked, coins, tourists, expected, why):
    idx = card(ag_cfg, name)
    assert shop_points_reference(ag_cfg, idx, marked, BOARD, coins, tourists) == expected, why
    assert compiled_points(ag_cfg, idx, marked, BOARD, coins, tourists) == expected, why


def test_every_shop_kind_is_covered(ag_cfg):
    kinds = {ag_cfg.shops.cards[card(ag_cfg, c[0])].kind for c in CASES}
    assert kinds == {"umbrellas", "rows_with", "adjacent_pairs", "varied_rows", "completed_rows", "coins", "tourists"}


@pytest.mark.parametrize("flipped,points", [(0, 0), (3, 0), (4, 2), (5, 4), (6, 6)])
def test_mural_scoring(ag_cfg, flipped, points):
    """Mural Scoring: 4/5/6 flipped tiles score 2/4/6."""
    assert ag.compiled(ag_cfg, 2).rules.mural_pts[flipped] == points
    out = final_reference(ag_cfg, BOARD, flipped, 0, [], 0, 0)
    assert out["mural"] == points


def test_final_reference_on_the_hand_board(ag_cfg):
    """12 tourist points + 5 tiles (4) + Shop 07 (2) + Shop 10 with R (4) - 7 empty spaces = 15."""
    shops = [(card(ag_cfg, "Shop 07"), set()), (card(ag_cfg, "Shop 10"), {R})]
    out = final_reference(ag_cfg, BOARD, 5, 12, shops, 0, 0)
    assert out == {"tourists": 12, "mural": 4, "shops": 6, "empty_spaces": -7, "total": 15}


@st.composite
def boards(draw):
    rows = []
    for _ in range(3):
        n = draw(st.integers(0, 7))
        rows.append(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)) + [-1] * (7 - n))
    return rows


@settings(max_examples=300, deadline=None)
@given(
    board=boards(),
    card_idx=st.integers(0, 17),
    marker_seed=st.integers(0, 2**32 - 1),
    coins=st.integers(0, 20),
    tourists=st.integers(0, 6),
)
def test_compiled_shop_points_agree_with_the_reference(ag_cfg, board, card_idx, marker_seed, coins, tourists):
    n_markers = ag_cfg.shops.cards[card_idx].markers
    marked = set(np.random.default_rng(marker_seed).choice(6, size=n_markers, replace=False).tolist())
    assert compiled_points(ag_cfg, card_idx, marked, board, coins, tourists) == shop_points_reference(
        ag_cfg, card_idx, marked, board, coins, tourists
    )


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_outcome_agrees_with_the_reference_on_played_games(ag_cfg, n, seed):
    """The compiled final scoring (Outcome components) equals final_reference on the final boards
    of random games."""
    from balancer.core.seeding import game_rngs

    game = ag.SPEC.new_game(ag_cfg, n, seed)
    _, rng = game_rngs(seed)
    player = ag.make_agent(ag_cfg, "random")
    while not protocol.is_over(game):
        protocol.apply(game, player.choose(game, game.seat_to_move, rng))
    out = protocol.outcome(game)
    s = ag.game_state(game)
    shops = [(int(s.shops[i]), {c for c in range(6) if (int(s.shop_mask[i]) >> c) & 1}) for i in range(2)]
    for seat in range(n):
        ref = final_reference(
            ag_cfg,
            s.board[seat].tolist(),
            int(s.flipped[seat].sum()),
            int(s.stats[seat, 0]),
            shops,
            int(s.coins[seat]),
            int(s.occ[seat].sum()),
        )
        assert {k: out.components[k][seat] for k in out.components} == {k: v for k, v in ref.items() if k != "total"}
        assert out.scores[seat] == ref["total"]


def test_score_command_on_the_hand_board():
    """`balancer score` reads tests/data/agueda/hand-board.txt (the board above, 15 points)."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from balancer.cli import app

    root = Path(__file__).resolve().parents[3]
    res = CliRunner().invoke(
        app, ["score", str(root / "configs/agueda/v1.yaml"), str(root / "tests/data/agueda/hand-board.txt"), "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == {
        "tourists": 12,
        "mural": 4,
        "shops": 6,
        "empty_spaces": -7,
        "total": 15,
        "empty_space_count": 7,
    }


@pytest.mark.parametrize(
    "text,needle",
    [
        ("RROY...\nROYGBPR\n", "expected 3 board rows"),
        ("RRO.Y..\nROYGBPR\nBBB....\n", "without gaps"),
        ("RROX...\nROYGBPR\nBBB....\n", "a board row is 7"),
        ("RROY...\nROYGBPR\nBBB....\nshop Nowhere\n", "unknown shop card"),
        ("RROY...\nROYGBPR\nBBB....\nshop Shop 10: pink\n", "unknown colour 'pink'"),
        ("RROY...\nROYGBPR\nBBB....\ncoins many\n", "whole number"),
    ],
)
def test_board_text_errors_name_the_line(ag_cfg, text, needle):
    from balancer.games.agueda.scoring import score_board_text

    with pytest.raises(ValueError, match=needle):
        score_board_text(ag_cfg, text)
