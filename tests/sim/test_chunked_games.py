"""Whole chunks of games in one compiled call (a game's ``play_chunk``, issue 18) give exactly the rows
of game-by-game play (``play_game`` per game with ``game_seed(seed, i)``): every column, every game,
for every game and table that registers a chunk path, and for several chunk sizes; and a run gives
the same results with one job and with two.

The oracle is the runner's per-game path itself (the same ``_play`` with ``play_chunk`` removed from
the spec), so nothing here is a hard-coded result: any difference in a seed, a seat rotation, a
draw, a metric or a label shows up as a differing column.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pytest

from balancer.config import load_config
from balancer.core.registry import get_spec
from balancer.sim import play, runner

ROOT = Path(__file__).resolve().parents[2]

TABLES = [
    # (game, config under configs/, agents of game 0, games); mixed tables rotate seats every game
    ("urgency", "urgency/no-cards.yaml", ["greedy", "greedy"], 300),
    ("urgency", "urgency/no-cards.yaml", ["random", "greedy"], 300),
    ("urgency", "urgency/no-cards.yaml", ["random", "random"], 300),
    ("urgency", "urgency/no-cards.yaml", ["expectimax1", "greedy"], 60),
    ("urgency", "urgency/standard.yaml", ["greedy", "greedy"], 200),
    ("urgency", "urgency/standard.yaml", ["random", "greedy+ibex"], 200),
    ("urgency", "urgency/standard.yaml", ["expectimax+bull", "random+lion"], 40),
    ("urgency", "urgency/full-force.yaml", ["greedy+eagle", "random"], 100),
    ("citywright", "citywright/v1.1.yaml", ["random"] * 4, 60),
    ("citywright", "citywright/v1.1.yaml", ["greedy"] * 4, 12),
    ("citywright", "citywright/v1.1.yaml", ["greedy", "random"], 30),  # two players: discard for a tile
    ("citywright", "citywright/v1.1.yaml", ["commercial", "random", "greedy"], 9),
    ("citywright", "citywright/v1.1.yaml", ["greedy"], 10),  # solo, against the rival apprentice
    ("citywright", "citywright/v1.0.yaml", ["random", "greedy", "random", "random"], 12),
    ("agueda", "agueda/v1.yaml", ["greedy"] * 4, 40),
    ("agueda", "agueda/v1.yaml", ["random"] * 4, 40),
    ("agueda", "agueda/v1.yaml", ["greedy", "random", "lookahead"], 3),
    ("agueda", "agueda/solo-hard.yaml", ["greedy"], 40),  # solo: ai_score and solo_win
    ("agueda", "agueda/rows-5.yaml", ["random", "greedy"], 40),
    ("urban_sketchers", "urban_sketchers/base.yaml", ["greedy"] * 4, 12),
    ("urban_sketchers", "urban_sketchers/base.yaml", ["random"] * 4, 12),
    ("urban_sketchers", "urban_sketchers/base.yaml", ["greedy", "random"], 20),
    ("urban_sketchers", "urban_sketchers/base.yaml", ["random", "greedy", "greedy"], 12),
]


def _ids(table: tuple) -> str:
    return f"{table[1]}:{','.join(table[2])}"


def _rows(
    game: str, cfg, agents: list[str], seed: int, start: int, stop: int, chunked: bool, monkeypatch: pytest.MonkeyPatch
) -> pa.Table:
    spec = get_spec(game)
    module = __import__(spec.module, fromlist=["SPEC"])
    monkeypatch.setattr(module, "SPEC", spec if chunked else dataclasses.replace(spec, own_play_chunk=None))
    try:
        table, failures = play._play(spec.module, cfg, agents, seed, start, stop, catch=False)
    finally:
        monkeypatch.setattr(module, "SPEC", spec)
    assert not failures and table is not None
    return table


@pytest.mark.parametrize("table", TABLES, ids=_ids)
def test_a_chunk_equals_game_by_game_play(table, monkeypatch):
    game, config, agents, games = table
    cfg = load_config(ROOT / "configs" / config)
    spec = get_spec(game)
    assert spec.play_chunk is not None and spec.play_chunk(cfg, agents, 11, 0, 1) is not None
    start = 7  # an odd start: the seat rotation does not begin at game 0
    chunked = _rows(game, cfg, agents, 11, start, start + games, True, monkeypatch)
    per_game = _rows(game, cfg, agents, 11, start, start + games, False, monkeypatch)
    assert chunked.schema.equals(per_game.schema), (chunked.schema, per_game.schema)
    for name in per_game.column_names:
        assert chunked[name].equals(per_game[name]), name
    assert chunked.num_rows == games * len(agents)


@pytest.mark.parametrize("sizes", [(1, 2, 3), (5, 50), (97,)])
@pytest.mark.parametrize("table", TABLES[:2] + TABLES[4:6], ids=_ids)
def test_any_chunking_gives_the_same_rows(table, sizes, monkeypatch):
    game, config, agents, games = table
    cfg = load_config(ROOT / "configs" / config)
    whole = _rows(game, cfg, agents, 3, 0, games, True, monkeypatch)
    parts, start = [], 0
    while start < games:
        for size in sizes:
            stop = min(start + size, games)
            if stop > start:
                parts.append(_rows(game, cfg, agents, 3, start, stop, True, monkeypatch))
            start = stop
    assert pa.concat_tables(parts).equals(whole)


def test_one_job_and_two_jobs_give_the_same_results():
    spec = get_spec("urgency")
    cfg = load_config(ROOT / "configs" / "urgency" / "no-cards.yaml")
    one = pa.concat_tables(runner.run_games(spec, cfg, ["greedy", "random"], 3000, 5, jobs=1, progress=False))
    two = pa.concat_tables(
        runner.run_games(spec, cfg, ["greedy", "random"], 3000, 5, jobs=2, chunk_size=700, progress=False)
    )
    assert one.equals(two)


def test_a_table_without_a_compiled_chunk_falls_back_to_game_by_game_play(monkeypatch):
    # Urban Sketchers' rollout agent is not on the compiled engine: play_chunk declines (None) and
    # the runner plays those games one play_game at a time, with the same rows as without play_chunk
    spec = get_spec("urban_sketchers")
    cfg = load_config(ROOT / "configs" / "urban_sketchers" / "rollout-light.yaml")
    agents = ["rollout", "greedy"]
    assert spec.play_chunk(cfg, agents, 1, 0, 2) is None
    assert _rows("urban_sketchers", cfg, agents, 1, 0, 2, True, monkeypatch).equals(
        _rows("urban_sketchers", cfg, agents, 1, 0, 2, False, monkeypatch)
    )


def test_a_compiled_chunk_that_raises_while_every_game_plays_alone_is_said(monkeypatch):
    # a chunk path with a bug of its own (every game then plays alone): the rows are the per-game
    # path's, and the runner says so instead of silently playing every chunk game by game
    spec = get_spec("urgency")
    cfg = load_config(ROOT / "configs" / "urgency" / "no-cards.yaml")
    agents = ["greedy", "random"]

    def broken_chunk(*args):
        raise IndexError("a bug in the chunk path")

    module = __import__(spec.module, fromlist=["SPEC"])
    monkeypatch.setattr(module, "SPEC", dataclasses.replace(spec, own_play_chunk=broken_chunk))
    with pytest.warns(RuntimeWarning, match=r"urgency: the compiled chunk of games 0\.\.9 raised IndexError"):
        table, failures = play._play(spec.module, cfg, agents, 3, 0, 10, catch=True)
    monkeypatch.setattr(module, "SPEC", spec)
    assert failures == [] and table.equals(_rows("urgency", cfg, agents, 3, 0, 10, False, monkeypatch))
