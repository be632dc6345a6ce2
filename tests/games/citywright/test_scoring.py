"""Citywright scoring (rulebook §6), one rule per test, named after the section.

Tables are drawn as 7 strings of ``R C P I .`` (rows top to bottom) and converted here without the
engine's parser, so the parser is tested on its own (``test_score_table_text_*``). Every expected
number is worked out by hand in the comment beside it. Each table is scored by both scorers: the
readable reference (``score_reference``) and the fast one behind ``score_table``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import balancer.games.citywright as cw
from balancer.games.citywright.scoring import draw_table, parse_table, score_reference, score_table

DISTRICTS = ("residential", "commercial", "park", "industrial")
CODE = {".": 0, "R": 1, "C": 2, "P": 3, "I": 4}


def grid(*rows: str) -> np.ndarray:
    """A 7x7 table from 7 row strings (spaces ignored), as the engine's flat int8[49]."""
    assert len(rows) == 7
    cells = [CODE[ch] for row in rows for ch in row.replace(" ", "")]
    assert len(cells) == 49
    return np.array(cells, np.int8)


def cells_table(**cells: list[tuple[int, int]]) -> np.ndarray:
    """A table with the given (row, column) cells (0-based) of each district letter: R=[...], C=[...]."""
    t = np.zeros(49, np.int8)
    for letter, where in cells.items():
        for r, c in where:
            assert t[r * 7 + c] == 0, f"cell {(r, c)} given twice"
            t[r * 7 + c] = CODE[letter]
    return t


def score(cfg, table: np.ndarray) -> dict[str, int]:
    """Score with both scorers, check they agree, return the fast scorer's dict."""
    fast = score_table(cfg, table)
    ref = score_reference(cfg, table)
    for d in DISTRICTS:
        assert fast[d] == ref[d], (d, fast, ref)
    assert fast["empty_cells"] == ref["empty_cells"]
    assert fast["total"] == sum(fast[d] for d in DISTRICTS)
    return fast


def run(start: tuple[int, int], length: int, vertical: bool = False) -> list[tuple[int, int]]:
    r, c = start
    return [(r + i, c) if vertical else (r, c + i) for i in range(length)]


# --------------------------------------------------------------------------- §6.2 commercial


def test_6_2_commercial_worked_example_11_tiles_3_isolated_scores_21(cw_cfg):
    # §6.2 example: "11 tiles, 3 of them isolated: 15 + 3 x 2 = 21".
    # 7 C across row 1 plus 1 below its first cell: one group of 8 (none isolated);
    # 3 lone C on row 4 at columns 1, 3, 5, touching no C (row 3 and their row neighbours empty).
    t = grid("CCCCCCC", "C......", ".......", "C.C.C..", ".......", ".......", ".......")
    s = score(cw_cfg, t)
    # N = 11 is in the 10-14 tier -> 15; isolated 3 x 2 = 6; no other district.
    assert s["commercial"] == 21
    assert (s["residential"], s["park"], s["industrial"]) == (0, 0, 0)


def test_6_2_commercial_worked_example_17_tiles_1_isolated_scores_34(cw_cfg):
    # §6.2 example: "17 tiles, 1 isolated: 30 + 2 + 1 x 2 = 34".
    # Rows 1-2 full (14) plus r3c1, r3c2: one group of 16; a lone C in the bottom-right corner.
    t = grid("CCCCCCC", "CCCCCCC", "CC.....", ".......", ".......", ".......", "......C")
    # N = 17 >= 15 -> 30; beyond 15: 17 - 15 = 2 -> +2; isolated 1 x 2 = 2.
    assert score(cw_cfg, t)["commercial"] == 34


@pytest.mark.parametrize(
    "n, expected",
    [
        # §6.2 tiers on one connected run of n tiles (filled in reading order, so none is isolated
        # when n >= 2): fewer than 5 -> 0; 5-9 -> 5; 10-14 -> 15; 15 or more -> 30, +1 per tile over 15.
        (0, 0),
        (2, 0),
        (4, 0),
        (5, 5),
        (9, 5),
        (10, 15),
        (14, 15),
        (15, 30),
        (16, 31),
        (20, 35),
        # a full table of C: 30 + (49 - 15) = 64
        (49, 64),
    ],
)
def test_6_2_commercial_tiers_and_beyond_15(cw_cfg, n, expected):
    t = np.zeros(49, np.int8)
    t[:n] = CODE["C"]
    assert score(cw_cfg, t)["commercial"] == expected


def test_6_2_isolated_tiles_still_count_toward_n(cw_cfg):
    # §6.2 "Isolated ... It still counts toward N": 5 lone C (no two share an edge) -> N = 5 -> tier 5,
    # plus 5 x 2 = 10 for isolation -> 15.
    t = cells_table(C=[(0, 0), (0, 2), (2, 0), (4, 4), (6, 6)])
    assert score(cw_cfg, t)["commercial"] == 15


def test_6_2_diagonal_neighbour_does_not_end_isolation(cw_cfg):
    # §6 "Touching always means sharing an edge... Diagonal contact never counts": two C touching only at
    # a corner are both isolated: N = 2 -> tier 0, isolated 2 x 2 = 4.
    t = cells_table(C=[(3, 3), (4, 4)])
    assert score(cw_cfg, t)["commercial"] == 4


# --------------------------------------------------------------------------- §6.3 park


def test_6_3_park_worked_example_6_parks_5_rows_4_columns_4_touching_scores_22(cw_cfg):
    # §6.3 example: "6 parks in 5 rows and 4 columns, 4 of them touching residential or commercial:
    # 4 + 5 x 2 + 4 x 2 = 22".
    # Parks (0-based): (0,0) (0,1) (2,0) (3,3) (4,5) (6,5) -> rows {0,2,3,4,6} = 5, columns {0,1,3,5} = 4.
    # R at (1,0) touches parks (0,0) and (2,0); C at (3,4) touches (3,3); C at (4,6) touches (4,5).
    # (0,1) touches (0,0) P, (1,1) and (0,2) empty; (6,5) touches (5,5), (6,4), (6,6) empty -> not touching.
    t = grid("PP.....", "R......", "P......", "...PC..", ".....PC", ".......", ".....P.")
    s = score(cw_cfg, t)
    assert s["park"] == 22
    # the helpers score too: one lone R -> largest 1 -> 5 x (1 // 2) = 0; two lone C -> tier 0 + 2 x 2 = 4
    assert (s["residential"], s["commercial"], s["industrial"]) == (0, 4, 0)


def test_6_3_park_rows_and_columns_top_out_at_28(cw_cfg):
    # §6.3 "Rows and columns together top out at 28": 7 parks on the main diagonal fill every row and
    # column (7 x 2 + 7 x 2 = 28) and touch nothing; a table full of parks also gives 28, not more.
    diagonal = cells_table(P=[(i, i) for i in range(7)])
    assert score(cw_cfg, diagonal)["park"] == 28
    full = np.full(49, CODE["P"], np.int8)
    assert score(cw_cfg, full)["park"] == 28


@pytest.mark.parametrize(
    "neighbour, expected",
    [
        # one park at (3,3) and one tile at (3,4): 1 row x 2 + 1 column x 2 = 4, plus 1 if the tile is R or C.
        ("R", 5),
        ("C", 5),
        ("I", 4),
    ],
)
def test_6_3_park_touching_counts_only_residential_and_commercial(cw_cfg, neighbour, expected):
    t = cells_table(P=[(3, 3)], **{neighbour: [(3, 4)]})
    assert score(cw_cfg, t)["park"] == expected


def test_6_3_park_next_to_park_is_not_touching(cw_cfg):
    # two parks side by side at (3,3), (3,4): 1 row x 2 + 2 columns x 2 = 6, neither touches R or C.
    t = cells_table(P=[(3, 3), (3, 4)])
    assert score(cw_cfg, t)["park"] == 6


def test_6_3_park_diagonal_contact_is_not_touching(cw_cfg):
    # §6: diagonal contact never counts. P at (3,3), R at (2,2), (2,4), (4,2), (4,4): park = 0 touching
    # + 1 row x 2 + 1 column x 2 = 4.
    t = cells_table(P=[(3, 3)], R=[(2, 2), (2, 4), (4, 2), (4, 4)])
    assert score(cw_cfg, t)["park"] == 4


def test_6_3_park_touching_several_homes_counts_once(cw_cfg):
    # §6.3 "+1 for each park touching": a park with R on all four sides is one touching park:
    # 1 + 2 + 2 = 5.
    t = cells_table(P=[(3, 3)], R=[(2, 3), (4, 3)], C=[(3, 2), (3, 4)])
    assert score(cw_cfg, t)["park"] == 5


# --------------------------------------------------------------------------- §6.4 industrial


def test_6_4_industrial_worked_example_7_tiles_5_on_ring_scores_19(cw_cfg):
    # §6.4 example: "7 tiles, 5 of them on the ring: 5 x 2 + 3 x 3 = 19".
    # Ring: (0,0) (0,1) (0,2) (3,0) (6,6); inside: (2,2) (3,3). 7 // 2 = 3 pairs.
    t = grid("III....", ".......", "..I....", "I..I...", ".......", ".......", "......I")
    assert score(cw_cfg, t)["industrial"] == 19


@pytest.mark.parametrize(
    "cells, expected",
    [
        ([(3, 3)], 0),  # one inner tile: no ring, 1 // 2 = 0 pairs
        ([(3, 3), (1, 5)], 3),  # two inner tiles (not even touching): one pair -> 3
        ([(0, 3)], 2),  # one ring tile (top edge): +2, no pair
        ([(6, 0), (0, 6)], 2 + 2 + 3),  # two corners: both on the ring and one pair
        ([(1, 1), (5, 5), (1, 5)], 3),  # the cells just inside the ring are not on it: 3 // 2 = 1 pair
    ],
)
def test_6_4_industrial_ring_and_pairs(cw_cfg, cells, expected):
    assert score(cw_cfg, cells_table(I=cells))["industrial"] == expected


def test_6_4_ring_has_24_cells(cw_cfg):
    # §6.4 "the outer ring (the 24 border cells of your table)": a full table of I has 24 ring tiles:
    # 24 x 2 + 3 x (49 // 2) = 48 + 72 = 120.
    assert score(cw_cfg, np.full(49, CODE["I"], np.int8))["industrial"] == 120


# --------------------------------------------------------------------------- §6.1 residential


@pytest.mark.parametrize(
    "size, expected",
    [
        # §6.1 largest cluster: +5 per 2 tiles, rounded down; a single cluster has no second (0).
        (1, 0),
        (2, 5),
        (3, 5),
        (4, 10),
        (5, 10),
        (7, 15),
    ],
)
def test_6_1_residential_single_cluster_has_no_second(cw_cfg, size, expected):
    t = cells_table(R=run((3, 0), size))
    assert score(cw_cfg, t)["residential"] == expected


def test_6_1_residential_largest_plus_second_size_x1(cw_cfg):
    # §6.1: clusters of 5 (row 0) and 3 (row 2): largest 5 x (5 // 2) = 10, second 3 x 1 = 3 -> 13.
    t = cells_table(R=run((0, 0), 5) + run((2, 0), 3))
    assert score(cw_cfg, t)["residential"] == 13


def test_6_1_residential_two_tied_largest_one_scores_as_second(cw_cfg):
    # §6.1 "If two clusters tie for largest, one scores as largest and the other as second":
    # two clusters of 4 -> 5 x (4 // 2) = 10 + 4 x 1 = 14.
    t = cells_table(R=run((0, 0), 4) + run((2, 0), 4))
    assert score(cw_cfg, t)["residential"] == 14


def test_6_1_residential_third_cluster_scores_nothing(cw_cfg):
    # §6.1 scores only the largest and the second-largest: clusters 5, 3, 2 -> 10 + 3 = 13 (the 2 adds 0).
    t = cells_table(R=run((0, 0), 5) + run((2, 0), 3) + run((4, 0), 2))
    assert score(cw_cfg, t)["residential"] == 13


def test_6_1_residential_cluster_follows_edges_around_corners(cw_cfg):
    # §6.1/Q7 a cluster is connected by shared edges, whatever its shape: an L of 3 down column 0 and
    # 3 more along row 2 from column 1 is one cluster of 6 -> 5 x 3 = 15.
    t = cells_table(R=run((0, 0), 3, vertical=True) + run((2, 1), 3))
    assert score(cw_cfg, t)["residential"] == 15


def test_q7_diagonal_residential_tiles_are_separate_clusters(cw_cfg):
    # Q7: "Tiles touching only at a corner are not [connected]": R at (0,0) and (1,1) are two clusters
    # of 1: largest 5 x (1 // 2) = 0, second 1 x 1 = 1.
    t = cells_table(R=[(0, 0), (1, 1)])
    assert score(cw_cfg, t)["residential"] == 1


@pytest.mark.parametrize(
    "sizes, expected",
    [
        # Appendix (v1.0): largest residential cluster scored size x 2; the second stays size x 1.
        ((7,), 14),  # v1.1 would give 15
        ((3, 2), 8),  # 3 x 2 + 2; v1.1 would give 5 + 2 = 7
        ((4, 4), 12),  # tie: 4 x 2 + 4
        ((1,), 2),  # v1.1 would give 0
    ],
)
def test_appendix_v1_0_residential_largest_size_x2(cw_cfg_v10, sizes, expected):
    t = cells_table(R=[cell for i, n in enumerate(sizes) for cell in run((2 * i, 0), n)])
    assert score(cw_cfg_v10, t)["residential"] == expected


def test_appendix_v1_0_other_districts_unchanged(cw_cfg, cw_cfg_v10):
    # The appendix changes only the largest residential cluster: a table without R scores the same.
    t = grid("CCCCCCC", "C...P..", "..I....", "C.C.C.I", "P......", ".......", "I.....P")
    a, b = score(cw_cfg, t), score(cw_cfg_v10, t)
    assert a == b


# --------------------------------------------------------------------------- hand-scored tables

DATA = Path(__file__).resolve().parents[2] / "data" / "citywright"
TABLES = sorted(p.stem for p in DATA.glob("*.txt"))


def test_hand_scored_tables_exist():
    assert len(TABLES) >= 4


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("version", ["v1.1", "v1.0"])
def test_6_hand_scored_tables(cw_cfg, cw_cfg_v10, name, version):
    # Each tests/data/citywright/<name>.txt has its expected breakdown, derived by hand line by line,
    # in <name>.json ("derivation").
    cfg = cw_cfg if version == "v1.1" else cw_cfg_v10
    expected = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))[version]
    text = (DATA / f"{name}.txt").read_text(encoding="utf-8")
    assert cw.score_table_text(cfg, text) == expected
    ref = score_reference(cfg, parse_table(text, 7))
    assert {d: ref[d] for d in DISTRICTS} == {d: expected[d] for d in DISTRICTS}
    assert ref["empty_cells"] == expected["empty_cells"]


# --------------------------------------------------------------------------- reference vs fast


@pytest.mark.parametrize("version", ["v1.1", "v1.0"])
def test_reference_and_fast_scorers_agree_on_500_random_tables(cw_cfg, cw_cfg_v10, version):
    cfg = cw_cfg if version == "v1.1" else cw_cfg_v10
    rng = np.random.default_rng(20250611)
    for i in range(500):
        # vary the density of empty cells and the mix of districts so that clusters of every size,
        # ties, lone shops and empty rows all show up
        p_empty = rng.uniform(0.0, 0.9)
        mix = rng.dirichlet(np.ones(4))
        probs = np.concatenate([[p_empty], (1 - p_empty) * mix])
        table = rng.choice(5, size=49, p=probs).astype(np.int8)
        fast = score_table(cfg, table)
        ref = score_reference(cfg, table)
        assert {d: fast[d] for d in DISTRICTS} == {d: ref[d] for d in DISTRICTS}, (i, draw_table(table, 7))
        assert fast["empty_cells"] == ref["empty_cells"] == int((table == 0).sum())


# --------------------------------------------------------------------------- parsing a drawn table


def test_parse_table_reads_draw_table_back():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 5, 49).astype(np.int8)
    text = draw_table(t, 7)
    assert np.array_equal(parse_table(text, 7), t)
    # spaces are optional and lower case is accepted
    assert np.array_equal(parse_table(text.replace(" ", "").lower(), 7), t)


@pytest.mark.parametrize(
    "text, message",
    [
        # too few lines
        ("RRRRRRR\n" * 6, "got 6 lines"),
        # too many lines
        ("RRRRRRR\n" * 8, "got 8 lines"),
        # line 3 is one cell short
        ("RRRRRRR\nRRRRRRR\nRRRRRR\nRRRRRRR\nRRRRRRR\nRRRRRRR\nRRRRRRR\n", "line 3"),
        # line 5 is one cell long
        ("RRRRRRR\n" * 4 + "RRRRRRRR\n" + "RRRRRRR\n" * 2, "line 5"),
        # line 2, column 4 holds an unknown district
        ("RRRRRRR\nRRRXRRR\n" + "RRRRRRR\n" * 5, "line 2, column 4"),
    ],
)
def test_score_table_text_rejects_malformed_tables_naming_the_line(cw_cfg, text, message):
    with pytest.raises(ValueError, match=message):
        cw.score_table_text(cw_cfg, text)
