"""The output directory as a trust boundary (issue 28, docs/architecture.md "Conventions"): what is already in an
output directory is not trusted.

* A file is written on a fresh temporary name created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (so a link
  planted under any name cannot be followed) and renamed into place within its directory
  (:func:`write_atomic`, :func:`open_exclusive`).
* A symbolic link, or a file of another kind, where the run's own file or folder belongs is refused
  with one line naming it (:func:`refuse_foreign`, :class:`UnsafeOutputError`, exit 2).
* A command deletes only what it created: a chunk folder is emptied of the run's own chunk files, and a
  file of anyone else there is refused rather than deleted (:func:`clear_own_files`).
* An output path is normalised before anything is created (:func:`normalised`): ``out/a/../../out/X``
  creates ``out/X`` and no ``out/a``.
* A single output file a command is asked to write (a page, ``--junit``, ``--markdown``, a baseline) is
  checked before anything is played (:func:`check_output_target`): an input of the same command at that
  path is refused, so is a directory, a FIFO, a device or a socket (never opened); an existing file that
  carries no generator mark of balancer (:data:`GENERATOR_MARKS`, :func:`written_by_balancer`) is replaced
  only with ``force``; an empty file, or one that balancer wrote, is replaced.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, cast


class UnsafeOutputError(NotADirectoryError):
    """A symbolic link or a foreign file where a command writes or deletes its own; ``str()`` names it.
    A NotADirectoryError like :class:`balancer.sim.errors.OutDirError`, so the command line treats it as
    bad input (exit 2); this module imports nothing of balancer, so that every writer can use it."""


def normalised(path: Path | str) -> Path:
    """``path`` with ``.`` and ``name/..`` parts removed (:func:`os.path.normpath`), so that creating it
    creates no directory the path only passes through."""
    return Path(os.path.normpath(os.fspath(path)))


def refuse_foreign(path: Path, kind: str = "file") -> None:
    """Raise UnsafeOutputError when ``path`` is a symbolic link, or exists but is not a regular file
    (``kind="file"``) or a directory (``kind="directory"``); a missing path passes."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeOutputError(
            f"{path}: a symbolic link where this command writes its own {kind}; remove it, or choose another output"
        )
    ok = stat.S_ISDIR(st.st_mode) if kind == "directory" else stat.S_ISREG(st.st_mode)
    if not ok:
        raise UnsafeOutputError(f"{path}: not a {kind}, where this command writes its own {kind}")


def _temporary(path: Path) -> Path:
    """A fresh name beside ``path`` for writing it (hidden, unguessable, ending in ``.tmp``)."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


_fdopen = os.fdopen
"""How :func:`open_exclusive` opens its file descriptor (a name of this module, so that a test can give
it a writer that fails as a full disk does)."""


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` naming ``path`` when it names no file (a write on a full disk: ``[Errno 28] No space left on
    device`` with no file): an OSError of the same errno (and so the same class) with ``path`` as its
    filename; ``exc`` itself otherwise (and for balancer's own errors, which carry no errno)."""
    if exc.filename is not None or (exc.errno is None and type(exc) is not OSError):
        return exc
    named = OSError(exc.errno, exc.strerror or str(exc), str(path))
    named.__cause__ = exc
    return named


@contextmanager
def open_exclusive(path: Path) -> Iterator[tuple[IO[bytes], Path]]:
    """Write ``path``: yields (binary file, its temporary path) open on a new temporary name created with
    O_EXCL and O_NOFOLLOW; on success the file is renamed over ``path`` (a link there is refused first),
    on any error or interrupt the temporary file, which this call created, is removed. An OSError that
    names no file (a full disk) is raised naming ``path`` (issue 52: 'No space left on device' alone)."""
    refuse_foreign(path)
    tmp = _temporary(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with _fdopen(fd, "wb") as f:
            yield f, tmp
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        named = _naming(exc, path)
        if named is exc:
            raise
        raise named from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` (str as UTF-8) to ``path`` through :func:`open_exclusive`."""
    with open_exclusive(path) as (f, _):
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def own_directory(path: Path) -> Path:
    """Create the directory ``path`` (and its parents) unless it is there; refuse a link or a file in its
    place (UnsafeOutputError). Returns ``path``."""
    refuse_foreign(path, "directory")
    path.mkdir(parents=True, exist_ok=True)
    refuse_foreign(path, "directory")  # a link planted between the check and mkdir
    return path


def clear_own_files(folder: Path, own: re.Pattern[str], keep: frozenset[str] = frozenset()) -> None:
    """Remove from ``folder`` every file whose name matches ``own`` (a command's own files) except
    ``keep``; refuse (UnsafeOutputError, deleting nothing) a link in place of ``folder``, or any entry
    that is not such a file: a command deletes only what it created."""
    refuse_foreign(folder, "directory")
    if not folder.exists():
        return
    entries = sorted(folder.iterdir())
    for entry in entries:
        if not own.fullmatch(entry.name) or not stat.S_ISREG(os.lstat(entry).st_mode):
            raise UnsafeOutputError(
                f"{entry}: not a file of this run, in its folder {folder.name}/; this command deletes only its own "
                "files there: move it, or choose another output"
            )
    for entry in entries:
        if entry.name not in keep:
            entry.unlink()


def remove_own_folder(folder: Path, own: re.Pattern[str]) -> None:
    """:func:`clear_own_files` then remove the empty ``folder`` (nothing when it is missing)."""
    clear_own_files(folder, own)
    if folder.exists():
        folder.rmdir()


def refuse_links_below(root: Path | str, path: Path | str, last: str = "directory") -> Path:
    """Refuse (UnsafeOutputError naming it) a symbolic link, or an entry of the wrong kind, at any
    component of ``path`` below ``root``: the folders a command names itself under an output root
    (``<results>/<sweep>/variants/``, ``<results>/<tune>/<run>/<candidate>/seg-0``) are its own, so a
    link planted in place of one is never followed out of ``root`` (review II of issue 28). ``root``
    itself, the user's choice, may be a link. ``last``: the kind of ``path`` itself ("directory" or
    "file"). Returns ``path``; missing components pass (the command creates them)."""
    root, path = Path(root), Path(path)
    parts = path.relative_to(root).parts
    here = root
    for k, part in enumerate(parts):
        here = here / part
        refuse_foreign(here, last if k == len(parts) - 1 else "directory")
    return path


# --------------------------------------------------------------------------------------------------
# The spelling of an option a message suggests (force=True in the library, --force on the command
# line), and the error of an output that already holds results: below every floor, since naming,
# the starter files, sim and the commands all raise it.


@dataclass(frozen=True)
class Spelling:
    """How a message names the options it suggests: the library's parameters (``force=True``) or
    the command line's options (``--force``); ``out`` is the parameter naming the output."""

    force: str
    resume: str
    out: str


LIBRARY = Spelling(force="force=True", resume="resume=True", out="out")
COMMAND_LINE = Spelling(force="--force", resume="--resume", out="--out")


class Spelled:
    """An error whose message suggests an option: ``str()`` names it as the library's parameter
    (``use force=True to replace them``), :meth:`cli_message` as the command line's option (``use
    --force ...``), which :func:`balancer.cli.errors.input_message` prints."""

    _cli_text: str | None = None

    @classmethod
    def spelled(cls, words: Callable[[Spelling], str], out: tuple[str, str] | None = None) -> Any:
        """The error whose message is ``words(spelling)``; ``out``: the (library, command line)
        names of the output parameter when not ``out`` / ``--out`` (``("results_root", "--results")``)."""
        library, cli = LIBRARY, COMMAND_LINE
        if out is not None:
            library, cli = replace(library, out=out[0]), replace(cli, out=out[1])
        exc = cast(Any, cls)(words(library))
        exc._cli_text = words(cli)
        return exc

    def cli_message(self) -> str:
        """The message in the command line's words (``--force``)."""
        return self._cli_text if self._cli_text is not None else str(self)


class ResultsExistError(Spelled, FileExistsError):
    """The output directory already holds finished results (or results of another input) and
    ``force`` was not given. ``str()`` says ``force=True``; :meth:`cli_message` says ``--force``."""


# --------------------------------------------------------------------------------------------------
# Single output files (issue 52): never an input of the same command, never a FIFO or a device, never
# a file balancer did not write unless forced.

GENERATOR_META = '<meta name="generator" content="balancer">'
"""The mark in the head of every HTML page balancer writes."""

GENERATOR_COMMENT = "<!-- generator: balancer -->"
"""The mark in every JUnit XML and Markdown file balancer writes (a comment: not shown when rendered)."""

GENERATOR_MARKS: tuple[bytes, ...] = (
    b'<meta name="generator" content="balancer',
    b'<meta name="balancer-results" ',  # a run's page written before the generator mark
    b"<!-- generator: balancer",
    b'"kind": "balancer-',  # a baseline (balancer-baseline)
)
"""What :func:`written_by_balancer` looks for in a file's first :data:`MARK_BYTES` bytes."""

MARK_BYTES = 4096


class ForeignOutputError(ResultsExistError):
    """An existing file at an output path that balancer did not write, and ``force`` was not given.
    ``str()`` says ``force=True``, :meth:`cli_message` ``--force``."""


def written_by_balancer(path: Path | str) -> bool:
    """Whether the regular file ``path`` carries a generator mark (:data:`GENERATOR_MARKS`) in its first
    :data:`MARK_BYTES` bytes. Opened with O_NONBLOCK and O_NOFOLLOW, and only after ``lstat`` says it is
    a regular file, so a FIFO, a device or a link is never opened (False)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, MARK_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    return any(mark in head for mark in GENERATOR_MARKS)


def _same_path(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or the same inode."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _data_below(folder: Path, path: Path) -> bool:
    """Whether ``path`` is an existing file below the directory ``folder`` (a command's own results
    folder, given as an input) that is not a page balancer wrote: a cell's ``results.parquet``,
    ``run.json`` or ``summary.json``, a sweep's ``source.json``. A link is followed (where it points
    counts); a missing path, or a file outside ``folder``, is not."""
    try:
        if not os.path.isdir(folder) or not os.path.lexists(path):
            return False
        real, root = os.path.realpath(path), os.path.realpath(folder)
    except (OSError, ValueError):
        return False
    return real.startswith(root.rstrip(os.sep) + os.sep) and not written_by_balancer(real)


def check_output_target(
    path: Path | str,
    inputs: Iterable[Path | str] = (),
    force: bool = False,
    where: tuple[str, str] = ("path", "--out"),
    kind: str = "a file",
) -> None:
    """Refuse, before anything is written (or played), to write the single file ``path`` (``kind``:
    what it is, for the message: ``an HTML file``):

    * UnsafeOutputError when ``path`` is one of ``inputs`` (the study file, a baseline, a run's own
      files: ``force`` does not change it) or, for an input that is a directory (a study's or a sweep's
      own results folder), an existing file below it that is not a page balancer wrote, a symbolic link, a directory, a FIFO, a device or a socket
      (``lstat`` only: nothing is opened);
    * ForeignOutputError (a ResultsExistError) when ``path`` is a non-empty regular file that balancer
      did not write (:func:`written_by_balancer`) and not ``force``; ``where``: the (library, command
      line) names of the output, for the message.

    A missing path, an empty file and a file balancer wrote pass. Creates nothing."""
    path = Path(path)
    for source in inputs:
        if _same_path(path, Path(source)) or _data_below(Path(source), path):
            raise UnsafeOutputError(
                f"{path}: is also an input of this command ({source}); writing it would destroy it: "
                "choose another output file"
            )
    try:
        st = os.lstat(path)
    except OSError:  # missing, or under a file: the writer says which
        return
    if stat.S_ISLNK(st.st_mode):
        refuse_foreign(path)  # its message: a symbolic link where this command writes its own file
    if stat.S_ISDIR(st.st_mode):
        raise UnsafeOutputError(f"{path}: is a directory; give the path of {kind}")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeOutputError(
            f"{path}: not a regular file (a FIFO, a device or a socket); not opened: choose a file to write"
        )
    if force or st.st_size == 0 or written_by_balancer(path):
        return
    raise ForeignOutputError.spelled(
        lambda o: (
            f"{path}: exists and was not written by balancer (it has no generator mark); use {o.force} to replace it, "
            f"or choose another {o.out}"
        ),
        where,
    )
