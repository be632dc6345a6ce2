"""The signals the process received (SIGINT, SIGTERM), whichever handler took them.

A command that received one ends with exit 130 however its code reacted to the exception the handler
raised (issue 52: SIGTERM inside matplotlib's import became a SystemError traceback and exit 1, or was
swallowed and the page written with exit 0; DuckDB turned a Ctrl-C into "RuntimeError: Query
interrupted"). The console entry (:mod:`balancer.entry`) reads :data:`SIGNALLED` when the command ends;
every handler the command line installs calls :func:`note_signal`. A module of its own on the base
floor, importing nothing, so that the entry (before the command line is imported) and the command line
(through :mod:`balancer.api`) share one record without an import circle.
"""

from __future__ import annotations

SIGNALLED: list[int] = []
"""The signals received while the command ran, in order (:func:`note_signal`)."""


def note_signal(signum: int) -> None:
    """Record that ``signum`` was received (a signal handler calls it; see :data:`SIGNALLED`)."""
    SIGNALLED.append(signum)
