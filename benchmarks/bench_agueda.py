"""Águeda throughput: four-player games per second of greedy, random and lookahead tables, on one
core and on two worker processes. Prints numbers; asserts nothing (DESIGN.md: never timed tests).

    python benchmarks/bench_agueda.py [--seconds 15] [--players 4] [--jobs 1 2]

Issue #7's target: greedy, 4 players, 1,000 games/s or more on one core. Seeds follow the runner
(game i of run seed 12345), so the games are the ones `balancer run --seed 12345` would play.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from joblib import Parallel, delayed

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "agueda" / "v1.yaml"
TARGET_GREEDY = 1000.0
"""Issue #7: greedy games per second per core at 4 players."""


def _games(agent: str, players: int, start: int, seconds: float) -> tuple[int, float]:
    """Play games from index ``start`` on for about ``seconds`` (after one warm-up game that loads
    the compiled code); returns (games, elapsed seconds)."""
    import balancer.games.agueda as ag
    from balancer.config import load_config
    from balancer.core.seeding import game_seed

    cfg = load_config(CONFIG)
    ag.play_game(cfg, [agent] * players, game_seed(1, 0))
    done, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        for _ in range(10):
            ag.play_game(cfg, [agent] * players, game_seed(12345, start + done))
            done += 1
    return done, elapsed


def rate(agent: str, players: int, jobs: int, seconds: float) -> float:
    """Games per second over ``jobs`` worker processes (loky), each playing for ``seconds``."""
    if jobs == 1:
        done, elapsed = _games(agent, players, 0, seconds)
        return done / elapsed
    out = Parallel(n_jobs=jobs, backend="loky")(
        delayed(_games)(agent, players, j * 10**7, seconds) for j in range(jobs))
    return sum(d for d, _ in out) / max(e for _, e in out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=15.0, help="measured seconds per case (default 15)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, min(2, os.cpu_count() or 1)])
    args = ap.parse_args()
    print(f"Águeda v1, {args.players} players, {os.cpu_count()} cores")
    for agent, seconds in (("greedy", args.seconds), ("random", args.seconds), ("lookahead", args.seconds / 3)):
        for jobs in sorted(set(args.jobs)):
            r = rate(agent, args.players, jobs, seconds)
            note = ""
            if agent == "greedy":
                note = f"; target {TARGET_GREEDY:.0f} per core: {'meets' if r / jobs >= TARGET_GREEDY else 'BELOW'}"
            print(f"  {agent:9s} jobs={jobs}: {r:9.1f} games/s  ({r / jobs:8.1f} per core{note})", flush=True)


if __name__ == "__main__":
    main()
