"""balancer's cache folder is not trusted (issue 52, item 5): ``warmup-seconds.json`` that is a link to
/dev/zero, a FIFO, a device, a huge or deeply nested file is never opened (or parsed past its bounds),
ignored with one sentence in the warm-up note, and replaced by the next duration recorded. Before the
fix every 'run' ended in a MemoryError traceback (/dev/zero), hung (a FIFO) or ended in a RecursionError
traceback (deep JSON)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import balancer.sim.warmup as warmup
from balancer.limits import MAX_CACHE_BYTES
from balancer.sim.warmup import WARMUP_FILE, Warmup, read_durations, record_duration, warmup_note

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
W = Warmup("citywright", "compile", False)


@pytest.fixture(autouse=True)
def _fresh_problems(monkeypatch):
    monkeypatch.setattr(warmup, "_PROBLEMS", {}, raising=False)
    monkeypatch.setattr(warmup, "_SAID", set(), raising=False)


def plant(folder: Path, kind: str) -> Path:
    path = folder / WARMUP_FILE
    if kind == "dev-zero-link":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "deep":
        path.write_text("[" * 50_000 + "]" * 50_000)  # 100 kB: within the size bound, 50,000 levels deep
    elif kind == "huge":
        path.write_text('{"a": ' + " " * MAX_CACHE_BYTES + "1}")
    elif kind == "list-of-dicts":
        path.write_text('{"a": {"b": {"c": 1}}}')  # deeper than a flat object of numbers
    return path


WHY = {
    "dev-zero-link": "a symbolic link; not opened",
    "fifo": "not a regular file; not opened",
    "deep": "nested more than 2 levels deep",
    "huge": f"more than the {MAX_CACHE_BYTES:,} bytes a cache file may have",
    "list-of-dicts": "nested more than 2 levels deep",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", list(WHY))
def test_a_bad_cache_file_is_ignored_said_once_and_rewritten(tmp_path, kind):
    path = plant(tmp_path, kind)
    assert read_durations(tmp_path) == {}
    what, when = warmup_note(W, tmp_path)
    assert when == (
        f"first time on this machine: typically 1 to 4 min; the cache file {path} was ignored ({WHY[kind]}) "
        "and is written again"
    )
    assert warmup_note(W, tmp_path)[1] == "first time on this machine: typically 1 to 4 min"  # once
    record_duration(W, 61.0, tmp_path)
    assert path.is_file() and not path.is_symlink()  # a new file renamed over the bad one
    assert read_durations(tmp_path) == {"citywright/compile": 61.0}
    assert sorted(p.name for p in tmp_path.iterdir()) == [WARMUP_FILE]  # no temporary file left


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["fifo", "deep"])
def test_run_with_a_bad_cache_file_finishes(tmp_path, kind):
    # a process of its own: its workers load the engine, so the run reads the cache (a fresh process
    # always does); before the fix the FIFO hung this run (the timeout fails it) and deep JSON ended it
    # in a RecursionError traceback
    cache = tmp_path / "cache"
    cache.mkdir()
    plant(cache, kind)
    env = {**os.environ, "BALANCER_CACHE_DIR": str(cache)}
    args = ["run", str(V11), "-p", "2", "-a", "random", "-n", "4", "-j", "1", "--seed", "5", "--out", "r"]
    done = subprocess.run(
        [sys.executable, "-m", "balancer", *args], capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (cache / WARMUP_FILE).is_file()  # rewritten: a regular file with this run's warm-up
