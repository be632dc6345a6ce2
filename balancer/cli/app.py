"""The ``balancer`` command line's Typer app and what its commands share: loading a variant,
messages, the exit codes, the player count, output checks.

Exit codes (docs/architecture.md): 0 success, 1 a check failed, 2 bad input (config, arguments, files). Every
bad input prints one clear message on stderr naming the file or key, and writes nothing.
"""

from __future__ import annotations

import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from balancer import api
from balancer.api import GameSpec
from balancer.api import errors as library

from .errors import _fail, library_errors, say_err, terminal_text

_UsageError: Any = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
"""The usage error of the click that Typer runs (Typer vendors its own copy of click: ``click.UsageError``
of the click package is another class)."""


class OneLineUsageError(_UsageError):  # a class known at run time (Any to mypy)
    """A usage error (a value out of an option's range, an unknown option, a missing argument) in one
    line, as every other bad input is: ``error: MESSAGE (see 'balancer CMD --help')``, exit 2. Click
    prints the usage, a hint and the message on three lines."""

    def show(self, file: Any = None) -> None:
        where = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        typer.echo(f"error: {terminal_text(self.format_message())}{where}", file=file, err=file is None)


def _one_line(exc: Any) -> Any:
    """``exc`` as a :class:`OneLineUsageError` (a bare group's help, click's NoArgsIsHelpError, as it is)."""
    if isinstance(exc, OneLineUsageError) or type(exc).__name__ == "NoArgsIsHelpError":
        return exc
    one = OneLineUsageError(exc.format_message(), exc.ctx)
    one.exit_code = exc.exit_code
    return one


class OneLineGroup(TyperGroup):
    """The command groups of ``balancer``: Typer's, with usage errors in one line (:class:`OneLineUsageError`),
    those of the group's own options and of its commands' (parsed when the group invokes them)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _UsageError as exc:
            raise _one_line(exc) from None


app = typer.Typer(
    name="balancer",
    cls=OneLineGroup,
    help="If I change this rule, who wins more often? Play many games between AI players and report win rates.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    """``--version``: print ``balancer VERSION`` (the version run.json and baselines record) and exit 0."""
    if value:
        typer.echo(f"balancer {api.__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print balancer's version and exit."),
    ] = False,
) -> None:
    """If I change this rule, who wins more often? Play many games between AI players and report win rates."""


# --------------------------------------------------------------------------------------------------
# the options several commands share, declared once (a command writes ``jobs: Jobs = -1``)

Jobs = Annotated[int, typer.Option("--jobs", "-j", help="Worker processes; -1 uses all cores.")]
Scheduler = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        envvar="BALANCER_SCHEDULER",
        metavar="ADDRESS",
        help="Play on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); --jobs is then ignored.",
    ),
]
QuietCells = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars or per-cell lines.")]
QuietLines = Annotated[bool, typer.Option("--quiet", "-q", help="No per-cell lines.")]
Figures = Annotated[
    Path | None,
    typer.Option(
        "--figures",
        metavar="DIR",
        help="Also write every figure of the page as SVG, PNG and PDF files into DIR, named after what they "
        "show, with captions.md (games, agents, seed).",
    ),
]
Tables = Annotated[
    Path | None,
    typer.Option(
        "--tables", metavar="DIR", help="Also write every table of the page as a CSV file into DIR, with captions.md."
    ),
]
TableAgents = Annotated[
    str,
    typer.Option(
        "--agents",
        "-a",
        help="Agents: one name for every seat, or a comma list with exactly one per seat (seats rotate every game).",
    ),
]
TablePlayers = Annotated[
    int | None,
    typer.Option(
        "--players",
        "-p",
        help="Number of players (seats) per game [default: the number of --agents when a list is given, else the variant's only player count, else 4].",
    ),
]


# --------------------------------------------------------------------------------------------------
# helpers


def _load(config: Path) -> tuple[Any, GameSpec]:
    """(validated config, its game's spec) (:func:`balancer.api.load_variant`), or exit 2 with the
    ConfigError text (one line when the file is a study, not a rule variant)."""
    with library_errors(interrupted=None):
        loaded = api.load_variant(config)
    return loaded


def _note(line: str) -> None:
    """One note of the library (:data:`balancer.api.Note`) on stderr."""
    say_err(line)


def _compile_note(spec: GameSpec) -> None:
    """On stderr, when the game's compiled engine is not in numba's cache yet (the first game after
    installing or after an engine change compiles it), with how long that took last time
    (:func:`balancer.api.compile_note`)."""
    note = api.compile_note(spec)
    if note:
        _note(note)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While active, SIGTERM raises KeyboardInterrupt, so a killed run cleans up like Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: Any) -> None:
        from balancer.api import note_signal

        note_signal(signum)  # a library that turns the KeyboardInterrupt into its own error: still exit 130
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _command_line() -> str:
    return " ".join(shlex.quote(a) for a in ["balancer", *sys.argv[1:]])


def _resume_command(out_dir: Path) -> str:
    """This command line with ``--resume`` (and ``--out``), without ``--force``."""
    args = [a for a in sys.argv[1:] if a != "--force"]
    if not any(a in ("--out", "-o") or a.startswith("--out=") for a in args):
        args += ["--out", str(out_dir)]
    if "--resume" not in args:
        args.append("--resume")
    return " ".join(shlex.quote(a) for a in ["balancer", *args])


def _check_out_file(
    flag: str, path: Path, kind: str = "a file", inputs: tuple[Path | None, ...] = (), force: bool = False
) -> None:
    """Exit 2 (naming ``flag``) unless ``path`` can be written as a file: none of the command's
    ``inputs``, not a directory, FIFO or device, not a file balancer did not write unless ``force``
    (:func:`balancer.api.check_output_target`), not under a file, not a symbolic link
    (:func:`balancer.api.refuse_foreign_output`), in a writable directory
    (:func:`balancer.api.check_output_file`). Creates nothing."""
    option = flag if flag.startswith("-") else "--out"
    try:  # before any game is played: an input, a FIFO, a user's own file
        api.check_output_target(path, [p for p in inputs if p is not None], force, ("path", option), kind)
    except library.ResultsExistError as exc:
        _fail(f"{flag} {exc.cli_message()}")
    except library.UnsafeOutputError as exc:
        _fail(f"{flag} {exc}")
    try:  # a link planted as the file is refused before any game is played, not after
        api.refuse_foreign_output(path)
    except library.UnsafeOutputError as exc:
        if not path.is_dir():
            _fail(f"{flag} {exc}")
    except OSError:  # under a file, a name too long: check_report_target below says which
        pass
    if path.is_dir():
        _fail(f"{flag} {path}: is a directory; give the path of {kind}")
    try:
        api.check_output_file(path)
    except library.ReportOutputError as exc:
        _fail(f"{flag} {exc}")


def _check_out_directory(flag: str, path: Path) -> None:
    """Exit 2 (naming ``flag``) unless ``path`` is or can be created as a writable directory
    (:func:`balancer.api.check_output_directory`, results checks left to the command), and is not the
    current directory or one of its parents (``''``, ``.``, ``..``, ``/``: a command writes into a
    folder of its own, never among the files where it is started). Creates nothing."""
    where = api.normalised(path).resolve()
    cwd = Path.cwd().resolve()
    if where == cwd or where in cwd.parents:
        _fail(
            f"{flag}: {str(path)!r} is the current directory or one of its parents ({where}); "
            "give a folder of its own (results/x)"
        )
    try:
        api.check_output_directory(path)
    except library.OutDirError as exc:
        _fail(f"{flag} {exc}")


def _players(players: int | None, agents: str, cfg: Any, fallback: int) -> int:
    """The player count of a command (:func:`balancer.api.default_players`), or exit 2 for a count
    below 1."""
    with library_errors(interrupted=None):
        count = api.default_players(players, agents, cfg, fallback)
    return count


def _check_publish_dirs(figures: Path | None, tables: Path | None) -> None:
    """Refuse (exit 2) a --figures or --tables folder that cannot be one (a file, a link), before playing."""
    for option, folder in (("--figures", figures), ("--tables", tables)):
        if folder is not None:
            _check_out_directory(option, folder)


def _echo_published(figures: Path | None, tables: Path | None) -> None:
    """``figures: DIR`` / ``tables: DIR``: where a page's figures and tables went (--figures, --tables)."""
    from .errors import shown_path

    for what, folder in (("figures", figures), ("tables", tables)):
        if folder is not None:
            typer.echo(f"{what}: {shown_path(folder)}")
