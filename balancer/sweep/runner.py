"""Play a sweep: every point x run a cell, all with the sweep's seed (common random numbers).

Layout under ``<results>/<folder>/`` (:attr:`balancer.sweep.model.SweepPlan.folder`: the sweep's name,
and a short hash of its path for a file not shipped with balancer): ``source.json`` (the sweep file it
holds: :func:`balancer.naming.claim_folder`), ``variants/<label>.yaml`` (each point's variant file: it
``extends:`` the base and sets the swept keys) and ``<run>/<label>/`` (the cell: results.parquet,
run.json, summary.json). A point whose cell is finished for the same request is reused.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from balancer.naming import claim_folder, input_source
from balancer.outcomes import Cell, SweepResult
from balancer.outdir import refuse_links_below, write_atomic
from balancer.paths import changes_text, variant_yaml
from balancer.sim.guards import refuse_foreign_run_files
from balancer.sim.progress import cells_overall

from .cells import cell_numbers, play_cell
from .model import Point, SweepPlan
from .targets import estimate


def write_text_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, unless it already holds exactly that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    write_atomic(path, text)


def point_file(root: Path, name: str, point: Point) -> Path:
    """Where a point's variant file lives: ``<root>/<name>/variants/<label>.yaml``."""
    return Path(root) / name / "variants" / f"{point.label}.yaml"


def write_point(plan_path: Path, base_path: Path, base_data: dict, file: Path, point: Point, how: str) -> None:
    """Write a point's variant file (extends the base, sets the point's keys), if changed."""
    comment = [f"{how} {plan_path}: {changes_text(point.values)}", "written by balancer; regenerated on every run"]
    write_text_if_changed(file, variant_yaml(file, base_path, base_data, point.values, point.variant, comment))


def run_sweep(
    plan: SweepPlan,
    results_root: Path | str = "results",
    jobs: int = -1,
    scheduler: str | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    command: str = "",
    force: bool = False,
) -> SweepResult:
    """Play every cell of a checked sweep (:func:`balancer.sweep.model.load_sweep`) into
    ``<results_root>/<plan.folder>/``, reusing finished ones, and return them with their per-game
    numbers and estimates. Raises ResultsExistError (nothing played) when that folder holds the results
    of another sweep file and not ``force``, and what :func:`balancer.sim.runner.run_to_dir` raises
    (GamesFailedError when games raised)."""
    t0 = time.perf_counter()
    root = Path(results_root)
    sweep, base = plan.sweep, plan.base
    folder = plan.folder
    files = {p.label: point_file(root, folder, p) for p in plan.points}
    for p in plan.points:  # no link planted in place of its folders, checked before anything is written
        refuse_links_below(root, files[p.label], "file")
        for run_name in sweep.runs:
            refuse_links_below(root, root / folder / run_name / p.label)
            refuse_foreign_run_files(root / folder / run_name / p.label)  # its summary.json ...: before any game
    claim_folder(root / folder, "sweep", input_source(plan.path), force)
    for p in plan.points:
        write_point(plan.path, base.path, base.resolved.data, files[p.label], p, "a point of the sweep")
    cells: dict[tuple[str, str], Cell] = {}
    numbers: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    estimates: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    played = 0
    overall = cells_overall("sweep", [run.games for _ in plan.points for run in sweep.runs.values()])
    from balancer.config import load_config

    for p in plan.points:
        cfg = load_config(files[p.label])
        for run_name, run in sweep.runs.items():
            cell = play_cell(
                base.spec,
                cfg,
                files[p.label],
                run_name,
                p.label,
                run.table,
                run.games,
                sweep.seed,
                root / folder / run_name / p.label,
                jobs=jobs,
                scheduler=scheduler,
                progress=progress,
                command=command or f"balancer sweep {plan.path}",
                log=log,
                what=f"{run_name} / {changes_text(p.values)}",
                overall=overall,
            )
            if cell.reused:
                if log:
                    log(f"{overall.prefix()}: finished earlier, reused")
            else:
                played += run.games
            cells[(run_name, p.label)] = cell
            nums = cell_numbers(cell, run.table)
            numbers[(run_name, p.label)] = nums
            estimates[(run_name, p.label)] = {name: estimate(v, name) for name, v in nums.items()}
            if log and not cell.reused:
                got = [estimates[(run_name, p.label)].get(f"seat_win_rate:{s}") for s in range(1, run.players + 1)]
                seats = [e for e in got if e]
                if len(seats) == len(got) and run.players > 1:
                    log("    seat win rates: " + " / ".join(f"{100 * e['mean']:.1f}" for e in seats))
    return SweepResult(plan, cells, numbers, estimates, played, time.perf_counter() - t0)
