"""The base of every game's config model (docs/architecture.md, "Conventions": pydantic, ``extra="forbid"``).

A game's model subclasses :class:`GameConfig`, narrowing ``game`` to its own name and ``players`` to
the counts its rules support; every nested part of a config subclasses :class:`Strict`.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_RULE_INT = 1_000
"""The largest magnitude of an integer rule number (points, money, copies, cards, spaces, steps): far
beyond any printed game, and small enough that every compiled engine's int64 state, a game's scores
and the summary's exact sums over a trillion games never overflow. Each game's config model bounds
every integer field by it (or by a tighter, rule-specific bound)."""

RuleInt = Annotated[int, Field(ge=-MAX_RULE_INT, le=MAX_RULE_INT)]
"""An integer rule number inside a list or mapping (``list[RuleInt]``), bounded by :data:`MAX_RULE_INT`."""


class Strict(BaseModel):
    """A config part: unknown keys are refused (a typo is an error, never ignored), values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class GameConfig(Strict):
    """The keys every rule variant has: the game, the variant's name and its player counts."""

    game: str
    variant: str = Field(
        min_length=1,
        max_length=64,
        description="the variant's name (default: the file's name); at most 64 characters, "
        "as it names result folders and report files",
    )
    players: list[int] = Field(min_length=1, description="player counts this variant supports")

    @field_validator("variant")
    @classmethod
    def _printable(cls, name: str) -> str:
        """A name is printed in terminals and reports: no control characters (a newline, ESC, a carriage
        return would let it forge a line of output, issue 28)."""
        bad = re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", name)
        if bad:
            raise ValueError(f"a variant name has no control characters; found {bad.group()!r}")
        return name

    @property
    def player_counts(self) -> list[int]:
        """Player counts this variant supports (the ``players`` key), sorted, without repeats."""
        return sorted(set(self.players))
