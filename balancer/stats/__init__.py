"""Statistics over results tables: win rates with Wilson intervals, seat tests, metric means."""

from balancer.stats.aggregate import (
    mean_interval,
    read_run_meta,
    scan_results,
    seat_uniformity_p,
    summarize,
    wilson_interval,
    write_summary,
)

__all__ = [
    "mean_interval",
    "read_run_meta",
    "scan_results",
    "seat_uniformity_p",
    "summarize",
    "wilson_interval",
    "write_summary",
]
