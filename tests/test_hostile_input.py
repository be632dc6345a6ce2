"""Issue 15's table: hostile study files, baselines edited by hand, runs that collide. Each case gives
one line naming the file and key (or flag), exit 2, and writes nothing, anywhere; found before any
game is played."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.config import MAX_YAML_BYTES
from balancer.core.seeding import MAX_GAMES
from balancer.sim.runner import LOCK_FILE, ChunkPlan, run_lock

ROOT = Path(__file__).resolve().parent.parent
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
CI_STUDY = ROOT / "configs" / "citywright" / "ci.yaml"
CI_BASELINE = ROOT / "baselines" / "citywright-ci.json"

STUDY = f"""\
study: tiny
title: "A tiny study"
game: citywright
seed: 5
variants: {{v1.1: {V11}}}
runs:
  mirror-2p: {{players: 2, agents: [random], games: 4}}
"""


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*"))


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch) -> Path:
    """An empty working directory inside tmp_path (so default paths such as results/ and reports/
    land there, and anything written outside the results directory shows up in tmp_path)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def study_run(sandbox: Path, study: Path, one_error_line) -> str:
    """`balancer study` of ``study`` into sandbox/results: the refusal line; checks nothing was written."""
    before = files_under(sandbox.parent)
    res = invoke("study", study, "-o", sandbox / "s.html", "--results", sandbox / "results", "-j", "1", "-q")
    line = one_error_line(res)
    assert files_under(sandbox.parent) == before, "a refused study wrote files"
    return line


# --------------------------------------------------------------------------------------------------
# run names, labels and study names: folder names, never paths or markup


@pytest.mark.parametrize("name", ["../../../escaped-run", "/srv/elsewhere", "<i>run</i><script>", "a/b", ".hidden"])
def test_a_study_run_name_that_is_a_path_or_markup_is_refused_before_any_game(sandbox, one_error_line, name):
    study = write(sandbox, "s.yaml", STUDY.replace("mirror-2p:", json.dumps(name) + ":"))
    line = study_run(sandbox, study, one_error_line)
    assert f"{study}: runs." in line and "run names use letters, digits" in line


def test_a_300_character_study_label_is_refused(sandbox, one_error_line):
    study = write(sandbox, "s.yaml", STUDY.replace("{v1.1:", "{" + "v" * 300 + ":"))
    line = study_run(sandbox, study, one_error_line)
    assert f"{study}: variants.{'v' * 37}...: 300 characters, at most 64" in line


def test_a_long_study_name_is_refused(sandbox, one_error_line):
    study = write(sandbox, "s.yaml", STUDY.replace("study: tiny", "study: " + "t" * 300))
    assert f"{study}: study: " in study_run(sandbox, study, one_error_line)


def test_a_5000_character_variant_name_is_refused_by_compare(sandbox, one_error_line):
    long = write(sandbox, "long.yaml", f"extends: {V11}\nvariant: {'x' * 5000}\n")
    before = files_under(sandbox.parent)
    res = invoke("compare", V11, long, "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q")
    line = one_error_line(res)
    assert f"{long}: variant: " in line and "64 characters" in line
    assert files_under(sandbox.parent) == before


# --------------------------------------------------------------------------------------------------
# games: bounded, and planned in memory that does not grow with the count


@pytest.mark.parametrize("games", [100000000000000000000, MAX_GAMES + 1])
def test_run_refuses_more_games_than_the_bound(sandbox, one_error_line, games):
    res = invoke("run", V11, "-p", "2", "-a", "random", "--games", games, "-j", "1", "-q", "--out", sandbox / "r")
    assert one_error_line(res) == f"error: --games: at most {MAX_GAMES:,} games in one run, got {games:,}"
    assert files_under(sandbox) == []


def test_a_study_asking_for_too_many_games_is_refused(sandbox, one_error_line):
    study = write(sandbox, "s.yaml", STUDY.replace("games: 4", "games: 100000000000000000000"))
    line = study_run(sandbox, study, one_error_line)
    assert f"{study}: runs.mirror-2p.games: Input should be less than or equal to {MAX_GAMES}" in line


def test_the_chunk_plan_of_a_trillion_games_takes_no_memory():
    # the plan was a dict of every chunk: 10^10 games took 1.6 GB before the first game, 10^20 never ended
    tracemalloc.start()
    plan = ChunkPlan(MAX_GAMES, 2000)
    first = [ab for _, (_, ab) in zip(range(5), plan.items())]
    assert len(plan) == MAX_GAMES // 2000 and plan[len(plan) - 1] == (MAX_GAMES - 2000, MAX_GAMES)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert first == [(0, 2000), (2000, 4000), (4000, 6000), (6000, 8000), (8000, 10000)]
    assert plan.get(len(plan)) is None and plan.get(-1) is None
    assert peak < 100_000


def test_a_run_of_ten_billion_games_starts_playing_at_once(sandbox):
    # a --games 10000000000 run plays its first chunks without planning them all: interrupted after a
    # few seconds, it has written chunks and its memory stayed small
    code = (
        f"import resource, sys; from balancer.cli import app; sys.argv = ['balancer', 'run', {str(V11)!r}, "
        f"'-p', '2', '-a', 'random', '--games', '10000000000', '-j', '1', '--chunk-size', '200', '-q', "
        f"'--out', 'big'];\ntry: app()\nfinally: print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    manifest = sandbox / "big" / "manifest.json"
    deadline = time.monotonic() + 120
    # two chunks listed: the run is past writing its first (one interrupted mid-write printed nothing); waited
    # for, not slept for (issue 48: a fixed second after the first chunk)
    while time.monotonic() < deadline and not (
        manifest.is_file() and len(json.loads(manifest.read_text())["chunks"]) >= 2
    ):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert json.loads(manifest.read_text())["chunks"], out
    assert "continue with:" in out and "--resume" in out
    rss_kb = int(out.rsplit("maxrss", 1)[1].split()[0])
    # the interpreter, polars and the engine, with numba compiling it in a fresh clone (1.5 GB seen in CI);
    # a plan of the 5e7 chunks held ~16 GB (1.6 GB at the default chunk size) before the first game
    assert rss_kb < 4_000_000, f"{rss_kb} kB"


@pytest.mark.parametrize("jobs", ["-100", str(-(os.cpu_count() or 1) - 1)])
def test_jobs_below_minus_the_cores_is_refused(sandbox, one_error_line, jobs):
    res = invoke("run", V11, "-p", "2", "-a", "random", "-n", "4", "--jobs", jobs, "-q", "--out", sandbox / "r")
    line = one_error_line(res)
    assert line.startswith(f"error: --jobs: {jobs} means all cores but {-int(jobs) - 1}")
    assert files_under(sandbox) == []


# --------------------------------------------------------------------------------------------------
# study files: the registry, duplicate keys, size


def test_a_study_of_an_unregistered_game_is_one_line(sandbox, one_error_line):
    study = write(sandbox, "s.yaml", STUDY.replace("game: citywright", "game: chess"))
    line = study_run(sandbox, study, one_error_line)
    assert line == (
        f"error: {study}: game: unknown game 'chess'; known games: agueda, citywright, urban_sketchers, urgency"
    )
    res = invoke("validate", study)
    assert one_error_line(res) == line


@pytest.mark.parametrize(
    "key, where, text",
    [
        # line 6 repeats line 5's variants:, line 8 repeats line 7's run (last one silently won)
        ("variants", "6:1", STUDY.replace("runs:", f"variants: {{v1.1: {V11}}}\nruns:")),
        ("mirror-2p", "8:3", STUDY + "  mirror-2p: {players: 3, agents: [random], games: 4}\n"),
    ],
)
def test_duplicate_keys_in_a_study_file_are_refused_with_line_and_key(sandbox, one_error_line, key, where, text):
    study = write(sandbox, "s.yaml", text)
    line = study_run(sandbox, study, one_error_line)
    assert line == f"error: {study}:{where}: YAML syntax error: duplicate key {key!r}"
    assert one_error_line(invoke("validate", study)) == line


@pytest.mark.parametrize("kind", ["config", "study"])
def test_a_file_larger_than_the_limit_is_refused_before_parsing(sandbox, one_error_line, kind):
    head = f"extends: {V11}\n" if kind == "config" else STUDY
    path = write(sandbox, "big.yaml", head + "# padding\n" * (MAX_YAML_BYTES // 10 + 1))
    size = path.stat().st_size
    started = time.perf_counter()
    res = invoke("validate", path)
    assert time.perf_counter() - started < 5  # a 50 MB comments-only file took 75 s to validate
    assert one_error_line(res) == (
        f"error: {path}: {size:,} bytes, more than the {MAX_YAML_BYTES:,} a config or study file may have"
    )
    res = invoke("run" if kind == "config" else "study", path, "-q", "-j", "1")
    assert one_error_line(res).startswith(f"error: {path}: {size:,} bytes")
    assert files_under(sandbox) == [path]


# --------------------------------------------------------------------------------------------------
# extends: a game of its own, never a study


def test_a_variant_cannot_change_the_game_it_extends(sandbox, one_error_line):
    path = write(sandbox, "u.yaml", f"extends: {V11}\ngame: urgency\n")
    assert one_error_line(invoke("validate", path)) == (
        f"error: {path}: game: cannot change game ('urgency') in a file that extends a 'citywright' config ({V11})"
    )


def test_a_variant_cannot_extend_a_study_file(sandbox, one_error_line):
    path = write(sandbox, "x.yaml", f"extends: {CI_STUDY}\nvariant: x\n")
    assert one_error_line(invoke("validate", path)) == (
        f"error: {path}: extends: {CI_STUDY} is a study file, not a rule variant; extend a variant config"
    )


# --------------------------------------------------------------------------------------------------
# baselines edited by hand


def edited_baseline(sandbox: Path, edit) -> Path:
    data = json.loads(CI_BASELINE.read_text())
    edit(data)
    return write(sandbox, "b.json", json.dumps(data))


def check_refusal(sandbox: Path, baseline: Path, one_error_line) -> str:
    res = invoke("check", CI_STUDY, "--baseline", baseline, "-j", "1", "-q", "--junit", sandbox / "j.xml")
    line = one_error_line(res)
    assert files_under(sandbox) == [baseline]
    return line


@pytest.mark.parametrize("number", ["seat_win_rate:2", "wasted_tiles_per_player"])
def test_a_baseline_with_a_tracked_number_deleted_is_refused_naming_it(sandbox, one_error_line, number):
    # the CI baseline tracks 14 numbers; with one deleted the check passed on 13 without a word
    path = edited_baseline(sandbox, lambda d: d["cells"][1]["numbers"].pop(number))
    line = check_refusal(sandbox, path, one_error_line)
    assert f"{path}: cells.1.numbers: {number} is missing from cell mirror-4p/v1.1" in line


@pytest.mark.parametrize("number", ["seat_win_rate:9", "seat_win_rate:0", "agent_win_rate:random"])
def test_a_baseline_with_an_impossible_number_is_refused_naming_it(sandbox, one_error_line, number):
    def add(d):
        d["cells"][1]["numbers"][number] = dict(d["cells"][1]["numbers"]["seat_win_rate:1"])

    line = check_refusal(sandbox, edited_baseline(sandbox, add), one_error_line)
    assert f"cells.1.numbers.{number}: no such number in cell mirror-4p/v1.1 (4 players: random, random, " in line


def test_a_baseline_with_an_unknown_kind_of_number_is_refused(sandbox, one_error_line):
    def add(d):
        d["cells"][0]["numbers"]["luck"] = dict(d["cells"][0]["numbers"]["seat_win_rate:1"])

    assert "cells.0.numbers.luck: not a tracked number" in check_refusal(
        sandbox, edited_baseline(sandbox, add), one_error_line
    )


def test_a_baseline_whose_config_hash_was_edited_gets_a_warning(sandbox):
    path = edited_baseline(sandbox, lambda d: d["cells"][0].update(config_sha256="0" * 64))
    res = invoke("check", CI_STUDY, "--baseline", path, "-j", "1", "--max-games", "300", "--allow-underpowered")
    assert res.exit_code in (0, 1), res.output
    assert (
        "warning: mirror-3p/v1.1: the variant file changed since the baseline (its content hash differs from "
        "the baseline's config_sha256; or the baseline was edited)"
    ) in res.output
    assert "warning: mirror-4p/v1.1: the variant file changed" not in res.output


def test_a_baseline_config_hash_that_is_no_hash_is_refused(sandbox, one_error_line):
    path = edited_baseline(sandbox, lambda d: d["cells"][0].update(config_sha256="<script>"))
    assert f"{path}: cells.0.config_sha256: " in check_refusal(sandbox, path, one_error_line)


# --------------------------------------------------------------------------------------------------
# two runs on one --out


HOLD_LOCK = """
import sys, time
from pathlib import Path
from balancer.sim.runner import run_lock
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
with run_lock(out):
    print("locked", flush=True)
    time.sleep(120)
"""


@contextmanager
def lock_held(out: Path) -> Iterator[subprocess.Popen]:
    """Another live process holding ``out``'s run lock (HOLD_LOCK) while the block runs."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_a_second_run_on_the_same_out_is_refused_naming_the_first(sandbox, one_error_line):
    out = sandbox / "r"
    with lock_held(out) as holder:
        before = files_under(sandbox)
        for args in (
            ["run", V11, "--resume"],
            ["run", V11, "--force"],
            ["run", V11],
            ["run", V11, "--until-ci", "0.2", "--force"],
        ):
            res = invoke(*args, "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q", "--out", out)
            assert one_error_line(res) == (
                f"error: --out {out}: another run is writing this directory "
                f"(pid {holder.pid}); wait for it to finish, or choose another --out"
            )
        assert files_under(sandbox) == before


def test_a_study_cell_another_process_is_writing_is_refused_in_one_line(sandbox, one_error_line):
    # The study's only cell is results/<tiny's folder>/mirror-2p/v1.1 (DIR/<name>/<run>/<variant>, the
    # name with a hash of the file's path: balancer.study.runner.study_folder); a live process
    # holds its run.lock, so `study` stops with exit 2 and one line naming that directory and the holder,
    # never a traceback (a bug seen when two studies ran at once).
    study = write(sandbox, "s.yaml", STUDY)
    from balancer.study import load_study
    from balancer.study.runner import study_folder

    cell = sandbox / "results" / study_folder(study, load_study(study)[0]) / "mirror-2p" / "v1.1"
    with lock_held(cell) as holder:
        res = invoke("study", study, "-o", sandbox / "s.html", "--results", sandbox / "results", "-j", "1", "-q")
        line = one_error_line(res)
        assert f"{cell}: another run is writing this directory (pid {holder.pid})" in line
        assert not (sandbox / "s.html").exists()


def test_a_killed_run_leaves_a_stale_lock_that_resume_reports_and_takes_over(sandbox):
    # 30 chunks of 100 random games: the kill lands after the second chunk and before the last. A chunk
    # takes about 50 ms on a quiet core (0.5 s under load), so the 28 chunks left outlast the 20 ms between
    # two polls many times over (issue 48: 300 chunks and a second run of 30,000 games made this test 114 s)
    out = sandbox / "r"
    args = [
        sys.executable,
        "-m",
        "balancer.cli",
        "run",
        str(V11),
        "-p",
        "2",
        "-a",
        "random",
        "-n",
        "3000",
        "--chunk-size",
        "100",
        "-j",
        "1",
        "-q",
        "--seed",
        "4",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    manifest = out / "manifest.json"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        manifest.is_file() and len(json.loads(manifest.read_text())["chunks"]) >= 2
    ):
        time.sleep(0.02)
    proc.kill()  # SIGKILL: no cleanup, the lock file stays
    proc.wait()
    assert len(json.loads(manifest.read_text())["chunks"]) < 30, "the run finished before it was killed"
    assert (out / LOCK_FILE).read_text().split()[0] == str(proc.pid)
    res = invoke(
        "run",
        V11,
        "-p",
        "2",
        "-a",
        "random",
        "-n",
        "3000",
        "--chunk-size",
        "100",
        "-j",
        "1",
        "-q",
        "--seed",
        "4",
        "--out",
        out,
        "--resume",
    )
    assert res.exit_code == 0, res.output
    assert (
        f"note: {out / LOCK_FILE}: a stale lock of a run that ended without releasing it (pid {proc.pid}, "
        "no longer running); taking it over"
    ) in res.output
    assert not (out / LOCK_FILE).exists()
    plain = sandbox / "plain"
    res = invoke("run", V11, "-p", "2", "-a", "random", "-n", "3000", "-j", "1", "-q", "--seed", "4", "--out", plain)
    assert res.exit_code == 0, res.output
    assert pq.read_table(out / "results.parquet").equals(pq.read_table(plain / "results.parquet"))


def test_the_lock_is_reentrant_and_released(tmp_path):
    with run_lock(tmp_path):
        with run_lock(tmp_path):
            assert (tmp_path / LOCK_FILE).read_text().split()[0] == str(os.getpid())
        assert (tmp_path / LOCK_FILE).exists()
    assert not (tmp_path / LOCK_FILE).exists()


def test_a_variant_named_after_a_long_file_name_says_where_the_name_came_from(sandbox, one_error_line):
    path = write(sandbox, "a" * 100 + ".yaml", f"extends: {V11}\n")
    line = one_error_line(invoke("validate", path))
    assert f"{path}: variant: string should have at most 64 characters" in line
    assert line.endswith("(the variant is named after its file; give it a shorter variant: name)")


def test_until_ci_names_max_games_when_it_is_past_the_bound(sandbox, one_error_line):
    res = invoke("run", V11, "--until-ci", "0.01", "--max-games", 10**17, "-a", "random", "-q", "--out", sandbox / "u")
    assert one_error_line(res) == f"error: --max-games: at most {MAX_GAMES:,} games in one run, got {10**17:,}"
    assert files_under(sandbox) == []


def test_an_extends_or_a_path_longer_than_the_system_allows_is_one_line(sandbox, one_error_line):
    # found by the fuzzer: `extends: <300 characters>` raised OSError "File name too long"
    path = write(sandbox, "v.yaml", f"extends: {'x' * 300}\n")
    line = one_error_line(invoke("validate", path))
    assert line.startswith(f"error: {path}: extends: cannot read ") and line.endswith("File name too long")
    long = sandbox / ("y" * 300 + ".yaml")
    for args in (["validate", long], ["run", long], ["study", long], ["check", CI_STUDY, "--baseline", long]):
        assert "error: " in one_error_line(invoke(*args))
    assert files_under(sandbox) == [path]
