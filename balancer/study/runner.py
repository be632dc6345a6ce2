"""Run every cell of a study (variant x run), reusing finished cells, and collect their summaries."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from balancer.config import ConfigError, config_sha256, load_config, read_yaml_mapping
from balancer.core.tables import seat_agents
from balancer.files import is_study, read_yaml_head
from balancer.games import GAMES, get_spec
from balancer.naming import claim_folder, input_label, input_source, with_game
from balancer.outcomes import Cell, StudyResult
from balancer.outdir import refuse_foreign
from balancer.sim.batches import GameRaisedError, play_range
from balancer.sim.guards import refuse_foreign_run_files
from balancer.sim.progress import cells_overall
from balancer.sim.request import agent_problems
from balancer.sim.rundir import RunDir
from balancer.sim.runner import RunRequestError, check_run, engine_sha256, run_to_dir

from .model import Run, Study, StudyError, read_study, variant_files


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
    refuse_foreign_run_files(path)  # a link at its summary.json: refused before the study's first game
    return path


def _finished(out_dir: Path, expected: dict[str, Any]) -> bool:
    """True when ``out_dir`` holds a finished run of exactly this request."""
    return RunDir(out_dir).is_finished(expected, summary=True)


def load_variants(study: Study, configs: dict[str, Path], study_path: Path, seed: int, jobs: int) -> dict[str, Any]:
    """Load every variant's config and check that every cell (run x variant) can be played with
    ``seed``; return label -> config. Raises StudyError with every problem, one line each: a bad
    variant config (its own lines, naming its file), a config of another game, a run the game cannot
    play (an unknown agent, an unsupported player count), each naming the study file and key."""
    loaded, problems = variant_problems(study.game, configs, study_path)
    if not problems:
        problems = run_problems(study, study.runs, loaded, study_path, seed, jobs)
    if problems:
        raise StudyError(problems)
    return loaded


def _same(a: Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _not_a_variant(path: Path) -> str | None:
    """Why ``path`` is no game's YAML at all (not text, not a YAML mapping, a mapping with neither
    ``game:`` nor ``extends:``), or None when it is one (its own problems are then its own lines)."""
    try:
        head = read_yaml_mapping(path)
    except ConfigError as exc:
        return "; ".join(line.removeprefix(f"{path}: ") for line in exc.lines)
    if "game" not in head and "extends" not in head:
        return "it has neither game: nor extends:"
    return None


def variant_problems(game: str, configs: dict[str, Path], study_path: Path) -> tuple[dict[str, Any], list[str]]:
    """Label -> loaded config of every variant that is valid and of ``game``, and the lines of every
    one that is not (a bad config's own lines, naming its file; ``variants.<label>`` for another game)."""
    loaded, problems = {}, []
    for label, path in configs.items():
        if is_study(read_yaml_head(path)):  # the study itself or another: named by its key (issue 52: 'variants.me')
            itself = " (this study file)" if _same(path, study_path) else ""
            problems.append(
                f"{study_path}: variants.{label}: {path} is a study file{itself}, not a rule variant; "
                "give a variant config"
            )
            continue
        if (why := _not_a_variant(path)) is not None:  # a .txt, a results.parquet: the study's key is the typo
            problems.append(
                f"{study_path}: variants.{label}: {path} is not a rule variant ({why}); give a variant config"
            )
            continue
        try:
            cfg = load_config(path)
        except ConfigError as exc:
            problems.extend(exc.lines)
            continue
        if cfg.game != game:
            problems.append(f"{study_path}: variants.{label}: {path.name} is a {cfg.game} config, the study is {game}")
            continue
        loaded[label] = cfg
    return loaded, problems


def run_problems(
    study: Study | None,
    runs: dict[str, Run],
    loaded: dict[str, Any],
    study_path: Path,
    seed: int,
    jobs: int,
    game: str | None = None,
) -> list[str]:
    """Every problem of the runs under the loaded variants, in the study file's words: an unknown
    agent as ``runs.<run>.agents[<i>]: unknown agent 'gredy' (did you mean 'greedy'?)``, a table or
    player count the game cannot play as ``runs.<run>.agents`` or ``runs.<run>.players`` (``under
    <variant>`` when only some variants refuse it); a ladder's rungs and players as ``ladder.rungs``.
    ``study``: the validated study (None when the file has other problems: its ladder is not checked)."""
    spec = get_spec(game or (study.game if study is not None else ""))
    if not loaded:
        return []
    if (
        study is not None and study.ladder is not None
    ):  # a rung or player count the game refuses, as the ladder: section says it
        from balancer.ladder.model import check_rungs

        try:
            check_rungs(study.ladder, spec, loaded, str(study_path))
        except ValueError as exc:
            return str(exc).split("\n")
    problems: list[str] = []
    for run_name, run in runs.items():
        unknown = agent_problems(spec, run.agents, list(loaded.values()))
        problems += [f"{study_path}: runs.{run_name}.agents[{i}]: {problem}" for i, problem in unknown]
        if unknown:
            continue
        refused: dict[str, list[str]] = {}
        for label, cfg in loaded.items():
            try:
                check_run(spec, cfg, run.table, run.games, seed, jobs, None, source=f"variant {label}")
            except RunRequestError as exc:
                if exc.field not in ("agents", "players", "games"):
                    raise  # the caller's own parameter (jobs, seed), not the file's
                refused.setdefault(f"runs.{run_name}.{exc.field}: {exc.problem}", []).append(label)
            except ValueError as exc:
                refused.setdefault(f"runs.{run_name}: {exc}", []).append(label)
        for line, labels in refused.items():
            under = "" if len(labels) == len(loaded) else f" (under {', '.join(labels)})"
            problems.append(f"{study_path}: {line}{under}")
    return problems


def check_study(
    study_path: Path | str,
    jobs: int = 1,
    seed: int | None = None,
    figures: bool = True,
    on_probe: Callable[[Any], None] | None = None,
) -> tuple[Study, dict[str, Path], dict[str, Any]]:
    """Every problem of a study file in one pass, before anything is played: its schema and own
    checks, every variant file that is missing, every variant config's own problems, every run the
    game cannot play under them (unknown agents, player counts: :func:`run_problems`) and, with
    ``figures``, every figure naming a metric or label its run does not produce (one game of each
    such run is played to learn them; ``on_probe(spec)`` is called first). ``seed``: the seed the
    cells will be played with (default the study's). Returns (study, label -> config file, label ->
    config). Raises StudyError with every problem, one line each."""
    read = read_study(study_path)
    path, study, data = read.path, read.study, read.data
    problems = list(read.problems)
    configs, missing = variant_files(path, data)
    problems += [line for line in missing if line not in problems]
    game = study.game if study is not None else data.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise StudyError(problems)  # the schema's lines name the game
    loaded, bad = variant_problems(game, configs, path)
    problems += bad
    runs = study.runs if study is not None else _valid_runs(data)
    play_seed = seed if seed is not None else study.seed if study is not None else 0
    run_lines = run_problems(study, runs, loaded, path, play_seed, jobs, game)
    problems += run_lines
    if figures and study is not None and loaded:
        failing = {r for r in study.runs if any(f": runs.{r}." in line or f": runs.{r}:" in line for line in run_lines)}
        shown = [r for r in figure_runs(study) if r not in failing]
        if shown:
            if on_probe is not None:
                on_probe(get_spec(study.game))
            problems += figure_problems(study, path, probe_tables(study, loaded, play_seed, shown))
    if problems:
        raise StudyError(problems)
    assert study is not None  # no problem: the model validated
    return study, configs, loaded


def _valid_runs(data: dict) -> dict[str, Run]:
    """The runs of a study file's mapping that are valid on their own (the file has other problems)."""
    runs = data.get("runs")
    valid = {}
    for name, raw in runs.items() if isinstance(runs, dict) else []:
        try:
            valid[str(name)] = Run.model_validate(raw)
        except ValueError:
            continue
    return valid


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


def figure_problems(study: Study, study_path: Path, tables: dict[str, Any]) -> list[str]:
    """A line (naming the file and ``figures.<i>.show``) for every figure that shows a metric or a
    label that the game does not produce in its run; ``tables``: :func:`probe_tables` of its runs."""
    problems = []
    for i, fig in enumerate(study.figures):
        kind, _, name = fig.show.partition(":")
        if kind not in ("metric", "matchups") or fig.run not in tables:
            continue
        prefix, what = ("metric_", "metric") if kind == "metric" else ("label_", "label")
        columns = tables[fig.run].column_names
        if prefix + name not in columns:
            known = [c.removeprefix(prefix) for c in columns if c.startswith(prefix)]
            problems.append(
                f"{study_path}: figures[{i}].show: {study.game} has no {what} {name!r} in run "
                f"{fig.run!r}; its {what}s are {', '.join(known) or 'none'}"
            )
    return problems


def run_study(
    study_path: Path | str,
    results_root: Path | str = "results",
    jobs: int = -1,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    scheduler: str | None = None,
    folder: str | None = None,
    checked: tuple[Study, dict[str, Path], dict[str, Any]] | None = None,
) -> StudyResult:
    """Play every cell of the study (runs x variants, all with the study's seed, so variants see the
    same deals) into ``<results_root>/<folder>/`` (default :func:`study_folder`) and return them with
    their summaries. A cell whose results already exist for the same config content, engine, seed,
    games and agents is reused unless ``force``; another cell of this study is played again. The
    folder records the study file it holds (:func:`balancer.naming.claim_folder`). ``scheduler``: play
    on the Dask cluster at that address instead of ``jobs`` local processes (identical results).
    ``checked``: what :func:`check_study` of this file with these ``jobs`` returned, when the caller
    has already checked it (the command line does, to name its outputs): not checked twice.

    Raises StudyError with every problem of the file, one line each (:func:`check_study`: the
    study's schema, missing and invalid variant configs, runs the game cannot play, figures naming a
    metric or label the game does not produce), RunRequestError (a ValueError) for a bad ``jobs``,
    or ResultsExistError (the folder holds the results of another study file and not ``force``), all
    before anything is played.
    """
    t0 = time.perf_counter()
    study, configs, loaded = checked if checked is not None else check_study(study_path, jobs)
    study_path = Path(study_path)
    game = get_spec(study.game)
    folder = folder if folder is not None else study_folder(study_path, study, results_root)
    outs = {  # every cell's folder checked (no link planted in its place) before anything is written
        (run_name, label): cell_dir(Path(results_root), folder, run_name, label)
        for run_name in study.runs
        for label in loaded
    }
    claim_folder(Path(results_root) / folder, "study", input_source(study_path), force)
    planned = []
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
            planned.append((run_name, run, label, cfg, out, not force and _finished(out, expected)))
    overall = cells_overall(
        "ladder" if study.ladder is not None else "study", [p[1].games for p in planned if not p[5]]
    )
    cells: dict[tuple[str, str], Cell] = {}
    for run_name, run, label, cfg, out, reuse in planned:
        cell = Cell(run_name, label, configs[label], out)
        if reuse:
            cell.reused = True
            if log:
                log(f"{run_name} / {label}: finished earlier, reused ({out})")
        else:
            overall.begin_cell(f"{run_name} / {label}", run.games)
            if log:
                log(
                    f"{overall.prefix()}: {run.games:,} games of {', '.join(seat_agents(run.table, 0))}; "
                    + overall.text(None, time.perf_counter())
                )
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
                overall=overall,
                checked=True,  # every cell, by check_study
            )
        cell.meta = RunDir(out).read_meta()
        cell.summary = RunDir(out).read_summary()
        cells[(run_name, label)] = cell
    return StudyResult(study, study_path, cells, time.perf_counter() - t0)
