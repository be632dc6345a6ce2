"""The history file: one DuckDB database (one file, no server) holding a row per tracked number of
every ``balancer check`` and ``balancer baseline save`` of one study.

Tables (format :data:`FORMAT`):

* ``balancer_history`` (key, value): ``kind`` (``balancer-history``), ``format``, ``study``, ``game``:
  what the file is and whose; a file without it, of another kind or format, or of another study or
  game is refused (:class:`HistoryError`) and left as it was.
* ``history``: one row per tracked number per event (:data:`COLUMNS`): the event (a number counting
  from 1, ``check`` or ``baseline``), when it was recorded, the commit (sha, branch, author time,
  subject, a dirty work tree) when the study lies in a git repository, the study file's and the
  variant's content hashes (``study_sha256``, ``config_sha256``), whether the variant changed since
  the baseline, the cell, the number, its estimate with a 95% interval, its per-game variance and
  games, the seed its games were played with, the baseline's value, games and variance, the check's
  difference with its (repeated) interval, tolerance, smallest detectable change, power and verdict.
* ``game_values``: per event, cell and number the per-game values (FLOAT[]) the estimate was taken
  from, so that two events played with the same seed can be compared game by game.

Appends are one transaction under an exclusive lock of ``PATH.lock`` (a second writer waits up to
:data:`LOCK_WAIT` seconds, then fails with one line); readers take the lock shared. The lock uses
``fcntl.flock`` (POSIX).
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FORMAT = 1
KIND = "balancer-history"
LOCK_WAIT = 120.0
"""Seconds a writer (or reader) waits for another writer before giving up."""
MAGIC = b"DUCK"
"""DuckDB's file magic, at byte offset 8 of every database file."""

COLUMNS: tuple[tuple[str, str], ...] = (
    ("event", "INTEGER NOT NULL"),
    ("event_kind", "VARCHAR NOT NULL"),  # "check" or "baseline"
    ("recorded_at", "TIMESTAMPTZ NOT NULL"),
    ("commit_sha", "VARCHAR"),
    ("branch", "VARCHAR"),
    ("commit_time", "TIMESTAMPTZ"),
    ("commit_subject", "VARCHAR"),
    ("dirty", "BOOLEAN"),
    ("study", "VARCHAR NOT NULL"),
    ("game", "VARCHAR NOT NULL"),
    ("study_sha256", "VARCHAR"),
    ("run", "VARCHAR NOT NULL"),
    ("variant", "VARCHAR NOT NULL"),
    ("config_sha256", "VARCHAR"),
    ("engine_sha256", "VARCHAR"),
    ("variant_changed", "BOOLEAN"),
    ("number", "VARCHAR NOT NULL"),
    ("kind", "VARCHAR NOT NULL"),  # "win_rate" or "metric"
    ("test", "VARCHAR NOT NULL"),  # "baseline" (regression), "expect" (a target) or "saved" (a baseline event)
    ("estimate", "DOUBLE"),
    ("ci_low", "DOUBLE"),
    ("ci_high", "DOUBLE"),
    ("variance", "DOUBLE"),
    ("games", "INTEGER"),
    ("seed", "BIGINT"),
    ("baseline_value", "DOUBLE"),
    ("baseline_games", "INTEGER"),
    ("baseline_variance", "DOUBLE"),
    ("target_low", "DOUBLE"),
    ("target_high", "DOUBLE"),
    ("difference", "DOUBLE"),
    ("difference_low", "DOUBLE"),
    ("difference_high", "DOUBLE"),
    ("tolerance", "DOUBLE"),
    ("detectable", "DOUBLE"),
    ("powered", "BOOLEAN"),
    ("verdict", "VARCHAR NOT NULL"),  # "pass", "fail" or "baseline"
    ("warnings", "VARCHAR"),
    ("balancer_version", "VARCHAR"),
)
"""The ``history`` table's columns and DuckDB types, in order."""


class HistoryError(ValueError):
    """A history file that cannot be used (not a DuckDB file, not a balancer history, another study's
    or game's, locked too long); ``str()`` is one line starting with the file's path."""


@contextmanager
def _locked(path: Path, exclusive: bool, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold ``flock`` on ``PATH.lock`` (created if missing): exclusive for a writer, shared for a
    reader; wait up to ``wait`` seconds, then raise HistoryError. A reader that may not create the lock
    file (a read-only folder, where no writer can append either) reads without it."""
    lock = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        if not exclusive and not path.parent.is_dir():
            raise
        if not exclusive and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            # a history in a folder nobody may write (a downloaded artifact, a read-only mount): no
            # writer can append there either (DuckDB writes beside the file), so read it unlocked
            yield
            return
        raise HistoryError(f"{path}: cannot open its lock file {lock.name} ({exc.strerror or exc})") from None
    try:
        deadline = time.monotonic() + wait
        mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        while True:
            try:
                fcntl.flock(fd, mode)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise HistoryError(
                        f"{path}: another balancer has been writing it for {wait:g} s; try again later"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


SIDE_FILES = (".lock", ".wal")
"""Files written beside a history ``PATH``: ``PATH.lock`` (this module's lock) and ``PATH.wal``
(DuckDB's write-ahead log, which DuckDB opens through a link)."""


def _refuse_planted(path: Path) -> None:
    """HistoryError when a symbolic link, or anything but a regular file, sits where one of
    its :data:`SIDE_FILES` is written (issue 28): DuckDB would follow a link at ``PATH.wal`` and write
    outside the history's folder."""
    from balancer.outdir import UnsafeOutputError, refuse_foreign

    for name in (path.with_name(path.name + s) for s in SIDE_FILES):
        try:
            refuse_foreign(name)
        except UnsafeOutputError as exc:
            raise HistoryError(f"{exc} (beside the history {path.name})") from None


def _refuse_foreign(path: Path) -> None:
    """HistoryError unless ``path`` is a regular file (not a symlink) that starts like a DuckDB file."""
    _refuse_planted(path)
    if path.is_symlink():
        raise HistoryError(f"{path}: is a symbolic link; give the history file itself")
    if not path.is_file():
        raise HistoryError(f"{path}: not a regular file")
    with path.open("rb") as fh:
        head = fh.read(12)
    if head[8:12] != MAGIC:
        raise HistoryError(f"{path}: not a balancer history (not a DuckDB database file)")


def _connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    import duckdb

    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise HistoryError(f"{path}: not a readable balancer history ({first})") from None


def _meta(con: duckdb.DuckDBPyConnection, path: Path) -> dict[str, str]:
    """The ``balancer_history`` table as a dict; HistoryError when it is missing or of another kind
    or format, or the ``history`` table is missing."""
    import duckdb

    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if not {"balancer_history", "history", "game_values"} <= tables:
            raise HistoryError(f"{path}: a DuckDB database but not a balancer history (no balancer_history table)")
        meta = {str(k): str(v) for k, v in con.execute("SELECT key, value FROM balancer_history").fetchall()}
    except duckdb.Error as exc:
        raise HistoryError(f"{path}: not a readable balancer history ({str(exc).splitlines()[0]})") from None
    if meta.get("kind") != KIND or meta.get("format") != str(FORMAT):
        raise HistoryError(f"{path}: not a balancer history of format {FORMAT} (kind {meta.get('kind')!r})")
    return meta


def _check_owner(meta: Mapping[str, str], path: Path, study: str, game: str) -> None:
    if meta.get("game") != game:
        raise HistoryError(f"{path}: a history of game {meta.get('game')!r}, not {game!r}; give another file")
    if meta.get("study") != study:
        raise HistoryError(f"{path}: a history of study {meta.get('study')!r}, not {study!r}; give another file")


def check_history_target(path: Path | str, study: str, game: str) -> None:
    """Raise HistoryError (one line naming ``path``) unless an append of ``study`` (of ``game``) to
    ``path`` can work: a missing file in a writable directory, or a writable balancer history of that
    study in a writable directory.
    Changes nothing (the file is opened read-only), so a command can refuse before it plays."""
    path = Path(path)
    _refuse_planted(path)
    if not path.exists() and not path.is_symlink():
        parent = path.absolute().parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise HistoryError(f"{path}: cannot be created ({parent} is not a writable directory)")
        return
    _refuse_foreign(path)
    folder = path.absolute().parent
    if not os.access(path, os.W_OK):
        raise HistoryError(f"{path}: cannot be appended to (the file is not writable)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise HistoryError(
            f"{path}: cannot be appended to ({folder} is not a writable directory; DuckDB writes beside it)"
        )
    with _locked(path, exclusive=False):
        con = _connect(path, read_only=True)
        try:
            _check_owner(_meta(con, path), path, study, game)
        finally:
            con.close()


def _create(con: duckdb.DuckDBPyConnection, study: str, game: str) -> None:
    cols = ", ".join(f'"{name}" {kind}' for name, kind in COLUMNS)
    con.execute("CREATE TABLE balancer_history (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
    con.executemany(
        "INSERT INTO balancer_history VALUES (?, ?)",
        [("kind", KIND), ("format", str(FORMAT)), ("study", study), ("game", game)],
    )
    con.execute(f"CREATE TABLE history ({cols})")
    con.execute(
        "CREATE TABLE game_values (event INTEGER NOT NULL, run VARCHAR NOT NULL, variant VARCHAR NOT NULL, "
        'number VARCHAR NOT NULL, seed BIGINT, "values" FLOAT[] NOT NULL)'
    )


def append_event(
    path: Path | str,
    study: str,
    game: str,
    rows: Sequence[Mapping[str, Any]],
    values: Mapping[tuple[str, str, str], tuple[int, np.ndarray]] | None = None,
    wait: float = LOCK_WAIT,
) -> int:
    """Append one event to the history at ``path`` (created when missing) in one transaction under an
    exclusive lock; return its event number. ``rows``: one mapping per tracked number with the keys of
    :data:`COLUMNS` (``event`` is set here; a missing key is NULL); ``values``: per (run, variant,
    number) ``(seed, per-game values)``.

    Raises HistoryError (naming ``path``; the file is left as it was) for a file that is not a
    balancer history, or one of another study or game, or a lock held longer than ``wait`` seconds.
    """
    import duckdb

    path = Path(path)
    names = [name for name, _ in COLUMNS]
    unknown = {k for r in rows for k in r} - set(names)
    if unknown:
        raise ValueError(f"history rows: unknown columns {sorted(unknown)}")
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    _refuse_planted(path)  # a link at PATH.lock would otherwise end in "too many levels of symbolic links"
    with _locked(path, exclusive=True, wait=wait):
        try:
            return _append_locked(path, study, game, rows, values, names)
        except duckdb.Error as exc:
            raise HistoryError(f"{path}: cannot append ({str(exc).splitlines()[0]})") from None


def _append_locked(
    path: Path,
    study: str,
    game: str,
    rows: Sequence[Mapping[str, Any]],
    values: Mapping[tuple[str, str, str], tuple[int, np.ndarray]] | None,
    names: list[str],
) -> int:
    """:func:`append_event`'s work, with the lock held."""
    import duckdb

    _refuse_planted(path)
    new = not path.exists() and not path.is_symlink()
    if not new:
        _refuse_foreign(path)
        con = _connect(path, read_only=True)  # validate without writing anything
        try:
            _check_owner(_meta(con, path), path, study, game)
        finally:
            con.close()
    con = _connect(path, read_only=False)
    try:
        con.execute("BEGIN TRANSACTION")
        if new:
            _create(con, study, game)
        row = con.execute("SELECT coalesce(max(event), 0) + 1 FROM history").fetchone()
        event = int(row[0]) if row else 1
        placeholders = ", ".join("?" for _ in names)
        quoted = ", ".join(f'"{n}"' for n in names)
        con.executemany(
            f"INSERT INTO history ({quoted}) VALUES ({placeholders})",
            [[event if n == "event" else r.get(n) for n in names] for r in rows],
        )
        if values:
            con.executemany(
                'INSERT INTO game_values (event, run, variant, number, seed, "values") VALUES (?, ?, ?, ?, ?, ?)',
                [
                    [event, run, variant, number, int(seed), np.asarray(v, dtype=np.float32).tolist()]
                    for (run, variant, number), (seed, v) in values.items()
                ],
            )
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass
        if new:
            con.close()
            path.unlink(missing_ok=True)
            path.with_name(path.name + ".wal").unlink(missing_ok=True)
        raise
    finally:
        con.close()
    return event


def read_history(path: Path | str) -> tuple[pl.DataFrame, dict[str, str]]:
    """(the ``history`` table as a polars DataFrame ordered by event, run, variant, number and test;
    the file's ``balancer_history`` meta). Raises HistoryError naming ``path`` for a missing file or
    one that is not a balancer history."""
    path = Path(path)
    if not path.exists():
        raise HistoryError(f"{path}: no such history file (write one with 'balancer check ... --history {path}')")
    _refuse_foreign(path)
    with _locked(path, exclusive=False):
        con = _connect(path, read_only=True)
        try:
            meta = _meta(con, path)
            frame = con.sql("SELECT * FROM history ORDER BY event, run, variant, number, test").pl()
        finally:
            con.close()
    return frame, meta


def read_values(path: Path | str, events: Sequence[int]) -> dict[tuple[int, str, str, str], tuple[int, np.ndarray]]:
    """The stored per-game values of ``events``: (event, run, variant, number) -> (seed, float64 values)."""
    path = Path(path)
    if not events:
        return {}
    with _locked(path, exclusive=False):
        con = _connect(path, read_only=True)
        try:
            rows = con.execute(
                'SELECT event, run, variant, number, seed, "values" FROM game_values WHERE event IN '
                f"({', '.join(str(int(e)) for e in events)})"
            ).fetchall()
        finally:
            con.close()
    return {(int(e), r, v, n): (int(s), np.asarray(vals, dtype=np.float64)) for e, r, v, n, s, vals in rows}
