"""The batch path (a game's play_chunk -> GameBatch -> rows) gives the per-game path's rows exactly."""

from __future__ import annotations

import dataclasses

import fake_runner_game as fake
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balancer.core.batch import GameBatch, ranks_and_shares
from balancer.core.game import ranks_and_win_shares
from balancer.sim import play
from balancer.sim.records import batch_table


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.lists(
            st.tuples(
                st.lists(st.integers(0, 3), min_size=n, max_size=n),
                st.lists(st.tuples(st.integers(-2, 0), st.integers(0, 1)), min_size=n, max_size=n),
            ),
            min_size=1,
            max_size=6,
        )
    )
)
def test_vectorised_ranks_equal_the_per_game_definition(games):
    # small score and tie-break ranges make ties on the score, on the first and on every tie-breaker common
    scores = np.array([g[0] for g in games], np.int64)
    tiebreak = np.array([g[1] for g in games], np.int64)
    ranks, shares = ranks_and_shares(scores, tiebreak)
    for i, (s, t) in enumerate(games):
        r, w = ranks_and_win_shares(s, [tuple(x) for x in t])
        assert ranks[i].tolist() == r and shares[i].tolist() == pytest.approx(w)


def test_a_hand_worked_batch():
    # game 0: scores 5, 7, 7 with tie-breakers (0,), (-1,), (-1,): seats 2 and 3 tie on everything,
    # so both rank 1 and share the win, seat 1 ranks 3. game 1: 4, 4, 2 with (1,), (0,), (9,):
    # seat 1 wins on the tie-breaker, seat 2 ranks 2, seat 3 ranks 3 (its tie-breaker comes after the score).
    batch = GameBatch(
        scores=np.array([[5, 7, 7], [4, 4, 2]]),
        tiebreak=np.array([[[0], [-1], [-1]], [[1], [0], [9]]]),
        components={"a": np.array([[5, 7, 7], [4, 4, 2]])},
        metrics={"m": np.zeros((2, 3))},
        turns=np.full((2, 3), 3),
        labels={"hand": (np.array([[0, 1, 0], [1, 1, 1]]), ("high", "low"))},
    )
    table = batch_table(batch, "fake", "v", ["x", "y", "x"], 9, 10).to_pydict()
    assert table["rank"] == [3, 1, 1, 1, 2, 3]
    assert table["win_share"] == [0.0, 0.5, 0.5, 1.0, 0.0, 0.0]
    # game 10 seats agents[(s + 10) % 3]: positions 1, 2, 0 of [x, y, x] -> y, x, x;
    # game 11 seats agents[(s + 11) % 3]: positions 2, 0, 1 -> x, x, y
    assert table["agent"] == ["y", "x", "x", "x", "x", "y"]
    assert table["game_index"] == [10, 10, 10, 11, 11, 11] and table["seat"] == [1, 2, 3] * 2
    assert table["label_hand"] == ["high", "low", "high", "low", "low", "low"]


@pytest.mark.parametrize("agents", [["random", "strong", "random"], ["random"] * 4, ["strong"]])
def test_batch_and_per_game_paths_give_the_same_rows(agents, monkeypatch):
    cfg = fake.FakeConfig(game="fake", variant="v-test")
    batched = play._play(fake.SPEC.module, cfg, agents, 5, 3, 40, catch=False)[0]
    monkeypatch.setattr(fake, "SPEC", dataclasses.replace(fake.SPEC, own_play_chunk=None))
    per_game = play._play(fake.SPEC.module, cfg, agents, 5, 3, 40, catch=False)[0]
    assert batched.schema.equals(per_game.schema), (batched.schema, per_game.schema)
    assert batched.equals(per_game)


@pytest.mark.parametrize("rows", [0, 1, 9, 4096, 4097, 40_000])
def test_arrays_built_from_buffers_equal_pyarrows_own(rows):
    # the chunk's columns are built from numpy buffers (pa.array imports pandas, a dictionary cast
    # pyarrow.compute): they must be the very arrays pyarrow's own conversions give
    import pyarrow as pa

    from balancer.sim import records

    rng = np.random.default_rng(rows)
    names = ["greedy", "random", "mcts@30", "é"]
    codes = rng.integers(0, len(names), rows)
    expected = pa.array([names[c] for c in codes], pa.string())
    assert records._coded(codes, names).equals(expected)
    assert records._texts([names[c] for c in codes]).equals(expected)
    assert records._repeat("v1.1", rows).equals(pa.array(["v1.1"] * rows, pa.string()))
    for values in (rng.integers(-5, 5, rows), rng.random(rows), np.arange(rows, dtype=np.int32)[::-1]):
        built = records._numbers(values)
        assert built.type == pa.from_numpy_dtype(values.dtype) and built.null_count == 0
        assert np.array_equal(built.to_numpy(), values)
