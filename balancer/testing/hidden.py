"""Every agent of a game is blind to what its seat cannot see (for a game with a compiled interface).

For every agent the game seats (its ``agents`` and ``extra_agents``, ``mcts`` included), through the
Python protocol (``make_agent(cfg, name).choose``): at positions along two fixed-seed games (every
seat random; every seat greedy), the
position ``S`` and ``S`` determinized for the seat to move (``K.determinize``: the same
``engine.observation`` for that seat, the hidden parts resampled), each with a chance stream of its
own (the seat cannot see the future either), give a fresh agent the same decision and leave its
generator in the same state, for equal generators. An agent that plans a whole turn at once is asked
at a turn's first decision (a fresh agent refuses to take over a turn another began with ValueError:
those positions are passed over; one that completes such a turn is held to the same rule). The check
takes a :class:`~.protocol.Game` and a player count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.seeding import game_rngs, game_seed
from .protocol import Game

RUN_SEED = 13
"""The run seed of the games the positions come from (game 0 of the run, as ``balancer play`` seeds it)."""
WINDOWS = (0.0, 1 / 3, 2 / 3)
"""Where along each game the windows of positions start, as a share of its decisions."""
WINDOW = 8
"""Consecutive decisions per window: enough to hold a turn's first decision of every game (a turn
is at most four decisions at Citywright and Águeda), so whole-turn planners are asked too."""
MIN_ASKED = 3
"""The fewest positions at which each agent must have been asked (else the check proves little)."""


def tables(game: Game, n: int) -> list[list[str]]:
    """The tables whose games give the positions: every seat ``random``, then every seat ``greedy``
    when the game has a greedy agent (positions that players who play well reach)."""
    return [[name] * n for name in ("random", "greedy") if name in game.spec.agents]


def positions_along_a_game(game: Game, agents: list[str]) -> list[Any]:
    """Copies of the positions (the game's own Position class) before the decisions of
    :data:`WINDOWS` x :data:`WINDOW` of the game of ``agents`` seeded as ``balancer play`` seeds
    game 0 of run :data:`RUN_SEED`, stepped through the Python protocol."""
    spec, cfg = game.spec, game.cfg
    seed = game_seed(RUN_SEED, 0)
    pos = spec.new_game(cfg, len(agents), seed)
    _, rng = game_rngs(seed)
    players = [spec.make_agent(cfg, name) for name in agents]
    seen = []
    for _ in range(spec.max_protocol_moves):
        if spec.is_over(pos):
            break
        seen.append(pos.copy())
        seat = int(pos.seat_to_move)
        spec.apply(pos, players[seat].choose(pos, seat, rng))
    starts = sorted({int(f * len(seen)) for f in WINDOWS})
    picked = sorted({i for s in starts for i in range(s, min(s + WINDOW, len(seen)))})
    return [seen[i] for i in picked]


def indistinguishable_pair(game: Game, pos: Any, salt: int) -> tuple[Any, Any, bool]:
    """``pos`` and a copy of it determinized for the seat to move (generator ``salt``), with two
    different chance streams; and whether determinize changed anything (something was hidden)."""
    engine = game.spec.engine
    assert engine is not None, f"{game.spec.name} has no compiled interface"
    seat = int(pos.seat_to_move)
    a, b = pos.copy(), pos.copy()
    engine.kernel.determinize(b.S, b.T, seat, np.random.default_rng(1000 + salt))
    assert np.array_equal(engine.observation(a.S, a.T, seat), engine.observation(b.S, b.T, seat))
    a.rng, b.rng = np.random.default_rng(1), np.random.default_rng(2)
    return a, b, not np.array_equal(a.S, b.S)


def agent_names(game: Game) -> list[str]:
    """Every agent the game seats by name: its ``agents`` then its ``extra_agents``."""
    return list(dict.fromkeys((*game.spec.agents, *game.spec.extra_agents)))


def every_agent_is_blind_to_what_its_seat_cannot_see(game: Game, n: int) -> None:
    spec, cfg = game.spec, game.cfg
    positions = [pos for agents in tables(game, n) for pos in positions_along_a_game(game, agents)]
    pairs = [indistinguishable_pair(game, pos, i) for i, pos in enumerate(positions)]
    problems = []
    for name in agent_names(game):
        asked = changed = 0
        for i, (a, b, hidden) in enumerate(pairs):
            seat = int(a.seat_to_move)
            decided: list[tuple[int, object]] = []
            for pos in (a, b):
                before = pos.S.copy()
                rng = np.random.default_rng(7 + i)
                try:
                    move = spec.make_agent(cfg, name).choose(pos, seat, rng)
                except ValueError:
                    decided = []
                    break  # a whole-turn planner asked in the middle of a turn
                assert np.array_equal(pos.S, before), f"{name} changed the position it decided on"
                decided.append((move, rng.bit_generator.state))
            if not decided:
                continue
            asked += 1
            if decided[0] != decided[1]:
                changed += 1
                where = "" if hidden else " (determinize changed nothing: the chance stream differs)"
                problems.append(
                    f"{name}: position {i} (seat {seat + 1}){where}: "
                    f"{decided[0][0]!r} vs {decided[1][0]!r}"
                    + ("" if decided[0][0] != decided[1][0] else ", the same move but different draws")
                )
        assert asked >= MIN_ASKED, f"{name} was asked at {asked} positions only (of {len(pairs)})"
        if changed:
            problems.append(f"{name}: {changed} of {asked} positions changed")
    assert not problems, f"{spec.name} at {n} players, agents that read what their seat cannot see:\n" + "\n".join(
        problems
    )
