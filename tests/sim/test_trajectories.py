"""The run's trajectories (issue 49): a game's standings written to ``trajectories.parquet`` by the
runner, with the fake flow game (tests/sim/fake_flow_game.py: each seat's running total at the end of
each round, so the last checkpoint's standings equal the final scores by construction)."""

from __future__ import annotations

import json
from pathlib import Path

import fake_flow_game as fake
import polars as pl
import pyarrow.parquet as pq
import pytest

from balancer.sim import play, runner
from balancer.sim.batches import run_until_ci
from balancer.sim.rundir import TRAJECTORIES_FILE, RunDir
from balancer.sim.runner import run_to_dir
from balancer.stats import flow

AGENTS = ["random", "random", "random"]


@pytest.fixture
def cfg():
    return fake.FlowConfig(game="fakeflow", variant="v-flow")


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "fakeflow.yaml"
    path.write_text("game: fakeflow\nvariant: v-flow\n")
    return path


@pytest.fixture(autouse=True)
def no_summary(monkeypatch):
    """summary.json is balancer.stats' (tested there); one test below uses the real one."""
    monkeypatch.setattr(runner, "_write_summary", lambda out_dir: None)


def run(cfg, config_file, out, games=40, jobs=1, chunk_size=None, **kw) -> Path:
    return run_to_dir(
        fake.SPEC, cfg, config_file, AGENTS, games, 5, jobs, out, chunk_size=chunk_size, progress=False, **kw
    )


def test_constant_is_the_contract_s():
    assert TRAJECTORIES_FILE == flow.TRAJECTORIES_FILE


def test_batch_and_per_game_paths_give_the_same_trajectory_rows(cfg):
    batched = play._play_records(fake.SPEC.module, cfg, AGENTS, 5, 3, 30, catch=False)
    per_game = play._play_records(fake.SPEC.module, cfg.model_copy(update={"batch": False}), AGENTS, 5, 3, 30, False)
    assert batched[2] is not None and batched[2].equals(per_game[2])
    assert batched[0].equals(per_game[0])


def test_run_writes_trajectories_that_keep_the_contract_and_end_at_the_final_scores(cfg, config_file, tmp_path):
    out = run(cfg, config_file, tmp_path / "a", games=40, chunk_size=7)
    traj = flow.check_trajectories(pl.scan_parquet(out / TRAJECTORIES_FILE))
    results = pl.read_parquet(out / "results.parquet")
    # game i lasts 1 + i % 3 rounds: 3 seats per checkpoint
    expected_rows = sum(3 * (1 + i % 3) for i in range(40))
    assert traj.height == expected_rows
    assert traj["game_index"].to_list() == sorted(traj["game_index"].to_list())  # game order
    last = traj.filter(pl.col("checkpoint") == pl.col("checkpoint").max().over("game_index"))
    joined = results.join(last, on=["game_index", "seat"], how="inner")
    assert joined.height == results.height == 120
    assert (joined["standing"] == joined["score"].cast(pl.Float64)).all()
    assert joined["checkpoint"].to_list() == [i % 3 for i in range(40) for _ in range(3)]
    assert not (out / "chunks").exists() and not (out / "manifest.json").exists()


def test_same_trajectories_for_any_jobs_and_chunk_size(cfg, config_file, tmp_path):
    a = run(cfg, config_file, tmp_path / "a", games=60, jobs=1, chunk_size=7)
    b = run(cfg, config_file, tmp_path / "b", games=60, jobs=2, chunk_size=50)
    c = run(cfg.model_copy(update={"batch": False}), config_file, tmp_path / "c", games=60, jobs=2)
    # the same rows (the bytes differ as results.parquet's do: each chunk is written as its own row group)
    ta, tb, tc = (pq.read_table(d / TRAJECTORIES_FILE) for d in (a, b, c))
    assert ta.equals(tb) and ta.equals(tc)
    assert ta.num_rows == sum(3 * (1 + i % 3) for i in range(60))


def test_interrupted_run_resumes_to_the_same_trajectories(cfg, config_file, tmp_path):
    whole = run(cfg, config_file, tmp_path / "whole", games=50, chunk_size=8)
    out = tmp_path / "cut"
    with pytest.raises(runner.RunInterrupted):
        run(cfg.model_copy(update={"interrupt_at": 37}), config_file, out, games=50, chunk_size=8)
    manifest = json.loads((out / "manifest.json").read_text())
    entry = manifest["chunks"][1]
    assert entry["trajectories"]["file"] == "chunks/traj-000001.arrow"
    assert entry["trajectories"]["rows"] == sum(3 * (1 + i % 3) for i in range(8, 16))
    # a damaged trajectory chunk and an unlisted one are replayed, not merged
    (out / "chunks" / "traj-000002.arrow").write_bytes(b"ARROW1 damaged")
    (out / "chunks" / "traj-000009.arrow").write_bytes(b"ARROW1 unlisted")
    run(cfg, config_file, out, games=50, chunk_size=8, resume=True)
    assert (out / TRAJECTORIES_FILE).read_bytes() == (whole / TRAJECTORIES_FILE).read_bytes()
    assert (out / "results.parquet").read_bytes() == (whole / "results.parquet").read_bytes()


def test_a_trajectory_chunk_of_another_run_is_refused_on_resume(cfg, config_file, tmp_path):
    other = tmp_path / "other"
    with pytest.raises(runner.RunInterrupted):
        run(cfg.model_copy(update={"interrupt_at": 30}, deep=True), config_file, other, games=50, chunk_size=8)
    out = tmp_path / "cut"
    with pytest.raises(runner.RunInterrupted):
        run(cfg.model_copy(update={"interrupt_at": 30}), config_file, out, games=50, chunk_size=8)
    # chunk 1's trajectories replaced by chunk 2's (games 16..23, outside 8..15), its checksum updated
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "chunks" / "traj-000001.arrow").write_bytes((other / "chunks" / "traj-000002.arrow").read_bytes())
    manifest["chunks"][1]["trajectories"]["sha256"] = runner.sha256_of(out / "chunks" / "traj-000001.arrow")
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(runner.ResumeError, match=r"traj-000001.arrow: holds games 16 to 23"):
        run(cfg, config_file, out, games=50, chunk_size=8, resume=True)


def test_no_flow_records_no_trajectories_and_a_resume_with_flow_replays_them(cfg, config_file, tmp_path):
    whole = run(cfg, config_file, tmp_path / "whole", games=50, chunk_size=8)
    out = tmp_path / "cut"
    with pytest.raises(runner.RunInterrupted):
        run(cfg.model_copy(update={"interrupt_at": 37}), config_file, out, games=50, chunk_size=8, flow=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert all("trajectories" not in e for e in manifest["chunks"])
    assert not list((out / "chunks").glob("traj-*"))
    run(cfg, config_file, out, games=50, chunk_size=8, resume=True)  # flow on: chunks without theirs replayed
    assert (out / TRAJECTORIES_FILE).read_bytes() == (whole / TRAJECTORIES_FILE).read_bytes()
    # a finished run with --no-flow removes the trajectories.parquet it finds
    run(cfg, config_file, out, games=50, chunk_size=8, force=True, flow=False)
    assert not (out / TRAJECTORIES_FILE).exists()
    assert json.loads((out / "run.json").read_text())["flow"] is False


def test_a_game_without_standings_writes_none_and_removes_a_stale_one(cfg, config_file, tmp_path):
    out = run(cfg, config_file, tmp_path / "a", games=20)
    assert (out / TRAJECTORIES_FILE).is_file()
    none = cfg.model_copy(update={"standings": False})
    run(none, config_file, out, games=20, force=True)
    assert not (out / TRAJECTORIES_FILE).exists()
    assert (out / "results.parquet").is_file()
    run(none.model_copy(update={"batch": False}), config_file, tmp_path / "b", games=20, jobs=2, chunk_size=6)
    assert not (tmp_path / "b" / TRAJECTORIES_FILE).exists()


def test_failed_games_have_no_trajectory(cfg, config_file, tmp_path):
    agents = ["random", "fragile"]
    with pytest.raises(runner.GamesFailedError):
        run_to_dir(fake.SPEC, cfg, config_file, agents, 30, 5, 1, tmp_path / "f", chunk_size=8, progress=False)
    traj = flow.check_trajectories(pl.scan_parquet(tmp_path / "f" / TRAJECTORIES_FILE))
    games = set(pl.read_parquet(tmp_path / "f" / "results.parquet")["game_index"])
    assert set(traj["game_index"]) == games == {i for i in range(30) if i % 7 != 3}


def test_until_ci_writes_the_trajectories_of_a_plain_run(cfg, config_file, tmp_path):
    out, result = run_until_ci(fake.SPEC, cfg, config_file, AGENTS, 0.2, 60, 5, 1, tmp_path / "ci", progress=False)
    plain = run(cfg, config_file, tmp_path / "plain", games=result.games)
    assert pq.read_table(out / TRAJECTORIES_FILE).equals(pq.read_table(plain / TRAJECTORIES_FILE))


def test_own_files_name_the_trajectories(tmp_path):
    (tmp_path / "chunks").mkdir()
    (tmp_path / "chunks" / "traj-000003.arrow").write_bytes(b"")
    own = RunDir(tmp_path).own_files()
    assert tmp_path / TRAJECTORIES_FILE in own and tmp_path / "chunks" / "traj-000003.arrow" in own


def test_summary_holds_the_trajectory_measures(cfg, config_file, tmp_path, monkeypatch):
    monkeypatch.undo()  # the real summary.json
    out = run(cfg, config_file, tmp_path / "s", games=40)
    measures = json.loads((out / "summary.json").read_text())["flow"]
    trajectory = measures["trajectory"]
    assert trajectory["games"] == 40 and trajectory["without_trajectory"] == 0
    assert (trajectory["checkpoints_min"], trajectory["checkpoints_max"]) == (1, 3)  # 1 + i % 3 rounds
    assert len(trajectory["leader_wins"]) == 3


def test_outcome_standings_are_checked(cfg):
    rows = play.OutcomeRows("fakeflow", "v", 2, 0)
    good = fake.play_game(cfg, ["random", "random"], fake.game_seed(5, 0))
    rows.check(good, 0)
    bad = good.__class__(**{**good.__dict__, "standings": [[1.0]]})
    with pytest.raises(RuntimeError, match="at least one checkpoint of 2 values"):
        rows.check(bad, 1)
    with pytest.raises(RuntimeError, match="gives no standings"):
        rows.check(good.__class__(**{**good.__dict__, "standings": None}), 2)


@pytest.mark.cluster
def test_a_dask_cluster_carries_the_trajectories(cfg, config_file, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run(cfg, config_file, tmp_path / "local", games=40, chunk_size=6)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, scheduler_port=0, dashboard_address=None
    ) as cluster:
        out = run(cfg, config_file, tmp_path / "dask", games=40, chunk_size=6, scheduler=cluster.scheduler_address)
    assert json.loads((out / "run.json").read_text())["scheduler"] == cluster.scheduler_address
    assert pq.read_table(out / TRAJECTORIES_FILE).equals(pq.read_table(local / TRAJECTORIES_FILE))


def test_a_link_at_trajectories_is_refused_before_any_game(cfg, config_file, tmp_path):
    out = tmp_path / "linked"
    out.mkdir()
    (tmp_path / "elsewhere.parquet").write_bytes(b"someone's")
    (out / TRAJECTORIES_FILE).symlink_to(tmp_path / "elsewhere.parquet")
    with pytest.raises(NotADirectoryError, match=TRAJECTORIES_FILE):
        run(cfg, config_file, out, games=10)
    assert (tmp_path / "elsewhere.parquet").read_bytes() == b"someone's" and not (out / "results.parquet").exists()


def test_a_half_written_trajectory_chunk_is_the_run_s_own_file():
    from balancer.outdir import _temporary
    from balancer.sim.rundir import OWN_CHUNK_FILE, trajectory_file

    name = trajectory_file(12)
    assert OWN_CHUNK_FILE.fullmatch(name.rsplit("/", 1)[-1])
    assert OWN_CHUNK_FILE.fullmatch(_temporary(Path(name)).name)


def test_without_flow_a_chunk_builds_no_trajectories(cfg):
    # run --no-flow: no trajectory rows, and a game's play_chunk without the `trajectories` keyword (this
    # fake's) has its standings dropped by GameSpec.play_chunk (the rows themselves unchanged)
    batch = fake.SPEC.play_chunk(cfg, AGENTS, 5, 3, 30)
    assert batch is not None and batch.standings is not None
    quiet = fake.SPEC.play_chunk(cfg, AGENTS, 5, 3, 30, trajectories=False)
    assert quiet is not None and quiet.standings is None and quiet.checkpoints is None
    assert (quiet.scores == batch.scores).all()
    for variant in (cfg, cfg.model_copy(update={"batch": False})):  # the batch and the per-game paths
        on = play._play_records(fake.SPEC.module, variant, AGENTS, 5, 3, 30, catch=False)
        off = play._play_records(fake.SPEC.module, variant, AGENTS, 5, 3, 30, False, flow=False)
        assert on[2] is not None and off[2] is None and off[0].equals(on[0])
