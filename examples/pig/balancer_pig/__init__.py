"""Pig, a dice game, as a game for balancer (docs/adding-a-game.md walks through these files).

The rules are :mod:`.kernel`'s docstring; the rule numbers are :mod:`.config`'s model of
``configs/pig/*.yaml``; the agents are ``random`` (balancer's), ``greedy`` (:mod:`.agents`) and
``mcts`` (balancer's, through the compiled interface). Registered by the entry point ``pig`` in
``pyproject.toml``; this module's ``SPEC`` is what balancer reads.
"""

from __future__ import annotations

import sys

import numpy as np

from balancer.agents.mcts import play_kernel_game, table_plan
from balancer.agents.tables import kernel_transcript, with_mcts
from balancer.core import protocol
from balancer.core.game import Outcome
from balancer.core.numba_cache import drop_stale_cache
from balancer.core.registry import spec_from_module

drop_stale_cache(__file__)  # before the compiled modules load: numba's cache misses changes across modules

from .agents import GREEDY, Greedy, game_agent  # noqa: E402
from .config import PigConfig  # noqa: E402
from .kernel import ENGINE  # noqa: E402
from .metrics import METRICS  # noqa: E402

NAME = "pig"
CONFIG_MODEL = PigConfig
AGENTS = ("random", "greedy")
MAX_DECISIONS = 100_000


def new_game(cfg: PigConfig, n_players: int, seed: np.random.SeedSequence | int) -> protocol.Position:
    return protocol.new_game(ENGINE, cfg, n_players, seed)


legal_moves, is_legal_move, apply, is_over, outcome = (
    protocol.legal_moves,
    protocol.is_legal_move,
    protocol.apply,
    protocol.is_over,
    protocol.outcome,
)


def make_agent(cfg: PigConfig, name: str) -> protocol.UniformAgent | Greedy:
    if name == "random":
        return protocol.UniformAgent()
    if name == "greedy":
        return Greedy()
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")


def _play(cfg: PigConfig, agents: list[str], seed: np.random.SeedSequence | int, log_moves: int = 0):
    """One whole game in one compiled call: (final state, rule table, first moves, decisions)."""
    T = ENGINE.compile(cfg, len(agents))
    plan = table_plan(agents, cfg.agents.mcts, game_agents={"greedy": GREEDY})
    S, log, played = play_kernel_game(ENGINE, T, plan, seed, game_agent, MAX_DECISIONS, log_moves)
    return S, T, log, played


def play_game(cfg: PigConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """One whole game at full speed; ValueError for an unsupported player count or agent."""
    S, T, _, _ = _play(cfg, agents, seed)
    return ENGINE.outcome(S, T)


def transcript(cfg: PigConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """``balancer play``'s account: one line per decision, then the final scores."""
    _, _, log, played = _play(cfg, agents, seed, log_moves=MAX_DECISIONS)
    return kernel_transcript(SPEC, cfg, agents, seed, log[:played])


SPEC = with_mcts(
    spec_from_module(
        sys.modules[__name__],
        display_name="Pig",
        default_config="pig/pig.yaml",
        engine=ENGINE,
        metrics=METRICS,
        max_protocol_moves=MAX_DECISIONS,
    ),
    seat_agent=lambda cfg, name: (GREEDY, np.zeros(0)) if name == "greedy" else None,
    game_agent=game_agent,
)
"""Pig in balancer's registry (balancer/core/registry.py)."""
