"""Balance over commits: every ``balancer check`` (and ``balancer baseline save``) appends its numbers
to a history file (:mod:`.store`: DuckDB), with the commit it ran at (:mod:`.record`); ``balancer
history`` reads it back (:mod:`.query`) and draws every number across commits
(:mod:`balancer.report.history`) with the moves and the drift of :mod:`balancer.stats.drift`.

Called, the package reads a history: ``balancer.history(path)`` is :func:`balancer.api.history`
(:mod:`balancer._callable`), a polars DataFrame with one row per tracked number per event.
"""

from balancer._callable import make_callable

from .store import HistoryError

__all__ = ["HistoryError"]

make_callable(__name__)
