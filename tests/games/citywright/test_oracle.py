"""The greedy agent against the rulebook oracle (``oracle.py``), achievements and their rulings included.

The oracle values every legal turn with its own scorer written from the rulebook (§6, §7) and the
variant's numbers; the greedy agent must play one of its best turns. The positions are set up by hand
(seeded): three or four tables of residential, commercial and industrial tiles with a few empty cells
and no park anywhere, so every Park subtotal is 0, which is where the Tree-lined ruling
(``achievements.tree_lined.all_parks_zero``) decides: under ``no_one`` a turn that lays the first park
of the game earns Tree-lined (3 points, the only table with a park leads), under ``every_player`` it
earns nothing more (the mover held it already, tied at 0). A second set keeps parks on the tables.
Until issue 47 the greedy search ignored the ruling: under ``no_one`` it played a turn 3 points worse
in 3 of the 12 positions at three players and at four (seeds 1, 6, 11).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from oracle import achievement_points, best_turns, district_points, is_best

import balancer.games.citywright as cw
from balancer.config import load_config

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "citywright"
POSITIONS = 12
EMPTY = 4  # empty cells per table: a few hundred legal turns, so the oracle stays fast


def achievements_cfg(ruling: str):
    """configs/citywright/achievements.yaml (Versatile 6 shapes 4 points, Mastery 4 of a shape 3
    points, Tree-lined 3 points) with ``all_parks_zero`` set to ``ruling``."""
    cfg = load_config(CONFIGS / "achievements.yaml")
    tree = cfg.achievements.tree_lined.model_copy(update={"all_parks_zero": ruling})
    return cfg.model_copy(update={"achievements": cfg.achievements.model_copy(update={"tree_lined": tree})})


def position(cfg, n: int, seed: int, districts: list[int]) -> cw.Game:
    """A dealt game whose tables are replaced by seeded random ones: ``districts`` on every cell but
    EMPTY random empty ones."""
    game = cw.new_game(cfg, n, seed)
    rng = np.random.default_rng(seed)
    cells = game.state.tables.shape[1]
    for s in range(n):
        table = rng.choice(districts, size=cells)
        table[rng.choice(cells, size=EMPTY, replace=False)] = 0
        game.state.tables[s][:] = table
    return game


def check_greedy(cfg, n: int, districts: list[int]) -> list[int]:
    """Seeds of the positions where the greedy's turn is not one of the oracle's best."""
    agent = cw.make_agent(cfg, "greedy")
    worse = []
    for seed in range(POSITIONS):
        game = position(cfg, n, seed, districts)
        best, keys = best_turns(cfg, game, agent.weights)
        turn = tuple(agent.plan(game, np.random.default_rng(seed)))
        if not is_best(keys[turn], best):
            worse.append(seed)
    return worse


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("ruling", ["every_player", "no_one"])
def test_7_greedy_reads_the_tree_lined_ruling_when_every_park_subtotal_is_0(n, ruling):
    assert check_greedy(achievements_cfg(ruling), n, [1, 2, 4]) == []


@pytest.mark.parametrize("ruling", ["every_player", "no_one"])
def test_7_greedy_plays_an_oracle_best_turn_with_parks_on_the_tables(ruling):
    assert check_greedy(achievements_cfg(ruling), 3, [1, 2, 3, 4]) == []


# the oracle's own scorer, checked on the rulebook's worked examples (§6.2-§6.4) and the ruling


def grid(*rows: str) -> np.ndarray:
    return np.array([".RCPI".index(ch) for row in rows for ch in row], np.int64)


def test_oracle_scores_the_rulebook_examples():
    cfg = achievements_cfg("every_player")
    # §6.2: 11 commercial tiles, 3 of them isolated: 15 + 3 x 2 = 21
    com = grid("CCCCCCC", "C......", ".......", "C.C.C..", ".......", ".......", ".......")
    assert (com == 2).sum() == 11
    assert district_points(cfg, com)[1] == 21
    # §6.3: 6 parks in 5 rows and 4 columns, 4 of them touching residential or commercial: 4 + 10 + 8 = 22
    park = grid("PR.....", ".P.....", "..PR...", "...P...", "PP.....", ".......", ".......")
    assert district_points(cfg, park)[2] == 4 + 5 * 2 + 4 * 2
    # §6.4: 7 industrial tiles, 5 of them on the ring: 5 x 2 + 3 x 3 = 19
    ind = grid("II.....", "I......", "..I....", "...I...", ".......", ".......", "I.....I")
    assert district_points(cfg, ind)[3] == 19
    # §6.1: clusters of 5 and 3 (diagonal contact does not join them): 5 x (5 // 2) + 3 = 13
    res = grid("RRRRR..", ".....R.", ".....RR", ".......", ".......", ".......", ".......")
    assert district_points(cfg, res)[0] == 13


def test_oracle_tree_lined_ruling():
    """Every Park subtotal 0: every_player gives all three seats Tree-lined (3 points), no_one nobody;
    a Park of 5 for seat 2 leads under both rulings. No ticks, so no Versatile or Mastery."""
    ticks = np.zeros((3, 9), np.int64)
    for ruling, zero in (("every_player", 3), ("no_one", 0)):
        cfg = achievements_cfg(ruling)
        assert [achievement_points(cfg, ticks, [0, 0, 0], s) for s in range(3)] == [zero] * 3
        assert [achievement_points(cfg, ticks, [0, 5, 0], s) for s in range(3)] == [0, 3, 0]
