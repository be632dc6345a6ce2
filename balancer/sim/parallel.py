"""Where chunks are played: joblib's loky processes on this machine, or every worker thread of a
Dask cluster through joblib's dask backend; and how a run is cut into chunks (:class:`ChunkPlan`).

Nothing here knows a game or a file: a backend runs module-level functions (``play_chunk_safe``)
and hands back what they return. One job on this machine plays the chunks in this process without
joblib, which is then not imported (a tenth of a second of every ``--jobs 1`` run).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from balancer.core.batch import DEFAULT_CHUNK_GAMES

from .errors import SchedulerError

CONNECT_TIMEOUT = 5.0  # seconds to wait for a --scheduler to answer


def resolve_jobs(jobs: int) -> int:
    """Worker processes actually used for ``jobs`` (joblib's convention: -1 = all cores, -2 all
    but one), never more than the machine's cores (``os.cpu_count()``)."""
    cores = os.cpu_count() or 1
    if jobs == 1:
        return 1
    from joblib import effective_n_jobs

    return max(1, min(effective_n_jobs(jobs), cores))


def default_chunk_size(games: int, n_jobs: int, most: int = DEFAULT_CHUNK_GAMES) -> int:
    """About ``games / (n_jobs * 8)`` games per chunk (8 chunks per worker), clamped to [10, most]."""
    return max(10, min(max(10, most), math.ceil(games / (max(1, n_jobs) * 8))))


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


PARENT_POLL_SECONDS = 1.0
"""How often a loky worker checks that the process that started it is alive (seconds), where the
kernel cannot be asked to kill it with its parent (not Linux)."""

_GUARDED: list[bool] = []

PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal this process receives when the thread that created it ends (Linux)."""


def _die_with_parent() -> bool:
    """Ask the kernel to send this process SIGKILL when its parent dies (Linux's parent-death signal,
    ``prctl(PR_SET_PDEATHSIG, SIGKILL)``); whether it was set. It needs no thread of this process to
    run: a compiled chunk holding the GIL for minutes is killed all the same."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError, TypeError):
        return False


def guard_worker(parent: int | None) -> None:
    """Called by every task with the pid of the process that sent it (``parent``); in a loky worker
    process (once per process, nothing elsewhere): ignore SIGINT, which Ctrl-C or a script sends to
    the whole process group, so that only the parent stops the run and its workers (a worker
    interrupted mid-task broke the pool: "A task has failed to un-serialize"; the worker started with
    SIGINT blocked, :func:`_workers_start_with_sigint_blocked`, so that one sent while it starts is
    never delivered), and end
    with the parent: on Linux the kernel kills the worker when its parent dies (:func:`_die_with_parent`;
    checked against ``getppid()`` afterwards, for a parent that died before), within a second whatever
    the worker is doing (issue 52: a watchdog thread waited for the GIL, 3 to 85 s); on other systems
    a thread exits within :data:`PARENT_POLL_SECONDS` of the parent's death, once the chunk in play
    lets it run (macOS and Windows have no parent-death signal: a worker may finish its chunk first).
    ``kill -9`` left workers running for over 15 minutes before any of this (issue 28)."""
    if _GUARDED or parent is None or not multiprocessing.current_process().name.startswith("LokyProcess"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    if os.getppid() != parent:  # re-parented already: the run's process died before this task began
        os._exit(1)
    _GUARDED.append(True)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # ignored now: one sent before is dropped
    if _die_with_parent():
        if os.getppid() != parent:  # the parent died before the kernel was asked: no signal will come
            os._exit(1)
        return

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:  # re-parented: the run's process has died
                os._exit(1)

    threading.Thread(target=watch, name="balancer-parent-watch", daemon=True).start()


def connect_scheduler(address: str, timeout: float | None = None) -> Any:
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


def cluster_threads(client: Any) -> int:
    """Worker threads of a Dask cluster (at least 1)."""
    return max(1, sum(client.nthreads().values()))


Task = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]
"""A call to make: (function, positional arguments, keyword arguments), as joblib's tasks are."""


def delayed(function: Callable[..., Any]) -> Callable[..., Task]:
    """``delayed(f)(*args, **kwargs)``: the task that calls ``f(*args, **kwargs)`` (joblib's
    ``delayed``, without importing joblib)."""

    def task(*args: Any, **kwargs: Any) -> Task:
        return function, args, kwargs

    return task


def in_process(tasks: Iterable[Task]) -> Iterator[Any]:
    """Each task's result, in order, each task run in this process when its result is asked for
    (what joblib does with one job)."""
    for function, args, kwargs in tasks:
        yield function(*args, **kwargs)


def parallel(n_jobs: int, client: Any, ordered: bool) -> Any:
    """A callable running tasks (:func:`delayed`) and returning a generator of their results: in this
    process for one job (:func:`in_process`), else a joblib ``Parallel``: loky with ``n_jobs``
    processes, or the Dask backend on ``client`` (every worker thread of the cluster)."""
    if client is None and n_jobs == 1:
        return in_process
    from joblib import Parallel

    return_as = "generator" if ordered else "generator_unordered"
    if client is None:
        _workers_start_with_sigint_blocked()
        return _quiet_when_left(Parallel(n_jobs=n_jobs, backend="loky", return_as=return_as))
    from joblib import parallel_config

    with parallel_config(backend="dask", client=client):
        return _quiet_when_left(Parallel(n_jobs=-1, return_as=return_as))


_LEFT_EARLY = r".*(have been cancelled|successfully executed +but not used)\..*adjusting the input task iterator"
"""joblib's warning when its results generator is closed before its end ("4 tasks which were still
being processed by the workers have been cancelled. You could benefit from adjusting the input task
iterator ..."): what every interrupted run does on purpose, which then printed it above its own one
line (1 of 8 interrupt cases of a CI run)."""


def _quiet_when_left(run: Any) -> Callable[[Iterable[Task]], Iterator[Any]]:
    """``run`` (a joblib ``Parallel``) whose results generator, closed before its end (an interrupt, an
    error in the caller's loop), says nothing: it is closed here, with joblib's warning about it
    ignored (:data:`_LEFT_EARLY`), before this generator's own exit. (A plain ``yield from`` would
    close it first, outside the filter.)"""

    def results(tasks: Iterable[Task]) -> Iterator[Any]:
        inner = run(tasks)
        try:
            for result in inner:  # noqa: UP028 (yield from would close inner first, outside the filter)
                yield result
        finally:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=_LEFT_EARLY, category=UserWarning)
                inner.close()

    return results


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in the calling thread while the block runs (POSIX; nothing elsewhere): a Ctrl-C
    then waits, and is delivered when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


_LAUNCHING = threading.local()

_WORKER_MAIN = (
    "import os, runpy\n"
    "null = os.open(os.devnull, os.O_WRONLY)\n"
    "os.dup2(null, 1)\n"
    "os.close(null)\n"
    "runpy.run_module('joblib.externals.loky.backend.popen_loky_posix', run_name='__main__', alter_sys=True)\n"
)
"""How a loky worker is started (``python -c``): loky's own start (``-m ...popen_loky_posix``) with the
worker's standard output on the null device. Loky prints there when a worker cannot read what its
parent sends at start ("EOFError: Ran out of input", a semaphore already removed), which is what a
worker starting while its parent is interrupted meets (3 of 30 trials); a worker's results and errors
reach the parent through loky's queues, and what a game prints in a worker never belonged on the
command's standard output. Standard error is kept (a crash of the interpreter is still seen)."""


def _workers_start_with_sigint_blocked() -> None:
    """Make loky start its worker processes with SIGINT blocked, and send each its start-up data
    before this process takes a signal (joblib's vendored loky; POSIX). Its ``Popen._launch`` runs with
    SIGINT blocked in whichever thread starts a worker (the main thread, or loky's own when it
    replaces one): the new process inherits the blocked signal, so a Ctrl-C to the process group while
    its interpreter starts is never delivered to it (issue 52: "Fatal Python error: init_import_site"
    and KeyboardInterrupt tracebacks in 17 of 72 trials); it ignores SIGINT once it runs a task
    (:func:`guard_worker`). Once forked (``fork_exec``), SIGTERM is blocked here too, until the data the
    worker reads first is written: a signal taken in between closed the pipe and the worker printed
    "EOFError: Ran out of input" (3 of 24 trials with only the fork covered). This process takes such
    a signal a few milliseconds later. The worker is started with its standard output on the null
    device (:data:`_WORKER_MAIN`). A loky without these functions is left as it is."""
    try:  # what popen_loky_posix imports when it starts a worker, and that module itself
        from joblib.externals.loky.backend import fork_exec as module
        from joblib.externals.loky.backend import popen_loky_posix
    except ImportError:  # Windows: no such modules (and no process group to signal)
        return
    forks = getattr(module, "fork_exec", None)
    launch = getattr(popen_loky_posix.Popen, "_launch", None)
    if forks is None or launch is None or getattr(launch, "sigint_blocked", False):
        return

    def fork_exec(cmd: list[str], *args: Any, **kwargs: Any) -> Any:
        if len(cmd) > 2 and cmd[1] == "-m" and cmd[2] == popen_loky_posix.__name__:
            cmd = [cmd[0], "-c", _WORKER_MAIN, *cmd[3:]]
        with sigint_blocked():
            pid = forks(cmd, *args, **kwargs)
        if getattr(_LAUNCHING, "active", False):  # the child is started: SIGTERM waits for its data too
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        return pid

    def _launch(self: Any, process_obj: Any) -> Any:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        _LAUNCHING.active = True
        try:
            return launch(self, process_obj)
        finally:
            _LAUNCHING.active = False
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    _launch.sigint_blocked = True  # type: ignore[attr-defined]
    module.fork_exec = fork_exec
    popen_loky_posix.Popen._launch = _launch
