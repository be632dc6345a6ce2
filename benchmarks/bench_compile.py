"""What a game's first runs compile, per function: for each game, its first greedy run and then its
first ``mcts,greedy`` run, each a whole ``balancer run`` process over an empty numba cache of its own
(``NUMBA_CACHE_DIR``), as after a fresh install. Prints each run's CPU seconds (user + system of the
process) and the functions numba compiled, each with its own CPU seconds: the time of its compile
less the compiles nested in it (numba's ``numba:compile`` events), largest first. A function compiled
for several signatures is listed once per signature. Prints numbers; asserts nothing.

Why per function: numba compiles every ``@njit`` function into a library of its own, and finalising
a library re-optimises every library it calls, so a thin wrapper above a large closure costs as much
as the closure's optimisation (docs/speed.md, "Issue 47"). This shows where that happens.

    python benchmarks/bench_compile.py [--only citywright] [--top 12] [--warm]

The machine is shared and noisy: compare two builds side by side, one pair of processes at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAMES = (
    # (game, variant, players of the greedy run)
    ("citywright", "citywright/v1.1", 4),
    ("agueda", "agueda/v1", 4),
    ("urban_sketchers", "urban_sketchers/base", 4),
    ("urgency", "urgency/standard", 2),
)

RUNS = (
    # (label, agents, games); the players: the game's for greedy, 2 for mcts,greedy
    ("greedy", "greedy", 4),
    ("mcts,greedy", "mcts,greedy", 2),
)

# The child: one `balancer run` with a listener on numba's compile events; writes what it saw as JSON.
CHILD = r"""
import json, sys, time
from numba.core import event

stack, seen = [], []

class Compiles(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, nested = stack.pop()
        spent = time.process_time() - start
        if stack:
            stack[-1][1] += spent
        fn = ev.data["dispatcher"].py_func
        seen.append({"function": f"{fn.__module__}.{fn.__qualname__}", "own": spent - nested, "with_nested": spent})

event.register("numba:compile", Compiles())
from balancer.cli import app

out = sys.argv[1]
try:
    app(sys.argv[2:], prog_name="balancer")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
with open(out, "w") as f:
    json.dump({"exit": code, "compiles": seen}, f)
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_run(variant: str, players: int, agents: str, games: int, cache: str | None, work: Path) -> dict:
    """One ``balancer run`` in a child process; returns its CPU seconds, exit code and compiles."""
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    report = work / "compiles.json"
    out = work / f"run-{agents.replace(',', '-')}"
    args = [variant, "-p", str(players), "-a", agents, "-n", str(games), "--jobs", "1", "--seed", "1", "-q"]
    report.unlink(missing_ok=True)
    before = _children_cpu()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(report), "run", *args, "--out", str(out), "--force"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    cpu = _children_cpu() - before
    seen = json.loads(report.read_text()) if report.exists() else {"exit": done.returncode, "compiles": []}
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-2000:])
    return {"cpu": cpu, "exit": done.returncode, "compiles": seen["compiles"]}


def show(game: str, label: str, result: dict, top: int) -> None:
    compiles = sorted(result["compiles"], key=lambda c: -c["own"])
    own = sum(c["own"] for c in compiles)
    print(
        f"{game:16s} first {label:12s} {result['cpu']:7.1f} CPU s (exit {result['exit']}); "
        f"{len(compiles)} compiles, {own:.1f} CPU s of them"
    )
    for c in compiles[:top]:
        print(f"    {c['own']:7.2f}  (with nested {c['with_nested']:7.2f})  {c['function']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--only", nargs="+", choices=[g for g, _, _ in GAMES], help="these games only (default: all four)"
    )
    parser.add_argument("--top", type=int, default=12, help="functions listed per run, largest first (default 12)")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="use the install's own numba cache instead of an empty one (a second run: little or nothing compiles)",
    )
    a = parser.parse_args()
    for game, variant, players in GAMES:
        if a.only and game not in a.only:
            continue
        with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
            work = Path(tmp)
            cache = None if a.warm else str(work / "numba-cache")
            for label, agents, games in RUNS:
                p = players if label == "greedy" else 2
                show(game, label, first_run(variant, p, agents, games, cache, work), a.top)


if __name__ == "__main__":
    main()
