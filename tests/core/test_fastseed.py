"""The compiled seeding equals numpy's SeedSequence + PCG64, word for word (balancer/core/fastseed.py).

numpy itself is the oracle: for any run seed and game index, the compiled derivation must give the
state numpy's ``SeedSequence(seed, spawn_key=(i, child))`` seeds PCG64 with, and a Generator re-seeded
in place must then draw exactly what a freshly made one draws (doubles, bounded integers, and 32-bit
draws that use the bit generator's buffered half).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from balancer.core.fastseed import ChunkGenerators, pcg64_words, seed_state
from balancer.core.seeding import game_rngs, game_seed

SEEDS = st.integers(0, 2**63 - 1)
INDICES = st.integers(0, 2**63 - 1)


def _numpy_pcg_words(seq: np.random.SeedSequence) -> list[int]:
    state = np.random.PCG64(seq).state["state"]
    mask = 2**64 - 1
    return [state["state"] & mask, state["state"] >> 64, state["inc"] & mask, state["inc"] >> 64]


@settings(max_examples=300, deadline=None)
@given(SEEDS, INDICES, st.sampled_from([0, 1]))
def test_seed_state_and_pcg64_seeding_match_numpy(run_seed, index, child):
    seq = np.random.SeedSequence(run_seed, spawn_key=(index, child))
    words = np.zeros(4, np.uint64)
    seed_state(np.uint64(run_seed), np.uint64(index), np.uint64(child), words)
    assert words.tolist() == seq.generate_state(4, np.uint64).tolist()
    out = np.zeros(4, np.uint64)
    pcg64_words(words, out)
    assert [int(x) for x in out] == _numpy_pcg_words(seq)


def test_small_values_and_word_boundaries_match_numpy():
    # 0 is one zero word, 2**32 - 1 one full word, 2**32 two words: the three cases of the coercion
    for run_seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1):
        for index in (0, 1, 2**32 - 1, 2**32):
            words = np.zeros(4, np.uint64)
            seed_state(np.uint64(run_seed), np.uint64(index), np.uint64(1), words)
            want = np.random.SeedSequence(run_seed, spawn_key=(index, 1)).generate_state(4, np.uint64)
            assert words.tolist() == want.tolist()


def test_reseeded_generators_draw_what_fresh_ones_draw():
    gens = ChunkGenerators()
    for run_seed, index in ((1, 0), (1, 1), (2026, 12345), (2**63 - 1, 7)):
        gens.agents.integers(0, 3, dtype=np.int32)  # leave a buffered 32-bit half behind
        gens.seed(run_seed, index)
        chance, agents = game_rngs(game_seed(run_seed, index))
        assert gens.chance.random(16).tolist() == chance.random(16).tolist()
        assert (
            gens.agents.integers(0, 5, size=16, dtype=np.int32).tolist()
            == agents.integers(0, 5, size=16, dtype=np.int32).tolist()
        )
        assert gens.agents.permutation(9).tolist() == agents.permutation(9).tolist()
