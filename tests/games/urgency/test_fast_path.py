"""The no-card fast path (:func:`~balancer.games.urgency.agents.play_race_fast`) plays exactly the
games of the general engine (:func:`~balancer.games.urgency.agents.play_new_game`): same rolls,
same choices, same final state fields, for greedy and random seats (docs/architecture.md: keep the readable
version beside the fast one and test that they agree)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balancer.config import load_config
from balancer.core.seeding import game_rngs, game_seed
from balancer.games import urgency
from balancer.games.urgency.agents import GREEDY, RANDOM, play_new_game, play_race_fast
from balancer.games.urgency.kernel import priority, weights
from balancer.games.urgency.rules import MASK, PS, SUP
from balancer.games.urgency.scoring import final_rows

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("kinds", [(GREEDY, GREEDY), (RANDOM, GREEDY), (GREEDY, RANDOM), (RANDOM, RANDOM)])
def test_fast_path_plays_the_same_games(kinds):
    cfg = load_config(ROOT / "configs" / "urgency" / "no-cards.yaml")
    rules = urgency.compiled(cfg)
    k = np.array(kinds, np.int64)
    prio = priority(cfg)
    w = np.tile(weights(cfg), (2, 1))
    for i in range(150):
        general = play_new_game(rules, np.array([-1, -1]), k, prio, w, *game_rngs(game_seed(3, i)))
        fast = play_race_fast(rules, k, *game_rngs(game_seed(3, i)))
        assert final_rows(fast) == final_rows(general), f"game {i}, agents {kinds}"
        where = [MASK, SUP, PS + MASK, PS + SUP]
        assert fast[where].tolist() == general[where].tolist(), f"game {i}, agents {kinds}"
