"""The library API: what every ``balancer`` command calls, for notebooks and scripts (re-exported by
:mod:`balancer`)::

    import balancer

    res = balancer.run("citywright/v1.1", players=4, agents="greedy", games=2000, seed=1)
    res.frame                     # polars DataFrame: one row per seat per game (docs/architecture.md, "Results")
    res.summary["seat_win_rate"]  # win rates with Wilson intervals, as in summary.json
    balancer.write_report(res, "reports/cw.html")

Every command has its call here (docs/python.md, "Every command"), and the command line
(:mod:`balancer.cli`) imports nothing else of the library: it names the library's errors as ``api.errors``
(:mod:`balancer.errors`, re-exported here). The functions in
:data:`__all__` (re-exported by :mod:`balancer`) check the type of every argument; the others are the
command line's steps between them (the checks of its output paths, the lines it prints), as plain calls.
No function is named after a module of the package (``write_report``, not ``report``: ``balancer.report``
is the report package).

A config is a YAML path or a shipped file named ``<game>/<name>`` (:mod:`balancer.data`). Results go
to a run directory (``out``; default ``results/<game>-<variant>-<n>p``, as on the command line) and
the returned objects read them from there, so a result can be reopened later with
:func:`open_run`. Errors are the library's own exceptions (the command line maps them to exit
code 2 and one line naming the file or flag), all named in :mod:`balancer.errors`: ConfigError,
RunRequestError (a ValueError naming the parameter at fault, its ``field``, spelled as its option in
the message), ResultsExistError, GamesFailedError, ...
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

from balancer import errors as errors  # re-exported: the command line names the library's errors through the API
from balancer.config import ConfigError, load_config, read_yaml_mapping
from balancer.core.config import GameConfig
from balancer.core.registry import GameSpec
from balancer.data import locate_config
from balancer.files import is_study
from balancer.interrupts import SIGNALLED as SIGNALLED  # re-exported: the signals the command line took
from balancer.interrupts import note_signal as note_signal
from balancer.numtext import number_text as number_text  # re-exported: the CLI's numbers
from balancer.text import markdown_text as markdown_text  # re-exported: names from files made safe to show
from balancer.text import terminal_text as terminal_text
from balancer.version import __version__ as __version__  # re-exported: balancer --version

if TYPE_CHECKING:
    import polars as pl

    from balancer.config_show import VariantView
    from balancer.sim.batches import UntilCiResult
    from balancer.sim.rundir import RunDir

__all__ = [
    "CompareResult",
    "RunResult",
    "compare_variants",
    "default_players",
    "game_names",
    "history_page",
    "load_variant",
    "open_run",
    "play_transcript",
    "read_history",
    "run",
    "run_study",
    "save_baseline",
    "score_table",
    "show",
    "write_pairs_page",
    "write_report",
    "write_starter",
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

        return pl.read_parquet(run_dir(self.out_dir).results, glob=False)

    def scan(self) -> pl.LazyFrame:
        """The results as a polars LazyFrame (nothing read until collected)."""
        import polars as pl

        return pl.scan_parquet(run_dir(self.out_dir).results, glob=False)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """``summary.json``: seat and agent win rates with Wilson intervals, score and metric means,
        the seat-uniformity test (docs/architecture.md, "Results")."""
        data: dict[str, Any] = json.loads(run_dir(self.out_dir).summary_file.read_text(encoding="utf-8"))
        return data

    @cached_property
    def meta(self) -> dict[str, Any]:
        """``run.json``: what was run (game, variant, config and engine hashes, agents, games, seed),
        versions and timing."""
        data: dict[str, Any] = json.loads(run_dir(self.out_dir).run_file.read_text(encoding="utf-8"))
        return data

    def seat_win_rates(self) -> dict[str, list[tuple[Any, float, int]]]:
        """Mean win share by seat and by agent, ``{"seat": [(1, 0.26, rows), ...], "agent": [...]}``
        (:func:`balancer.sim.runner.seat_win_rates`)."""
        from balancer.sim.runner import seat_win_rates

        return seat_win_rates(self.out_dir)


def run_dir(path: Path | str) -> RunDir:
    """The run directory at ``path`` (:class:`balancer.sim.rundir.RunDir`: the one definition of its
    files, ``.results``, ``.run_file``, ``.summary_file``, ``.manifest_file``); it need not exist."""
    from balancer.sim.rundir import RunDir

    return RunDir(Path(path))


def open_run(out_dir: Path | str) -> RunResult:
    """The finished run in ``out_dir`` (written by :func:`run` or ``balancer run``). Raises
    FileNotFoundError when it holds no ``results.parquet``."""
    _check_types(out_dir=out_dir)
    path = Path(out_dir)
    if not run_dir(path).results.is_file():
        raise FileNotFoundError(f"{path}: no results.parquet; is this a directory written by 'balancer run'?")
    return RunResult(path)


@dataclass(frozen=True)
class CompareResult:
    """Two variants played with the same seeds and their paired differences (``comparison.json``).

    ``comparison``: the dict written to ``comparison.json`` (:func:`balancer.compare.play_comparison`);
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
        if named is not None:  # a sweep, tune or fragment file is told so, in one line, with the right command
            hint = None if named is config else (lambda name: f"balancer show {config} --diff {name}")
            refuse_non_variant(named, hint)
            load_variant(named)  # and a study file
    return show_variant(config, diff)


def default_players(players: int | None, agents: str | Sequence[str], cfg: GameConfig, fallback: int = 4) -> int:
    """The player count of a request: ``players`` if given (at least 1), else the length of an agents
    list, else the variant's only supported count, else ``fallback``. Raises RunRequestError
    (``--players``) for a count below 1."""
    from balancer.sim.errors import RunRequestError

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


def compile_note(spec: GameSpec) -> str | None:
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
    "others": "paths",
    "path": "path",
    "out_dir": "path",
    "out": "optional path",
    "force": "bool",
    "resume": "bool",
    "flow": "bool",
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
    "game_index": "count",
    "text": "text",
    "results_dir": "path",
    "label": "text",
    "game": "text",
    "directory": "path",
    "study_file": "path",
    "results": "path",
    "folder": "optional text",
    "checked": "optional study check",
    "replay": "bool",
    "values": "optional mapping",
    "said": "optional list",
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
    "paths": "a list of paths (str or pathlib.Path, not empty)",
    "mapping": "a dict",
    "list": "a list",
    "study check": "what check_study returned",
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
    if kind == "paths":
        return isinstance(value, Sequence) and not isinstance(value, str) and all(_type_ok("path", v) for v in value)
    if kind == "mapping":
        return isinstance(value, dict)
    if kind == "list":  # a list the function appends to (history_page's said)
        return isinstance(value, list)
    if kind == "study check":
        return isinstance(value, tuple) and len(value) == 3
    return callable(value)


def _check_types(**values: object) -> None:
    """RunRequestError naming the parameter (its field) when a value has not the type of its
    :data:`_KINDS` entry: a count that is not an int (a bool is not one; numpy's integers are), None
    for a count that has no default, a path given as a number or as ``""``, ``until_ci`` given as a
    string, ...: what the command line's parser guarantees, checked here for callers from Python."""
    from balancer.sim.errors import RunRequestError

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
    from balancer.sim.errors import RunRequestError

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
    flow: bool = True,
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
        flow: summary.json holds how the game feels (``flow``: margin, scores by seat, length);
            False leaves it out, and the trajectories, which are built only with it (docs/commands/run.md:
            several times the CPU and memory of a run of long games, such as Urgency's).

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
        progress=progress, command=command, note=note, log=log, flow=flow,
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
    if max_games < 1:  # refused with or without until_ci: a negative cap is a typo either way (issue 52)
        raise RunRequestError("max_games", f"must be at least 1, got {max_games}")
    check_out_dir(out_dir, force, resume)
    compiling = compile_note(spec)
    if compiling:
        tell(compiling)
    if until_ci is not None:
        from balancer.sim.batches import run_until_ci

        _, until = run_until_ci(
            spec, cfg, config, seats, until_ci, max_games, seed, jobs, out_dir,
            force=force, command=command, progress=progress, log=log, flow=flow,
        )  # fmt: skip
        return RunResult(out_dir, until)
    run_to_dir(
        spec, cfg, config, seats, games, seed, jobs, out_dir, force=force, command=command,
        chunk_size=chunk_size, progress=progress, scheduler=scheduler or None, resume=resume, checked=True, flow=flow,
    )  # fmt: skip
    return RunResult(out_dir)


def default_compare_dir(
    config_a: Path | str,
    config_b: Path | str,
    players: int,
    agents: str | Sequence[str] = "greedy",
    others: Sequence[Path | str] = (),
) -> Path:
    """``results/compare-<game>-<a>-vs-<b>-<players>p[-<agents>]``: where :func:`compare_variants`
    writes by default (the agents end the name unless greedy in every seat; ``others``: more variants)."""
    from balancer.compare import default_compare_names

    return Path("results") / default_compare_names(config_a, config_b, players, agents, others)


def compare_variants(
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
    others: Sequence[Path | str] = (),
) -> CompareResult:
    """Play variants A and B with the same seeds (common random numbers) and compare them game by
    game; the command ``balancer compare`` (:func:`balancer.compare.play_comparison`).

    ``others``: more variants; each is then compared with A on the same seeds and the page ranks
    them by the fairness headline, one Holm family across it (:func:`balancer.compare.play_comparisons`;
    ``comparison`` then holds ``comparisons`` and ``ranking``).

    ``players`` defaults as in :func:`run` (from A); ``out`` to
    ``results/compare-<game>-<a>-vs-<b>-<players>p`` (A's and B's runs and ``comparison.json``). A matching
    finished run in ``out`` is reused unless ``force``. Raises ConfigError, ValueError (configs of two
    games, a bad request: nothing is played), ResultsExistError, GamesFailedError.
    """
    from balancer.compare import play_comparison

    _check_types(
        config_a=config_a, config_b=config_b, players=players, agents=agents, games=games, seed=seed, jobs=jobs,
        out=out, force=force, progress=progress, command=command, others=others,
    )  # fmt: skip
    players, games, seed, jobs = _int_or_none(players), int(games), int(seed), int(jobs)
    cfg_a, _ = load_variant(config_a)
    load_variant(config_b)
    for other in others:
        load_variant(other)
    n = default_players(players, agents, cfg_a)
    out_dir = _out_dir(out) if out is not None else default_compare_dir(config_a, config_b, n, agents, others)
    seats = [a.strip() for a in agents.split(",")] if isinstance(agents, str) else list(agents)
    if others:
        from balancer.compare import play_comparisons

        page = play_comparisons(
            Path(config_a), [Path(config_b), *map(Path, others)], n, seats, games, seed, jobs, out_dir,
            force=force, progress=progress, command=command,
        )  # fmt: skip
        return CompareResult(out_dir, page)
    result = play_comparison(
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
        game = json.loads(run_dir(folder).run_file.read_text(encoding="utf-8")).get("game")
    except (OSError, ValueError, AttributeError):
        game = None
    name = f"{safe_name(folder.resolve().name)}-{path_digest(folder)}"
    return Path("reports") / f"{with_game(game, name) if isinstance(game, str) and game else name}.html"


def write_report(
    result: RunResult | CompareResult | Path | str,
    path: Path | str,
    title: str | None = None,
    *,
    force: bool = False,
) -> Path:
    """Render the self-contained HTML page of a run (:func:`balancer.report.render.render_report`) or
    of a comparison (:func:`balancer.report.compare.render_comparison`) to ``path``; return it.

    ``result``: what :func:`run` or :func:`compare_variants` returned, or a directory they (or the command
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


def published(
    write_page: Callable[[], Any],
    figures: Path | str | None = None,
    tables: Path | str | None = None,
    figures_listed: Path | str | None = None,
    page: Path | str | None = None,
) -> tuple[Any, list[Path]]:
    """Write a page with ``write_page()`` (any command's page writer, returning the page's path or a
    tuple whose first item is it) and, with ``figures`` / ``tables``, every figure of the page as
    SVG, PNG and PDF and every table as CSV into those directories, named after what they show, with
    a ``captions.md`` beside them (:func:`balancer.report.publish.publish`: one implementation for
    every command). ``figures_listed``: the folder where ``write_page`` wrote figures of its own and
    their ``captions.md`` (the history page); when ``tables`` is that folder, its list is kept above the
    tables'. A file of the user's under the name of one of the page's figures or tables (one that
    balancer's ``captions.md`` there, read before the page is written, does not list) is refused
    (UsersFileError, an UnsafeOutputError) before any of them is written, and ``page`` (the page's
    path) is then put back as it was (removed when it was not there). Returns ``(what write_page returned, the files written)``. Raises what the page
    writer raises, and UnsafeOutputError (a link or a file in place of a directory or a file)."""
    from balancer.report.publish import UsersFileError, collecting, listed_files, publish

    folders = [Path(f) for f in (figures, tables) if f is not None]
    listed = {f: listed_files(f) for f in folders}  # before the page writer rewrites a captions.md (history)
    before = _file_state(Path(page)) if page is not None and folders else None
    with collecting() as figs:
        written = write_page()
    if not folders:
        return written, []
    html = Path(written[0] if isinstance(written, tuple) else written)
    try:
        out = publish(
            html.read_text(encoding="utf-8"),
            figs,
            Path(figures) if figures is not None else None,
            Path(tables) if tables is not None else None,
            figures_listed=Path(figures_listed) if figures_listed is not None else None,
            listed=listed,
        )
    except UsersFileError:
        if page is not None:
            _restore_file(Path(page), before)
        raise
    return written, out.figures + out.tables + out.captions


def _file_state(path: Path) -> bytes | None:
    """The bytes of the regular file ``path`` (a page about to be replaced), None when there is none."""
    import stat as _stat

    try:
        if not _stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def _restore_file(path: Path, data: bytes | None) -> None:
    """Put ``path`` back as :func:`_file_state` found it: its bytes, or no file (a page this command wrote)."""
    from balancer.outdir import write_atomic

    if data is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, data)


# --------------------------------------------------------------------------------------------------
# the history of checks


def read_history(
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
    last: int = 50,
    said: list[str] | None = None,
) -> Path:
    """Render the history at ``path`` (filtered as in :func:`read_history`; the last ``last`` commits
    drawn, 0 for all) to the self-contained page ``out`` (:func:`balancer.report.history.render_history`),
    with its one figure (a panel per number) as SVG, PNG and PDF in ``figures`` when given; return
    ``out``. Only the drawn events' rows are read (:func:`balancer.history.query.load_page`: memory
    bounded by ``last``, not by the history's length). The moves are those of
    :mod:`balancer.stats.drift` (Holm over the moves drawn); the drift flag spends ``alpha`` over the
    whole history, whatever the filters. Raises what
    :func:`read_history` raises and ReportOutputError (an OSError) naming ``out``, also for an ``out``
    that is the history itself or an existing file that is not an HTML page
    (:func:`balancer.report.history.check_page_target`). ``said``: when given, the page's drift
    sentences ("In short", :func:`balancer.report.history.in_short`) are appended to it."""
    from balancer.history.query import load_page
    from balancer.report.history import check_page_target, render_history
    from balancer.stats import drift as dr

    _check_types(path=path, study=study, numbers=numbers, since=since, figures=figures, alpha=alpha, said=said)
    if not _type_ok("path", out):
        from balancer.sim.errors import RunRequestError

        raise RunRequestError("out", f"must be {_WANTED['path']}, got {out!r}")
    if isinstance(last, bool) or not isinstance(last, int) or last < 0:
        from balancer.sim.errors import RunRequestError

        raise RunRequestError("last", f"must be a whole number of commits (0 for all), got {last!r}")
    check_page_target(path, out)
    page = load_page(path, study, numbers, since, last)
    frame = page.frame
    pts = dr.points(frame)
    steps = dr.steps(pts, page.values, alpha)
    drift = dr.drift(dr.points(page.every), page.values, alpha)
    if not drift.is_empty() and not frame.is_empty():
        shown = frame.select(list(dr.SERIES)).unique()
        drift = drift.join(shown, on=list(dr.SERIES), how="semi")
    drawn, total = page.commits
    filters = ", ".join(
        f
        for f in (
            f"numbers {', '.join(numbers)}" if numbers else "",
            f"since {since}" if since else "",
            f"the last {drawn} of {total} commits" if drawn < total else "",
        )
        if f
    )
    return render_history(
        frame,
        page.meta,
        pts,
        steps,
        drift,
        Path(out),
        str(path),
        filters,
        Path(figures) if figures else None,
        alpha,
        said,
    )


# --------------------------------------------------------------------------------------------------
# a run's and a comparison's lines: what the command line prints after playing


def default_run_dir(config: Path | str, cfg: GameConfig, players: int) -> Path:
    """``results/<game>-<variant>-<players>p`` (a variant file of one's own adds 8 hex digits of its
    path): where :func:`run` writes by default (:func:`balancer.sim.runner.default_out_dir`)."""
    from balancer.sim.runner import default_out_dir

    return default_out_dir(cfg.game, cfg.variant, players, config=config)


def normalised(path: Path | str) -> Path:
    """``path`` as a run creates it: ``out/a/../X`` is ``out/X`` (:func:`balancer.outdir.normalised`)."""
    from balancer.outdir import normalised as _normalised

    return _normalised(path)


def run_completion_lines(result: RunResult) -> list[str]:
    """How many of a run's games a safety stop ended rather than the rules, with the command that
    replays each (:func:`balancer.stats.completion.completion_lines`); no line when none did."""
    from balancer.sim.runner import replay_command
    from balancer.stats.completion import completion_lines

    meta = result.meta
    agents, seed, config_path = meta.get("agents"), meta.get("seed"), meta.get("config_path")
    replay = None
    if agents and seed is not None and config_path:
        replay = lambda i: replay_command(config_path, agents, seed, i)  # noqa: E731
    return completion_lines(result.summary.get("completion") or {}, replay)


def solo_result(result: RunResult, game: str) -> dict[str, Any] | None:
    """A one-seat run's own result (its game's declared solo result: rate, interval, wins, games), or
    None when the game declares none (:func:`balancer.stats.solo.solo_result`)."""
    from balancer.games import get_spec
    from balancer.stats.solo import solo_result as _solo_result

    return _solo_result(result.summary, get_spec(game).metrics)


def default_compare_name(
    config_a: Path | str,
    config_b: Path | str,
    players: int,
    agents: str | Sequence[str] = "greedy",
    others: Sequence[Path | str] = (),
) -> str:
    """``compare-<game>-<a>-vs-<b>-<players>p[-<agents>]``: the default name of a comparison's folder
    (in ``results/``) and page (in ``reports/``); ``others``: more variants against A
    (:func:`balancer.compare.default_compare_names`)."""
    from balancer.compare import default_compare_names

    return default_compare_names(config_a, config_b, players, agents, others)


def comparison_headlines(comparison: dict[str, Any]) -> list[str]:
    """A comparison's fairness headline in one sentence (``comparison``: a ``comparison.json`` dict):
    both seat spreads, their paired change with its interval, and "fairer", "less fair" or "cannot
    tell" (:func:`balancer.report.compare.fairness_sentence`); for several variants one line each,
    fairest first, numbered by rank. No line for a comparison written without it. Then, when A and B
    played the same games (every paired difference exactly 0), a line that says so."""
    from balancer.report.compare import fairness_sentence

    if "comparisons" in comparison:
        found = comparison["comparisons"]
        lines = [
            fairness_sentence(found[i].get("fairness"), str(found[i].get("variant_a")), str(found[i].get("variant_b")))
            for i in comparison.get("ranking", range(len(found)))
        ]
        same = [
            f"A and {found[i].get('variant_b')} played the same games: identical in every game"
            for i in comparison.get("ranking", range(len(found)))
            if found[i].get("identical")
        ]
        return [f"{rank}. {line}" for rank, line in enumerate(lines, 1) if line] + same
    line = fairness_sentence(
        comparison.get("fairness"), str(comparison.get("variant_a", "A")), str(comparison.get("variant_b", "B"))
    )
    return ([line] if line else []) + _identical_line(comparison)


def _identical_line(comparison: dict[str, Any]) -> list[str]:
    """The line saying that A and B played the same games, when the comparison found every paired
    difference exactly 0 (``identical``); "cannot tell which is fairer" alone hid it (issue 50)."""
    if not comparison.get("identical"):
        return []
    why = (
        "their resolved rules are the same"
        if comparison.get("same_rules")
        else ("the rule change never mattered to these agents")
    )
    return [f"A and B played the same games: identical in every game ({why})"]


def comparison_completion_lines(result: CompareResult) -> list[str]:
    """Each variant's games a safety stop ended rather than the rules, with replay commands; the first
    line of a variant names it (``WARNING: variant v1.1: ...``). No line when none did."""
    from balancer.core.replay import replay_command
    from balancer.stats.completion import completion_lines

    pages = result.comparison.get("comparisons") or [result.comparison]  # several variants: each against A
    out: list[str] = []
    for comparison, side in [(pages[0], "a")] + [(c, "b") for c in pages]:
        agents, seed = comparison["agents"], comparison["seed"]
        c = (comparison.get("completion") or {}).get(side) or {}
        path = comparison[f"config_{side}"]
        lines = completion_lines(c, lambda i, p=path, a=agents, s=seed: replay_command(p, a, s, i))
        out += [
            (f"WARNING: variant {comparison[f'variant_{side}']}: " if k == 0 else "") + line
            for k, line in enumerate(lines)
        ]
    return out


def write_pairs_page(results_dir: Path | str, label: str, path: Path | str, figures: Path | str | None = None) -> Path:
    """The heatmaps of a run by a pair label (``label_<label>``: the first seat's win rate, the seat
    spread and the winning margin of every pair), written to the page ``path`` and, with ``figures``,
    as SVG, PNG and PDF files there (:func:`balancer.report.pairs.render_pairs`); the command
    ``balancer pairs``. Raises KeyError (no such label), FileNotFoundError / ValueError (the run)."""
    from balancer.report.pairs import render_pairs

    _check_types(results_dir=results_dir, label=label, path=path, figures=figures)
    return render_pairs(Path(results_dir), label, Path(path), Path(figures) if figures is not None else None)


# --------------------------------------------------------------------------------------------------
# checks the command line makes before it plays (each raises the library's error naming the path)


def check_page(
    page: Path | str, results_dir: Path | str, force: bool, where: tuple[str, str] = ("path", "--out")
) -> str:
    """Whether ``page`` may be written as the page of ``results_dir``: ResultsExistError when it is the
    page of another folder and not ``force`` (:func:`balancer.naming.check_page`); the digest to record."""
    from balancer.naming import check_page as _check_page

    return _check_page(page, results_dir, force, where)


def refuse_foreign_output(path: Path | str) -> None:
    """UnsafeOutputError when ``path`` (normalised) is a symbolic link or lies under one
    (:func:`balancer.outdir.refuse_foreign`); OSError when it cannot be looked at."""
    from balancer.outdir import refuse_foreign

    refuse_foreign(normalised(path))


def check_output_file(path: Path | str) -> None:
    """ReportOutputError (naming ``path``) unless ``path`` can be written as a file in a writable
    directory (:func:`balancer.report.render.check_report_target`). Creates nothing."""
    from balancer.report.render import check_report_target

    check_report_target(path)


def check_output_target(
    path: Path | str,
    inputs: Sequence[Path | str] = (),
    force: bool = False,
    where: tuple[str, str] = ("path", "--out"),
    kind: str = "a file",
) -> None:
    """Whether the single file ``path`` may be written (:func:`balancer.outdir.check_output_target`):
    UnsafeOutputError when it is one of ``inputs``, a link, a directory, a FIFO or a device;
    ResultsExistError when it is a file balancer did not write and not ``force``. Creates nothing.
    ``kind``: what the file is, for the message (``an HTML file``)."""
    from balancer.outdir import check_output_target as _check

    _check(path, inputs, force, where, kind)


def check_output_directory(path: Path | str) -> None:
    """OutDirError unless ``path`` is or can be created as a writable directory
    (:func:`balancer.sim.runner.check_out_dir`, with the results in it left to the command)."""
    from balancer.sim.runner import check_out_dir

    check_out_dir(Path(path), resume=True)


def check_history_page(history: Path | str, out: Path | str) -> None:
    """ReportOutputError when ``out`` is the history itself or an existing file that is not an HTML
    page (:func:`balancer.report.history.check_page_target`)."""
    from balancer.report.history import check_page_target

    check_page_target(history, out)


# --------------------------------------------------------------------------------------------------
# games, variants, schemas: balancer games, init, validate, show


def game_names() -> list[str]:
    """The names of the installed games, sorted: the registered ones and those whose entry point
    failed (:func:`game_problem` says why)."""
    from balancer.games import GAME_PROBLEMS, GAMES

    return sorted(set(GAMES) | set(GAME_PROBLEMS))


def game_plugin(game: str) -> str | None:
    """The distribution (``balancer-pig 0.1.0``) that registers the installed game ``game`` when it is
    a plugin, not one of the games balancer ships; None for balancer's own
    (:func:`balancer.core.registry.plugin_of`)."""
    from balancer.core.registry import plugin_of

    return plugin_of(game)


def game_problem(game: str) -> str | None:
    """Why the installed game ``game`` cannot be used (its ``balancer.games`` entry point is
    malformed, a duplicate or fails to import), or None."""
    from balancer.games import GAME_PROBLEMS

    return GAME_PROBLEMS.get(game)


def agent_problems() -> dict[str, str]:
    """Why each installed generic agent that is not seated is not (its ``balancer.agents`` entry point
    fails to import, names no ``GenericAgent`` of its name, or the name is registered twice)."""
    from balancer.core.generic_agents import AGENT_PROBLEMS, generic_agents

    generic_agents()  # fills AGENT_PROBLEMS
    return dict(sorted(AGENT_PROBLEMS.items()))


def get_spec(game: str) -> GameSpec:
    """The registered game ``game`` (:func:`balancer.games.get_spec`); KeyError naming the games when unknown."""
    from balancer.games import get_spec as _get_spec

    return _get_spec(game)


def unknown_game(name: str) -> str:
    """The message for a game name that is not registered (the registered ones listed)."""
    from balancer.core.registry import unknown_game as _unknown_game

    return _unknown_game(name)


def shipped_configs(game: str) -> list[tuple[str, str]]:
    """``(name, one-line description)`` of every variant and study file shipped with ``game``
    (``citywright/v1.1``: :mod:`balancer.data`, :func:`balancer.catalog.describe_yaml`)."""
    from balancer.catalog import describe_yaml
    from balancer.data import builtin_configs, builtin_name

    return [(builtin_name(path), describe_yaml(path, brief=True)) for path in builtin_configs(game)]


def is_shipped(config: Path | str) -> bool:
    """Whether ``config`` names a file shipped with balancer (``citywright/v1.1``)."""
    from balancer.data import builtin_config

    return builtin_config(config) is not None


def write_starter(game: str, directory: Path | str, force: bool = False) -> list[Path]:
    """A starter rule variant (``variant.yaml``, extending the game's shipped main variant) and a study
    playing it (``study.yaml``) written into ``directory``; the command ``balancer init``
    (:func:`balancer.starter.write_starter`). Returns the files written."""
    from balancer.starter import write_starter as _write_starter

    _check_types(game=game, directory=directory, force=force)
    return _write_starter(game, directory, force=force)


def copy_shipped(name: str, directory: Path | str, force: bool = False) -> list[Path]:
    """The shipped study, sweep or tune ``name`` (``citywright/appendix``) copied into ``directory`` for a
    designer to edit, its variant paths pointing at the shipped variants by name and at the folder's
    own ``variant.yaml`` where it has one; the command ``balancer init --from``
    (:func:`balancer.starter.copy_shipped`). Returns the files written."""
    from balancer.starter import copy_shipped as _copy_shipped

    _check_types(directory=directory, force=force)
    if not isinstance(name, str):
        raise TypeError(f"name: expected a shipped file's name (str), got {type(name).__name__}")
    return _copy_shipped(name, directory, force=force)


def file_kind(path: Path | str) -> tuple[str, Any]:
    """What kind of YAML file ``path`` is, with its top-level mapping: ``"sweep"`` (a sweep or tune
    file), ``"study"``, ``"fragment"`` (no ``game:``, extended by siblings) or ``"variant"``
    (:mod:`balancer.files`)."""
    from balancer.files import is_sweep_or_tune, read_yaml_head

    head = read_yaml_head(Path(path))
    if is_sweep_or_tune(head):
        return "sweep", head
    if is_study(head):
        return "study", head
    return "variant", head


def fragment_users(path: Path | str, head: Any) -> list[Path]:
    """The sibling YAML files that extend ``path`` when it is a fragment (:func:`balancer.files.fragment_users`)."""
    from balancer.files import fragment_users as _fragment_users

    return _fragment_users(Path(path), head)


def variant_schema(name: Path | str) -> dict[str, Any]:
    """The JSON schema of a game's config (``name`` a registered game, or a variant naming its
    ``game:``) or of a study file (:func:`balancer.config.export_schema`). Raises ConfigError for a file
    that names no registered game or for an unknown game's name (:func:`unknown_game`)."""
    from balancer.config import export_schema, resolve_yaml
    from balancer.files import read_yaml_head
    from balancer.games import GAMES

    game = str(name)
    if game not in GAMES and "/" not in game and not Path(game).suffix and not Path(game).exists():
        raise ConfigError(unknown_game(game))  # a game's name, mistyped (``urban-sketchers``), not a file
    if game not in GAMES and is_study(read_yaml_head(Path(name))):
        from balancer.study.model import Study

        return Study.model_json_schema()  # the study file's own schema
    if game not in GAMES:
        named = resolve_yaml(name).data.get("game")
        if not isinstance(named, str) or named not in GAMES:
            raise ConfigError(f"{name}: game: unknown or missing game {named!r}, allowed: {', '.join(sorted(GAMES))}")
        game = named
    return export_schema(game)


def player_counts_text(cfg: GameConfig) -> str:
    """A variant's player counts as one phrase (``2-4``, ``any``: :func:`balancer.sim.request.counts_text`)."""
    from balancer.sim.request import counts_text

    return counts_text(getattr(cfg, "player_counts", None))


def assumed_notes(config: Path | str) -> list[str]:
    """Every ``assumed:`` note of a resolved variant (its key path and why the value was assumed, where
    the rulebook is silent: :func:`balancer.config.assumed_notes`)."""
    from balancer.config import assumed_notes as _assumed_notes
    from balancer.config import resolve_yaml

    return _assumed_notes(resolve_yaml(config).data)


def describe_sweep_or_tune(path: Path | str, head: dict[str, Any]) -> str:
    """A sweep or tune file's one line (:func:`balancer.catalog.describe_sweep_or_tune`)."""
    from balancer.catalog import describe_sweep_or_tune as _describe

    return _describe(Path(path), head)


# --------------------------------------------------------------------------------------------------
# play and score one table


def play_transcript(
    config: Path | str,
    players: int | None = None,
    agents: str | Sequence[str] = "greedy",
    seed: int = 1,
    game_index: int = 0,
) -> str:
    """The turn-by-turn transcript of one game, the command ``balancer play``: game ``game_index`` of
    the run with ``seed`` (its seed ``SeedSequence(seed, spawn_key=(game_index,))`` and its seats,
    rotated ``game_index`` times), as a failing game of :func:`run` is reported. ``players`` defaults
    as in :func:`run`, with 2 as the last resort. Raises ConfigError, RunRequestError, ValueError."""
    from balancer.core.seeding import game_seed
    from balancer.core.tables import seat_agents
    from balancer.sim.runner import check_run, parse_agents

    _check_types(config=config, players=players, agents=agents, seed=seed, game_index=game_index)
    cfg, spec = load_variant(config)
    n = default_players(players, agents, cfg, 2)
    seats = parse_agents(agents, n)
    check_run(spec, cfg, seats, 1, seed, source=str(config))
    return spec.transcript(cfg, seat_agents(seats, game_index), game_seed(seed, game_index))


def read_table_file(path: Path | str) -> str:
    """The text of a drawn table (``balancer score``'s input), bounded by size and by line, so that
    ``/dev/zero`` or an endless pipe is refused, never read whole. Raises FileNotFoundError, OSError,
    InputLimitError (:mod:`balancer.limits`)."""
    from balancer.limits import MAX_LINE_CHARS, MAX_TEXT_BYTES, read_text_bounded

    return read_text_bounded(Path(path), MAX_TEXT_BYTES, "a drawn table", line_limit=MAX_LINE_CHARS)


def can_score_tables(spec: GameSpec) -> bool:
    """Whether the game scores a final position drawn as text (``balancer score``)."""
    return spec.score_table_text is not None


def score_table(config: Path | str, text: str) -> dict[str, Any]:
    """The category breakdown of a final position drawn as text (docs/commands/score.md) under the
    scoring rules of the variant ``config``; the command ``balancer score``. Raises ConfigError,
    ValueError (a game that cannot score tables from text, or a drawing it refuses)."""
    _check_types(config=config, text=text)
    cfg, spec = load_variant(config)
    if spec.score_table_text is None:
        raise ValueError(f"game {cfg.game!r} cannot score a table from text")
    breakdown: dict[str, Any] = spec.score_table_text(cfg, text)
    return breakdown


# --------------------------------------------------------------------------------------------------
# studies and ladders: balancer study, balancer ladder


def check_study(
    study_file: Path | str, jobs: int = 1, *, figures: bool = True, on_probe: Callable[[Any], None] | None = None
) -> tuple[Any, dict[str, Path], dict[str, Any]]:
    """Every problem of a study file at once, before anything is played (one StudyError, a line each):
    its variants, that every cell can be played and, with ``figures``, that every metric or label a
    figure shows exists (one game of each such run is played to learn them; ``on_probe`` is told of
    each game's first probe). Returns ``(study, variant files, probes)`` for :func:`run_study`'s ``checked``."""
    from balancer.study.runner import check_study as _check_study

    return _check_study(study_file, jobs, figures=figures, on_probe=on_probe)


def study_folder(study_file: Path | str, study: Any, results: Path | str = "results") -> str:
    """The study's folder name in ``results`` (its ``study:`` name; for a file not shipped with
    balancer prefixed with its game and followed by a short hash of its path)."""
    from balancer.study.runner import study_folder as _study_folder

    return _study_folder(study_file, study, results)


def run_study(
    study_file: Path | str,
    results: Path | str = "results",
    jobs: int = 1,
    *,
    force: bool = False,
    progress: bool = False,
    log: Note | None = None,
    scheduler: str | None = None,
    folder: str | None = None,
    checked: tuple[Any, dict[str, Path], dict[str, Any]] | None = None,
) -> Any:
    """Play every cell of a study file (variants x runs; finished cells of the same request are reused,
    an unfinished one continued) into ``results/<folder>/<run>/<variant>/``; the command ``balancer
    study`` (:func:`balancer.study.runner.run_study`). Returns the StudyResult for
    :func:`write_study_report`. ``checked``: what :func:`check_study` returned (not checked again)."""
    from balancer.study.runner import run_study as _run_study

    _check_types(
        study_file=study_file, results=results, jobs=jobs, force=force, progress=progress, log=log,
        scheduler=scheduler, folder=folder, checked=checked,
    )  # fmt: skip
    return _run_study(
        study_file, results_root=results, jobs=jobs, force=force, progress=progress, log=log,
        scheduler=scheduler or None, folder=folder, checked=checked,
    )  # fmt: skip


def write_study_report(result: Any, path: Path | str, figures: Path | str | None = None) -> tuple[Path, list[str]]:
    """Render a played study's page to ``path`` (and each figure as SVG, PNG and PDF into ``figures``):
    a study with a ``ladder:`` section gets the ladder report (:func:`write_ladder_report`), any other
    the published values beside ours (:func:`balancer.report.study.render_study`). Returns the page
    and the summary lines (one per ladder; none for another study)."""
    figures_dir = Path(figures) if figures is not None else None
    if result.study.ladder is not None:
        return write_ladder_report(result, path, figures_dir)
    from balancer.report.study import render_study
    from balancer.study import study_changes

    return render_study(result, study_changes(result), Path(path), figures_dir=figures_dir), []


def study_completion_lines(result: Any) -> list[str]:
    """For every cell of a played study (or ladder) whose games did not all end by the rules, the lines
    saying so with the commands that replay them; the first of a cell names it (``WARNING: run/variant:``)."""
    from balancer.core.replay import replay_command
    from balancer.stats.completion import completion_lines

    out: list[str] = []
    for (run_name, variant), cell in sorted(result.cells.items()):
        agents, seed = cell.meta.get("agents"), cell.meta.get("seed")
        path = cell.meta.get("config_path") or str(cell.config_path)
        replay = (
            (lambda i, a=agents, s=seed, p=path: replay_command(p, a, s, i)) if agents and seed is not None else None
        )
        for k, line in enumerate(completion_lines(cell.summary.get("completion") or {}, replay)):
            out.append((f"WARNING: {run_name}/{variant}: " if k == 0 else "") + line)
    return out


LADDER_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
"""A ladder's name: a folder name of at most 64 characters."""


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]", "_", text).strip("._-")[:40] or "variant"


def ladder_label(config: Path | str, cfg: GameConfig) -> str:
    """The variant's label in a ladder (its ``variant:`` name, or the file's stem, as a folder name)."""
    return _slug(str(getattr(cfg, "variant", "") or Path(config).stem))


def default_ladder_name(config: Path | str, game: str, variant: str) -> str:
    """``ladder-<game>-<variant>``: a ladder's default name (its folder in RESULTS, its page in
    ``reports/``) from the game and the variant's own name kept whole (``ladder-citywright-v1.0``);
    a variant not shipped with balancer also carries 8 hex digits of its path's hash, so two
    ``variant.yaml`` in different folders never share a ladder (:func:`balancer.naming.input_label`).
    At most 64 characters (:data:`LADDER_NAME_PATTERN`): a long variant name is cut, never the hash."""
    from balancer.naming import input_label

    head = f"ladder-{game}-"
    return head + input_label(config, _slug(variant), limit=64 - len(head))


def ladder_settings(rungs: list[str], players: list[int], games: int, matchups: bool, bootstrap: int) -> Any:
    """The validated ladder section (:class:`balancer.ladder.model.Ladder`). Raises ValueError
    ``"<key>: <problem>"`` naming the first key at fault (``rungs``, ``players``, ``games``, ``bootstrap``)."""
    from pydantic import ValidationError

    from balancer.ladder.model import Ladder, first_error

    try:
        return Ladder.model_validate(
            {"rungs": rungs, "players": players, "games": games, "matchups": matchups, "bootstrap": bootstrap}
        )
    except ValidationError as exc:
        raise ValueError(first_error(exc, prefix="").lstrip(".")) from None


def check_ladder_cells(
    config: Path | str, cfg: GameConfig, spec: GameSpec, ladder: Any, games: int, seed: int, jobs: int
) -> None:
    """RunRequestError (or the game's ValueError) when a cell of the ladder cannot be played
    (:func:`balancer.sim.runner.check_run` of every cell's table)."""
    from balancer.ladder.model import cells
    from balancer.sim.runner import check_run

    for c in cells(ladder):
        seats = list(c.agents) * (c.players if len(c.agents) == 1 else 1)
        check_run(spec, cfg, seats, games, seed, jobs, source=str(config))


def write_ladder_study(results: Path | str, study_file: Path | str, data: dict[str, Any]) -> None:
    """Write the study file of a ladder (``<results>/<name>/ladder.yaml``) atomically, with a comment
    saying where it came from; UnsafeOutputError for a symbolic link on the way below ``results``."""
    import yaml

    from balancer.outdir import refuse_links_below, write_atomic

    refuse_links_below(results, study_file, "file")
    path = Path(study_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "# written by 'balancer ladder'; replay with: balancer study " + str(path) + "\n"
    write_atomic(path, head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def write_ladder_report(result: Any, path: Path | str, figures: Path | str | None = None) -> tuple[Path, list[str]]:
    """Analyse a played ladder study (:func:`balancer.ladder.analysis.analyze`) and write its report
    (and figures); return the page and one line per ladder (variant x player count: the seat x rung
    sentence and the skill depth)."""
    from balancer.ladder.analysis import analyze
    from balancer.report.ladder import render_ladder

    tables = analyze(result)
    written = render_ladder(
        result, Path(path), figures_dir=Path(figures) if figures is not None else None, tables=tables
    )
    lines = []
    for t in tables:
        depth = (
            f"; skill depth {t.depth['depth']:.2f} [{t.depth['ci_low']:.2f}, {t.depth['ci_high']:.2f}]"
            if t.depth
            else ""
        )
        lines.append(f"{t.variant}, {t.players} players: {t.sentence}{depth}")
    return written, lines


# --------------------------------------------------------------------------------------------------
# the balance regression check: balancer baseline save, balancer check


def save_baseline(
    study_file: Path | str,
    out: Path | str,
    results: Path | str = "results",
    jobs: int = 1,
    *,
    replay: bool = False,
    progress: bool = False,
    log: Note | None = None,
    values: dict[Any, Any] | None = None,
) -> dict[str, Any]:
    """Play a study and store each cell's tracked numbers (with games, successes or mean and variance),
    the seed, config and engine hashes and the version in the baseline file ``out``; the command
    ``balancer baseline save`` (:func:`balancer.check.save_baseline`). ``replay``: play every cell
    again (finished cells are reused otherwise); ``values``: filled with each number's per-game values
    (for :func:`baseline_history_rows`). Returns the baseline written."""
    from balancer.check import save_baseline as _save_baseline
    from balancer.sim.errors import RunRequestError

    _check_types(
        study_file=study_file, results=results, jobs=jobs, replay=replay, progress=progress, log=log, values=values
    )
    if not _type_ok("path", out):
        raise RunRequestError("out", f"must be {_WANTED['path']}, got {out!r}")
    return _save_baseline(
        study_file, out, results_root=results, jobs=jobs, force_replay=replay, progress=progress, log=log,
        values=values,
    )  # fmt: skip


def count_tracked(baseline: dict[str, Any], metrics: Sequence[str] | None) -> tuple[int, int]:
    """``(numbers stored, numbers the check tracks)`` of a baseline (:func:`balancer.check.values.count_tracked`)."""
    from balancer.check.values import count_tracked as _count_tracked

    return _count_tracked(baseline, metrics)


def load_baseline(path: Path | str) -> dict[str, Any]:
    """A baseline file written by :func:`save_baseline`; BaselineError naming the file otherwise."""
    from balancer.check import load_baseline as _load_baseline

    return _load_baseline(path)


def plan_games(study_file: Path | str, baseline: dict[str, Any] | None = None, settings: Any = None) -> Any:
    """How many games a balance check of ``study_file`` needs, number by number, naming the number
    that drives each cell and the study (:func:`balancer.check.plan.plan_games`; from ``baseline``'s
    numbers when given). Plays nothing. Raises StudyError, ConfigError or BaselineError."""
    from balancer.check.plan import plan_games as _plan_games

    return _plan_games(locate_config(study_file), settings, baseline)


def baseline_power_warning(study_file: Path | str, baseline: dict[str, Any], settings: Any = None) -> str | None:
    """A one-line warning when a saved ``baseline`` is too small for the study's check (the cells
    ``check`` would refuse as underpowered, the games each needs and the number driving them), else
    None (:func:`balancer.check.run.baseline_power_warning`). Plays nothing."""
    from balancer.check.run import baseline_power_warning as _warning

    return _warning(locate_config(study_file), baseline, settings)


def plan_text(plan: Any) -> list[str]:
    """A game plan (:func:`plan_games`) in words, one line per cell and per number."""
    from balancer.check.plan import plan_lines

    return plan_lines(plan)


def check_settings(settings: Any, overrides: dict[str, Any], tolerance: dict[str, Any]) -> Any:
    """A study's check settings with the given ``overrides`` (``max_games``, ``false_alarm``,
    ``miss_rate``, ``looks``) and ``tolerance`` values (``win_rate``, ``metric_sd``) set where not None,
    validated again. Raises pydantic's ValidationError (a ValueError) naming the key at fault."""
    data = settings.model_dump()
    data.update({k: v for k, v in overrides.items() if v is not None})
    for key, value in tolerance.items():
        if value is not None:
            data["tolerance"][key] = value
    return type(settings).model_validate(data)


def run_check(
    study_file: Path | str,
    baseline: dict[str, Any],
    baseline_path: Path | str = "baseline",
    *,
    settings: Any = None,
    seed: int | None = None,
    jobs: int = 1,
    log: Note | None = None,
    allow_underpowered: bool = False,
) -> Any:
    """Replay a study with a new seed and test every tracked number against its baseline and the
    study's ``expect:`` targets (group-sequential test; docs/statistics.md); the command ``balancer
    check`` (:func:`balancer.check.run_check`). Returns the CheckResult (``.passed``)."""
    from balancer.check import run_check as _run_check

    return _run_check(
        study_file, baseline, baseline_path, settings=settings, seed=seed, jobs=jobs, log=log,
        allow_underpowered=allow_underpowered,
    )  # fmt: skip


def print_check_table(result: Any) -> None:
    """Print a check's table (one row per number: estimate, baseline, verdict) on the terminal."""
    from balancer.check import print_table

    print_table(result)


def write_check_junit(result: Any, path: Path | str) -> Path:
    """A check's result as JUnit XML (one test case per number) at ``path``."""
    from balancer.check import write_junit

    return write_junit(result, path)


def write_check_markdown(result: Any, path: Path | str) -> Path:
    """A check's result as a Markdown summary table at ``path``."""
    from balancer.check import write_markdown

    return write_markdown(result, path)


def check_history_target(path: Path | str, study: str, game: str, study_file: Path | str | None = None) -> None:
    """HistoryError naming the file unless ``path`` can take an event of ``study`` (of ``game``, from
    ``study_file`` when given: :func:`balancer.history.record.study_identity`). Changes nothing."""
    from balancer.data import locate_config
    from balancer.history.record import study_identity
    from balancer.history.store import check_history_target as _check_history_target

    sid = study_identity(locate_config(study_file)) if study_file is not None else None
    _check_history_target(path, study, game, sid)


def reserve_history(path: Path | str, study: str, game: str, study_file: Path | str) -> Any:
    """Take the history at ``path`` for appending before a study is played: its writer's lock and the
    checks of :func:`check_history_target` (:func:`balancer.history.store.reserve`); the returned
    reservation's ``append(rows, values)`` writes an event, ``close()`` releases the lock. Raises
    HistoryError naming the file."""
    from balancer.data import locate_config
    from balancer.history.record import study_identity
    from balancer.history.store import reserve

    return reserve(path, study, game, study_identity(locate_config(study_file)))


def baseline_history_rows(
    baseline: dict[str, Any], study_file: Path | str, settings: Any, values: dict[Any, Any] | None
) -> tuple[list[dict[str, Any]], dict[Any, Any]]:
    """The history rows (and per-game values) of a saved baseline (:func:`balancer.history.record.baseline_rows`);
    ``study_file`` may be a shipped name (``citywright/ci``), read as the file it names."""
    from balancer.data import locate_config
    from balancer.history.record import baseline_rows

    return baseline_rows(baseline, locate_config(study_file), settings, values)


def check_history_rows(result: Any, study_file: Path | str) -> tuple[list[dict[str, Any]], dict[Any, Any]]:
    """The history rows (and per-game values) of a check's result (:func:`balancer.history.record.check_rows`);
    ``study_file`` may be a shipped name (``citywright/ci``), read as the file it names."""
    from balancer.data import locate_config
    from balancer.history.record import check_rows

    return check_rows(result, locate_config(study_file))


def append_history_event(
    path: Path | str, study: str, game: str, rows: list[dict[str, Any]], values: dict[Any, Any]
) -> int:
    """Append one event (``rows``, with the git commit) to the history file at ``path``, created if
    missing; return the event's number (:func:`balancer.history.store.append_event`)."""
    from balancer.history.store import append_event

    return append_event(path, study, game, rows, values)


# --------------------------------------------------------------------------------------------------
# sweeps and tunes: balancer sweep, balancer tune


def load_sweep(path: Path | str, jobs: int = 1, on_probe: Callable[[Any], None] | None = None) -> Any:
    """A sweep file checked and planned (every point a variant), with every problem at once as one
    SweepError (a target naming a metric or label plays one game of each run to learn them;
    ``on_probe`` is told first) (:func:`balancer.sweep.load_sweep`)."""
    from balancer.sweep import load_sweep as _load_sweep

    return _load_sweep(path, jobs, on_probe=on_probe)


def run_sweep(
    plan: Any,
    results: Path | str = "results",
    jobs: int = 1,
    *,
    scheduler: str | None = None,
    log: Note | None = None,
    command: str = "",
    force: bool = False,
) -> Any:
    """Play every point of a planned sweep (:func:`load_sweep`) with the same game seeds (finished cells
    reused, an interrupted one continued); the command ``balancer sweep`` (:func:`balancer.sweep.run_sweep`)."""
    from balancer.sweep import run_sweep as _run_sweep

    return _run_sweep(
        plan, results, jobs=jobs, scheduler=scheduler, progress=False, log=log, command=command, force=force
    )


def write_sweep_report(result: Any, path: Path | str) -> tuple[Path, list[str]]:
    """Render a played sweep's page to ``path``; return it and one line per target naming the
    values that meet it (:func:`balancer.report.sweep.render_sweep`, ``target_rows``)."""
    from balancer.report.sweep import render_sweep, target_rows

    written = render_sweep(result, path)
    lines = [
        f"target {t['title']}: " + ("; ".join(t["meets"]) if t["meets"] else "no point meets it")
        for t in target_rows(result)
    ]
    return written, lines


def load_tune(path: Path | str, jobs: int = 1, on_probe: Callable[[Any], None] | None = None) -> Any:
    """A tune file checked and planned, every problem at once as one SweepError (:func:`balancer.tune.load_tune`)."""
    from balancer.tune import load_tune as _load_tune

    return _load_tune(path, jobs, on_probe=on_probe)


def tune_state(results: Path | str, plan: Any, force: bool) -> tuple[Path, dict[str, Any] | None]:
    """Where a tune's search state is (``<results>/<name>/search.json``) and what it holds (None: no
    search yet, or the folder holds another tune file's results, refused unless ``force``:
    ResultsExistError)."""
    from balancer.naming import check_folder, input_source
    from balancer.tune.search import read_state, state_path

    other = check_folder(Path(results) / plan.folder, "tune", input_source(plan.path), force)
    return state_path(results, plan), (None if other else read_state(results, plan))


def run_tune(
    plan: Any,
    results: Path | str = "results",
    jobs: int = 1,
    *,
    scheduler: str | None = None,
    log: Note | None = None,
    command: str = "",
    force: bool = False,
) -> Any:
    """Search a planned tune's space (:func:`load_tune`) for the values that best meet its objective,
    and confirm the best with fresh seeds; the command ``balancer tune`` (:func:`balancer.tune.run_tune`)."""
    from balancer.tune import run_tune as _run_tune

    return _run_tune(plan, results, jobs=jobs, scheduler=scheduler, log=log, command=command, force=force)


def tuned_variant_text(result: Any, path: Path | str, command: str = "") -> str:
    """The winning variant of a tune as a YAML file's text (extending the base, setting only the
    changed keys, with a comment saying how it was found) (:func:`balancer.tune.write.tuned_text`)."""
    from balancer.tune.write import tuned_text

    return tuned_text(result, path, command=command)


def write_tune_report(result: Any, path: Path | str, written: Path | None = None, written_text: str = "") -> Path:
    """Render a tune's page to ``path`` (:func:`balancer.report.tune.render_tune`)."""
    from balancer.report.tune import render_tune

    return render_tune(result, path, written=written, written_text=written_text)


def write_tuned_variant(path: Path | str, text: str) -> Path:
    """Write the tuned variant's text (:func:`tuned_variant_text`) to the new file ``path``; ConfigError
    when it does not load as a variant, OSError when it cannot be written."""
    from balancer.tune.write import write_variant

    return write_variant(path, text)


def changes_text(changes: dict[str, Any]) -> str:
    """Values of YAML paths as one line (``a.b = 1, c = 2``: :func:`balancer.paths.changes_text`)."""
    from balancer.paths import changes_text as _changes_text

    return _changes_text(changes)
