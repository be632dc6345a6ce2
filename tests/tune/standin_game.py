"""A stand-in game whose seat win rates follow from its bonus by a formula, for tests of sweeps and tunes.

Each seat rolls one die of ``faces`` faces and scores ``die + edge[s] + bonus[s]``; the highest score
wins, a tie is shared. With two players, seat 1 wins with probability
``P(D > b) + P(D = b) / 2`` where ``D = X - Y`` is the difference of two dice and
``b = (edge[2] + bonus[2]) - (edge[1] + bonus[1])``; since ``D`` is symmetric, the seats are exactly
equal when ``b = 0``, i.e. the bonus that compensates the edge is the edge itself
(:func:`seat1_rate` computes the formula). With six faces and edge ``[3, 0]``, seat 2's bonus
0, 1, 2, 3, 4 gives seat 1 31.5/36, 28/36, 23.5/36, 1/2, 12.5/36. With four players and edge
``[3, 2, 1, 0]``, the bonus ``[0, 1, 2, 3]`` makes every seat's total a die + 3: all seats equal.

The game's chance comes from the game generator of ``game_rngs`` (the deals), so two variants
played with one seed roll the same dice (common random numbers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from balancer.core.game import Outcome
from balancer.core.registry import GameSpec, known_agents_check
from balancer.core.seeding import game_rngs

NAME = "standin"
AGENTS: tuple[str, ...] = ("roller", "lucky")


class StandinConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Literal["standin"]
    variant: str = Field(min_length=1)
    players: list[int] = [2, 4]
    faces: int = Field(6, ge=2)
    edge: dict[str, list[int]]
    bonus: dict[str, list[int]]

    @model_validator(mode="after")
    def _check(self) -> StandinConfig:
        for key, values in self.bonus.items():
            if any(v < 0 for v in values):
                raise ValueError(f"bonus.{key}: a bonus is at least 0, got {values}")
            if len(values) != int(key):
                raise ValueError(f"bonus.{key}: needs {key} values, got {len(values)}")
        return self

    @property
    def player_counts(self) -> list[int]:
        return sorted(set(self.players))


CONFIG_MODEL = StandinConfig


def seat1_rate(faces: int, b: int) -> float:
    """Seat 1's win probability at two players when seat 2's total exceeds seat 1's by ``b`` before
    the dice: ``P(D > b) + P(D = b) / 2`` with ``P(D = d) = (faces - |d|) / faces^2``."""
    p = {d: (faces - abs(d)) / faces**2 for d in range(-faces + 1, faces)}
    return sum(q for d, q in p.items() if d > b) + p.get(b, 0.0) / 2


def play_game(cfg: StandinConfig, agents: list[str], seed) -> Outcome:
    """One game: every seat's die (the game's own chance), edge and bonus; "lucky" adds 1 to its die."""
    n = len(agents)
    chance, _ = game_rngs(seed)
    dice = [int(x) for x in chance.integers(1, cfg.faces + 1, size=n)]
    edge, bonus = cfg.edge[str(n)], cfg.bonus[str(n)]
    luck = [1 if a == "lucky" else 0 for a in agents]
    scores = [d + e + b + k for d, e, b, k in zip(dice, edge, bonus, luck)]
    return Outcome(
        scores=scores,
        tiebreak=[(0,) for _ in agents],
        components={"die": dice, "bonus": list(bonus)},
        metrics={"die": [float(d) for d in dice]},
        turns=[1] * n,
        labels={"parity": ["odd" if d % 2 else "even" for d in dice]},
    )


def transcript(cfg: StandinConfig, agents: list[str], seed) -> str:
    return f"{play_game(cfg, agents, seed)}\n"


def _not_stepwise(*args, **kwargs):
    raise NotImplementedError("the stand-in game is played whole")


SPEC = GameSpec(
    name=NAME,
    display_name="Stand-in",
    config_model=StandinConfig,
    default_config="standin/base.yaml",
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
)
