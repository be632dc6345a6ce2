"""Runs on a Dask cluster equal local runs game for game: a real `dask scheduler` with two
`dask worker` processes, and a `distributed.LocalCluster`, all on 127.0.0.1 with free ports.

Marked ``cluster`` (each test takes about 10-20 s: starting the processes and numba's cache load in
every worker); random agents keep the games themselves fast.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from balancer.cli import app

pytestmark = pytest.mark.cluster
distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "citywright" / "v1.1.yaml"
DASK = Path(sys.executable).with_name("dask")
GAMES = 2000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env() -> dict[str, str]:
    """The environment of the cluster's processes: this checkout's balancer first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_cli(*args: str) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(CONFIG),
            "--players",
            "4",
            "--agents",
            "random",
            "--games",
            str(GAMES),
            "--seed",
            "3",
            "--quiet",
            *args,
        ],
    )
    assert result.exit_code == 0, result.output + str(result.exception)


@pytest.fixture(scope="module")
def local_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "run"
    run_cli("--jobs", "1", "--out", str(out))
    return out / "results.parquet"


@pytest.fixture
def dask_cli_cluster():
    """`dask scheduler` and two single-threaded `dask worker` processes on 127.0.0.1; yields the address."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = child_env()
    procs = [
        subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(DASK),
                        "worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                        "--no-nanny",
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        with distributed.Client(address, timeout="20s") as client:
            client.wait_for_workers(2, timeout=30)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def test_dask_scheduler_and_two_workers_equal_a_local_run(dask_cli_cluster, local_results, tmp_path):
    t0 = time.perf_counter()
    out = tmp_path / "dask"
    run_cli("--scheduler", dask_cli_cluster, "--chunk-size", "150", "--out", str(out))
    info = json.loads((out / "run.json").read_text())
    assert info["scheduler"] == dask_cli_cluster and info["jobs"] == 2
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(local_results))
    assert time.perf_counter() - t0 < 40


def test_scheduler_from_the_environment_with_a_local_cluster(local_results, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", child_env()["PYTHONPATH"])
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", scheduler_port=0, dashboard_address=None
    ) as cluster:
        monkeypatch.setenv("BALANCER_SCHEDULER", cluster.scheduler_address)
        out = tmp_path / "local-cluster"
        run_cli("--out", str(out))
        assert json.loads((out / "run.json").read_text())["scheduler"] == cluster.scheduler_address
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(local_results))


def test_unreachable_scheduler_is_bad_input(tmp_path, monkeypatch):
    from balancer.sim import parallel

    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(CONFIG),
            "--agents",
            "random",
            "--games",
            "10",
            "--quiet",
            "--scheduler",
            address,
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --scheduler {address}: cannot connect (")
    assert not (tmp_path / "x").exists()


FAULT_GAMES = 8000


@pytest.mark.timeout(900)  # waits of up to 60 + 120 + 300 s: more than the suite's 600 s limit
def test_a_worker_killed_mid_run_loses_no_game(tmp_path):
    # issue 15: kill one `dask worker` process (SIGKILL, no nanny to restart it) while a --scheduler run
    # is playing; the scheduler reschedules the chunks it held on the other worker, and the run
    # finishes with results identical, game for game, to a --jobs 1 run
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = child_env()
    procs = [
        subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    out = tmp_path / "dask"
    args = [
        "run",
        str(CONFIG),
        "--players",
        "4",
        "--agents",
        "random",
        "--games",
        str(FAULT_GAMES),
        "--seed",
        "3",
        "--chunk-size",
        "100",
        "--quiet",
    ]
    try:
        workers = [
            subprocess.Popen(
                [
                    str(DASK),
                    "worker",
                    address,
                    "--host",
                    "127.0.0.1",
                    "--nthreads",
                    "1",
                    "--nworkers",
                    "1",
                    "--no-dashboard",
                    "--no-nanny",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(2)
        ]
        procs += workers
        with distributed.Client(address, timeout="20s") as client:
            client.wait_for_workers(2, timeout=60)
        run = subprocess.Popen(
            [sys.executable, "-m", "balancer.cli", *args, "--scheduler", address, "--out", str(out)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        procs.append(run)
        manifest = out / "manifest.json"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            try:
                if len(json.loads(manifest.read_text())["chunks"]) >= 5:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        assert run.poll() is None and not (out / "results.parquet").exists(), "the run ended before the kill"
        workers[0].kill()
        workers[0].wait()
        done_at_kill = len(json.loads(manifest.read_text())["chunks"])
        output, _ = run.communicate(timeout=300)
        assert run.returncode == 0, output
        assert done_at_kill < FAULT_GAMES // 100, "every chunk was written before the worker was killed"
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    local = tmp_path / "local"
    result = CliRunner().invoke(app, [*args, "--jobs", "1", "--out", str(local)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "run.json").read_text())["games"] == FAULT_GAMES
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(local / "results.parquet"))
