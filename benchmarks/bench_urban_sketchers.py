"""Urban Sketchers throughput: games per second on one core, for tables of `greedy` and of `random`
at 2, 3 and 4 players. Prints numbers; asserts nothing (DESIGN.md: never timed tests).

    python benchmarks/bench_urban_sketchers.py [--seconds 20] [--players 4] [--agents greedy random]

The issue's target is 200 four-player greedy games per second on one core.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "urban_sketchers" / "base.yaml"
TARGET_GREEDY_4P = 200.0


def rate(agent: str, players: int, seconds: float) -> tuple[float, int]:
    """(games per second, games played) over about ``seconds`` of one process."""
    from balancer.config import load_config
    import balancer.games.urban_sketchers as us
    cfg = load_config(CONFIG)
    us.play_game(cfg, [agent] * players, 0)            # warm-up: compile the rules once
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        us.play_game(cfg, [agent] * players, np.random.SeedSequence(12345, spawn_key=(done,)))
        done += 1
    return done / (time.perf_counter() - t0), done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds per measurement")
    ap.add_argument("--players", type=int, nargs="+", default=[4])
    ap.add_argument("--agents", nargs="+", default=["greedy", "random"])
    args = ap.parse_args()
    for agent in args.agents:
        for n in args.players:
            r, games = rate(agent, n, args.seconds)
            note = f" (target {TARGET_GREEDY_4P:.0f})" if agent == "greedy" and n == 4 else ""
            print(f"urban_sketchers {agent:>7} {n}p, one core: {r:8.1f} games/s over {games} games{note}")


if __name__ == "__main__":
    main()
