"""Urgency agents: greedy's priority list on hand-set positions, the expectimax dice distribution,
the card policy, and that search beats chance."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balancer.config import load_config
from balancer.core import protocol
from balancer.core.seeding import game_seed
from balancer.games import urgency
from balancer.games.urgency.agents import roll_probs
from balancer.games.urgency.kernel import unpack
from balancer.games.urgency.rules import MOVE, NEXT_ROLL, PS, put_in_play

from .test_rules import card, decision, position

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def plain():
    return load_config(ROOT / "configs" / "urgency" / "no-cards.yaml")


@pytest.fixture(scope="module")
def std():
    return load_config(ROOT / "configs" / "urgency" / "standard.yaml")


def greedy_pick(cfg, game):
    return urgency.make_agent(cfg, "greedy").choose(game, game.seat_to_move, np.random.default_rng(0))


@pytest.mark.parametrize(
    "mine,theirs,roll,expected,why",
    [
        ([13, 5], [7], 2, 13, "score beats capture (5 -> 7)"),
        ([5, 2], [7], 2, 5, "capture beats the safe rosette (6 -> 8 is not possible: 2 -> 4 rosette)"),
        ([6, 1], [], 2, 6, "safe rosette 8 beats rosette 4 (1 -> 3 is neither; 6 -> 8)"),
        ([2, 9], [], 2, 2, "rosette 4 beats everything below"),
        ([6, 10], [3, 5], 1, 6, "the rearmost threatened token (6, with 3 and 5 behind) before 10"),
        ([2], [], 1, 0, "enter rather than move 2 -> 3 (nothing threatened)"),
        ([3, 9], [], 2, 9, "else the foremost token (no supply left): 9 -> 11 rather than 3 -> 5"),
    ],
)
def test_greedy_priority_list(plain, mine, theirs, roll, expected, why):
    game = position(plain, mine=mine, theirs=theirs, roll=roll, my_supply=0 if expected == 9 else None)
    assert greedy_pick(plain, game) == decision(MOVE, expected), why


def test_dice_distribution(plain, std):
    """4 binary dice: 1/16, 4/16, 6/16, 4/16, 1/16; 3 dice (Tortoise): 1/8, 3/8, 3/8, 1/8, 0; a forced roll is certain."""
    game = position(plain, mine=[1])
    out = np.empty(5)
    roll_probs(game.S, game.T.rules, 0, out)
    assert out.tolist() == [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16]
    game = position(std, mine=[1])
    put_in_play(game.S, game.T.rules, 0, card(std, "Tortoise: Hard Shell"))
    roll_probs(game.S, game.T.rules, 0, out)
    assert out.tolist() == [1 / 8, 3 / 8, 3 / 8, 1 / 8, 0.0]
    game.S[PS + NEXT_ROLL] = 3
    roll_probs(game.S, game.T.rules, 1, out)
    assert out.tolist() == [0, 0, 0, 1, 0]


def test_expectimax_takes_a_winning_move(plain):
    game = position(plain, mine=[13, 5], roll=2, my_supply=0, scored=(6, 0))
    move = urgency.make_agent(plain, "expectimax").choose(game, 0, np.random.default_rng(0))
    assert move == decision(MOVE, 13)


def test_greedy_card_priority(std):
    """Greedy puts the card whose effect comes first in agents.card_priority into play: dice first."""
    game = urgency.new_game(std, 2, game_seed(4, 0))
    opts = [unpack(m)[1] for m in protocol.legal_moves(game)]
    prio = std.agents.card_priority
    names = urgency.card_names(std)
    effect = {
        i: prio.index(
            std.decks[n.split(":")[0].lower()]
            .cards[[c.name for c in std.decks[n.split(":")[0].lower()].cards].index(n.split(": ")[1])]
            .effect.do
        )
        for i, n in enumerate(names)
        if i in opts
    }
    assert unpack(greedy_pick(std, game))[1] == min(opts, key=lambda c: (effect[c], opts.index(c)))


def test_search_beats_random(plain):
    """Greedy and expectimax win clearly more than half of 200 no-card games against random
    (seats alternate)."""
    for agent in ("greedy", "expectimax"):
        wins = 0.0
        for i in range(200):
            table = [agent, "random"] if i % 2 == 0 else ["random", agent]
            out = urgency.play_game(plain, table, game_seed(9, i))
            wins += out.scores[table.index(agent)] > out.scores[1 - table.index(agent)]
        assert wins / 200 > 0.7, f"{agent}: {wins / 200:.2f}"
