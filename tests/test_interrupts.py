"""Interrupts (issue 28, item 2): SIGINT or SIGTERM sent to a run's whole process group at seeded offsets,
with one and two jobs. Every one ends with exit 130 and an ``interrupted`` line and no traceback, leaves
no process of the run behind, and the run continued with ``--resume`` (or started again when it was
stopped before it wrote anything) gives results identical to an uninterrupted run. A worker whose parent
is killed with SIGKILL exits by itself."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import psutil
import pytest
from polars.testing import assert_frame_equal

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
GAMES = 600
ARGS = ["run", str(V11), "-p", "2", "-a", "greedy", "-n", str(GAMES), "--seed", "11", "--chunk-size", "25", "-q"]
OFFSETS_SEED = 28
"""The seed of the offsets (seconds after the start) at which the signals are sent."""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def start(out: Path, jobs: int, *extra: str) -> subprocess.Popen:
    """The run as its own process group (as a shell starts a command), output captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "balancer", *ARGS, "-j", str(jobs), "--out", str(out), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def frame(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "results.parquet").sort("game_index", "seat")


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pl.DataFrame:
    out = tmp_path_factory.mktemp("reference") / "run"
    done = subprocess.run(
        [sys.executable, "-m", "balancer", *ARGS, "-j", "1", "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return frame(out)


# three offsets per job count, drawn once from a fixed seed: early (importing), mid-run, late
_rng = random.Random(OFFSETS_SEED)
CASES = [
    (jobs, sig, round(_rng.uniform(low, high), 2))
    for jobs in (1, 2)
    for (low, high), sig in zip([(0.2, 1.5), (2.0, 5.0), (5.0, 9.0)], [signal.SIGINT, signal.SIGTERM, signal.SIGINT])
]


@pytest.mark.parametrize(("jobs", "sig", "offset"), CASES, ids=lambda v: getattr(v, "name", str(v)))
def test_an_interrupt_at_any_moment_ends_cleanly_and_resumes_identically(tmp_path, reference, jobs, sig, offset):
    out = tmp_path / "run"
    proc = start(out, jobs)
    time.sleep(offset)
    family = descendants(proc.pid)
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
    output, _ = proc.communicate(timeout=120)
    assert "Traceback" not in output and "BrokenProcessPool" not in output, output
    if proc.returncode == 0:  # the run finished before the signal: nothing to resume
        assert_frame_equal(frame(out), reference)
        return
    assert proc.returncode == 130, f"exit {proc.returncode}\n{output}"
    # one line saying so (after the results line, when the signal came once they were written)
    lines = [x for x in output.splitlines() if x.strip() and not x.startswith(("note: ", "results: "))]
    assert len(lines) == 1 and lines[0].startswith("interrupted"), output
    if lines[0].startswith("interrupted: "):  # the run had begun: the line says how to continue it
        assert " games are saved in " in lines[0] and lines[0].endswith("--resume"), output
    if (out / "results.parquet").is_file() and not (out / "manifest.json").exists():  # finished before it
        assert_frame_equal(frame(out), reference)
        return
    # no process of the run is left: its workers and loky's resource tracker end with it
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(p.is_running() and p.status() != "zombie" for p in family):
        time.sleep(0.2)
    left = [p for p in family if p.is_running() and p.status() != "zombie"]
    assert not left, f"left behind: {[p.cmdline() for p in left]}"
    assert not (out / "run.lock").exists() or "stale" not in output
    resume = ["--resume"] if (out / "manifest.json").is_file() else ["--force"]
    again = start(out, jobs, *resume)
    output, _ = again.communicate(timeout=300)
    assert again.returncode == 0, output
    assert_frame_equal(frame(out), reference)


def _ignores_sigint(proc: psutil.Process) -> bool:
    """Whether ``proc`` ignores SIGINT (its kernel signal state): a worker does once it took a task
    (``guard_worker``, where it also asks to die with its parent)."""
    try:
        with open(f"/proc/{proc.pid}/status", encoding="ascii") as status:
            ignored = next(int(line.split()[1], 16) for line in status if line.startswith("SigIgn:"))
    except (OSError, StopIteration):
        return False
    return bool(ignored >> (signal.SIGINT - 1) & 1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the parent-death signal are Linux's")
def test_workers_die_within_a_second_or_two_of_their_parent_even_mid_chunk(tmp_path):
    """kill -9 of the run while each worker plays a chunk of 10,000 games (about 20 CPU s on this
    machine, in one compiled call holding the GIL): before, a watchdog thread waited for the GIL, and
    the workers lived on for the rest of their chunk (85 s in issue 52); the kernel's parent-death
    signal kills them at once (2 s allowed for a loaded machine)."""
    args = ["run", str(V11), "-p", "2", "-a", "greedy", "-n", "40000", "--chunk-size", "10000", "-q"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "balancer", *args, "-j", "2", "--out", str(tmp_path / "run")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    workers: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None:
        workers = [p for p in descendants(proc.pid) if "LokyProcess" in " ".join(p.cmdline())]
        if len(workers) == 2 and all(map(_ignores_sigint, workers)):
            break  # both play their first chunk
        time.sleep(0.1)
    assert len(workers) == 2 and all(map(_ignores_sigint, workers)), "the workers never took a chunk"
    time.sleep(0.5)  # well inside the chunk
    proc.kill()  # SIGKILL: the run cannot clean up; its workers must end with it
    proc.wait()
    gone, alive = psutil.wait_procs(workers, timeout=2)
    assert not alive, f"workers still running 2 s after their parent was killed: {[p.pid for p in alive]}"
