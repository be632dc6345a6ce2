"""The one mapping of the library's errors to the command line's exit codes and messages.

A command that plays games wraps its call of the library in :func:`library_errors`:

* bad input (:data:`INPUT_ERRORS`: a YAML, study, baseline or request error, a results directory that
  exists or is locked by another run, a path that is not a directory): its own message, which names
  the file and key, on stderr; exit 2 (``BAD_INPUT``);
* games that raised: each listed with the command that replays it (GamesFailedError), or the
  check's game error (CheckGameError); exit 1;
* Ctrl-C or SIGTERM: the command's ``interrupted`` sentence (what was kept, how to continue); exit 130;
* any other OSError while writing: ``cannot_write`` and the system's reason; exit 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from balancer.check.baseline import BaselineError
from balancer.config import ConfigError
from balancer.sim.runner import GamesFailedError, ResultsExistError
from balancer.study import StudyError

from .app import _fail, _report_failures

INPUT_ERRORS: tuple[type[BaseException], ...] = (
    ConfigError,
    StudyError,
    BaselineError,
    ValueError,  # RunRequestError, SweepError, ResultsFileError, ...: each names its file or flag
    ResultsExistError,  # RunLockedError too: the message names the other run's process
    NotADirectoryError,  # OutDirError: an output path under a file
)
"""Library errors that are bad input: the message is the error's own."""

INTERRUPTED = 130
GAMES_FAILED = 1


@contextmanager
def library_errors(*, interrupted: str, cannot_write: str | None = None) -> Iterator[None]:
    """Map the library's errors raised in the ``with`` block to exit codes and messages (see the
    module docstring). ``interrupted``: the sentence printed on Ctrl-C; ``cannot_write``: the prefix of
    the message for another OSError (``"--out results/x"``), or None to let it propagate."""
    from balancer.check.run import CheckGameError

    try:
        yield
    except GamesFailedError as exc:
        _report_failures(exc)
        raise typer.Exit(GAMES_FAILED) from None
    except CheckGameError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(GAMES_FAILED) from None
    except INPUT_ERRORS as exc:
        _fail(str(exc))
    except OSError as exc:
        if cannot_write is None:
            raise
        _fail(f"{cannot_write}: cannot write ({exc.strerror or exc})")
    except KeyboardInterrupt:
        typer.echo(interrupted, err=True)
        raise typer.Exit(INTERRUPTED) from None
