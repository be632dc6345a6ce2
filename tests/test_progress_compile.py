"""Honest waits (issue 50, item 3): a load from numba's cache that runs past what loading takes is
called what it is, a compile, with the time on a clock; compiling shows its elapsed time; a slow pace is
never "0 games/s"; and a compile is recorded as a compile, never as next time's load estimate.

As in test_progress_lines.py, the times are given, not measured.
"""

from __future__ import annotations

from balancer.sim.progress import RunClock, RunProgress, clock_text, pace_text
from balancer.sim.warmup import Warmup, compile_after, read_durations, record_duration, turned_out

CACHED = Warmup("citywright", "load", True, mcts_cached=True)  # engine and search both "in the cache"


def test_a_load_past_its_limit_reads_as_compiling_on_a_clock(tmp_path):
    # nothing recorded: the limit is the larger of the two load kinds' (engine 20 s, search 10 s)
    late = compile_after(CACHED, tmp_path)
    assert late == (20.0, "compiling the citywright engine and the MCTS search for citywright")
    shown = RunProgress(
        40,
        True,
        warm_chunks=2,
        warmup=("loading the citywright engine and its MCTS search from numba's cache", "typically 1 s to 10 s"),
        late=late,
    )
    t0 = shown.clock.started
    assert shown.status(t0 + 5).startswith("loading the citywright engine and its MCTS search from numba's cache, 5 s")
    # 62 s: three times past any load: it is compiling, and the time is a clock (1:02)
    assert shown.status(t0 + 62) == (
        "compiling the citywright engine and the MCTS search for citywright "
        "(numba's cache did not hold it after all: a load would be over in under 20 s; "
        "a compile is once per machine), 1:02"
    )


def test_the_limit_follows_the_last_recorded_load(tmp_path):
    record_duration(CACHED, 9.0, tmp_path)  # 3 x 9 s = 27 s, above the 20 s floor
    assert compile_after(CACHED, tmp_path)[0] == 27.0
    # a warm-up that compiles (or waits for nothing) has no load to outlast
    assert compile_after(Warmup("citywright", "compile", False), tmp_path) is None
    assert compile_after(Warmup("citywright", "none", False), tmp_path) is None


def test_compiling_shows_its_elapsed_time():
    shown = RunProgress(
        10,
        True,
        warm_chunks=1,
        warmup=("compiling the citywright engine", "first time on this machine: typically 1 to 4 min"),
    )
    assert shown.status(shown.clock.started + 42) == (
        "compiling the citywright engine (first time on this machine: typically 1 to 4 min), 0:42"
    )
    assert clock_text(3723) == "1:02:03"


def test_a_slow_pace_is_not_zero_games_per_second():
    # after warm-up, 3 games in 7 s: 0.43 games/s (was printed as "0 games/s")
    clock = RunClock(total=40, done=0, warm_chunks=0, started=0.0)
    clock.chunk(3, 7.0)
    assert pace_text(clock.rate()) == "0.43 games/s"
    assert pace_text(2.46) == "2.5 games/s" and pace_text(410.2) == "410 games/s"


def test_a_compile_is_recorded_as_a_compile_not_as_the_next_load(tmp_path):
    # 75 s for what was to be a load (limit 20 s): numba compiled; recorded under compile+mcts
    record_duration(turned_out(CACHED, 75.0, tmp_path), 75.0, tmp_path)
    # a load within its limit stays a load
    record_duration(turned_out(CACHED, 4.0, tmp_path), 4.0, tmp_path)
    assert read_durations(tmp_path) == {"citywright/compile+mcts": 75.0, "citywright/load+mcts-cached": 4.0}
