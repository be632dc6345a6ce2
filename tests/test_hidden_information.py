"""Every agent of every registered game is blind to what its seat cannot see (balancer.testing.hidden).

For every game with a compiled interface and every player count of its default config, every agent it
seats (``agents`` and ``extra_agents``: greedy, the specialists, lookahead, expectimax, rollout, mcts)
is asked, through the Python protocol, at positions along a fixed-seed game: the position and the
position determinized for the seat to move (the same observation for that seat, the hidden parts
resampled), each with its own chance stream, give the same decision and the same draws for equal
generators. Whole-turn planners are asked at a turn's first decision. A game registered without an
engine is reported as skipped (the cases are test_kernel_conformance.py's). The check ships in the package (:mod:`balancer.testing.hidden`).
"""

from __future__ import annotations

import pytest
from test_kernel_conformance import CASES, game

from balancer.testing import hidden


@pytest.mark.parametrize("name, n", CASES)
def test_every_agent_is_blind_to_what_its_seat_cannot_see(name, n):
    hidden.every_agent_is_blind_to_what_its_seat_cannot_see(game(name), n)
