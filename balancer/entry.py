"""The ``balancer`` console script: the command line, with an interrupt at any moment ending in one line
and exit 130 (issue 28). Ctrl-C or SIGTERM while the command line is still importing (numba, polars, the
games: a second or more) used to print a KeyboardInterrupt traceback or kill the process silently; from
the start, both end with ``interrupted; nothing was written``. A command that writes takes the signals
over while it runs (:func:`balancer.cli.errors.library_errors`: its own sentence, what was kept, how to
continue); outside that, a signal ends the process with ``interrupted``. A command that received a
signal ends with exit 130 whatever its code made of the exception (:data:`SIGNALLED`), with one line.

When the command has ended, the process ends as Python would end it (its other threads joined, the
``atexit`` functions run, the output flushed) but without tearing down the modules one by one: freeing
numba's and LLVM's objects, polars and pyarrow took about 0.3 CPU seconds of every command, a quarter
of a short run (issue 30)."""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import Any, NoReturn

from balancer.interrupts import SIGNALLED, note_signal  # light: imports nothing

INTERRUPTED = 130

_SAID: list[str] = []
"""The ``interrupted`` line this module printed, if it printed one."""

_STDERR: list[int] = []
"""A copy of file descriptor 2 taken at the start: the ``interrupted`` line reaches the terminal even
while a plugin's import has standard error sent to the null device (core/plugins.py)."""


def _say(message: str) -> None:
    """``message`` on the terminal's standard error, once."""
    if _SAID:
        return
    _SAID.append(message)
    try:
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        os.write(_STDERR[0] if _STDERR else 2, (message + "\n").encode(errors="replace"))
    except OSError:
        pass


def _exit_on_signal(message: str, *, at_once: bool = False) -> Any:
    """A handler that says ``message`` and ends the command. ``at_once``: while the command line is
    still importing, nothing is written and nothing needs closing, so the process ends there
    (``os._exit``): an exception raised there could land in a callback of the import machinery, where
    Python prints it as ignored and goes on importing (a fresh-clone CI run saw it)."""

    def handler(signum: int, frame: Any) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):  # a second signal (Ctrl-C twice, or `timeout` passing
            signal.signal(sig, signal.SIG_IGN)  # the group's SIGINT on) must not interrupt the exit itself
        note_signal(signum)
        _say(message)
        if at_once:
            os._exit(INTERRUPTED)
        raise SystemExit(INTERRUPTED)

    return handler


def _quiet_unraisable(previous: Any) -> Any:
    """``sys.unraisablehook`` that does not print the exception a signal handler raised where Python
    cannot raise (a ``__del__`` or a weakref callback): the signal is recorded and the command ends
    with exit 130 and its one line when it returns (:func:`main`); every other case goes to
    ``previous``."""

    def hook(unraisable: Any) -> None:
        exc = unraisable.exc_value
        ours = isinstance(exc, KeyboardInterrupt) or (isinstance(exc, SystemExit) and exc.code == INTERRUPTED)
        if ours and SIGNALLED:
            return
        previous(unraisable)

    return hook


def main() -> None:
    """Import the command line and run it (``balancer = "balancer.entry:main"``)."""
    try:
        _STDERR.append(os.dup(2))
    except OSError:  # no standard error: the line is not shown
        pass
    sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
    early = _exit_on_signal("interrupted; nothing was written", at_once=True)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, early)
    from balancer.cli import app

    later = _exit_on_signal("interrupted")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, later)
    try:
        app(prog_name="balancer")
    except SystemExit as exc:  # how the command line always ends (Typer's standalone mode)
        ending = exc
    except BaseException:  # an error that escaped the command: a traceback, unless a signal caused it
        if not SIGNALLED:
            raise
        ending = SystemExit(INTERRUPTED)
    else:
        ending = SystemExit(0)
    finally:  # the command has ended: a signal now must not kill the exiting interpreter (Python restores
        for sig in (signal.SIGINT, signal.SIGTERM):  # the default actions while it shuts down, but not SIG_IGN)
            signal.signal(sig, signal.SIG_IGN)
    if SIGNALLED and ending.code != INTERRUPTED:  # the signal's exception was caught, turned or swallowed
        _say("interrupted")
        ending = SystemExit(INTERRUPTED)
    end_process(ending)


def end_process(ending: SystemExit) -> NoReturn:
    """End the process with ``ending``'s exit status as the interpreter's own exit does it, up to the
    teardown of the modules, which is skipped: the threads that are not daemons are joined and what
    they registered to run at their end is run (``threading._shutdown``), then the ``atexit`` functions,
    then standard output and error are flushed (a failing flush gives status 120, as Python does), and
    the process exits (``os._exit``). An exit status that is not a number, or an interpreter without
    ``threading._shutdown``, ends the usual way (``ending`` raised)."""
    code = 0 if ending.code is None else ending.code
    shutdown = getattr(threading, "_shutdown", None)
    if not isinstance(code, int) or shutdown is None:
        raise ending
    shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code)
