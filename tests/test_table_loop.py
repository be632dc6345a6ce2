"""The core table loop (:mod:`balancer.core.table_loop`) and the games' registered tables.

Every registered table is a fused fast path of the general loop through the compiled interface
(:func:`balancer.agents.mcts.play_table`, which plays ``random`` itself and the game's own agents
through its ``game_agent``): for the same run seed, the chunk the core loop plays on the game's table
gives exactly the rows of the general loop played game by game, every column, with the seats rotated
and seeded as the runner does. The loop itself: seeding and rotation against Python's
``game_rngs``/``seat_agents``, and its errors.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import NamedTuple

import numba as nb
import numpy as np
import pyarrow as pa
import pytest

from balancer.agents.tables import play_mcts_table
from balancer.config import load_config
from balancer.core import table_loop
from balancer.core.registry import get_spec
from balancer.core.seeding import game_rngs, game_seed
from balancer.core.table_loop import has_table, play_chunk_records, register_table
from balancer.core.tables import seat_agents
from balancer.sim import play

ROOT = Path(__file__).resolve().parents[1]

GAMES = ("citywright", "agueda", "urban_sketchers", "urgency")

TABLES = [
    # (game, config under configs/, agents of game 0, games)
    ("citywright", "citywright/v1.1.yaml", ["random", "greedy", "commercial"], 6),
    ("citywright", "citywright/v1.1.yaml", ["greedy"], 4),
    ("agueda", "agueda/v1.yaml", ["greedy", "random", "greedy", "random"], 10),
    ("agueda", "agueda/solo-hard.yaml", ["greedy"], 6),
    ("urban_sketchers", "urban_sketchers/base.yaml", ["greedy", "random", "greedy"], 4),
    ("urgency", "urgency/no-cards.yaml", ["greedy", "random"], 60),  # the bit-set race
    ("urgency", "urgency/standard.yaml", ["random", "greedy+ibex"], 40),
]


def _general_spec(game: str):
    """The game's spec playing every game through the general loop (no chunk path)."""
    spec = get_spec(game)
    hooks = (spec.seat_agent, spec.game_agent, spec.compile_table)  # the general loop's hooks of the game

    def play_game(cfg, agents, seed):
        S, T, _, _ = play_mcts_table(spec, cfg, agents, seed, *hooks)
        return spec.engine.outcome(S, T)

    return dataclasses.replace(spec, own_play_chunk=None, own_play_game=play_game)


def _rows(spec, cfg, agents, seed, start, stop, monkeypatch) -> pa.Table:
    """The runner's rows of games ``start..stop-1`` played by ``spec`` (the game's SPEC until the test ends)."""
    monkeypatch.setattr(importlib.import_module(spec.module), "SPEC", spec)
    table, failures = play._play(spec.module, cfg, agents, seed, start, stop, catch=False)
    assert not failures and table is not None
    return table


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t[1]}:{','.join(t[2])}")
def test_each_table_plays_the_general_loops_games(table, monkeypatch):
    game, config, agents, games = table
    cfg = load_config(ROOT / "configs" / config)
    spec = get_spec(game)
    start = 5  # an odd start: the seat rotation does not begin at game 0
    fast = _rows(spec, cfg, agents, 13, start, start + games, monkeypatch)
    general = _rows(_general_spec(game), cfg, agents, 13, start, start + games, monkeypatch)
    assert fast.schema.equals(general.schema), (fast.schema, general.schema)
    for name in general.column_names:
        assert fast[name].equals(general[name]), name


TRAJECTORY_TABLES = [
    # the games whose kernel records the trajectory for the generic loop (Engine.record_checkpoint)
    ("citywright", "citywright/v1.1.yaml", ["random", "greedy", "commercial"]),
    ("citywright", "citywright/v1.1.yaml", ["greedy", "greedy"]),
    ("agueda", "agueda/v1.yaml", ["greedy", "random", "greedy", "random"]),
    ("agueda", "agueda/solo-hard.yaml", ["greedy"]),
    ("urban_sketchers", "urban_sketchers/base.yaml", ["greedy", "random", "greedy"]),
]


@pytest.mark.parametrize("table", TRAJECTORY_TABLES, ids=lambda t: f"{t[1]}:{','.join(t[2])}")
def test_the_general_loop_records_the_trajectory_the_games_own_loop_records(table):
    """A table with a search seat is played by the generic loop (agents/mcts.py), which records the
    game's trajectory through the kernel's record_checkpoint after every move: with the same seats
    (the game's agents through its game_agent codes) it records, checkpoint for checkpoint, what the
    game's own compiled loop records, and its last checkpoint is the final score."""
    from balancer.agents.tables import Trajectory

    game, config, agents = table
    cfg = load_config(ROOT / "configs" / config)
    spec = get_spec(game)
    for seed in (3, 4, 5):
        fast = spec.own_play_game(cfg, agents, seed)
        recorder = Trajectory(spec)
        S, T, _, _ = play_mcts_table(
            spec, cfg, agents, seed, spec.seat_agent, spec.game_agent, spec.compile_table, after_move=recorder
        )
        assert list(spec.engine.outcome(S, T).scores) == list(fast.scores)  # the same game
        assert fast.standings and recorder.standings() == fast.standings
        assert recorder.standings()[-1] == [float(x) for x in fast.scores]


def test_every_game_registers_a_table_with_a_cache_of_its_own():
    loops = set()
    for game in GAMES:
        spec = get_spec(game)
        T = spec.engine.compile(load_config(ROOT / "configs" / spec.default_config), 2)
        assert has_table(type(T)), game
        loops.add(table_loop._TABLES[type(T)][1].py_func.__qualname__)
    # one cache file per game: reading one game's never imports another's (or a test's) classes
    assert len(loops) == len(GAMES) and table_loop._TABLES[Toy][1].py_func.__qualname__ not in loops


# a toy table: records its seats' codes and rows and the first draws of its two generators


class Toy(NamedTuple):
    width: int


@nb.njit(cache=True)
def _toy(T, kinds, rows, ws, chance, agent_rng, record):
    n = kinds.shape[0]
    for s in range(n):
        record[s] = kinds[s]
        record[n + s] = int(rows[s, 0])
    record[2 * n] = int(chance.random() * 2**40)
    record[2 * n + 1] = int(agent_rng.random() * 2**40) + ws[0]


register_table(Toy, _toy)


def test_the_loop_seeds_and_rotates_as_the_runner():
    kinds = np.array([10, 11, 12], np.int64)
    rows = np.array([[0.0], [1.0], [2.0]])
    out = play_chunk_records(Toy(1), kinds, rows, (7,), 99, 4, 9, 8)
    names = ["a", "b", "c"]
    for j, i in enumerate(range(4, 9)):
        seats = seat_agents(names, i)
        assert list(out[j, :3]) == [10 + names.index(a) for a in seats]
        assert list(out[j, 3:6]) == [names.index(a) for a in seats]
        chance, agents = game_rngs(game_seed(99, i))
        assert out[j, 6] == int(chance.random() * 2**40)
        assert out[j, 7] == int(agents.random() * 2**40) + 7
    assert play_chunk_records(Toy(1), kinds, rows, (7,), 99, 4, 4, 8).shape == (0, 8)


def test_the_loop_refuses_what_it_cannot_play():
    class Unknown(NamedTuple):
        x: int

    with pytest.raises(ValueError, match="no compiled table"):
        play_chunk_records(Unknown(1), np.zeros(2, np.int64), np.zeros((2, 0)), (), 1, 0, 1, 1)
    with pytest.raises(ValueError, match="one per seat"):
        play_chunk_records(Toy(1), np.zeros(2, np.int64), np.zeros(2), (7,), 1, 0, 1, 8)
    register_table(Toy, _toy)  # again: the same table is kept
    with pytest.raises(ValueError, match="already registered"):
        register_table(Toy, lambda *a: None)
