"""Pig, a dice game, as a game for balancer (docs/adding-a-game.md walks through these files).

The rules are :mod:`.kernel`'s docstring; the rule numbers are :mod:`.config`'s model of
``configs/pig/*.yaml``; the agents are ``random`` (balancer's), ``greedy`` (:mod:`.agents`) and
``mcts`` (balancer's, through the compiled interface). Registered by the entry point ``pig`` in
``pyproject.toml``; this module's ``SPEC`` is what balancer reads.
"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np

from balancer.core import protocol
from balancer.core.game import Outcome
from balancer.core.numba_cache import drop_stale_cache
from balancer.core.registry import spec_from_module
from balancer.core.seeding import game_rngs

drop_stale_cache(__file__)  # before the compiled modules load: numba's cache misses changes across modules

from .agents import GREEDY, RANDOM, Greedy, game_agent, play_recorded  # noqa: E402
from .config import PigConfig  # noqa: E402
from .kernel import ENGINE  # noqa: E402
from .metrics import METRICS  # noqa: E402

NAME = "pig"
CONFIG_MODEL = PigConfig
AGENTS = ("random", "greedy")
MAX_DECISIONS = 100_000


def make_agent(cfg: PigConfig, name: str) -> protocol.UniformAgent | Greedy:
    if name == "random":
        return protocol.UniformAgent()
    if name == "greedy":
        return Greedy()
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")


def _kinds(agents: list[str]) -> np.ndarray:
    """The compiled code of each seat's agent; ValueError for an unknown one."""
    codes = {"random": RANDOM, "greedy": GREEDY}
    for name in agents:
        if name not in codes:
            raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")
    return np.array([codes[name] for name in agents], np.int64)


def play_game(cfg: PigConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """One whole game at full speed (:func:`.agents.play_recorded`, the moves of :func:`.agents.play_to_end`);
    ValueError for an unsupported player count or agent. (A table with an ``mcts`` seat is balancer's
    to play, and records no trajectory.)

    Its trajectory (``Outcome.standings``, written to ``trajectories.parquet``): each seat's points
    banked, its public score, at the end of each round, and at the game's end."""
    T = ENGINE.compile(cfg, len(agents))
    kinds = _kinds(agents)
    chance, agent_rng = game_rngs(seed)
    S = ENGINE.new_state(T, chance)
    _, trajectory = play_recorded(S, T, kinds, chance, agent_rng, MAX_DECISIONS, True)
    return dataclasses.replace(ENGINE.outcome(S, T), standings=trajectory.astype(np.float64).tolist())


def transcript(cfg: PigConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """``balancer play``'s account: one line per decision (the same game as :func:`play_game`), then
    the final scores."""
    game = protocol.new_game(ENGINE, cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    players = [make_agent(cfg, name) for name in agents]
    lines = [
        f"Pig {cfg.variant}, {len(agents)} players: " + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents))
    ]
    while not protocol.is_over(game):
        seat = game.seat_to_move
        move = players[seat].choose(game, seat, agent_rng)
        lines.append(f"seat {seat + 1} ({agents[seat]}): {protocol.describe_move(game, move)}")
        protocol.apply(game, move)
    final = protocol.outcome(game)
    lines.append("final scores: " + ", ".join(f"seat {s + 1} {int(v)}" for s, v in enumerate(final.scores)))
    return "\n".join(lines)


SPEC = spec_from_module(
    sys.modules[__name__],
    display_name="Pig",
    default_config="pig/pig.yaml",
    engine=ENGINE,
    metrics=METRICS,
    max_protocol_moves=MAX_DECISIONS,
    seat_agent=lambda cfg, name: (GREEDY, np.zeros(0)) if name == "greedy" else None,
    game_agent=game_agent,
)
"""Pig in balancer's registry (balancer/core/registry.py)."""
