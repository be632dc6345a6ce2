"""A tiny fake game that records trajectories (issue 49), for the runner's trajectory tests: importable
by name in loky workers (see conftest.py), like fake_runner_game.

Game ``i`` lasts ``1 + i % 3`` rounds; in each round every seat draws 0..max_points-1 points, and its
standing at the end of a round is its running total, so the last checkpoint's standings are the final
scores by construction. "fragile" fails every game whose index is 3 mod 7 (no rows, no trajectory).
``play_chunk`` gives the same games as one GameBatch (NaN after a game's last checkpoint) unless the
config's ``batch`` is off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from balancer.core.batch import GameBatch
from balancer.core.game import Outcome
from balancer.core.registry import GameSpec, known_agents_check
from balancer.core.seeding import game_seed
from balancer.core.tables import seat_agents

NAME = "fakeflow"
AGENTS: tuple[str, ...] = ("random", "fragile")


class FlowConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Literal["fakeflow"]
    variant: str
    max_points: int = 5
    player_counts: list[int] = [1, 2, 3, 4]
    batch: bool = True
    standings: bool = True  # False: the game records no trajectory
    interrupt_at: int | None = None  # raise KeyboardInterrupt at this game index (tests of Ctrl-C)


def play_game(cfg: FlowConfig, agents: list[str], seed: np.random.SeedSequence) -> Outcome:
    index = seed.spawn_key[-1]
    if "fragile" in agents and index % 7 == 3:
        raise ValueError(f"fragile agent broke in game {index}")
    if cfg.interrupt_at == index:
        raise KeyboardInterrupt
    rng = np.random.default_rng(seed)
    rounds = 1 + index % 3
    draws = rng.integers(0, cfg.max_points, size=(rounds, len(agents)))
    running = np.cumsum(draws, axis=0)
    scores = [int(x) for x in running[-1]]
    return Outcome(
        scores=scores,
        tiebreak=[() for _ in agents],
        components={"points": scores},
        metrics={},
        turns=[rounds for _ in agents],
        standings=running.astype(float).tolist() if cfg.standings else None,
    )


def transcript(cfg: FlowConfig, agents: list[str], seed: np.random.SeedSequence) -> str:
    return f"fake flow game\n{play_game(cfg, agents, seed)}\n"


def play_chunk(cfg: FlowConfig, agents: list[str], run_seed: int, start: int, stop: int) -> GameBatch | None:
    if not cfg.batch or "fragile" in agents:
        return None
    outs = [play_game(cfg, seat_agents(agents, i), game_seed(run_seed, i)) for i in range(start, stop)]
    n = len(agents)
    standings, checkpoints = None, None
    if cfg.standings:
        checkpoints = np.array([len(o.standings or []) for o in outs], np.int64)
        standings = np.full((len(outs), int(checkpoints.max()), n), np.nan)
        for g, o in enumerate(outs):
            standings[g, : checkpoints[g]] = o.standings
    return GameBatch(
        scores=np.array([o.scores for o in outs], np.int64),
        tiebreak=np.zeros((len(outs), n, 0), np.int64),
        components={"points": np.array([o.scores for o in outs], np.int64)},
        metrics={},
        turns=np.array([o.turns for o in outs], np.int64),
        standings=standings,
        checkpoints=checkpoints,
    )


def _not_stepwise(*args, **kwargs):
    raise NotImplementedError("the fake flow game is played whole (play_game), never step by step")


SPEC = GameSpec(
    name=NAME,
    display_name="Fake flow",
    config_model=FlowConfig,
    default_config="fakeflow/none.yaml",
    agents=AGENTS,
    own_check_agent=known_agents_check(AGENTS),
    own_play_game=play_game,
    own_transcript=transcript,
    own_make_agent=_not_stepwise,
    new_game=_not_stepwise,
    legal_moves=_not_stepwise,
    apply=_not_stepwise,
    is_over=_not_stepwise,
    outcome=_not_stepwise,
    is_legal_move=_not_stepwise,
    source=Path(__file__),
    module=__name__,
    own_play_chunk=play_chunk,
)
