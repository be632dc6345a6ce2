"""Cells of sweeps and tunes: a variant file played for one run with one seed, cached like a study's.

A cell is a results directory written by :func:`balancer.sim.runner.run_to_dir`; it is reused when
it holds a finished run of exactly the same request (config content, engine code, seed, games,
agents: the study layer's test, :func:`balancer.study.runner._finished`), continued when it holds
an interrupted one of the same request, and played otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from balancer.config import config_sha256
from balancer.core.registry import GameSpec
from balancer.outcomes import Cell
from balancer.sim.progress import Overall
from balancer.sim.rundir import RESULTS_FILE, RunDir
from balancer.sim.runner import engine_sha256, run_to_dir
from balancer.study.runner import _finished as finished_cell

from .targets import game_numbers


def cell_request(spec: GameSpec, config_path: Path, agents: Sequence[str], games: int, seed: int) -> dict[str, Any]:
    """What a finished cell must have been played with to be reused (run.json keys and values)."""
    return {
        "config_sha256": config_sha256(config_path),
        "engine_sha256": engine_sha256(spec),
        "seed": seed,
        "games": games,
        "agents": list(agents),
        "n_players": len(agents),
    }


def play_cell(
    spec: GameSpec,
    cfg: Any,
    config_path: Path,
    run: str,
    label: str,
    agents: Sequence[str],
    games: int,
    seed: int,
    out_dir: Path,
    *,
    jobs: int = -1,
    scheduler: str | None = None,
    progress: bool = False,
    command: str = "",
    log: Callable[[str], None] | None = None,
    what: str = "",
    overall: Overall | None = None,
) -> Cell:
    """The cell ``out_dir`` of ``games`` games of ``agents`` under the variant ``config_path`` with
    ``seed``: reused if finished for the same request, else played (an interrupted cell of the same
    request is continued). ``cell.reused`` says which; ``cell.meta``/``cell.summary`` are its run.json
    and summary.json. ``overall``: the count across the cells of a sweep, ``what`` the cell's name in
    it (a reused cell counts as done at once). Raises what :func:`run_to_dir` raises (GamesFailedError
    when games raised)."""
    out_dir = Path(out_dir)
    cell = Cell(run, label, Path(config_path), out_dir)
    if overall is not None:
        overall.begin_cell(what or label, games)
    if finished_cell(out_dir, cell_request(spec, Path(config_path), agents, games, seed)):
        cell.reused = True
        if overall is not None:
            overall.end_cell(None)
    else:
        if log:
            count = f"; {overall.text(None, time.perf_counter())}" if overall is not None else ""
            log(f"{overall.prefix() if overall is not None else what or label}: {games:,} games{count}")
        run_to_dir(
            spec,
            cfg,
            config_path,
            list(agents),
            games,
            seed,
            jobs,
            out_dir,
            force=True,
            command=command,
            progress=progress,
            scheduler=scheduler,
            resume=None,
            overall=overall,
        )
    cell.meta = RunDir(out_dir).read_meta()
    cell.summary = RunDir(out_dir).read_summary()
    return cell


def cell_numbers(cell: Cell, agents: Sequence[str]) -> dict[str, np.ndarray]:
    """The tracked numbers of a cell, one value per game (:func:`balancer.sweep.targets.game_numbers`)."""
    return game_numbers(pq.read_table(cell.out_dir / RESULTS_FILE), agents)
