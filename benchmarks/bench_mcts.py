"""MCTS throughput (balancer/agents/mcts.py): per game, the compile time of the search for its kernel,
iterations per second of one search, and seconds per game of an all-`mcts` table. Prints numbers;
asserts nothing (docs/architecture.md: never timed tests).

Games: the stand-in kernels of the MCTS tests (tests/agents/mcts_standins.py), then every registered
game whose GameSpec has a compiled interface (``engine``), at 2 players and at 4 (or its largest
count), from its default config with its ``agents.mcts`` parameters where the config has them.

    python benchmarks/bench_mcts.py [--seconds 3] [--budget N] [--game-budget N] [--standins-only] [--only GAME]

A registered game's searches and all-mcts games use its YAML's ``agents.mcts`` (its default budget,
rollout and depth) unless ``--budget`` / ``--game-budget`` say otherwise.

Compile time is measured once per process, on the first search of each kernel, after the kernel's
own functions have been compiled (or loaded from numba's cache) by a random playout: the search
compiled once per machine (``mcts.compiled_for``, cached by numba), or loaded from that cache: the
price every later process pays. The line says which. Rates are per wall-clock second
and per CPU second of this process (the two agree on an idle core).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "agents"))

from balancer.agents.mcts import (  # noqa: E402
    I_ITERATIONS,
    I_ROLLOUT_DECISIONS,
    compiled_for,
    play_kernel_game,
    table_plan,
    workspace_for,
)
from balancer.agents.params import MCTSParams  # noqa: E402
from balancer.core.kernel import Engine, random_playout  # noqa: E402


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def warm_kernel(engine: Engine, T: Any, S: np.ndarray, rng: np.random.Generator) -> None:
    """Call each of the kernel's nine functions once (compiling them or loading numba's cache), so
    that the first search's time is the search's own compile time."""
    K = engine.kernel
    n = engine.n_players(T)
    out = np.zeros(max(1, engine.max_moves(T)), np.int64)
    values = np.zeros(n, np.float64)
    D = S.copy()
    K.to_move(D, T)
    K.determinize(D, T, K.to_move(D, T), rng)
    K.heuristic(D, T, values)
    K.scores(D, T, np.zeros(n, np.int64))
    K.policy(D, T, out, rng)
    random_playout(K, D, T, out, rng, 10**9)  # legal, apply, is_over
    K.returns(D, T, values)


def bench_case(
    label: str,
    engine: Engine,
    T: Any,
    make_state: Callable[[np.random.Generator], np.ndarray],
    params: MCTSParams,
    seconds: float,
    game_budget: int | None,
) -> None:
    """Print one line: compile seconds, iterations/s of searches from states ``make_state(rng)``
    (a fresh one per search), rollout decisions per iteration, and seconds per all-mcts game at
    ``game_budget`` iterations per decision (skipped when None)."""
    search = compiled_for(engine.kernel).search
    rng = np.random.default_rng(0)
    S = make_state(rng)
    warm_kernel(engine, T, S, rng)
    ws = workspace_for(engine, T, S, params.iterations)
    row = params.to_array()
    (w0, c0) = _clock()
    search(S, T, row, rng, ws)  # compiles the search for the kernel, or loads it from numba's cache
    (w1, c1) = _clock()
    how = "loaded" if search.stats.cache_hits else "compile"
    compile_wall, compile_cpu = w1 - w0, c1 - c0
    iterations = rolled = 0
    (w0, c0) = _clock()
    while time.perf_counter() - w0 < seconds:
        S = make_state(rng)
        search(S, T, row, rng, ws)
        iterations += int(ws.info[I_ITERATIONS])
        rolled += int(ws.info[I_ROLLOUT_DECISIONS])
    (w1, c1) = _clock()
    line = (
        f"{label:34s} {how} {compile_wall:5.1f} s ({compile_cpu:4.1f} CPU s)  "
        f"{iterations / (w1 - w0):11,.0f} it/s ({iterations / max(c1 - c0, 1e-9):11,.0f} per CPU s)  "
        f"{rolled / max(iterations, 1):5.1f} rollout decisions/it"
    )
    if game_budget is not None:
        n = engine.n_players(T)
        plan = table_plan([f"mcts@{game_budget}"] * n, params)
        (w0, c0) = _clock()
        play_kernel_game(engine, T, plan, 0)  # compiles the table loop for K
        first_cpu = time.process_time() - c0
        games = 0
        (w0, c0) = _clock()
        while games < 3 or time.perf_counter() - w0 < seconds:
            play_kernel_game(engine, T, plan, games + 1)
            games += 1
        (w1, c1) = _clock()
        line += (
            f"\n{'':34s} {(w1 - w0) / games:7.3f} s/game of mcts@{game_budget} x{n} "
            f"({(c1 - c0) / games:.3f} CPU s; the first, compiling or loading the table loop: {first_cpu:.1f} CPU s)"
        )
    print(line, flush=True)


def standins(seconds: float, budget: int, game_budget: int) -> None:
    import mcts_standins as sd

    p = MCTSParams(iterations=budget, rollout="random")
    nim = sd.nim_engine()
    T = nim.compile(sd.NimConfig(3, 21), 2)
    bench_case("stand-in nim 21, 2p", nim, T, lambda rng: sd.nim_state(21), p, seconds, game_budget)
    T = nim.compile(sd.NimConfig(5, 200), 4)
    bench_case("stand-in nim 200 (take 1-5), 4p", nim, T, lambda rng: sd.nim_state(200), p, seconds, game_budget)
    cards = sd.cards_engine()
    T = cards.compile(10, 4)
    bench_case("stand-in show-or-swap, 4p", cards, T, lambda rng: cards.new_state(T, rng), p, seconds, game_budget)
    wide = sd.wide_engine()
    T = wide.compile((2000, 1234, 42, 1_000_003, -77), 1)
    bench_case(
        "stand-in wide (2,000 moves), solo", wide, T, lambda rng: np.array([0, -1, -1], np.int64), p, seconds, None
    )
    bench_case(
        "  same, widening 1, exponent 0.5",
        wide,
        T,
        lambda rng: np.array([0, -1, -1], np.int64),
        p.model_copy(update={"widening": 1.0}),
        seconds,
        None,
    )


def registered(seconds: float, budget: int | None, game_budget: int | None, only: str | None = None) -> None:
    from balancer.config import load_config
    from balancer.core.registry import all_specs

    for spec in all_specs():
        if only is not None and only.lower() not in spec.name.lower():
            continue
        if spec.engine is None:
            print(f"{spec.name:34s} no compiled interface yet: skipped")
            continue
        cfg = load_config(ROOT / "configs" / spec.default_config)
        agents = getattr(cfg, "agents", None)
        params = getattr(agents, "mcts", None) or MCTSParams()
        per_game = game_budget if game_budget is not None else params.iterations  # the default budget
        params = params.model_copy(update={"iterations": budget if budget is not None else params.iterations})
        counts = list(cfg.player_counts)
        for n in sorted({c for c in (2, 4 if 4 in counts else max(counts)) if c in counts}):
            engine = spec.engine
            T = engine.compile(cfg, n)
            bench_case(
                f"{spec.name}, {n}p",
                engine,
                T,
                lambda rng, e=engine, T=T: e.new_state(T, rng),
                params,
                seconds,
                per_game,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="measured seconds per case (default 3)")
    ap.add_argument(
        "--budget",
        type=int,
        default=None,
        help="iterations per search for the it/s figure (default: the game's agents.mcts; stand-ins 1000)",
    )
    ap.add_argument(
        "--game-budget",
        type=int,
        default=None,
        help="iterations per decision of the all-mcts games (default: the game's agents.mcts, its default"
        " budget; stand-ins 200)",
    )
    ap.add_argument("--standins-only", action="store_true", help="skip the registered games")
    ap.add_argument(
        "--only", default=None, help="only the registered games whose name contains this text (default every game)"
    )
    args = ap.parse_args()
    standins(args.seconds, args.budget or 1000, args.game_budget or 200)
    if not args.standins_only:
        registered(args.seconds, args.budget, args.game_budget, args.only)


if __name__ == "__main__":
    main()
