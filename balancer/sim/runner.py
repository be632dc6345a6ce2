"""Play a run into its run directory (:func:`run_to_dir`; docs/architecture.md, "Results"), and the names of
the layers below it, re-exported for the code that imports them from here.

Chunks of consecutive games run in joblib's loky workers or on a Dask cluster
(:mod:`balancer.sim.parallel`), each a pure function of (config, agents, seed, game range)
(:mod:`balancer.sim.play`, rows: :mod:`balancer.sim.records`). The caller writes every chunk to its
own file and lists it in a manifest (:mod:`balancer.sim.rundir`), so an interrupted run can be
resumed, and merges the chunks in game order at the end, one at a time, so memory stays flat in the
number of games. The request is checked first (:mod:`balancer.sim.request`), the directory guarded
(:mod:`balancer.sim.guards`) and the run's provenance recorded (:mod:`balancer.sim.provenance`).

Rows: one per seat per game (long format), columns
``variant, game, n_players, game_index, seed, seat, agent, score, rank, win_share, turns``, then
``score_<component>`` per ``Outcome.components`` key and ``metric_<name>`` per ``Outcome.metrics``
key, in the order the game reports them.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from balancer.core.registry import GameSpec
from balancer.core.tables import seat_design
from balancer.outdir import clear_own_files, normalised, own_directory, remove_own_folder

from .errors import (
    LIBRARY,
    GamesFailedError,
    OutDirError,
    ResultsExistError,
    ResumeError,
    RunInterrupted,
    RunLockedError,
    RunRequestError,
    SchedulerError,
)
from .guards import LOCK_FILE, check_lock, check_out_dir, run_lock
from .parallel import (
    CONNECT_TIMEOUT,
    ChunkPlan,
    cluster_threads,
    connect_scheduler,
    default_chunk_size,
    delayed,
    parallel,
    resolve_jobs,
)
from .play import play_chunk, play_chunk_records, play_chunk_safe, run_games
from .progress import Overall, RunProgress
from .provenance import SHARED_ENGINE_CODE, engine_sha256, package_versions, replay_command
from .request import (
    MAX_SEED,
    check_run,
    counts_text,
    parse_agents,
    supported_player_counts,
    table_chunk_games,
    table_note,
)
from .rundir import (
    CHUNKS_DIR,
    MANIFEST_FILE,
    MANIFEST_FORMAT,
    OWN_CHUNK_FILE,
    RESULTS_FILE,
    RUN_FILE,
    RunDir,
    conform,
    default_out_dir,
    read_chunk,
    read_manifest,
    sha256_of,
)
from .warmup import compile_after, is_warm, mark_warm, record_duration, turned_out, warmup_note, warmup_of

__all__ = [
    "CHUNKS_DIR",
    "CONNECT_TIMEOUT",
    "LOCK_FILE",
    "MANIFEST_EVERY",
    "MANIFEST_FILE",
    "MANIFEST_FORMAT",
    "MAX_LISTED_FAILURES",
    "MAX_SEED",
    "RESULTS_FILE",
    "RUN_FILE",
    "SHARED_ENGINE_CODE",
    "ChunkPlan",
    "GamesFailedError",
    "OutDirError",
    "ResultsExistError",
    "ResumeError",
    "RunDir",
    "RunInterrupted",
    "RunLockedError",
    "RunRequest",
    "RunRequestError",
    "SchedulerError",
    "check_lock",
    "check_out_dir",
    "check_run",
    "cluster_threads",
    "conform",
    "connect_scheduler",
    "counts_text",
    "default_chunk_size",
    "default_out_dir",
    "engine_sha256",
    "package_versions",
    "parallel",
    "parse_agents",
    "play_chunk",
    "play_chunk_safe",
    "read_manifest",
    "replay_command",
    "resolve_jobs",
    "run_games",
    "run_lock",
    "run_to_dir",
    "seat_win_rates",
    "sha256_of",
    "supported_player_counts",
    "table_chunk_games",
    "table_note",
]

MAX_LISTED_FAILURES = 1000  # failures kept with details in run.json (all are counted)
MANIFEST_EVERY = 0.5  # seconds between rewrites of the manifest while chunks finish (and once at the end)


# --------------------------------------------------------------------------------------------------
# the request and its resume


@dataclass(frozen=True)
class RunRequest:
    """What a run plays: ``games`` games of ``spec`` under ``cfg`` (read from ``config_path``) with
    ``agents`` seated at game 0 and the run seed ``seed``; checked by :func:`check_run`."""

    spec: GameSpec
    cfg: Any
    config_path: Path | str
    agents: list[str]
    games: int
    seed: int

    def identity(self) -> dict[str, Any]:
        """The request as the manifest records it: what a resumed run must repeat (the config's and
        the engine's fingerprints included)."""
        from balancer.config import config_sha256

        return {
            "game": self.spec.name,
            "variant": str(getattr(self.cfg, "variant", "")),
            "config_path": str(self.config_path),
            "config_sha256": config_sha256(self.config_path),
            "engine_sha256": engine_sha256(self.spec),
            "n_players": len(self.agents),
            "agents": self.agents,
            "games": self.games,
            "seed": self.seed,
        }

    def replay(self, game_index: int) -> str:
        """The ``balancer play`` command that replays game ``game_index`` (:func:`replay_command`)."""
        return replay_command(self.config_path, self.agents, self.seed, game_index)


_REQUEST_LABELS = {
    "game": "game",
    "variant": "variant",
    "config_sha256": "config content",
    "engine_sha256": "engine code",
    "agents": "--agents",
    "n_players": "--players",
    "games": "--games",
    "seed": "--seed",
}


def _request_differences(
    manifest: dict[str, Any], request: dict[str, Any], chunk_size: int | None, force: str = LIBRARY.force
) -> list[str]:
    """What differs between a manifest's request and ``request`` (:meth:`RunRequest.identity`), one
    phrase each (``"--games 100 (now 90)"``; ``force`` spells the option that replays); empty when the
    run can be resumed."""
    diffs = []
    for key, label in _REQUEST_LABELS.items():
        if manifest.get(key) != request[key]:
            was, now = manifest.get(key), request[key]
            if key == "agents":
                was, now = ",".join(map(str, was or [])), ",".join(now)
            if key == "config_sha256":
                diffs.append(f"config content (the YAML of {request['config_path']} changed)")
            elif key == "engine_sha256":
                diffs.append(f"engine code (the game's rules or agents changed since; replay with {force})")
            else:
                diffs.append(f"{label} {was} (now {now})")
    if chunk_size is not None and manifest.get("chunk_size") != chunk_size:
        diffs.append(f"--chunk-size {manifest.get('chunk_size')} (now {chunk_size})")
    return diffs


def _manifest_to_resume(
    out_dir: Path, request: dict[str, Any], resume: bool | None, chunk_size: int | None
) -> dict[str, Any] | None:
    """The manifest of the interrupted run to continue, or None to start over (see :func:`run_to_dir`'s
    ``resume``). Raises ResumeError for ``resume=True`` without a manifest, or with one of another request."""
    manifest = read_manifest(out_dir) if resume is not False else None
    if resume is True:
        if manifest is None:
            what = f"holds finished results ({RESULTS_FILE}) and" if (out_dir / RESULTS_FILE).exists() else ""
            raise ResumeError(
                lambda o: (
                    f"{out_dir} {what} has no {MANIFEST_FILE}: there is no interrupted run to continue".replace(
                        "  ", " "
                    )
                    + f"; run without {o.resume}"
                    + (f" and with {o.force}" if what else "")
                )
            )
        found = manifest
        if _request_differences(found, request, chunk_size):
            raise ResumeError(
                lambda o: (
                    f"{out_dir} was started with different arguments: "
                    + "; ".join(_request_differences(found, request, chunk_size, o.force))
                )
            )
    elif manifest is not None and _request_differences(manifest, request, chunk_size):
        manifest = None  # resume=None: a different request starts over
    return manifest


def _foreign_chunk(
    path: Path, manifest: dict[str, Any], start: int, stop: int, columns: tuple[str, ...] = ("seed", "variant")
) -> str | None:
    """What in the chunk file at ``path`` is not of the run of ``manifest`` (its games ``start..stop-1``,
    its seed, its variant), in words; None when every row is the run's. A checksum written into the
    manifest vouches only that the file was not changed since: a chunk copied from another run is
    caught by its own rows (issue 52). ``columns``: those checked against the manifest (a chunk's
    trajectories have no ``seed``)."""
    import pyarrow.compute as pc

    table = read_chunk(path)
    for column in columns:
        expected = manifest.get(column)
        if column not in table.column_names:
            return f"has no {column} column"
        found = pc.unique(table.column(column)).to_pylist()
        if found != [expected]:
            return f"holds games of {column} {', '.join(map(str, found))} (this run's is {expected})"
    if "game_index" not in table.column_names:
        return "has no game_index column"
    bounds = pc.min_max(table.column("game_index")).as_py()
    if bounds["min"] is not None and (bounds["min"] < start or bounds["max"] >= stop):
        return f"holds games {bounds['min']} to {bounds['max']}, not of its range {start} to {stop - 1}"
    return None


def _not_this_run(path: Path | None, foreign: str) -> ResumeError:
    """The ResumeError of a chunk file whose rows are not of this run (:func:`_foreign_chunk`)."""
    return ResumeError(lambda o: f"{path}: {foreign}: not a chunk of this run; start over with {o.force}")


def _valid_entries(
    out_dir: Path, manifest: dict[str, Any], plan: ChunkPlan, flow: bool = True
) -> dict[int, dict[str, Any]]:
    """Manifest entries whose chunk file is present with its checksum (or that hold no rows), and, with
    ``flow``, whose trajectories were recorded (by a run with its flow on) with their file and
    checksum. Raises ResumeError naming the file for a chunk whose rows are of another run (another
    seed or variant, games outside its range: :func:`_foreign_chunk`), checked on every resume."""
    kept = {}
    for entry in manifest["chunks"]:
        foreign, path = None, None
        try:
            idx = int(entry["chunk"])
            if plan.get(idx) != (entry["start"], entry["stop"]):
                continue
            if entry.get("seed", manifest.get("seed")) != manifest.get("seed"):
                continue  # an entry of another seed: played again
            if entry["rows"]:
                path = out_dir / entry["file"]
                if not path.is_file() or sha256_of(path) != entry["sha256"]:
                    continue
                try:
                    foreign = _foreign_chunk(path, manifest, int(entry["start"]), int(entry["stop"]))
                except (OSError, ValueError) as exc:  # not an Arrow file: pyarrow's ArrowInvalid is a ValueError
                    foreign = f"cannot be read ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                part = entry.get("trajectories", False)
                if flow and foreign is None and part is False:
                    continue  # played without its trajectories (run --no-flow): played again
                if flow and foreign is None and isinstance(part, dict):
                    path = out_dir / part["file"]
                    if not path.is_file() or sha256_of(path) != part["sha256"]:
                        continue
                    try:
                        foreign = _foreign_chunk(
                            path, manifest, int(entry["start"]), int(entry["stop"]), columns=("variant",)
                        )
                    except (OSError, ValueError) as exc:
                        foreign = f"cannot be read ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        except (KeyError, TypeError, ValueError):
            continue
        if foreign is not None:
            raise _not_this_run(path, foreign)
        kept[idx] = entry
    return kept


def _open_manifest(
    out_dir: Path,
    manifest: dict[str, Any] | None,
    request: dict[str, Any],
    size: int,
    plan: ChunkPlan,
    flow: bool = True,
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The manifest this session writes (a new one, or the resumed one with its valid chunks only) and
    those chunks' entries by index; chunk files it does not list are removed, and it is written."""
    chunks_dir = out_dir / CHUNKS_DIR
    if manifest is None:
        remove_own_folder(chunks_dir, OWN_CHUNK_FILE)  # a link or a file of anyone else there: refused
        done: dict[int, dict[str, Any]] = {}
        manifest = {
            "format": MANIFEST_FORMAT,
            **request,
            "chunk_size": size,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "elapsed_seconds": 0.0,
            "chunks": [],
        }
    else:
        done = _valid_entries(out_dir, manifest, plan, flow)
    own_directory(chunks_dir)
    listed = {e["file"].rsplit("/", 1)[-1] for e in done.values() if e.get("file")}
    listed |= {
        e["trajectories"]["file"].rsplit("/", 1)[-1] for e in done.values() if isinstance(e.get("trajectories"), dict)
    }
    clear_own_files(chunks_dir, OWN_CHUNK_FILE, keep=frozenset(listed))  # half-written or unlisted chunks
    manifest["chunks"] = [done[i] for i in sorted(done)]
    manifest["config_path"] = request["config_path"]
    RunDir(out_dir).write_manifest(manifest)
    return manifest, done


# --------------------------------------------------------------------------------------------------
# the chunk loop


class _ManifestLog:
    """Lists finished chunks in the manifest on disk: rewritten at most every :data:`MANIFEST_EVERY`
    seconds (a run of many small chunks would spend more time on it than on play), and on demand
    (:meth:`flush`, at the end and on Ctrl-C). Counts the run's time, earlier sessions' included."""

    def __init__(self, out_dir: Path, manifest: dict[str, Any]):
        self.run_dir, self.manifest = RunDir(out_dir), manifest
        self.elapsed_before = float(manifest.get("elapsed_seconds", 0.0))
        self.t0 = time.perf_counter()
        self.unlisted = 0  # chunks written but not yet in the manifest on disk
        self.listed_at = self.t0

    def elapsed(self) -> float:
        """Seconds the run has played, earlier sessions included."""
        return self.elapsed_before + time.perf_counter() - self.t0

    def add(self, entry: dict[str, Any]) -> None:
        """A chunk written to its file: listed now, or with the next rewrite."""
        self.manifest["chunks"].append(entry)
        self.unlisted += 1
        if time.perf_counter() - self.listed_at >= MANIFEST_EVERY:
            self._write()

    def flush(self) -> None:
        """Rewrite the manifest when some chunk is not listed in it yet."""
        if self.unlisted:
            self._write()

    def _write(self) -> None:
        self.manifest["elapsed_seconds"] = round(self.elapsed(), 3)
        self.run_dir.write_manifest(self.manifest)
        self.unlisted, self.listed_at = 0, time.perf_counter()


def _play_chunks(
    request: RunRequest,
    out_dir: Path,
    plan: ChunkPlan,
    done_entries: dict[int, dict[str, Any]],
    log: _ManifestLog,
    n_jobs: int,
    client: Any,
    progress: bool,
    overall: Overall | None = None,
    flow: bool = True,
) -> None:
    """Play the chunks of ``plan`` not in ``done_entries``, each written to its file (and, with ``flow``,
    its trajectories to theirs) and listed through
    ``log`` as it finishes, with the progress shown (:class:`~balancer.sim.progress.RunProgress`, beside
    ``overall``'s count when given) and the warm-up's duration recorded (:mod:`balancer.sim.warmup`).
    Raises RunInterrupted on Ctrl-C, with the finished chunks listed."""
    spec, cfg, agents, seed, games = request.spec, request.cfg, request.agents, request.seed, request.games
    run_dir = RunDir(out_dir)
    pending = ((i, a, b) for i, (a, b) in plan.items() if i not in done_entries)
    n_pending = len(plan) - len(done_entries)
    done = sum(plan[i][1] - plan[i][0] for i in done_entries)
    warmup = warmup_of(spec, agents)
    warm = is_warm(warmup)
    shown = RunProgress(
        games,
        progress,
        done=done,
        warm_chunks=min(n_jobs, n_pending),  # each worker's first chunk: start-up, compiling
        warmup=("", "") if warm else warmup_note(warmup),
        late=None if warm else compile_after(warmup),
        overall=overall,
    )
    try:
        with shown:
            if n_pending:
                me = os.getpid()  # the workers' parent, whose death they watch
                play = play_chunk_records
                tasks = (delayed(play)(i, spec.module, cfg, agents, seed, a, b, me, flow) for i, a, b in pending)
                for idx, table, failures, trajectories in parallel(n_jobs, client, ordered=False)(tasks):
                    a, b = plan[idx]
                    for f in failures:
                        f["replay"] = request.replay(f["game_index"])
                    log.add(run_dir.write_chunk(idx, a, b, seed, table, failures, trajectories, flow=flow))
                    done += b - a
                    shown.update(b - a)
    except KeyboardInterrupt:
        log.flush()
        raise RunInterrupted(out_dir, done, games) from None
    finally:
        if overall is not None:
            overall.end_cell(shown.clock)
    log.flush()
    took = shown.clock.warmup_seconds()
    if took is not None:  # start-up (numba compiling or loading, workers starting), kept apart from play
        log.manifest["warmup_seconds"] = round(float(log.manifest.get("warmup_seconds") or 0.0) + took, 3)
    if not warm and took is not None:
        if warmup.what():  # a load that ran past its limit compiled: recorded as the compile it was
            record_duration(turned_out(warmup, took), took)
        mark_warm(warmup)


# --------------------------------------------------------------------------------------------------
# finishing: results.parquet, run.json, summary.json


def _write_summary(out_dir: Path) -> None:
    """Write summary.json beside results.parquet (balancer.stats.aggregate, imported lazily).

    Skipped with a warning only when that module does not exist yet.
    """
    try:
        from balancer.sim.results import write_summary
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("balancer.stats"):
            warnings.warn(f"summary.json not written: {exc}", RuntimeWarning, stacklevel=2)
            return
        raise
    write_summary(out_dir)


def _mcts_budget(cfg: Any, agents: Sequence[str]) -> int | None:
    """The variant's default MCTS budget (``agents.mcts.iterations``) when a seat plays a plain
    ``mcts``: run.json records it, so that pages show ``mcts@60``, not a budget-less ``mcts``."""
    if "mcts" not in agents:
        return None
    found = getattr(getattr(getattr(cfg, "agents", None), "mcts", None), "iterations", None)
    return int(found) if isinstance(found, int) else None


def _run_info(
    request: RunRequest,
    identity: dict[str, Any],
    manifest: dict[str, Any],
    failures: list[dict[str, Any]],
    elapsed: float,
    settings: dict[str, Any],
) -> dict[str, Any]:
    """run.json: the request, how it was played (``settings``: ``jobs, scheduler, chunk_size,
    command``), its time, failures, versions and what the result columns mean."""
    from balancer.config import assumed_notes, resolve_yaml

    spec, agents, games = request.spec, request.agents, request.games
    note = table_note(spec, request.cfg, agents)
    return {
        "game": identity["game"],
        "game_title": spec.display_name,  # how the report names the game ("Águeda: City of Umbrellas")
        **{k: identity[k] for k in ("variant", "config_path", "config_sha256", "engine_sha256")},
        "assumed": assumed_notes(resolve_yaml(request.config_path).data),
        "n_players": len(agents),
        "agents": agents,
        **({"mcts_iterations": budget} if (budget := _mcts_budget(request.cfg, agents)) is not None else {}),
        "seat_design": seat_design(agents, games),
        **({"table_note": note} if note else {}),
        "games": games,
        "seed": request.seed,
        "jobs": settings["jobs"],
        "scheduler": settings["scheduler"],
        "chunk_size": settings["chunk_size"],
        "flow": bool(settings.get("flow", True)),
        "checkpoint": spec.checkpoint,  # what ends a checkpoint of trajectories.parquet (the flow figures' axis)
        "started": manifest["started"],
        "elapsed_seconds": round(elapsed, 3),
        # of elapsed_seconds, the sessions' warm-up (numba compiling or loading the engine, workers
        # starting: RunProgress's clock, play excluded); absent for a run that recorded none
        **({"warmup_seconds": manifest["warmup_seconds"]} if manifest.get("warmup_seconds") is not None else {}),
        "games_per_second": round(games / max(elapsed, 1e-9), 1),
        "failed_games": len(failures),
        "failures": failures[:MAX_LISTED_FAILURES],
        "versions": package_versions(),
        "command": settings["command"],
        # what the score_* and metric_* columns mean (balancer.core.metrics)
        **({"metric_specs": spec.metrics.to_json()} if spec.metrics is not None else {}),
    }


def _why_no_trajectories(spec: GameSpec, agents: Sequence[str]) -> str:
    """Why a run played with trajectories on kept none (run.json's ``no_trajectories``, shown on the
    report): a table with a search seat is played by the generic search loop, which records standings
    only in a game whose engine gives it ``record_checkpoint`` (or whose state keeps them, as Urgency's);
    otherwise the game records none."""
    from balancer.agents.tables import has_mcts

    if has_mcts(agents):
        return (
            f"in {spec.display_name or spec.name}, a table with an mcts seat is played by the generic search "
            "loop, which records no standings in this game yet; tables of greedy and random seats record them"
        )
    return (
        f"in {spec.display_name or spec.name}, a table of {', '.join(dict.fromkeys(agents))} is played by a loop "
        "that records no standings"
    )


def _finish(
    request: RunRequest,
    identity: dict[str, Any],
    out_dir: Path,
    manifest: dict[str, Any],
    elapsed: float,
    settings: dict[str, Any],
) -> None:
    """Merge the chunks into results.parquet, write run.json and summary.json, remove the manifest and
    chunks. Raises RunInterrupted on Ctrl-C, GamesFailedError (after writing) when games raised."""
    games = request.games
    entries = sorted(manifest["chunks"], key=lambda e: e["chunk"])
    failures = [f for e in entries for f in e.get("failures", [])]
    run_dir = RunDir(out_dir)
    try:
        rows = run_dir.merge(entries)
        kept = run_dir.merge_trajectories(entries, bool(settings.get("flow", True)))
        info = _run_info(request, identity, manifest, failures, elapsed, settings)
        if rows and not kept and info["flow"]:  # the page says why its flow section has no curve
            info["no_trajectories"] = _why_no_trajectories(request.spec, request.agents)
        run_dir.write_run_json(info)
        if rows:
            _write_summary(out_dir)
        else:
            run_dir.summary_file.unlink(missing_ok=True)
        run_dir.manifest_file.unlink()
        remove_own_folder(run_dir.chunks_dir, OWN_CHUNK_FILE)
    except KeyboardInterrupt:
        raise RunInterrupted(out_dir, games, games) from None
    if failures:
        raise GamesFailedError(out_dir, failures[:MAX_LISTED_FAILURES], len(failures), games)


# --------------------------------------------------------------------------------------------------
# a run


def run_to_dir(
    spec: GameSpec,
    cfg: Any,
    config_path: Path | str,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int,
    out_dir: Path | str,
    force: bool = False,
    command: str = "",
    chunk_size: int | None = None,
    progress: bool = True,
    scheduler: str | None = None,
    resume: bool | None = False,
    overall: Overall | None = None,
    checked: bool = False,
    flow: bool = True,
) -> Path:
    """Play a run and write ``out_dir/results.parquet``, ``run.json`` and ``summary.json``; return ``out_dir``.

    ``flow``: summary.json holds how the game feels (margin, scores by seat, length:
    :func:`balancer.stats.flow.flow_measures`), and, when the game records trajectories
    (``Outcome.standings``, ``GameBatch.standings``), each chunk's trajectory rows are written beside
    it (``chunks/traj-NNNNNN.arrow``, listed with their sha256 in the chunk's manifest entry) and merged
    into ``trajectories.parquet`` in game order; False leaves both out (no trajectory chunk is written,
    and a trajectories.parquet found is removed), for runs of a million games (2 to 4 CPU s and about
    120 MiB a million games), and ``run.json`` records the choice. A resumed run with ``flow`` plays
    again the chunks whose trajectories were not recorded.

    While it writes, the run holds ``out_dir/run.lock`` (:func:`run_lock`): a second run on the same
    directory is refused with RunLockedError naming the first one's process id.

    Games are played in chunks (``chunk_size`` games; default :func:`default_chunk_size`) by
    ``jobs`` loky processes, or by every worker of the Dask cluster at ``scheduler``
    (``tcp://host:8786``). Each finished chunk is written to ``out_dir/chunks/`` and then listed in
    ``out_dir/manifest.json`` (chunk, game range, seed, rows, sha256, failures; the manifest is
    rewritten at most every :data:`MANIFEST_EVERY` seconds, and on Ctrl-C: a chunk written but
    not yet listed when the process is killed is played again by ``--resume``); at the end the
    chunks are merged in game order into results.parquet and removed with the manifest. Results
    are identical for any ``jobs``, ``chunk_size``, cluster or resume.

    ``resume``: True continues the interrupted run in ``out_dir``, playing only the chunks missing
    from its manifest (a chunk file not listed, or whose checksum differs, is discarded) with the
    manifest's chunk size; None resumes when a manifest of the same request exists and starts
    over otherwise; False starts over (refusing an interrupted run unless ``force``).

    ``progress``: show it on stderr (a bar on a terminal, plain lines otherwise:
    :class:`~balancer.sim.progress.RunProgress`); ``overall``: the count of the study, ladder or tune
    this run is a cell of, shown beside it (the caller begins the cell; the run ends it).
    ``checked``: the caller checked this request at the library's boundary (``balancer.run``, a
    study's :func:`~balancer.study.runner.check_study`, a comparison, ``--until-ci``), so it is not
    checked again (:func:`check_run`).

    Raises, before anything is created: ResultsExistError (finished results or an interrupted run
    and not ``force``), OutDirError, RunRequestError (a ValueError) for a bad request
    (:func:`check_run`), SchedulerError (unreachable scheduler), ResumeError (no manifest, or a
    manifest of different arguments, naming them). After writing everything else:
    GamesFailedError when games raised (listed in run.json, with replay commands). On Ctrl-C /
    SIGTERM: RunInterrupted (a KeyboardInterrupt) with the finished chunks and manifest on disk.
    """
    with ExitStack() as locks:  # the directory's lock, once the directory exists
        out_dir = normalised(out_dir)
        request = RunRequest(spec, cfg, config_path, list(agents), games, seed)
        if not checked:  # else checked at the library's boundary: a run is checked once
            check_run(spec, cfg, request.agents, games, seed, jobs, chunk_size)
        check_out_dir(out_dir, force, resume)
        identity = request.identity()
        manifest = _manifest_to_resume(out_dir, identity, resume, chunk_size)
        client = connect_scheduler(scheduler) if scheduler else None
        try:
            n_jobs = cluster_threads(client) if client is not None else resolve_jobs(jobs)
            size = (
                int(manifest["chunk_size"])
                if manifest
                else (chunk_size or default_chunk_size(games, n_jobs, table_chunk_games(spec, cfg, request.agents)))
            )
            plan = ChunkPlan(games, size)
            out_dir.mkdir(parents=True, exist_ok=True)  # normalised above: out/a/../X creates no out/a
            locks.enter_context(run_lock(out_dir))
            manifest, done_entries = _open_manifest(out_dir, manifest, identity, size, plan, flow)
            log = _ManifestLog(out_dir, manifest)
            _play_chunks(request, out_dir, plan, done_entries, log, n_jobs, client, progress, overall, flow)
        finally:
            if client is not None:
                client.close()
        settings = {"jobs": n_jobs, "scheduler": scheduler, "chunk_size": size, "command": command, "flow": flow}
        _finish(request, identity, out_dir, manifest, log.elapsed(), settings)
        return out_dir


def seat_win_rates(out_dir: Path | str) -> dict[str, list[tuple[Any, float, int]]]:
    """Mean win share by seat and by agent: ``{"seat": [(1, 0.26, games), ...], "agent": [...]}``.

    A quick look for the CLI (read lazily); the intervals and tests live in balancer.stats.
    """
    import polars as pl

    lf = pl.scan_parquet(Path(out_dir) / RESULTS_FILE, glob=False).select("seat", "agent", "win_share")
    out: dict[str, list[tuple[Any, float, int]]] = {}
    for key in ("seat", "agent"):
        agg = lf.group_by(key).agg(pl.col("win_share").mean().alias("rate"), pl.len().alias("n")).sort(key).collect()
        out[key] = [(row[key], float(row["rate"]), int(row["n"])) for row in agg.iter_rows(named=True)]
    return out
