"""A stand-in game whose ladder answers are known by construction (tests of balancer ladder).

Every game is a Plackett-Luce draw of the finishing order: each place goes to one of the players
still unplaced with probability proportional to its weight ``strength[agent] * seat_factor[n][s] **
seat_power[agent]`` (seat s, n players). So, by construction:

* two players, equal seat factors: agent a beats agent b with probability ``w_a / (w_a + w_b)``
  (Bradley-Terry with log-strength ``ln w``);
* n players, equal seat factors: one a among n - 1 b's wins with probability ``w_a / (w_a + (n-1) w_b)``;
* a mirror table of an agent with seat power g: seat s wins with probability ``f_s^g / sum_t f_t^g``,
  so agents with different seat powers make a seat x rung interaction, equal ones none.

The order is the score (n - place), so there are no ties. The draw uses the game's own chance
stream (common random numbers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from balancer.core.game import Outcome
from balancer.core.registry import GameSpec
from balancer.core.seeding import game_rngs

NAME = "ladderstandin"


class LadderStandinConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Literal["ladderstandin"]
    variant: str = Field(min_length=1)
    players: list[int] = [2, 3, 4]
    strength: dict[str, float]
    seat_power: dict[str, float] = {}
    seat_factor: dict[str, list[float]] = {}

    @property
    def player_counts(self) -> list[int]:
        return sorted(set(self.players))


CONFIG_MODEL = LadderStandinConfig
AGENTS: tuple[str, ...] = ("weak", "mid", "strong", "top", "twin")


def check_agent(name: str, cfg: LadderStandinConfig | None = None) -> str | None:
    known = tuple(cfg.strength) if cfg is not None else AGENTS
    return None if name in known else f"unknown agent {name!r}; known agents: {', '.join(known)}"


def weights(cfg: LadderStandinConfig, agents: list[str]) -> np.ndarray:
    """Each seat's Plackett-Luce weight (see the module docstring)."""
    n = len(agents)
    factor = cfg.seat_factor.get(str(n), [1.0] * n)
    return np.array([cfg.strength[a] * factor[s] ** cfg.seat_power.get(a, 1.0) for s, a in enumerate(agents)])


def play_game(cfg: LadderStandinConfig, agents: list[str], seed) -> Outcome:
    """One game: the finishing order drawn place by place (Plackett-Luce)."""
    n = len(agents)
    chance, _ = game_rngs(seed)
    w = weights(cfg, list(agents))
    left = list(range(n))
    place = [0] * n
    for k in range(n):
        p = w[left] / w[left].sum()
        seat = left.pop(int(chance.choice(len(left), p=p)))
        place[seat] = k + 1
    scores = [n - p for p in place]
    return Outcome(
        scores=scores,
        tiebreak=[(0,)] * n,
        components={"place_points": scores},
        metrics={"place": [float(p) for p in place]},
        turns=[1] * n,
    )


def transcript(cfg: LadderStandinConfig, agents: list[str], seed) -> str:
    return f"{play_game(cfg, agents, seed)}\n"


def _not_stepwise(*args, **kwargs):
    raise NotImplementedError("the stand-in game is played whole")


SPEC = GameSpec(
    name=NAME,
    display_name="Ladder stand-in",
    config_model=LadderStandinConfig,
    default_config="ladderstandin/base.yaml",
    agents=AGENTS,
    own_check_agent=check_agent,
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
)
