"""The tune file: a base variant, runs, a search space of YAML paths and an objective built from targets.

A tune file (``configs/citywright/tune-seat-bonus.yaml``)::

    tune: citywright-seat-bonus-4p        # name: results go to results/<tune>/
    title: "Citywright: a four-player seat bonus that equalizes greedy players"
    base: v1.1.yaml                       # relative to this file
    seed: 2026
    runs:                                 # games: what the most promising candidates get (the top rung)
      mirror-4p: {players: 4, agents: [greedy], games: 8100}
    space:                                # YAML paths and their domains
      seat_bonus.4[0]: {int: [0, 5]}      # integers low..high (step: 1 unless given)
      # agents.greedy.coin: {float: [0.0, 1.0], step: 0.1}     floats, optionally on a grid or log: true
      # two_player.reduced_deck: {choices: [true, false]}      categorical
    objective:                            # targets (balancer.sweep.targets), summed with their weights
      seat_win_rate: equal
    search:                               # how games are spent
      sampler: auto                       # auto (grid when the space is small enough, else tpe), tpe, grid, random
      rungs: 4                            # successive halving: a first look at games / eta^(rungs-1) ...
      eta: 3                              # ... then a third go on with eta times the games, up to the top rung
    budget: {games: 200000}               # and/or candidates: N
    confirm: {half_width: 0.01}           # fresh seeds, enough games for +/-1 point (or games: N)
    response: {steps: 2}                  # each path's neighbours of the optimum, +/- 2 steps

Problems are reported before anything is played, one line each naming file and key
(:class:`balancer.sweep.model.SweepError`): an empty space, a path the base does not have, a bound
or choice the config model refuses, a target on a number the game does not report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from balancer.core.registry import GameSpec
from balancer.data import locate_config
from balancer.naming import input_label, with_game
from balancer.paths import inclusive_range
from balancer.sweep.model import (
    NAME_PATTERN,
    Base,
    SweepError,
    SweepRun,
    check_path,
    check_runs,
    check_value,
    load_base,
    needs_probe,
    probe_shapes,
    read_mapping,
    schema_problems,
)
from balancer.sweep.targets import RunShape, Term, name_problems, resolve_terms

GRID_VALUES = 64
"""Values of a domain checked one by one against the config model (larger ones: their ends)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Domain(_Strict):
    """One path's domain: ``{int: [low, high]}`` (optional ``step``), ``{float: [low, high]}``
    (optional ``step`` or ``log: true``) or ``{choices: [a, b, ...]}``."""

    int_: tuple[int, int] | None = Field(None, alias="int")
    float_: tuple[float, float] | None = Field(None, alias="float")
    choices: list[Any] | None = None
    step: int | float | None = Field(None, gt=0)
    log: bool = False

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _one_kind(self) -> Domain:
        kinds = [k for k in ("int_", "float_", "choices") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("give exactly one of int: [low, high], float: [low, high], choices: [a, b, ...]")
        if self.choices is not None:
            if self.step is not None or self.log:
                raise ValueError("step and log go with int or float, not choices")
            if not self.choices:
                raise ValueError("empty: give at least one choice")
            texts = [repr(c) for c in self.choices]
            if len(set(texts)) != len(texts):
                raise ValueError("a choice is listed twice")
            return self
        low, high = self.int_ if self.int_ is not None else self.float_  # type: ignore[misc]
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ValueError(f"low and high must be finite numbers, got {low} and {high}")
        if low > high:
            raise ValueError(f"empty: low {low} is above high {high}")
        if self.int_ is not None and self.step is not None and not float(self.step).is_integer():
            raise ValueError("an int domain takes an integer step")
        if self.log and (low <= 0 or self.step is not None):
            raise ValueError("log: true needs low above 0 and no step")
        self.grid()  # a finite domain of more than 10,000 values is refused here, naming the key
        return self

    @property
    def kind(self) -> str:
        return "int" if self.int_ is not None else "float" if self.float_ is not None else "categorical"

    def grid(self) -> list[Any] | None:
        """Every value of a finite domain (ints, stepped floats, choices), or None for a continuous one."""
        if self.choices is not None:
            return list(self.choices)
        if self.int_ is not None:
            return inclusive_range(self.int_[0], self.int_[1], int(self.step or 1))
        if self.step is not None:
            return inclusive_range(float(self.float_[0]), float(self.float_[1]), float(self.step))  # type: ignore[index]
        return None

    def checked_values(self) -> list[Any]:
        """The values checked against the config model before the search: all of a small finite
        domain, else its ends (and the middle of a float domain)."""
        grid = self.grid()
        if grid is not None:
            return grid if len(grid) <= GRID_VALUES else [grid[0], grid[-1]]
        low, high = self.float_  # type: ignore[misc]
        return [low, (low + high) / 2, high] if low != high else [low]

    def text(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        low, high = self.int_ if self.int_ is not None else self.float_  # type: ignore[misc]
        extra = f" by {self.step:g}" if self.step else (" (log scale)" if self.log else "")
        return f"{self.kind} {low:g} to {high:g}{extra}"


class Search(_Strict):
    """How the search spends games."""

    sampler: str = Field(
        "auto", pattern="^(auto|tpe|grid|random)$", description="auto: grid when every value fits the budget, else tpe"
    )
    rungs: int = Field(4, ge=1, le=8, description="successive-halving rungs; the first look is games / eta^(rungs-1)")
    eta: int = Field(
        3, ge=2, le=8, description="each rung keeps about 1/eta of the candidates, with eta times the games"
    )
    startup: int = Field(10, ge=1, le=1000, description="tpe: random candidates before the model is used")


class Budget(_Strict):
    """When the search stops: after ``games`` games or ``candidates`` distinct candidates, whichever first."""

    games: int | None = Field(None, ge=1)
    candidates: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _some(self) -> Budget:
        if self.games is None and self.candidates is None:
            raise ValueError("give games: N, candidates: N, or both")
        return self


class Confirm(_Strict):
    """The confirmation run: fresh seeds, ``games`` games, or enough for ``half_width`` on every win rate."""

    games: int | None = Field(None, ge=1)
    half_width: float | None = Field(None, gt=0, lt=0.5)
    max_games: int = Field(100_000, ge=1, description="cap of the games half_width asks for")
    base: bool = Field(True, description="also play the base variant with the confirmation's seeds (paired)")

    @model_validator(mode="after")
    def _one(self) -> Confirm:
        if (self.games is None) == (self.half_width is None):
            raise ValueError("give games: N or half_width: h (0.01 = +/-1 point)")
        return self


class Response(_Strict):
    """The response around the optimum: each path's neighbours, +/- ``steps`` steps, at the top rung."""

    steps: int = Field(2, ge=0, le=10)


class Tune(_Strict):
    """A whole tune file (see the module docstring)."""

    tune: str = Field(pattern=NAME_PATTERN, description="name; results go to results/<tune>/")
    title: str = Field(min_length=1)
    base: str = Field(min_length=1)
    seed: int = Field(ge=0, le=2**63 - 1)
    runs: dict[str, SweepRun] = Field(min_length=1)
    space: dict[str, Domain] = Field(description="YAML path -> domain")
    objective: dict[str, Any] = Field(description="number -> target; summed with their weights")
    search: Search = Field(default_factory=Search)
    budget: Budget
    confirm: Confirm = Field(default_factory=lambda: Confirm(half_width=0.01))
    response: Response = Field(default_factory=Response)

    @field_validator("space")
    @classmethod
    def _space(cls, space: dict) -> dict:
        if not space:
            raise ValueError("empty: give at least one YAML path and its domain")
        return space

    @field_validator("objective")
    @classmethod
    def _objective(cls, objective: dict) -> dict:
        if not objective:
            raise ValueError("empty: give at least one target (seat_win_rate: equal, ...)")
        return objective

    @field_validator("runs")
    @classmethod
    def _run_names(cls, runs: dict) -> dict:
        for name in runs:
            if not re.match(NAME_PATTERN, name):
                raise ValueError(f"{name}: run names use letters, digits, '.', '_' and '-' only")
        return runs


@dataclass
class TunePlan:
    """A checked tune: the file, its model, the base, the objective's terms, each run's rung sizes
    (cumulative games of each rung, a multiple of its players), and what each run reports."""

    path: Path
    tune: Tune
    base: Base
    terms: list[Term]
    rungs: dict[str, list[int]]
    shapes: dict[str, RunShape] = field(default_factory=dict)

    @property
    def folder(self) -> str:
        """The default name of the tune's results folder and page (:mod:`balancer.naming`): its
        ``tune:`` name, prefixed with its game unless it says it, and for a file not shipped with
        balancer a short hash of its path (``citywright-seat-bonus-4p``, ``citywright-mine-1a2b3c4d``)."""
        return with_game(self.base.spec.name, input_label(self.path, self.tune.tune))

    @property
    def space_size(self) -> int | None:
        """Distinct candidates of a finite space (None when a float path is continuous)."""
        size = 1
        for domain in self.tune.space.values():
            grid = domain.grid()
            if grid is None:
                return None
            size *= len(grid)
        return size

    def sampler_name(self) -> str:
        """The sampler ``auto`` resolves to: ``grid`` when every candidate fits the budget (the space's
        size at most the candidate budget, or the games budget covering a first look at every one),
        else ``tpe``."""
        chosen = self.tune.search.sampler
        if chosen != "auto":
            return chosen
        size = self.space_size
        if size is None:
            return "tpe"
        budget = self.tune.budget
        first = sum(r[0] for r in self.rungs.values())
        fits = (budget.candidates is None or size <= budget.candidates) and (
            budget.games is None or size * first <= budget.games
        )
        return "grid" if fits else "tpe"


def rung_sizes(games: int, players: int, rungs: int, eta: int) -> list[int]:
    """Cumulative games of each rung: ``games / eta^(rungs-1-k)`` rounded up to a multiple of
    ``players`` (so rotated seats stay balanced), the last exactly ``games`` rounded so; repeats
    (too few games for that many rungs) are dropped."""

    def whole(x: float) -> int:
        return max(players, players * math.ceil(x / players))

    sizes = [whole(games / eta ** (rungs - 1 - k)) for k in range(rungs)]
    return sorted(set(sizes))


def load_tune(
    path: Path | str, jobs: int = -1, on_probe: Callable[[GameSpec], None] | None = None, probe: bool = True
) -> TunePlan:
    """Read and check a tune file; play nothing but (when a target names a metric or label) one game
    per run (``probe=False``: no game; such targets are left unchecked and out of the plan). Raises
    SweepError with every problem, one line each naming file and key."""
    path = locate_config(path)
    data = read_mapping(
        path, "tune", "tune, title, base, seed, runs, space, objective, search, budget, confirm, response", "tune"
    )
    try:
        tune = Tune.model_validate(data)
    except ValidationError as exc:
        raise SweepError("\n".join(schema_problems(path, data, exc, Tune, jobs))) from None
    names = name_problems(tune.objective, tune.runs, f"{path}: objective")
    base = load_base(path, tune.base)
    problems = names + check_runs(path, base, tune.runs, jobs)
    for key, domain in tune.space.items():
        problem = check_path(path, key, base)
        if problem:
            problems.append(problem.replace(f": paths.{key}:", f": space.{key}:"))
            continue
        for value in domain.checked_values():
            problem = check_value(path, f"space.{key}", base, {key: value})
            if problem:
                problems.append(problem)
                break
    if problems:
        raise SweepError("\n".join(problems))
    objective = tune.objective if probe or not needs_probe(tune.objective) else {}
    if on_probe is not None and needs_probe(objective):
        on_probe(base.spec)
    shapes = probe_shapes(base, tune.runs, tune.seed, needs_probe(objective))
    try:
        terms = resolve_terms(objective, shapes, f"{path}: objective")
    except ValueError as exc:
        raise SweepError(str(exc)) from None
    rungs = {
        name: rung_sizes(run.games, run.players, tune.search.rungs, tune.search.eta) for name, run in tune.runs.items()
    }
    counts = {len(r) for r in rungs.values()}
    if len(counts) > 1:
        n = min(counts)
        rungs = {name: r[-n:] for name, r in rungs.items()}
    return TunePlan(path, tune, base, terms, rungs, shapes)
