"""Baselines: a study's tracked numbers, stored so that ``balancer check`` can compare against them.

A baseline file (JSON, ``format`` 1) holds the study's name, game and seed, the balancer version,
and per cell (run x variant): players, agents, games, seed, the variant file's content hash
(``config_sha256``), the engine hash (``engine_sha256``, as in run.json) and every tracked number
(see :mod:`balancer.check.values`) with ``games``, ``mean``, ``variance`` (sample variance of the
per-game values, ddof=1) and, for win rates, ``successes`` (the summed win shares).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from balancer.limits import InputLimitError, read_json_bounded
from balancer.outdir import normalised, write_atomic
from balancer.sim.runner import RESULTS_FILE
from balancer.stats.flow import TRAJECTORIES_FILE
from balancer.version import __version__

from .errors import BaselineError
from .values import AGENT, SEAT, kind_of, moments, per_game_values

if TYPE_CHECKING:
    from balancer.study.model import Bound

FORMAT = 1
KIND = "balancer-baseline"


class _Number(BaseModel):
    """One tracked number of a baseline cell (extra keys are kept for later formats)."""

    model_config = ConfigDict(extra="allow", strict=True)
    kind: str | None = None
    games: int = Field(ge=2)
    mean: float = Field(allow_inf_nan=False)
    variance: float = Field(ge=0, allow_inf_nan=False)
    successes: float | None = Field(None, ge=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _rates_are_fractions(self) -> _Number:
        if self.kind == "win_rate" and not 0.0 <= self.mean <= 1.0:
            raise ValueError(f"a win rate must be between 0 and 1, got {self.mean}")
        if self.successes is not None and self.successes > self.games:
            raise ValueError(f"successes {self.successes} exceed games {self.games}")
        if self.successes is not None and abs(self.successes - self.mean * self.games) > 1e-6 * self.games:
            # save_baseline writes successes = the summed win shares and mean = successes / games
            raise ValueError(
                f"mean {self.mean} contradicts successes {self.successes} of {self.games} games "
                f"({self.successes / self.games:.6g})"
            )
        if (
            self.kind == "win_rate"
            and self.variance > self.mean * (1 - self.mean) * self.games / (self.games - 1) + 1e-9
        ):
            # values within [0, 1] with mean m have a sample variance of at most m (1 - m) n / (n - 1)
            raise ValueError(f"variance {self.variance} is more than a win rate of mean {self.mean} can have")
        return self


class _Cell(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    run: str
    variant: str
    players: int = Field(ge=1)
    agents: list[str] = Field(min_length=1)
    games: int = Field(ge=1)
    seed: int = Field(ge=0, le=2**63 - 1)
    config_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    numbers: dict[str, _Number] = Field(min_length=1)


class BaselineFile(BaseModel):
    """The shape :func:`load_baseline` accepts: every count a positive integer, every mean and variance
    finite, win rates within [0, 1], seeds within numpy's range."""

    model_config = ConfigDict(extra="allow", strict=True)
    study: str
    game: str
    seed: int = Field(ge=0, le=2**63 - 1)
    cells: list[_Cell] = Field(min_length=1)


def _numbers(values: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    out = {}
    for key, v in values.items():
        n, mean, var = moments(v)
        entry: dict[str, Any] = {"kind": kind_of(key), "games": n, "mean": mean, "variance": var}
        if entry["kind"] == "win_rate":
            entry["successes"] = float(np.sum(v[np.isfinite(v)]))
        out[key] = entry
    return out


def save_baseline(
    study_path: Path | str,
    out: Path | str,
    results_root: Path | str = "results",
    jobs: int = -1,
    force_replay: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    values: dict[tuple[str, str, str], np.ndarray] | None = None,
) -> dict[str, Any]:
    """Run the study (finished cells are reused, see :func:`balancer.study.run_study`), compute every
    tracked number of every cell and write the baseline to ``out`` (atomically); return it.
    ``values``, when given, is filled with each (run, variant, number)'s per-game values (for the history).

    Raises what run_study raises (StudyError, ConfigError, ValueError, GamesFailedError),
    BaselineError for an ``expect:`` target that ``check`` would refuse (both before anything is
    played), and OSError when ``out`` cannot be written.
    """
    from balancer.study import run_study

    check_expect_targets(study_path, jobs)
    result = run_study(study_path, results_root=results_root, jobs=jobs, force=force_replay, progress=progress, log=log)
    study = result.study
    cells = []
    for (run_name, variant), cell in result.cells.items():
        table = pq.read_table(cell.out_dir / RESULTS_FILE).sort_by([("game_index", "ascending"), ("seat", "ascending")])
        run = study.runs[run_name]
        meta = cell.meta
        traj_file = cell.out_dir / TRAJECTORIES_FILE
        trajectories = pq.read_table(traj_file) if traj_file.is_file() else None
        per_game = per_game_values(table, run.table, flow=True, trajectories=trajectories)
        if values is not None:
            values.update({(run_name, variant, key): v for key, v in per_game.items()})
        cells.append(
            {
                "run": run_name,
                "variant": variant,
                "players": run.players,
                "agents": run.table,
                "games": int(meta["games"]),
                "seed": int(meta["seed"]),
                "config_sha256": meta["config_sha256"],
                "engine_sha256": meta["engine_sha256"],
                "balancer_version": meta.get("versions", {}).get("balancer", __version__),
                "numbers": _numbers(per_game),
            }
        )
    data = {
        "format": FORMAT,
        "kind": KIND,
        "study": study.study,
        "game": study.game,
        "seed": study.seed,
        "balancer_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "cells": cells,
    }
    out = normalised(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, json.dumps(data, indent=1) + "\n")
    return data


def probe_values(study: Any, loaded: dict[str, Any], seed: int, runs: list[str]) -> dict[str, dict[str, np.ndarray]]:
    """Run name -> the tracked numbers of its game 0 under the study's first variant, with its
    trajectory (:func:`per_game_values`), played in this process before any full play: what the game
    reports. A run whose probe game raises is left out (the full play reports the failing game)."""
    from balancer.games import get_spec
    from balancer.sim.batches import GameRaisedError, play_range_records

    game, first = get_spec(study.game), next(iter(loaded.values()))
    out = {}
    for name in runs:
        table = study.runs[name].table
        try:
            results, trajectories = play_range_records(game, first, table, seed, 0, 1, 1)
        except GameRaisedError:
            continue
        out[name] = per_game_values(results, table, flow=True, trajectories=trajectories)
    return out


def check_expect_targets(study_path: Path | str, jobs: int = -1) -> None:
    """Raise BaselineError (naming the study file and ``runs.<run>.expect.<key>``) when an ``expect:``
    target names a number the run does not track, as ``balancer check`` would; the numbers are
    learnt from one game of each run with targets (:func:`probe_values`). Also raises what loading
    the study and its variants raises."""
    from balancer.study.model import load_study
    from balancer.study.runner import load_variants

    study, configs = load_study(study_path)
    runs = [name for name, run in study.runs.items() if run.expect]
    if not runs:
        return
    loaded = load_variants(study, configs, Path(study_path), study.seed, jobs)
    variant = next(iter(loaded))
    for name, numbers in probe_values(study, loaded, study.seed, runs).items():
        for key, bound in study.runs[name].expect.items():
            expect_items(name, variant, numbers, key, bound, str(study_path))


def load_baseline(path: Path | str) -> dict[str, Any]:
    """Read a baseline file; BaselineError naming the file (and the key) when it is missing, not
    JSON, not a balancer baseline of a known format, or holds a value no baseline can have (see
    :class:`BaselineFile`)."""
    path = Path(path)
    try:
        found = path.is_file()
    except OSError:  # a name too long for the file system, ...
        found = False
    if not found:
        raise BaselineError(f"{path}: no such baseline file (write one with 'balancer baseline save STUDY -o {path}')")
    try:
        data = read_json_bounded(path, "a baseline")  # bounded in size and nesting depth
    except InputLimitError as exc:
        raise BaselineError(str(exc)) from None
    except OSError as exc:
        raise BaselineError(f"{path}: not a readable JSON file ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise BaselineError(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != KIND or data.get("format") != FORMAT:
        raise BaselineError(f"{path}: not a balancer baseline (kind {KIND!r}, format {FORMAT})")
    try:
        BaselineFile.model_validate(data)
    except ValidationError as exc:  # every problem of the file, one line each
        lines = [
            f"{path}: {'.'.join(str(part) for part in err['loc']) or '(top level)'}: {err['msg']}"
            for err in exc.errors()
        ]
        raise BaselineError("\n".join(dict.fromkeys(lines))) from None
    return data


def expect_items(
    run_name: str, variant: str, numbers: dict[str, Any], key: str, bound: Bound, where: str
) -> list[tuple[str, Bound]]:
    """The tracked numbers an ``expect:`` key of run ``run_name`` names, each with its bound, given
    the ``numbers`` (keys: tracked number names) of cell ``run_name/variant``. Raises BaselineError
    naming ``where`` (the study file) and ``runs.<run>.expect.<key>`` when the cell has no such number
    (e.g. ``seat_win_rate:3`` of a 2-player run, a misspelt metric). Used by ``check`` and, before
    playing, by ``baseline save``."""
    if key in (SEAT, AGENT):
        chosen = [n for n in numbers if n.startswith(key + ":")]
        if not chosen:
            raise BaselineError(
                f"{where}: runs.{run_name}.expect.{key}: this run has no {key.replace('_', ' ')} "
                "(agent win rates exist only for mixed tables)"
            )
        return [(n, bound) for n in chosen]
    if key not in numbers:
        raise BaselineError(
            f"{where}: runs.{run_name}.expect.{key}: no such number in cell {run_name}/{variant}; "
            f"numbers are {', '.join(numbers)}"
        )
    return [(key, bound)]
