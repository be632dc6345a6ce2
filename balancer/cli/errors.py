"""The one mapping of the library's errors to the command line's exit codes and messages.

A command wraps its call of the library in :func:`library_errors`:

* bad input (:data:`INPUT_ERRORS`: a YAML, study, baseline or request error, a results directory that
  exists or is locked by another run, a path that is not a directory): its own message, which names
  the file and key, on stderr; exit 2 (``BAD_INPUT``). A request error names a field of the request
  (``chunk_size``), shown as its option (:data:`FLAGS`: ``--chunk-size``); another ValueError of the
  game is prefixed with the file it is ``about``; an output directory's error with ``out``;
* games that raised: each listed with the command that replays it (GamesFailedError), or the
  check's game error (CheckGameError); exit 1;
* Ctrl-C or SIGTERM: the command's ``interrupted`` sentence (what was kept, how to continue); exit 130;
* any other OSError (a full disk, a file the system refuses): ``cannot_write`` and the system's reason,
  or without it the file the error names and the reason (:func:`os_error_message`); exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click
import typer

from balancer.api import errors as library
from balancer.api import terminal_text as terminal_text  # balancer/text.py: the one helper (issue 52, item 7)

BAD_INPUT = 2
INTERRUPTED = 130
GAMES_FAILED = 1

INPUT_ERRORS: tuple[type[BaseException], ...] = (
    library.ConfigError,
    library.StudyError,
    library.BaselineError,
    ValueError,  # RunRequestError, SweepError, ResultsFileError, ...: each names its file or field
    library.ResultsExistError,  # RunLockedError too: the message names the other run's process
    NotADirectoryError,  # OutDirError: an output path under a file
)
"""Library errors that are bad input: the message is the error's own."""

OWN_FILE_ERRORS: tuple[type[BaseException], ...] = (
    library.ConfigError,
    library.StudyError,
    library.BaselineError,
    library.RunRequestError,
)
"""Bad input whose message names its file or field itself (never prefixed with ``about``)."""

FLAGS: dict[str, str] = {
    "agents": "--agents",
    "players": "--players",
    "games": "--games",
    "seed": "--seed",
    "jobs": "--jobs",
    "chunk_size": "--chunk-size",
    "scheduler": "--scheduler",
    "resume": "--resume",
    "until_ci": "--until-ci",
    "max_games": "--max-games",
}
"""The option of each request field (:class:`~balancer.errors.RunRequestError.field`); a field
not listed is shown by Typer's rule (``some_field`` -> ``--some-field``)."""

MAX_PRINTED_FAILURES = 20


def shown_path(path: object) -> str:
    """A path (or a line naming one) for the terminal: :func:`terminal_text` with a newline escaped too,
    so that an output named ``x\nFAKE: OK`` cannot print a line of its own (review of issue 28)."""
    return terminal_text(str(path).replace("\n", "\\n"))


def say(line: object, err: bool = False) -> None:
    """Print a line that may hold names from files (a study's title, a variant's or a run's name, a
    library's log line) with its control characters escaped (:func:`terminal_text`, balancer/text.py:
    the one helper every command uses; issue 52, item 7)."""
    typer.echo(terminal_text(str(line)), err=err)


def say_err(line: object) -> None:
    """:func:`say` on stderr: the ``log`` callback a command hands the library."""
    say(line, err=True)


def message_lines(exc: BaseException) -> str:
    """An error's text for the terminal: an error that keeps its lines (ConfigError ``lines``) has a
    newline inside one line escaped too, so that a name with a newline cannot add a line; every other
    control character is escaped (:func:`terminal_text`)."""
    lines = getattr(exc, "lines", None)
    if isinstance(lines, list) and all(isinstance(x, str) for x in lines):
        return "\n".join(terminal_text(x.replace("\n", "\\n")) for x in lines)
    return terminal_text(str(exc))


def _fail(message: str, keep_lines: bool = False) -> NoReturn:
    """Print ``message`` on stderr (control characters escaped: :func:`terminal_text`; a newline too,
    unless ``keep_lines``: a message of several problems, each line already escaped by
    :func:`message_lines`) and exit with code 2 (bad input)."""
    typer.echo(f"error: {terminal_text(message) if keep_lines else shown_path(message)}", err=True)
    raise typer.Exit(BAD_INPUT)


def _report_failures(exc: Any) -> None:
    """Print the failing games of a GamesFailedError on stderr: index, seed, error, replay command."""
    typer.echo(
        f"error: {exc.count:,} of {exc.games:,} games failed (all listed in {exc.out_dir / 'run.json'}):", err=True
    )
    for f in exc.failures[:MAX_PRINTED_FAILURES]:
        typer.echo(terminal_text(f"  game {f['game_index']} (seed {f['seed']}): {f['error']}"), err=True)
        typer.echo(terminal_text(f"    replay: {f['replay']}"), err=True)
    if exc.count > MAX_PRINTED_FAILURES:
        typer.echo(f"  ... and {exc.count - MAX_PRINTED_FAILURES:,} more", err=True)


def flag_of(field: str) -> str:
    """The command line's option for a request field (:data:`FLAGS`)."""
    return FLAGS.get(field, library.option_name(field))


def input_message(exc: BaseException, *, about: str | None = None, out: str = "") -> str:
    """The message of a bad-input error (:data:`INPUT_ERRORS`): a request error with its field as its
    option; an output directory's error after ``out`` (``"--out "``); a ValueError that does not name
    its own file after ``about`` (``"v.yaml: ..."``), when given; else the error's own text."""
    if isinstance(exc, library.RunRequestError):
        return shown_path(exc.message(flag_of(exc.field)))
    if isinstance(exc, library.ResultsExistError | NotADirectoryError):  # one line: a path's newline escaped
        return shown_path(f"{out}{exc.cli_message() if isinstance(exc, library.Spelled) else exc}")
    if isinstance(exc, library.Spelled):  # the library's words (force=True) as the command line's (--force)
        return shown_path(exc.cli_message())
    if about is not None and isinstance(exc, ValueError) and not isinstance(exc, OWN_FILE_ERRORS):
        return shown_path(f"{about}: {exc}")
    return message_lines(exc)


def os_error_message(exc: OSError) -> str:
    """One line for an OSError: the file it names and the system's reason (``results/x/chunks: No space
    left on device``), or the error's own text when it names no file."""
    if exc.filename is not None and exc.strerror:
        other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
        return f"{exc.filename}{other}: {exc.strerror}"
    return str(exc) or type(exc).__name__


Interrupted = str | Callable[[KeyboardInterrupt], str] | None


@contextmanager
def library_errors(
    *,
    interrupted: Interrupted,
    cannot_write: str | None = None,
    writing: str = "",
    about: str | None = None,
    out: str = "",
) -> Iterator[None]:
    """Map the library's errors raised in the ``with`` block to exit codes and messages (see the
    module docstring). ``interrupted``: the sentence printed on Ctrl-C (or a function of the
    KeyboardInterrupt giving it), None to let Ctrl-C propagate; ``cannot_write``: the prefix of the
    message for another OSError (``"--out results/x"``; ``writing`` names what could not be written),
    or None for the file the error names (:func:`os_error_message`); ``about`` and ``out``: see :func:`input_message`."""
    import signal
    import threading

    from balancer.api import SIGNALLED, note_signal

    def sigint(signum: int, frame: Any) -> None:
        note_signal(signum)
        raise KeyboardInterrupt

    # while the block runs, Ctrl-C raises KeyboardInterrupt (whatever handler the entry point set), so
    # that the command keeps what it finished and says so (issue 28)
    own_sigint = interrupted is not None and threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, sigint) if own_sigint else None
    signalled = len(SIGNALLED)
    try:
        try:
            yield
        except Exception as exc:  # a library that turned the interrupt into its own error (DuckDB: "Query
            ours = isinstance(exc, (typer.Exit, typer.Abort, click.ClickException))  # interrupted"): the interrupt
            if interrupted is not None and not ours and len(SIGNALLED) > signalled:
                raise KeyboardInterrupt from None
            raise
    except library.GamesFailedError as exc:
        _report_failures(exc)
        raise typer.Exit(GAMES_FAILED) from None
    except library.CheckGameError as exc:
        typer.echo(f"error: {terminal_text(str(exc))}", err=True)
        raise typer.Exit(GAMES_FAILED) from None
    except INPUT_ERRORS as exc:
        _fail(input_message(exc, about=about, out=out), keep_lines=True)
    except OSError as exc:
        if cannot_write is None:  # a full disk, a file the system refuses: one line naming the file, not a traceback
            _fail(os_error_message(exc))
        _fail(f"{cannot_write}: cannot write{' ' + writing if writing else ''} ({exc.strerror or exc})")
    except KeyboardInterrupt as exc:
        if interrupted is None:
            raise
        typer.echo(terminal_text(interrupted if isinstance(interrupted, str) else interrupted(exc)), err=True)
        raise typer.Exit(INTERRUPTED) from None
    finally:
        if own_sigint and previous is not None:
            signal.signal(signal.SIGINT, previous)
