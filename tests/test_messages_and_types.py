"""Messages and types (issue 28, item 4): control characters never reach the terminal raw, a study where
a variant belongs is named as such, a baseline that contradicts itself is refused, and every public
function of balancer.api refuses a wrong type with the library's own error naming the parameter."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer import api
from balancer.check.baseline import BaselineError, load_baseline
from balancer.cli import app
from balancer.cli.errors import message_lines, terminal_text
from balancer.config import ConfigError
from balancer.sim.errors import RunRequestError

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
BASELINE = json.loads((ROOT / "baselines" / "citywright-ci.json").read_text(encoding="utf-8"))


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


# --------------------------------------------------------------------------------------------------
# control characters


def test_terminal_text_escapes_what_a_terminal_would_act_on():
    # ESC starts a colour, \r returns to the line's start, \u202e reverses what follows; tab and newline stay
    assert terminal_text("a\x1b[31mb\rc\u202ed\te\nf") == "a\\x1b[31mb\\rc\\u202ed\te\nf"
    # one line of a ConfigError cannot become two: its own newline is escaped, the lines' separator kept
    assert message_lines(ConfigError(["v.yaml: x\nFAKE: OK", "v.yaml: y"])) == "v.yaml: x\\nFAKE: OK\nv.yaml: y"


@pytest.mark.parametrize("name", ["x\nFAKE: OK", "x\rFAKE: OK", "x\x1b[2K\x1b[1GFAKE: OK", "\u202eKO :EKAF"])
def test_a_variant_name_cannot_forge_a_line(tmp_path, name):
    path = tmp_path / "v.yaml"
    path.write_text(f"extends: {V11}\nvariant: {json.dumps(name)}\n", encoding="utf-8")
    result = invoke("validate", path)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: variant: a variant name has no control")
    assert not any(c in result.output for c in "\r\x1b\u202e")
    assert not any(line.startswith("FAKE") for line in lines)


def test_a_file_name_with_control_characters_is_escaped_in_the_error(tmp_path):
    path = tmp_path / "a\x1b[31m\rb.yaml"
    result = invoke("validate", path)
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "a\\x1b[31m\\rb.yaml: file not found" in result.output


RUN2 = ["run", V11, "-p", "2", "-a", "random", "-n", "2", "-j", "1", "-q", "--seed", "5"]
FORGED = "x\nFAKE: OK\x1b[2K"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # review of issue 28: each of these printed the name's newline raw, so a name forged a line
        ([*RUN2, "-o", FORGED], ["results: x\\nFAKE: OK\\x1b[2K/results.parquet"]),
        (["init", "citywright", FORGED], ["written: x\\nFAKE: OK\\x1b[2K/variant.yaml"]),
        (["report", FORGED], ["error: x\\nFAKE: OK\\x1b[2K: no such results directory"]),
        ([*RUN2, "-o", "done\nFAKE: OK"], ["error: --out done\\nFAKE: OK: already holds results.parquet"]),
    ],
)
def test_an_output_name_cannot_forge_a_line(tmp_path, monkeypatch, args, expected):
    monkeypatch.chdir(tmp_path)
    if args[-1] == "done\nFAKE: OK":
        assert invoke(*RUN2, "-o", args[-1]).exit_code == 0  # results there: the second run is refused
    result = invoke(*args)
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    assert not any(line.startswith("FAKE") for line in lines) and "\x1b" not in result.output, result.output
    for want in expected:
        assert any(line.startswith(want) for line in lines), result.output


# --------------------------------------------------------------------------------------------------
# a study where a variant belongs


def test_a_study_listing_itself_as_a_variant_is_told_so_in_one_line(tmp_path):
    study = tmp_path / "s.yaml"
    study.write_text(
        "study: s\ntitle: t\ngame: citywright\nseed: 1\nvariants:\n  me: s.yaml\n"
        "runs:\n  mirror-2p: {players: 2, agents: [random], games: 2}\n",
        encoding="utf-8",
    )
    result = invoke("validate", study)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines == [  # issue 52: the key that lists it is named
        f"error: {study}: variants.me: {study} is a study file (this study file), not a rule variant; "
        "give a variant config"
    ]


def test_a_sweep_whose_base_is_a_study_is_told_so(tmp_path):
    (tmp_path / "s.yaml").write_text(
        "study: s\ntitle: t\ngame: citywright\nseed: 1\nvariants:\n  a: " + str(V11) + "\nruns: {}\n"
    )
    sweep = tmp_path / "sw.yaml"
    sweep.write_text(
        "sweep: w\ntitle: t\nbase: s.yaml\nseed: 1\nruns:\n  m: {players: 2, agents: [random], games: 2}\n"
        "paths:\n  seat_bonus.2[1]: [0, 1]\n"
    )
    result = invoke("validate", sweep)
    assert result.exit_code == 2 and "a study file, not a variant" in result.output, result.output


# --------------------------------------------------------------------------------------------------
# a baseline that contradicts itself


def _number(doc: dict) -> dict:
    return next(n for n in doc["cells"][0]["numbers"].values() if n.get("successes") is not None)


def test_the_committed_baseline_is_consistent():
    load_baseline(ROOT / "baselines" / "citywright-ci.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # successes 2208 of 6000 games is a mean of 0.368; a mean of 0.5 contradicts them
        ({"mean": 0.5}, "mean 0.5 contradicts successes 2208.0 of 6000 games (0.368)"),
        ({"successes": 3000.0}, "mean 0.368 contradicts successes 3000.0 of 6000 games (0.5)"),
        # a win rate of mean 0.368 over 6000 games has a variance of at most 0.368 * 0.632 * 6000 / 5999 = 0.2326
        ({"variance": 0.3}, "variance 0.3 is more than a win rate of mean 0.368 can have"),
    ],
)
def test_a_baseline_whose_mean_contradicts_its_successes_is_refused(tmp_path, change, message):
    doc = copy.deepcopy(BASELINE)
    number = _number(doc)
    assert (number["games"], number["mean"], number["successes"]) == (6000, 0.368, 2208.0)
    number.update(change)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(BaselineError, match=r"cells\.0\.numbers\..*" + message.replace("(", r"\(").replace(")", r"\)")):
        load_baseline(path)


# --------------------------------------------------------------------------------------------------
# the API's wrong types


class _NotAType:
    """A value of no type any parameter takes (not a path, a number, a string, a bool or a function)."""

    def __repr__(self) -> str:
        return "<not a type>"


BAD = _NotAType()

VALID_RUN = {"config": "citywright/v1.1", "players": 2, "agents": "random", "games": 2, "seed": 1, "jobs": 1}
PUBLIC = {
    "run": (api.run, VALID_RUN, [
        "config", "players", "agents", "games", "seed", "jobs", "out", "force", "resume", "chunk_size",
        "scheduler", "until_ci", "max_games", "progress", "command", "note", "log", "flow",
    ]),
    "compare_variants": (api.compare_variants, {"config_a": "citywright/v1.1", "config_b": "citywright/v1.0", "players": 2,
                              "agents": "random", "games": 2}, [
        "config_a", "config_b", "players", "agents", "games", "seed", "jobs", "out", "force", "progress", "command",
        "others",
    ]),
    "write_report": (api.write_report, {"result": "nowhere", "path": "r.html"}, ["result", "path", "title", "force"]),
    "open_run": (api.open_run, {"out_dir": "nowhere"}, ["out_dir"]),
    "load_variant": (api.load_variant, {"config": "citywright/v1.1"}, ["config"]),
    "read_history": (api.read_history, {"path": "h.duckdb"}, ["path", "study", "numbers", "since"]),
    "history_page": (api.history_page, {"path": "h.duckdb", "out": "h.html"}, [
        "path", "out", "study", "numbers", "since", "figures", "alpha", "last", "said",
    ]),
    "show": (api.show, {"config": "citywright/v1.1", "diff": "citywright/v1.0"}, ["config", "diff"]),
    "default_players": (api.default_players, {"players": None, "agents": "random", "cfg": None}, [
        "players", "agents", "cfg", "fallback",
    ]),
    "play_transcript": (api.play_transcript, {"config": "citywright/v1.1"}, [
        "config", "players", "agents", "seed", "game_index",
    ]),
    "score_table": (api.score_table, {"config": "citywright/v1.1", "text": ""}, ["config", "text"]),
    "write_pairs_page": (api.write_pairs_page, {"results_dir": "nowhere", "label": "shops", "path": "p.html"}, [
        "results_dir", "label", "path", "figures",
    ]),
    "write_starter": (api.write_starter, {"game": "citywright", "directory": "d"}, ["game", "directory", "force"]),
    "game_names": (api.game_names, {}, []),
    "run_study": (api.run_study, {"study_file": "citywright/appendix"}, [
        "study_file", "results", "jobs", "force", "progress", "log", "scheduler", "folder", "checked",
    ]),
    "save_baseline": (api.save_baseline, {"study_file": "citywright/ci", "out": "b.json"}, [
        "study_file", "out", "results", "jobs", "replay", "progress", "log", "values",
    ]),
}  # fmt: skip
"""Every public function of balancer.api and every parameter it takes (a test below checks the list is whole)."""

CASES = [(name, param) for name, (_, _, params) in PUBLIC.items() for param in params]
FIELD_OF = {"result": "out_dir"}  # report's result, when it is not a result, is a directory


def test_every_parameter_of_every_public_function_is_listed():
    import inspect

    for name, (fn, _, params) in PUBLIC.items():
        assert sorted(inspect.signature(fn).parameters) == sorted(params), name
    assert sorted(PUBLIC) == sorted(n for n in api.__all__ if callable(getattr(api, n)) and n[0].islower())


@pytest.mark.parametrize(("name", "param"), CASES)
def test_the_api_refuses_a_wrong_type_for_every_parameter(tmp_path, monkeypatch, name, param):
    monkeypatch.chdir(tmp_path)
    fn, valid, _ = PUBLIC[name]
    kwargs = dict(valid)
    if name == "default_players":
        kwargs["cfg"] = api.load_variant("citywright/v1.1")[0]
    kwargs[param] = BAD
    with pytest.raises(RunRequestError) as err:
        fn(**kwargs)
    assert err.value.field == FIELD_OF.get(param, param)
    assert "must be " in str(err.value) and "<not a type>" in str(err.value)
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"games": None}, "--games"),
        ({"seed": None}, "--seed"),
        ({"until_ci": "0.1"}, "--until-ci"),
        ({"out": 123}, "--out"),
        ({"out": ""}, "--out"),  # '' would write into the current directory
        ({"config": 5}, "--config"),
        ({"config": ""}, "--config"),
        ({"force": "yes"}, "--force"),
    ],
)
def test_the_api_refuses_the_types_the_review_tried(tmp_path, monkeypatch, kwargs, flag):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RunRequestError) as err:
        api.run(**{**VALID_RUN, "out": tmp_path / "r", **kwargs})
    assert str(err.value).startswith(f"{flag}: must be ")
    assert list(tmp_path.iterdir()) == []
