"""Águeda throughput: four-player games per second of greedy, random and lookahead tables (the
runner's ``play_game``), and of random and policy playouts through the compiled interface
(``core.kernel.random_playout`` / ``policy_playout`` over ``kernel.KERNEL``), on one core and on two
worker processes. Prints numbers; asserts nothing (docs/architecture.md: never timed tests).

    python benchmarks/bench_agueda.py [--seconds 15] [--players 4] [--jobs 1 2] [--cases greedy playout ...]

Issue #7's target: greedy, 4 players, 1,000 games/s or more on one core. Issue #13's: random
playouts through the interface within 2x of the compiled random agent before it (about 2,000
four-player games/s). Seeds follow the runner (game i of run seed 12345), so the runner's games are
the ones `balancer run --seed 12345` would play; a playout case plays its games in one compiled loop
(new_state + playout) from one generator, as a search would.
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
CASES = ("greedy", "random", "playout", "policy", "lookahead")
"""greedy, random, lookahead: mirror tables through play_game; playout / policy: random_playout /
policy_playout through the interface."""


def _runner_games(agent: str, players: int, start: int, seconds: float) -> tuple[int, float]:
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


def _playout_games(case: str, players: int, start: int, seconds: float) -> tuple[int, float]:
    """Whole games (new_state, then the playout to the end) through the interface, 50 per compiled
    call, for about ``seconds``; returns (games, elapsed seconds)."""
    import numba as nb
    import numpy as np

    from balancer.config import load_config
    from balancer.core.kernel import policy_playout, random_playout
    from balancer.games.agueda.kernel import ENGINE

    playout = random_playout if case == "playout" else policy_playout

    @nb.njit
    def games(K, T, new_state, out, rng, n):
        decisions = 0
        for _ in range(n):
            decisions += playout(K, new_state(T, rng), T, out, rng, 1_000_000)
        return decisions

    T = ENGINE.compile(load_config(CONFIG), players)
    out = np.zeros(ENGINE.max_moves(T), np.int64)
    rng = np.random.default_rng(start + 1)
    games(ENGINE.kernel, T, ENGINE.new_state, out, rng, 1)
    done, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        games(ENGINE.kernel, T, ENGINE.new_state, out, rng, 50)
        done += 50
    return done, elapsed


def _games(case: str, players: int, start: int, seconds: float) -> tuple[int, float]:
    if case in ("playout", "policy"):
        return _playout_games(case, players, start, seconds)
    return _runner_games(case, players, start, seconds)


def rate(case: str, players: int, jobs: int, seconds: float) -> float:
    """Games per second over ``jobs`` worker processes (loky), each playing for ``seconds``."""
    if jobs == 1:
        done, elapsed = _games(case, players, 0, seconds)
        return done / elapsed
    out = Parallel(n_jobs=jobs, backend="loky")(delayed(_games)(case, players, j * 10**7, seconds) for j in range(jobs))
    return sum(d for d, _ in out) / max(e for _, e in out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=15.0, help="measured seconds per case (default 15)")
    ap.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    ap.add_argument(
        "--jobs",
        type=int,
        nargs="+",
        default=[1, min(2, os.cpu_count() or 1)],
        help="worker processes, one line per value (default 1 2; 1 plays in this process)",
    )
    ap.add_argument(
        "--cases",
        nargs="+",
        choices=CASES,
        default=list(CASES),
        metavar="CASE",
        help=f"what to measure, among {', '.join(CASES)} (default all; lookahead for a third of --seconds)",
    )
    args = ap.parse_args()
    print(f"Águeda v1, {args.players} players, {os.cpu_count()} cores")
    labels = {
        "greedy": "greedy",
        "random": "random",
        "lookahead": "lookahead",
        "playout": "random playouts (interface)",
        "policy": "policy playouts (interface)",
    }
    for case in args.cases:
        seconds = args.seconds / 3 if case == "lookahead" else args.seconds
        for jobs in sorted(set(args.jobs)):
            r = rate(case, args.players, jobs, seconds)
            note = ""
            if case == "greedy":
                note = f"; target {TARGET_GREEDY:.0f} per core: {'meets' if r / jobs >= TARGET_GREEDY else 'BELOW'}"
            print(f"  {labels[case]:28s} jobs={jobs}: {r:9.1f} games/s  ({r / jobs:8.1f} per core{note})", flush=True)


if __name__ == "__main__":
    main()
