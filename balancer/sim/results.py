"""The files of a results directory, read and written: ``results.parquet`` (or its Parquet parts)
scanned lazily, ``run.json`` read, ``summary.json`` computed and written atomically. The statistics
themselves (:mod:`balancer.stats`) are pure functions over a polars LazyFrame; this module is the edge
where they meet the files, and says which file is at fault when one cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from balancer.limits import InputLimitError, read_json_bounded
from balancer.outdir import write_atomic
from balancer.sim.rundir import RESULTS_FILE, RUN_FILE, SUMMARY_FILE
from balancer.stats.aggregate import DEFAULT_CONFIDENCE, REQUIRED_COLUMNS, summarize
from balancer.stats.flow import TRAJECTORIES_FILE, flow_measures


class ResultsFileError(ValueError):
    """A file of a results directory is unreadable, corrupt or inconsistent; ``str()`` starts with
    the file's path (``results/x/run.json: not valid JSON (...)``)."""


_POLARS_ERRORS: tuple[type[BaseException], ...] = (
    pl.exceptions.PolarsError,
    getattr(pl.exceptions, "PanicException", pl.exceptions.PolarsError),
    OSError,
)


def _short(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def scan_results(results_dir: Path) -> pl.LazyFrame:
    """Lazily scan a results directory: ``results.parquet`` if present, else all ``*.parquet``.

    Raises:
        FileNotFoundError: if the directory holds no Parquet file.
    """
    results_dir = Path(results_dir)
    single = results_dir / RESULTS_FILE
    if single.is_file():
        return pl.scan_parquet(single, glob=False)  # glob=False: a folder named 'a[1' is a name, not a pattern
    parts = [p for p in sorted(results_dir.glob("*.parquet")) if p.name != TRAJECTORIES_FILE]
    if parts:
        return pl.scan_parquet(parts, glob=False)
    raise FileNotFoundError(f"no results found: {single} does not exist (nor any *.parquet there)")


def read_trajectories(results_dir: Path) -> pl.LazyFrame | None:
    """The run's trajectories (``trajectories.parquet``) as a lazy scan (read a slice of games at a
    time by :func:`balancer.stats.flow.flow_measures`, which checks the contract), or None when the
    run has none. Raises ResultsFileError naming the file when it is not a regular file (a FIFO, a
    directory, a dangling link) or not Parquet (the report and compare read it so)."""
    path = Path(results_dir) / TRAJECTORIES_FILE
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        raise ResultsFileError(f"{path}: not a regular file")
    try:
        scan = pl.scan_parquet(path, glob=False)
        scan.collect_schema()  # reads the file's footer: not Parquet fails here
        return scan
    except _POLARS_ERRORS as exc:
        raise ResultsFileError(f"{path}: cannot be read as Parquet ({_short(exc)})") from None


def read_json_object(path: Path) -> dict:
    """The JSON object stored in ``path``.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ResultsFileError: naming ``path`` if it cannot be read, is not valid JSON or not an object, is
            larger than :data:`~balancer.limits.MAX_JSON_BYTES` or nested deeper than
            :data:`~balancer.limits.MAX_DEPTH`.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    try:
        data = read_json_bounded(path)  # at most MAX_JSON_BYTES, nested at most MAX_DEPTH levels
    except InputLimitError as exc:
        text = str(exc)
        raise ResultsFileError(text.replace(": not UTF-8 text", ": not valid JSON (not UTF-8 text)")) from None
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except OSError as exc:
        raise ResultsFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not isinstance(data, dict):
        raise ResultsFileError(f"{path}: must hold a JSON object, got {type(data).__name__}")
    return data


def read_run_meta(results_dir: Path) -> dict:
    """Read ``run.json`` of a results directory.

    Raises:
        FileNotFoundError: if ``run.json`` is missing.
        ResultsFileError (a ValueError) naming ``run.json``: if it is unreadable, not valid JSON or
            not a JSON object.
    """
    path = Path(results_dir) / RUN_FILE
    if not path.is_file():
        raise FileNotFoundError(f"run metadata not found: {path} does not exist")
    return read_json_object(path)


def summarize_dir(results_dir: Path, meta: dict | None = None, confidence: float = DEFAULT_CONFIDENCE) -> dict:
    """:func:`summarize` of a results directory's Parquet data (``meta``: its run.json, read if None).

    Raises:
        FileNotFoundError: if the results or ``run.json`` are missing.
        ResultsFileError (a ValueError) naming the file: ``run.json`` unreadable; the Parquet data
            not readable (truncated, not Parquet, corrupt pages), lacking a required column, of the
            wrong types, or empty.
    """
    results_dir = Path(results_dir)
    if meta is None:
        meta = read_run_meta(results_dir)
    lf = scan_results(results_dir)
    single = results_dir / RESULTS_FILE
    where = single if single.is_file() else results_dir / "*.parquet"
    try:
        columns = lf.collect_schema().names()
    except _POLARS_ERRORS as exc:
        raise ResultsFileError(f"{where}: not a readable Parquet file ({_short(exc)})") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise ResultsFileError(
            f"{where}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
            "is this a results table written by 'balancer run'?"
        )
    try:
        summary = summarize(lf, meta, confidence)
        if meta.get("flow", True) is not False:
            summary["flow"] = _flow(lf, results_dir, confidence)
        return summary
    except ResultsFileError:
        raise  # names its own file (trajectories.parquet)
    except _POLARS_ERRORS as exc:
        kind = "not a readable Parquet file" if "parquet" in str(exc).lower() else "cannot be summarised"
        raise ResultsFileError(f"{where}: {kind} ({_short(exc)})") from None
    except ValueError as exc:
        raise ResultsFileError(f"{where}: {exc}") from None


def _flow(results: pl.LazyFrame, results_dir: Path, confidence: float) -> dict:
    """How the game feels (:func:`balancer.stats.flow.flow_measures`), with the run's trajectories
    where it holds ``trajectories.parquet``, as summary.json's ``flow``. Raises ResultsFileError
    naming ``trajectories.parquet`` when that file is not a regular file, not Parquet, or breaks
    its contract (:func:`balancer.stats.flow.check_trajectories`)."""
    path = results_dir / TRAJECTORIES_FILE
    scanned = None
    if path.exists() or path.is_symlink():
        if not path.is_file():
            raise ResultsFileError(f"{path}: not a regular file")
        try:
            scanned = pl.scan_parquet(path, glob=False)
            scanned.collect_schema()  # reads the footer: a file that is not Parquet fails here
        except _POLARS_ERRORS as exc:
            raise ResultsFileError(f"{path}: cannot be read as Parquet ({_short(exc)})") from None
    try:
        return flow_measures(results, scanned, confidence).to_dict()
    except ValueError as exc:
        if scanned is not None and "trajector" in str(exc):
            raise ResultsFileError(f"{path}: {exc}") from None
        raise


def write_summary(results_dir: Path, confidence: float = DEFAULT_CONFIDENCE) -> dict:
    """Compute ``summary.json`` for a results directory and write it beside the results.

    Reads ``results.parquet`` (or every ``*.parquet``) lazily and ``run.json``; writes
    ``summary.json`` atomically (temporary file, then rename), overwriting an older summary.

    Returns:
        the summary dict, as from :func:`summarize`.

    Raises:
        FileNotFoundError: if the results or ``run.json`` are missing.
        ResultsFileError (a ValueError) naming the file: see :func:`summarize_dir`.
    """
    results_dir = Path(results_dir)
    summary = summarize_dir(results_dir, None, confidence)
    # a new temporary file (O_EXCL, O_NOFOLLOW) renamed into place; a link as summary.json is refused
    write_atomic(results_dir / SUMMARY_FILE, json.dumps(summary, indent=2, allow_nan=False) + "\n")
    return summary
