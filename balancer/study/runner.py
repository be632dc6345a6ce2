"""Run every cell of a study (variant x run), reusing finished cells, and collect their summaries."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from balancer.config import config_sha256, load_config
from balancer.core.tables import seat_agents
from balancer.games import get_spec
from balancer.naming import claim_folder, input_label, input_source, with_game
from balancer.outdir import refuse_foreign
from balancer.sim.batches import GameRaisedError, play_range
from balancer.sim.rundir import RunDir
from balancer.sim.runner import check_run, engine_sha256, run_to_dir

from .model import Study, StudyError, load_study


@dataclass
class Cell:
    """One run of the study under one variant, and where its results are."""

    run: str
    variant: str
    config_path: Path
    out_dir: Path
    reused: bool = False
    summary: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class StudyResult:
    """A finished study: its definition, every cell, and how long this invocation took (seconds)."""

    study: Study
    study_path: Path
    cells: dict[tuple[str, str], Cell]
    wall_seconds: float

    @property
    def simulated_seconds(self) -> float:
        """Time spent playing the games of every cell, when each was played (seconds)."""
        return sum(float(c.meta.get("elapsed_seconds", 0.0)) for c in self.cells.values())

    @property
    def games(self) -> int:
        return sum(int(c.meta.get("games", 0)) for c in self.cells.values())


def study_folder(study_path: Path | str, study: Study, results_root: Path | str = "results") -> str:
    """The default name of a study's folder in ``results_root`` and of its page in ``reports/``
    (:mod:`balancer.naming`): the study's own name (``study:``) for a shipped study
    (``citywright-appendix``); else that name prefixed with its game unless it says it, and 8 hex
    digits of the file's path (``citywright-mine-1a2b3c4d``), so two ``study.yaml`` in different
    folders never share one. A study file that lies in its own folder ``<results_root>/<study>/`` (as
    ``balancer ladder`` writes it) names that folder."""
    from balancer.data import locate_config

    own = Path(results_root) / study.study
    try:
        if locate_config(study_path).resolve().parent == own.resolve():
            return study.study
    except OSError:
        pass
    return with_game(study.game, input_label(study_path, study.study))


def cell_dir(results_root: Path, study: Study | str, run: str, variant: str) -> Path:
    """Where a cell's results live: ``<results_root>/<study>/<run>/<variant>/`` (``study``: the study,
    named by its ``study:``, or the name of its folder: :func:`study_folder`). Each of the three
    folders is the study's own: a symbolic link (or a file) planted in place of any of them is refused
    (UnsafeOutputError naming it), never followed out of ``results_root`` (review of issue 28)."""
    path = Path(results_root)
    for part in (study if isinstance(study, str) else study.study, run, variant):
        path = path / part
        refuse_foreign(path, "directory")
    return path


def _finished(out_dir: Path, expected: dict[str, Any]) -> bool:
    """True when ``out_dir`` holds a finished run of exactly this request."""
    return RunDir(out_dir).is_finished(expected, summary=True)


def load_variants(study: Study, configs: dict[str, Path], study_path: Path, seed: int, jobs: int) -> dict[str, Any]:
    """Load every variant's config and check that every cell (run x variant) can be played with
    ``seed``; return label -> config. Raises ConfigError (bad config) or ValueError (a config of
    another game, an unknown agent, an unsupported player count), naming the study file and key."""
    game = get_spec(study.game)
    loaded = {}
    for label, path in configs.items():
        cfg = load_config(path)
        if cfg.game != study.game:
            raise ValueError(
                f"{study_path}: variants.{label}: {path.name} is a {cfg.game} config, the study is {study.game}"
            )
        loaded[label] = cfg
    if study.ladder is not None:  # a rung or player count the game refuses, named as the ladder: section says it
        from balancer.ladder.model import check_rungs

        check_rungs(study.ladder, game, loaded, str(study_path))
    for run_name, run in study.runs.items():
        for label, cfg in loaded.items():
            try:
                check_run(game, cfg, run.table, run.games, seed, jobs, None)
            except ValueError as exc:
                raise ValueError(f"{study_path}: runs.{run_name} under {label}: {exc}") from None
    return loaded


def probe_tables(study: Study, loaded: dict[str, Any], seed: int, runs: list[str]) -> dict[str, Any]:
    """Run name -> results rows (a pyarrow Table) of game 0 of that run under the study's first
    variant, played in this process: what columns (metrics, labels) and tracked numbers the game
    produces, learnt before the full play. A run whose probe game raises is left out (the full
    play reports the failing game)."""
    game = get_spec(study.game)
    first = next(iter(loaded.values()))
    tables = {}
    for name in dict.fromkeys(runs):
        try:
            tables[name] = play_range(game, first, study.runs[name].table, seed, 0, 1, jobs=1)
        except GameRaisedError:
            continue
    return tables


def figure_runs(study: Study) -> list[str]:
    """Runs whose figures name a metric or label (``metric:<name>``, ``matchups:<label>``)."""
    return [f.run for f in study.figures if f.show.startswith(("metric:", "matchups:"))]


def check_figures(study: Study, study_path: Path, tables: dict[str, Any]) -> None:
    """Raise StudyError (naming the file and ``figures.<i>.show``) when a figure shows a metric or a
    label that the game does not produce in its run; ``tables``: :func:`probe_tables` of its runs."""
    for i, fig in enumerate(study.figures):
        kind, _, name = fig.show.partition(":")
        if kind not in ("metric", "matchups") or fig.run not in tables:
            continue
        prefix, what = ("metric_", "metric") if kind == "metric" else ("label_", "label")
        columns = tables[fig.run].column_names
        if prefix + name not in columns:
            known = [c.removeprefix(prefix) for c in columns if c.startswith(prefix)]
            raise StudyError(
                f"{study_path}: figures.{i}.show: {study.game} has no {what} {name!r} in run "
                f"{fig.run!r}; its {what}s are {', '.join(known) or 'none'}"
            )


def run_study(
    study_path: Path | str,
    results_root: Path | str = "results",
    jobs: int = -1,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    scheduler: str | None = None,
    folder: str | None = None,
) -> StudyResult:
    """Play every cell of the study (runs x variants, all with the study's seed, so variants see the
    same deals) into ``<results_root>/<folder>/`` (default :func:`study_folder`) and return them with
    their summaries. A cell whose results already exist for the same config content, engine, seed,
    games and agents is reused unless ``force``; another cell of this study is played again. The
    folder records the study file it holds (:func:`balancer.naming.claim_folder`). ``scheduler``: play
    on the Dask cluster at that address instead of ``jobs`` local processes (identical results).

    Raises StudyError (bad study file, or a figure naming a metric or label the game does not
    produce: learnt from one game per such run, see :func:`probe_tables`), ConfigError (bad variant
    config) or ValueError (a run the game cannot play: unknown agent, unsupported player count),
    ResultsExistError (the folder holds the results of another study file and not ``force``), all
    before anything is played.
    """
    t0 = time.perf_counter()
    study, configs = load_study(study_path)
    study_path = Path(study_path)
    game = get_spec(study.game)
    loaded = load_variants(study, configs, study_path, study.seed, jobs)
    check_figures(study, study_path, probe_tables(study, loaded, study.seed, figure_runs(study)))
    folder = folder if folder is not None else study_folder(study_path, study, results_root)
    outs = {  # every cell's folder checked (no link planted in its place) before anything is written
        (run_name, label): cell_dir(Path(results_root), folder, run_name, label)
        for run_name in study.runs
        for label in loaded
    }
    claim_folder(Path(results_root) / folder, "study", input_source(study_path), force)
    cells: dict[tuple[str, str], Cell] = {}
    for run_name, run in study.runs.items():
        for label, cfg in loaded.items():
            out = outs[(run_name, label)]
            expected = {
                "config_sha256": config_sha256(configs[label]),
                "engine_sha256": engine_sha256(game),
                "seed": study.seed,
                "games": run.games,
                "agents": run.table,
                "n_players": run.players,
            }
            cell = Cell(run_name, label, configs[label], out)
            if not force and _finished(out, expected):
                cell.reused = True
                if log:
                    log(f"{run_name} / {label}: finished earlier, reused ({out})")
            else:
                if log:
                    log(f"{run_name} / {label}: {run.games:,} games of {', '.join(seat_agents(run.table, 0))}")
                command = f"balancer study {study_path} (cell {run_name} / {label})"
                run_to_dir(
                    game,
                    cfg,
                    configs[label],
                    run.table,
                    run.games,
                    study.seed,
                    jobs,
                    out,
                    force=True,
                    command=command,
                    progress=progress,
                    scheduler=scheduler,
                    resume=None,
                )
            cell.meta = RunDir(out).read_meta()
            cell.summary = RunDir(out).read_summary()
            cells[(run_name, label)] = cell
    return StudyResult(study, study_path, cells, time.perf_counter() - t0)
