"""Statistics over results tables: win rates with Wilson intervals, seat tests, metric means.

Pure functions over a polars LazyFrame (or DataFrame); reading and writing a results directory's
files is :mod:`balancer.results`."""

from balancer.stats.aggregate import (
    mean_interval,
    seat_uniformity_p,
    summarize,
    summary_of,
    wilson_interval,
)
from balancer.stats.association import indicator_win_rates
from balancer.stats.summary import Summary

__all__ = [
    "Summary",
    "indicator_win_rates",
    "mean_interval",
    "seat_uniformity_p",
    "summarize",
    "summary_of",
    "wilson_interval",
]
