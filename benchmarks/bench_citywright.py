"""Citywright throughput: four-player games per second for tables of `greedy` and of `random`
(``play_game``, the runner's path; both run through the compiled interface), on one core and on
both (joblib loky); then uniformly random playouts through the interface alone
(``balancer.core.kernel.random_playout`` over ``kernel.ENGINE``: setup and one random decision after
another, chance and choices from one generator), on one core. Prints numbers; asserts nothing
(docs/architecture.md: never timed tests).

    python benchmarks/bench_citywright.py [--seconds 20] [--jobs 1 2]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "citywright" / "v1.1.yaml"
TARGETS = {"greedy": 300.0, "random": 5000.0}
"""Issue #2's targets, four-player games per second per core."""


def _load():
    from balancer.config import load_config

    return load_config(CONFIG)


def _play(agent: str, start: int, count: int) -> int:
    import balancer.games.citywright as cw

    cfg = _load()
    for i in range(start, start + count):
        cw.play_game(cfg, [agent] * 4, np.random.SeedSequence(12345, spawn_key=(i,)))
    return count


def _rate(agent: str, jobs: int, seconds: float) -> float:
    """Games per second over about ``seconds``, after warming up (compile or cache load) each worker."""
    probe = 400 if agent == "random" else 20
    with Parallel(n_jobs=jobs, backend="loky") as par:
        par(delayed(_play)(agent, 10**6 + j, 2) for j in range(jobs))  # warm-up
        t0 = time.perf_counter()
        par(delayed(_play)(agent, j * probe, probe) for j in range(jobs))
        per_game = (time.perf_counter() - t0) / (probe * jobs)
        batch = max(probe, int(seconds / per_game / jobs))
        t0 = time.perf_counter()
        done = sum(par(delayed(_play)(agent, 10**7 + j * batch, batch) for j in range(jobs)))
        return done / (time.perf_counter() - t0)


def _playouts(games: int, seed: int) -> float:
    """Seconds for ``games`` four-player random playouts through the interface, in one compiled loop."""
    import numba as nb

    from balancer.core.kernel import random_playout
    from balancer.games.citywright.kernel import ENGINE

    T = ENGINE.compile(_load(), 4)

    @nb.njit
    def run(K, T, new_state, out, rng, games):
        decisions = 0
        for _ in range(games):
            S = new_state(T, rng)
            decisions += random_playout(K, S, T, out, rng, 1 << 30)
        return decisions

    out = np.zeros(ENGINE.max_moves(T), np.int64)
    run(ENGINE.kernel, T, ENGINE.new_state, out, np.random.default_rng(0), 2)  # compile
    t0 = time.perf_counter()
    run(ENGINE.kernel, T, ENGINE.new_state, out, np.random.default_rng(seed), games)
    return time.perf_counter() - t0


def playout_rate(seconds: float) -> float:
    """Interface random playouts per second on one core, over about ``seconds``."""
    per_game = _playouts(500, 1) / 500
    games = max(500, int(seconds / per_game))
    return games / _playouts(games, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=15.0, help="measured seconds per case (default 15)")
    ap.add_argument(
        "--jobs",
        type=int,
        nargs="+",
        default=[1, min(2, os.cpu_count() or 1)],
        help="worker processes for the greedy and random tables, one line per value (default 1 2); the playouts"
        " always run on one core",
    )
    args = ap.parse_args()
    print(f"Citywright v1.1, 4 players, {os.cpu_count()} cores")
    for agent in ("greedy", "random"):
        for jobs in sorted(set(args.jobs)):
            rate = _rate(agent, jobs, args.seconds)
            per_core = rate / jobs
            verdict = "meets" if per_core >= TARGETS[agent] else "BELOW"
            print(
                f"  {agent:6s} x4  jobs={jobs}: {rate:9.1f} games/s  ({per_core:8.1f} per core; "
                f"target {TARGETS[agent]:.0f} per core: {verdict})",
                flush=True,
            )
    rate = playout_rate(args.seconds)
    print(
        f"  interface random playouts x4, jobs=1: {rate:9.1f} games/s (balancer.core.kernel.random_playout)", flush=True
    )


if __name__ == "__main__":
    main()
