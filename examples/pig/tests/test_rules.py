"""Pig's rules from positions set up by hand, one rule per test."""

from pathlib import Path

import numpy as np
from balancer_pig.agents import greedy_move
from balancer_pig.kernel import ENGINE, HOLD, OVER, ROLL, SEATS, TO_MOVE, TURN_TOTAL

from balancer.config import load_config

CFG = load_config(Path(__file__).resolve().parents[1] / "configs" / "pig" / "pig.yaml")
T = ENGINE.compile(CFG, 2)
K = ENGINE.kernel


class Die:
    """A stand-in generator whose die shows ``face`` (the kernel draws ``rng.random()``)."""

    def __init__(self, face: int):
        self.value = (face - 0.5) / CFG.die.faces

    def random(self) -> float:
        return self.value


def state(banked=(0, 0), total=0, to_move=0) -> np.ndarray:
    S = ENGINE.new_state(T, np.random.default_rng(0))
    S[SEATS : SEATS + 2], S[TURN_TOTAL], S[TO_MOVE] = banked, total, to_move
    return S


def test_a_roll_adds_its_face_to_the_turn_total():
    S = state(total=5)
    K.apply.py_func(S, T, ROLL, Die(4))
    assert S[TURN_TOTAL] == 9 and S[TO_MOVE] == 0


def test_the_bust_face_loses_the_turn_total_and_ends_the_turn():
    S = state(banked=(10, 0), total=12)
    K.apply.py_func(S, T, ROLL, Die(CFG.die.bust))
    assert S[TURN_TOTAL] == 0 and S[TO_MOVE] == 1 and S[SEATS] == 10


def test_holding_banks_the_turn_total_and_reaching_the_target_wins():
    S = state(banked=(90, 50), total=12)
    K.apply(S, T, HOLD, np.random.default_rng(0))
    assert S[SEATS] == 102 and S[OVER] == 1 and ENGINE.outcome(S, T).scores == [102, 50]


def test_hold_is_legal_only_with_a_turn_total():
    out = np.zeros(2, np.int64)
    assert K.legal(state(), T, out) == 1 and K.legal(state(total=3), T, out) == 2


def test_greedy_holds_at_its_threshold_or_the_target():
    assert greedy_move(state(total=CFG.agents.greedy.hold_at - 1), T) == ROLL
    assert greedy_move(state(total=CFG.agents.greedy.hold_at), T) == HOLD
    assert greedy_move(state(banked=(95, 0), total=5), T) == HOLD
