"""Bounded memory for long histories (issue 52, item 3): the page reads, in DuckDB, only the rows of the
commits it draws (the last 50 by default, ``--last N``), plus each series' anchor and latest rows with
counts aggregated in DuckDB for the drift, so its memory hardly grows with the number of events. Before: 100 events 0.53 GB, 1,600 events 3.6 GB
and 55 s, 20,000 events killed above 24 GB.

The long history is written in one bulk INSERT from a good one-event history (no games).
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from balancer.history.store import append_event

NUMBERS = 3
GAMES = 100

CHILD = """
import json, resource, sys, time
from balancer.cli import app
start = time.perf_counter()
try:
    app(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps({"maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "seconds": time.perf_counter() - start}))
"""


def long_history(path: Path, events: int) -> Path:
    """A history of ``events`` check events, 3 numbers each, with 100 per-game values per number, all
    played with seed 1 (so consecutive points are compared game by game)."""
    rows = [
        {
            "event_kind": "baseline",
            "recorded_at": datetime(2026, 1, 1, tzinfo=UTC),
            "commit_sha": f"{0:040x}",
            "commit_subject": "baseline",
            "study": "long",
            "game": "citywright",
            "run": "mirror-3p",
            "variant": "v1.1",
            "number": f"seat_win_rate:{i + 1}",
            "kind": "win_rate",
            "test": "saved",
            "estimate": 0.33,
            "variance": 0.22,
            "games": GAMES,
            "seed": 1,
            "tolerance": 0.05,
            "verdict": "baseline",
        }
        for i in range(NUMBERS)
    ]
    append_event(path, "long", "citywright", rows)
    con = duckdb.connect(str(path))
    con.execute(
        """
        INSERT INTO history (event, event_kind, recorded_at, commit_sha, commit_subject, study, game, run, variant,
                             number, kind, test, estimate, variance, games, seed, baseline_value, tolerance, verdict)
        SELECT e, 'check', TIMESTAMPTZ '2026-01-01' + to_minutes(e), lpad(printf('%x', e), 40, '0'),
               'commit ' || e, 'long', 'citywright', 'mirror-3p', 'v1.1', 'seat_win_rate:' || s, 'win_rate',
               'baseline', 0.33 + 0.01 * sin(e * s), 0.22, ?, 1, 0.33, 0.05, 'pass'
        FROM range(2, ? + 1) t(e), range(1, ? + 1) u(s)
        """,
        [GAMES, events, NUMBERS],
    )
    con.execute(
        """
        INSERT INTO game_values SELECT e, 'mirror-3p', 'v1.1', 'seat_win_rate:' || s, 1,
               list_transform(range(?), lambda g: ((g * 7 + e * s) % 3 = 0)::FLOAT)
        FROM range(1, ? + 1) t(e), range(1, ? + 1) u(s)
        """,
        [GAMES, events, NUMBERS],
    )
    con.execute("CHECKPOINT")
    con.close()
    return path


def draw(history: Path, out: Path, *extra: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "history", str(history), "-o", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_memory_is_flat_in_the_number_of_events(tmp_path):
    short = long_history(tmp_path / "short.duckdb", 200)
    long = long_history(tmp_path / "long.duckdb", 20_000)
    small = draw(short, tmp_path / "short.html")
    big = draw(long, tmp_path / "long.html")
    # the same 50 commits drawn, the drift from each series' anchor and latest rows with counts made in
    # DuckDB; 100x the events adds only the event list (20,000 rows of 3 columns) and DuckDB's scans:
    # measured 11 MB more peak RSS (345 MB against 356 MB); at most 50 MB is asserted (time is not: a
    # test never asserts a speed; the page's time is reported in "seconds" for a person reading a failure)
    growth_mb = (big["maxrss_kb"] - small["maxrss_kb"]) / 1024
    assert growth_mb < 50, (small, big)
    html = (tmp_path / "long.html").read_text(encoding="utf-8")
    # every number a panel of the page's one figure (issue 50 item 8: was a figure each)
    assert "the last 50 of 20000 commits" in html and html.count("<svg") == 1
    assert f"One panel per number ({NUMBERS})" in html
    # --last 0 draws every commit: on the short history, all 200 events are in its table of events
    draw(short, tmp_path / "all.html", "--last", "0")
    assert "the last" not in (tmp_path / "all.html").read_text(encoding="utf-8")


def test_the_pages_drift_from_its_summary_equals_the_drift_of_every_point(tmp_path):
    # The page fetches only each series' anchor and latest points, with counts aggregated in DuckDB; the
    # drift must be the one computed from every point (here: a baseline, then checks, one failing on one
    # number, an expect row beside a regression row, and a second baseline that is not the anchor).
    import polars as pl

    from balancer.history.query import load_page
    from balancer.history.store import read_history, read_values
    from balancer.stats import drift as dr

    path = tmp_path / "h.duckdb"
    base = {"recorded_at": datetime(2026, 1, 1, tzinfo=UTC), "study": "s", "game": "g", "run": "r", "variant": "v",
            "kind": "win_rate", "variance": 0.2, "games": 4000, "tolerance": 0.02}  # fmt: skip
    kinds = ["baseline", "check", "check", "baseline", "check", "check"]
    for e, kind in enumerate(kinds, start=1):
        rows = []
        for s in (1, 2):
            est = 0.3 + 0.008 * e * s
            test, verdict = ("saved", "baseline") if kind == "baseline" else ("baseline", "pass")
            if kind == "check" and e == 3 and s == 2:
                verdict = "fail"
            rows.append(base | {"event_kind": kind, "number": f"n{s}", "test": test, "estimate": est,
                                "seed": e, "verdict": verdict})  # fmt: skip
            if kind == "check":
                rows.append(rows[-1] | {"test": "expect", "verdict": "pass", "estimate": est})
        append_event(path, "s", "g", rows)
    page = load_page(path, last=2)
    assert page.frame["event"].unique().sort().to_list() == [5, 6]  # the last two commits drawn
    assert page.every["event"].unique().sort().to_list() == [1, 6]  # only the anchor and the latest
    frame, _ = read_history(path)
    full = dr.drift(dr.points(frame), read_values(path, list(range(1, 7))))
    summary = dr.drift(dr.points(page.every), page.values)
    cols = ["number", "anchor_event", "latest_event", "drift", "look", "checks", "all_passed", "flag", "ci_low"]
    assert summary.select(cols).equals(full.select(cols)), (summary.select(cols), full.select(cols))
    assert summary["all_passed"].to_list() == [True, False] and summary["look"].to_list() == [5, 5]
    assert pl.Series(summary["flag"]).to_list() == ["drift", "failed"]
