"""The history file: one DuckDB database (one file, no server) holding a row per tracked number of
every ``balancer check`` and ``balancer baseline save`` of one study.

Tables (format :data:`FORMAT`):

* ``balancer_history`` (key, value): ``kind`` (``balancer-history``), ``format``, ``study``, ``game``
  and, from this version on, ``study_id`` (:func:`balancer.history.record.study_identity`): what the
  file is and whose; a file without it, of another kind or format, or of another study or game is
  refused (:class:`HistoryError`) and left as it was.
* ``history``: one row per tracked number per event (:data:`COLUMNS`): the event (a number counting
  from 1, ``check`` or ``baseline``), when it was recorded, the commit (sha, branch, author time,
  subject, a dirty work tree) when the study lies in a git repository, the study file's and the
  variant's content hashes (``study_sha256``, ``config_sha256``), whether the variant changed since
  the baseline, the cell, the number, its estimate with a 95% interval, its per-game variance and
  games, the seed its games were played with, the baseline's value, games and variance, the check's
  difference with its (repeated) interval, tolerance, smallest detectable change, power and verdict.
* ``game_values``: per event, cell and number the per-game values (FLOAT[]) the estimate was taken
  from, so that two events played with the same seed can be compared game by game.

**A history file is untrusted input** (a CI artifact, a colleague's branch). It is opened read-only
with DuckDB's external access off and the configuration locked (:data:`DUCKDB_CONFIG`: no file, URL
or extension can be reached from inside it, and a memory limit), and it is checked before anything
is read from it (:func:`_validate`): the three tables must be base tables (not views) with exactly
the columns, types, nullability of :data:`COLUMNS`, no defaults or generated columns, and the file
may hold no view, macro, CHECK or foreign-key constraint or index (code a read or a write would run); its size must be whole DuckDB blocks (a truncated file is refused);
a write-ahead log beside it that cannot be replayed is refused; and what one read fetches is bounded
(:data:`MAX_ROWS`, :data:`MAX_TEXT_BYTES`, :data:`MAX_VALUES`). Every refusal is a
:class:`HistoryError`, one line starting with the file's path.

**Appends** (:func:`reserve`, :func:`append_event`) hold an exclusive lock of ``PATH.lock`` from
before the study is played until the event is written (a second writer waits up to :data:`LOCK_WAIT`
seconds, then fails with one line); they never change the file in place: the history is copied to a
temporary file beside it, the event is written and checkpointed there, the copy is reopened and
checked, and only then renamed over the history. An append that cannot be made durable (a full
disk, a file DuckDB cannot checkpoint) fails with HistoryError and leaves the history as it was.
Readers take no lock: they read whichever complete file the name points to. The lock uses
``fcntl.flock`` (POSIX).
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FORMAT = 1
KIND = "balancer-history"
LOCK_WAIT = 120.0
"""Seconds a writer waits for another writer (which holds the lock while it plays) before giving up."""
MAGIC = b"DUCK"
"""DuckDB's file magic, at byte offset 8 of every database file."""
HEADER_BYTES = 3 * 4096
BLOCK_BYTES = 262144
"""A DuckDB database file (as this module writes it) is 3 headers of 4 KiB and whole 256 KiB blocks;
any other size is a truncated (or padded) file."""
MAX_ROWS = 2_000_000
"""The most ``history`` rows one read fetches (a real history holds tens of numbers per event)."""
MAX_TEXT_BYTES = 256 * 2**20
"""The most bytes of text one read fetches (every text column of every row fetched, added up)."""
MAX_VALUES = 20_000_000
"""The most per-game values (floats) one read of ``game_values`` fetches."""
DUCKDB_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "memory_limit": "1GB",
    "threads": 1,
    "lock_configuration": True,
}
"""Every connection to a history: nothing outside the database file can be read or written from SQL
(no ``read_csv('/etc/passwd')`` in a view, no extension loaded), at most 1 GB of DuckDB memory, and
no statement can change that (``lock_configuration``)."""

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


TABLES = ("balancer_history", "history", "game_values")


class HistoryError(ValueError):
    """A history file that cannot be used (not a DuckDB file, not a balancer history, a crafted or
    damaged one, another study's or game's, locked too long, an append that could not be made
    durable); ``str()`` is one line starting with the file's path."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextmanager
def _locked(path: Path, wait: float | None = None) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``PATH.lock`` (created if missing); wait up to ``wait`` seconds
    for another writer, then raise HistoryError."""
    wait = LOCK_WAIT if wait is None else wait
    lock = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise HistoryError(f"{path}: cannot open its lock file {lock.name} ({exc.strerror or exc})") from None
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
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
"""Files beside a history ``PATH``: ``PATH.lock`` (this module's lock) and ``PATH.wal`` (DuckDB's
write-ahead log, which an older balancer or DuckDB itself may have left)."""


def _refuse_planted(path: Path) -> None:
    """HistoryError when a symbolic link, or anything but a regular file, sits where one of
    its :data:`SIDE_FILES` is written (issue 28): DuckDB would follow a link at ``PATH.wal``."""
    from balancer.outdir import UnsafeOutputError, refuse_foreign

    for name in (path.with_name(path.name + s) for s in SIDE_FILES):
        try:
            refuse_foreign(name)
        except UnsafeOutputError as exc:
            raise HistoryError(f"{exc} (beside the history {path.name})") from None


def _refuse_foreign(path: Path) -> None:
    """HistoryError unless ``path`` is a regular file (not a symlink) that starts like a DuckDB file
    and is whole DuckDB blocks long."""
    _refuse_planted(path)
    if path.is_symlink():
        raise HistoryError(f"{path}: is a symbolic link; give the history file itself")
    if not path.is_file():
        raise HistoryError(f"{path}: not a regular file")
    with path.open("rb") as fh:
        head = fh.read(12)
        size = os.fstat(fh.fileno()).st_size
    if head[8:12] != MAGIC:
        raise HistoryError(f"{path}: not a balancer history (not a DuckDB database file)")
    if size < HEADER_BYTES or (size - HEADER_BYTES) % BLOCK_BYTES:
        raise HistoryError(
            f"{path}: a damaged history: truncated ({size:,} bytes is not a whole number of DuckDB blocks)"
        )


def _connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    import duckdb

    try:
        return duckdb.connect(str(path), read_only=read_only, config=dict(DUCKDB_CONFIG))
    except duckdb.Error as exc:
        raise HistoryError(f"{path}: not a readable balancer history ({_first_line(exc)})") from None


def _create(con: duckdb.DuckDBPyConnection, meta: Mapping[str, str]) -> None:
    cols = ", ".join(f'"{name}" {kind}' for name, kind in COLUMNS)
    con.execute("CREATE TABLE balancer_history (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
    con.executemany(
        "INSERT INTO balancer_history VALUES (?, ?)", [("kind", KIND), ("format", str(FORMAT)), *meta.items()]
    )
    con.execute(f"CREATE TABLE history ({cols})")
    con.execute(
        "CREATE TABLE game_values (event INTEGER NOT NULL, run VARCHAR NOT NULL, variant VARCHAR NOT NULL, "
        'number VARCHAR NOT NULL, seed BIGINT, "values" FLOAT[] NOT NULL)'
    )


_SCHEMA_SQL = (
    "SELECT table_name, column_name, data_type, is_nullable, column_default IS NULL AND NOT is_generated "
    "FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' "
    "AND table_name IN ('balancer_history', 'history', 'game_values') ORDER BY table_name, column_index"
)


@functools.cache
def expected_schema() -> dict[str, list[tuple[str, str, bool]]]:
    """Per table, the (column, DuckDB type, nullable) a history of this version holds, as DuckDB itself
    reports the tables :func:`_create` makes."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        _create(con, {})
        return _schema(con)
    finally:
        con.close()


def _schema(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str, bool]]]:
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for table, column, kind, nullable, plain in con.execute(_SCHEMA_SQL).fetchall():
        # a default or a generated column is code the file would run: shown as a type of its own
        out.setdefault(table, []).append((column, kind if plain else f"{kind} (computed)", bool(nullable)))
    return out


def _validate(con: duckdb.DuckDBPyConnection, path: Path) -> dict[str, str]:
    """The ``balancer_history`` meta of a history opened by :func:`_connect`, after checking that the
    file is made of this module's three base tables, column for column, and holds no view or macro;
    HistoryError (one line naming ``path`` and what is wrong) otherwise. Reads only the catalog and the
    few rows of ``balancer_history``."""
    import duckdb

    try:
        here = "database_name = current_database()"
        tables = {r[0] for r in con.execute(f"SELECT table_name FROM duckdb_tables() WHERE {here}").fetchall()}
        views = [
            r[0] for r in con.execute(f"SELECT view_name FROM duckdb_views() WHERE {here} AND NOT internal").fetchall()
        ]
        macros = [
            r[0]
            for r in con.execute(
                f"SELECT function_name FROM duckdb_functions() WHERE {here} AND NOT internal "
                "AND function_type IN ('macro', 'table_macro')"
            ).fetchall()
        ]
        if "balancer_history" not in tables and "balancer_history" not in views:
            raise HistoryError(f"{path}: a DuckDB database but not a balancer history (no balancer_history table)")
        for name in TABLES:
            if name in views:
                raise HistoryError(f"{path}: a crafted history: its {name} is a view, not a table; refused unread")
            if name not in tables:
                raise HistoryError(f"{path}: a damaged history: no {name} table")
        # code a write would run: a CHECK constraint, an index (expressions are evaluated on insert)
        checks = [
            r[0]
            for r in con.execute(
                f"SELECT table_name FROM duckdb_constraints() WHERE {here} "
                "AND constraint_type NOT IN ('NOT NULL', 'PRIMARY KEY')"
            ).fetchall()
        ]
        indexes = [r[0] for r in con.execute(f"SELECT index_name FROM duckdb_indexes() WHERE {here}").fetchall()]
        code = (
            [f"a view {v!r}" for v in views]
            + [f"a macro {m!r}" for m in macros]
            + [f"a constraint on {t!r}" for t in checks]
            + [f"an index {i!r}" for i in indexes]
        )
        if code:
            raise HistoryError(f"{path}: a crafted history: it holds {code[0]}; a balancer history holds tables only")
        found, wanted = _schema(con), expected_schema()
        for name in TABLES:
            have = {c: (k, n) for c, k, n in found.get(name, [])}
            for column, kind, nullable in wanted[name]:
                if column not in have:
                    raise HistoryError(f"{path}: a damaged history: its {name} table has no column {column!r}")
                if have[column] != (kind, nullable):
                    got = f"{have[column][0]}{'' if have[column][1] else ' NOT NULL'}"
                    raise HistoryError(
                        f"{path}: a damaged history: column {name}.{column} is {got}, "
                        f"not {kind}{'' if nullable else ' NOT NULL'}"
                    )
            extra = [c for c in have if c not in {w[0] for w in wanted[name]}]
            if extra:
                raise HistoryError(f"{path}: a damaged history: its {name} table has an unknown column {extra[0]!r}")
        rows = con.execute("SELECT left(key, 200), left(value, 1000) FROM main.balancer_history LIMIT 100").fetchall()
    except duckdb.Error as exc:
        raise HistoryError(f"{path}: not a readable balancer history ({_first_line(exc)})") from None
    meta = {str(k): str(v) for k, v in rows}
    if meta.get("kind") != KIND or meta.get("format") != str(FORMAT):
        raise HistoryError(f"{path}: not a balancer history of format {FORMAT} (kind {meta.get('kind')!r})")
    return meta


@contextmanager
def opened(path: Path | str) -> Iterator[tuple[duckdb.DuckDBPyConnection, dict[str, str]]]:
    """(a read-only, validated connection to the history at ``path``, its meta); closed on exit.
    HistoryError naming the file for a missing, foreign, damaged or crafted file (:func:`_validate`)."""
    import duckdb

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise HistoryError(f"{path}: no such history file (write one with 'balancer check ... --history {path}')")
    _refuse_foreign(path)
    con = _connect(path, read_only=True)
    try:
        meta = _validate(con, path)
        yield con, meta
    except duckdb.Error as exc:
        raise HistoryError(f"{path}: a damaged history ({_first_line(exc)})") from None
    finally:
        con.close()


def _check_owner(meta: Mapping[str, str], path: Path, study: str, game: str, study_id: str | None) -> None:
    if meta.get("game") != game:
        raise HistoryError(f"{path}: a history of game {meta.get('game')!r}, not {game!r}; give another file")
    if meta.get("study") != study:
        raise HistoryError(f"{path}: a history of study {meta.get('study')!r}, not {study!r}; give another file")
    if study_id is not None and meta.get("study_id") not in (None, study_id):
        raise HistoryError(
            f"{path}: a history of study {study!r} from the study file {meta['study_id']}, not {study_id}; "
            "a different study file of the same name needs a history of its own"
        )


def _check_writable(path: Path) -> None:
    """HistoryError unless a history at ``path`` could be created or replaced (its folder writable)."""
    if not path.exists() and not path.is_symlink():
        parent = path.absolute().parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise HistoryError(f"{path}: cannot be created ({parent} is not a writable directory)")
        return
    folder = path.absolute().parent
    if not os.access(path, os.W_OK):
        raise HistoryError(f"{path}: cannot be appended to (the file is not writable)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise HistoryError(
            f"{path}: cannot be appended to ({folder} is not a writable directory; the new file is written beside it)"
        )


def check_history_target(path: Path | str, study: str, game: str, study_id: str | None = None) -> None:
    """Raise HistoryError (one line naming ``path``) unless an append of ``study`` (of ``game``, from
    the study file ``study_id``) to ``path`` can work: a missing file in a writable directory, or a
    valid balancer history of that study in a writable directory. Changes nothing, takes no lock."""
    path = Path(path)
    _refuse_planted(path)
    _check_writable(path)
    if path.exists() or path.is_symlink():
        with opened(path) as (_, meta):
            _check_owner(meta, path, study, game, study_id)


class Reservation:
    """The right to append one or more events to a history, held from :func:`reserve` (before the
    study is played) until :meth:`close`: an exclusive lock of ``PATH.lock``, the file validated."""

    def __init__(self, path: Path, study: str, game: str, study_id: str | None, wait: float) -> None:
        self.path, self.study, self.game, self.study_id = path, study, game, study_id
        self._lock: AbstractContextManager[None] | None = _locked(path, wait)
        self._lock.__enter__()
        try:
            check_history_target(path, study, game, study_id)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release the lock (idempotent)."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.__exit__(None, None, None)

    def __enter__(self) -> Reservation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(
        self,
        rows: Sequence[Mapping[str, Any]],
        values: Mapping[tuple[str, str, str], tuple[int, np.ndarray]] | None = None,
    ) -> int:
        """Append one event (see :func:`append_event`); return its number."""
        if self._lock is None:
            raise RuntimeError("history reservation already closed")
        return _append_locked(self.path, self.study, self.game, self.study_id, rows, values)


def reserve(
    path: Path | str, study: str, game: str, study_id: str | None = None, wait: float | None = None
) -> Reservation:
    """Take the history at ``path`` for appending (:class:`Reservation`): its lock (waiting up to
    ``wait`` seconds for another writer), then the checks of :func:`check_history_target`. A command
    reserves before it plays, so a bad or busy history is refused before any game."""
    path = Path(path)
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    _refuse_planted(path)  # a link at PATH.lock would otherwise end in "too many levels of symbolic links"
    # checked once before the lock too, so a refused file (not a history, another study's) leaves no PATH.lock
    # beside it; Reservation checks again under the lock, against a writer that changed it meanwhile
    check_history_target(path, study, game, study_id)
    return Reservation(path, study, game, study_id, LOCK_WAIT if wait is None else wait)


def append_event(
    path: Path | str,
    study: str,
    game: str,
    rows: Sequence[Mapping[str, Any]],
    values: Mapping[tuple[str, str, str], tuple[int, np.ndarray]] | None = None,
    wait: float | None = None,
    study_id: str | None = None,
) -> int:
    """Append one event to the history at ``path`` (created when missing) under its lock; return its
    event number. ``rows``: one mapping per tracked number with the keys of :data:`COLUMNS` (``event``
    is set here; a missing key is NULL); ``values``: per (run, variant, number) ``(seed, per-game
    values)``.

    Raises HistoryError (naming ``path``; the file is left as it was) for a file that is not a valid
    balancer history, one of another study or game, a lock held longer than ``wait`` seconds, or an
    append that could not be written and checked in full.
    """
    with reserve(path, study, game, study_id, wait) as held:
        return held.append(rows, values)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _append_locked(
    path: Path,
    study: str,
    game: str,
    study_id: str | None,
    rows: Sequence[Mapping[str, Any]],
    values: Mapping[tuple[str, str, str], tuple[int, np.ndarray]] | None,
) -> int:
    """:func:`append_event`'s work, with the lock held: write the event into a copy beside the history,
    checkpoint and check it, then rename it over the history. Nothing of ``path`` changes on failure."""
    import duckdb

    names = [name for name, _ in COLUMNS]
    unknown = {k for r in rows for k in r} - set(names)
    if unknown:
        raise ValueError(f"history rows: unknown columns {sorted(unknown)}")
    _refuse_planted(path)
    new = not path.exists() and not path.is_symlink()
    meta: dict[str, str] = {"study": study, "game": game}
    if study_id is not None:
        meta["study_id"] = study_id
    have: dict[str, str] = {}
    if not new:
        with opened(path) as (_, have):
            _check_owner(have, path, study, game, study_id)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.absolute().parent)
    tmp = Path(tmp_name)
    wal = path.with_name(path.name + ".wal")
    try:
        try:
            with os.fdopen(fd, "wb") as out:
                if not new:
                    with path.open("rb") as src:
                        shutil.copyfileobj(src, out, 2**20)
            if new:
                tmp.unlink()  # DuckDB creates the database itself
            elif wal.is_file():  # a log an older writer left: replayed into the copy, then checkpointed
                shutil.copyfile(wal, tmp.with_name(tmp.name + ".wal"))
            if not new:
                os.chmod(tmp, path.stat().st_mode & 0o777)
        except OSError as exc:
            raise HistoryError(f"{path}: cannot append ({exc.strerror or exc}); the history is unchanged") from None
        con = _connect(tmp, read_only=False)
        try:
            if not new:
                _validate(con, path)
            con.execute("BEGIN TRANSACTION")
            if new:
                _create(con, meta)
            elif study_id is not None and "study_id" not in have:
                con.execute("INSERT INTO main.balancer_history VALUES ('study_id', ?)", [study_id])
            row = con.execute("SELECT coalesce(max(event), 0) + 1 FROM main.history").fetchall()[0]
            event = int(row[0]) if row else 1
            placeholders = ", ".join("?" for _ in names)
            quoted = ", ".join(f'"{n}"' for n in names)
            con.executemany(
                f"INSERT INTO main.history ({quoted}) VALUES ({placeholders})",
                [[event if n == "event" else r.get(n) for n in names] for r in rows],
            )
            if values:
                con.executemany(
                    'INSERT INTO main.game_values (event, run, variant, number, seed, "values") '
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        [event, run, variant, number, int(seed), np.asarray(v, dtype=np.float32).tolist()]
                        for (run, variant, number), (seed, v) in values.items()
                    ],
                )
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        except duckdb.Error as exc:
            raise HistoryError(f"{path}: cannot append ({_first_line(exc)}); the history is unchanged") from None
        finally:
            con.close()
        if tmp.with_name(tmp.name + ".wal").exists():
            raise HistoryError(
                f"{path}: cannot append (the new event could not be checkpointed); the history is unchanged"
            )
        try:
            _refuse_foreign(tmp)
            with opened(tmp) as (check, _):
                written = check.execute("SELECT count(*) FROM main.history WHERE event = ?", [event]).fetchall()[0]
        except HistoryError as exc:
            raise HistoryError(f"{path}: cannot append (the new file: {exc}); the history is unchanged") from None
        if not written or int(written[0]) != len(rows):
            raise HistoryError(
                f"{path}: cannot append (the new event did not read back whole); the history is unchanged"
            )
        try:
            with tmp.open("rb+") as fh:
                os.fsync(fh.fileno())
            if wal.is_file():
                wal.unlink()  # replayed into the new file
            os.replace(tmp, path)
        except OSError as exc:
            raise HistoryError(f"{path}: cannot append ({exc.strerror or exc}); the history is unchanged") from None
        _fsync_dir(path.absolute().parent)
        return event
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            try:
                leftover.unlink()
            except FileNotFoundError:
                pass
            except OSError:
                pass


_TEXT = [name for name, kind in COLUMNS if kind.startswith("VARCHAR")]


def fetch_rows(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    where: str = "TRUE",
    params: Sequence[Any] = (),
    columns: Sequence[str] | None = None,
) -> pl.DataFrame:
    """The ``history`` rows of a validated connection kept by the SQL condition ``where`` (with
    ``params``), ``columns`` of them (all by default; names of :data:`COLUMNS`), ordered by event,
    run, variant, number and test, after checking in DuckDB that they fit the bounds
    (:data:`MAX_ROWS` rows, :data:`MAX_TEXT_BYTES` of text); HistoryError otherwise."""
    names = [n for n, _ in COLUMNS]
    chosen = list(columns) if columns is not None else names
    if not set(chosen) <= set(names):
        raise ValueError(f"history columns: unknown {sorted(set(chosen) - set(names))}")
    text = " + ".join(f'coalesce(strlen("{c}"), 0)' for c in _TEXT if c in chosen) or "0"
    row = con.execute(
        f"SELECT count(*), coalesce(sum({text}), 0) FROM main.history WHERE {where}", list(params)
    ).fetchall()[0]
    n, size = int(row[0]), int(row[1])
    if n > MAX_ROWS:
        raise HistoryError(f"{path}: {n:,} rows to read, more than {MAX_ROWS:,}; draw fewer commits (--last)")
    if size > MAX_TEXT_BYTES:
        raise HistoryError(f"{path}: {size:,} bytes of text to read, more than {MAX_TEXT_BYTES:,}; refused")
    quoted = ", ".join(f'"{c}"' for c in chosen)
    query = f"SELECT {quoted} FROM main.history WHERE {where} ORDER BY event, run, variant, number, test"
    return con.sql(query, params=list(params) or None).pl()


def read_history(path: Path | str) -> tuple[pl.DataFrame, dict[str, str]]:
    """(the ``history`` table as a polars DataFrame ordered by event, run, variant, number and test;
    the file's ``balancer_history`` meta). Raises HistoryError naming ``path`` for a missing file, one
    that is not a valid balancer history (:func:`opened`), or one larger than the read bounds."""
    path = Path(path)
    with opened(path) as (con, meta):
        return fetch_rows(con, path), meta


def values_of(
    con: duckdb.DuckDBPyConnection, path: Path, events: Sequence[int]
) -> dict[tuple[int, str, str, str], tuple[int, np.ndarray]]:
    """:func:`read_values` on an open, validated connection."""
    if not events:
        return {}
    wanted = [sorted({int(e) for e in events})]
    kept = "FROM main.game_values WHERE event IN (SELECT unnest(?::INTEGER[]))"
    row = con.execute(f'SELECT coalesce(sum(len("values")), 0) {kept}', wanted).fetchall()[0]
    total = int(row[0]) if row else 0
    if total > MAX_VALUES:
        raise HistoryError(f"{path}: {total:,} per-game values to read, more than {MAX_VALUES:,}; refused")
    frame = con.sql(f'SELECT event, run, variant, number, seed, "values" {kept}', params=wanted).pl()
    if frame.is_empty():
        return {}
    # the lists as one flat float array cut at their lengths (no Python float per value)
    lengths = frame["values"].list.len().fill_null(0).to_numpy()
    flat = frame["values"].explode().drop_nulls().to_numpy().astype(np.float64)
    cuts = np.cumsum(lengths)[:-1]
    arrays = (
        np.split(flat, cuts) if len(flat) == int(lengths.sum()) else [np.asarray([], dtype=np.float64)] * len(lengths)
    )
    return {
        (int(e), r, v, n): (int(s) if s is not None else -1, arr)
        for (e, r, v, n, s), arr in zip(frame.select("event", "run", "variant", "number", "seed").iter_rows(), arrays)
    }


def read_values(path: Path | str, events: Sequence[int]) -> dict[tuple[int, str, str, str], tuple[int, np.ndarray]]:
    """The stored per-game values of ``events``: (event, run, variant, number) -> (seed, float64 values).
    HistoryError as :func:`read_history`, also above :data:`MAX_VALUES` values."""
    path = Path(path)
    if not events:
        return {}
    with opened(path) as (con, _):
        return values_of(con, path, events)
