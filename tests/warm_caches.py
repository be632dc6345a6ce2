"""Fill numba's on-disk cache for one game before the test workers start (tests/conftest.py runs it).

Under pytest-xdist every worker would otherwise compile the same engine, table loop and MCTS search
at the same moment (numba does not lock its cache), each paying a minute or more per game. Run once
per game here, in parallel processes, every compiled piece the suite uses is compiled once and the
workers load it. Compiles and plays a handful of games; asserts nothing (the tests do)::

    python tests/warm_caches.py GAME [GAME ...]      # BALANCER_WARM_TIMES=1: CPU seconds per step
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from balancer.config import load_config
from balancer.core.registry import get_spec

ROOT = Path(__file__).resolve().parent.parent


def warm(name: str) -> None:
    """Compile (or load) ``name``'s engine, its table of greedy seats, its MCTS search and its own
    agents, by playing a two-player game of each (every game of balancer's own has a ``greedy``
    agent and two-player tables)."""
    spec = get_spec(name)
    cfg = load_config(ROOT / "configs" / spec.default_config)
    clock = time.process_time()

    def lap(what: str) -> None:
        nonlocal clock
        if os.environ.get("BALANCER_WARM_TIMES"):
            print(f"{name}: {what} {time.process_time() - clock:.1f} CPU s", flush=True)
        clock = time.process_time()

    if spec.own_play_chunk is not None:
        spec.play_chunk(cfg, ["greedy", "greedy"], 1, 0, 1)  # the core table loop on the game's table
        lap("engine and the table of greedy seats")
    # the MCTS search (compiled_for's cached copy) and the game's own agents (its game_agent),
    # both called from the Python loop of mcts.play_table
    spec.play_game(cfg, ["mcts@2", "greedy"], 1)
    lap("the MCTS search and the game's own agents")


if __name__ == "__main__":
    if not sys.argv[1:] or {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
        sys.exit(0 if sys.argv[1:] else 2)
    for game in sys.argv[1:]:
        warm(game)
