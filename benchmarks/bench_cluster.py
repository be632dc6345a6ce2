"""Cluster throughput: games per second of `balancer run --scheduler` on a local Dask cluster with 1
and with 2 single-threaded workers, end to end (chunks shipped to the client, written, merged, summary),
and the parallel efficiency  2-worker rate / (2 x 1-worker rate). Prints numbers; asserts nothing.

    python benchmarks/bench_cluster.py [--seconds 60] [--agents greedy] [--players 4] [--workers 1 2] [--probe 1000]

Each case is calibrated with a short run, then plays enough games to last about ``--seconds``.
The client, the scheduler and the workers share this machine, so on a 2-core machine the
2-worker case also pays for the client's writing; greedy tables keep that share small.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "citywright" / "v1.1.yaml"


def _run(address: str, agents: list[str], games: int, seed: int, out: Path) -> float:
    """Seconds to play ``games`` games on the cluster at ``address`` into ``out`` (end to end)."""
    from balancer.config import load_config
    from balancer.core.registry import get_spec
    from balancer.sim.runner import run_to_dir

    cfg = load_config(CONFIG)
    t0 = time.perf_counter()
    run_to_dir(
        get_spec(cfg.game), cfg, CONFIG, agents, games, seed, -1, out, force=True, progress=False, scheduler=address
    )
    return time.perf_counter() - t0


def _rate(workers: int, agents: list[str], seconds: float, tmp: Path, probe: int = 1000) -> tuple[float, int, float]:
    """(games per second, games, seconds) with ``workers`` single-threaded worker processes."""
    import dask
    from distributed import LocalCluster

    dask.config.set({"distributed.worker.profile.enabled": False})  # no stack sampling in the workers
    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        scheduler_port=0,
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address
        _run(address, agents, min(50, probe) * workers, 99, tmp / "warm")  # numba cache load in every worker
        probe *= workers
        rate = probe / _run(address, agents, probe, 98, tmp / "probe")
        games = max(probe, int(rate * seconds * 1.2))  # the probe's start-up makes rate low
        took = _run(address, agents, games, 1, tmp / f"w{workers}")
        while took < seconds:  # still short: play longer
            games = int(games * seconds / took * 1.1)
            took = _run(address, agents, games, 1, tmp / f"w{workers}")
        return games / took, games, took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0, help="measured seconds per case (default 60)")
    ap.add_argument("--agents", default="greedy", help="one agent for every seat (default greedy)")
    ap.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    ap.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2], help="Dask worker processes, one case each (default 1 2)"
    )
    ap.add_argument(
        "--probe",
        type=int,
        default=1000,
        help="games per worker of the calibrating run that sets the measured run's length (default 1000)",
    )
    args = ap.parse_args()
    os.environ.setdefault("PYTHONPATH", str(CONFIG.parents[2]))  # workers import this checkout's balancer
    agents = [args.agents] * args.players
    print(
        f"Citywright v1.1, {args.players} x {args.agents}, local Dask cluster, {os.cpu_count()} cores, "
        f"about {args.seconds:.0f} s per case"
    )
    tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    rates = {}
    try:
        for w in sorted(set(args.workers)):
            rate, games, took = _rate(w, agents, args.seconds, tmp, args.probe)
            rates[w] = rate
            print(f"  workers={w}: {rate:9.1f} games/s  ({games:,} games in {took:.1f} s)", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if 1 in rates and 2 in rates:
        print(f"  parallel efficiency (2 workers / (2 x 1 worker)): {rates[2] / (2 * rates[1]):.3f}")


if __name__ == "__main__":
    main()
