"""The benchmarks (benchmarks/*.py, `make bench`) still run: each script at a tiny scale, in a subprocess
with a time bound, exits 0 and prints its games-per-second lines. Never a speed: a rate is only checked
to be a number (docs/architecture.md: never timed tests). And each script's ``--help`` documents every
option it takes (issue 48: the help of two of them was cut to one line, options without a word).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCH.glob("bench_*.py"))

# Each script with the smallest counts that still go through every case it measures (the games, agents,
# player counts and playouts of `make bench`), and the lines it must print: one "games/s" line per case.
# (script, arguments, the number of lines holding "games/s"); the counts come from each script's loops:
TINY = {
    # greedy and random tables at jobs=1, then one line of interface playouts: 3 lines
    "bench_citywright.py": (["--seconds", "0.05", "--jobs", "1"], 3),
    # five cases (greedy, random, playout, policy, lookahead) at jobs=1: 5 lines
    "bench_agueda.py": (["--seconds", "0.05", "--jobs", "1", "--players", "2"], 5),
    # four play_game tables and three kernel playouts: 7 lines
    "bench_urgency.py": (["--seconds", "0.05"], 7),
    # one table of TABLES (each is a whole `balancer run` process: the others' configs and agents are checked
    # without playing, below), 500 games: 1 line
    "bench_run.py": (["--repeats", "1", "--scale", "0.0005", "--only", "no cards"], 1),
    # greedy and random at 2 players, then random and policy playouts at 2 players: 4 lines
    "bench_urban_sketchers.py": (["--games", "2", "--repeat", "1", "--players", "2", "--playouts", "2"], 4),
    # iterations per second and seconds per game: five stand-in cases and Urgency at 2 players (its only
    # count); checked by their "it/s" lines below (it prints no games/s)
    "bench_mcts.py": (["--seconds", "0.05", "--budget", "20", "--game-budget", "4", "--only", "urgency"], 0),
    # Urgency's two first runs on the install's own (filled) cache: no rate; checked by their "first" lines below
    "bench_compile.py": (["--only", "urgency", "--warm", "--top", "3"], 0),
    # one Dask worker, a 10-game probe: 1 line
    "bench_cluster.py": (["--seconds", "0.1", "--workers", "1", "--probe", "10", "--players", "2",
                          "--agents", "random"], 1),
}  # fmt: skip
RATE = re.compile(r"([\d,]+(?:\.\d+)?) games/s")


def run(script: str, *args: str, timeout: float = 400) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{script} {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_every_benchmark_is_smoke_tested():
    assert sorted(TINY) == SCRIPTS, "a benchmark without a tiny run here (or a tiny run of a removed one)"


@pytest.mark.parametrize(
    "script",
    [pytest.param(s, marks=[pytest.mark.cluster] if s == "bench_cluster.py" else []) for s in SCRIPTS],
)
@pytest.mark.timeout(600)
def test_a_benchmark_runs_at_a_tiny_scale_and_prints_its_rates(script):
    args, lines = TINY[script]
    out = run(script, *args)
    rates = [line for line in out.splitlines() if RATE.search(line)]
    assert len(rates) == lines, out
    for line in rates:  # a number, whatever it is (a rate of 0 would mean nothing was played)
        assert float(RATE.search(line).group(1).replace(",", "")) > 0, line
    if script == "bench_mcts.py":
        searched = [line for line in out.splitlines() if re.search(r"[\d,]+ it/s", line)]
        assert len(searched) == 6 and "urgency, 2p" in searched[-1], out
    if script == "bench_compile.py":  # one line per run, each a whole process that ended well
        runs = [line for line in out.splitlines() if line.startswith("urgency") and " CPU s (exit 0)" in line]
        assert [line.split()[2] for line in runs] == ["greedy", "mcts,greedy"], out


# The script's own parser, taken at parse_args: every option with its help text (what --help prints beside it)
DUMP = """
import argparse, json, runpy, sys
def dump(self, *args, **kwargs):
    print(json.dumps([[a.option_strings, a.help] for a in self._actions]))
    sys.exit(0)
argparse.ArgumentParser.parse_args = dump
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmarks_help_explains_every_option(script):
    done = subprocess.run([sys.executable, "-c", DUMP, str(BENCH / script)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    actions = json.loads(done.stdout.splitlines()[-1])
    options = [opts for opts, _ in actions if opts != ["-h", "--help"]]
    assert options, script
    assert [opts for opts, text in actions if not (text or "").strip()] == [], f"{script}: options without help"
    out = run(script, "--help", timeout=120)
    for opts in options:
        assert opts[-1] in out, out
    # the description is the script's whole docstring, its usage line included, not its first line only
    assert f"python benchmarks/{script}" in out, out


def test_every_table_of_bench_run_is_a_run_balancer_accepts():
    # bench_run's tables, but the one the smoke test plays, checked as `balancer run` checks its request before
    # playing: the config loads, the agents are the game's, the players within its counts
    from balancer.config import load_config
    from balancer.core.registry import get_spec

    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "bench_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.TABLES) == 6
    for label, config, players, agent, games in module.TABLES:
        cfg = load_config(ROOT / "configs" / config)
        assert players in cfg.player_counts, label
        assert agent in get_spec(cfg.game).agents, label
        assert games >= players, label
