"""A loky worker's signals (issue 52, item 6), each shown on a small process of its own, not a run:
a worker starts with SIGINT blocked, and a worker whose parent is killed dies at once even while it
holds the GIL (what a compiled chunk does)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

LINUX = sys.platform.startswith("linux")

# the worker: named as loky names its processes, guarded as a task guards it, then one C call that
# holds the GIL for minutes (a regular expression that backtracks 2**34 times), as a compiled chunk does
WORKER = textwrap.dedent(
    """
    import multiprocessing, os, re, sys
    multiprocessing.current_process().name = "LokyProcess-test"
    from balancer.sim.parallel import guard_worker
    guard_worker(os.getppid())
    print("guarded", flush=True)
    re.match(r"(a+)+$", "a" * 34 + "b")
    """
)
# its parent: starts it, says its pid once it is guarded, then waits to be killed
PARENT = textwrap.dedent(
    """
    import subprocess, sys, time
    worker = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE, text=True)
    assert worker.stdout.readline().strip() == "guarded"
    print(worker.pid, flush=True)
    time.sleep(600)
    """
)


@pytest.mark.skipif(not LINUX, reason="the parent-death signal is Linux's")
def test_a_worker_holding_the_gil_dies_with_its_parent():
    """Before: a watchdog thread polled getppid() every second, and could not run while the chunk held
    the GIL (3 to 85 s after kill -9 in issue 52; here the regular expression's minutes). Now the kernel
    kills the worker when its parent dies (prctl PR_SET_PDEATHSIG)."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, WORKER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        worker = psutil.Process(int(parent.stdout.readline()))
        time.sleep(0.3)  # inside the regular expression
        assert worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE:
            time.sleep(0.02)
        assert not worker.is_running() or worker.status() == psutil.STATUS_ZOMBIE, "alive 1 s after its parent"
    finally:
        os.killpg(parent.pid, signal.SIGKILL)


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_workers_start_with_sigint_blocked_and_then_ignore_it():
    """A Ctrl-C to the process group while a worker's interpreter starts must not reach it (issue 52:
    "Fatal Python error: init_import_site" in 17 of 72 trials): loky starts it with SIGINT blocked
    (bit 1 of SigBlk, SIGINT being 2); once it runs a task it ignores SIGINT and unblocks it."""
    from balancer.sim.parallel import delayed, parallel

    def signal_state(guard: bool) -> tuple[int, int]:
        from balancer.sim.parallel import guard_worker

        if guard:
            guard_worker(os.getppid())
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as status:
            fields = dict(line.split(":", 1) for line in status)
        bit = 1 << (signal.SIGINT - 1)
        return int(fields["SigBlk"], 16) & bit, int(fields["SigIgn"], 16) & bit

    from joblib.externals.loky import ProcessPoolExecutor

    parallel(2, None, ordered=True)  # what a run calls first (it starts no worker yet)
    with ProcessPoolExecutor(max_workers=1) as fresh:  # a new worker, not one a test before used
        first = fresh.submit(signal_state, False).result()
    assert first == (1 << (signal.SIGINT - 1), 0)  # blocked, not yet ignored
    states = list(parallel(2, None, ordered=True)(delayed(signal_state)(True) for _ in range(4)))
    assert set(states) == {(0, 1 << (signal.SIGINT - 1))}  # then ignored, unblocked


def _sleep_then(seconds: float, value: int) -> int:
    time.sleep(seconds)
    return value


def test_leaving_the_results_early_prints_no_joblib_warning():
    """An interrupted run leaves its results generator with tasks still on the workers. joblib warns
    then ("4 tasks which were still being processed by the workers have been cancelled ..."), and the
    warning printed above the run's one "interrupted" line (a CI run's failure). Leaving the loop
    after the first result, with three tasks still running or queued, must warn nothing; the
    same leaving from joblib's own generator does warn (the case is real)."""
    import warnings

    from joblib import Parallel

    from balancer.sim.parallel import delayed, parallel

    tasks = [delayed(_sleep_then)(0.05 if i == 0 else 2.0, i) for i in range(4)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = parallel(2, None, ordered=True)(iter(tasks))
        assert next(results) == 0
        results.close()
    assert [str(w.message) for w in caught] == []

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        joblibs = Parallel(n_jobs=2, backend="loky", return_as="generator")((f, a, k) for f, a, k in tasks)
        assert next(joblibs) == 0
        joblibs.close()
    assert any("have been cancelled" in str(w.message) for w in caught), [str(w.message) for w in caught]
