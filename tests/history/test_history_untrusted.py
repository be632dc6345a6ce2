"""A history file is untrusted input (issue 52, item 2): every crafted or damaged file is refused in
one line naming it, exit 2, by ``balancer history``, ``balancer.read_history``, ``check --history`` and
``baseline save --history``, before any game is played and without running what the file holds; an
append that cannot be made durable changes nothing; the writer's lock is held from before playing.

Each hostile file is made here from a good history written through the store's own API (no games).
"""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import balancer
from balancer import api
from balancer.cli import app
from balancer.history import store
from balancer.history.store import HistoryError, append_event

V11 = Path(__file__).resolve().parents[2] / "configs" / "citywright" / "v1.1.yaml"
STUDY = """\
study: tiny
title: tiny
game: citywright
seed: 5
variants: {{v1.1: variant.yaml}}
runs:
  mirror-3p: {{players: 3, agents: [random], games: 30}}
check: {{tolerance: {{win_rate: 0.05}}, metrics: []}}
"""


def row(event: int, i: int) -> dict:
    return {
        "event_kind": "check",
        "recorded_at": datetime(2026, 12, event, tzinfo=UTC),
        "study": "tiny",
        "game": "citywright",
        "run": "mirror-3p",
        "variant": "v1.1",
        "number": f"seat_win_rate:{i + 1}",
        "kind": "win_rate",
        "test": "baseline",
        "estimate": 0.3 + 0.01 * event,
        "variance": 0.21,
        "games": 100,
        "verdict": "pass",
    }


def good_history(path: Path) -> Path:
    for event in (1, 2, 3):
        append_event(path, "tiny", "citywright", [row(event, i) for i in range(3)])
    return path


def _sql(path: Path, *statements: str) -> None:
    con = duckdb.connect(str(path))
    for sql in statements:
        con.execute(sql)
    con.close()


def _crashed_wal(path: Path) -> None:
    """Leave an uncheckpointed event in PATH.wal (a writer killed before its checkpoint), then damage
    the log's bytes so that its checksum fails."""
    code = (
        "import duckdb, os, sys; c = duckdb.connect(sys.argv[1], config={'checkpoint_threshold': '1TB'}); "
        "c.execute(\"INSERT INTO balancer_history VALUES ('crash', 'x')\"); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    wal = path.with_name(path.name + ".wal")
    clean = bytes(wal.read_bytes())
    assert len(clean) > 140
    # 40 bytes from 100 on damage the logged event in most runs, but not in every one (the log's
    # layout varies: 1 run in about 10 replayed cleanly, and the test then failed for want of a
    # hostile file): each window is tried on a copy until DuckDB refuses to replay the log
    for start in range(100, len(clean) - 8, 40):
        data = bytearray(clean)
        data[start : start + 40] = b"x" * len(data[start : start + 40])
        if not _replays(path, bytes(data)):
            wal.write_bytes(bytes(data))
            return
    raise AssertionError("no damage to the log made DuckDB refuse it")


def _replays(path: Path, wal: bytes) -> bool:
    """Whether DuckDB opens a copy of the database ``path`` with ``wal`` as its log without an error."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        copy.with_name(copy.name + ".wal").write_bytes(wal)
        code = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
        return subprocess.run([sys.executable, "-c", code, str(copy)], capture_output=True).returncode == 0


def hostile(kind: str, folder: Path) -> tuple[Path, str]:
    """(a hostile history of study 'tiny' made from a good one, a piece of its one-line refusal)."""
    path = good_history(folder / f"{kind}.duckdb")
    if kind == "view-over-passwd":
        _sql(
            path,
            "ALTER TABLE history RENAME TO kept",
            "CREATE VIEW history AS SELECT kept.* REPLACE (p.line AS number) FROM kept, "
            "read_csv('/etc/passwd', header = false, sep = '\\x01', columns = {'line': 'VARCHAR'}) p",
        )
        return path, "its history is a view, not a table"
    if kind == "view-over-range":
        _sql(
            path,
            "ALTER TABLE history RENAME TO kept",
            "CREATE VIEW history AS SELECT kept.* FROM kept, range(1000000000)",
        )
        return path, "its history is a view, not a table"
    if kind == "no-verdict":
        _sql(path, "ALTER TABLE history DROP COLUMN verdict")
        return path, "its history table has no column 'verdict'"
    if kind == "text-estimate":
        _sql(path, "ALTER TABLE history ALTER estimate TYPE VARCHAR", "UPDATE history SET estimate = 'abc'")
        return path, "column history.estimate is VARCHAR, not DOUBLE"
    if kind == "macro":
        _sql(path, "CREATE MACRO boom(x) AS x + 1")
        return path, "it holds a macro 'boom'"
    if kind == "index":  # an index's expressions run on every insert
        _sql(path, "CREATE INDEX boom ON history ((estimate * 2))")
        return path, "it holds an index 'boom'"
    if kind == "truncated":
        # the tables' pages lie in the first blocks: DuckDB reads the cut file's catalog and counts its rows,
        # and an append used to go to a write-ahead log that could never be checkpointed (issue 52)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) - 4096])
        return path, "truncated"
    if kind == "bad-wal":
        _crashed_wal(path)
        return path, "not a readable balancer history (Failure while replaying WAL file"
    if kind == "not-duckdb":
        path.write_bytes(b"SQLite format 3\x00" + bytes(4096))
        return path, "not a DuckDB database file"
    raise AssertionError(kind)


KINDS = ["view-over-passwd", "view-over-range", "no-verdict", "text-estimate", "macro", "index", "truncated", "bad-wal",
         "not-duckdb"]  # fmt: skip


def one_line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize("kind", KINDS)
def test_history_and_read_history_refuse_a_hostile_file_in_one_line(tmp_path, kind):
    path, says = hostile(kind, tmp_path)
    before = path.read_bytes()
    page = tmp_path / "page.html"
    line = one_line(CliRunner().invoke(app, ["history", str(path), "-o", str(page)]))
    assert line.startswith(f"error: {path}: ") and says in line, line
    assert "root:" not in line and not page.exists()
    with pytest.raises(HistoryError, match=rf"^{path}: "):
        balancer.read_history(path)
    assert path.read_bytes() == before


@pytest.fixture(scope="module")
def study_and_baseline(tmp_path_factory):
    """A tiny study and its baseline (30 random three-player games, played once for the module)."""
    folder = tmp_path_factory.mktemp("study")
    (folder / "variant.yaml").write_text(f"extends: {V11}\n", encoding="utf-8")
    study = folder / "study.yaml"
    study.write_text(STUDY.format(), encoding="utf-8")
    base = folder / "base.json"
    args = ["baseline", "save", str(study), "-o", str(base), "--results", str(folder / "r"), "-j", "1", "-q"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return study, base


@pytest.fixture
def no_play(monkeypatch):
    """Any attempt to play a study fails the test."""

    def played(*args, **kwargs):
        raise AssertionError("a game was played before the history was refused")

    monkeypatch.setattr(api, "run_check", played)
    monkeypatch.setattr(api, "save_baseline", played)


@pytest.mark.parametrize("kind", KINDS)
def test_check_and_baseline_save_refuse_a_hostile_history_before_playing(tmp_path, kind, study_and_baseline, no_play):
    study, base = study_and_baseline
    path, says = hostile(kind, tmp_path)
    path.with_name(path.name + ".lock").unlink()  # left by good_history's own appends; a refusal must not make one
    before = path.read_bytes()
    check = ["check", str(study), "--baseline", str(base), "-j", "1", "-q", "--allow-underpowered"]
    line = one_line(CliRunner().invoke(app, [*check, "--history", str(path)]))
    assert line.startswith(f"error: {path}: ") and says in line, line
    out = tmp_path / "b.json"
    save = ["baseline", "save", str(study), "-o", str(out), "--results", str(tmp_path / "r"), "-q"]
    line = one_line(CliRunner().invoke(app, [*save, "--history", str(path)]))
    assert line.startswith(f"error: {path}: ") and says in line, line
    assert path.read_bytes() == before and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary copy left
    assert not path.with_name(path.name + ".lock").exists()  # nor a writer's lock file beside a refused file


def test_check_holds_the_writers_lock_from_before_playing(tmp_path, study_and_baseline, monkeypatch):
    # While the study plays, another writer cannot take the history; a check that finds the history busy
    # fails after the wait, before playing; the lock is released when the command ends.
    study, base = study_and_baseline
    path = good_history(tmp_path / "h.duckdb")
    seen = []

    def fake_check(*args, **kwargs):
        with pytest.raises(HistoryError, match="another balancer has been writing it"):
            with store._locked(path, wait=0.1):
                pass
        seen.append("locked while playing")
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "run_check", fake_check)
    check = ["check", str(study), "--baseline", str(base), "-j", "1", "-q", "--allow-underpowered"]
    result = CliRunner().invoke(app, [*check, "--history", str(path)])
    assert seen == ["locked while playing"] and result.exit_code == 130, result.output
    with store._locked(path, wait=0.1):  # released when the command ended
        monkeypatch.setattr(store, "LOCK_WAIT", 0.2)
        monkeypatch.setattr(api, "run_check", lambda *a, **k: pytest.fail("played while the history was busy"))
        line = one_line(CliRunner().invoke(app, [*check, "--history", str(path)]))
    assert line.startswith(f"error: {path}: another balancer has been writing it for 0.2 s"), line


def test_an_append_that_cannot_be_made_durable_changes_nothing(tmp_path, monkeypatch):
    path = good_history(tmp_path / "h.duckdb")
    before = path.read_bytes()

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.shutil, "copyfileobj", full_disk)
    with pytest.raises(HistoryError, match=rf"^{path}: cannot append \(No space left on device\); the history is"):
        append_event(path, "tiny", "citywright", [row(4, 0)])
    monkeypatch.undo()

    def no_checkpoint(con, sql, *args):
        raise duckdb.IOException("IO Error: could not write block")

    real_connect = store._connect

    class Failing:  # a connection whose CHECKPOINT fails, as on a file DuckDB cannot finish writing
        def __init__(self, con):
            self.con = con

        def execute(self, sql, *args):
            if sql == "CHECKPOINT":
                raise duckdb.IOException("IO Error: could not write block")
            return self.con.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.con, name)

    monkeypatch.setattr(store, "_connect", lambda p, read_only: Failing(real_connect(p, read_only)))
    with pytest.raises(HistoryError, match=r"cannot append \(IO Error: could not write block\); the history is"):
        append_event(path, "tiny", "citywright", [row(4, 0)])
    monkeypatch.undo()
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["h.duckdb", "h.duckdb.lock"]
    assert balancer.read_history(path)["event"].unique().sort().to_list() == [1, 2, 3]
    assert append_event(path, "tiny", "citywright", [row(4, 0)]) == 4  # and the next append works


def test_a_write_ahead_log_left_by_an_older_writer_is_kept_by_the_next_append(tmp_path):
    # An older balancer appended in place: a writer killed before its checkpoint left the event in PATH.wal.
    # The next append replays that log into its copy, so the event is kept, and no log is left beside it.
    path = good_history(tmp_path / "h.duckdb")
    code = (
        "import duckdb, os, sys; c = duckdb.connect(sys.argv[1], config={'checkpoint_threshold': '1TB'}); "
        'c.execute("INSERT INTO history (event, event_kind, recorded_at, study, game, run, variant, number, kind, '
        "test, verdict) VALUES (4, 'check', now(), 'tiny', 'citywright', 'r', 'v', 'n', 'metric', 'baseline', "
        "'pass')\"); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    assert path.with_name("h.duckdb.wal").exists()
    assert balancer.read_history(path)["event"].max() == 4
    assert append_event(path, "tiny", "citywright", [row(5, 0)]) == 5
    assert not path.with_name("h.duckdb.wal").exists()
    assert balancer.read_history(path)["event"].unique().sort().to_list() == [1, 2, 3, 4, 5]


def test_external_access_is_off_inside_every_connection(tmp_path):
    # Even a query balancer never makes could not reach a file: the configuration is locked.
    path = good_history(tmp_path / "h.duckdb")
    with store.opened(path) as (con, _):
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            con.execute("SELECT * FROM read_csv('/etc/passwd')").fetchall()
        with pytest.raises(duckdb.Error, match="configuration has been locked"):
            con.execute("SET enable_external_access = true")


def test_a_copy_of_a_history_reads_the_same(tmp_path):
    # the size check accepts every file DuckDB writes (whole blocks), here after several appends
    path = good_history(tmp_path / "h.duckdb")
    shutil.copy(path, tmp_path / "copy.duckdb")
    assert balancer.read_history(tmp_path / "copy.duckdb").equals(balancer.read_history(path))
