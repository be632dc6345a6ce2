"""A tiny fake game for the runner tests: importable by name in loky workers (see conftest.py).

Scores are random draws (0..max_points-1, plus ``strong_bonus`` for the "strong" agent), so ties
happen and the rotation of a mixed table is visible in the win shares. "boom" fails every game,
"fragile" every game whose index is 3 mod 7.
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

NAME = "fake"
AGENTS: tuple[str, ...] = ("random", "strong", "boom", "fragile")


class FakeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Literal["fake"]
    variant: str
    max_points: int = 6
    strong_bonus: int = 3
    player_counts: list[int] = [1, 2, 3, 4]
    interrupt_at: int | None = None  # raise KeyboardInterrupt at this game index (tests of Ctrl-C)


CONFIG_MODEL = FakeConfig


def play_game(cfg: FakeConfig, agents: list[str], seed: np.random.SeedSequence) -> Outcome:
    if len(agents) not in cfg.player_counts:
        raise ValueError(f"{len(agents)} players not supported")
    if "boom" in agents:
        raise RuntimeError("boom agent exploded")
    index = seed.spawn_key[-1]
    if "fragile" in agents and index % 7 == 3:
        raise ValueError(f"fragile agent broke in game {index}")
    if cfg.interrupt_at == index:
        raise KeyboardInterrupt
    rng = np.random.default_rng(seed)
    base = [int(x) for x in rng.integers(0, cfg.max_points, size=len(agents))]
    bonus = [cfg.strong_bonus if a == "strong" else 0 for a in agents]
    luck = [float(x) for x in rng.random(len(agents))]
    scores = [b + x for b, x in zip(base, bonus)]
    return Outcome(
        scores=scores,
        tiebreak=[(0,) for _ in agents],
        components={"base": base, "bonus": bonus},
        metrics={"luck": luck},
        turns=[3 for _ in agents],
        labels={"hand": ["high" if x >= cfg.max_points // 2 else "low" for x in base]},
    )


def transcript(cfg: FakeConfig, agents: list[str], seed: np.random.SeedSequence) -> str:
    return f"fake game with {', '.join(agents)}\n{play_game(cfg, agents, seed)}\n"


def play_chunk(cfg: FakeConfig, agents: list[str], run_seed: int, start: int, stop: int) -> GameBatch:
    """The same games as :func:`play_game`, returned as one batch (the runner's batch path)."""
    outs = [play_game(cfg, seat_agents(agents, i), game_seed(run_seed, i)) for i in range(start, stop)]
    hands = ("high", "low")
    return GameBatch(
        scores=np.array([o.scores for o in outs], np.int64),
        tiebreak=np.array([o.tiebreak for o in outs], np.int64),
        components={k: np.array([o.components[k] for o in outs], np.int64) for k in outs[0].components},
        metrics={k: np.array([o.metrics[k] for o in outs]) for k in outs[0].metrics},
        turns=np.array([o.turns for o in outs], np.int64),
        labels={"hand": (np.array([[hands.index(h) for h in o.labels["hand"]] for o in outs]), hands)},
    )


def _not_stepwise(*args, **kwargs):
    raise NotImplementedError("the fake game is played whole (play_game), never step by step")


SPEC = GameSpec(
    name=NAME,
    display_name="Fake",
    config_model=FakeConfig,
    default_config="fake/none.yaml",
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
