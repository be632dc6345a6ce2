"""Honest progress (issue 31, point 5): the time left counts only games played after warm-up,
plain lines when stderr is not a terminal, the last warm-up's duration remembered outside the
output folder, and an overall count across the cells of a study, ladder or tune.

No assertion here depends on how fast anything runs: the arithmetic is tested on given times.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest

from balancer.sim.progress import (
    INTERVAL_ENV,
    RunClock,
    RunProgress,
    cells_overall,
    eta_seconds,
    left_text,
    progress_interval,
)
from balancer.sim.warmup import (
    WARMUP_FILE,
    Warmup,
    duration_text,
    last_duration,
    read_durations,
    record_duration,
    warmup_note,
)
from balancer.tune.search import search_eta

sys.path.insert(0, str(Path(__file__).resolve().parent / "sim"))  # the fake game of the runner tests

import fake_runner_game as fake  # noqa: E402

ANSI = re.compile(r"\x1b\[")


# --------------------------------------------------------------------------------------------------
# the arithmetic


def test_eta_on_known_numbers():
    # 100 of 1,000 games done in 10 s after warm-up: 10 games/s, 900 left -> 90 s
    assert eta_seconds(1000, 100, 100, 10.0) == 90.0
    # no game finished after warm-up yet: no estimate rather than a wild one
    assert eta_seconds(1000, 100, 0, 10.0) is None
    assert eta_seconds(1000, 100, 100, 0.0) is None
    assert eta_seconds(1000, 1000, 100, 10.0) == 0.0


def test_clock_leaves_compile_time_out():
    # a 1,000-game run on one worker: its first chunk (10 games) ends after 200 s of compiling, the
    # next 90 games take 10 s (9 games/s). The time left is 900 / 9 = 100 s, not the 900 x 210 / 100
    # = 1,890 s the pace since the start would say (the "1 game/s" bar).
    clock = RunClock(total=1000, done=0, warm_chunks=1, started=0.0)
    clock.chunk(10, now=200.0)
    assert not clock.warming and clock.eta(200.0) is None  # the pace is not known yet
    clock.chunk(90, now=210.0)
    assert clock.rate() == 9.0
    assert clock.eta(210.0) == 100.0
    assert clock.eta(230.0) == 80.0  # counting down between chunks
    # warm-up: 200 s to the first chunk less its 10 games at 9 games/s -> 198.9 s
    assert clock.warmup_seconds() == pytest.approx(200.0 - 10 / 9)


def test_workers_finishing_their_first_chunks_together_is_not_a_pace():
    # the MCTS run: 60 games in chunks of 10 on 2 workers that each compile for 32 s; both
    # first chunks land together (20/60 at 32.0 s and 32.1 s). Warm-up ends with the second one, so
    # no "1 s left" is claimed; the next chunk, 1 s later, gives 10 games/s: 30 left -> 3 s.
    clock = RunClock(total=60, done=0, warm_chunks=2, started=0.0)
    clock.chunk(10, now=32.0)
    assert clock.warming
    clock.chunk(10, now=32.1)
    assert not clock.warming and clock.eta(32.1) is None
    clock.chunk(10, now=33.1)
    assert clock.eta(33.1) == pytest.approx(3.0)


def test_texts():
    assert duration_text(218) == "3 min 38 s"
    assert duration_text(42.4) == "42 s"
    assert duration_text(120) == "2 min"
    assert duration_text(3900) == "1 h 05 min"
    assert left_text(None) == "estimating the time left"
    assert left_text(21.2) == "about 21 s left"
    assert left_text(0.2) == "less than a second left"


def test_interval_from_the_environment(monkeypatch):
    monkeypatch.setenv(INTERVAL_ENV, "0.5")
    assert progress_interval() == 0.5
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv(INTERVAL_ENV, bad)
        assert progress_interval() == 30.0
    monkeypatch.delenv(INTERVAL_ENV)
    assert progress_interval() == 30.0


# --------------------------------------------------------------------------------------------------
# the last warm-up's duration


def test_warmup_store_round_trips(tmp_path):
    compile_cw = Warmup("citywright", "compile", False)
    mcts = Warmup("urgency", "load", True)
    assert last_duration(compile_cw, tmp_path) is None
    record_duration(compile_cw, 218.04, tmp_path)
    record_duration(mcts, 32.0, tmp_path)
    assert last_duration(compile_cw, tmp_path) == 218.0
    assert read_durations(tmp_path) == {"citywright/compile": 218.0, "urgency/load+mcts": 32.0}
    assert warmup_note(compile_cw, tmp_path) == (
        "compiling the citywright engine",
        "took 3 min 38 s last time on this machine",
    )
    assert warmup_note(mcts, tmp_path)[0] == (
        "loading the urgency engine from numba's cache and compiling the MCTS search for urgency (once on this machine)"
    )
    # the search in numba's cache already: loaded in each worker, its duration recorded apart
    cached = Warmup("urgency", "load", True, mcts_cached=True)
    assert warmup_note(cached, tmp_path) == (
        "loading the urgency engine and its MCTS search from numba's cache",
        "first time on this machine: typically 1 s to 10 s",
    )
    assert cached.key == "urgency/load+mcts-cached"
    assert [p.name for p in tmp_path.iterdir()] == [WARMUP_FILE]  # no temporary file left


def test_warmup_store_tolerates_a_bad_file(tmp_path):
    w = Warmup("agueda", "compile", False)
    (tmp_path / WARMUP_FILE).write_bytes(b"{not json\xff")
    assert read_durations(tmp_path) == {}
    assert warmup_note(w, tmp_path) == (  # said once (issue 52, item 5)
        "compiling the agueda engine",
        f"first time on this machine: typically 1 to 4 min; the cache file {tmp_path / WARMUP_FILE} was ignored "
        "(not UTF-8 text) and is written again",
    )
    record_duration(w, 61.0, tmp_path)  # the corrupt file is replaced
    assert last_duration(w, tmp_path) == 61.0
    (tmp_path / WARMUP_FILE).write_text(json.dumps({"agueda/compile": "soon", "x/load": -1, "y/load": 3}))
    assert read_durations(tmp_path) == {"y/load": 3.0}
    (tmp_path / WARMUP_FILE).write_text("[1, 2]")
    assert read_durations(tmp_path) == {}
    blocked = tmp_path / "file"
    blocked.write_text("")
    record_duration(w, 5.0, blocked / "below")  # a file where the folder should be: silently nothing
    assert last_duration(w, blocked / "below") is None


def test_nothing_to_say_when_nothing_compiles(tmp_path):
    assert warmup_note(Warmup("fake", "none", False), tmp_path) == ("", "")


# --------------------------------------------------------------------------------------------------
# plain lines when stderr is not a terminal


def _run(tmp_path: Path, name: str, progress: bool) -> Path:
    from balancer.sim.runner import run_to_dir

    cfg = fake.FakeConfig(game="fake", variant="t")
    config = tmp_path / "fake.yaml"
    config.write_text("game: fake\nvariant: t\n", encoding="utf-8")
    return run_to_dir(
        fake.SPEC, cfg, config, ["random", "strong"], 30, 1, 1, tmp_path / name, chunk_size=5, progress=progress
    )


@pytest.fixture
def plain_stderr(monkeypatch, tmp_path):
    """stderr captured (not a terminal, and nothing tells rich to pretend it is one), a line at every
    chance, and the warm-up store in a temporary folder."""
    for var in ("FORCE_COLOR", "TTY_INTERACTIVE", "TTY_COMPATIBLE", "JUPYTER_COLUMNS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(INTERVAL_ENV, "0")
    monkeypatch.setenv("BALANCER_CACHE_DIR", str(tmp_path / "cache"))


def test_a_run_off_a_terminal_prints_plain_lines(tmp_path, capsys, plain_stderr):
    out = _run(tmp_path, "shown", progress=True)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert not ANSI.search(err)
    counts = [ln for ln in lines if re.fullmatch(r"run: \d+/30 games \(\d+%\), .+", ln)]
    assert counts, err
    # 6 chunks of 5 games: after warm-up (the first chunk) each line gives the pace and time left
    assert any(re.search(r"run: (10|15|20|25)/30 games \(\d+%\), [\d,]+ games/s, ", ln) for ln in lines), err
    assert re.fullmatch(r"run: 30/30 games \(30 played in \d+ s\)(, .+ games/s after \d+ s of warm-up)?", lines[-1]), (
        err
    )
    # progress only shows: the results are those of a run without it
    _run(tmp_path, "quiet", progress=False)
    assert capsys.readouterr().err == ""
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(tmp_path / "quiet" / "results.parquet"))


def test_a_run_records_its_warm_up_in_the_cache_folder_only(tmp_path, capsys, plain_stderr, monkeypatch):
    import balancer.sim.runner as runner
    import balancer.sim.warmup as warmup

    # the fake game as if it had an engine in numba's cache: what a real game's run says and records
    monkeypatch.setattr(warmup, "_WARMED", set())
    monkeypatch.setattr(runner, "warmup_of", lambda spec, agents: Warmup("fake", "load", False))
    out = _run(tmp_path, "recorded", progress=True)
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("run: 0/30 games (0%), loading the fake engine from numba's cache, ")
    assert first.endswith("(first time on this machine: typically 2 s to 20 s)")
    cache = tmp_path / "cache"
    assert set(read_durations(cache)) == {"fake/load"}
    assert sorted(p.name for p in out.iterdir()) == ["results.parquet", "run.json", "summary.json"]


def test_what_a_run_waits_for(tmp_path, monkeypatch):
    import balancer.sim.warmup as warmup

    monkeypatch.setattr(warmup, "_WARMED", set())
    # a game whose package has no numba index yet (__pycache__/*.nbi): its engine compiles
    spec = SimpleNamespace(name="g", engine=object(), source=tmp_path, generic_agents=("mcts",))
    assert warmup.warmup_of(spec, ["greedy"]) == Warmup("g", "compile", False)
    # the search is waited for when a seat is one of the game's generic agents, by its base name
    assert warmup.warmup_of(spec, ["mcts+greedy", "greedy"]).mcts
    assert not warmup.warmup_of(SimpleNamespace(**{**vars(spec), "generic_agents": ()}), ["mcts"]).mcts
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "kernel.f-1.py311.nbi").write_bytes(b"")
    w = warmup.warmup_of(spec, ["mcts@50", "greedy"])
    assert w == Warmup("g", "load", True) and w.key == "g/load+mcts"
    # once this process's workers hold the engine and the search (loky keeps them between runs)
    warmup.mark_warm(w)
    assert warmup.is_warm(warmup.warmup_of(spec, ["mcts", "greedy"]))
    # a game without a compiled engine waits for nothing
    no_engine = SimpleNamespace(name="h", engine=None, source=tmp_path, generic_agents=("mcts",))
    assert warmup.is_warm(warmup.warmup_of(no_engine, ["random"]))


def test_lines_say_what_is_warming_up(capsys, plain_stderr):
    with RunProgress(
        10, True, warm_chunks=1, warmup=("compiling the fake engine", "took 42 s last time on this machine")
    ) as shown:
        pass  # nothing finished: the opening line says what is awaited
    lines = capsys.readouterr().err.splitlines()
    # compiling: the last duration, then the time so far on a clock (issue 50, item 3)
    assert re.fullmatch(
        r"run: 0/10 games \(0%\), compiling the fake engine \(took 42 s last time on this machine\), 0:0\d", lines[0]
    ), lines[0]
    assert lines[-1].startswith("run: 0/10 games (0 played in ")
    assert shown.mode == "lines"


def test_disabled_progress_prints_nothing(capsys, plain_stderr):
    with RunProgress(10, False) as shown:
        shown.update(10)
    assert capsys.readouterr().err == "" and shown.mode == "off"


# --------------------------------------------------------------------------------------------------
# the count across cells (study, ladder, tune)


def test_overall_count_across_cells():
    # a study of 3 cells to play: 100, 300 and 600 games (1,000 in all)
    overall = cells_overall("study", [100, 300, 600])
    assert (overall.cells, overall.games) == (3, 1000)
    overall.begin_cell("mirror-4p / v1.1", 100)
    assert overall.prefix() == "study [1/3] mirror-4p / v1.1"
    assert overall.text(None, 0.0) == "overall 0/1,000 games (0%), estimating the time left"
    # cell 1: warm-up (its first chunk, 20 games at 30 s), then 80 games in 8 s: 10 games/s
    c1 = RunClock(total=100, done=0, warm_chunks=1, started=0.0)
    c1.chunk(20, 30.0)
    c1.chunk(80, 38.0)
    overall.end_cell(c1)
    # 900 games left at 10 games/s -> 90 s
    assert overall.text(None, 38.0) == "overall 100/1,000 games (10%), about 1 min 30 s left"
    # cell 2, warm already: 300 games in 20 s (15 games/s); with cell 1, 380 games in 28 s after warm-up
    overall.begin_cell("mirror-3p / v1.1", 300)
    c2 = RunClock(total=300, done=0, warm_chunks=0, started=40.0)
    c2.chunk(150, 50.0)
    # live: 250 done, 230 games in 18 s after warm-up; 750 left -> 750 x 18 / 230 = 58.7 s
    assert overall.text(c2, 50.0) == "overall 250/1,000 games (25%), about 59 s left"
    c2.chunk(150, 60.0)
    overall.end_cell(c2)
    assert overall.done == 400 and overall.games_after == 380 and overall.seconds_after == 28.0
    # 600 left x 28 / 380 = 44.2 s
    assert overall.text(None, 60.0) == "overall 400/1,000 games (40%), about 44 s left"


def test_a_cell_line_carries_the_overall_count(capsys, plain_stderr):
    overall = cells_overall("ladder", [10, 10])
    overall.begin_cell("ladder-2p / v1.1", 10)
    with RunProgress(10, True, warm_chunks=0, overall=overall) as shown:
        shown.update(10)
    overall.end_cell(shown.clock)
    lines = capsys.readouterr().err.splitlines()
    assert (
        lines[0]
        == "ladder [1/2] ladder-2p / v1.1: 0/10 games (0%), measuring the pace; overall 0/20 games (0%), estimating the time left"
    )
    assert lines[-1].startswith("ladder [1/2] ladder-2p / v1.1: 10/10 games (10 played in ")
    assert overall.done == 10


def test_tune_search_eta():
    # a games budget of 8,000 with 1,200 spent; 1,000 games played in 50 s since the first cell -> 20
    # games/s, 6,800 left -> 340 s
    assert search_eta(8000, 1200, None, 5, 1000, 4, 50.0) == 340.0
    # a candidates budget of 40 with 5 measured, 4 in the 50 s since warm-up -> 35 x 12.5 = 437.5 s;
    # with both budgets the search stops at the first spent: min(340, 437.5)
    assert search_eta(None, 1200, 40, 5, 1000, 4, 50.0) == 437.5
    assert search_eta(8000, 1200, 40, 5, 1000, 4, 50.0) == 340.0
    assert search_eta(8000, 0, None, 0, 0, 0, 0.0) is None


def test_a_comparison_names_each_run_and_counts_both(tmp_path, monkeypatch):
    """compare plays two runs: each one's progress names its side and variant, beside the count of
    both (2 runs of 50 games: 100 in all), not two anonymous 'run:' lines."""
    import balancer.compare as compare
    from balancer.data import locate_config

    seen: list[tuple[str, str]] = []

    class Stop(Exception):
        pass

    def fake_run_to_dir(*args, overall=None, **kwargs):
        seen.append((overall.prefix(), overall.text(None, 0.0)))
        if len(seen) == 2:
            raise Stop
        return None

    monkeypatch.setattr(compare, "run_to_dir", fake_run_to_dir)
    with pytest.raises(Stop):
        compare.play_comparison(
            locate_config("citywright/v1.0"), locate_config("citywright/v1.1"), 4, ["greedy"], 50, 1, 1, tmp_path / "c"
        )
    assert seen == [
        ("compare [1/2] a-v1.0", "overall 0/100 games (0%), estimating the time left"),
        ("compare [2/2] b-v1.1", "overall 0/100 games (0%), estimating the time left"),
    ]


def test_a_page_of_several_what_ifs_counts_every_run_once(tmp_path, monkeypatch):
    """compare BASE V1 V2 plays three runs (the base once): the count is [1/3] a, [2/3] b-V1,
    [3/3] b-V2 over 3 x 50 = 150 games. It said '[1/2]', '[2/2]', then '[1/1] b-V2' (each pair counted
    alone, the base reused), and with --force played the base again for the second variant.
    The runs are not played (run_to_dir stands in), so the base is never 'found' on disk: the
    second comparison must take it as played by the first, with or without force."""
    import balancer.compare as compare
    from balancer.data import locate_config

    for force in (False, True):
        seen: list[tuple[str, str]] = []

        class Stop(Exception):
            pass

        def fake_run_to_dir(*args, overall=None, seen=seen, **kwargs):
            seen.append((overall.prefix(), overall.text(None, 0.0)))
            if len(seen) == 3:
                raise Stop
            return None

        monkeypatch.setattr(compare, "run_to_dir", fake_run_to_dir)
        # the first comparison's statistics read its (unplayed) runs: stood in for, the count is the test
        monkeypatch.setattr(compare, "paired_differences", lambda *a, **k: {})
        monkeypatch.setattr(compare, "seat_spread_headline", lambda *a, **k: {"difference": 0.0})
        monkeypatch.setattr(compare, "flow_rows", lambda *a, **k: {})
        monkeypatch.setattr(compare, "mark_mechanical", lambda *a, **k: None)
        monkeypatch.setattr(compare, "holm_page", lambda *a, **k: {})
        (tmp_path / f"c-{force}").mkdir()  # the runs' folders are not made: nothing is played
        with pytest.raises(Stop):
            compare.play_comparisons(
                locate_config("citywright/v1.0"),
                [locate_config("citywright/v1.1"), locate_config("citywright/v1.1-no-bonus")],
                2, ["greedy"], 50, 1, 1, tmp_path / f"c-{force}", force=force, progress=False,
            )  # fmt: skip
        assert [prefix for prefix, _ in seen] == [
            "compare [1/3] a-v1.0",
            "compare [2/3] b-v1.1",
            "compare [3/3] b-v1.1-no-bonus",
        ], force
        assert {text for _, text in seen} == {"overall 0/150 games (0%), estimating the time left"}


class FakeClock:
    """A clock the test moves: ``RunProgress(timer=clock)`` reads it instead of time.perf_counter."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _plain_counts(capsys, total: int, chunks: list[tuple[float, int]]) -> list[int]:
    """The game counts of the plain lines of a run of ``total`` games whose chunks finish at the given
    (fake seconds, games); the default interval (the variable unset), stderr no terminal."""
    clock = FakeClock()
    with RunProgress(total, True, warm_chunks=0, timer=clock) as shown:
        for at, games in chunks:
            clock.now = at
            shown.update(games)
    assert shown.mode == "lines"
    lines = capsys.readouterr().err.splitlines()
    return [int(re.match(r"run: ([\d,]+)/", ln).group(1).replace(",", "")) for ln in lines]


def test_a_long_run_off_a_terminal_prints_a_line_per_10_percent_at_most_every_30_s(capsys, monkeypatch):
    """Issue 50: a CI log got a line every 5 s (720 lines an hour). A line waits for 30 s since the last
    AND the next 10% step of the games, whichever is rarer; plus the first and the last line."""
    for var in ("FORCE_COLOR", "TTY_INTERACTIVE", "TTY_COMPATIBLE", "JUPYTER_COLUMNS", INTERVAL_ENV):
        monkeypatch.delenv(var, raising=False)
    # 1,000 games, 10 a second for 100 s: 10% takes 10 s, so the 30 s rule is the rarer one: lines at
    # 30 s (300 games), 60 s and 90 s, between the opening line and the last (5 lines; was 21 at 5 s)
    assert _plain_counts(capsys, 1000, [(t, 10) for t in range(1, 101)]) == [0, 300, 600, 900, 1000]
    # 1,000 games, 1 a second for 1,000 s: 30 s is 3%, so the 10% step is the rarer one: a line at
    # each 100 games (11 lines; was 34 at 30 s, 201 at 5 s)
    assert _plain_counts(capsys, 1000, [(t, 1) for t in range(1, 1001)]) == list(range(0, 1001, 100))
    # a short run (1,000 games in 20 s) says where it starts and ends, nothing between
    assert _plain_counts(capsys, 1000, [(t, 50) for t in range(1, 21)]) == [0, 1000]
