"""Urban Sketchers throughput: games per second on one core, for tables of `greedy` and of `random`
at 2, 3 and 4 players, and playouts per second through the compiled interface. Prints numbers;
asserts nothing (docs/architecture.md: never timed tests).

    python benchmarks/bench_urban_sketchers.py [--games 40] [--repeat 5] [--players 4] [--agents greedy random]
        [--engine play_game|reference] [--playouts 200]

Each measurement plays the same ``--games`` seeds ``--repeat`` times and keeps the fastest pass,
timed in CPU seconds of this process (the machine is shared: wall-clock time and single passes are
noisy). The issue's target is 200 four-player greedy games per second on one core. ``--engine
play_game`` (the default) measures what the runner uses (the compiled engine for these agents);
``reference`` the readable reference engine of the tests (``play_game_reference`` of
``tests/games/urban_sketchers/us_reference``, which no run imports), which plays the same games.

Then, for the same player counts, whole games from Set Up played through the compiled interface
(``kernel.py``): ``random`` by ``core.kernel.random_playout`` (uniform decisions, as the random
agent), ``policy`` by ``core.kernel.policy_playout`` (the interface's rollout policy), ``--playouts``
seeds per pass, best of ``--repeat`` passes (``--playouts 0`` skips them).
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
    import balancer.games.urban_sketchers as us
    from balancer.config import load_config

    cfg = load_config(CONFIG)
    if engine == "play_game":
        play = us.play_game
    else:
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "games" / "urban_sketchers"))
        from us_reference import play_game_reference as play
    play(cfg, [agent] * players, 0)  # warm-up: compile (or load) the engine once
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for i in range(games):
            play(cfg, [agent] * players, np.random.SeedSequence(12345, spawn_key=(i,)))
        best = min(best, time.process_time() - t0)
    return games / best


def playout_rate(kind: str, players: int, playouts: int, repeat: int) -> float:
    """Games from Set Up per CPU second through the compiled interface: ``kernel.new_state``, then
    ``random_playout`` (``kind == "random"``) or ``policy_playout``, the fastest of ``repeat`` passes."""
    from balancer.config import load_config
    from balancer.core.kernel import policy_playout, random_playout
    from balancer.games.urban_sketchers import ENGINE

    cfg = load_config(CONFIG)
    T = ENGINE.compile(cfg, players)
    K = ENGINE.kernel
    out = np.zeros(ENGINE.max_moves(T), np.int64)
    play = random_playout if kind == "random" else policy_playout

    def game(i: int) -> None:
        rng = np.random.default_rng(np.random.SeedSequence(12345, spawn_key=(i,)))
        play(K, ENGINE.new_state(T, rng), T, out, rng, 10**7)

    game(0)  # warm-up: compile the generic playout once
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for i in range(playouts):
            game(i)
        best = min(best, time.process_time() - t0)
    return playouts / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="games (fixed seeds) per pass (default 40)")
    ap.add_argument("--repeat", type=int, default=5, help="passes; the fastest counts (default 5)")
    ap.add_argument(
        "--players", type=int, nargs="+", default=[4], help="player counts (2, 3 or 4), one line each (default 4)"
    )
    ap.add_argument(
        "--agents",
        nargs="+",
        default=["greedy", "random"],
        help="the agent of every seat, one line each (default greedy random)",
    )
    ap.add_argument(
        "--engine",
        choices=["play_game", "reference"],
        default="play_game",
        help="play_game: the runner's compiled engine (default); reference: the tests' readable engine",
    )
    ap.add_argument("--playouts", type=int, default=200, help="interface playouts per pass (0: none; default 200)")
    args = ap.parse_args()
    for agent in args.agents:
        for n in args.players:
            r = rate(agent, n, args.games, args.repeat, args.engine)
            note = f" (target {TARGET_GREEDY_4P:.0f})" if agent == "greedy" and n == 4 else ""
            engine = "" if args.engine == "play_game" else " (reference engine)"
            print(
                f"urban_sketchers {agent:>7} {n}p{engine}, one core: {r:8.1f} games/s "
                f"(CPU time, best of {args.repeat} x {args.games} games){note}"
            )
    for kind in ("random", "policy") if args.playouts > 0 else ():
        for n in args.players:
            r = playout_rate(kind, n, args.playouts, args.repeat)
            print(
                f"urban_sketchers {kind:>7} {n}p through the interface ({kind}_playout from Set Up), one core: "
                f"{r:8.1f} games/s (CPU time, best of {args.repeat} x {args.playouts} games)"
            )


if __name__ == "__main__":
    main()
