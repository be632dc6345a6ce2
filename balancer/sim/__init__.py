"""Running many games: :func:`run_games` (chunks in memory) and :func:`run_to_dir` (Parquet + run.json).

The names below are loaded on first use (PEP 562), so that importing one submodule (the errors of
:mod:`.errors`, which every command's error mapping names) does not import the runner, joblib and pyarrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from balancer.core.lazy import lazy_exports

if TYPE_CHECKING:
    from balancer.sim.runner import (
        ResultsExistError,
        check_run,
        parse_agents,
        play_chunk,
        run_games,
        run_to_dir,
        seat_win_rates,
    )

__all__ = [
    "ResultsExistError",
    "check_run",
    "parse_agents",
    "play_chunk",
    "run_games",
    "run_to_dir",
    "seat_win_rates",
]
_WHERE = dict.fromkeys(__all__, ".runner")
__getattr__ = lazy_exports(__name__, _WHERE, globals())
