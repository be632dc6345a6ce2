"""Play many games in parallel and stream their records to Parquet (DESIGN.md, "Results").

Game ``i`` of a run seats ``seat_agents(agents, i)`` and is seeded with ``game_seed(seed, i)``, so
its record depends on nothing but (config, agents, seed, i): results are identical for any number
of jobs, chunk size or machine. Chunks of consecutive games run in joblib's loky workers; each
chunk is a pure, module-level function that re-imports the game module by name and returns a
``pyarrow.Table`` of its rows. Chunks come back in game order and are written one by one, so memory
stays flat in the number of games.

Rows: one per seat per game (long format), columns
``variant, game, n_players, game_index, seed, seat, agent, score, rank, win_share, turns``, then
``score_<component>`` per ``Outcome.components`` key and ``metric_<name>`` per ``Outcome.metrics``
key, in the order the game reports them.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import platform
import re
import shutil
import time
import uuid
import warnings
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from joblib import Parallel, delayed, effective_n_jobs

from balancer.core.game import Outcome, ranks_and_win_shares
from balancer.core.seeding import game_seed
from balancer.core.tables import seat_agents, seat_design

RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"
BASE_COLUMNS: tuple[str, ...] = (
    "variant", "game", "n_players", "game_index", "seed", "seat", "agent",
    "score", "rank", "win_share", "turns",
)
MAX_SEED = 2**63 - 1
_VERSION_PACKAGES = ("numpy", "numba", "polars", "pyarrow", "joblib", "scipy", "matplotlib")


class ResultsExistError(FileExistsError):
    """The output directory already holds finished results and ``force`` was not given."""


# --------------------------------------------------------------------------------------------------
# checking a run request (before anything is played)


class RunRequestError(ValueError):
    """A run request that cannot be played; ``flag`` names the command-line option at fault
    (``--games``, ``--seed``, ...) and ``str()`` is ``"<flag>: <problem>"``."""

    def __init__(self, flag: str, problem: str):
        self.flag, self.problem = flag, problem
        super().__init__(f"{flag}: {problem}")


def parse_agents(spec: str | Sequence[str], n_players: int) -> list[str]:
    """Agents by seat for game 0 from ``"greedy"`` (every seat) or ``"greedy,random,..."`` (one per seat).

    Raises RunRequestError (``--agents``) when the count is neither 1 nor ``n_players``, or a name is empty.
    """
    names = [a.strip() for a in spec.split(",")] if isinstance(spec, str) else [str(a).strip() for a in spec]
    if not names or any(not a for a in names):
        raise RunRequestError("--agents", f"empty agent name in {spec!r}; give one name, or one per seat "
                                          "separated by commas")
    if len(names) == 1:
        return names * n_players
    if len(names) != n_players:
        raise RunRequestError(
            "--agents",
            f"got {len(names)} agents ({', '.join(names)}) for {n_players} player{'s' if n_players != 1 else ''}; "
            f"give one name for every seat, or exactly {n_players} names",
        )
    return names


def supported_player_counts(cfg: Any) -> list[int] | None:
    """The config's ``player_counts`` (list of ints), or None when the game does not declare them."""
    counts = getattr(cfg, "player_counts", None)
    return list(counts) if counts is not None else None


def counts_text(counts: Sequence[int] | None) -> str:
    """[1, 2, 3, 4] -> '1-4'; [2, 4] -> '2, 4'; [3] -> '3'; None or [] -> 'any'."""
    counts = sorted(set(counts or []))
    if not counts:
        return "any"
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}"
    return ", ".join(map(str, counts))


def check_run(game_module: ModuleType, cfg: Any, agents: Sequence[str], games: int, seed: int,
              jobs: int = -1, chunk_size: int | None = None, source: str = "this variant") -> None:
    """Raise RunRequestError (a ValueError naming the option at fault) if the run cannot be played
    as asked; play nothing.

    Checks: agents known to the game (``game_module.AGENTS``; ``--agents``), player count
    supported by the config (``cfg.player_counts``, if declared; ``--players``, the message
    naming ``source``), ``games >= 1``, ``0 <= seed <= 2**63 - 1``, ``jobs != 0``,
    ``chunk_size >= 1``.
    """
    known = tuple(getattr(game_module, "AGENTS", ()))
    unknown = [a for a in dict.fromkeys(agents) if known and a not in known]
    if unknown:
        raise RunRequestError("--agents", f"unknown agent {', '.join(map(repr, unknown))}; "
                                          f"known agents: {', '.join(known)}")
    if not agents:
        raise RunRequestError("--players", "at least one seat is needed")
    counts = supported_player_counts(cfg)
    if counts is not None and len(agents) not in counts:
        n = len(agents)
        raise RunRequestError(
            "--players",
            f"{n} player{'s are' if n != 1 else ' is'} not supported by {source} (supported: {counts_text(counts)})",
        )
    if games < 1:
        raise RunRequestError("--games", f"must be at least 1, got {games}")
    if not 0 <= seed <= MAX_SEED:
        raise RunRequestError("--seed", f"must be between 0 and 2^63-1, got {seed}")
    if jobs == 0:
        raise RunRequestError("--jobs", "must be a positive number of processes, or negative "
                                        "(-1 = all cores), got 0")
    if chunk_size is not None and chunk_size < 1:
        raise RunRequestError("--chunk-size", f"must be at least 1, got {chunk_size}")


def default_chunk_size(games: int, n_jobs: int) -> int:
    """About ``games / (n_jobs * 8)`` games per chunk (8 chunks per worker), clamped to [10, 2000]."""
    return max(10, min(2000, math.ceil(games / (max(1, n_jobs) * 8))))


def resolve_jobs(jobs: int) -> int:
    """Worker processes actually used for ``jobs`` (joblib's convention: -1 = all cores, -2 all
    but one), never more than the machine's cores (``os.cpu_count()``)."""
    cores = os.cpu_count() or 1
    return max(1, min(effective_n_jobs(jobs), cores))


# --------------------------------------------------------------------------------------------------
# one chunk (runs in a worker)


def _int_or_float(values: list) -> pa.Array:
    arr = np.asarray(values)
    if arr.dtype.kind in "iub":
        return pa.array(arr.astype(np.int64))
    return pa.array(arr.astype(np.float64))


def _check_outcome(outcome: Outcome, n: int, game_index: int, components: list[str], metrics: list[str]) -> None:
    per_seat = {"scores": outcome.scores, "tiebreak": outcome.tiebreak, "turns": outcome.turns}
    per_seat |= {f"components[{k!r}]": v for k, v in outcome.components.items()}
    per_seat |= {f"metrics[{k!r}]": v for k, v in outcome.metrics.items()}
    for name, values in per_seat.items():
        if len(values) != n:
            raise RuntimeError(f"game {game_index}: Outcome.{name} has {len(values)} values for {n} seats")
    if list(outcome.components) != components or list(outcome.metrics) != metrics:
        raise RuntimeError(
            f"game {game_index}: Outcome components/metrics {list(outcome.components)}/{list(outcome.metrics)} "
            f"differ from the first game's {components}/{metrics}"
        )


def play_chunk(module_name: str, cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int) -> pa.Table:
    """Play games ``start..stop-1`` of a run and return their rows (``(stop-start) * len(agents)`` rows).

    ``module_name`` is the game module's import path (re-imported here so this runs in any
    process); ``cfg`` its validated config model; ``agents`` the seats of game 0.
    Errors raised by the game propagate unchanged.
    """
    module = importlib.import_module(module_name)
    n = len(agents)
    variant = str(getattr(cfg, "variant", ""))
    game_name = str(getattr(module, "NAME", module_name.rsplit(".", 1)[-1]))
    game_idx: list[int] = []
    seats: list[int] = []
    seat_names: list[str] = []
    scores: list = []
    ranks: list[int] = []
    shares: list[float] = []
    turns: list = []
    comps: dict[str, list] = {}
    mets: dict[str, list] = {}
    for i in range(start, stop):
        table = seat_agents(agents, i)
        outcome = module.play_game(cfg, table, game_seed(run_seed, i))
        if i == start:
            comps = {k: [] for k in outcome.components}
            mets = {k: [] for k in outcome.metrics}
        _check_outcome(outcome, n, i, list(comps), list(mets))
        r, w = ranks_and_win_shares(outcome.scores, outcome.tiebreak)
        game_idx.extend([i] * n)
        seats.extend(range(1, n + 1))
        seat_names.extend(table)
        scores.extend(outcome.scores)
        ranks.extend(r)
        shares.extend(w)
        turns.extend(outcome.turns)
        for k, v in outcome.components.items():
            comps[k].extend(v)
        for k, v in outcome.metrics.items():
            mets[k].extend(v)
    rows = len(seats)
    columns: dict[str, pa.Array] = {
        "variant": pa.array([variant] * rows, pa.string()),
        "game": pa.array([game_name] * rows, pa.string()),
        "n_players": pa.array(np.full(rows, n, dtype=np.int32)),
        "game_index": pa.array(np.asarray(game_idx, dtype=np.int64)),
        "seed": pa.array(np.full(rows, run_seed, dtype=np.int64)),
        "seat": pa.array(np.asarray(seats, dtype=np.int32)),
        "agent": pa.array(seat_names, pa.string()),
        "score": _int_or_float(scores),
        "rank": pa.array(np.asarray(ranks, dtype=np.int32)),
        "win_share": pa.array(np.asarray(shares, dtype=np.float64)),
        "turns": _int_or_float(turns),
    }
    columns |= {f"score_{k}": _int_or_float(v) for k, v in comps.items()}
    columns |= {f"metric_{k}": pa.array(np.asarray(v, dtype=np.float64)) for k, v in mets.items()}
    return pa.table(columns)


# --------------------------------------------------------------------------------------------------
# many chunks


def _chunks(games: int, chunk_size: int) -> list[tuple[int, int]]:
    return [(s, min(s + chunk_size, games)) for s in range(0, games, chunk_size)]


def _progress(total: int, enabled: bool):
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    return Progress(
        TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("elapsed,"),
        TimeRemainingColumn(), TextColumn("left"),
        console=Console(stderr=True), disable=not enabled, transient=False,
    )


def run_games(game_module: ModuleType, cfg: Any, agents: Sequence[str], games: int, seed: int,
              jobs: int = -1, chunk_size: int | None = None, progress: bool = True) -> Iterator[pa.Table]:
    """Play ``games`` games and yield one ``pyarrow.Table`` per chunk, in game order.

    ``agents``: agent names by seat for game 0 (rotated each game, see core/tables.py); their number
    is the player count. ``jobs``: worker processes (-1 = all cores). ``chunk_size``: games per
    task (default :func:`default_chunk_size`). Raises ValueError for a bad request (see
    :func:`check_run`) before any game is played; errors from the game propagate.
    """
    agents = list(agents)
    check_run(game_module, cfg, agents, games, seed, jobs, chunk_size)
    n_jobs = resolve_jobs(jobs)
    size = chunk_size or default_chunk_size(games, n_jobs)
    tasks = (delayed(play_chunk)(game_module.__name__, cfg, agents, seed, a, b) for a, b in _chunks(games, size))
    schema: pa.Schema | None = None
    started = time.perf_counter()
    with _progress(games, progress) as bar:
        task = bar.add_task("games", total=games, rate="")
        done = 0
        results = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator")(tasks)
        for table in results:
            if schema is None:
                schema = table.schema
            elif not table.schema.equals(schema):
                table = _conform(table, schema)
            done += table.num_rows // len(agents)
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=done, rate=f"{rate:,.0f} games/s")
            yield table


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Cast a chunk to the first chunk's schema; RuntimeError if the columns differ."""
    if table.schema.names != schema.names:
        raise RuntimeError(f"a chunk's columns {table.schema.names} differ from the first chunk's {schema.names}")
    return table.cast(schema, safe=True)


# --------------------------------------------------------------------------------------------------
# a run directory


def default_out_dir(game: str, variant: str, n_players: int, root: Path | str = "results") -> Path:
    """``results/<game>-<variant>-<p>p``, with characters unsafe in a file name replaced by '_'."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{game}-{variant}-{n_players}p").strip("._") or "run"
    return Path(root) / name


class OutDirError(NotADirectoryError):
    """The output directory cannot be used: it is a file, lies under a file, or cannot be created
    or written. ``str()`` starts with the path."""


def check_out_dir(out_dir: Path | str, force: bool = False) -> None:
    """Check that ``out_dir`` can receive a run, creating nothing.

    Raises ResultsExistError if ``out_dir`` holds results and not ``force``; OutDirError (a
    NotADirectoryError) if it is a file, lies under a file, or its nearest existing directory is
    not writable.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise OutDirError(f"{out_dir}: is a file, not a directory")
    ancestor = out_dir.absolute()
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutDirError(f"{out_dir}: cannot be created: {ancestor} is a file, not a directory")
    # results are written to a sibling temporary directory first, so the parent must be writable
    parent = out_dir.absolute().parent
    writable_dir = parent if parent.exists() else ancestor
    if not os.access(writable_dir, os.W_OK | os.X_OK):
        raise OutDirError(f"{out_dir}: cannot be created: {writable_dir} is not writable")
    if (out_dir / RESULTS_FILE).exists() and not force:
        raise ResultsExistError(f"{out_dir}: already holds {RESULTS_FILE}; use --force to overwrite it, "
                                "or choose another --out")


def package_versions() -> dict[str, str]:
    """Versions of balancer, Python and the libraries a result depends on ('missing' if absent)."""
    from importlib import metadata

    import balancer

    out = {"balancer": getattr(balancer, "__version__", "unknown"), "python": platform.python_version()}
    for name in _VERSION_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "missing"
    return out


def _write_summary(out_dir: Path) -> None:
    """Write summary.json beside results.parquet (balancer.stats.aggregate, imported lazily).

    Skipped with a warning only when that module does not exist yet.
    """
    try:
        from balancer.stats.aggregate import write_summary
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("balancer.stats"):
            warnings.warn(f"summary.json not written: {exc}", RuntimeWarning, stacklevel=2)
            return
        raise
    write_summary(out_dir)


def _make_dirs(path: Path) -> list[Path]:
    """mkdir -p, returning the directories it created (deepest last)."""
    created = []
    for parent in reversed([path, *path.parents]):
        if not parent.exists():
            parent.mkdir()
            created.append(parent)
    return created


def _publish(tmp: Path, out_dir: Path) -> None:
    """Move the finished files of ``tmp`` into ``out_dir`` (rename if new; replace file by file)."""
    if not out_dir.exists():
        os.replace(tmp, out_dir)
        return
    for item in sorted(tmp.iterdir()):
        target = out_dir / item.name
        if target.is_dir() and not item.is_dir():
            shutil.rmtree(target)
        os.replace(item, target)
    tmp.rmdir()


def run_to_dir(game_module: ModuleType, cfg: Any, config_path: Path | str, agents: Sequence[str], games: int,
               seed: int, jobs: int, out_dir: Path | str, force: bool = False, command: str = "",
               chunk_size: int | None = None, progress: bool = True) -> Path:
    """Play a run and write ``out_dir/results.parquet``, ``run.json`` and ``summary.json``; return ``out_dir``.

    Everything is written into a temporary sibling directory first and moved into place at the
    end, so an error or Ctrl-C leaves nothing half-written (the exception propagates).
    Raises ResultsExistError if ``out_dir`` already holds results and not ``force``, OutDirError if
    it cannot be used, RunRequestError (a ValueError) for a bad request (:func:`check_run`), all
    before anything is created.
    """
    from balancer.config import assumed_notes, config_sha256, resolve_yaml

    out_dir = Path(out_dir)
    agents = list(agents)
    check_run(game_module, cfg, agents, games, seed, jobs, chunk_size)
    check_out_dir(out_dir, force)
    n_jobs = resolve_jobs(jobs)
    size = chunk_size or default_chunk_size(games, n_jobs)
    created = _make_dirs(out_dir.parent)
    tmp = out_dir.parent / f".{out_dir.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    try:
        tmp.mkdir()  # unlike mkdtemp, respects the umask: the published directory gets normal permissions
        started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        t0 = time.perf_counter()
        writer: pq.ParquetWriter | None = None
        try:
            for table in run_games(game_module, cfg, agents, games, seed, n_jobs, size, progress):
                if writer is None:
                    writer = pq.ParquetWriter(tmp / RESULTS_FILE, table.schema, compression="zstd")
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
        elapsed = time.perf_counter() - t0
        run_info = {
            "game": str(getattr(game_module, "NAME", game_module.__name__)),
            "variant": str(getattr(cfg, "variant", "")),
            "config_path": str(config_path),
            "config_sha256": config_sha256(config_path),
            "assumed": assumed_notes(resolve_yaml(config_path).data),
            "n_players": len(agents),
            "agents": agents,
            "seat_design": seat_design(agents),
            "games": games,
            "seed": seed,
            "jobs": n_jobs,
            "chunk_size": size,
            "started": started_at,
            "elapsed_seconds": round(elapsed, 3),
            "games_per_second": round(games / max(elapsed, 1e-9), 1),
            "versions": package_versions(),
            "command": command,
        }
        title = getattr(game_module, "DISPLAY_NAME", None)
        if title:  # how the report names the game ("Águeda: City of Umbrellas")
            run_info = {"game": run_info["game"], "game_title": str(title), **run_info}
        (tmp / RUN_FILE).write_text(json.dumps(run_info, indent=2) + "\n", encoding="utf-8")
        _write_summary(tmp)
        _publish(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for d in reversed(created):
            try:
                d.rmdir()
            except OSError:
                break
        raise
    return out_dir


def seat_win_rates(out_dir: Path | str) -> dict[str, list[tuple[Any, float, int]]]:
    """Mean win share by seat and by agent: ``{"seat": [(1, 0.26, games), ...], "agent": [...]}``.

    A quick look for the CLI; the intervals and tests live in balancer.stats.
    """
    import polars as pl

    df = pl.read_parquet(Path(out_dir) / RESULTS_FILE, columns=["seat", "agent", "win_share"])
    out: dict[str, list[tuple[Any, float, int]]] = {}
    for key in ("seat", "agent"):
        agg = df.group_by(key).agg(pl.col("win_share").mean().alias("rate"), pl.len().alias("n")).sort(key)
        out[key] = [(row[key], float(row["rate"]), int(row["n"])) for row in agg.iter_rows(named=True)]
    return out
