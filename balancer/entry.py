"""The ``balancer`` console script: the command line, with an interrupt at any moment ending in one line
and exit 130 (issue 28). Ctrl-C or SIGTERM while the command line is still importing (numba, polars, the
games: a second or more) used to print a KeyboardInterrupt traceback or kill the process silently; from
the start, both end with ``interrupted; nothing was written``. A command that writes takes the signals
over while it runs (:func:`balancer.cli.errors.library_errors`: its own sentence, what was kept, how to
continue); outside that, a signal ends the process with ``interrupted``."""

from __future__ import annotations

import signal
import sys
from typing import Any

INTERRUPTED = 130


def _exit_on_signal(message: str) -> Any:
    def handler(signum: int, frame: Any) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):  # a second signal (Ctrl-C twice, or `timeout` passing
            signal.signal(sig, signal.SIG_IGN)  # the group's SIGINT on) must not interrupt the exit itself
        print(message, file=sys.stderr)
        raise SystemExit(INTERRUPTED)

    return handler


def main() -> None:
    """Import the command line and run it (``balancer = "balancer.entry:main"``)."""
    early = _exit_on_signal("interrupted; nothing was written")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, early)
    from balancer.cli import app

    later = _exit_on_signal("interrupted")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, later)
    try:
        app(prog_name="balancer")
    finally:  # the command has ended: a signal now must not kill the exiting interpreter (Python restores
        for sig in (signal.SIGINT, signal.SIGTERM):  # the default actions while it shuts down, but not SIG_IGN)
            signal.signal(sig, signal.SIG_IGN)
