"""The library API (balancer.api, re-exported by balancer): the docs' example (docs/python.md) run as written, the
CLI giving the same results through it, shipped configs by name, and balancer init."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import balancer
from balancer.cli import app
from balancer.data import CONFIGS_DIR, builtin_config, builtin_configs, locate_config

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def docs_python_example() -> str:
    """The first ```python block of the docs page "Use it from Python" (docs/python.md), as written."""
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match is not None, "docs/python.md has no python code block"
    return match.group(1)


def test_the_docs_python_example_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(docs_python_example(), "docs/python.md", "exec"), ns)  # noqa: S102 - our own docs
    res, cmp = ns["res"], ns["cmp"]
    games = res.meta["games"]
    # one row per seat per game, games 0..games-1, four seats
    assert res.frame.height == 4 * games and sorted(res.frame["game_index"].unique()) == list(range(games))
    # summary.json's seat win rates are the mean win share of each seat over the games (one row per
    # seat per game), which is also what the example's polars query computes
    by_seat = {r["seat"]: r["rate"] for r in ns["by_seat"].iter_rows(named=True)}
    for row in res.summary["seat_win_rate"]:
        assert math.isclose(row["rate"], by_seat[row["seat"]], abs_tol=1e-12)
        assert row["ci_low"] <= row["rate"] <= row["ci_high"]
    assert math.isclose(sum(by_seat.values()), 1.0)  # a game's win shares sum to 1
    # the comparison played both variants on the same seeds (common random numbers)
    a, b = cmp.a.frame, cmp.b.frame
    assert (
        a.select("game_index", "seed")
        .unique()
        .sort("game_index")
        .equals(b.select("game_index", "seed").unique().sort("game_index"))
    )
    assert set(ns["changes"]) == {row["name"] for row in cmp.comparison["seat_win_rate"]}
    for page in ("reports/cw.html", "reports/cw-cmp.html"):
        html = (tmp_path / page).read_text(encoding="utf-8")
        assert "<html" in html[:500] and "v1.1" in html
    # the command line is the same call: `balancer run` with the example's arguments writes the same rows
    cli = runner.invoke(
        app, ["run", "citywright/v1.1", "-p", "4", "-a", "greedy", "-n", str(games), "--seed", "1", "-j", "1",
              "-o", "cli", "-q"],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert pl.read_parquet(tmp_path / "cli" / "results.parquet").equals(res.frame)
    assert json.loads((tmp_path / "cli" / "summary.json").read_text()) == res.summary
    # and a finished run directory reopens as the same result
    assert balancer.open_run("results/cw").frame.equals(res.frame)


def test_run_refuses_bad_requests_with_the_library_errors(tmp_path):
    from balancer.config import ConfigError
    from balancer.sim.runner import RunRequestError

    with pytest.raises(RunRequestError, match="--agents"):
        balancer.run("citywright/v1.1", agents="nobody", games=4, out=tmp_path / "x")
    with pytest.raises(RunRequestError, match="--players: must be at least 1"):
        balancer.run("citywright/v1.1", players=0, games=4, out=tmp_path / "x")
    with pytest.raises(ConfigError, match="a study file"):
        balancer.run("citywright/appendix", games=4, out=tmp_path / "x")
    with pytest.raises(ConfigError, match="file not found"):
        balancer.run(tmp_path / "missing.yaml", games=4, out=tmp_path / "x")
    assert not (tmp_path / "x").exists()  # nothing written on bad input


def test_shipped_configs_are_the_repository_configs():
    # one source of truth: the package data is a link to the repository's configs/
    assert CONFIGS_DIR.resolve() == (ROOT / "configs").resolve()
    assert {p.name for p in builtin_configs("citywright")} >= {"v1.0.yaml", "v1.1.yaml", "appendix.yaml", "ci.yaml"}


@pytest.mark.parametrize("name", ["citywright/v1.1", "citywright/v1.1.yaml"])
def test_a_shipped_config_is_found_by_name(name):
    assert builtin_config(name) == CONFIGS_DIR / "citywright" / "v1.1.yaml"
    assert builtin_config(name).resolve() == (ROOT / "configs" / "citywright" / "v1.1.yaml").resolve()


@pytest.mark.parametrize(
    "name",
    ["citywright/../citywright/v1.1", "/etc/passwd", "citywright/sub/v1.1", "../configs/citywright/v1.1",
     "citywright/.v1.1", "citywright/nothing", "nogame/v1.1", "citywright", ""],
)  # fmt: skip
def test_names_outside_the_shipped_files_find_nothing(name):
    assert builtin_config(name) is None


def test_a_file_on_disk_wins_over_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "citywright").mkdir()
    (tmp_path / "citywright" / "v1.1.yaml").write_text("extends: citywright/v1.1\nvariant: local\n")
    assert locate_config("citywright/v1.1.yaml") == Path("citywright/v1.1.yaml")
    # ... and that file extends the shipped variant of the same name (no cycle: the name is read
    # relative to the file, where no such file exists, then as a shipped name)
    assert balancer.load_variant("citywright/v1.1.yaml")[0].variant == "local"


def test_init_writes_a_starter_variant_and_study_that_validate(tmp_path):
    out = tmp_path / "mine"
    result = runner.invoke(app, ["init", "citywright", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["study.yaml", "variant.yaml"]
    assert "extends: citywright/v1.1\n" in (out / "variant.yaml").read_text()
    cfg, _ = balancer.load_variant(out / "variant.yaml")
    assert (cfg.game, cfg.variant) == ("citywright", "mine")
    # the starter changes no rule: everything but the name equals the shipped variant
    shipped, _ = balancer.load_variant("citywright/v1.1")
    assert cfg.model_dump(exclude={"variant"}) == shipped.model_dump(exclude={"variant"})
    for path in (out / "variant.yaml", out / "study.yaml"):
        check = runner.invoke(app, ["validate", str(path)])
        assert check.exit_code == 0 and check.stdout.startswith("OK"), check.output


def test_init_refuses_an_unknown_game_and_existing_files(tmp_path):
    result = runner.invoke(app, ["init", "chess", str(tmp_path / "a")])
    assert result.exit_code == 2 and "unknown game 'chess'" in result.stderr
    assert not (tmp_path / "a").exists()
    out = tmp_path / "b"
    assert runner.invoke(app, ["init", "urgency", str(out)]).exit_code == 0
    (out / "variant.yaml").write_text("# edited\nextends: urgency/standard\nvariant: mine\n")
    again = runner.invoke(app, ["init", "urgency", str(out)])
    assert again.exit_code == 2 and "already exists; use --force" in again.stderr
    assert (out / "variant.yaml").read_text().startswith("# edited")  # nothing overwritten
    assert runner.invoke(app, ["init", "urgency", str(out), "--force"]).exit_code == 0
    assert not (out / "variant.yaml").read_text().startswith("# edited")


@pytest.mark.parametrize(
    "kwargs, flag",
    [
        ({"games": 2.5}, "--games"),  # would play 2 games and record 2.5
        ({"games": True}, "--games"),  # a bool is an int to Python, not a count
        ({"games": "10"}, "--games"),
        ({"seed": "x"}, "--seed"),
        ({"agents": None}, "--agents"),
        ({"agents": 5}, "--agents"),
        ({"agents": []}, "--agents"),
    ],
)
def test_the_api_refuses_wrong_types_naming_the_parameter(tmp_path, kwargs, flag):
    args = {"players": 2, "agents": "random", "games": 2, "out": tmp_path / "r", **kwargs}
    with pytest.raises(balancer.RunRequestError) as err:
        balancer.run("citywright/v1.1", **args)
    assert str(err.value).startswith(f"{flag}: must be ")
    assert not (tmp_path / "r").exists()


def test_the_api_accepts_numpy_integers(tmp_path):
    import numpy as np

    res = balancer.run(
        "citywright/v1.1", players=2, agents="random", games=np.int64(4), seed=np.int32(3), out=tmp_path / "r"
    )
    assert res.frame["game_index"].n_unique() == 4


def test_the_api_errors_are_importable_from_the_package():
    from balancer.config import ConfigError
    from balancer.sim.runner import GamesFailedError, ResultsExistError, RunRequestError

    assert (balancer.ConfigError, balancer.RunRequestError) == (ConfigError, RunRequestError)
    assert (balancer.ResultsExistError, balancer.GamesFailedError) == (ResultsExistError, GamesFailedError)


def test_an_agent_without_a_compiled_form_beside_mcts_is_one_clear_line(tmp_path):
    # Urban Sketchers' rollout agent is Python only, so it cannot share a compiled mcts table.
    res = CliRunner().invoke(
        app,
        [
            "run",
            "urban_sketchers/base",
            "-p",
            "2",
            "-a",
            "mcts@5,rollout",
            "-n",
            "2",
            "-q",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert res.exit_code == 2
    assert (
        "agent 'rollout' cannot sit at the same Urban Sketchers table as an mcts seat yet (it has no "
        "compiled form); play it at tables without mcts"
    ) in res.output
    assert not (tmp_path / "r").exists()
