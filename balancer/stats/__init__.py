"""Statistics over results tables: win rates with Wilson intervals, seat tests, metric means.

Pure functions over a polars LazyFrame (or DataFrame); reading and writing a results directory's
files is :mod:`balancer.sim.results`.

The names below are loaded on first use (PEP 562), so that importing one submodule (the check's
tracked numbers need :mod:`.tracked`) does not import scipy.stats with :mod:`.association`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from balancer.core.lazy import lazy_exports

if TYPE_CHECKING:
    from balancer.stats.aggregate import seat_uniformity_p, summarize, summary_of
    from balancer.stats.association import indicator_win_rates
    from balancer.stats.frames import mean_interval, wilson_interval
    from balancer.stats.summary import Summary

_WHERE = {
    "Summary": ".summary",
    "indicator_win_rates": ".association",
    "mean_interval": ".frames",
    "seat_uniformity_p": ".aggregate",
    "summarize": ".aggregate",
    "summary_of": ".aggregate",
    "wilson_interval": ".frames",
}

__all__ = [
    "Summary",
    "indicator_win_rates",
    "mean_interval",
    "seat_uniformity_p",
    "summarize",
    "summary_of",
    "wilson_interval",
]

__getattr__ = lazy_exports(__name__, _WHERE, globals())
