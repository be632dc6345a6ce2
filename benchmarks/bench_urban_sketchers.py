"""Urban Sketchers throughput: games per second on one core, for tables of `greedy` and of `random`
at 2, 3 and 4 players. Prints numbers; asserts nothing (DESIGN.md: never timed tests).

    python benchmarks/bench_urban_sketchers.py [--games 40] [--repeat 5] [--players 4] [--agents greedy random]
        [--engine play_game|reference]

Each measurement plays the same ``--games`` seeds ``--repeat`` times and keeps the fastest pass,
timed in CPU seconds of this process (the machine is shared: wall-clock time and single passes are
noisy). The issue's target is 200 four-player greedy games per second on one core. ``--engine
play_game`` (the default) measures what the runner uses (the compiled engine for these agents);
``reference`` the readable engine (``play_game_reference``), which plays the same games.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "urban_sketchers" / "base.yaml"
TARGET_GREEDY_4P = 200.0


def rate(agent: str, players: int, games: int, repeat: int, engine: str = "play_game") -> float:
    """Games per CPU second: the fastest of ``repeat`` passes over the same ``games`` seeds."""
    from balancer.config import load_config
    import balancer.games.urban_sketchers as us
    cfg = load_config(CONFIG)
    play = us.play_game if engine == "play_game" else us.play_game_reference
    play(cfg, [agent] * players, 0)                    # warm-up: compile (or load) the engine once
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for i in range(games):
            play(cfg, [agent] * players, np.random.SeedSequence(12345, spawn_key=(i,)))
        best = min(best, time.process_time() - t0)
    return games / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="games (fixed seeds) per pass")
    ap.add_argument("--repeat", type=int, default=5, help="passes; the fastest counts")
    ap.add_argument("--players", type=int, nargs="+", default=[4])
    ap.add_argument("--agents", nargs="+", default=["greedy", "random"])
    ap.add_argument("--engine", choices=["play_game", "reference"], default="play_game")
    args = ap.parse_args()
    for agent in args.agents:
        for n in args.players:
            r = rate(agent, n, args.games, args.repeat, args.engine)
            note = f" (target {TARGET_GREEDY_4P:.0f})" if agent == "greedy" and n == 4 else ""
            engine = "" if args.engine == "play_game" else " (reference engine)"
            print(f"urban_sketchers {agent:>7} {n}p{engine}, one core: {r:8.1f} games/s "
                  f"(CPU time, best of {args.repeat} x {args.games} games){note}")


if __name__ == "__main__":
    main()
