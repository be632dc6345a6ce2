"""Statistics over results tables: win rates with Wilson intervals, seat tests, metric means."""

from balancer.stats.aggregate import (
    ResultsFileError,
    mean_interval,
    read_json_object,
    read_run_meta,
    scan_results,
    seat_uniformity_p,
    summarize,
    summarize_dir,
    wilson_interval,
    write_summary,
)
from balancer.stats.association import indicator_win_rates

__all__ = [
    "ResultsFileError",
    "indicator_win_rates",
    "mean_interval",
    "read_json_object",
    "read_run_meta",
    "scan_results",
    "seat_uniformity_p",
    "summarize",
    "summarize_dir",
    "wilson_interval",
    "write_summary",
]
