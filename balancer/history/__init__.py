"""Balance over commits: every ``balancer check`` (and ``balancer baseline save``) appends its numbers
to a history file (:mod:`.store`: DuckDB), with the commit it ran at (:mod:`.record`); ``balancer
history`` reads it back (:mod:`.query`) and draws every number across commits
(:mod:`balancer.report.history`) with the moves and the drift of :mod:`balancer.stats.drift`.

The library call that reads a history is :func:`balancer.read_history` (:func:`balancer.api.read_history`):
a polars DataFrame with one row per tracked number per event.
"""

from .store import HistoryError

__all__ = ["HistoryError"]
