"""Playing a run in batches: any range of its games (:func:`play_range`, for ``balancer check``) and
a run that stops once its win-rate intervals are narrow enough (:func:`run_until_ci`, for
``balancer run --until-ci``).

Game ``i`` of a run is the same game whichever batch plays it (its seed is ``game_seed(seed, i)``
and its seats ``seat_agents(agents, i)``), so batches add up to exactly a plain run.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from balancer.config import config_sha256
from balancer.core.registry import GameSpec
from balancer.core.tables import is_mirror
from balancer.outdir import normalised, own_directory, refuse_foreign, remove_own_folder

from .errors import RunRequestError
from .guards import check_out_dir, run_lock
from .parallel import default_chunk_size, delayed, parallel, resolve_jobs
from .play import play_chunk_records
from .provenance import engine_sha256
from .request import check_run, table_chunk_games
from .rundir import CHUNKS_DIR, MANIFEST_FORMAT, OWN_CHUNK_FILE, RunDir, conform
from .runner import run_to_dir


def play_range(
    spec: GameSpec, cfg: Any, agents: Sequence[str], seed: int, start: int, stop: int, jobs: int = -1
) -> pa.Table:
    """The rows of games ``start..stop-1`` of the run ``(cfg, agents, seed)``, in game order
    (``(stop - start) * len(agents)`` rows, the same as in a plain run). ``jobs == 1`` plays in this
    process. Raises GameRaisedError (listing every failing game) when games raise; the other games of
    the range are played but not returned."""
    return play_range_records(spec, cfg, agents, seed, start, stop, jobs, flow=False)[0]


def play_range_records(
    spec: GameSpec, cfg: Any, agents: Sequence[str], seed: int, start: int, stop: int, jobs: int = -1, flow: bool = True
) -> tuple[pa.Table, pa.Table | None]:
    """:func:`play_range` with the games' trajectory rows (None when the game records none, or
    without ``flow``): what ``check`` reads how a game feels from."""
    agents = list(agents)
    n_jobs = resolve_jobs(jobs)
    if n_jobs == 1:
        results = [play_chunk_records(0, spec.module, cfg, agents, seed, start, stop, None, flow)]
    else:
        size = default_chunk_size(stop - start, n_jobs, table_chunk_games(spec, cfg, agents))
        tasks = (
            delayed(play_chunk_records)(i, spec.module, cfg, agents, seed, a, min(a + size, stop), os.getpid(), flow)
            for i, a in enumerate(range(start, stop, size))
        )
        results = list(parallel(n_jobs, None, ordered=True)(tasks))
    failures = [f for _, _, fs, _ in results for f in fs]
    if failures:
        raise GameRaisedError(failures)
    tables = [t for _, t, _, _ in results if t is not None]  # a chunk without a table had failures
    table = pa.concat_tables([tables[0]] + [conform(t, tables[0].schema) for t in tables[1:]])
    parts = [r for _, _, _, r in results if r is not None]
    if not flow or len(parts) < len(results):
        return table, None
    return table, pa.concat_tables([parts[0]] + [conform(r, parts[0].schema) for r in parts[1:]])


class GameRaisedError(RuntimeError):
    """Games of a :func:`play_range` raised (an engine bug, not bad input). ``failures``: one dict
    per failing game (``game_index``, ``seed``, ``error``, ``traceback``), in game order."""

    def __init__(self, failures: list[dict[str, Any]]):
        self.failures = failures
        first = failures[0]
        super().__init__(
            f"{len(failures)} game(s) raised; first: game {first['game_index']} "
            f"(seed {first['seed']}): {first['error']}"
        )


# --------------------------------------------------------------------------------------------------
# --until-ci

Z95 = 1.959963984540054


@dataclass
class WinTally:
    """Running win shares per seat and per agent (agents only for a mixed table)."""

    agents: list[str]
    seat_wins: np.ndarray = field(init=False)
    seat_games: int = 0
    agent_wins: dict[str, float] = field(default_factory=dict)
    agent_seats: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.seat_wins = np.zeros(len(self.agents))

    def add(self, table: pa.Table) -> None:
        n = len(self.agents)
        share = table.column("win_share").to_numpy().reshape(-1, n)
        self.seat_wins += share.sum(axis=0)
        self.seat_games += share.shape[0]
        if not is_mirror(self.agents):
            names = np.asarray(table.column("agent").to_pylist()).reshape(-1, n)
            for a in dict.fromkeys(self.agents):
                mask = names == a
                self.agent_wins[a] = self.agent_wins.get(a, 0.0) + float(share[mask].sum())
                self.agent_seats[a] = self.agent_seats.get(a, 0) + int(mask.sum())

    def rates(self) -> dict[str, tuple[float, int, float]]:
        """``{"seat 1": (share, games, 1), ..., "agent x": (share, games, seats per game)}``: each tracked
        rate as a share of a game over the games played (games are the units, as in summary.json); the
        rate per seat is ``share / seats per game`` (an agent holding two seats wins at most half per seat)."""
        games = self.seat_games
        out = {f"seat {s + 1}": (float(w) / games, games, 1.0) for s, w in enumerate(self.seat_wins)}
        out |= {f"agent {a}": (w / games, games, self.agent_seats[a] / games) for a, w in self.agent_wins.items()}
        return out


def half_width(share: float, games: int, per_game: float = 1.0, z: float = Z95) -> float:
    """Half the width of a win rate's 95% interval as summary.json reports it: the Wilson (1927)
    interval of the game share ``share`` over ``games``, divided by the seats held per game
    (:func:`balancer.stats.aggregate.agent_win_rate_row`; 1 for a seat)."""
    from balancer.stats.aggregate import wilson_interval

    share = min(max(share, 0.0), 1.0)
    low, high = wilson_interval(share * games, games)
    return (high - low) / 2.0 / per_game


def games_for_width(rate: float, width: float, z: float = Z95) -> float:
    """``z^2 p (1 - p) / h^2``: the games (trials) for a 95% half-width of ``width`` at rate ``p``."""
    return z * z * rate * (1.0 - rate) / (width * width)


@dataclass
class UntilCiResult:
    """What ``--until-ci`` did: games played, the games theory asks for at the final estimates
    (the widest tracked number), the widest half-width, and the batches (games after each)."""

    games: int
    theory_games: float
    widest: str
    widest_half_width: float
    batches: list[int]


def _theory_games(tally: WinTally, width: float, players: int) -> tuple[float, str]:
    """Games of the run that every tracked rate needs: a share p of a game held over m seats needs
    ``z^2 p (1 - p) / (m h)^2`` games for a half-width h of its rate per seat."""
    best, name = 0.0, ""
    for key, (share, _, per_game) in tally.rates().items():
        need = games_for_width(share, width * per_game)
        if need > best:
            best, name = need, key
    return best, name


def run_until_ci(
    spec: GameSpec,
    cfg: Any,
    config_path: Path | str,
    agents: Sequence[str],
    width: float,
    max_games: int,
    seed: int,
    jobs: int,
    out_dir: Path | str,
    force: bool = False,
    command: str = "",
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    flow: bool = True,
) -> tuple[Path, UntilCiResult]:
    """Play the run ``(cfg, agents, seed)`` in batches until every seat win rate (and, for a mixed
    table, every agent win rate) has a 95% Wilson half-width of at most ``width``, or ``max_games``.

    Batches: a pilot of a tenth of the worst case (``z^2 / (4 h^2)`` games), then a jump to 97% of
    the games the pilot's estimates need (``z^2 p (1 - p) / h^2`` for the widest number), then top-ups
    of about 0.5% of the worst case, each a multiple of the player count so that rotated seats stay
    balanced. Each batch is written as chunks of a ``run_to_dir`` manifest, and the finished run is
    merged by :func:`run_to_dir` itself: results.parquet, run.json and summary.json are those of a
    plain run of the same number of games and seed.

    Raises what :func:`run_to_dir` raises, and RunRequestError for ``width`` outside (0, 0.5) or
    ``max_games`` below the player count. Holds the directory's lock (``run.lock``) throughout.
    """
    with ExitStack() as locks:  # the directory's lock, once the directory exists
        agents = list(agents)
        players = len(agents)
        out_dir = normalised(out_dir)
        if not 0 < width < 0.5:
            raise RunRequestError("until_ci", f"must be a half-width between 0 and 0.5, got {width}")
        if max_games < players:
            raise RunRequestError("max_games", f"must be at least the player count {players}, got {max_games}")
        try:
            check_run(spec, cfg, agents, max_games, seed, jobs, None)
        except RunRequestError as exc:
            raise RunRequestError("max_games" if exc.field == "games" else exc.field, exc.problem) from None
        check_out_dir(out_dir, force, False)
        worst = games_for_width(0.5, width)
        cap = max_games - max_games % players
        step = players * max(1, int(0.005 * min(worst, cap) / players))  # chunk size: every batch is whole chunks

        def whole(games: float) -> int:
            return int(min(cap - cap % step, max(step, step * math.ceil(games / step))))

        request: dict[str, Any] = {
            "format": MANIFEST_FORMAT,
            "game": spec.name,
            "variant": str(getattr(cfg, "variant", "")),
            "config_path": str(config_path),
            "config_sha256": config_sha256(config_path),
            "engine_sha256": engine_sha256(spec),
            "n_players": players,
            "agents": agents,
            "games": 0,
            "seed": seed,
            "chunk_size": step,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "elapsed_seconds": 0.0,
            "chunks": [],
        }
        out_dir.mkdir(parents=True, exist_ok=True)  # normalised above: out/a/../X creates no out/a
        locks.enter_context(run_lock(out_dir))
        for path in RunDir(out_dir).finished_files:
            refuse_foreign(path)  # a link there is refused, not deleted
            path.unlink(missing_ok=True)
        remove_own_folder(out_dir / CHUNKS_DIR, OWN_CHUNK_FILE)
        own_directory(out_dir / CHUNKS_DIR)
        n_jobs = resolve_jobs(jobs)
        tally = WinTally(agents)
        batches: list[int] = []
        t0 = time.perf_counter()
        failed = False

        def play_to(target: int) -> None:
            nonlocal failed
            done = batches[-1] if batches else 0
            tasks = [
                delayed(play_chunk_records)(a // step, spec.module, cfg, agents, seed, a, a + step, os.getpid(), flow)
                for a in range(done, target, step)
            ]
            results = (
                [play_chunk_records(*t[1], **t[2]) for t in tasks]
                if n_jobs == 1
                else parallel(n_jobs, None, ordered=True)(tasks)
            )
            for idx, table, failures, trajectories in results:
                a = idx * step
                entry = RunDir(out_dir).write_chunk(idx, a, a + step, seed, table, failures, trajectories, flow=flow)
                request["chunks"].append(entry)
                failed = failed or bool(failures)
                if table is not None and not failures:
                    tally.add(table)
            request["games"] = target
            request["elapsed_seconds"] = round(time.perf_counter() - t0, 3)
            RunDir(out_dir).write_manifest(request)
            batches.append(target)
            if log:
                need, name = _theory_games(tally, width, players)
                log(f"{target:,} games played; the widest number ({name}) needs about {need:,.0f}")

        play_to(whole(max(10 * players, 0.1 * min(worst, cap))))
        need, _ = _theory_games(tally, width, players)
        if not failed and batches[-1] < cap and not _narrow(tally, width):
            play_to(max(batches[-1] + step, whole(0.97 * need)))
        while not failed and batches[-1] + step <= cap and not _narrow(tally, width):
            play_to(batches[-1] + step)
        games = batches[-1]
        run_to_dir(
            spec,
            cfg,
            config_path,
            agents,
            games,
            seed,
            jobs,
            out_dir,
            force=True,
            command=command,
            chunk_size=step,
            progress=False,
            resume=True,
            checked=True,  # above, with max_games
            flow=flow,
        )
        need, name = _theory_games(tally, width, players)
        rates = tally.rates()
        return out_dir, UntilCiResult(games, need, name, half_width(*rates[name]), batches)


def _narrow(tally: WinTally, width: float) -> bool:
    return all(half_width(*rate) <= width for rate in tally.rates().values())
