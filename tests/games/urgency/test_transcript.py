"""Urgency transcripts narrate what the rules did: card effects, captures, passes and why, boards
right after the move they follow, and turn numbers that never run backwards."""

from __future__ import annotations

import re

import numpy as np
import pytest

from balancer.config import load_config
from balancer.core import protocol
from balancer.core.protocol import Position
from balancer.core.seeding import game_rngs
from balancer.games import urgency
from balancer.games.urgency.narrate import Narrator
from balancer.games.urgency.rules import (
    LOG,
    LOG_CAP,
    LOG_N,
    LOG_ON,
    MASK,
    MOVE,
    NEXT_ROLL,
    PS,
    ST_ROLL,
    STATE_SIZE,
    STEP,
    SUP,
    advance,
    apply_effect,
    decide,
    resolve,
    setup_state,
    unpack_event,
)

from .test_rules import STANDARD, card, plain, position, std  # noqa: F401 (plain, std: fixtures)

FULL_FORCE = STANDARD.parent / "full-force.yaml"


def narrate(cfg, game) -> list[str]:
    """The lines for the events recorded in ``game`` (logging switched on by the caller)."""
    S = game.S
    say = Narrator(cfg)
    say.events([unpack_event(int(x)) for x in S[LOG : LOG + min(int(S[LOG_N]), LOG_CAP)]])
    say.flush()
    return [line.strip() for line in say.lines]


def test_a_capture_is_announced(plain):
    # seat 1's token on 3 moves 3 to the centre tile 6, where seat 2 stands (not safe): a basic attack
    game = position(plain, mine=[3], theirs=[6], roll=3)
    game.S[LOG_ON] = 1
    decide(game.S, game.T.rules, MOVE, 3)
    assert narrate(plain, game) == ["seat 1 captures seat 2's token on tile 6, which returns to their supply"]
    assert game.S[PS + MASK] == 0 and game.S[PS + SUP] == 7


def test_an_attack_card_names_the_tokens_it_removes(std):
    # Bull: Stampede attacks 5, 6, 7: seat 2's tokens on 5 and 7 go; 8 is the safe rosette
    game = position(std, mine=[1], theirs=[5, 7, 8])
    game.S[LOG_ON] = 1
    apply_effect(game.S, game.T.rules, 0, card(std, "Bull: Stampede"))
    resolve(game.S, game.T.rules)
    assert narrate(std, game) == [
        "Bull: Stampede (seat 1's card, on their roll of 4): attacks tile(s) 5, 6, 7",
        "seat 1 removes seat 2's token on tile 5, which returns to their supply",
        "seat 1 removes seat 2's token on tile 7, which returns to their supply",
    ]


@pytest.mark.parametrize(
    "name,seat,theirs,line",
    [
        ("Rosette: Oracle", 0, [], "Rosette: Oracle (seat 1's card, on their score): sets seat 1's next roll to 4"),
        ("Rosette: Veil", 0, [], "Rosette: Veil (seat 1's card, on their score): sets seat 2's next roll to 1"),
        # King of Beasts moves the opponent's foremost token 3 back: 12 -> 9 (free)
        (
            "Lion: King of Beasts",
            0,
            [6, 12],
            "Lion: King of Beasts (seat 1's card, when a token of theirs is removed): "
            "moves seat 2's foremost token from tile 12 to tile 9",
        ),
        (
            "Lion: King of Beasts",
            0,
            [],
            "Lion: King of Beasts (seat 1's card, when a token of theirs is removed): "
            "no effect (seat 2 has no token on the board)",
        ),
    ],
)
def test_card_effects_are_narrated(std, name, seat, theirs, line):
    game = position(std, mine=[1], theirs=theirs)
    game.S[LOG_ON] = 1
    apply_effect(game.S, game.T.rules, seat, card(std, name))
    resolve(game.S, game.T.rules)
    assert narrate(std, game) == [line]


@pytest.mark.parametrize("roll,why", [(0, "a roll of 0 moves nothing"), (3, "no token can move 3")])
def test_a_pass_says_why(plain, roll, why):
    # seat 1: a token on 13, none in the supply; a roll of 3 would overshoot 15, a roll of 0 moves nothing
    game = position(plain, mine=[13], my_supply=0)
    S = game.S
    S[NEXT_ROLL] = roll
    S[STEP] = ST_ROLL
    S[LOG_ON] = 1
    advance(S, game.T.rules, game.rng)
    lines = narrate(plain, game)
    assert lines[0] == f"turn   0 seat 1: rolls {roll} (set by a card: no dice rolled): no move ({why})"


def _transcript(path, agents, seed):
    return urgency.transcript(load_config(path), agents, seed).splitlines()


def test_turns_never_run_backwards_and_alternate():
    for path, agents, seed in (
        (STANDARD, ["greedy+lion", "greedy+bull"], 3),
        (STANDARD, ["greedy", "greedy"], 7),
        (FULL_FORCE, ["random+eagle", "greedy+tortoise"], 3),
    ):
        last = 0
        for line in _transcript(path, agents, seed):
            m = re.match(r"  turn +(\d+) seat (\d): (rolls|with|no move|triggers)?", line)
            if m:
                turn = int(m.group(1))
                assert turn >= last, line
                last = turn
                if m.group(3):  # the seat whose turn it is: seat 1 odd, seat 2 even
                    assert int(m.group(2)) == 2 - turn % 2, line
        assert last > 20


def test_the_board_follows_the_move_above_it():
    # seed 3 (the tester's case): after a move with nothing between it and the board, the mover's row
    # has a token on the target tile and none on the tile it left
    lines = _transcript(STANDARD, ["greedy+lion", "greedy+bull"], 3)
    checked = 0
    for i, line in enumerate(lines):
        m = re.match(r"  turn +\d+ seat (\d): .*moves the token on tile (\d+) to tile (\d+)$", line)
        if m and lines[i + 1].startswith("      seat 1: "):
            seat, f, t = map(int, m.groups())
            row = lines[i + seat].split(":")[1].replace(" ", "")[:14]
            assert row[t - 1] == "x" and row[f - 1] == ".", (line, lines[i + seat])
            checked += 1
    assert checked > 50


def test_every_roll_decision_is_followed_by_its_roll():
    lines = _transcript(FULL_FORCE, ["random+eagle", "greedy+tortoise"], 3)
    rolls = [i for i, line in enumerate(lines) if line.endswith("rolls rather than trigger a card")]
    assert rolls
    for i in rolls:
        assert re.search(r"seat \d: rolls \d", lines[i + 1]), lines[i + 1]


def test_logging_never_changes_the_game(std):
    # the same seed with and without the event log: the same states after every decision
    R = urgency.compiled(std)
    agent = urgency.make_agent(std, "greedy")
    states = []
    for log in (0, 1):
        game_rng, agent_rng = game_rngs(11)
        S = setup_state(R, np.array([1, 2], np.int64), game_rng)
        S[LOG_ON] = log
        advance(S, R, game_rng)
        game = Position(urgency.ENGINE, std, urgency.ENGINE.compile(std, 2), S, game_rng)
        seen = []
        while not protocol.is_over(game):
            protocol.apply(game, agent.choose(game, game.seat_to_move, agent_rng))
            seen.append(S[:LOG_ON].copy())
            S[LOG_N] = 0
        states.append(seen)
    assert len(states[0]) == len(states[1]) > 50
    assert all((a == b).all() for a, b in zip(*states))
    assert STATE_SIZE == LOG + LOG_CAP
