"""What guards a run directory before and while a run writes it: the output check
(:func:`check_out_dir`, creating nothing) and the directory's lock (:func:`run_lock`, ``run.lock``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from balancer.outdir import ForeignOutputError, Spelling, refuse_foreign

from .errors import OutDirError, ResultsExistError, RunLockedError
from .rundir import MANIFEST_FILE, RESULTS_FILE, RUN_FILE, SUMMARY_FILE, TRAJECTORIES_FILE

LOCK_FILE = "run.lock"


def _lock_holder(path: Path) -> int | None:
    """The process id written in a lock file, or None when there is none (empty, unreadable)."""
    try:
        return int(path.read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def check_lock(out_dir: Path | str) -> None:
    """Raise RunLockedError when another live process holds ``out_dir/run.lock`` (creating nothing).

    A lock is an advisory ``flock`` on the file, so it is released when its process ends however it
    ends; a lock file left by a killed run is stale, and :func:`run_lock` reports and replaces it.
    """
    import fcntl

    path = Path(out_dir) / LOCK_FILE
    refuse_foreign(path)  # a link planted as run.lock: refused (one line naming it), never followed
    if not path.is_file():
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(path)
        if holder != os.getpid():
            raise RunLockedError(Path(out_dir), holder) from None
    finally:
        os.close(fd)


_HELD_LOCKS: dict[Path, int] = {}


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` is still the file open as ``fd`` (not a link or another file put there since)."""
    try:
        there, held = os.lstat(path), os.fstat(fd)
    except OSError:
        return False
    return (there.st_dev, there.st_ino) == (held.st_dev, held.st_ino)


@contextmanager
def run_lock(out_dir: Path | str, log: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``out_dir/run.lock`` (the directory must exist) while a run writes ``out_dir``.

    The file holds this process's id and host; the lock itself is an exclusive ``flock``, released
    by the system when the process ends (Ctrl-C, a crash, ``kill -9``). Raises RunLockedError when a
    live process holds it. A lock file whose process is gone (a killed run) is reported through
    ``log`` (stderr by default) and taken over. Re-entrant within a process (``--until-ci`` holds
    the lock around the run it finishes with).
    """
    import fcntl
    import socket
    import sys

    key = Path(out_dir).resolve()
    if key in _HELD_LOCKS:
        yield
        return
    path = Path(out_dir) / LOCK_FILE
    refuse_foreign(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RunLockedError(Path(out_dir), _lock_holder(path)) from None
    stale = _lock_holder(path)
    if stale is not None:
        (log or (lambda line: print(line, file=sys.stderr)))(
            f"note: {path}: a stale lock of a run that ended without releasing it (pid {stale}, no longer "
            "running); taking it over"
        )
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
    _HELD_LOCKS[key] = fd
    try:
        yield
    finally:
        del _HELD_LOCKS[key]
        try:
            if _same_file(fd, path):  # only the lock file this run holds: never a file put in its place
                path.unlink()
        finally:
            os.close(fd)


def refuse_foreign_run_files(out_dir: Path | str) -> None:
    """UnsafeOutputError naming it for a link, a FIFO or a folder at a run's own file in ``out_dir``
    (results.parquet, run.json, summary.json, manifest.json, trajectories.parquet): checked before any game is played, by
    :func:`check_out_dir` and by a study's or sweep's check of every cell (issue 52: refused after the
    last game before)."""
    for name in (RESULTS_FILE, RUN_FILE, SUMMARY_FILE, MANIFEST_FILE, TRAJECTORIES_FILE):
        refuse_foreign(Path(out_dir) / name)


def check_out_dir(out_dir: Path | str, force: bool = False, resume: bool | None = False) -> None:
    """Check that ``out_dir`` can receive a run, creating nothing.

    Raises ResultsExistError if ``out_dir`` holds finished results (or, when ``resume`` is False,
    an interrupted run's manifest) and not ``force``; OutDirError (a NotADirectoryError) if it is a
    file, lies under a file, or the directory to write in is not writable; UnsafeOutputError (a
    NotADirectoryError too) for a link or another kind of file at results.parquet, run.json,
    summary.json or manifest.json (issue 52: refused only after every game was played before);
    ForeignOutputError (a ResultsExistError) for a non-empty run.json, summary.json or
    trajectories.parquet in a folder that is no run folder of balancer's (no results.parquet, no
    manifest.json, no run.json of a run) and not ``force``: a folder of the user's own notes is not
    overwritten. ``resume=True`` skips
    the results checks (see :func:`balancer.sim.runner.run_to_dir`); ``None`` accepts an interrupted run.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise OutDirError(f"{out_dir}: is a file, not a directory")
    ancestor = out_dir.absolute()
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutDirError(f"{out_dir}: cannot be created: {ancestor} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutDirError(
            f"{out_dir}: cannot be {'written' if ancestor == out_dir.absolute() else 'created'}: "
            f"{ancestor} is not writable"
        )
    check_lock(out_dir)
    refuse_foreign_run_files(out_dir)
    if resume is True or force:
        return
    if (out_dir / RESULTS_FILE).exists():
        raise ResultsExistError.spelled(
            lambda o: (
                f"{out_dir}: already holds {RESULTS_FILE}; use {o.force} to overwrite it, or choose another {o.out}"
            )
        )
    if resume is False and (out_dir / MANIFEST_FILE).exists():
        raise ResultsExistError.spelled(
            lambda o: (
                f"{out_dir}: holds an interrupted run ({MANIFEST_FILE}); continue it with {o.resume}, "
                f"or start over with {o.force}"
            )
        )
    if (out_dir / MANIFEST_FILE).exists() or _run_json_of_balancer(out_dir / RUN_FILE):
        return  # a run folder of balancer's: its files are the run's own
    for name in (RUN_FILE, SUMMARY_FILE, TRAJECTORIES_FILE):
        path = out_dir / name
        if path.is_file() and path.stat().st_size > 0:
            raise ForeignOutputError.spelled(_foreign_words(out_dir, path))


def _foreign_words(out_dir: Path, path: Path) -> Callable[[Spelling], str]:
    """The refusal of a file of the user's where a run writes its own (:func:`check_out_dir`)."""
    return lambda o: (
        f"{path}: exists and was not written by balancer ({out_dir} is no run folder of balancer's: no "
        f"{RESULTS_FILE}, {MANIFEST_FILE} or run.json of a run); use {o.force} to replace it, or choose another {o.out}"
    )


RUN_JSON_KEYS = ("game", "variant", "config_sha256", "engine_sha256")
"""What every run.json balancer writes holds (:func:`balancer.sim.runner`): a run.json without them is not a run's."""


def _run_json_of_balancer(path: Path) -> bool:
    """Whether ``path`` is a run.json of balancer's: a JSON object (read bounded, never through a link)
    with every key of :data:`RUN_JSON_KEYS`."""
    from balancer.limits import read_json_bounded

    try:
        data = read_json_bounded(path, RUN_FILE)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and all(k in data for k in RUN_JSON_KEYS)
