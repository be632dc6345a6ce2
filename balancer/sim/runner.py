"""Play many games in parallel and stream their records to Parquet (DESIGN.md, "Results").

Game ``i`` of a run seats ``seat_agents(agents, i)`` and is seeded with ``game_seed(seed, i)``, so
its record depends on nothing but (config, agents, seed, i): results are identical for any number
of jobs, chunk size, machine or cluster, and for a resumed run. Chunks of consecutive games run in
joblib's loky workers, or on a Dask cluster through joblib's dask backend (``scheduler=``); each
chunk is a pure, module-level function that re-imports the game module by name and returns a
``pyarrow.Table`` of its rows plus the games that raised. The caller writes every chunk to its own
Parquet file and lists it in a manifest, so an interrupted run can be resumed, and merges the chunks
in game order at the end, one at a time, so memory stays flat in the number of games.

Rows: one per seat per game (long format), columns
``variant, game, n_players, game_index, seed, seat, agent, score, rank, win_share, turns``, then
``score_<component>`` per ``Outcome.components`` key and ``metric_<name>`` per ``Outcome.metrics``
key, in the order the game reports them.
"""

from __future__ import annotations

import hashlib
import math
import os
import platform
import re
import shlex
import shutil
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from joblib import Parallel, delayed, effective_n_jobs

from balancer.core.batch import DEFAULT_CHUNK_GAMES
from balancer.core.game import Outcome, ranks_and_win_shares
from balancer.core.registry import GameSpec, spec_at
from balancer.core.seeding import MAX_GAMES, game_seed
from balancer.core.tables import seat_agents, seat_design
from balancer.sim.records import batch_table
from balancer.sim.rundir import (  # noqa: F401  (the layout names, imported from here by older code)
    CHUNKS_DIR,
    MANIFEST_FILE,
    MANIFEST_FORMAT,
    RESULTS_FILE,
    RUN_FILE,
    RunDir,
    conform,
    read_manifest,
    sha256_of,
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
        raise RunRequestError(
            "--agents", f"empty agent name in {spec!r}; give one name, or one per seat separated by commas"
        )
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


def check_run(
    spec: GameSpec,
    cfg: Any,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int = -1,
    chunk_size: int | None = None,
    source: str = "this variant",
) -> None:
    """Raise RunRequestError (a ValueError naming the option at fault) if the run cannot be played
    as asked; play nothing.

    Checks: agents known to the game (``spec.check_agent(name, cfg)``, then the table as a whole,
    ``spec.check_table``; ``--agents``), player count
    supported by the config (``cfg.player_counts``, if declared; ``--players``, the message
    naming ``source``), ``games >= 1``, ``0 <= seed <= 2**63 - 1``, ``jobs != 0``,
    ``chunk_size >= 1``.
    """
    for name in dict.fromkeys(agents):
        problem = spec.check_agent(name, cfg)
        if problem:
            raise RunRequestError("--agents", problem)
    problem = spec.check_table(list(agents), cfg) if spec.check_table is not None and agents else None
    if problem:
        raise RunRequestError("--agents", problem)
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
    if games > MAX_GAMES:
        raise RunRequestError("--games", f"at most {MAX_GAMES:,} games in one run, got {games:,}")
    if not 0 <= seed <= MAX_SEED:
        raise RunRequestError("--seed", f"must be between 0 and 2^63-1, got {seed}")
    if jobs == 0:
        raise RunRequestError("--jobs", "must be a positive number of processes, or negative (-1 = all cores), got 0")
    cores = os.cpu_count() or 1
    if jobs < -cores:
        raise RunRequestError(
            "--jobs",
            f"{jobs} means all cores but {-jobs - 1} (joblib's convention), and this "
            f"machine has {cores}; give -1 to {-cores}, or a positive number",
        )
    if chunk_size is not None and chunk_size < 1:
        raise RunRequestError("--chunk-size", f"must be at least 1, got {chunk_size}")


def table_note(spec: GameSpec, cfg: Any, agents: Sequence[str]) -> str | None:
    """The game's own sentence about a table (``spec.table_note``, optional), e.g. an Urgency table
    that seats one deck twice, which the printed game cannot deal; None otherwise. ``run`` prints
    it, ``run.json`` keeps it as ``table_note`` and the report shows it."""
    return spec.table_note(cfg, list(agents)) if spec.table_note is not None else None


def default_chunk_size(games: int, n_jobs: int, most: int = DEFAULT_CHUNK_GAMES) -> int:
    """About ``games / (n_jobs * 8)`` games per chunk (8 chunks per worker), clamped to [10, most]."""
    return max(10, min(max(10, most), math.ceil(games / (max(1, n_jobs) * 8))))


def table_chunk_games(spec: GameSpec, cfg: Any, agents: Sequence[str]) -> int:
    """The most games of a default chunk of this table: the game's ``chunk_games`` (a compiled
    table that plays tens of thousands of games a second takes larger chunks, so that writing
    and listing a chunk costs little beside playing it), else :data:`DEFAULT_CHUNK_GAMES`."""
    if spec.chunk_games is None:
        return DEFAULT_CHUNK_GAMES
    return max(10, int(spec.chunk_games(cfg, list(agents))))


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


def _check_outcome(
    outcome: Outcome, n: int, game_index: int, components: list[str], metrics: list[str], labels: list[str]
) -> None:
    per_seat: dict[str, Sequence[Any]] = {
        "scores": outcome.scores,
        "tiebreak": outcome.tiebreak,
        "turns": outcome.turns,
    }
    per_seat |= {f"components[{k!r}]": v for k, v in outcome.components.items()}
    per_seat |= {f"metrics[{k!r}]": v for k, v in outcome.metrics.items()}
    per_seat |= {f"labels[{k!r}]": v for k, v in outcome.labels.items()}
    for name, values in per_seat.items():
        if len(values) != n:
            raise RuntimeError(f"game {game_index}: Outcome.{name} has {len(values)} values for {n} seats")
    if list(outcome.components) != components or list(outcome.metrics) != metrics or list(outcome.labels) != labels:
        raise RuntimeError(
            f"game {game_index}: Outcome components/metrics/labels {list(outcome.components)}/{list(outcome.metrics)}/"
            f"{list(outcome.labels)} differ from the first game's {components}/{metrics}/{labels}"
        )


def _failure(game_index: int, run_seed: int, exc: BaseException) -> dict[str, Any]:
    """What is kept of a failing game: index, run seed, ``"Type: message"`` and the last frames."""
    frames = traceback.extract_tb(exc.__traceback__)[-4:]
    where = [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames]
    return {
        "game_index": game_index,
        "seed": run_seed,
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": " <- ".join(reversed(where)),
    }


def _play(
    module_name: str, cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int, catch: bool
) -> tuple[pa.Table | None, list[dict[str, Any]]]:
    spec = spec_at(module_name)
    n = len(agents)
    variant = str(cfg.variant)
    game_name = spec.name
    if spec.play_chunk is not None and stop > start:
        try:
            batch = spec.play_chunk(cfg, agents, run_seed, start, stop)
            if batch is not None:
                return batch_table(batch, game_name, variant, agents, run_seed, start), []
        except Exception:
            if not catch:
                raise
            # find and record the failing games one by one (below), the others' rows as usual
    game_idx: list[int] = []
    seats: list[int] = []
    seat_names: list[str] = []
    scores: list = []
    ranks: list[int] = []
    shares: list[float] = []
    turns: list = []
    comps: dict[str, list] | None = None
    mets: dict[str, list] = {}
    labs: dict[str, list] = {}
    failures: list[dict[str, Any]] = []
    for i in range(start, stop):
        table = seat_agents(agents, i)
        try:
            outcome = spec.play_game(cfg, table, game_seed(run_seed, i))
            if comps is None:
                comps = {k: [] for k in outcome.components}
                mets = {k: [] for k in outcome.metrics}
                labs = {k: [] for k in outcome.labels}
            _check_outcome(outcome, n, i, list(comps), list(mets), list(labs))
            r, w = ranks_and_win_shares(outcome.scores, outcome.tiebreak)
        except Exception as exc:
            if not catch:
                raise
            failures.append(_failure(i, run_seed, exc))
            continue
        game_idx.extend([i] * n)
        seats.extend(range(1, n + 1))
        seat_names.extend(table)
        scores.extend(outcome.scores)
        ranks.extend(r)
        shares.extend(w)
        turns.extend(outcome.turns)
        for k, v in outcome.components.items():
            comps[k].extend(v)
        for k, m in outcome.metrics.items():
            mets[k].extend(m)
        for k, lab in outcome.labels.items():
            labs[k].extend(map(str, lab))
    if comps is None:  # every game of the chunk failed
        return None, failures
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
    columns |= {f"label_{k}": pa.array(v, pa.string()) for k, v in labs.items()}
    return pa.table(columns), failures


def play_chunk(module_name: str, cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int) -> pa.Table:
    """Play games ``start..stop-1`` of a run and return their rows (``(stop-start) * len(agents)`` rows).

    ``module_name`` is the import path of the game's package (``spec.module``, re-imported here so
    this runs in any process); ``cfg`` its validated config model; ``agents`` the seats of game 0.
    Errors raised by the game propagate unchanged (see :func:`play_chunk_safe` for the variant
    that records them).
    """
    table, _ = _play(module_name, cfg, agents, run_seed, start, stop, catch=False)
    assert table is not None
    return table


def play_chunk_safe(
    chunk: int, module_name: str, cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int
) -> tuple[int, pa.Table | None, list[dict[str, Any]]]:
    """Play games ``start..stop-1`` like :func:`play_chunk`, but a game that raises is skipped and
    recorded instead of stopping the chunk.

    Returns ``(chunk, rows, failures)``: ``rows`` holds ``len(agents)`` rows per game that finished
    (None when none did); ``failures`` one dict per failing game, in game order, with
    ``game_index``, ``seed`` (the run seed), ``error`` (``"Type: message"``) and ``traceback``
    (the last frames, innermost first). Runs in any process (loky or a Dask worker).
    """
    table, failures = _play(module_name, cfg, agents, run_seed, start, stop, catch=True)
    return chunk, table, failures


# --------------------------------------------------------------------------------------------------
# many chunks, locally (loky) or on a Dask cluster

CONNECT_TIMEOUT = 5.0  # seconds to wait for a --scheduler to answer


class SchedulerError(RunRequestError):
    """The Dask scheduler cannot be reached; ``str()`` is ``"--scheduler ADDRESS: cannot connect (why)"``."""

    def __init__(self, address: str, problem: str):
        self.flag, self.problem, self.address = "--scheduler", problem, address
        ValueError.__init__(self, f"--scheduler {address}: {problem}")


def connect_scheduler(address: str, timeout: float | None = None):
    """A ``distributed.Client`` connected to the scheduler at ``address`` (``tcp://host:8786``).

    Waits at most ``timeout`` seconds (default :data:`CONNECT_TIMEOUT`); raises SchedulerError
    when the address is malformed, nothing answers in time, or no worker is connected.
    """
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - dask[distributed] is a dependency
        raise SchedulerError(address, f"dask.distributed is not installed ({exc})") from None
    try:
        client = Client(address, timeout=f"{timeout}s", set_as_default=False)
    except Exception as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise SchedulerError(address, f"cannot connect ({text[:200]})") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except Exception:
        client.close()
        raise SchedulerError(address, f"no worker connected to the scheduler within {timeout:g} s") from None
    return client


def cluster_threads(client) -> int:
    """Worker threads of a Dask cluster (at least 1)."""
    return max(1, sum(client.nthreads().values()))


class ChunkPlan:
    """The chunks of a run, computed on demand: chunk ``i`` plays games ``[i * size, min((i + 1) * size,
    games))``. A mapping-like view (``plan[i]``, ``plan.get(i)``, ``len(plan)``, ``plan.items()``) whose
    memory does not depend on the number of games."""

    def __init__(self, games: int, size: int):
        self.games, self.size = int(games), int(size)

    def __len__(self) -> int:
        return -(-self.games // self.size)

    def get(self, idx: int, default: Any = None) -> tuple[int, int] | Any:
        if not isinstance(idx, int) or not 0 <= idx < len(self):
            return default
        start = idx * self.size
        return start, min(start + self.size, self.games)

    def __getitem__(self, idx: int) -> tuple[int, int]:
        found = self.get(idx)
        if found is None:
            raise KeyError(idx)
        return found

    def __contains__(self, idx: object) -> bool:
        return isinstance(idx, int) and 0 <= idx < len(self)

    def items(self) -> Iterator[tuple[int, tuple[int, int]]]:
        for idx in range(len(self)):
            yield idx, self[idx]


def _progress(total: int, enabled: bool):
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=Console(stderr=True),
        disable=not enabled,
        transient=False,
    )


def parallel(n_jobs: int, client, ordered: bool):
    """A joblib ``Parallel`` returning a generator: loky with ``n_jobs`` processes, or the Dask
    backend on ``client`` (every worker thread of the cluster)."""
    return_as = "generator" if ordered else "generator_unordered"
    if client is None:
        return Parallel(n_jobs=n_jobs, backend="loky", return_as=return_as)
    from joblib import parallel_config

    with parallel_config(backend="dask", client=client):
        return Parallel(n_jobs=-1, return_as=return_as)


def run_games(
    spec: GameSpec,
    cfg: Any,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int = -1,
    chunk_size: int | None = None,
    progress: bool = True,
) -> Iterator[pa.Table]:
    """Play ``games`` games and yield one ``pyarrow.Table`` per chunk, in game order.

    ``agents``: agent names by seat for game 0 (rotated each game, see core/tables.py); their number
    is the player count. ``jobs``: worker processes (-1 = all cores). ``chunk_size``: games per
    task (default :func:`default_chunk_size`). Raises ValueError for a bad request (see
    :func:`check_run`) before any game is played; errors from the game propagate. (Files, resume
    and recorded failures: :func:`run_to_dir`.)
    """
    agents = list(agents)
    check_run(spec, cfg, agents, games, seed, jobs, chunk_size)
    n_jobs = resolve_jobs(jobs)
    size = chunk_size or default_chunk_size(games, n_jobs, table_chunk_games(spec, cfg, agents))
    tasks = (delayed(play_chunk)(spec.module, cfg, agents, seed, a, b) for _, (a, b) in ChunkPlan(games, size).items())
    schema: pa.Schema | None = None
    started = time.perf_counter()
    with _progress(games, progress) as bar:
        task = bar.add_task("games", total=games, rate="")
        done = 0
        for table in parallel(n_jobs, None, ordered=True)(tasks):
            if schema is None:
                schema = table.schema
            elif not table.schema.equals(schema):
                table = conform(table, schema)
            done += table.num_rows // len(agents)
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=done, rate=f"{rate:,.0f} games/s")
            yield table


# --------------------------------------------------------------------------------------------------
# a run directory: balancer.sim.rundir (layout, chunks, manifest, merge)

MAX_LISTED_FAILURES = 1000  # failures kept with details in run.json (all are counted)
MANIFEST_EVERY = 0.5  # seconds between rewrites of the manifest while chunks finish (and once at the end)


def default_out_dir(game: str, variant: str, n_players: int, root: Path | str = "results") -> Path:
    """``results/<game>-<variant>-<p>p``, with characters unsafe in a file name replaced by '_'."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{game}-{variant}-{n_players}p").strip("._") or "run"
    return Path(root) / name


class OutDirError(NotADirectoryError):
    """The output directory cannot be used: it is a file, lies under a file, or cannot be created
    or written. ``str()`` starts with the path."""


class ResumeError(RunRequestError):
    """``--resume`` cannot continue: no manifest, an unreadable one, or different arguments."""

    def __init__(self, problem: str):
        super().__init__("--resume", problem)


class GamesFailedError(RuntimeError):
    """Some games raised; everything else was written. ``failures``: up to
    :data:`MAX_LISTED_FAILURES` dicts (``game_index, seed, error, traceback, replay``), ``count``
    the number of failing games, ``out_dir`` the run directory."""

    def __init__(self, out_dir: Path, failures: list[dict[str, Any]], count: int, games: int):
        self.out_dir, self.failures, self.count, self.games = out_dir, failures, count, games
        first = failures[0]["error"] if failures else ""
        super().__init__(
            f"{count} of {games} games failed (first: game {failures[0]['game_index']}: {first})"
            if failures
            else f"{count} of {games} games failed"
        )


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a run: finished chunks and the manifest are on disk, the chunk in
    flight was discarded. ``done`` games of ``games`` are saved in ``out_dir``."""

    def __init__(self, out_dir: Path, done: int, games: int):
        self.out_dir, self.done, self.games = out_dir, done, games
        super().__init__(f"{done} of {games} games saved in {out_dir}")


LOCK_FILE = "run.lock"


class RunLockedError(ResultsExistError):
    """Another process is writing the output directory (its ``run.lock`` is held); ``pid`` is its process id."""

    def __init__(self, out_dir: Path, pid: int | None):
        self.out_dir, self.pid = out_dir, pid
        who = f" (pid {pid})" if pid else ""
        super().__init__(
            f"{out_dir}: another run is writing this directory{who}; wait for it to finish, or choose another --out"
        )


def _lock_holder(path: Path) -> int | None:
    """The process id written in a lock file, or None when there is none (empty, unreadable)."""
    try:
        return int(path.read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def check_lock(out_dir: Path | str) -> None:
    """Raise RunLockedError when another live process holds ``out_dir/run.lock`` (creating nothing).

    A lock is an advisory ``flock`` on the file, so it is released when its process ends however it
    ends; a lock file left by a killed run is stale, and :func:`run_lock` reports and replaces it.
    """
    import fcntl

    path = Path(out_dir) / LOCK_FILE
    if not path.is_file():
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(path)
        if holder != os.getpid():
            raise RunLockedError(Path(out_dir), holder) from None
    finally:
        os.close(fd)


_HELD_LOCKS: dict[Path, int] = {}


@contextmanager
def run_lock(out_dir: Path | str, log: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``out_dir/run.lock`` (the directory must exist) while a run writes ``out_dir``.

    The file holds this process's id and host; the lock itself is an exclusive ``flock``, released
    by the system when the process ends (Ctrl-C, a crash, ``kill -9``). Raises RunLockedError when a
    live process holds it. A lock file whose process is gone (a killed run) is reported through
    ``log`` (stderr by default) and taken over. Re-entrant within a process (``--until-ci`` holds
    the lock around the run it finishes with).
    """
    import fcntl
    import socket
    import sys

    key = Path(out_dir).resolve()
    if key in _HELD_LOCKS:
        yield
        return
    path = Path(out_dir) / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RunLockedError(Path(out_dir), _lock_holder(path)) from None
    stale = _lock_holder(path)
    if stale is not None:
        (log or (lambda line: print(line, file=sys.stderr)))(
            f"note: {path}: a stale lock of a run that ended without releasing it (pid {stale}, no longer "
            "running); taking it over"
        )
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
    _HELD_LOCKS[key] = fd
    try:
        yield
    finally:
        del _HELD_LOCKS[key]
        try:
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def check_out_dir(out_dir: Path | str, force: bool = False, resume: bool | None = False) -> None:
    """Check that ``out_dir`` can receive a run, creating nothing.

    Raises ResultsExistError if ``out_dir`` holds finished results (or, when ``resume`` is False,
    an interrupted run's manifest) and not ``force``; OutDirError (a NotADirectoryError) if it is a
    file, lies under a file, or the directory to write in is not writable. ``resume=True`` skips
    the results checks (see :func:`run_to_dir`); ``None`` accepts an interrupted run.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise OutDirError(f"{out_dir}: is a file, not a directory")
    ancestor = out_dir.absolute()
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutDirError(f"{out_dir}: cannot be created: {ancestor} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutDirError(
            f"{out_dir}: cannot be {'written' if ancestor == out_dir.absolute() else 'created'}: "
            f"{ancestor} is not writable"
        )
    check_lock(out_dir)
    if resume is True or force:
        return
    if (out_dir / RESULTS_FILE).exists():
        raise ResultsExistError(
            f"{out_dir}: already holds {RESULTS_FILE}; use --force to overwrite it, or choose another --out"
        )
    if resume is False and (out_dir / MANIFEST_FILE).exists():
        raise ResultsExistError(
            f"{out_dir}: holds an interrupted run ({MANIFEST_FILE}); continue it with --resume, "
            "or start over with --force"
        )


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


def replay_command(config_path: Path | str, agents: Sequence[str], seed: int, game_index: int) -> str:
    """The ``balancer play`` command that replays game ``game_index`` of a run (shell-quoted)."""
    return shlex.join(
        [
            "balancer",
            "play",
            str(config_path),
            "--players",
            str(len(agents)),
            "--agents",
            ",".join(agents),
            "--seed",
            str(seed),
            "--game-index",
            str(game_index),
        ]
    )


SHARED_ENGINE_CODE = ("core/kernel.py", "core/protocol.py", "agents")
"""Code every game's play depends on beside its own package (paths under ``balancer/``): the compiled
interface and the generic agents (MCTS) over it."""


def engine_sha256(spec: GameSpec) -> str:
    """SHA-256 of the code that plays the game: every ``.py`` file of its package and of
    :data:`SHARED_ENGINE_CODE` (name and content, sorted) and the balancer version. Finished results
    are reused only under the same engine, so a change to the rules or the agents is never mixed with
    numbers played before it."""
    import balancer

    digest = hashlib.sha256(f"balancer {balancer.__version__}\n".encode())
    root = spec.source
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    for path in files:
        digest.update(
            str(path.relative_to(root.parent if root.is_file() else root)).encode() + b"\0" + path.read_bytes() + b"\0"
        )
    package = Path(balancer.__file__).parent
    for name in SHARED_ENGINE_CODE:
        shared = package / name
        for path in sorted(shared.rglob("*.py")) if shared.is_dir() else [shared] if shared.exists() else []:
            digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


_REQUEST_FLAGS = {
    "game": "game",
    "variant": "variant",
    "config_sha256": "config content",
    "engine_sha256": "engine code",
    "agents": "--agents",
    "n_players": "--players",
    "games": "--games",
    "seed": "--seed",
}


def _request_differences(manifest: dict[str, Any], request: dict[str, Any], chunk_size: int | None) -> list[str]:
    diffs = []
    for key, label in _REQUEST_FLAGS.items():
        if manifest.get(key) != request[key]:
            was, now = manifest.get(key), request[key]
            if key == "agents":
                was, now = ",".join(map(str, was or [])), ",".join(now)
            if key == "config_sha256":
                diffs.append(f"config content (the YAML of {request['config_path']} changed)")
            elif key == "engine_sha256":
                diffs.append("engine code (the game's rules or agents changed since; replay with --force)")
            else:
                diffs.append(f"{label} {was} (now {now})")
    if chunk_size is not None and manifest.get("chunk_size") != chunk_size:
        diffs.append(f"--chunk-size {manifest.get('chunk_size')} (now {chunk_size})")
    return diffs


def _valid_entries(out_dir: Path, manifest: dict[str, Any], plan: ChunkPlan) -> dict[int, dict]:
    """Manifest entries whose chunk file is present with its checksum (or that hold no rows)."""
    kept = {}
    for entry in manifest["chunks"]:
        try:
            idx = int(entry["chunk"])
            if plan.get(idx) != (entry["start"], entry["stop"]):
                continue
            if entry["rows"]:
                path = out_dir / entry["file"]
                if not path.is_file() or sha256_of(path) != entry["sha256"]:
                    continue
        except (KeyError, TypeError, ValueError):
            continue
        kept[idx] = entry
    return kept


def run_to_dir(
    spec: GameSpec,
    cfg: Any,
    config_path: Path | str,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int,
    out_dir: Path | str,
    force: bool = False,
    command: str = "",
    chunk_size: int | None = None,
    progress: bool = True,
    scheduler: str | None = None,
    resume: bool | None = False,
) -> Path:
    """Play a run and write ``out_dir/results.parquet``, ``run.json`` and ``summary.json``; return ``out_dir``.

    While it writes, the run holds ``out_dir/run.lock`` (:func:`run_lock`): a second run on the same
    directory is refused with RunLockedError naming the first one's process id.

    Games are played in chunks (``chunk_size`` games; default :func:`default_chunk_size`) by
    ``jobs`` loky processes, or by every worker of the Dask cluster at ``scheduler``
    (``tcp://host:8786``). Each finished chunk is written to ``out_dir/chunks/`` and then listed in
    ``out_dir/manifest.json`` (chunk, game range, seed, rows, sha256, failures; the manifest is
    rewritten at most every :data:`MANIFEST_EVERY` seconds, and on Ctrl-C: a chunk written but
    not yet listed when the process is killed is played again by ``--resume``); at the end the
    chunks are merged in game order into results.parquet and removed with the manifest. Results
    are identical for any ``jobs``, ``chunk_size``, cluster or resume.

    ``resume``: True continues the interrupted run in ``out_dir``, playing only the chunks missing
    from its manifest (a chunk file not listed, or whose checksum differs, is discarded) with the
    manifest's chunk size; None resumes when a manifest of the same request exists and starts
    over otherwise; False starts over (refusing an interrupted run unless ``force``).

    Raises, before anything is created: ResultsExistError (finished results or an interrupted run
    and not ``force``), OutDirError, RunRequestError (a ValueError) for a bad request
    (:func:`check_run`), SchedulerError (unreachable scheduler), ResumeError (no manifest, or a
    manifest of different arguments, naming them). After writing everything else:
    GamesFailedError when games raised (listed in run.json, with replay commands). On Ctrl-C /
    SIGTERM: RunInterrupted (a KeyboardInterrupt) with the finished chunks and manifest on disk.
    """
    with ExitStack() as locks:  # the directory's lock, once the directory exists
        from balancer.config import assumed_notes, config_sha256, resolve_yaml

        out_dir = Path(out_dir)
        agents = list(agents)
        check_run(spec, cfg, agents, games, seed, jobs, chunk_size)
        check_out_dir(out_dir, force, resume)
        request = {
            "game": spec.name,
            "variant": str(getattr(cfg, "variant", "")),
            "config_path": str(config_path),
            "config_sha256": config_sha256(config_path),
            "engine_sha256": engine_sha256(spec),
            "n_players": len(agents),
            "agents": agents,
            "games": games,
            "seed": seed,
        }
        manifest = read_manifest(out_dir) if resume is not False else None
        if resume is True:
            if manifest is None:
                what = f"holds finished results ({RESULTS_FILE}) and" if (out_dir / RESULTS_FILE).exists() else ""
                raise ResumeError(
                    f"{out_dir} {what} has no {MANIFEST_FILE}: there is no interrupted run to continue".replace(
                        "  ", " "
                    )
                    + "; run without --resume"
                    + (" --force" if what else "")
                )
            diffs = _request_differences(manifest, request, chunk_size)
            if diffs:
                raise ResumeError(f"{out_dir} was started with different arguments: {'; '.join(diffs)}")
        elif manifest is not None and _request_differences(manifest, request, chunk_size):
            manifest = None  # resume=None: a different request starts over

        client = connect_scheduler(scheduler) if scheduler else None
        try:
            n_jobs = cluster_threads(client) if client is not None else resolve_jobs(jobs)
            size = (
                int(manifest["chunk_size"])
                if manifest
                else (chunk_size or default_chunk_size(games, n_jobs, table_chunk_games(spec, cfg, agents)))
            )
            plan = ChunkPlan(games, size)
            out_dir.mkdir(parents=True, exist_ok=True)
            locks.enter_context(run_lock(out_dir))
            chunks_dir = out_dir / CHUNKS_DIR
            if manifest is None:
                shutil.rmtree(chunks_dir, ignore_errors=True)
                done_entries: dict[int, dict] = {}
                manifest = {
                    "format": MANIFEST_FORMAT,
                    **request,
                    "chunk_size": size,
                    "started": datetime.now(UTC).isoformat(timespec="seconds"),
                    "elapsed_seconds": 0.0,
                    "chunks": [],
                }
            else:
                done_entries = _valid_entries(out_dir, manifest, plan)
            chunks_dir.mkdir(exist_ok=True)
            listed = {e["file"].rsplit("/", 1)[-1] for e in done_entries.values() if e.get("file")}
            for stray in chunks_dir.iterdir():  # half-written or unlisted chunks are discarded
                if stray.name not in listed:
                    stray.unlink()
            manifest["chunks"] = [done_entries[i] for i in sorted(done_entries)]
            manifest["config_path"] = str(config_path)
            RunDir(out_dir).write_manifest(manifest)

            pending = ((i, a, b) for i, (a, b) in plan.items() if i not in done_entries)
            done = sum(plan[i][1] - plan[i][0] for i in done_entries)
            elapsed_before = float(manifest.get("elapsed_seconds", 0.0))
            t0 = time.perf_counter()
            session_games = 0
            unlisted = 0  # chunks written but not yet in the manifest on disk
            listed_at = time.perf_counter()

            def list_chunks() -> None:
                nonlocal unlisted, listed_at
                manifest["elapsed_seconds"] = round(elapsed_before + time.perf_counter() - t0, 3)
                RunDir(out_dir).write_manifest(manifest)
                unlisted, listed_at = 0, time.perf_counter()

            try:
                with _progress(games, progress) as bar:
                    task = bar.add_task("games", total=games, completed=done, rate="")
                    if done < games:
                        tasks = (
                            delayed(play_chunk_safe)(i, spec.module, cfg, agents, seed, a, b) for i, a, b in pending
                        )
                        for idx, table, failures in parallel(n_jobs, client, ordered=False)(tasks):
                            a, b = plan[idx]
                            for f in failures:
                                f["replay"] = replay_command(config_path, agents, seed, f["game_index"])
                            entry = RunDir(out_dir).write_chunk(idx, a, b, seed, table, failures)
                            manifest["chunks"].append(entry)
                            unlisted += 1
                            # the manifest (every chunk so far) is rewritten at most every MANIFEST_EVERY
                            # seconds: a run of many small chunks would spend more time on it than on play
                            if time.perf_counter() - listed_at >= MANIFEST_EVERY:
                                list_chunks()
                            done += b - a
                            session_games += b - a
                            rate = session_games / max(time.perf_counter() - t0, 1e-9)
                            bar.update(task, completed=done, rate=f"{rate:,.0f} games/s")
            except KeyboardInterrupt:
                if unlisted:
                    list_chunks()
                raise RunInterrupted(out_dir, done, games) from None
            if unlisted:
                list_chunks()
        finally:
            if client is not None:
                client.close()

        elapsed = elapsed_before + time.perf_counter() - t0
        entries = sorted(manifest["chunks"], key=lambda e: e["chunk"])
        failures = [f for e in entries for f in e.get("failures", [])]
        try:
            rows = RunDir(out_dir).merge(entries)
            run_info = {
                **{k: request[k] for k in ("game", "variant", "config_path", "config_sha256", "engine_sha256")},
                "assumed": assumed_notes(resolve_yaml(config_path).data),
                "n_players": len(agents),
                "agents": agents,
                "seat_design": seat_design(agents, games),
                **({"table_note": note} if (note := table_note(spec, cfg, agents)) else {}),
                "games": games,
                "seed": seed,
                "jobs": n_jobs,
                "scheduler": scheduler,
                "chunk_size": size,
                "started": manifest["started"],
                "elapsed_seconds": round(elapsed, 3),
                "games_per_second": round(games / max(elapsed, 1e-9), 1),
                "failed_games": len(failures),
                "failures": failures[:MAX_LISTED_FAILURES],
                "versions": package_versions(),
                "command": command,
                # what the score_* and metric_* columns mean (balancer.core.metrics)
                **({"metric_specs": spec.metrics.to_json()} if spec.metrics is not None else {}),
            }
            # how the report names the game ("Águeda: City of Umbrellas")
            run_info = {"game": run_info["game"], "game_title": spec.display_name, **run_info}
            RunDir(out_dir).write_run_json(run_info)
            if rows:
                _write_summary(out_dir)
            else:
                (out_dir / "summary.json").unlink(missing_ok=True)
            (out_dir / MANIFEST_FILE).unlink()
            shutil.rmtree(out_dir / CHUNKS_DIR, ignore_errors=True)
        except KeyboardInterrupt:
            raise RunInterrupted(out_dir, games, games) from None
        if failures:
            raise GamesFailedError(out_dir, failures[:MAX_LISTED_FAILURES], len(failures), games)
        return out_dir


def seat_win_rates(out_dir: Path | str) -> dict[str, list[tuple[Any, float, int]]]:
    """Mean win share by seat and by agent: ``{"seat": [(1, 0.26, games), ...], "agent": [...]}``.

    A quick look for the CLI (read lazily); the intervals and tests live in balancer.stats.
    """
    import polars as pl

    lf = pl.scan_parquet(Path(out_dir) / RESULTS_FILE).select("seat", "agent", "win_share")
    out: dict[str, list[tuple[Any, float, int]]] = {}
    for key in ("seat", "agent"):
        agg = lf.group_by(key).agg(pl.col("win_share").mean().alias("rate"), pl.len().alias("n")).sort(key).collect()
        out[key] = [(row[key], float(row["rate"]), int(row["n"])) for row in agg.iter_rows(named=True)]
    return out
