"""Whole ``balancer run`` processes, start-up included: games per second of the tables of the
Speed table of docs/speed.md, through the command a user types (seeding, the compiled chunk, the rows, the
chunk files, the merge into results.parquet, summary.json). Prints numbers; asserts nothing.

For each table it runs ``balancer run CONFIG --players N --agents A --games G --jobs J --force``
into a temporary directory, ``--repeats`` times, and prints the median wall-clock rate of the whole
process beside the rate over the play alone (``run.json``'s ``elapsed_seconds``: from the first chunk
to the last, without start-up, merge and summary). The machine is shared and noisy: compare two
builds side by side in one session, alternating, rather than against a number from another day.

    python benchmarks/bench_run.py [--repeats 3] [--only urgency] [--jobs 1 2] [--scale 0.1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BALANCER = Path(sys.executable).with_name("balancer")

TABLES = (
    # (label, config under configs/, players, agents, games)
    ("Urgency, greedy mirror, no cards", "urgency/no-cards.yaml", 2, "greedy", 1_000_000),
    ("Urgency, greedy mirror, standard decks", "urgency/standard.yaml", 2, "greedy", 100_000),
    ("Citywright, 4 random", "citywright/v1.1.yaml", 4, "random", 20_000),
    ("Citywright, 4 greedy", "citywright/v1.1.yaml", 4, "greedy", 2_000),
    ("Águeda, 4 greedy", "agueda/v1.yaml", 4, "greedy", 20_000),
    ("Urban Sketchers, 4 greedy", "urban_sketchers/base.yaml", 4, "greedy", 2_000),
)


def run_once(config: str, players: int, agents: str, games: int, jobs: int) -> tuple[float, float]:
    """(whole-process wall seconds, run.json's elapsed_seconds) of one ``balancer run``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        t0 = time.perf_counter()
        subprocess.run(
            [
                str(BALANCER),
                "run",
                str(ROOT / "configs" / config),
                "--players",
                str(players),
                "--agents",
                agents,
                "--games",
                str(games),
                "--jobs",
                str(jobs),
                "--seed",
                "1",
                "--quiet",
                "--force",
                "--out",
                str(out),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - t0
        return wall, float(json.loads((out / "run.json").read_text())["elapsed_seconds"])


def main() -> None:
    tables = "\n".join(f"  {label}: {games:,} games" for label, _, _, _, games in TABLES)
    parser = argparse.ArgumentParser(
        description=__doc__,
        epilog=f"tables (at --scale 1):\n{tables}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of each table and job count; the median counts (default 3)"
    )
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1], help="the --jobs of each run, one line per value (default 1)"
    )
    parser.add_argument(
        "--only", default=None, help="only tables whose label contains this text (case-insensitive; default all)"
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply every table's games by this, rounded down to a multiple of its players, at least one game"
        " a seat (default 1)",
    )
    args = parser.parse_args()
    for label, config, players, agents, games in TABLES:
        if args.only and args.only.lower() not in label.lower():
            continue
        games = max(players, int(games * args.scale) // players * players)
        for jobs in args.jobs:
            runs = [run_once(config, players, agents, games, jobs) for _ in range(args.repeats)]
            wall = statistics.median(w for w, _ in runs)
            play = statistics.median(e for _, e in runs)
            print(
                f"{label:42s} {games:>9,} games, {jobs} job(s): {games / wall:9,.0f} games/s whole process "
                f"({wall:.1f} s), {games / play:9,.0f} games/s over the play"
            )


if __name__ == "__main__":
    main()
