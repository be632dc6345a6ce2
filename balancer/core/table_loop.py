"""The one compiled table loop: a chunk of a run's games in one compiled call, for every game.

A run plays game ``i`` of ``start..stop`` with the seats rotated by ``i``
(:func:`balancer.core.tables.seat_agents`: seat ``s`` gets the agent of seat ``(s + i) % n`` of
game 0) and seeded as ``game_rngs(game_seed(run_seed, i))`` seeds it (the game's chance, then the
agents' choices). :func:`play_chunk_records` does both, here and nowhere else: it re-seeds two
Generators in place (:func:`balancer.core.fastseed.seed_game`), rotates the seats' agent codes and
parameter rows, and hands each game to the game's registered *table*.

**A table** is the game's compiled "play one seated game" function, registered with
:func:`register_table` for the class of its rule table ``T`` (a NamedTuple class of its own)::

    play_seated(T, kinds, rows, ws, chance, agent_rng, record) -> None

``kinds``: int64[n], the agent code of each seat (the game's own numbering); ``rows``:
float64[n, k], each seat's parameters (weights, a deck code: whatever the game's agents read;
``k`` may be 0); ``ws``: the game's scratch (any tuple of arrays and numbers, passed through
untouched); ``chance``: the game's own chance stream (its setup and ``apply``); ``agent_rng``: every
agent's choices; ``record``: int64[record_len], where the table writes the finished game's numbers
(the game turns a chunk of records into a :class:`~balancer.core.batch.GameBatch`). A table plays
exactly the game the game's compiled interface (:mod:`balancer.core.kernel`) plays with the same
agents and seeds, decision for decision: it is a fused fast path of the general loop
(:func:`balancer.agents.mcts.play_table`), and ``tests/test_table_loop.py`` checks that, game for
game, for every registered table.

Why a registration and not an argument: numba cannot cache to disk a function that receives compiled
functions as arguments (the signature holds the dispatchers, whose key differs in every process), so
a loop taking the game's function would be compiled again in every process (seconds, more than a
whole chunk of fast games). :func:`register_table` instead compiles a copy of the loop whose global
:func:`play_seated` is the game's table (a static call, inlined when the table is marked
``inline="always"``: no library level of its own between the loop and the game); the loop's
signature holds only arrays, numbers and ``T``'s NamedTuple type, so each game's loop is cached in
``balancer/core/__pycache__`` (a file of its own per game, :func:`_loop_for`).
That cache holds the game's code inlined, so a game whose sources change drops it too
(:func:`balancer.core.numba_cache.drop_stale_cache`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import numba as nb
import numpy as np

from .fastseed import ChunkGenerators, seed_game
from .numba_cache import renamed_copy

_TABLES: dict[type, tuple[Callable[..., None], Any]] = {}
"""Registered tables by rule table class: (the table, the compiled loop that plays it)."""


def play_seated(T, kinds, rows, ws, chance, agent_rng, record):  # type: ignore[no-untyped-def]
    """One seated game on the table registered for ``type(T)`` (see the module docstring): the name
    :func:`_play_chunk` calls, which each game's copy of the loop binds to the game's table
    (:func:`_loop_for`); never called itself."""
    raise TypeError(f"play_seated runs only in compiled code; no table for {type(T).__name__} outside it")


def register_table(table_class: type, play: Callable[..., None]) -> None:
    """Register ``play`` (a compiled ``play_seated``, module docstring) as the table of the games
    whose rule table is a ``table_class`` (a NamedTuple class). Registering a class twice keeps the
    first (a module imported again); a different function for the same class is a ValueError."""
    known = _TABLES.get(table_class)
    if known is not None:
        if known[0] is not play:
            raise ValueError(f"a table is already registered for {table_class.__name__}")
        return
    _TABLES[table_class] = (play, nb.njit(cache=True)(_loop_for(table_class, play)))


def has_table(table_class: type) -> bool:
    """Whether a table is registered for rule tables of ``table_class``."""
    return table_class in _TABLES


def _loop_for(table_class: type, play: Callable[..., None]) -> Callable[..., None]:
    """:func:`_play_chunk` under a name of its own for ``table_class`` (``_play_chunk__<module>_<class>``)
    with the game's table ``play`` as its ``play_seated``, so that numba caches each game's loop in a
    file of its own: one index for every game would name every game's rule table class, and reading
    it would import every game (and fail for a class that cannot be imported, such as a test's)."""
    name = "_play_chunk__" + re.sub(r"\W", "_", f"{table_class.__module__}.{table_class.__qualname__}")
    return renamed_copy(_play_chunk, name, {"play_seated": play})  # type: ignore[no-any-return]


def _play_chunk(  # type: ignore[no-untyped-def]  # numba types it (through _loop_for)
    T,
    kinds,
    rows,
    ws,
    run_seed,
    start,
    chance,
    agent_rng,
    chance_state,
    chance_flag,
    agent_state,
    agent_flag,
    scratch,
    out,
):
    """Games ``start .. start + len(out) - 1``: seed, rotate the seats, play, record (module docstring)."""
    n = kinds.shape[0]
    k = np.empty(n, np.int64)
    r = np.empty_like(rows)
    for j in range(out.shape[0]):
        i = start + j
        seed_game(run_seed, np.uint64(i), chance_state, chance_flag, agent_state, agent_flag, scratch)
        for s in range(n):
            k[s] = kinds[(s + i) % n]
            r[s, :] = rows[(s + i) % n, :]
        play_seated(T, k, r, ws, chance, agent_rng, out[j])  # type: ignore[no-untyped-call]


_SCRATCH = threading.local()
"""Each thread's reusable records buffers (:func:`play_chunk_records` with ``scratch``), by record length."""


def _scratch_records(games: int, record_len: int) -> np.ndarray:
    """A zeroed int64[games, record_len] view of this thread's buffer for ``record_len`` (grown when
    too small). Memory a process touches for the first time costs a page fault per 4 KiB, on this
    machine about 30 microseconds (twenty times the arithmetic of a numpy pass over it): a chunk of
    2,000 four-player Águeda games recording trajectories (rows of 1,065 numbers, the safety stop's
    bound on rounds) touched 17 MB of fresh pages, 75 microseconds a game."""
    buffers = getattr(_SCRATCH, "buffers", None)
    if buffers is None:
        buffers = _SCRATCH.buffers = {}
    buf = buffers.get(record_len)
    if buf is None or buf.shape[0] < games:
        buf = buffers[record_len] = np.zeros((games, record_len), np.int64)
        return buf
    view = buf[:games]
    view.fill(0)
    return view  # type: ignore[no-any-return]


def play_chunk_records(
    T: Any,
    kinds: np.ndarray,
    rows: np.ndarray,
    ws: tuple[Any, ...],
    run_seed: int,
    start: int,
    stop: int,
    record_len: int,
    scratch: bool = False,
) -> np.ndarray:
    """The records (int64[stop - start, record_len]) of games ``start..stop-1`` of a run seeded
    ``run_seed``, played on the table registered for ``type(T)``; ``kinds`` (int64[n]) and ``rows``
    (float64[n, k]) seat game 0 (they rotate one seat per game). ValueError when no table is
    registered for ``T``. With ``scratch`` the records are this thread's reusable buffer
    (:func:`_scratch_records`), valid until its next call with ``scratch``: the caller copies what
    it keeps (a game whose records are wide and mostly empty, as trajectories bounded by a safety
    stop make them)."""
    table = _TABLES.get(type(T))
    if table is None:
        raise ValueError(f"no compiled table is registered for rule tables of {type(T).__name__}")
    kinds = np.ascontiguousarray(kinds, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] != kinds.shape[0]:
        raise ValueError(f"rows must be float64[{kinds.shape[0]}, k], one per seat; got shape {rows.shape}")
    games = max(stop - start, 0)
    out = _scratch_records(games, record_len) if scratch and games else np.zeros((games, record_len), np.int64)
    if out.shape[0] == 0:
        return out
    gens = ChunkGenerators()
    table[1](T, kinds, rows, ws, np.uint64(run_seed), start, gens.chance, gens.agents, *gens.views, gens.scratch, out)
    return out
