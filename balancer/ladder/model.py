"""The ``ladder:`` section of a study file, and the study runs it expands into.

A ladder names agents of rising strength (the *rungs*), the player counts and the games per cell::

    ladder:
      rungs: [random, greedy, mcts@200, mcts@1000]   # weakest first
      players: [2, 4]
      games: 2000                                     # per cell; a multiple of every player count
      matchups: true                                  # also every rung against every other
      rungs_at: {"4": [random, greedy, mcts@200]}    # optional: fewer rungs at a player count
      published: {"4": [26, 25, 23, 26]}             # optional: seat win rates (%) to set beside ours
                                                      # ("v1.1/4": only beside variant v1.1)

Each cell is an ordinary study run (so ``balancer study``, ``validate``, ``baseline save``, ``check``,
``--jobs``, ``--scheduler`` and the cache of finished cells work on it unchanged), played under every
variant of the study:

* ``ladder-<n>p-mirror-<rung>``: a mirror table, the rung in every seat;
* ``ladder-<n>p-<a>-vs-<b>``: at 2 players, rung ``a`` against the stronger rung ``b`` (every pair
  once, seats rotating every game, so each plays first in half the games); at n players, one
  player of rung ``a`` against n - 1 of rung ``b`` (every ordered pair, seats rotated, so the lone
  player sits in each seat games / n times).

Rung names become part of run names (folder names) with any character outside letters, digits,
``.``, ``_`` and ``-`` written as ``_`` (``mcts@200`` -> ``mcts_200``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from balancer.config import format_key_path

RUNG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+@-]{0,39}$"
"""Rung (agent) names: letters, digits and ``_ . + @ -``, at most 40 characters (``greedy+ibex``,
``mcts@1000``)."""
MAX_RUNGS = 12
MAX_RUN_NAME = 64
"""The longest run name (each is a folder name; the study layer's limit)."""


class Ladder(BaseModel):
    """A skill ladder: rungs (agents, weakest first), player counts, games per cell."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    rungs: list[str] = Field(description="agents in order of rising strength, at least two, each once")
    players: list[int] = Field(min_length=1, description="player counts; a ladder is played at each")
    games: int = Field(
        ge=1, le=10**9, description="games per cell, a multiple of every player count (seats rotate evenly)"
    )
    matchups: bool = Field(
        True,
        description="also play every rung against every other (the matrix, the ratings and the skill depth need them)",
    )
    rungs_at: dict[str, list[str]] = Field(
        default_factory=dict,
        description="player count -> the rungs played there, when not all of "
        "them (at least two, in the order of rungs)",
    )
    published: dict[str, list[float]] = Field(
        default_factory=dict,
        description="player count (every variant) or <variant>/<player count> "
        "-> seat win rates in percent, set beside every rung's "
        "(e.g. a rulebook's table)",
    )
    published_note: str = Field(
        "published",
        min_length=1,
        max_length=200,
        description="where the published seat rates come from, for the report",
    )
    bootstrap: int = Field(1000, ge=0, le=100_000, description="bootstrap replicates of the ratings' intervals")

    @field_validator("players", mode="before")
    @classmethod
    def _one_count(cls, value: Any) -> Any:
        return [value] if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("rungs")
    @classmethod
    def _rungs(cls, rungs: list[str]) -> list[str]:
        if len(rungs) < 2:
            raise ValueError(f"a ladder needs at least two rungs (agents of rising strength), got {len(rungs)}")
        if len(rungs) > MAX_RUNGS:
            raise ValueError(f"at most {MAX_RUNGS} rungs, got {len(rungs)}")
        for name in rungs:
            if not re.fullmatch(RUNG_PATTERN, name):
                shown = name if len(name) <= 40 else name[:37] + "..."
                raise ValueError(f"{shown!r} is not an agent name (letters, digits and _ . + @ -, at most 40)")
        seen = set()
        for name in rungs:
            if name in seen:
                raise ValueError(f"{name!r} is listed twice; each rung is one agent, listed once")
            seen.add(name)
        return rungs

    @field_validator("players")
    @classmethod
    def _players(cls, players: list[int]) -> list[int]:
        for n in players:
            if not 2 <= n <= 8:
                raise ValueError(f"a ladder is played at 2 to 8 players, got {n}")
        if len(set(players)) != len(players):
            raise ValueError(f"a player count is listed twice: {players}")
        return players

    def published_for(self, variant: str, players: int) -> list[float] | None:
        """Published seat percentages for ``variant`` at ``players`` (``<variant>/<n>`` before ``<n>``)."""
        return self.published.get(f"{variant}/{players}", self.published.get(str(players)))

    def rungs_for(self, players: int) -> list[str]:
        """The rungs played at ``players`` (``rungs_at`` if it names the count, else every rung)."""
        return list(self.rungs_at.get(str(players), self.rungs))

    @model_validator(mode="after")
    def _fits(self) -> Ladder:
        for key, subset in self.rungs_at.items():
            if not key.isdigit() or int(key) not in self.players:
                raise ValueError(f"rungs_at.{key}: not a player count of the ladder ({self.players})")
            if len(subset) < 2 or len(set(subset)) != len(subset):
                raise ValueError(f"rungs_at.{key}: give at least two rungs, each once")
            unknown = [r for r in subset if r not in self.rungs]
            if unknown:
                raise ValueError(f"rungs_at.{key}: {unknown[0]!r} is not one of the rungs ({', '.join(self.rungs)})")
            if sorted(subset, key=self.rungs.index) != subset:
                raise ValueError(f"rungs_at.{key}: keep the order of rungs (weakest first)")
        step = math.lcm(*self.players)
        for n in self.players:
            if self.games % n:
                raise ValueError(
                    f"games: {self.games} is not a multiple of {n} (the seats of a {n}-player table), "
                    f"so the seats cannot rotate evenly; use {self.games + step - self.games % step}"
                )
        for key, values in self.published.items():
            m = re.fullmatch(r"(?:([A-Za-z0-9][A-Za-z0-9._-]*)/)?(\d+)", key)
            if not m or int(m.group(2)) not in self.players:
                raise ValueError(
                    f"published.{key}: not a player count of the ladder ({self.players}), nor <variant>/<player count>"
                )
            if len(values) != int(m.group(2)):
                raise ValueError(f"published.{key}: give {m.group(2)} seat percentages, got {len(values)}")
        cells(self)  # run names must be distinct and short enough
        return self


@dataclass(frozen=True)
class LadderCell:
    """One cell of a ladder: a study run. ``kind`` "mirror" (``row == col``) or "matchup" (``row``:
    the lone agent at n players, the weaker rung at 2; ``col``: the others); rungs as indices into
    the rungs played at ``players`` (:meth:`Ladder.rungs_for`)."""

    run: str
    players: int
    kind: Literal["mirror", "matchup"]
    row: int
    col: int
    agents: tuple[str, ...]


def slug(name: str) -> str:
    """A rung name as part of a folder name: characters outside ``[A-Za-z0-9._-]`` become ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def cells(ladder: Ladder) -> list[LadderCell]:
    """Every cell of the ladder, by player count: the mirror tables in rung order, then the match-ups
    (2 players: pairs i < j; n players: ordered pairs). Raises ValueError when two cells would get
    one run name or a name longer than :data:`MAX_RUN_NAME`."""
    out: list[LadderCell] = []
    for n in ladder.players:
        r = ladder.rungs_for(n)
        for i, name in enumerate(r):
            out.append(LadderCell(f"ladder-{n}p-mirror-{slug(name)}", n, "mirror", i, i, (name,)))
        if not ladder.matchups:
            continue
        for i in range(len(r)):
            for j in range(len(r)):
                if i == j or (n == 2 and j < i):
                    continue
                agents = (r[i], r[j]) if n == 2 else (r[i],) + (r[j],) * (n - 1)
                out.append(LadderCell(f"ladder-{n}p-{slug(r[i])}-vs-{slug(r[j])}", n, "matchup", i, j, agents))
    names: dict[str, LadderCell] = {}
    for c in out:
        if len(c.run) > MAX_RUN_NAME:
            raise ValueError(
                f"rungs: the run {c.run[:40]}... would have {len(c.run)} characters (at most "
                f"{MAX_RUN_NAME}); use shorter agent names"
            )
        if c.run in names:
            raise ValueError(f"rungs: two cells would both be named {c.run!r}; rename a rung")
        names[c.run] = c
    return out


def runs_of(ladder: Ladder) -> dict[str, dict[str, Any]]:
    """The study runs of the ladder (run name -> ``{players, agents, games}``)."""
    return {c.run: {"players": c.players, "agents": list(c.agents), "games": ladder.games} for c in cells(ladder)}


def first_error(exc: ValidationError, prefix: str = "ladder") -> str:
    """``ladder.<key path>: <message>`` for the first error of a validation of the ladder section."""
    err = exc.errors()[0]
    loc = format_key_path(tuple(err["loc"])) if err["loc"] else ""
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = (
            f"unknown key {err['loc'][-1]!r} (a ladder has rungs, players, games, matchups, rungs_at, "
            "published, published_note, bootstrap)"
        )
    m = re.match(r"^([\w.]+): (.*)$", msg, re.S)
    if m and not loc:
        loc, msg = m.group(1), m.group(2)
    return f"{prefix}.{loc}: {msg}" if loc else f"{prefix}: {msg}"


def expand_study_data(data: Any) -> Any:
    """A study file's data with its ``ladder:`` section (if any) validated and expanded into ``runs``.

    Used by the study model before it validates the rest, so that every tool that reads study files
    sees the ladder's cells as ordinary runs. Data without a ``ladder:`` key is returned unchanged.
    Raises ValueError with one line (``ladder.<key>: ...`` or ``runs.<name>: ...``) for a bad ladder
    section or a run of the file that has the name of a ladder cell.
    """
    if not isinstance(data, dict) or "ladder" not in data:
        return data
    raw = data["ladder"]
    if not isinstance(raw, dict):
        raise ValueError("ladder: a mapping of rungs, players, games (and matchups, published, bootstrap)")
    try:
        ladder = Ladder.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(first_error(exc)) from None
    except ValueError as exc:
        raise ValueError(f"ladder.{exc}") from None
    variants = data.get("variants")
    for key in ladder.published:
        label = key.rpartition("/")[0]
        if label and isinstance(variants, dict) and label not in variants:
            raise ValueError(
                f"ladder.published.{key}: {label!r} is not a variant of the study ({', '.join(map(str, variants))})"
            )
    given = data.get("runs") or {}
    if not isinstance(given, dict):
        return data  # the study model says what runs: must be
    runs = dict(given)
    for name, run in runs_of(ladder).items():
        if name in runs:
            raise ValueError(f"runs.{name}: the ladder makes a run of this name; rename this run")
        runs[name] = run
    return {**data, "ladder": ladder, "runs": runs}


def check_rungs(ladder: Ladder, spec: Any, configs: dict[str, Any], where: str) -> None:
    """Raise ValueError (a line per problem: ``<where>: ladder.rungs under <variant>: ...`` or
    ``ladder.players``) when a rung is not an agent of the game under some variant, or a player count
    is not supported by it. ``spec``: the game's GameSpec; ``configs``: variant label -> loaded config."""
    problems = []
    for label, cfg in configs.items():
        for rung in ladder.rungs:  # every rung, also one that rungs_at leaves out somewhere
            problem = spec.check_agent(rung, cfg)
            if problem:
                problems.append(f"{where}: ladder.rungs under {label}: {problem}")
        counts = getattr(cfg, "player_counts", None)
        for n in ladder.players:
            if counts is not None and n not in counts:
                problems.append(
                    f"{where}: ladder.players under {label}: {n} players are not supported by this "
                    f"variant (supported: {', '.join(map(str, counts))})"
                )
    if problems:
        raise ValueError("\n".join(problems))
