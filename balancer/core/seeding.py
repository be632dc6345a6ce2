"""Seed derivation (DESIGN.md, "Determinism"; numpy's SeedSequence guidance).

Game ``i`` of a run with seed ``s`` uses ``SeedSequence(s, spawn_key=(i,))`` whatever the number of
jobs, the chunking or the machine. Its first child drives the game's own chance (site boards, deck
shuffles), so two variants run with the same seed see the same deals (common random numbers); the
child ``1 + seat`` drives the agent in that seat.
"""

from __future__ import annotations

import numpy as np


def game_seed(run_seed: int, game_index: int) -> np.random.SeedSequence:
    """The SeedSequence of game ``game_index`` (0-based) of a run seeded with ``run_seed``."""
    return np.random.SeedSequence(run_seed, spawn_key=(game_index,))


def game_rngs(seed: np.random.SeedSequence | int, n_players: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """(rng for the game's chance, one rng per seat for its agent), all independent streams."""
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    base_key = tuple(seed.spawn_key)
    def child(k: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=base_key + (k,)))
    return child(0), [child(1 + s) for s in range(n_players)]
