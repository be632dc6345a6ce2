"""Playing the games of a run: one chunk in any process (:func:`play_chunk`, :func:`play_chunk_safe`),
or a whole run in memory (:func:`run_games`).

Game ``i`` of a run seats ``seat_agents(agents, i)`` and is seeded with ``game_seed(seed, i)``, so
its record depends on nothing but (config, agents, seed, i): results are identical for any number
of jobs, chunk size, machine or cluster, and for a resumed run. A chunk is a pure, module-level
function that re-imports the game module by name and returns a ``pyarrow.Table`` of its rows
(:mod:`balancer.sim.records`) plus the games that raised.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from balancer.core.game import ranks_and_win_shares
from balancer.core.registry import GameSpec, spec_at
from balancer.core.seeding import game_seed
from balancer.core.tables import seat_agents

from .parallel import ChunkPlan, default_chunk_size, delayed, guard_worker, parallel, resolve_jobs
from .progress import RunProgress
from .records import OutcomeRows, batch_table, batch_trajectories, failure_record
from .request import check_run, table_chunk_games
from .rundir import conform
from .warmup import compile_after, is_warm, mark_warm, warmup_note, warmup_of


def _play(
    module_name: str, cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int, catch: bool
) -> tuple[pa.Table | None, list[dict[str, Any]]]:
    """Games ``start..stop-1``: their rows and the games that raised (:func:`_play_records`, with no
    trajectory built: these callers keep none)."""
    table, failures, _ = _play_records(module_name, cfg, agents, run_seed, start, stop, catch, flow=False)
    return table, failures


def _play_records(
    module_name: str,
    cfg: Any,
    agents: Sequence[str],
    run_seed: int,
    start: int,
    stop: int,
    catch: bool,
    flow: bool = True,
) -> tuple[pa.Table | None, list[dict[str, Any]], pa.Table | None]:
    """Games ``start..stop-1``: the game's compiled chunk when it has one (``spec.play_chunk``), else
    (or, with ``catch``, when the compiled chunk raised) one game at a time, a game that raises
    recorded (``catch``) or propagated. Returns the rows, the failures and the trajectory rows
    (None when the game records no trajectory, or without ``flow``: then none is built)."""
    spec = spec_at(module_name)
    variant = str(cfg.variant)
    chunk_error: Exception | None = None
    if stop > start:
        try:
            batch = spec.play_chunk(cfg, agents, run_seed, start, stop, trajectories=flow)
            if batch is not None:
                table = batch_table(batch, spec.name, variant, agents, run_seed, start)
                return table, [], batch_trajectories(batch, variant, start) if flow else None
        except Exception as exc:
            if not catch:
                raise
            chunk_error = exc  # find and record the failing games one by one (below), the others' rows as usual
    rows = OutcomeRows(spec.name, variant, len(agents), run_seed)
    failures: list[dict[str, Any]] = []
    for i in range(start, stop):
        table = seat_agents(agents, i)
        try:
            outcome = spec.play_game(cfg, table, game_seed(run_seed, i))
            rows.check(outcome, i)
            r, w = ranks_and_win_shares(outcome.scores, outcome.tiebreak)
        except Exception as exc:
            if not catch:
                raise
            failures.append(failure_record(i, run_seed, exc))
            continue
        rows.add(i, table, outcome, r, w)
    if chunk_error is not None and not failures:
        # every game played alone: the compiled chunk itself is at fault (the rows are right, only slower)
        warnings.warn(
            f"{spec.name}: the compiled chunk of games {start}..{stop - 1} raised "
            f"{type(chunk_error).__name__}: {chunk_error}; every game then played one at a time",
            RuntimeWarning,
            stacklevel=2,
        )
    return rows.table(), failures, rows.trajectories() if flow else None  # None: every game of the chunk failed


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
    chunk: int,
    module_name: str,
    cfg: Any,
    agents: Sequence[str],
    run_seed: int,
    start: int,
    stop: int,
    parent: int | None = None,
) -> tuple[int, pa.Table | None, list[dict[str, Any]]]:
    """Play games ``start..stop-1`` like :func:`play_chunk`, but a game that raises is skipped and
    recorded instead of stopping the chunk.

    Returns ``(chunk, rows, failures)``: ``rows`` holds ``len(agents)`` rows per game that finished
    (None when none did); ``failures`` one dict per failing game, in game order, with
    ``game_index``, ``seed`` (the run seed), ``error`` (``"Type: message"``) and ``traceback``
    (the last frames, innermost first). Runs in any process (loky or a Dask worker); ``parent``: the pid
    of the run's process, whose death a loky worker watches (:func:`~balancer.sim.parallel.guard_worker`).
    """
    chunk, table, failures, _ = play_chunk_records(
        chunk, module_name, cfg, agents, run_seed, start, stop, parent, flow=False
    )  # one body for both: this one keeps no trajectory, so none is built
    return chunk, table, failures


def play_chunk_records(
    chunk: int,
    module_name: str,
    cfg: Any,
    agents: Sequence[str],
    run_seed: int,
    start: int,
    stop: int,
    parent: int | None = None,
    flow: bool = True,
) -> tuple[int, pa.Table | None, list[dict[str, Any]], pa.Table | None]:
    """:func:`play_chunk_safe` with the chunk's trajectory rows as a fourth item (None when the game
    records no trajectory, or no game of the chunk finished, or without ``flow``: ``run --no-flow``,
    whose chunks record none): what a run writes to its chunk files."""
    guard_worker(parent)
    table, failures, trajectories = _play_records(module_name, cfg, agents, run_seed, start, stop, True, flow)
    return chunk, table, failures, trajectories


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
    task (default :func:`~balancer.sim.parallel.default_chunk_size`). Raises ValueError for a bad
    request (see :func:`~balancer.sim.request.check_run`) before any game is played; errors from the
    game propagate. (Files, resume and recorded failures: :func:`balancer.sim.runner.run_to_dir`.)
    """
    agents = list(agents)
    check_run(spec, cfg, agents, games, seed, jobs, chunk_size)
    n_jobs = resolve_jobs(jobs)
    size = chunk_size or default_chunk_size(games, n_jobs, table_chunk_games(spec, cfg, agents))
    tasks = (delayed(play_chunk)(spec.module, cfg, agents, seed, a, b) for _, (a, b) in ChunkPlan(games, size).items())
    schema: pa.Schema | None = None
    plan = ChunkPlan(games, size)
    warmup = warmup_of(spec, agents)
    warm = is_warm(warmup)
    shown = RunProgress(
        games,
        progress,
        warm_chunks=min(n_jobs, len(plan)),  # each worker's first chunk: start-up, compiling
        warmup=("", "") if warm else warmup_note(warmup),
        late=None if warm else compile_after(warmup),
    )
    with shown:
        for table in parallel(n_jobs, None, ordered=True)(tasks):
            if schema is None:
                schema = table.schema
            elif not table.schema.equals(schema):
                table = conform(table, schema)
            shown.update(table.num_rows // len(agents))
            yield table
    if not warm and shown.clock.warmup_seconds() is not None:
        mark_warm(warmup)
