"""Running many games: :func:`run_games` (chunks in memory) and :func:`run_to_dir` (Parquet + run.json)."""

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
