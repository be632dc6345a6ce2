"""Bad input to study, compare, baseline save, check and validate: one line naming the file, key or
flag, exit 2, no traceback, nothing written, and all of it found before any game is played (except
the one in-process game a study plays to learn its metric and label names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "citywright"
V10, V11 = CONFIGS / "v1.0.yaml", CONFIGS / "v1.1.yaml"

STUDY = f"""
study: tiny
title: "A tiny study"
game: citywright
seed: 5
variants: {{v1.0: {V10}, v1.1: {V11}}}
runs:
  mirror-2p: {{players: 2, agents: [random], games: 6}}
  mirror-3p: {{players: 3, agents: [random], games: 6}}
figures:
  - {{title: Wasted, run: mirror-2p, show: "metric:wasted_tiles"}}
"""


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file())


@pytest.fixture
def study_file(tmp_path: Path):
    """Write STUDY with the given replacements to tmp_path/study/s.yaml; return its path."""

    def write(*edits: tuple[str, str]) -> Path:
        text = STUDY
        for old, new in edits:
            assert old in text
            text = text.replace(old, new)
        folder = tmp_path / "study"
        folder.mkdir(exist_ok=True)
        path = folder / "s.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "plain"
    path.write_text("a file, not a directory\n")
    return path


# --------------------------------------------------------------------------------------------------
# study: figure names and output paths, before playing


@pytest.mark.parametrize(
    "show, message",
    [
        (
            "metric:game_turnz",
            "figures[0].show: citywright has no metric 'game_turnz' in run 'mirror-2p'; its metrics are ",
        ),
        ("matchups:decks", "figures[0].show: citywright has no label 'decks' in run 'mirror-2p'"),
    ],
)
def test_study_refuses_a_figure_the_game_does_not_produce_before_playing(
    tmp_path, study_file, one_error_line, show, message
):
    study = study_file(('show: "metric:wasted_tiles"', f'show: "{show}"'))
    res = invoke("study", study, "-o", tmp_path / "s.html", "--results", tmp_path / "results", "-j", "1", "-q")
    line = one_error_line(res)
    assert str(study) in line and message in line
    assert not (tmp_path / "results").exists() and not (tmp_path / "s.html").exists()


def test_study_refuses_matchups_of_a_run_that_is_not_two_player(tmp_path, study_file, one_error_line):
    study = study_file(('run: mirror-2p, show: "metric:wasted_tiles"', 'run: mirror-3p, show: "matchups:deck"'))
    res = invoke("study", study, "-o", tmp_path / "s.html", "--results", tmp_path / "results", "-j", "1", "-q")
    assert "figures[0].show: a match-up matrix needs a 2-player run, 'mirror-3p' has 3" in one_error_line(res)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "flag, where, message",
    [
        ("-o", "plain/s.html", "--out {p}: cannot be created: {a} is a file, not a directory"),
        ("--results", "plain", "--results {p}: is a file, not a directory"),
        ("--results", "plain/r", "--results {p}: cannot be created: {a} is a file, not a directory"),
        ("--figures", "plain", "--figures {p}: is a file, not a directory"),
    ],
)
def test_study_checks_output_paths_before_playing(tmp_path, study_file, a_file, one_error_line, flag, where, message):
    study = study_file()
    path = tmp_path / where
    args = {"-o": tmp_path / "s.html", "--results": tmp_path / "results"} | {flag: path}
    res = invoke("study", study, *[x for kv in args.items() for x in kv], "-j", "1", "-q")
    assert one_error_line(res) == "error: " + message.format(p=path, a=a_file)
    assert not (tmp_path / "results").exists() and not (tmp_path / "s.html").exists()


# --------------------------------------------------------------------------------------------------
# compare: output paths before playing


@pytest.mark.parametrize(
    "flag, where, message",
    [
        ("--report", "plain/c.html", "--report {p}: cannot be created: {a} is a file, not a directory"),
        ("--report", ".", "--report {p}: is a directory; give the path of an HTML file"),
        ("-o", "plain", "--out {p}: is a file, not a directory"),
    ],
)
def test_compare_checks_output_paths_before_playing(tmp_path, a_file, one_error_line, flag, where, message):
    path = tmp_path / where
    args = {"-o": tmp_path / "out", "--report": tmp_path / "c.html"} | {flag: path}
    res = invoke(
        "compare",
        V10,
        V11,
        "-p",
        "2",
        "-a",
        "random",
        "-n",
        "4",
        "-j",
        "1",
        "-q",
        *[x for kv in args.items() for x in kv],
    )
    assert one_error_line(res) == "error: " + message.format(p=path, a=a_file)
    assert files_under(tmp_path) == [a_file]


# --------------------------------------------------------------------------------------------------
# baseline save: expect: targets as check sees them, and its paths, before playing


@pytest.mark.parametrize(
    "expect, message",
    [
        (  # a metric the game does not have: refused when the study is read, with the closest name
            "game_turnz_per_player: {at_most: 6}",
            "runs.mirror-2p.expect.game_turnz_per_player: 'game_turnz_per_player' is no metric of citywright; "
            "its metrics are ",
        ),
        (
            '"seat_win_rate:3": {at_most: 0.6}',
            "runs.mirror-2p.expect.seat_win_rate:3: no such number in cell mirror-2p/v1.0",
        ),
    ],
)
def test_baseline_save_refuses_expect_targets_check_would_refuse(tmp_path, study_file, one_error_line, expect, message):
    study = study_file(("games: 6}\n  mirror-3p", f"games: 6, expect: {{{expect}}}}}\n  mirror-3p"))
    res = invoke(
        "baseline", "save", study, "-o", tmp_path / "b.json", "--results", tmp_path / "results", "-j", "1", "-q"
    )
    line = one_error_line(res)
    assert str(study) in line and message in line
    assert not (tmp_path / "b.json").exists() and not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "flag, where, message",
    [
        ("-o", "plain/b.json", "--out {p}: cannot be created: {a} is a file, not a directory"),
        ("-o", ".", "--out {p}: is a directory; give the path of a JSON file"),
        ("--results", "plain", "--results {p}: is a file, not a directory"),
    ],
)
def test_baseline_save_checks_output_paths_before_playing(
    tmp_path, study_file, a_file, one_error_line, flag, where, message
):
    study = study_file()
    path = tmp_path / where
    args = {"-o": tmp_path / "b.json", "--results": tmp_path / "results"} | {flag: path}
    res = invoke("baseline", "save", study, *[x for kv in args.items() for x in kv], "-j", "1", "-q")
    assert one_error_line(res) == "error: " + message.format(p=path, a=a_file)
    assert not (tmp_path / "results").exists() and not (tmp_path / "b.json").exists()


# --------------------------------------------------------------------------------------------------
# check: --junit and --markdown before playing


@pytest.mark.parametrize("flag", ["--junit", "--markdown"])
@pytest.mark.parametrize(
    "where, message",
    [
        ("plain/out.txt", "{f} {p}: cannot be created: {a} is a file, not a directory"),
        (".", "{f} {p}: is a directory; give the path of a file"),
    ],
)
def test_check_checks_report_paths_before_playing(tmp_path, study_file, a_file, one_error_line, flag, where, message):
    study = study_file()
    base = tmp_path / "base.json"  # loads as a baseline; the paths are refused before it is compared
    cell = {
        "run": "r",
        "variant": "v",
        "players": 2,
        "agents": ["random"],
        "games": 10,
        "seed": 5,
        "config_sha256": "0" * 64,
        "numbers": {"seat_win_rate:1": {"kind": "win_rate", "games": 10, "mean": 0.5, "variance": 0.25}},
    }
    base.write_text(
        json.dumps(
            {
                "format": 1,
                "kind": "balancer-baseline",
                "study": "tiny",
                "game": "citywright",
                "seed": 5,
                "cells": [cell],
            }
        )
    )
    path = tmp_path / where
    res = invoke("check", study, "--baseline", base, flag, path, "-j", "1", "-q")
    assert one_error_line(res) == "error: " + message.format(f=flag, p=path, a=a_file)
    assert files_under(tmp_path) == sorted([a_file, base, study])


# --------------------------------------------------------------------------------------------------
# validate: studies and fragments


def test_validate_recognises_a_study(study_file):
    study = study_file()
    res = invoke("validate", study)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == (
        f"OK: study tiny: runs mirror-2p, mirror-3p; variants v1.0, v1.1 (citywright, {study})"
    )


@pytest.mark.parametrize(
    "show, message",
    [
        (
            "metric:wasted_tile",
            "figures[0].show: citywright has no metric 'wasted_tile' in run 'mirror-2p'; its metrics are ",
        ),
        ("matchups:decks", "figures[0].show: citywright has no label 'decks' in run 'mirror-2p'"),
    ],
)
def test_validate_a_study_checks_the_metrics_its_figures_show(study_file, one_error_line, show, message):
    # what `study` would refuse, `validate` refuses too (it plays one game of the run to learn them)
    study = study_file(('show: "metric:wasted_tiles"', f'show: "{show}"'))
    line = one_error_line(invoke("validate", study))
    assert str(study) in line and message in line


def test_validate_a_study_with_a_bad_variant_names_the_variant_file(tmp_path, study_file, one_error_line):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"extends: {V11}\nvariant: bad\nscoring: {{residential: {{largest_pointz: 3}}}}\n")
    study = study_file((f"v1.1: {V11}", f"v1.1: {bad}"))
    line = one_error_line(invoke("validate", study))
    assert str(bad) in line and "largest_pointz" in line


def test_validate_a_fragment_validates_the_files_extending_it(tmp_path):
    """A fragment (v1.1's rules without game: and variant:) is named as such, and the file extending
    it is validated in its place."""
    rules = [line for line in V11.read_text().splitlines() if not line.startswith(("game:", "variant:"))]
    (tmp_path / "rules.yaml").write_text("\n".join(rules) + "\n")
    (tmp_path / "mine.yaml").write_text("extends: rules.yaml\ngame: citywright\nvariant: mine\n")
    res = invoke("validate", tmp_path / "rules.yaml")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [
        f"{tmp_path / 'rules.yaml'}: a fragment (no game:), extended by mine.yaml; validating those instead",
        f"OK: {tmp_path / 'mine.yaml'} (citywright mine, players 1-4)",
    ]


def test_validate_a_fragment_whose_user_is_bad_exits_2(tmp_path):
    rules = [line for line in V11.read_text().splitlines() if not line.startswith(("game:", "variant:"))]
    (tmp_path / "rules.yaml").write_text("\n".join(rules) + "\n")
    (tmp_path / "mine.yaml").write_text("extends: rules.yaml\ngame: citywright\nvariant: mine\nplayerz: 2\n")
    res = invoke("validate", tmp_path / "rules.yaml")
    assert res.exit_code == 2 and "playerz" in res.output and "extended by mine.yaml" in res.output


# --------------------------------------------------------------------------------------------------
# the wrong kind of file: one line that says which kind it is and which command takes it


def test_run_given_a_study_says_so_in_one_line(study_file, one_error_line):
    study = study_file()
    line = one_error_line(invoke("run", study, "-n", "2"))
    assert (
        line == f"error: {study}: a study file (study: tiny), not a rule variant; run it with 'balancer study {study}'"
    )


@pytest.mark.parametrize("command", [("study",), ("baseline", "save"), ("check",)])
def test_study_commands_given_a_variant_say_so_in_one_line(tmp_path, command, one_error_line):
    args = [*command, V11, "-o" if command != ("check",) else "--baseline", tmp_path / "out.json"]
    line = one_error_line(invoke(*args))
    assert line == (
        f"error: {V11}: a rule variant, not a study file (a study has study:, variants:, runs: and "
        f"figures:); play a variant with 'balancer run {V11}'"
    )
    assert list(tmp_path.iterdir()) == []


def test_compare_out_is_a_directory_not_the_page(tmp_path, one_error_line):
    # -o names the results directory; an .html there is a mix-up with --report, refused before playing
    page = tmp_path / "cmp.html"
    line = one_error_line(invoke("compare", V11, V11, "-p", "2", "-n", "2", "-o", page))
    assert line == (
        f"error: --out {page}: --out is the directory for both variants' results; "
        f"give the HTML page with --report {page}"
    )
    assert list(tmp_path.iterdir()) == []


def test_validate_schema_of_a_study_is_the_study_schema(study_file):
    result = invoke("validate", study_file(), "--schema")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert {"study", "variants", "runs", "figures"} <= set(schema["properties"])


def test_compare_default_outputs_of_two_variant_files_of_one_name_never_collide(tmp_path, monkeypatch):
    """Issue 31 item 1: two ``variant.yaml`` in different folders (what ``balancer init`` writes), each
    compared with v1.1 under the default names, keep both comparisons; the second neither replaces
    the first's comparison.json nor its page. Repeating one reuses it; another request into an
    existing comparison's folder is refused (exit 2) until --force."""
    monkeypatch.chdir(tmp_path)
    for folder, bonus in (("one", "[0, 0, 1, 2]"), ("two", "[0, 1, 1, 1]")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "variant.yaml").write_text(
            f"extends: citywright/v1.1\nseat_bonus: {{'2': [0, 1], '4': {bonus}}}\n", encoding="utf-8"
        )
    for folder in ("one", "two"):
        result = invoke("compare", "citywright/v1.1", f"{folder}/variant.yaml", "-p", "2", "-n", "2", "-q")
        assert result.exit_code == 0, result.output
    results = sorted(p.name for p in (tmp_path / "results").iterdir())
    pages = sorted(p.name for p in (tmp_path / "reports").iterdir())
    assert len(results) == 2 and all(r.startswith("compare-citywright-v1.1-vs-variant-") for r in results)
    assert pages == [f"{r}.html" for r in results]
    configs = {json.loads((tmp_path / "results" / r / "comparison.json").read_text())["config_b"] for r in results}
    assert configs == {"one/variant.yaml", "two/variant.yaml"}
    # one's folder asked for two's comparison: refused, one's comparison.json untouched
    first = tmp_path / "results" / results[0] / "comparison.json"
    before = first.read_bytes()
    other = "two/variant.yaml" if json.loads(before)["config_b"] == "one/variant.yaml" else "one/variant.yaml"
    refused = invoke("compare", "citywright/v1.1", other, "-p", "2", "-n", "2", "-q", "-o", first.parent)
    assert refused.exit_code == 2 and "--force" in refused.output
    assert first.read_bytes() == before
    forced = invoke("compare", "citywright/v1.1", other, "-p", "2", "-n", "2", "-q", "-o", first.parent, "--force")
    assert forced.exit_code == 0, forced.output
    assert json.loads(first.read_text())["config_b"] == other


def test_compare_again_with_other_agents_gets_its_own_default_folder(tmp_path, monkeypatch):
    """Issue 50 item 7: the same two variants compared again with other agents went to the first
    comparison's default folder and were refused there (exit 2); the agents now end the name."""
    monkeypatch.chdir(tmp_path)
    for agents in ("greedy", "random,greedy"):
        result = invoke("compare", "citywright/v1.0", "citywright/v1.1", "-p", "2", "-a", agents, "-n", "2", "-q")
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith("Seat spread (best minus worst seat's win rate): v1.0 ")  # the answer first
    results = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert results == ["compare-citywright-v1.0-vs-v1.1-2p", "compare-citywright-v1.0-vs-v1.1-2p-random-greedy"]


def test_compare_a_base_and_two_variants_ranks_them_on_one_page(tmp_path, monkeypatch):
    """Issue 50: ``balancer compare BASE V1 V2`` prints one headline per variant, numbered by rank, and
    writes one page; ``compare A B`` is unchanged (one headline, no rank)."""
    monkeypatch.chdir(tmp_path)
    result = invoke(
        "compare", "citywright/v1.1", "citywright/v1.1-no-bonus", "citywright/v1.0", "-p", "2", "-n", "4", "-q"
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if "Seat spread" in line]
    assert [line[:3] for line in lines] == ["1. ", "2. "]
    name = "compare-citywright-v1.1-vs-v1.1-no-bonus-v1.0-2p"
    assert (tmp_path / "reports" / f"{name}.html").is_file()
    assert json.loads((tmp_path / "results" / name / "comparison.json").read_text())["ranking"] in ([0, 1], [1, 0])


@pytest.mark.parametrize("command", [["report"], ["pairs", "--label", "shops"]])
def test_a_variant_file_given_as_the_results_folder_is_said_to_be_a_file(tmp_path, command):
    # a new user typed `balancer report my-variant/variant.yaml`: "no such results directory" (it is there: a file)
    variant = tmp_path / "variant.yaml"
    variant.write_text("extends: citywright/v1.1\nvariant: mine\n")
    res = CliRunner().invoke(app, [command[0], str(variant), *command[1:]])
    assert res.exit_code == 2
    assert f"{variant}: a file, not a results directory (a variant file: `balancer run` it first" in res.output
    missing = CliRunner().invoke(app, [command[0], str(tmp_path / "nothere"), *command[1:]])
    assert missing.exit_code == 2 and "nothere: no such results directory" in missing.output
