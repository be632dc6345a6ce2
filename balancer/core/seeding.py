"""Seed derivation (docs/architecture.md, "Determinism"; numpy's SeedSequence guidance).

Game ``i`` of a run with seed ``s`` uses ``SeedSequence(s, spawn_key=(i,))`` whatever the number of
jobs, the chunking or the machine. Its child 0 drives the game's own chance (site boards, deck
shuffles), so two variants run with the same seed see the same deals (common random numbers); its
child 1 drives the agents' choices (random moves, tie-breaks), kept apart from the deals so that an
agent's choices never shift them.
"""

from __future__ import annotations

import numpy as np

MAX_GAMES = 10**12
"""The most games one run (or study run, or check cell) may ask for: a trillion games, years of play
on any cluster, whose indices, seat counts and win-share sums stay exact in int64 and float64.
A request beyond it is refused with ``--games``/``games:`` named, before anything is planned."""


def game_seed(run_seed: int, game_index: int) -> np.random.SeedSequence:
    """The SeedSequence of game ``game_index`` (0-based) of a run seeded with ``run_seed``."""
    return np.random.SeedSequence(run_seed, spawn_key=(game_index,))


def game_rngs(seed: np.random.SeedSequence | int) -> tuple[np.random.Generator, np.random.Generator]:
    """(generator for the game's own chance, generator for the agents' choices): independent streams."""
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    key = tuple(seed.spawn_key)
    chance = np.random.SeedSequence(seed.entropy, spawn_key=key + (0,))
    agents = np.random.SeedSequence(seed.entropy, spawn_key=key + (1,))
    return np.random.Generator(np.random.PCG64(chance)), np.random.Generator(np.random.PCG64(agents))
