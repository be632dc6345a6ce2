"""A run killed with SIGKILL part way and resumed with --resume: no game missing or duplicated, and
the results equal an uninterrupted run's (chunk files + manifest.json, see balancer/sim/runner.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from balancer.cli import app

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "citywright" / "v1.1.yaml"
GAMES = 3000
ARGS = [
    "run",
    str(CONFIG),
    "--players",
    "2",
    "--agents",
    "greedy,random",
    "--games",
    str(GAMES),
    "--seed",
    "9",
    "--chunk-size",
    "60",
    "--quiet",
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _chunks_listed(out: Path) -> int:
    try:
        return len(json.loads((out / "manifest.json").read_text())["chunks"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.slow
def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path):
    out = tmp_path / "cut"
    proc = subprocess.Popen(
        [sys.executable, "-m", "balancer.cli", *ARGS, "--jobs", "1", "--out", str(out)],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while _chunks_listed(out) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
    listed = _chunks_listed(out)
    assert 5 <= listed < GAMES // 60, "the run should have been killed part way"
    assert not (out / "results.parquet").exists()

    runner = CliRunner()
    again = runner.invoke(app, [*ARGS, "--jobs", "2", "--out", str(out)])
    assert again.exit_code == 2 and "--resume" in again.stderr  # a plain rerun refuses the interrupted run
    resumed = runner.invoke(app, [*ARGS, "--jobs", "2", "--out", str(out), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    whole = tmp_path / "whole"
    assert runner.invoke(app, [*ARGS, "--jobs", "2", "--out", str(whole)]).exit_code == 0

    df = pl.read_parquet(out / "results.parquet")
    per_game = df.group_by("game_index").len()
    assert per_game.height == GAMES and (per_game["len"] == 2).all()
    assert sorted(per_game["game_index"]) == list(range(GAMES))
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(whole / "results.parquet"))
    assert (out / "summary.json").read_bytes() == (whole / "summary.json").read_bytes()
    # the game records its trajectories (issue 49): the resumed run's equal the uninterrupted run's, row for row
    assert pq.read_table(out / "trajectories.parquet").equals(pq.read_table(whole / "trajectories.parquet"))
    assert sorted(p.name for p in out.iterdir()) == [
        "results.parquet",
        "run.json",
        "summary.json",
        "trajectories.parquet",
    ]


def test_resume_with_other_arguments_names_them(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    manifest = {
        "format": 1,
        "game": "citywright",
        "variant": "v1.1",
        "config_sha256": "x",
        "config_path": "c",
        "n_players": 2,
        "agents": ["greedy", "random"],
        "games": 500,
        "seed": 9,
        "chunk_size": 60,
        "started": "2024-01-01T00:00:00+00:00",
        "elapsed_seconds": 1.0,
        "chunks": [],
    }
    (out / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(app, [*ARGS, "--out", str(out), "--resume"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --resume: {out} was started with different arguments: ")
    assert "config content" in result.stderr and f"--games 500 (now {GAMES})" in result.stderr
    nothing = CliRunner().invoke(app, [*ARGS, "--out", str(tmp_path / "none"), "--resume"])
    assert nothing.exit_code == 2 and "no manifest.json" in nothing.stderr
