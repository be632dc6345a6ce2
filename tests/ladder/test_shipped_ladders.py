"""The shipped ladder files (configs/<game>/ladder.yaml): each validates like any study (every rung an
agent of its game under every variant, every player count supported) and has the cells the table of shipped
ladders in docs/commands/ladder.md states."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.study import load_study

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "game, cells, games",
    [
        # 2p: R mirrors + R(R-1)/2 pairs; n > 2: R mirrors + R(R-1) one-against-the-rest tables
        ("citywright", 10 + 9 + 16, 35 * 2004),  # 4 rungs at 2 and 4 players, 3 at 3 (rungs_at)
        ("urgency", 5 + 10, 15 * 2000),  # 5 rungs at 2 players, one variant (no cards)
        ("agueda", 6 + 9, 15 * 2000),  # 3 rungs at 2 and 4 players
        ("urban_sketchers", 3 + 3, 6 * 2000),  # 3 rungs at 2 players
    ],
)
def test_shipped_ladder_validates_with_the_stated_cells(game, cells, games):
    path = ROOT / "configs" / game / "ladder.yaml"
    _check(path, cells, games)


def test_urgency_ladder_with_decks_validates_with_the_stated_cells():
    _check(ROOT / "configs" / "urgency" / "ladder-decks.yaml", 4 + 6, 10 * 2000)  # 4 rungs, one variant


def test_urban_sketchers_four_player_ladder_validates_with_the_stated_cells():
    _check(ROOT / "configs" / "urban_sketchers" / "ladder-4p.yaml", 2 + 2, 4 * 2000)  # 2 rungs at 4 players


@pytest.mark.parametrize(
    "game, cells",
    [
        # rungs greedy and mcts: 2p 2 mirrors + 1 pair, 4p 2 mirrors + 2 one-against-three tables
        ("citywright", 3 + 4),
        ("agueda", 3 + 4),
        ("urban_sketchers", 3 + 4),
        ("urgency", 3),  # two players only
    ],
)
def test_shipped_search_ladder_validates_with_the_stated_cells(game, cells):
    _check(ROOT / "configs" / game / "ladder-search.yaml", cells, cells * 200)  # 200 games a cell


def _check(path: Path, cells: int, games: int) -> None:
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    study, _ = load_study(path)
    assert study.ladder is not None
    assert len(study.runs) * len(study.variants) == cells
    assert sum(r.games for r in study.runs.values()) * len(study.variants) == games
