"""The run directory type (balancer/sim/rundir.py): when a directory holds a finished run."""

from __future__ import annotations

import json

import pyarrow as pa

from balancer.sim.rundir import RunDir


def finished(tmp_path, name="r", **meta):
    run = RunDir(tmp_path / name)
    run.path.mkdir()
    run.results.write_bytes(b"PAR1")  # only its presence is read here
    run.write_run_json({"seed": 1, "games": 10, "failed_games": 0, **meta})
    return run


def test_is_finished_matches_run_json(tmp_path) -> None:
    run = finished(tmp_path)
    assert run.is_finished() and run.is_finished({"seed": 1, "games": 10})
    assert not run.is_finished({"seed": 2})  # another request
    assert not run.is_finished(summary=True)  # no summary.json yet
    run.summary_file.write_text("{}", encoding="utf-8")
    assert run.is_finished({"games": 10}, summary=True)


def test_failed_games_unreadable_or_missing_files_are_not_finished(tmp_path) -> None:
    assert not finished(tmp_path, failed_games=3).is_finished()
    run = RunDir(tmp_path / "none")
    assert not run.holds_results() and not run.is_finished() and run.meta() is None
    broken = finished(tmp_path, "broken")
    broken.run_file.write_text("{not json", encoding="utf-8")
    assert broken.meta() is None and not broken.is_finished()
    broken.run_file.write_text(json.dumps([1, 2]), encoding="utf-8")
    assert broken.meta() is None and not broken.is_finished()


def test_chunks_merge_in_game_order(tmp_path) -> None:
    run = RunDir(tmp_path / "c")
    run.chunks_dir.mkdir(parents=True)
    second = run.write_chunk(1, 2, 4, 7, pa.table({"game_index": [2, 3]}), [])
    first = run.write_chunk(0, 0, 2, 7, pa.table({"game_index": [0, 1]}), [])
    empty = run.write_chunk(2, 4, 4, 7, None, [])
    assert empty["rows"] == 0 and empty["file"] is None
    assert run.merge([second, empty, first]) == 4
    import pyarrow.parquet as pq

    assert pq.read_table(run.results)["game_index"].to_pylist() == [0, 1, 2, 3]
