"""The library API: what ``balancer run``, ``balancer compare`` and ``balancer report`` call, for
notebooks and scripts (re-exported by :mod:`balancer`)::

    import balancer

    res = balancer.run("citywright/v1.1", players=4, agents="greedy", games=2000, seed=1)
    res.frame                     # polars DataFrame: one row per seat per game (docs/architecture.md, "Results")
    res.summary["seat_win_rate"]  # win rates with Wilson intervals, as in summary.json
    balancer.report(res, "reports/cw.html")

A config is a YAML path or a shipped file named ``<game>/<name>`` (:mod:`balancer.data`). Results go
to a run directory (``out``; default ``results/<game>-<variant>-<n>p``, as on the command line) and
the returned objects read them from there, so a result can be reopened later with
:func:`open_run`. Errors are the library's own exceptions (the command line maps them to exit
code 2 and one line naming the file or flag): :class:`balancer.config.ConfigError`,
:class:`balancer.sim.errors.RunRequestError` (a ValueError naming the parameter at fault, its
``field``, spelled as its option in the message),
:class:`balancer.sim.runner.ResultsExistError`, :class:`balancer.sim.runner.GamesFailedError`, ...
"""

from __future__ import annotations

import json
import numbers
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from balancer.config import ConfigError, load_config, read_yaml_mapping
from balancer.core.config import GameConfig
from balancer.core.registry import GameSpec
from balancer.data import locate_config

if TYPE_CHECKING:
    import polars as pl

    from balancer.config_show import VariantView
    from balancer.sim.batches import UntilCiResult

__all__ = [
    "CompareResult",
    "RunResult",
    "compare",
    "default_players",
    "history",
    "history_page",
    "load_variant",
    "open_run",
    "report",
    "run",
    "show",
]

Note = Callable[[str], None]
"""Where notes go (an uneven seat rotation, an engine compiling for its first use, ...): one line each."""


def _warn(note: str) -> None:
    warnings.warn(note, UserWarning, stacklevel=3)


# --------------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class RunResult:
    """A finished run directory (``results.parquet``, ``run.json``, ``summary.json``), read lazily.

    ``until``: what ``until_ci`` did (games, batches, widest interval), for a run played that way.
    """

    out_dir: Path
    until: UntilCiResult | None = field(default=None, compare=False)

    @cached_property
    def frame(self) -> pl.DataFrame:
        """The results: one row per seat per game, long format (docs/architecture.md, "Results")."""
        import polars as pl

        return pl.read_parquet(self.out_dir / "results.parquet", glob=False)

    def scan(self) -> pl.LazyFrame:
        """The results as a polars LazyFrame (nothing read until collected)."""
        import polars as pl

        return pl.scan_parquet(self.out_dir / "results.parquet", glob=False)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """``summary.json``: seat and agent win rates with Wilson intervals, score and metric means,
        the seat-uniformity test (docs/architecture.md, "Results")."""
        data: dict[str, Any] = json.loads((self.out_dir / "summary.json").read_text(encoding="utf-8"))
        return data

    @cached_property
    def meta(self) -> dict[str, Any]:
        """``run.json``: what was run (game, variant, config and engine hashes, agents, games, seed),
        versions and timing."""
        data: dict[str, Any] = json.loads((self.out_dir / "run.json").read_text(encoding="utf-8"))
        return data

    def seat_win_rates(self) -> dict[str, list[tuple[Any, float, int]]]:
        """Mean win share by seat and by agent, ``{"seat": [(1, 0.26, rows), ...], "agent": [...]}``
        (:func:`balancer.sim.runner.seat_win_rates`)."""
        from balancer.sim.runner import seat_win_rates

        return seat_win_rates(self.out_dir)


def open_run(out_dir: Path | str) -> RunResult:
    """The finished run in ``out_dir`` (written by :func:`run` or ``balancer run``). Raises
    FileNotFoundError when it holds no ``results.parquet``."""
    _check_types(out_dir=out_dir)
    path = Path(out_dir)
    if not (path / "results.parquet").is_file():
        raise FileNotFoundError(f"{path}: no results.parquet; is this a directory written by 'balancer run'?")
    return RunResult(path)


@dataclass(frozen=True)
class CompareResult:
    """Two variants played with the same seeds and their paired differences (``comparison.json``).

    ``comparison``: the dict written to ``comparison.json`` (:func:`balancer.compare.compare_variants`);
    ``a``/``b``: the two runs.
    """

    out_dir: Path
    comparison: dict[str, Any]

    @property
    def a(self) -> RunResult:
        """Variant A's run (the "from" side)."""
        return RunResult(self.out_dir / self.comparison["run_a"])

    @property
    def b(self) -> RunResult:
        """Variant B's run (the "to" side)."""
        return RunResult(self.out_dir / self.comparison["run_b"])


# --------------------------------------------------------------------------------------------------
# requests


def load_variant(config: Path | str) -> tuple[GameConfig, GameSpec]:
    """(validated config, its game's spec) of a rule variant: a YAML path or a shipped name
    (``citywright/v1.1``). Raises ConfigError (one line per problem, naming file and key), also for
    a study file given where a variant is expected."""
    from balancer.games import get_spec

    _check_types(config=config)
    try:
        head: Any = read_yaml_mapping(locate_config(config))
    except ConfigError:
        head = None  # load_config says why
    if is_study(head):
        raise ConfigError(
            f"{config}: a study file (study: {head['study']}), not a rule variant; "
            f"run it with 'balancer study {config}'"
        )
    cfg = load_config(config)
    return cfg, get_spec(cfg.game)


def show(config: Path | str, diff: Path | str | None = None) -> VariantView:
    """A rule variant as a designer reads it, the command ``balancer show``
    (:func:`balancer.config_show.show_variant`): every key of the resolved variant (after
    ``extends:``) with its value, its comment in the YAML, the rulebook section, the config model's
    description and its ``assumed`` note (``.entries``); with ``diff`` (another variant of the same
    game), only what ``config`` changes against it (``.differences``: old and new value of each key).
    ``.text()``, ``.yaml()`` (a file that loads as the same variant) and ``.as_dict()`` render it.

    Both are a YAML path or a shipped name (``citywright/v1.1``). Raises ConfigError (one line per
    problem, naming file and key; also for a study file, or variants of two games).
    """
    from balancer.config_show import refuse_non_variant, show_variant

    _check_types(config=config, diff=diff)
    for named in (config, diff):
        if named is not None:
            refuse_non_variant(named)  # a sweep, tune or fragment file is told so, in one line
            load_variant(named)  # and a study file
    return show_variant(config, diff)


def is_study(head: Any) -> bool:
    """Whether a parsed YAML mapping is a study file rather than a rule variant: it has ``study:``, or
    ``runs:`` and ``variants:`` without a variant's ``extends:`` or ``variant:`` (a study whose name was
    left out is told so, not given a page of missing rule keys)."""
    return isinstance(head, dict) and (
        "study" in head or ("runs" in head and "variants" in head and "extends" not in head and "variant" not in head)
    )


def default_players(players: int | None, agents: str | Sequence[str], cfg: GameConfig, fallback: int = 4) -> int:
    """The player count of a request: ``players`` if given (at least 1), else the length of an agents
    list, else the variant's only supported count, else ``fallback``. Raises RunRequestError
    (``--players``) for a count below 1."""
    from balancer.sim.runner import RunRequestError

    _check_types(players=players, agents=agents, fallback=fallback)
    if not isinstance(cfg, GameConfig):
        raise RunRequestError("cfg", f"must be a validated variant (load_variant's first value), got {cfg!r}")
    if players is not None:
        if players < 1:
            raise RunRequestError("players", f"must be at least 1, got {players}")
        return players
    names = [a for a in (agents.split(",") if isinstance(agents, str) else agents) if a.strip()]
    if len(names) > 1:
        return len(names)
    counts = cfg.player_counts
    return counts[0] if len(counts) == 1 else fallback


def _compile_note(spec: GameSpec) -> str | None:
    """A note when the game's compiled engine is not in numba's cache yet (the first game after
    installing or after an engine change compiles it, with no game finished meanwhile), saying how long
    that took the last time on this machine (:mod:`balancer.sim.warmup`), or what is typical."""
    from balancer.core.numba_cache import cache_is_cold
    from balancer.sim.warmup import Warmup, last_time_text

    if cache_is_cold(spec.source / "__init__.py"):
        when = last_time_text(Warmup(spec.name, "compile", False))
        return (
            f"note: compiling the {spec.name} engine for its first use (once after installing or changing it; {when})"
        )
    return None


# --------------------------------------------------------------------------------------------------
# the three calls


_KINDS: dict[str, str] = {
    "games": "count",
    "seed": "count",
    "jobs": "count",
    "max_games": "count",
    "fallback": "count",
    "players": "optional count",
    "chunk_size": "optional count",
    "agents": "agents",
    "config": "path",
    "config_a": "path",
    "config_b": "path",
    "path": "path",
    "out_dir": "path",
    "out": "optional path",
    "force": "bool",
    "resume": "bool",
    "progress": "bool",
    "until_ci": "optional number",
    "scheduler": "optional text",
    "title": "optional text",
    "command": "text",
    "note": "optional function",
    "log": "optional function",
    "study": "optional text",
    "numbers": "texts",
    "since": "optional text",
    "figures": "optional path",
    "alpha": "number",
    "diff": "optional path",
}
"""The type each public function's parameter must have (issue 28): checked by :func:`_check_types`."""

_WANTED = {
    "count": "a whole number",
    "agents": "an agent name or a list of agent names",
    "path": "a path (str or pathlib.Path, not empty)",
    "bool": "True or False",
    "number": "a number",
    "text": "a string",
    "function": "a function of one string",
    "texts": "a list of strings",
}


def _type_ok(kind: str, value: object) -> bool:
    """Whether ``value`` has the type of ``kind`` (:data:`_KINDS`); an ``optional`` kind takes None."""
    if kind.startswith("optional "):
        if value is None:
            return True
        kind = kind.removeprefix("optional ")
    if kind == "count":
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if kind == "agents":
        return isinstance(value, str) or (
            isinstance(value, Sequence) and len(value) > 0 and all(isinstance(a, str) for a in value)
        )
    if kind == "path":
        return isinstance(value, str | os.PathLike) and str(value) != "" and "\0" not in str(value)
    if kind == "bool":
        return isinstance(value, bool | numbers.Integral) and value in (0, 1)
    if kind == "number":
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if kind == "text":
        return isinstance(value, str)
    if kind == "texts":  # a lone string is not a list of patterns ("seat*" would be five of one letter)
        return isinstance(value, Sequence) and not isinstance(value, str) and all(isinstance(v, str) for v in value)
    return callable(value)


def _check_types(**values: object) -> None:
    """RunRequestError naming the parameter (its field) when a value has not the type of its
    :data:`_KINDS` entry: a count that is not an int (a bool is not one; numpy's integers are), None
    for a count that has no default, a path given as a number or as ``""``, ``until_ci`` given as a
    string, ...: what the command line's parser guarantees, checked here for callers from Python."""
    from balancer.sim.runner import RunRequestError

    for name, value in values.items():
        kind = _KINDS[name]
        if not _type_ok(kind, value):
            wanted = _WANTED[kind.removeprefix("optional ")] + (" or None" if kind.startswith("optional ") else "")
            raise RunRequestError(name, f"must be {wanted}, got {value!r}")


def _out_dir(out: Path | str) -> Path:
    """``out`` normalised (``out/a/../X`` is ``out/X``: :func:`balancer.outdir.normalised`), so that
    nothing is created on the way; RunRequestError (``out``) for the current directory itself (``''``,
    ``.``), or one of its parents (``..``, ``/``): a run writes into a folder of its own, never among the
    files where it is started or above them."""
    from balancer.outdir import normalised
    from balancer.sim.runner import RunRequestError

    path = normalised(out)
    if path == Path("."):
        raise RunRequestError(
            "out", "is the current directory ('' or '.'); give the run a folder of its own (results/x)"
        )
    where = path.resolve()
    cwd = Path.cwd().resolve()
    if where == cwd or where in cwd.parents:
        raise RunRequestError(
            "out",
            f"{os.fspath(out)!r} is the current directory or one of its parents ({where}); give the run a folder "
            "of its own (results/x)",
        )
    return path


def _int_or_none(value: int | None) -> int | None:
    """``int(value)`` (a numpy integer made Python's, for ``run.json``), None kept."""
    return None if value is None else int(value)


def run(
    config: Path | str,
    players: int | None = None,
    agents: str | Sequence[str] = "greedy",
    games: int = 2000,
    seed: int = 1,
    jobs: int = 1,
    out: Path | str | None = None,
    *,
    force: bool = False,
    resume: bool = False,
    chunk_size: int | None = None,
    scheduler: str | None = None,
    until_ci: float | None = None,
    max_games: int = 200_000,
    progress: bool = False,
    command: str = "",
    note: Note | None = None,
    log: Note | None = None,
) -> RunResult:
    """Play ``games`` games of a rule variant and write its run directory; the command ``balancer run``.

    Args:
        config: rule-variant YAML path, or a shipped variant by name (``"citywright/v1.1"``).
        players: seats per game [default: the number of agents when a list is given, else the
            variant's only player count, else 4].
        agents: one agent for every seat (``"greedy"``), or one per seat (``"greedy,random"`` or a
            list), rotated every game.
        games: games to play (ignored with ``until_ci``).
        seed: run seed; game *i* uses ``SeedSequence(seed, spawn_key=(i,))``, so results do not
            depend on ``jobs``, ``chunk_size`` or ``scheduler``.
        jobs: worker processes (-1: all cores).
        out: run directory [default: ``results/<game>-<variant>-<players>p``].
        force: overwrite finished results in ``out``; resume: continue the interrupted run there.
        chunk_size: games per parallel task; scheduler: a Dask scheduler address (``tcp://host:8786``).
        until_ci: play in batches until every win rate's 95% interval is at most +/- this (0.01 = 1
            point), at most ``max_games`` games.
        progress: show progress on stderr (a bar on a terminal, plain lines otherwise); command: the
            command line recorded in ``run.json``.
        note: where notes go before playing (an uneven seat rotation, a table note, more jobs than
            cores, an engine compiling) [default: :func:`warnings.warn`]; log: ``until_ci``'s lines.

    Returns:
        the finished :class:`RunResult`.

    Raises:
        ConfigError: a missing or invalid config, or a study file. RunRequestError (a ValueError,
        naming the parameter as ``field``): an unknown agent, an unsupported player count, games < 1, a bad seed,
        ``until_ci`` with ``resume`` or ``scheduler``, a resume of a different request. ValueError:
        other refusals of the game (prefixed with the file by the CLI). ResultsExistError /
        OutDirError: ``out`` holds finished results (without ``force``) or cannot be a directory.
        GamesFailedError: some games raised (the others are written). RunInterrupted: Ctrl-C or
        SIGTERM (the finished chunks are kept for ``resume``).
    """
    from balancer.core.tables import uneven_rotation_note
    from balancer.sim.runner import (
        RunRequestError,
        check_out_dir,
        check_run,
        default_out_dir,
        parse_agents,
        run_to_dir,
        table_note,
    )

    _check_types(
        config=config, players=players, agents=agents, games=games, seed=seed, jobs=jobs, out=out, force=force,
        resume=resume, chunk_size=chunk_size, scheduler=scheduler, until_ci=until_ci, max_games=max_games,
        progress=progress, command=command, note=note, log=log,
    )  # fmt: skip
    players, chunk_size = _int_or_none(players), _int_or_none(chunk_size)
    games, seed, jobs, max_games = int(games), int(seed), int(jobs), int(max_games)  # numpy's into Python's
    tell = note if note is not None else _warn
    cfg, spec = load_variant(config)
    n = default_players(players, agents, cfg)
    seats = parse_agents(agents, n)
    check_run(spec, cfg, seats, games, seed, jobs, chunk_size, source=str(config))
    uneven = uneven_rotation_note(seats, games) if until_ci is None else None
    if uneven:
        tell(uneven)
    table = table_note(spec, cfg, seats)
    if table:
        tell(f"note: {table}")
    cores = os.cpu_count() or 1
    if jobs > cores and not scheduler:
        tell(f"note: --jobs {jobs} is more than the {cores} cores of this machine; using {cores}")
    out_dir = _out_dir(out) if out is not None else default_out_dir(cfg.game, cfg.variant, n, config=config)
    if until_ci is not None and (resume or scheduler):
        raise RunRequestError("until_ci", "cannot be combined with --resume or --scheduler")
    check_out_dir(out_dir, force, resume)
    compiling = _compile_note(spec)
    if compiling:
        tell(compiling)
    if until_ci is not None:
        from balancer.sim.batches import run_until_ci

        _, until = run_until_ci(
            spec, cfg, config, seats, until_ci, max_games, seed, jobs, out_dir,
            force=force, command=command, progress=progress, log=log,
        )  # fmt: skip
        return RunResult(out_dir, until)
    run_to_dir(
        spec, cfg, config, seats, games, seed, jobs, out_dir, force=force, command=command,
        chunk_size=chunk_size, progress=progress, scheduler=scheduler or None, resume=resume,
    )  # fmt: skip
    return RunResult(out_dir)


def default_compare_dir(config_a: Path | str, config_b: Path | str, players: int) -> Path:
    """``results/compare-<game>-<a>-vs-<b>-<players>p``: where :func:`compare` writes by default."""
    from balancer.compare import default_compare_names

    return Path("results") / default_compare_names(config_a, config_b, players)


def compare(
    config_a: Path | str,
    config_b: Path | str,
    players: int | None = None,
    agents: str | Sequence[str] = "greedy",
    games: int = 2000,
    seed: int = 1,
    jobs: int = 1,
    out: Path | str | None = None,
    *,
    force: bool = False,
    progress: bool = False,
    command: str = "",
) -> CompareResult:
    """Play variants A and B with the same seeds (common random numbers) and compare them game by
    game; the command ``balancer compare`` (:func:`balancer.compare.compare_variants`).

    ``players`` defaults as in :func:`run` (from A); ``out`` to
    ``results/compare-<game>-<a>-vs-<b>-<players>p`` (A's and B's runs and ``comparison.json``). A matching
    finished run in ``out`` is reused unless ``force``. Raises ConfigError, ValueError (configs of two
    games, a bad request: nothing is played), ResultsExistError, GamesFailedError.
    """
    from balancer.compare import compare_variants

    _check_types(
        config_a=config_a, config_b=config_b, players=players, agents=agents, games=games, seed=seed, jobs=jobs,
        out=out, force=force, progress=progress, command=command,
    )  # fmt: skip
    players, games, seed, jobs = _int_or_none(players), int(games), int(seed), int(jobs)
    cfg_a, _ = load_variant(config_a)
    load_variant(config_b)
    n = default_players(players, agents, cfg_a)
    out_dir = _out_dir(out) if out is not None else default_compare_dir(config_a, config_b, n)
    seats = [a.strip() for a in agents.split(",")] if isinstance(agents, str) else list(agents)
    result = compare_variants(
        Path(config_a), Path(config_b), n, seats, games, seed, jobs, out_dir,
        force=force, progress=progress, command=command,
    )  # fmt: skip
    return CompareResult(out_dir, result)


def default_report_page(results_dir: Path | str) -> Path:
    """``reports/<game>-<folder>-<hash>.html``: where ``balancer report`` writes a run's page by default.
    From the run's game (unless the folder's name says it) and its folder's own name, with 8 hex digits
    of the folder's resolved path (:mod:`balancer.naming`), so two folders of one name never share a page."""
    from balancer.naming import path_digest, safe_name, with_game

    folder = Path(results_dir)
    try:
        game = json.loads((folder / "run.json").read_text(encoding="utf-8")).get("game")
    except (OSError, ValueError, AttributeError):
        game = None
    name = f"{safe_name(folder.resolve().name)}-{path_digest(folder)}"
    return Path("reports") / f"{with_game(game, name) if isinstance(game, str) and game else name}.html"


def report(
    result: RunResult | CompareResult | Path | str,
    path: Path | str,
    title: str | None = None,
    *,
    force: bool = False,
) -> Path:
    """Render the self-contained HTML page of a run (:func:`balancer.report.render.render_report`) or
    of a comparison (:func:`balancer.report.compare.render_comparison`) to ``path``; return it.

    ``result``: what :func:`run` or :func:`compare` returned, or a directory they (or the command
    line) wrote; a directory with ``comparison.json`` is a comparison. The page is written atomically
    (nothing is left on error). A run's page records its results folder (a digest:
    :func:`balancer.naming.check_page`); the page of another folder at ``path`` is replaced only with
    ``force``. Raises FileNotFoundError / ResultsFileError (a ValueError) naming a missing or
    inconsistent results file, ReportOutputError (an OSError) naming ``path``, ResultsExistError
    (``path`` is the page of another results folder and not ``force``).
    """
    from balancer.compare import COMPARISON_FILE

    if not isinstance(result, RunResult | CompareResult):
        _check_types(out_dir=result)  # a directory: named as the result's out_dir
    _check_types(path=path, title=title, force=force)
    from balancer.naming import check_page

    if isinstance(result, CompareResult) or (
        not isinstance(result, RunResult) and (Path(result) / COMPARISON_FILE).is_file()
    ):
        from balancer.report.compare import render_comparison

        out_dir = result.out_dir if isinstance(result, CompareResult) else Path(result)
        return render_comparison(out_dir, Path(path), source=check_page(path, out_dir, force))
    from balancer.report.render import render_report

    out_dir = result.out_dir if isinstance(result, RunResult) else Path(result)
    return render_report(out_dir, Path(path), title=title, source=check_page(path, out_dir, force))


# --------------------------------------------------------------------------------------------------
# the history of checks


def history(
    path: Path | str, study: str | None = None, numbers: Sequence[str] = (), since: str | None = None
) -> pl.DataFrame:
    """The history file at ``path`` (written by ``balancer check --history`` and ``balancer baseline
    save --history``) as a polars DataFrame: one row per tracked number per event, ordered by event
    (columns: :data:`balancer.history.store.COLUMNS`).

    ``study``: the study the file must hold; ``numbers``: glob patterns of the numbers to keep
    (``seat_win_rate:3``, ``mirror-3p/*``); ``since``: a date, a time or a commit sha prefix.
    Raises HistoryError (a ValueError naming the file) for a missing file or one that is not a
    balancer history (or of another study); ValueError for a bad ``since``.
    """
    from balancer.history.query import load

    _check_types(path=path, study=study, numbers=numbers, since=since)
    frame, _ = load(path, study, numbers, since)
    return frame


def history_page(
    path: Path | str,
    out: Path | str,
    *,
    study: str | None = None,
    numbers: Sequence[str] = (),
    since: str | None = None,
    figures: Path | str | None = None,
    alpha: float = 0.05,
) -> Path:
    """Render the history at ``path`` (filtered as in :func:`history`) to the self-contained page
    ``out`` (:func:`balancer.report.history.render_history`), with each panel as SVG, PNG and PDF in
    ``figures`` when given; return ``out``. The moves and the drift are those of
    :mod:`balancer.stats.drift` at family rate ``alpha``. Raises what :func:`history` raises and
    ReportOutputError (an OSError) naming ``out``, also for an ``out`` that is the history itself or an
    existing file that is not an HTML page (:func:`balancer.report.history.check_page_target`)."""
    from balancer.history.query import load
    from balancer.history.store import read_values
    from balancer.report.history import check_page_target, render_history
    from balancer.stats import drift as dr

    _check_types(path=path, study=study, numbers=numbers, since=since, figures=figures, alpha=alpha)
    if not _type_ok("path", out):
        from balancer.sim.runner import RunRequestError

        raise RunRequestError("out", f"must be {_WANTED['path']}, got {out!r}")
    check_page_target(path, out)
    frame, meta = load(path, study, numbers, since)
    pts = dr.points(frame)
    values = read_values(path, sorted(set(frame["event"].to_list()))) if not frame.is_empty() else {}
    steps = dr.steps(pts, values, alpha)
    drift = dr.drift(pts, values, alpha)
    filters = ", ".join(
        f for f in (f"numbers {', '.join(numbers)}" if numbers else "", f"since {since}" if since else "") if f
    )
    return render_history(
        frame, meta, pts, steps, drift, Path(out), str(path), filters, Path(figures) if figures else None, alpha
    )
