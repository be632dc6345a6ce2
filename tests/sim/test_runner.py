"""The runner with a fake game (tests/sim/fake_runner_game.py): determinism, rotation, schema, files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import fake_runner_game as fake
import polars as pl
import pyarrow.parquet as pq
import pytest

from balancer.core.tables import seat_agents
from balancer.sim import parallel, runner
from balancer.sim.runner import ResultsExistError, RunRequestError, check_run, parse_agents, run_games, run_to_dir
from balancer.version import __version__


@pytest.fixture
def cfg():
    return fake.FakeConfig(game="fake", variant="v-test")


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "fake.yaml"
    path.write_text("game: fake\nvariant: v-test\n")
    return path


@pytest.fixture(autouse=True)
def no_summary(monkeypatch):
    """Keep these tests independent of balancer.stats (one test below uses the real one)."""
    calls = []
    monkeypatch.setattr(runner, "_write_summary", lambda out_dir: calls.append(Path(out_dir)))
    return calls


def collect(cfg, agents, games=40, seed=7, jobs=1, chunk_size=None) -> pl.DataFrame:
    tables = list(run_games(fake.SPEC, cfg, agents, games, seed, jobs=jobs, chunk_size=chunk_size, progress=False))
    return pl.concat([pl.from_arrow(t) for t in tables])


def test_columns_follow_the_results_schema(cfg):
    df = collect(cfg, ["random", "strong"], games=5)
    assert df.columns == [
        "variant",
        "game",
        "n_players",
        "game_index",
        "seed",
        "seat",
        "agent",
        "score",
        "rank",
        "win_share",
        "turns",
        "ended_by",
        "score_base",
        "score_bonus",
        "metric_luck",
        "label_hand",
    ]
    assert df.height == 10
    # fake labels a seat "high" when its base draw is at least max_points // 2 = 3
    assert ((df["label_hand"] == "high") == (df["score_base"] >= 3)).all()
    assert df["seat"].to_list()[:4] == [1, 2, 1, 2]
    assert set(df["variant"]) == {"v-test"} and set(df["game"]) == {"fake"}
    assert (df["score"] == df["score_base"] + df["score_bonus"]).all()


def test_chunks_come_in_game_order(cfg):
    tables = list(run_games(fake.SPEC, cfg, ["random"] * 3, 25, 1, jobs=2, chunk_size=4, progress=False))
    assert [t.num_rows for t in tables] == [12] * 6 + [3]
    indices = pl.concat([pl.from_arrow(t) for t in tables])["game_index"].to_list()
    assert indices == sorted(indices) and indices[::3] == list(range(25))


def test_same_seed_same_parquet_for_any_jobs_and_chunk_size(cfg, config_file, tmp_path):
    agents = ["random", "strong", "random"]
    a = run_to_dir(fake.SPEC, cfg, config_file, agents, 60, 5, 1, tmp_path / "a", chunk_size=7, progress=False)
    b = run_to_dir(fake.SPEC, cfg, config_file, agents, 60, 5, 2, tmp_path / "b", chunk_size=50, progress=False)
    c = run_to_dir(fake.SPEC, cfg, config_file, agents, 60, 5, 2, tmp_path / "c", progress=False)
    ta, tb, tc = (pq.read_table(d / "results.parquet") for d in (a, b, c))
    assert ta.equals(tb) and ta.equals(tc)
    other = run_to_dir(fake.SPEC, cfg, config_file, agents, 60, 6, 1, tmp_path / "d", progress=False)
    assert not ta.equals(pq.read_table(other / "results.parquet"))


def test_mixed_tables_rotate_seats(cfg):
    agents = ["strong", "random", "random"]
    df = collect(cfg, agents, games=30)
    for i in (0, 1, 2, 17):
        got = df.filter(pl.col("game_index") == i).sort("seat")["agent"].to_list()
        assert got == seat_agents(agents, i)
    strong_seats = df.filter(pl.col("agent") == "strong").group_by("seat").len().sort("seat")
    assert strong_seats["len"].to_list() == [10, 10, 10]


def test_win_shares_sum_to_one_per_game_and_ranks_start_at_one(cfg):
    df = collect(cfg, ["random"] * 4, games=200)
    per_game = df.group_by("game_index").agg(pl.col("win_share").sum(), pl.col("rank").min())
    assert per_game["win_share"].is_between(1 - 1e-9, 1 + 1e-9).all()
    assert (per_game["rank"] == 1).all()
    assert (df["win_share"] < 1).any(), "the fake game should produce some shared wins"


def test_parse_agents():
    assert parse_agents("greedy", 3) == ["greedy"] * 3
    assert parse_agents("a, b", 2) == ["a", "b"]
    with pytest.raises(ValueError, match="2 agents"):
        parse_agents("a,b", 3)
    with pytest.raises(ValueError, match="empty"):
        parse_agents("a,,b", 3)


@pytest.mark.parametrize(
    "agents, games, match",
    [
        (["nobody"], 5, "--agents: unknown agent 'nobody'; known agents: random, strong"),
        (["random"] * 5, 5, r"--players: 5 players are not supported by this variant \(supported: 1-4\)"),
        (["random"], 0, "--games: must be at least 1, got 0"),
    ],
)
def test_bad_requests_raise_before_playing(cfg, config_file, tmp_path, agents, games, match):
    out = tmp_path / "out" / "run"
    with pytest.raises(ValueError, match=match):
        run_to_dir(fake.SPEC, cfg, config_file, agents, games, 1, 1, out, progress=False)
    assert not (tmp_path / "out").exists()


def test_run_to_dir_writes_results_and_run_json(cfg, config_file, tmp_path, no_summary):
    out = run_to_dir(
        fake.SPEC,
        cfg,
        config_file,
        ["random", "strong"],
        30,
        3,
        1,
        tmp_path / "r",
        command="balancer run x",
        progress=False,
    )
    assert sorted(p.name for p in out.iterdir()) == ["results.parquet", "run.json"]
    info = json.loads((out / "run.json").read_text())
    assert info["games"] == 30 and info["seed"] == 3 and info["n_players"] == 2
    assert info["agents"] == ["random", "strong"] and info["game"] == "fake" and info["variant"] == "v-test"
    assert info["command"] == "balancer run x" and len(info["config_sha256"]) == 64
    assert {"balancer", "python", "numpy", "polars", "pyarrow", "joblib"} <= set(info["versions"])
    assert info["versions"]["balancer"] == __version__  # every run.json says which balancer played it
    assert info["games_per_second"] > 0 and info["seat_design"].startswith("mixed")
    assert pq.read_table(out / "results.parquet").num_rows == 60
    assert len(no_summary) == 1
    assert list(tmp_path.glob(".*tmp")) == []


def test_refuses_to_overwrite_without_force(cfg, config_file, tmp_path):
    out = run_to_dir(fake.SPEC, cfg, config_file, ["random"], 10, 1, 1, tmp_path / "r", progress=False)
    before = pq.read_table(out / "results.parquet")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ResultsExistError, match="use force=True to overwrite it"):  # the library's words
        run_to_dir(fake.SPEC, cfg, config_file, ["random"], 20, 2, 1, out, progress=False)
    assert pq.read_table(out / "results.parquet").equals(before)
    run_to_dir(fake.SPEC, cfg, config_file, ["random"], 20, 2, 1, out, force=True, progress=False)
    assert pq.read_table(out / "results.parquet").num_rows == 20
    assert (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("jobs", [1, 2])
def test_failing_games_are_recorded_and_the_rest_written(cfg, config_file, tmp_path, jobs):
    out = tmp_path / "deep" / "run"
    with pytest.raises(runner.GamesFailedError) as err:
        run_to_dir(fake.SPEC, cfg, config_file, ["random", "fragile"], 20, 1, jobs, out, chunk_size=6, progress=False)
    failing = [3, 10, 17]
    assert err.value.count == 3 and [f["game_index"] for f in err.value.failures] == failing
    df = pl.read_parquet(out / "results.parquet")
    assert sorted(set(df["game_index"])) == [i for i in range(20) if i not in failing]
    info = json.loads((out / "run.json").read_text())
    assert info["failed_games"] == 3
    first = info["failures"][0]
    assert first["seed"] == 1 and first["error"] == "ValueError: fragile agent broke in game 3"
    assert first["replay"] == (
        f"balancer play {config_file} --players 2 --agents random,fragile --seed 1 --game-index 3"
    )
    assert "play_game" in first["traceback"]
    assert sorted(p.name for p in out.iterdir()) == ["results.parquet", "run.json"]
    # the games that did not fail are those of an unbroken run
    clean = run_to_dir(fake.SPEC, cfg, config_file, ["random", "strong"], 20, 1, 1, tmp_path / "clean", progress=False)
    ok = pl.read_parquet(clean / "results.parquet").filter(~pl.col("game_index").is_in(failing))
    assert df.drop("agent", "score", "score_bonus", "win_share", "rank").equals(
        ok.drop("agent", "score", "score_bonus", "win_share", "rank")
    )


def test_every_game_failing_writes_no_results(cfg, config_file, tmp_path):
    out = run_to_dir(fake.SPEC, cfg, config_file, ["random"], 10, 1, 1, tmp_path / "r", progress=False)
    with pytest.raises(runner.GamesFailedError, match="10 of 10 games failed"):
        run_to_dir(fake.SPEC, cfg, config_file, ["boom"], 10, 1, 1, out, force=True, progress=False)
    assert not (out / "results.parquet").exists()
    assert json.loads((out / "run.json").read_text())["failed_games"] == 10


def test_interrupted_run_resumes_to_the_same_results(cfg, config_file, tmp_path):
    agents = ["random", "strong", "random"]
    whole = run_to_dir(fake.SPEC, cfg, config_file, agents, 100, 4, 1, tmp_path / "whole", chunk_size=8, progress=False)
    out = tmp_path / "cut"
    broken = fake.FakeConfig(game="fake", variant="v-test", interrupt_at=37)
    with pytest.raises(runner.RunInterrupted) as err:
        run_to_dir(fake.SPEC, broken, config_file, agents, 100, 4, 1, out, chunk_size=8, progress=False)
    assert isinstance(err.value, KeyboardInterrupt) and err.value.done == 32
    manifest = json.loads((out / "manifest.json").read_text())
    assert [c["chunk"] for c in manifest["chunks"]] == [0, 1, 2, 3]
    assert manifest["chunks"][1] | {"sha256": None} == {
        "chunk": 1,
        "start": 8,
        "stop": 16,
        "seed": 4,
        "rows": 24,
        "file": "chunks/chunk-000001.arrow",
        "sha256": None,
        "trajectories": None,  # the fake game records no trajectory
        "failures": [],
    }
    # a fresh run refuses the interrupted directory; a different request cannot resume it
    with pytest.raises(ResultsExistError, match="continue it with resume=True, or start over with force=True"):
        run_to_dir(fake.SPEC, cfg, config_file, agents, 100, 4, 1, out, progress=False)
    with pytest.raises(runner.ResumeError, match=r"--games 100 \(now 90\); --seed 4 \(now 5\)"):
        run_to_dir(fake.SPEC, cfg, config_file, agents, 90, 5, 1, out, progress=False, resume=True)
    # a half-written chunk, an unlisted one and a damaged listed one are replayed
    (out / "chunks" / "chunk-000004.arrow.tmp").write_bytes(b"ARROW1 half")
    (out / "chunks" / "chunk-000009.arrow").write_bytes(b"ARROW1 unlisted")
    (out / "chunks" / "chunk-000002.arrow").write_bytes(b"ARROW1 damaged")
    run_to_dir(fake.SPEC, cfg, config_file, agents, 100, 4, 2, out, progress=False, resume=True)
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(whole / "results.parquet"))
    assert sorted(p.name for p in out.iterdir()) == ["results.parquet", "run.json"]


def test_resume_needs_a_manifest(cfg, config_file, tmp_path):
    with pytest.raises(runner.ResumeError, match="no manifest.json"):
        run_to_dir(fake.SPEC, cfg, config_file, ["random"], 10, 1, 1, tmp_path / "none", progress=False, resume=True)
    out = run_to_dir(fake.SPEC, cfg, config_file, ["random"], 10, 1, 1, tmp_path / "r", progress=False)
    with pytest.raises(runner.ResumeError, match="holds finished results"):
        run_to_dir(fake.SPEC, cfg, config_file, ["random"], 10, 1, 1, out, progress=False, resume=True)
    assert not (tmp_path / "none").exists()


def test_default_chunk_size_bounds():
    assert runner.default_chunk_size(100, 4) == 10
    assert runner.default_chunk_size(80_000, 4) == 2000
    assert runner.default_chunk_size(8_000, 4) == 250


def test_summary_written_by_stats(cfg, config_file, tmp_path, monkeypatch):
    pytest.importorskip("balancer.stats.aggregate")
    monkeypatch.undo()
    out = run_to_dir(fake.SPEC, cfg, config_file, ["random", "strong"], 40, 1, 1, tmp_path / "s", progress=False)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 40


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seed": -1}, "--seed: must be between 0 and 2^63-1, got -1"),
        ({"seed": 2**63}, f"--seed: must be between 0 and 2^63-1, got {2**63}"),
        ({"jobs": 0}, "--jobs: must be a positive number"),
        ({"chunk_size": 0}, "--chunk-size: must be at least 1, got 0"),
    ],
)
def test_check_run_names_the_flag(cfg, kwargs, message):
    args = {"games": 5, "seed": 1, "jobs": 1, "chunk_size": None} | kwargs
    with pytest.raises(runner.RunRequestError) as err:
        runner.check_run(fake.SPEC, cfg, ["random"], **args)
    assert str(err.value) == message or str(err.value).startswith(message)
    assert err.value.flag == message.split(":")[0]


def test_player_count_grammar(cfg):
    solo_less = fake.FakeConfig(game="fake", variant="v", player_counts=[2, 3, 4])
    with pytest.raises(ValueError, match=r"^--players: 1 player is not supported by x.yaml \(supported: 2-4\)$"):
        runner.check_run(fake.SPEC, solo_less, ["random"], 5, 1, source="x.yaml")
    assert runner.counts_text([2, 4]) == "2, 4" and runner.counts_text([1, 2]) == "1, 2"


def test_jobs_are_capped_at_the_cores(monkeypatch):
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 3)
    assert runner.resolve_jobs(64) == 3 and runner.resolve_jobs(2) == 2 and runner.resolve_jobs(-1) >= 1


def test_check_out_dir_file_and_under_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(runner.OutDirError, match=f"^{blocker}: is a file, not a directory$"):
        runner.check_out_dir(blocker)
    with pytest.raises(runner.OutDirError, match=f"^{blocker / 'a' / 'b'}: cannot be created: {blocker} is a file"):
        runner.check_out_dir(blocker / "a" / "b")
    runner.check_out_dir(tmp_path / "new" / "deeper")  # fine, and creates nothing
    assert not (tmp_path / "new").exists()


def test_run_json_lists_assumed_notes(cfg, tmp_path):
    config = tmp_path / "fake.yaml"
    config.write_text('game: fake\nvariant: v\nmax_points: 6\nrounds:\n  "3": {n: 1, assumed: "a guess"}\n')
    out = run_to_dir(fake.SPEC, cfg, config, ["random"], 4, 1, 1, tmp_path / "r", progress=False)
    assert json.loads((out / "run.json").read_text())["assumed"] == ["rounds.3: a guess"]


def test_summary_is_bit_identical_for_any_jobs_and_chunk_size(cfg, config_file, tmp_path, monkeypatch):
    """Floating sums must not depend on the row groups of results.parquet (chunk size) or on --jobs."""
    pytest.importorskip("balancer.stats.aggregate")
    monkeypatch.undo()
    agents = ["random", "strong", "random"]
    texts = []
    for name, jobs, size in [("a", 1, 1), ("b", 2, 7), ("c", 2, 64), ("d", 1, None)]:
        out = run_to_dir(
            fake.SPEC, cfg, config_file, agents, 300, 11, jobs, tmp_path / name, chunk_size=size, progress=False
        )
        texts.append((out / "summary.json").read_bytes())
    assert all(t == texts[0] for t in texts[1:])
    # the luck metric is a float in [0, 1): its mean is summed from floats, not integers
    assert 0 < json.loads(texts[0])["metrics"]["luck_per_player"]["mean"] < 1


def test_run_json_records_the_display_name(cfg, config_file, tmp_path, monkeypatch):
    out = run_to_dir(fake.SPEC, cfg, config_file, ["random"], 2, 1, 1, tmp_path / "a", progress=False)
    assert json.loads((out / "run.json").read_text())["game_title"] == "Fake"
    monkeypatch.setattr(fake, "SPEC", dataclasses.replace(fake.SPEC, display_name="Fake: The Game"))
    out = run_to_dir(fake.SPEC, cfg, config_file, ["random"], 2, 1, 1, tmp_path / "b", progress=False)
    assert json.loads((out / "run.json").read_text())["game_title"] == "Fake: The Game"


def test_a_game_may_check_agent_names_itself(cfg, monkeypatch):
    # games whose agent names take parameters (``greedy+ibex``) validate them with check_agent
    seen = []

    def check(name, config):
        seen.append(config)
        return None if name.startswith("random") else f"no {name!r}"

    monkeypatch.setattr(fake, "SPEC", dataclasses.replace(fake.SPEC, own_check_agent=check))
    check_run(fake.SPEC, cfg, ["random+x", "random"], 10, 1)
    assert seen == [cfg, cfg]  # the hook sees the variant (a deck the variant lacks is refused)
    with pytest.raises(RunRequestError, match="no 'strong'"):
        check_run(fake.SPEC, cfg, ["random", "strong"], 10, 1)
