"""The sweep file, and the checks a sweep and a tune share (base variant, runs, paths, targets).

A sweep file (``configs/citywright/sweep-seat-bonus.yaml``)::

    sweep: citywright-seat-bonus          # name: results go to results/<sweep>/
    title: "Citywright: the last seat's bonus at four players"
    base: v1.1.yaml                        # the variant every point starts from (relative to this file)
    seed: 2026                             # every point plays the same game seeds (common random numbers)
    runs:
      mirror-4p: {players: 4, agents: [greedy], games: 2000}
    paths:                                 # one or two YAML paths, each a list or a range of values
      seat_bonus.4[3]: [0, 1, 2, 3, 4]
      # board.row_length: {from: 5, to: 9, step: 1}
    target:                                # optional: marked met / not shown / missed for every point
      seat_win_rate: equal
      seat_win_rate:4: {between: [0.23, 0.27]}

Every problem is reported before any game is played, one line each naming the file and key
(:class:`SweepError`): unknown keys, a base that is not a valid variant, a run the game cannot play,
a path the base does not have, an empty list of values, a value the game's config model refuses, a
target on a number the game does not report.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from balancer.config import (
    MAX_YAML_BYTES,
    ConfigError,
    ResolvedYaml,
    format_key_path,
    key_typos,
    load_config,
    load_yaml_text,
    resolve_yaml,
    yaml_error_text,
)
from balancer.core.registry import GameSpec, get_spec
from balancer.data import builtin_config, locate_config
from balancer.limits import MAX_GRID_POINTS, InputLimitError, grid_size, read_text_bounded
from balancer.naming import input_label, with_game
from balancer.paths import PathError, changes_text, get_path, inclusive_range, parse_path, point_label, validate_point
from balancer.sim.batches import GameRaisedError, play_range
from balancer.sim.request import agent_problems
from balancer.sim.runner import RunRequestError, check_run
from balancer.study.model import Run, is_file_quietly

from .targets import RunShape, Term, name_problems, resolve_terms

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class SweepError(ValueError):
    """A sweep or tune file that cannot be used; ``str()`` is one line per problem naming file and key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(_Strict):
    """``{from: 5, to: 9, step: 1}``: every value from ``from`` to ``to`` included."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    start: int | float = Field(alias="from")
    stop: int | float = Field(alias="to")
    step: int | float = 1

    def values(self) -> list[int | float]:
        return inclusive_range(self.start, self.stop, self.step)


class SweepRun(Run):
    """A run of a sweep or tune: players, agents (one name = mirror table), games per point."""

    @field_validator("expect")
    @classmethod
    def _no_expect(cls, expect: dict) -> dict:
        if expect:
            raise ValueError("a sweep or tune gives its targets under target: / objective:, not expect:")
        return expect


class Sweep(_Strict):
    """A whole sweep file (see the module docstring)."""

    sweep: str = Field(pattern=NAME_PATTERN, description="name; results go to results/<sweep>/")
    title: str = Field(min_length=1)
    base: str = Field(min_length=1, description="the variant every point starts from, relative to this file")
    seed: int = Field(ge=0, le=2**63 - 1)
    runs: dict[str, SweepRun] = Field(min_length=1)
    paths: dict[str, list[Any] | Range] = Field(
        min_length=1, max_length=2, description="one or two YAML paths: a list of values or {from, to, step}"
    )
    target: dict[str, Any] = Field(default_factory=dict, description="number -> target (equal, between, ...)")

    @field_validator("runs")
    @classmethod
    def _run_names(cls, runs: dict) -> dict:
        for name in runs:
            if not re.match(NAME_PATTERN, name):
                raise ValueError(f"{name}: run names use letters, digits, '.', '_' and '-' only")
        return runs


# --------------------------------------------------------------------------------------------------
# reading a file


def read_mapping(path: Path, kind: str, keys: str, own_key: str) -> dict:
    """The top-level mapping of a sweep or tune file. Raises SweepError for a missing file, bad YAML
    (with its line), a document that is not a mapping, or a rule variant given instead. A shipped file
    may be named ``<game>/<name>`` (:func:`balancer.data.locate_config`)."""
    path = locate_config(path)
    if not is_file_quietly(path):
        raise SweepError(f"{path}: no such {kind} file")
    try:
        text = read_text_bounded(path, MAX_YAML_BYTES, f"a {kind} file")
    except OSError as exc:
        raise SweepError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except InputLimitError as exc:
        raise SweepError(str(exc).replace(": not UTF-8 text", ": not a text file")) from None
    try:
        data = load_yaml_text(text)
    except yaml.YAMLError as exc:  # the same wording as validate and run: "YAML syntax error"
        raise SweepError(yaml_error_text(path, exc)) from None
    if not isinstance(data, dict):
        raise SweepError(f"{path}: a {kind} file is a mapping of keys ({keys})")
    if own_key not in data and ("extends" in data or "variant" in data or "game" in data):
        raise SweepError(f"{path}: a rule variant, not a {kind} file (a {kind} file has {own_key}:, base:, runs: ...)")
    if own_key not in data and "study" in data:
        raise SweepError(f"{path}: a study file, not a {kind} file; run it with 'balancer study {path}'")
    return data


_SHAPES = {
    "paths": "give a list of values, or {from: a, to: b, step: s}",
    "space": "give {int: [low, high]}, {float: [low, high]} or {choices: [a, b, ...]}",
}


def validation_lines(path: Path, exc: ValidationError, model: type[BaseModel] | None = None) -> list[str]:
    """One ``<file>: <key path>: <problem>`` line per pydantic error of a sweep or tune file; a value
    of ``paths:`` or ``space:`` of the wrong shape gets one line saying what is allowed; an unknown
    key close to a key of ``model`` says ``(did you mean '...'?)``."""
    lines = []
    typos = key_typos(exc.errors(include_url=False), model) if model is not None else {}
    meant = {(*loc[:-1], key) for loc, key in typos.items()}  # said by the typo's line: not missing twice
    for err in exc.errors():
        if err["type"] == "missing" and tuple(err["loc"]) in meant:
            continue
        loc = format_key_path(
            tuple(p for p in err["loc"] if p not in ("list[any]", "Range", "function-after[_one_kind()]"))
        )
        msg = err["msg"].removeprefix("Value error, ")
        top = str(err["loc"][0]) if err["loc"] else ""
        if err["type"] == "extra_forbidden":
            msg = f"unknown key {err['loc'][-1]!r}"
            if tuple(err["loc"]) in typos:
                msg += f" (did you mean {typos[tuple(err['loc'])]!r}?)"
        elif err["type"] == "missing":
            msg = "required key missing"
        elif (
            top in _SHAPES
            and len(err["loc"]) >= 2
            and err["type"] in ("list_type", "model_type", "dict_type", "model_attributes_type")
        ):
            msg = _SHAPES[top]
        elif top == "paths" and err["type"] == "too_long":
            msg = "give one or two YAML paths (a heatmap is the most a sweep draws)"
        elif err["type"] == "too_short":
            msg = "empty: give at least one"
        lines.append(f"{path}: {loc or '(top level)'}: {msg}")
    return list(dict.fromkeys(lines))


# --------------------------------------------------------------------------------------------------
# checks shared by sweep and tune


@dataclass
class Base:
    """The base variant of a sweep or tune: its file, resolved YAML, validated config and game."""

    path: Path
    resolved: ResolvedYaml
    cfg: Any
    spec: GameSpec


def load_base(file: Path, rel: str) -> Base:
    """The base variant named ``base: rel`` in ``file``. Raises SweepError naming ``file: base`` for a
    missing file, or with the config's own lines for a variant that is not valid."""
    base, problems = base_problems(file, rel)
    if base is None:
        raise SweepError("\n".join(problems))
    return base


def base_problems(file: Path, rel: str) -> tuple[Base | None, list[str]]:
    """The base variant named ``base: rel`` in ``file``, or None and its problems: ``file: base`` for
    a missing file, or the config's own lines (each naming its file and key) for a variant that is
    not valid."""
    path = file.parent / rel
    if not is_file_quietly(path) and (shipped := builtin_config(rel)) is not None:
        path = shipped  # a shipped variant by name: citywright/v1.1
    if not is_file_quietly(path):
        return None, [f"{file}: base: no such variant file {rel!r} (looked for {path.resolve()})"]
    try:
        cfg = load_config(path)
        resolved = resolve_yaml(path)
    except ConfigError as exc:
        return None, [f"{file}: base: {rel} is not a valid variant:", *exc.lines]
    return Base(path, resolved, cfg, get_spec(cfg.game)), []


def check_runs(file: Path, base: Base, runs: Mapping[str, Run], jobs: int) -> list[str]:
    """Problems (lines naming ``file: runs.<name>``) of runs the base cannot play; an agent the game
    does not know as ``runs.<name>.agents[<i>]`` (:func:`~balancer.sim.request.agent_problems`)."""
    problems = []
    for name, run in runs.items():
        unknown = agent_problems(base.spec, run.agents, [base.cfg])
        problems += [f"{file}: runs.{name}.agents[{i}]: {problem}" for i, problem in unknown]
        if unknown:
            continue
        try:
            check_run(base.spec, base.cfg, run.table, run.games, 0, jobs, None, source=str(base.path))
        except RunRequestError as exc:
            problems.append(f"{file}: runs.{name}: {exc.problem}")
        except ValueError as exc:
            problems.append(f"{file}: runs.{name}: {exc}")
    return problems


def schema_problems(path: Path, data: dict, exc: ValidationError, model: type[BaseModel], jobs: int) -> list[str]:
    """Every problem of a sweep or tune file whose schema fails: the schema's lines, then those of
    its base variant and of every run that is valid on its own under it (:func:`check_runs`)."""
    lines = validation_lines(path, exc, model)
    field = "objective" if "objective" in model.model_fields else "target"
    lines += [
        line for line in name_problems(data.get(field), data.get("runs"), f"{path}: {field}") if line not in lines
    ]
    rel = data.get("base")
    if not isinstance(rel, str) or not rel:
        return lines
    base, problems = base_problems(path, rel)
    lines += problems
    if base is None or not isinstance(data.get("runs"), dict):
        return lines
    runs = {}
    for name, raw in data["runs"].items():
        try:
            runs[str(name)] = SweepRun.model_validate(raw)
        except ValueError:
            continue
    return lines + check_runs(path, base, runs, jobs)


def check_path(file: Path, key: str, base: Base) -> str | None:
    """The problem of a YAML path (a line naming ``file: key``), or None when the base has it."""
    try:
        get_path(base.resolved.data, parse_path(key))
    except PathError as exc:
        return f"{file}: {key_where(key)}: {exc} (in {base.path.name} and what it extends)"
    return None


def key_where(key: str) -> str:
    """How a path key is named in a message: ``paths.seat_bonus.4[3]``."""
    return f"paths.{key}"


def check_value(file: Path, where: str, base: Base, changes: dict[str, Any]) -> str | None:
    """The problem (one line) of a point the config model refuses, or None."""
    try:
        validate_point(base.resolved, base.spec.config_model, changes, str(base.cfg.variant))
    except PathError as exc:
        return f"{file}: {where}: {exc}"
    except ValueError as exc:
        return f"{file}: {where}: {changes_text(changes)} is refused: {exc}"
    return None


def probe_shapes(base: Base, runs: Mapping[str, Run], seed: int, needed: bool) -> dict[str, RunShape]:
    """Run name -> what the run reports (:class:`RunShape`). When ``needed`` (a target names a metric
    or a label), one game of each run is played under the base, in this process, to learn its metric
    and label columns; else they are left empty. A run whose probe game raises reports nothing."""
    shapes = {}
    for name, run in runs.items():
        metrics: list[str] = []
        labels: list[str] = []
        if needed:
            try:
                table = play_range(base.spec, base.cfg, run.table, seed, 0, 1, jobs=1)
                metrics = [c.removeprefix("metric_") for c in table.column_names if c.startswith("metric_")]
                labels = [c.removeprefix("label_") for c in table.column_names if c.startswith("label_")]
            except GameRaisedError:
                pass
        shapes[name] = RunShape(name, run.table, metrics, labels)
    return shapes


def needs_probe(targets: dict[str, Any]) -> bool:
    """Whether a target names a metric or a label (learnt by playing one game)."""
    return any(not re.sub(r"^[^/]*/", "", str(k)).startswith(("seat_win_rate", "agent_win_rate")) for k in targets)


# --------------------------------------------------------------------------------------------------
# a sweep's points


@dataclass
class Point:
    """One point of a sweep: the value of every swept path, a file-name-safe label, its variant name."""

    values: dict[str, Any]
    label: str
    variant: str


@dataclass
class SweepPlan:
    """A checked sweep: the file, its model, the base, every point (grid order: the first path
    slowest), the targets resolved against each run, and what each run reports."""

    path: Path
    sweep: Sweep
    base: Base
    values: dict[str, list[Any]]
    points: list[Point]
    terms: list[Term]
    shapes: dict[str, RunShape] = field(default_factory=dict)

    @property
    def folder(self) -> str:
        """The default name of the sweep's results folder and page (:mod:`balancer.naming`): its
        ``sweep:`` name, prefixed with its game unless it says it, and for a file not shipped with
        balancer a short hash of its path (``citywright-seat-bonus``, ``citywright-mine-1a2b3c4d``)."""
        return with_game(self.base.spec.name, input_label(self.path, self.sweep.sweep))


def load_sweep(
    path: Path | str, jobs: int = -1, on_probe: Callable[[GameSpec], None] | None = None, probe: bool = True
) -> SweepPlan:
    """Read and check a sweep file; play nothing but (when a target names a metric or label) one game
    per run to learn what the game reports (``probe=False``: no game, and such targets are left
    unchecked and out of the plan). Raises SweepError with every problem, one line each."""
    path = locate_config(path)
    data = read_mapping(path, "sweep", "sweep, title, base, seed, runs, paths, target", "sweep")
    try:
        sweep = Sweep.model_validate(data)
    except ValidationError as exc:
        raise SweepError("\n".join(schema_problems(path, data, exc, Sweep, jobs))) from None
    names = name_problems(sweep.target, sweep.runs, f"{path}: target")
    base = load_base(path, sweep.base)
    problems = names + check_runs(path, base, sweep.runs, jobs)
    listed: dict[str, list[Any]] = {}
    for key, given in sweep.paths.items():
        try:
            listed[key] = given.values() if isinstance(given, Range) else list(given)
        except ValueError as exc:
            problems.append(f"{path}: {key_where(key)}: {exc}")
    points_in_grid = grid_size([len(vals) for vals in listed.values()])
    if points_in_grid > MAX_GRID_POINTS:  # refused before any value is checked (each a validation)
        counts = " x ".join(f"{len(vals):,}" for vals in listed.values())
        raise SweepError(
            "\n".join(
                [
                    *names,
                    f"{path}: paths: {counts} = {points_in_grid:,} points; a sweep has at most {MAX_GRID_POINTS:,}",
                ]
            )
        )
    values: dict[str, list[Any]] = {}
    for key, vals in listed.items():
        problem = check_path(path, key, base)
        if problem:
            problems.append(problem)
            continue
        if not vals:
            problems.append(f"{path}: {key_where(key)}: no values to try (an empty list, or from above to)")
            continue
        seen = [repr(v) for v in vals]
        if len(set(seen)) != len(seen):
            dup = next(v for v in vals if seen.count(repr(v)) > 1)
            problems.append(f"{path}: {key_where(key)}: the value {dup!r} is listed twice")
            continue
        for v in vals:
            problem = check_value(path, key_where(key), base, {key: v})
            if problem:
                problems.append(problem)
        values[key] = vals
    if problems:
        raise SweepError("\n".join(problems))
    points = []
    for combo in itertools.product(*values.values()):
        changes = dict(zip(values, combo))
        if len(changes) > 1:
            problem = check_value(path, "paths", base, changes)
            if problem:
                problems.append(problem)
                continue
        label = point_label(list(combo))
        points.append(Point(changes, label, f"{base.cfg.variant}-{label}"))
    if problems:
        raise SweepError("\n".join(problems))
    targets = sweep.target if probe or not needs_probe(sweep.target) else {}
    if on_probe is not None and needs_probe(targets):
        on_probe(base.spec)
    shapes = probe_shapes(base, sweep.runs, sweep.seed, needs_probe(targets))
    try:
        terms = resolve_terms(targets, shapes, f"{path}: target")
    except ValueError as exc:
        raise SweepError(str(exc)) from None
    return SweepPlan(path, sweep, base, values, points, terms, shapes)
