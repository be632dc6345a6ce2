"""The CLI with typer's CliRunner: help texts, exit codes (0 ok, 2 bad input), nothing written on bad input."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from pathlib import Path

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

from balancer.cli import app

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
runner = CliRunner()


@pytest.fixture
def citywright():
    """The Citywright game module (the CLI is tested against the real engine)."""
    return importlib.import_module("balancer.games.citywright")


def _all_commands() -> dict:
    """Command name -> the click-style command typer builds (typer may vendor click, so duck-typed)."""
    return dict(typer.main.get_command(app).commands)


def test_expected_commands_are_registered():
    assert {"games", "validate", "run", "report", "score", "play"} <= set(_all_commands())


@pytest.mark.parametrize("name", sorted(_all_commands()))
def test_every_command_has_help_for_every_option(name):
    command = _all_commands()[name]
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert command.help and command.help.strip()
    for param in command.params:
        assert getattr(param, "help", None), f"{name}: {param.name} has no help text"


def test_validate_ok(citywright):
    result = runner.invoke(app, ["validate", str(V11)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"OK: {V11} (citywright v1.1, players 1-4)"


def test_validate_bad_exits_2_with_message_on_stderr(citywright, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"extends: {V11}\nscoring: {{park: {{per_rows: 3}}}}\n")
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    assert (
        f"{bad}: scoring.park.per_rows: unknown key 'per_rows' (did you mean 'per_row'?), allowed: touching, per_row, per_column"
        in result.stderr
    )
    assert result.stdout == ""


def test_validate_missing_file_exits_2(tmp_path):
    result = runner.invoke(app, ["validate", str(tmp_path / "none.yaml")])
    assert result.exit_code == 2 and "file not found" in result.stderr
    assert "built-in" not in result.stderr  # a path, not a <game>/<name>: nothing to suggest


def test_a_missing_built_in_name_gets_the_closest_shipped_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no citywright/ folder here: the name can only be a built-in one
    result = runner.invoke(app, ["validate", "citywright/v1.2"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(
        "error: citywright/v1.2: file not found (not a file, nor a built-in name; closest: "
    )
    assert "citywright/v1.1" in result.stderr and "`balancer games` lists citywright's files" in result.stderr
    result = runner.invoke(app, ["validate", "citywrite/v1.1"])  # no such game ships files
    assert result.exit_code == 2 and "`balancer games` lists the games and their files" in result.stderr


def test_validate_schema(citywright):
    result = runner.invoke(app, ["validate", str(V11), "--schema"])
    assert result.exit_code == 0, result.output
    assert "scoring" in json.loads(result.stdout)["properties"]


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--agents", "greedy,wizard,random,random"],
            "error: --agents: unknown agent 'wizard'; known agents: random, greedy",
        ),
        (["--agents", "wizard"], "error: --agents: unknown agent 'wizard'"),
        (["--agents", "greedy,,random"], "error: --agents: empty agent name"),
        (["--players", "5"], f"error: --players: 5 players are not supported by {V11} (supported: 1-4)"),
        (["--players", "0"], "error: --players: must be at least 1, got 0"),
        (["--games", "0"], "error: --games: must be at least 1, got 0"),
        (
            ["--players", "3", "--agents", "greedy,random"],
            "error: --agents: got 2 agents (greedy, random) for 3 players",
        ),
        (["--seed", "-1"], "error: --seed: must be between 0 and 2^63-1, got -1"),
        (["--seed", str(2**63)], f"error: --seed: must be between 0 and 2^63-1, got {2**63}"),
        (["--jobs", "0"], "error: --jobs: must be a positive number of processes"),
        (["--chunk-size", "0"], "error: --chunk-size: must be at least 1, got 0"),
    ],
)
def test_run_bad_input_exits_2_and_writes_nothing(citywright, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(V11), "--out", "out/run", "--quiet", *args])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1
    assert str(V11) not in result.stderr or "--players" in result.stderr  # the flag, not the config
    assert list(tmp_path.iterdir()) == []


def test_run_5_players_names_the_file(citywright, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(V11), "-p", "5"])
    assert result.exit_code == 2 and str(V11) in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_writes_results_and_refuses_overwrite(citywright, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["run", str(V11), "-p", "2", "-n", "12", "-j", "1", "-a", "random"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = Path("results/citywright-v1.1-2p")
    assert (out / "results.parquet").is_file() and (out / "run.json").is_file()
    assert "seat win rates" in result.stdout
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "--force" in again.stderr
    assert runner.invoke(app, [*args, "--force", "--quiet"]).exit_code == 0


@pytest.mark.parametrize("cold", [True, False])
def test_run_says_when_it_compiles_the_engine_first(citywright, tmp_path, monkeypatch, cold):
    # a cold numba cache means a silent minute before the first game: the run says so on stderr
    import balancer.core.numba_cache as numba_cache

    monkeypatch.setattr(numba_cache, "cache_is_cold", lambda package_file: cold)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(V11), "-p", "2", "-n", "4", "-j", "1", "-a", "random", "-q"])
    assert result.exit_code == 0, result.output
    assert ("compiling the citywright engine" in result.stderr) is cold


def test_run_warns_when_a_mixed_table_cannot_rotate_evenly(citywright, tmp_path, monkeypatch):
    # 10 games of 3 seats (10 = 3 x 3 + 1): agents sit 3 or 4 times in a seat, and the run says so
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(V11), "-n", "10", "-j", "1", "-a", "random,greedy,random", "-q"])
    assert result.exit_code == 0, result.output
    assert "10 games is not a multiple of the 3 seats" in result.stderr and "3 or 4 times" in result.stderr


def test_a_solo_run_prints_its_score_not_a_seat_win_rate(citywright, tmp_path, monkeypatch):
    # one seat always "wins" its table, so "seat win rates: 1: 100.0%" would say nothing
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(V11), "-p", "1", "-n", "6", "-j", "1", "-a", "random"])
    assert result.exit_code == 0, result.output
    assert "seat win rates" not in result.stdout and "solo score: " in result.stdout


def test_report_of_an_interrupted_run_points_at_resume(tmp_path):
    # an interrupted run leaves manifest.json and chunks but no results.parquet
    (tmp_path / "manifest.json").write_text("{}")
    result = runner.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2 and "an unfinished run" in result.stderr and "--resume" in result.stderr


def test_report_missing_dir_exits_2(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "nothing" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["report", str(empty)])
    assert result.exit_code == 2 and "results.parquet" in result.stderr


def test_games_lists_citywright(citywright, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    assert "citywright" in result.stdout and "v1.0.yaml" in result.stdout and "players 1-4" in result.stdout
    # study files are listed as studies, not as invalid rule variants
    appendix = next(line for line in result.stdout.splitlines() if "appendix.yaml" in line)
    assert "study citywright-appendix" in appendix and "variants v1.0, v1.1" in appendix
    assert "INVALID" not in result.stdout


def test_play_prints_a_transcript():
    result = runner.invoke(app, ["play", str(V11), "-p", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip()
    assert runner.invoke(app, ["play", str(V11), "-p", "2", "--seed", "3"]).stdout == result.stdout


def test_score_good_and_malformed_table(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("\n".join(["RRRRRRR"] * 7) + "\n")
    result = runner.invoke(app, ["score", str(V11), str(good), "--json"])
    assert result.exit_code == 0, result.output
    breakdown = json.loads(result.stdout)
    assert {"residential", "commercial", "park", "industrial", "total", "empty_cells"} <= set(breakdown)
    bad = tmp_path / "bad.txt"
    bad.write_text("RRRRRRR\nRRX\n")
    result = runner.invoke(app, ["score", str(V11), str(bad)])
    assert result.exit_code == 2 and str(bad) in result.stderr


def test_score_missing_table_file_exits_2(citywright, tmp_path):
    result = runner.invoke(app, ["score", str(V11), str(tmp_path / "none.txt")])
    assert result.exit_code == 2
    assert "none.txt" in result.stderr


# --------------------------------------------------------------------------------------------------
# run: --players grammar, --out, --jobs


def test_run_one_player_on_a_variant_without_solo(citywright, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    v10 = V11.parent / "v1.0.yaml"
    result = runner.invoke(app, ["run", str(v10), "-p", "1", "--quiet"])
    assert result.exit_code == 2
    assert result.stderr == f"error: --players: 1 player is not supported by {v10} (supported: 2-4)\n"


def test_run_out_is_a_file_or_under_a_file(citywright, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("blocker").write_text("x")
    result = runner.invoke(app, ["run", str(V11), "-p", "2", "-a", "random", "-n", "2", "--out", "blocker", "-q"])
    assert result.exit_code == 2
    assert result.stderr == "error: --out blocker: is a file, not a directory\n"
    result = runner.invoke(app, ["run", str(V11), "-p", "2", "-a", "random", "-n", "2", "--out", "blocker/x/y", "-q"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --out blocker/x/y: cannot be created: ")
    assert "blocker is a file" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_run_caps_jobs_at_the_cores(citywright, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    result = runner.invoke(app, ["run", str(V11), "-p", "2", "-a", "random", "-n", "4", "-j", "64", "-q", "--out", "r"])
    assert result.exit_code == 0, result.output
    assert "--jobs 64 is more than the 2 cores of this machine; using 2" in result.stderr
    assert json.loads(Path("r/run.json").read_text())["jobs"] == 2


# --------------------------------------------------------------------------------------------------
# report: bad output paths and bad results files, one message each, exit 2, no traceback


def _results_dir(tmp_path: Path) -> Path:
    import polars as pl

    directory = tmp_path / "run"
    directory.mkdir()
    pl.DataFrame(
        {
            "game_index": [0, 0, 1, 1],
            "seat": [1, 2, 1, 2],
            "agent": ["greedy"] * 4,
            "score": [3, 1, 2, 2],
            "rank": [1, 2, 1, 1],
            "win_share": [1.0, 0.0, 0.5, 0.5],
        }
    ).write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(
        json.dumps({"game": "citywright", "variant": "v1.1", "n_players": 2, "seed": 1, "games": 2})
    )
    return directory


def _assert_bad_input(result, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert result.stderr == f"error: {message}\n" or (
        result.stderr.startswith(f"error: {message}") and len(result.stderr.splitlines()) == 1
    ), result.stderr


def test_report_ok(tmp_path):
    run = _results_dir(tmp_path)
    result = runner.invoke(app, ["report", str(run), "-o", str(tmp_path / "out" / "r.html")])
    assert result.exit_code == 0, result.output
    assert "Citywright v1.1: balance report" in (tmp_path / "out" / "r.html").read_text()


def test_report_out_is_a_directory(tmp_path):
    run = _results_dir(tmp_path)
    result = runner.invoke(app, ["report", str(run), "-o", str(tmp_path)])
    _assert_bad_input(result, f"--out {tmp_path}: is a directory")


def test_report_out_under_a_file(tmp_path):
    run = _results_dir(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    result = runner.invoke(app, ["report", str(run), "-o", str(blocker / "r.html")])
    _assert_bad_input(result, f"--out {blocker / 'r.html'}: cannot be created: {blocker} is a file")


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("results.parquet", b"PAR1 truncated", "results.parquet: not a readable Parquet file ("),
        ("results.parquet", None, "results.parquet: missing column win_share"),
        ("run.json", b"{oops", "run.json: not valid JSON ("),
        ("summary.json", b"[", "summary.json: not valid JSON ("),
        ("summary.json", json.dumps({"games": 99}).encode(), "summary.json: out of date: it says games = 99"),
    ],
)
def test_report_bad_files_name_the_file(tmp_path, name, content, message):
    import polars as pl

    run = _results_dir(tmp_path)
    if content is None:
        pl.read_parquet(run / name).drop("win_share").write_parquet(run / name)
    else:
        (run / name).write_bytes(content)
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(run), "-o", str(out)])
    _assert_bad_input(result, f"{run}/{message}")
    assert not out.exists()


# --------------------------------------------------------------------------------------------------
# failing games, Ctrl-C and --resume, replaying game i


def _breaking(monkeypatch, index: int, exc: BaseException):
    """Make Citywright game ``index`` raise ``exc`` (in this process: use --jobs 1): game by game,
    and the compiled chunk that holds it (the runner then plays that chunk game by game to find it)."""
    import balancer.games.citywright as cw

    real, real_chunk = cw.SPEC.play_game, cw.SPEC.play_chunk

    def play_game(cfg, agents, seed):
        if seed.spawn_key[-1] == index:
            raise exc
        return real(cfg, agents, seed)

    def play_chunk(cfg, agents, run_seed, start, stop):
        if start <= index < stop:
            raise exc
        return real_chunk(cfg, agents, run_seed, start, stop)

    monkeypatch.setattr(cw, "SPEC", dataclasses.replace(cw.SPEC, own_play_game=play_game, own_play_chunk=play_chunk))


def test_a_failing_game_is_reported_with_its_replay_command_and_exit_1(tmp_path, monkeypatch):
    _breaking(monkeypatch, 5, RuntimeError("rules broke"))
    out = tmp_path / "r"
    result = runner.invoke(
        app,
        [
            "run",
            str(V11),
            "--players",
            "3",
            "--agents",
            "random,greedy,random",
            "--games",
            "12",
            "--seed",
            "4",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 1
    assert "1 of 12 games failed" in result.stderr
    assert "game 5 (seed 4): RuntimeError: rules broke" in result.stderr
    assert (
        f"replay: balancer play {V11} --players 3 --agents random,greedy,random --seed 4 --game-index 5"
        in result.stderr
    )
    assert pl.read_parquet(out / "results.parquet")["game_index"].n_unique() == 11
    assert json.loads((out / "run.json").read_text())["failures"][0]["game_index"] == 5


def test_ctrl_c_keeps_finished_chunks_and_prints_the_resume_command(tmp_path, monkeypatch):
    _breaking(monkeypatch, 25, KeyboardInterrupt())
    out = tmp_path / "r"
    args = [
        "run",
        str(V11),
        "--players",
        "2",
        "--agents",
        "random",
        "--games",
        "40",
        "--jobs",
        "1",
        "--chunk-size",
        "10",
        "--quiet",
        "--out",
        str(out),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 130
    assert "interrupted: 20 of 40 games are saved" in result.stderr
    assert result.stderr.rstrip().endswith("--resume")
    assert len(json.loads((out / "manifest.json").read_text())["chunks"]) == 2
    monkeypatch.undo()
    assert runner.invoke(app, [*args, "--resume"]).exit_code == 0
    assert pl.read_parquet(out / "results.parquet")["game_index"].to_list()[::2] == list(range(40))


def test_play_game_index_replays_game_i_of_a_run():
    from balancer.config import load_config
    from balancer.core.seeding import game_seed
    from balancer.core.tables import seat_agents
    from balancer.games import citywright as cw

    cfg = load_config(V11)
    result = runner.invoke(
        app,
        ["play", str(V11), "--players", "3", "--agents", "greedy,random,random", "--seed", "4", "--game-index", "7"],
    )
    assert result.exit_code == 0
    expected = cw.transcript(cfg, seat_agents(["greedy", "random", "random"], 7), game_seed(4, 7))
    assert result.stdout.rstrip("\n") == expected.rstrip("\n")


def test_games_shows_agents_accepted_beyond_the_listed_ones(monkeypatch):
    """Urban Sketchers' rollout is accepted by check_agent but kept out of AGENTS (the conformance
    suite plays every listed agent): `balancer games` still names it."""
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("urban_sketchers "))
    # the game's line, wrapped at 100 columns: its continuation lines are indented by four spaces
    rest = [x.strip() for x in lines[first + 1 :]]
    rest = rest[: next(i for i, x in enumerate(lines[first + 1 :]) if not x.startswith("    "))]
    line = " ".join([lines[first], *rest])
    assert line.startswith("urban_sketchers  agents: random, greedy (mcts@N: ")
    # the game's rollout, then the generic agents: mcts, and any another package registers (balancer.agents)
    assert re.search(r"; also accepted: rollout, mcts(, [a-z][a-z0-9_]*)*$", line), line


@pytest.mark.parametrize(
    "config,keys",
    [
        ("urgency/standard.yaml", ["roll: ", "board: (1)", "(3) tile_15", "(5) change_roll_range"]),
        (
            "urban_sketchers/base.yaml",
            [
                "setup: ",
                "(2) money",
                "dice: none_placeable",
                "(2) full_backpack",
                "(2) min_cards",
                "(3) beyond_six",
                "(2) prestige_overflow_per",
                "(2) per_type",
                "(2) streak_needs_card",
                "(2) pair_flips",
            ],
        ),
        ("citywright/v1.1.yaml", ["achievements: v1.1 is played without achievements"]),
        ("citywright/achievements.yaml", ["achievements: the three achievements the rulebook names"]),
    ],
)
def test_validate_assumed_lists_every_assumed_value(config, keys):
    """validate --assumed prints the OK line, then one line per `assumed:` note (its key path and why),
    the notes of issue 14 among them; without the option the output is the OK line alone."""
    path = Path(__file__).resolve().parents[1] / "configs" / config
    result = runner.invoke(app, ["validate", "--assumed", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    notes = [line[4:] for line in lines if line.startswith("  - ")]
    header = next(line for line in lines if line.startswith("assumed ("))
    assert header.startswith(f"assumed ({len(notes)};") and notes
    for key in keys:
        assert any(key in note for note in notes), (key, notes)


def test_python_dash_m_balancer_is_the_command_line():
    # `python -m balancer` and `python -m balancer.cli` run the same Typer app as the console script
    import subprocess
    import sys

    for module in ("balancer", "balancer.cli"):
        done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Usage: balancer" in done.stdout and "validate" in done.stdout


def test_play_of_a_game_that_fails_is_one_line_and_exit_1(monkeypatch):
    # a game that raises while it is played (a search's safety stop: "did not end within N decisions") is
    # the game's failure, not bad input: one line, exit 1, no traceback
    from balancer import api

    def failing(*args, **kwargs):
        raise RuntimeError("the game did not end within 8,000 decisions")

    monkeypatch.setattr(api, "play_transcript", failing)
    result = runner.invoke(app, ["play", str(V11), "-p", "2", "--seed", "3"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: this game failed: the game did not end within 8,000 decisions"
    assert "Traceback" not in result.output
