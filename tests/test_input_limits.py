"""Limits on input (issue 28, item 3): no file can make a command crash with a traceback, hang or grow
without bound. Each case is refused with exit 2 and one ``error:`` line naming the file, quickly."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.check.baseline import BaselineError, load_baseline
from balancer.cli import app
from balancer.config import MAX_YAML_NODES, ConfigError, read_yaml_mapping
from balancer.limits import (
    MAX_DEPTH,
    MAX_GRID_POINTS,
    InputLimitError,
    loads_json_bounded,
    nesting_depth,
    read_text_bounded,
)
from balancer.paths import inclusive_range
from balancer.sim.results import ResultsFileError, read_json_object

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def assert_one_line_refusal(result, names: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, RecursionError | OverflowError)
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and names in lines[0], result.output
    return lines[0]


def test_nesting_depth_counts_levels_by_hand():
    # a scalar is 0 deep; [1] is 1; {"a": [1, {"b": 2}]} is dict(1) > list(2) > dict(3)
    assert nesting_depth(7) == 0
    assert nesting_depth([1]) == 1
    assert nesting_depth({"a": [1, {"b": 2}]}) == 3
    # counting stops past the limit, so a huge depth costs no more than limit + 1 levels
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert nesting_depth(deep, limit=5) == 6


def test_json_nested_to_the_limit_is_read_and_one_more_level_is_refused():
    # MAX_DEPTH lists inside one another are MAX_DEPTH levels: accepted; one more is refused
    assert nesting_depth(loads_json_bounded("[" * MAX_DEPTH + "]" * MAX_DEPTH, "x.json")) == MAX_DEPTH
    with pytest.raises(InputLimitError, match=r"^x.json: nested more than 64 levels deep$"):
        loads_json_bounded("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "x.json")
    # far past Python's recursion limit: json itself would raise RecursionError
    with pytest.raises(InputLimitError, match="nested more than"):
        loads_json_bounded("[" * 100_000 + "]" * 100_000, "x.json")


@pytest.mark.parametrize("levels", [MAX_DEPTH, 500, 5000])
def test_deep_yaml_is_refused_with_line_and_column(tmp_path, levels):
    # 500 levels in about 1 kB made PyYAML raise RecursionError with a traceback (issue 28)
    path = tmp_path / "deep.yaml"
    path.write_text("game: citywright\nx: " + "[" * levels + "]" * levels + "\n", encoding="utf-8")
    # the mapping is level 1, so the list that opens level 65 (the 64th '[') is refused: column 4 + 63 = 67
    with pytest.raises(ConfigError, match=rf"^{path}:2:67: nested more than 64 levels deep$"):
        read_yaml_mapping(path)
    line = assert_one_line_refusal(invoke("validate", path), str(path))
    assert "nested more than 64 levels deep" in line


def test_yaml_nested_within_the_limit_is_read(tmp_path):
    path = tmp_path / "ok.yaml"
    levels = MAX_DEPTH - 1  # inside the top-level mapping: 64 levels in all
    path.write_text("x: " + "[" * levels + "]" * levels + "\n", encoding="utf-8")
    assert nesting_depth(read_yaml_mapping(path)) == MAX_DEPTH


def test_aliases_that_expand_past_the_node_limit_are_refused(tmp_path):
    # "billion laughs": each level lists the previous one 10 times; level k expands to about 10^k nodes, so
    # 7 levels (10^7 > MAX_YAML_NODES = 10^6) are refused while composing, in well under a second
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 8):
        lines.append(f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 10)}]")
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=f"more than {MAX_YAML_NODES:,} values once its aliases are expanded"):
        read_yaml_mapping(path)
    assert time.perf_counter() - started < 10


def test_deep_json_in_a_baseline_and_a_run_json_is_refused(tmp_path):
    baseline = tmp_path / "b.json"
    baseline.write_text('{"kind": "balancer-baseline", "format": 1, "x": ' + "[" * 2000 + "]" * 2000 + "}")
    with pytest.raises(BaselineError, match=rf"^{baseline}: nested more than 64 levels deep$"):
        load_baseline(baseline)
    run_json = tmp_path / "run.json"
    run_json.write_text('{"x": ' + "{" * 1 + '"y": ' + "[" * 3000 + "]" * 3000 + "}}")
    with pytest.raises(ResultsFileError, match=rf"^{run_json}: nested more than 64 levels deep$"):
        read_json_object(run_json)


def test_score_refuses_an_endless_file_by_size_and_a_long_line(tmp_path):
    # /dev/zero has no size to stat: it is read up to the limit (1 MB) and refused, not grown to gigabytes
    line = assert_one_line_refusal(invoke("score", V11, "/dev/zero"), "/dev/zero")
    assert "more than the 1,000,000 bytes a drawn table may have" in line
    wide = tmp_path / "wide.txt"
    wide.write_text("RRR\n" + "R" * 20_000 + "\n", encoding="utf-8")
    line = assert_one_line_refusal(invoke("score", V11, wide), f"{wide}:2")
    assert "a line of 20,000 characters; at most 10,000" in line
    with pytest.raises(InputLimitError, match="not UTF-8 text"):
        (tmp_path / "bin.txt").write_bytes(b"\xff\xfe")
        read_text_bounded(tmp_path / "bin.txt", 100, "a table")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["score", "read_text_bounded"])
def test_a_named_pipe_without_a_writer_is_read_as_empty_not_waited_for(tmp_path, command):
    # review of issue 28: 'balancer score CONFIG fifo' waited forever for a writer (open() of a FIFO
    # blocks until one comes); it is now opened without waiting and, with no writer, reads as empty
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    if command == "score":
        line = assert_one_line_refusal(invoke("score", V11, fifo), str(fifo))
        assert "expected 7 lines of 7 cells, got 0 lines" in line
    else:
        assert read_text_bounded(fifo, 100, "a table") == ""
    assert time.monotonic() - started < 30


SWEEP = """sweep: s
title: a sweep
base: {base}
seed: 1
runs:
  mirror-2p: {{players: 2, agents: [random], games: 2}}
paths:
{paths}
"""


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        # .inf made math.floor raise OverflowError with a traceback (issue 28)
        ("  seat_bonus.2[1]: {from: 0, to: .inf}", "to must be a finite number, got inf"),
        ("  seat_bonus.2[1]: {from: -.inf, to: 3}", "from must be a finite number, got -inf"),
        ("  seat_bonus.2[1]: {from: .nan, to: 3}", "from must be a finite number, got nan"),
        # finite ends whose span overflows a float: (1e308 - -1e308) / 1 is inf
        ("  seat_bonus.2[1]: {from: -1.0e+308, to: 1.0e+308}", "is too many values; at most 10,000"),
        # two paths of 2,000 values each: 4,000,000 points validated for minutes; refused before any is checked
        (
            "  seat_bonus.2[0]: {from: 0, to: 1999}\n  seat_bonus.2[1]: {from: 0, to: 1999}",
            f"paths: 2,000 x 2,000 = 4,000,000 points; a sweep has at most {MAX_GRID_POINTS:,}",
        ),
    ],
)
def test_sweep_bounds_and_products_are_refused_quickly(tmp_path, paths, message):
    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP.format(base=V11, paths=paths), encoding="utf-8")
    started = time.perf_counter()
    line = assert_one_line_refusal(invoke("validate", path), str(path))
    assert message in line
    assert time.perf_counter() - started < 60  # seconds, on a loaded machine; it took minutes before


def test_a_range_of_exactly_the_limit_is_read():
    # 0..9999 by 1 is 10,000 values: the most a path may have
    assert len(inclusive_range(0, 9_999, 1)) == 10_000
    with pytest.raises(ValueError, match="10,001 values"):
        inclusive_range(0, 10_000, 1)


def test_deep_sweep_file_is_refused_with_its_line(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("sweep: s\npaths: " + "[" * 300 + "]" * 300 + "\n", encoding="utf-8")
    line = assert_one_line_refusal(invoke("validate", path), f"{path}:2:")
    assert "nested more than 64 levels deep" in line


def test_manifest_nested_too_deeply_is_refused_on_resume(tmp_path):
    from balancer.sim.errors import ResumeError
    from balancer.sim.rundir import read_manifest

    (tmp_path / "manifest.json").write_text(
        json.dumps({"format": 1}).replace("}", ', "x": ' + "[" * 999 + "]" * 999 + "}")
    )
    with pytest.raises(ResumeError, match="nested more than 64 levels deep"):
        read_manifest(tmp_path)


def test_a_study_on_a_full_disk_ends_in_one_line_and_leaves_no_half_written_cell(tmp_path, monkeypatch):
    # the disk fills while the first chunk of the first cell is written (OSError 28 from the chunk file):
    # one line naming the file and the reason, exit 2, and no chunk file or temporary file left in the cell
    import errno

    from balancer.sim import rundir

    def full(path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path / "chunks" / "chunk-000000.arrow"))

    monkeypatch.setattr(rundir, "write_chunk", full)
    study = tmp_path / "s.yaml"
    study.write_text(
        f"study: s\ntitle: t\ngame: citywright\nseed: 1\nvariants:\n  v11: {V11}\n"
        "runs:\n  mirror-2p: {players: 2, agents: [random], games: 4}\n",
        encoding="utf-8",
    )
    results = tmp_path / "results"
    result = invoke("study", study, "--results", results, "-o", tmp_path / "r.html", "-j", 1, "-q")
    line = assert_one_line_refusal(result, "chunk-000000.arrow")
    assert line.endswith(": No space left on device")
    assert not [p for p in results.rglob("*") if p.is_file() and p.parent.name == "chunks"]
