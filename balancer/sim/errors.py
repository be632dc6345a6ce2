"""The errors of a run: a request that cannot be played, an output directory that cannot be used,
games that raised, an interrupted run (docs/architecture.md, "Errors").

A request error names the *field* at fault, the parameter as :func:`balancer.run` and
:func:`balancer.sim.request.check_run` call it (``agents``, ``players``, ``chunk_size``, ...); the
command line shows it as its option (:data:`balancer.cli.errors.FLAGS`). ``str()`` spells the field
as that option too (``--chunk-size: must be at least 1, got 0``), so that a notebook's traceback reads
like the command line's message. A message that suggests an option (``force``, ``resume``) is written
once as a function of its :class:`Spelling`: the library's error says ``force=True``, the command line
prints ``--force`` (:class:`Spelled`, :meth:`RunRequestError.message`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

# the spelling of suggestions and the error of an output that holds results are outdir.py's (below
# every floor); named here too, where the run's other errors are
from balancer.outdir import COMMAND_LINE, LIBRARY, Spelling
from balancer.outdir import ResultsExistError as ResultsExistError
from balancer.outdir import Spelled as Spelled


def option_name(field: str) -> str:
    """The command-line spelling of a request field: ``chunk_size`` -> ``--chunk-size`` (Typer's
    convention for a parameter's option); a name already spelled as an option is kept."""
    return field if field.startswith("-") else "--" + field.replace("_", "-")


def field_name(name: str) -> str:
    """The request field of a name given as a field or as its option: ``--chunk-size`` -> ``chunk_size``."""
    return name.lstrip("-").replace("-", "_") if name.startswith("--") else name


class RunRequestError(ValueError):
    """A run request that cannot be played. ``field`` names the request's parameter at fault
    (``agents``, ``players``, ``games``, ``seed``, ``jobs``, ``chunk_size``, ``resume``, ``scheduler``,
    ``until_ci``, ``max_games``; an option spelling such as ``--games`` is accepted and read as its
    field), ``problem`` what is wrong; ``str()`` is ``"<option>: <problem>"`` (:func:`option_name`)."""

    def __init__(self, field: str, problem: str | Callable[[Spelling], str]):
        self.field = field_name(field)
        # a problem that suggests an option is a function of its spelling: force=True here, --force in message()
        self.problem = problem(LIBRARY) if callable(problem) else problem
        self.cli_problem = problem(COMMAND_LINE) if callable(problem) else problem
        super().__init__(f"{option_name(self.field)}: {self.problem}")

    @property
    def flag(self) -> str:
        """The field spelled as its option (``--chunk-size``)."""
        return option_name(self.field)

    def message(self, flag: str) -> str:
        """The command line's sentence naming the field as ``flag``: ``"<flag>: <problem>"`` (an option
        the problem suggests spelled as the command line's: ``--force``)."""
        return f"{flag}: {self.cli_problem}"


class SchedulerError(RunRequestError):
    """The Dask scheduler cannot be reached (field ``scheduler``); ``str()`` is
    ``"--scheduler ADDRESS: cannot connect (why)"``."""

    def __init__(self, address: str, problem: str):
        self.address = address
        super().__init__("scheduler", problem)

    def message(self, flag: str) -> str:
        return f"{flag} {self.address}: {self.problem}"


class ResumeError(RunRequestError):
    """``--resume`` cannot continue (field ``resume``): no manifest, an unreadable one, or different arguments."""

    def __init__(self, problem: str | Callable[[Spelling], str]):
        super().__init__("resume", problem)


class RunLockedError(ResultsExistError):
    """Another process is writing the output directory (its ``run.lock`` is held); ``pid`` is its process id."""

    def __init__(self, out_dir: Path, pid: int | None):
        self.out_dir, self.pid = out_dir, pid
        who = f" (pid {pid})" if pid else ""
        super().__init__(
            f"{out_dir}: another run is writing this directory{who}; wait for it to finish, or choose another --out"
        )


class OutDirError(NotADirectoryError):
    """The output directory cannot be used: it is a file, lies under a file, or cannot be created
    or written. ``str()`` starts with the path."""


class GamesFailedError(RuntimeError):
    """Some games raised; everything else was written. ``failures``: up to
    :data:`balancer.sim.runner.MAX_LISTED_FAILURES` dicts (``game_index, seed, error, traceback,
    replay``), ``count`` the number of failing games, ``out_dir`` the run directory."""

    def __init__(self, out_dir: Path, failures: list[dict[str, Any]], count: int, games: int):
        self.out_dir, self.failures, self.count, self.games = out_dir, failures, count, games
        first = failures[0]["error"] if failures else ""
        super().__init__(
            f"{count} of {games} games failed (first: game {failures[0]['game_index']}: {first})"
            if failures
            else f"{count} of {games} games failed"
        )


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a run: finished chunks and the manifest are on disk, the chunk in
    flight was discarded. ``done`` games of ``games`` are saved in ``out_dir``."""

    def __init__(self, out_dir: Path, done: int, games: int):
        self.out_dir, self.done, self.games = out_dir, done, games
        super().__init__(f"{done} of {games} games saved in {out_dir}")
