"""The run directory: what ``balancer run`` writes and how it is read back (one place that knows
the layout; :class:`RunDir`).

::

    <out>/manifest.json            while a run is unfinished: the request and every chunk written
    <out>/chunks/chunk-NNNNNN.arrow   one file per finished chunk, Arrow IPC (written before its manifest entry)
    <out>/chunks/traj-NNNNNN.arrow    its trajectory rows, when the game records them (issue 49)
    <out>/results.parquet, run.json, summary.json   when finished (chunks merged in game order,
                                   streaming, one chunk in memory at a time; manifest and chunks removed)
    <out>/trajectories.parquet     when finished, if the game records trajectories and the run's flow is on
    <out>/run.lock                 while a run writes (balancer.sim.guards.run_lock)

Every file is written on a fresh temporary name (O_EXCL, O_NOFOLLOW) and renamed into place; a link or
a foreign file where one of these belongs is refused, and ``chunks/`` is emptied only of the run's own
chunk files (:mod:`balancer.outdir`, issue 28).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from balancer.limits import read_json_bounded
from balancer.outdir import open_exclusive, refuse_foreign, write_atomic

from .errors import ResumeError

RESULTS_FILE = "results.parquet"
TRAJECTORIES_FILE = "trajectories.parquet"
"""The trajectories of a finished run (the contract: :mod:`balancer.stats.flow`, whose constant of the
same name this equals)."""
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
CHUNKS_DIR = "chunks"
MANIFEST_FILE = "manifest.json"
COMPARISON_FILE = "comparison.json"
"""What ``balancer compare`` writes beside the two runs it plays (``a-<variant>/``, ``b-<variant>/``)."""
MANIFEST_FORMAT = 1
OWN_CHUNK_FILE = re.compile(r"(chunk|traj)-\d{6}\.arrow(\.tmp)?|\.(chunk|traj)-\d{6}\.arrow\.\d+-[0-9a-f]{8}\.tmp")
"""The names of a run's own files in ``chunks/``: a chunk or its trajectories, and one being written (the temporary
names of :func:`balancer.outdir.open_exclusive`, and ``.tmp`` of an older version); nothing else there
is deleted."""


def default_out_dir(
    game: str, variant: str, n_players: int, root: Path | str = "results", config: Path | str | None = None
) -> Path:
    """``results/<game>-<variant>-<p>p``, with characters unsafe in a file name replaced by '_'. With
    the ``config`` file it was read from, a variant that does not ship with balancer also carries 8 hex
    digits of that file's path (:func:`balancer.naming.input_label`: ``citywright-mine-1a2b3c4d-4p``),
    so two ``variant.yaml`` written by ``balancer init`` in different folders get different folders."""
    from balancer.naming import input_label, safe_name

    if config is not None:
        variant = input_label(config, variant)
    return Path(root) / safe_name(f"{game}-{variant}-{n_players}p")


@dataclass(frozen=True)
class RunDir:
    """A run directory at ``path`` (see the module docstring); it need not exist yet."""

    path: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))

    @property
    def results(self) -> Path:
        return self.path / RESULTS_FILE

    @property
    def trajectories(self) -> Path:
        return self.path / TRAJECTORIES_FILE

    @property
    def run_file(self) -> Path:
        return self.path / RUN_FILE

    @property
    def summary_file(self) -> Path:
        return self.path / SUMMARY_FILE

    @property
    def manifest_file(self) -> Path:
        return self.path / MANIFEST_FILE

    @property
    def chunks_dir(self) -> Path:
        return self.path / CHUNKS_DIR

    @property
    def finished_files(self) -> tuple[Path, Path, Path]:
        """What a finished run leaves: results.parquet, run.json, summary.json."""
        return self.results, self.run_file, self.summary_file

    def own_files(self) -> list[Path]:
        """Every file of the run a command reads (results.parquet, run.json, summary.json, manifest.json,
        trajectories.parquet, the chunks): none of them may be a command's output file
        (:func:`balancer.outdir.check_output_target`)."""
        chunks = sorted(self.chunks_dir.glob("*-*.arrow")) if self.chunks_dir.is_dir() else []
        chunks = [c for c in chunks if OWN_CHUNK_FILE.fullmatch(c.name)]
        return [*self.finished_files, self.manifest_file, self.trajectories, *chunks]

    def meta(self) -> dict[str, Any] | None:
        """``run.json`` as a dict, or None when it is missing, unreadable or not a JSON object."""
        try:
            meta = read_json_bounded(self.run_file, RUN_FILE)
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) else None

    def read_meta(self) -> dict[str, Any]:
        """``run.json`` of a finished run (OSError if missing, ValueError if not JSON)."""
        data: dict[str, Any] = read_json_bounded(self.run_file, RUN_FILE)
        return data

    def read_summary(self) -> dict[str, Any]:
        """``summary.json`` of a finished run (OSError if missing, ValueError if not JSON)."""
        data: dict[str, Any] = read_json_bounded(self.summary_file, SUMMARY_FILE)
        return data

    def holds_results(self) -> bool:
        """Whether finished results (``results.parquet``) are there."""
        return self.results.is_file()

    def is_finished(self, expected: Mapping[str, Any] | None = None, *, summary: bool = False) -> bool:
        """Whether the directory holds a finished run without failed games (``summary``: and its
        summary.json) whose run.json has every ``expected`` key at its value."""
        if not self.holds_results() or (summary and not self.summary_file.is_file()):
            return False
        meta = self.meta()
        if meta is None or meta.get("failed_games"):
            return False
        return all(meta.get(k) == v for k, v in (expected or {}).items())

    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest of an unfinished run here (:func:`read_manifest`)."""
        return read_manifest(self.path)

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        """Rewrite manifest.json atomically."""
        write_json(self.manifest_file, manifest)

    def write_run_json(self, info: Mapping[str, Any]) -> None:
        """Write run.json atomically."""
        write_json(self.run_file, info)

    def write_chunk(
        self,
        idx: int,
        start: int,
        stop: int,
        seed: int,
        table: pa.Table | None,
        failures: list[dict[str, Any]],
        trajectories: pa.Table | None = None,
        flow: bool = True,
    ) -> dict[str, Any]:
        """Write chunk ``idx`` (games ``start..stop-1``) and return its manifest entry (:func:`write_chunk`)."""
        return write_chunk(self.path, idx, start, stop, seed, table, failures, trajectories, flow=flow)

    def merge(self, entries: list[dict[str, Any]]) -> int:
        """Merge the chunks of ``entries`` into results.parquet (:func:`merge_chunks`); the rows written."""
        return merge_chunks(self.path, entries)

    def merge_trajectories(self, entries: list[dict[str, Any]], flow: bool = True) -> int:
        """Merge the chunks' trajectories into trajectories.parquet (:func:`merge_trajectories`)."""
        return merge_trajectories(self.path, entries, flow)


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Cast a chunk to the first chunk's schema; RuntimeError if the columns differ."""
    if table.schema.names != schema.names:
        raise RuntimeError(f"a chunk's columns {table.schema.names} differ from the first chunk's {schema.names}")
    return table.cast(schema, safe=True)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a new temporary file, then rename: :func:`balancer.outdir.write_atomic`)."""
    write_atomic(path, json.dumps(data, indent=1) + "\n")


def read_manifest(out_dir: Path | str) -> dict[str, Any] | None:
    """The manifest of an unfinished run in ``out_dir``, or None if there is none.

    Raises ResumeError if it exists but is not a readable manifest.
    """
    path = Path(out_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        data = read_json_bounded(path, "a manifest")
    except (OSError, ValueError) as exc:  # InputLimitError too: too large, too deep
        raise ResumeError(f"{path}: not a readable manifest ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT or not isinstance(data.get("chunks"), list):
        raise ResumeError(f"{path}: not a balancer manifest (format {MANIFEST_FORMAT})")
    return data


def chunk_file(idx: int) -> str:
    """A chunk's file: Arrow IPC (uncompressed), written and read back about ten times faster than
    Parquet; only results.parquet, merged from them at the end, is kept."""
    return f"{CHUNKS_DIR}/chunk-{idx:06d}.arrow"


def trajectory_file(idx: int) -> str:
    """The file of a chunk's trajectory rows (Arrow IPC, as :func:`chunk_file`)."""
    return f"{CHUNKS_DIR}/traj-{idx:06d}.arrow"


def read_chunk(path: Path) -> pa.Table:
    """The rows of a chunk file written by :meth:`RunDir.write_chunk`."""
    with pa.OSFile(str(path), "rb") as source:
        return pa.ipc.open_file(source).read_all()


TRAJECTORY_CHUNK_COMPRESSION = "zstd"
"""How a chunk's trajectory file is compressed (Arrow IPC): 2.5 million trajectory rows (20,000 Urgency
games) are 11 MB instead of 118, written in 0.15 CPU s instead of 0.86 and hashed in a tenth of the
time, read back in 0.23 s instead of 0.41. A chunk of results (40,000 rows) stays uncompressed: zstd
would add 0.03 CPU s to each, 9% of a million-game Urgency run."""


def _write_arrow(out_dir: Path, name: str, table: pa.Table, compression: str | None = None) -> str:
    """Write ``table`` to ``out_dir/name`` (Arrow IPC, its buffers compressed with ``compression`` when
    given; temporary name, then rename); its sha256."""
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with open_exclusive(out_dir / name) as (sink, tmp):
        with pa.ipc.new_file(sink, table.schema, options=options) as writer:
            writer.write_table(table)
        sink.flush()
        return sha256_of(tmp)


def write_chunk(
    out_dir: Path,
    idx: int,
    start: int,
    stop: int,
    seed: int,
    table: pa.Table | None,
    failures: list[dict[str, Any]],
    trajectories: pa.Table | None = None,
    *,
    flow: bool = True,
) -> dict[str, Any]:
    """Write one chunk's rows (temporary name, then rename) and return its manifest entry.

    With ``flow``, the entry's ``trajectories`` is None when the game recorded none, else the file of
    the chunk's ``trajectories`` rows (:func:`trajectory_file`, written first) with its ``sha256`` and
    ``rows``; without, the entry has no ``trajectories`` (not recorded: ``run --no-flow``)."""
    entry: dict[str, Any] = {
        "chunk": idx,
        "start": start,
        "stop": stop,
        "seed": seed,
        "rows": 0 if table is None else table.num_rows,
        "file": None,
        "sha256": None,
    }
    if flow:
        entry["trajectories"] = None
        if trajectories is not None and table is not None:
            sha = _write_arrow(out_dir, trajectory_file(idx), trajectories, TRAJECTORY_CHUNK_COMPRESSION)
            entry["trajectories"] = {"file": trajectory_file(idx), "sha256": sha, "rows": trajectories.num_rows}
    if table is not None:
        entry["sha256"] = _write_arrow(out_dir, chunk_file(idx), table)
        entry["file"] = chunk_file(idx)
    entry["failures"] = failures
    return entry


ROW_GROUP_ROWS = 25_000
"""Rows per Parquet row group of ``results.parquet``: small enough that the summary's streaming
queries decode little at a time (they read one row group per thread), large enough to compress."""


def merge_chunks(out_dir: Path, entries: list[dict[str, Any]]) -> int:
    """Stream the chunks, in game order, into ``results.parquet`` (one chunk in memory at a time);
    return the rows written. With no rows, removes any older results.parquet instead."""
    target = out_dir / RESULTS_FILE
    with_rows = [e for e in sorted(entries, key=lambda e: e["chunk"]) if e["rows"]]
    if not with_rows:
        refuse_foreign(target)
        target.unlink(missing_ok=True)
        return 0
    return _stream_chunks(target, [out_dir / entry["file"] for entry in with_rows])


TRAJECTORY_GROUP_ROWS = 1_000_000
"""Rows per Parquet row group of ``trajectories.parquet`` (about 8,000 two-player Urgency games, 40,000
Citywright ones): a row per seat and checkpoint makes these files 50 to 100 times the results', and
row groups of :data:`ROW_GROUP_ROWS` cost as much to write as the rows."""

TRAJECTORY_LAYOUT: dict[str, Any] = {
    "use_dictionary": ["variant"],
    "column_encoding": {"game_index": "DELTA_BINARY_PACKED", "checkpoint": "DELTA_BINARY_PACKED"},
    "write_statistics": ["game_index"],
}
"""How ``trajectories.parquet``'s columns are written: the one variant as a dictionary, the sorted
game and checkpoint numbers as deltas, statistics only on ``game_index`` (what the flow summary's
slices of games filter on). 2.5 million rows: 2.4 MB in 0.17 CPU s, against 4.3 MB in 0.35 s with a
dictionary and statistics on every column."""


def _stream_chunks(target: Path, files: list[Path], group_rows: int = ROW_GROUP_ROWS, **layout: Any) -> int:
    """Stream the chunk files ``files``, in their order, into the Parquet file ``target`` (one chunk in
    memory at a time, schemas conformed to the first; row groups of ``group_rows``, ``layout`` passed to
    the Parquet writer); return the rows written."""
    rows = 0
    with open_exclusive(target) as (sink, _):
        writer: pq.ParquetWriter | None = None
        try:
            for path in files:
                table = read_chunk(path)
                if writer is None:
                    writer = pq.ParquetWriter(sink, table.schema, compression="zstd", **layout)
                elif not table.schema.equals(writer.schema):
                    table = conform(table, writer.schema)
                writer.write_table(table, row_group_size=group_rows)
                rows += table.num_rows
                del table
        finally:
            if writer is not None:
                writer.close()
    return rows


def merge_trajectories(out_dir: Path, entries: list[dict[str, Any]], flow: bool = True) -> int:
    """Stream the chunks' trajectory rows, in game order, into ``trajectories.parquet``; return the rows
    written. Written only with ``flow`` when every chunk with rows recorded its trajectories; else any
    older trajectories.parquet is removed (a run of a game without standings, or ``run --no-flow``)."""
    target = out_dir / TRAJECTORIES_FILE
    with_rows = [e for e in sorted(entries, key=lambda e: e["chunk"]) if e["rows"]]
    parts = [e.get("trajectories") for e in with_rows]
    if not flow or not with_rows or not all(isinstance(p, dict) for p in parts):
        refuse_foreign(target)
        target.unlink(missing_ok=True)
        return 0
    files = [out_dir / part["file"] for part in parts if isinstance(part, dict)]
    return _stream_chunks(target, files, TRAJECTORY_GROUP_ROWS, **TRAJECTORY_LAYOUT)
