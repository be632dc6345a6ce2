"""Urgency throughput on one core: greedy mirror games per second without cards and with the standard
decks (a deck dealt at random per game and seat, never the same at both), expectimax with cards,
the random mirror through ``play_game``, and whole games through the compiled interface (kernel.py):
uniform random playouts (``core.kernel.random_playout``) and playouts of the rollout policy
(``policy_playout``, greedy), setup included, in one compiled loop. Targets (issue #5): 5,000/s
without cards, 500/s with cards. Prints numbers; asserts nothing. On a shared machine the wall-clock
rate drops with the load; the rate per CPU second of this process does not (much).

    python benchmarks/bench_urgency.py [--seconds 5] [--only play|kernel]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numba as nb
import numpy as np

from balancer.config import load_config
from balancer.core.kernel import policy_playout, random_playout
from balancer.core.seeding import game_seed
from balancer.games import urgency

ROOT = Path(__file__).resolve().parent.parent


def rate(config: str, agents: list[str], seconds: float) -> tuple[float, float]:
    """(games per wall-clock second, games per CPU second of this process) of ``play_game``."""
    cfg = load_config(ROOT / "configs" / "urgency" / config)
    urgency.play_game(cfg, agents, game_seed(0, 0))  # compile (or load the numba cache)
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        for _ in range(200):
            urgency.play_game(cfg, agents, game_seed(1, n))
            n += 1
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


@nb.njit
def playouts(K, new_state, T, games, rng, use_policy):
    """``games`` whole games from setup through the kernel, chance and choices on ``rng``; returns
    the decisions played (compiled per process: it takes the kernel's functions as arguments)."""
    out = np.zeros(16, np.int64)
    decisions = 0
    for _ in range(games):
        S = new_state(T, rng)
        if use_policy:
            decisions += policy_playout(K, S, T, out, rng, 1_000_000)
        else:
            decisions += random_playout(K, S, T, out, rng, 1_000_000)
    return decisions


def kernel_rate(config: str, use_policy: bool, seconds: float) -> tuple[float, float, float]:
    """(games per wall-clock second, per CPU second, decisions per game) of kernel playouts."""
    cfg = load_config(ROOT / "configs" / "urgency" / config)
    engine = urgency.ENGINE
    T = engine.compile(cfg, 2)
    rng = np.random.default_rng(1)
    playouts(engine.kernel, engine.new_state, T, 2, rng, use_policy)  # compile
    n, d, t0, c0 = 0, 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        d += playouts(engine.kernel, engine.new_state, T, 500, rng, use_policy)
        n += 500
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0), d / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="measured seconds per case, after a warm-up (default 5)",
    )
    parser.add_argument(
        "--only",
        choices=("play", "kernel"),
        default=None,
        help="only play_game's tables (play) or only the kernel playouts (kernel); default both",
    )
    args = parser.parse_args()
    if args.only != "kernel":
        for config, agents, target in (
            ("no-cards.yaml", ["greedy", "greedy"], 5000),
            ("standard.yaml", ["greedy", "greedy"], 500),
            ("standard.yaml", ["expectimax", "expectimax"], None),
            ("standard.yaml", ["random", "random"], None),
        ):
            wall, cpu = rate(config, agents, args.seconds)
            goal = f" (target {target:,}/s)" if target else ""
            print(
                f"urgency {config:14s} {' vs '.join(agents):24s} {wall:9,.0f} games/s on one core{goal}; "
                f"{cpu:,.0f} per CPU second (the same when the core is not shared)"
            )
    if args.only != "play":
        for config, use_policy in (("standard.yaml", False), ("no-cards.yaml", False), ("standard.yaml", True)):
            wall, cpu, per_game = kernel_rate(config, use_policy, args.seconds)
            what = "policy (greedy) playouts" if use_policy else "random playouts"
            print(
                f"urgency {config:14s} {'kernel ' + what:24s} {wall:9,.0f} games/s on one core "
                f"({per_game:.0f} decisions a game, setup included); {cpu:,.0f} per CPU second"
            )


if __name__ == "__main__":
    main()
