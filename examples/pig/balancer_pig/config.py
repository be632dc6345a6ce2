"""Pig's rule numbers: the pydantic model of ``configs/pig/*.yaml``.

Every number a rule uses is here, read from YAML; the kernel never holds a literal rule number.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from balancer.core.config import MAX_RULE_INT, GameConfig, Strict


class Die(Strict):
    """Turn: the die a player rolls."""

    faces: int = Field(ge=2, le=100, description="faces of the die, numbered 1 to faces")
    bust: int = Field(ge=1, le=100, description="the face that loses the turn total and ends the turn")


class Greedy(Strict):
    hold_at: int = Field(ge=1, le=MAX_RULE_INT, description="greedy holds once its turn total reaches this")


class Agents(Strict):
    """Agent parameters, not rules: Pig's own agents. (``agents.mcts``, the generic search's, is
    validated by the search's own model, which balancer's registry adds.)"""

    greedy: Greedy


class PigConfig(GameConfig):
    """A Pig rule variant (the whole YAML file after ``extends:`` is resolved)."""

    game: Literal["pig"]
    players: list[Literal[2, 3, 4]] = Field(min_length=1)  # type: ignore[assignment]
    target: int = Field(ge=1, le=MAX_RULE_INT, description="Winning: banked points that win the game")
    die: Die
    max_turns: int = Field(
        ge=1, le=100 * MAX_RULE_INT, description="a safety stop: turns in all, then most points wins"
    )
    agents: Agents

    @model_validator(mode="after")
    def _check(self) -> PigConfig:
        if self.die.bust > self.die.faces:
            raise ValueError(f"die.bust: face {self.die.bust} is not on a die of {self.die.faces} faces")
        return self
