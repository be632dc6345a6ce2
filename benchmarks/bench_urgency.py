"""Urgency throughput: greedy mirror games per second on one core, without cards and with the
standard decks (a deck drawn at random per game and seat). Targets (issue #5): 5,000/s without
cards, 500/s with cards. Prints numbers; asserts nothing. On a shared machine the wall-clock rate
drops with the load; the rate per CPU second of this process does not (much).

    python benchmarks/bench_urgency.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from balancer.config import load_config
from balancer.core.seeding import game_seed
from balancer.games import urgency

ROOT = Path(__file__).resolve().parent.parent


def rate(config: str, agents: list[str], seconds: float) -> tuple[float, float]:
    """(games per wall-clock second, games per CPU second of this process) of ``play_game``."""
    cfg = load_config(ROOT / "configs" / "urgency" / config)
    urgency.play_game(cfg, agents, game_seed(0, 0))          # compile (or load the numba cache)
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        for _ in range(200):
            urgency.play_game(cfg, agents, game_seed(1, n))
            n += 1
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    for config, agents, target in (("no-cards.yaml", ["greedy", "greedy"], 5000),
                                   ("standard.yaml", ["greedy", "greedy"], 500),
                                   ("standard.yaml", ["expectimax", "expectimax"], None)):
        wall, cpu = rate(config, agents, args.seconds)
        goal = f" (target {target:,}/s)" if target else ""
        print(f"urgency {config:14s} {' vs '.join(agents):24s} {wall:9,.0f} games/s on one core{goal}; "
              f"{cpu:,.0f} per CPU second (the same when the core is not shared)")


if __name__ == "__main__":
    main()
