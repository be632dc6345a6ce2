"""The history key includes the study file's identity (issue 52, item 8): a different study file with the
same ``study:`` name no longer appends to the same history, and is refused before anything is played; the
same file, edited over commits or checked out elsewhere, keeps its history. No games are played."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer import api
from balancer.cli import app
from balancer.history import store
from balancer.history.record import study_identity
from balancer.history.store import HistoryError, append_event

V11 = Path(__file__).resolve().parents[2] / "configs" / "citywright" / "v1.1.yaml"
STUDY = """\
study: tiny
title: tiny
game: citywright
seed: 5
variants: {v1.1: variant.yaml}
runs:
  mirror-3p: {players: 3, agents: [random], games: 30}
check: {tolerance: {win_rate: 0.05}, metrics: []}
"""


def study_in(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "variant.yaml").write_text(f"extends: {V11}\n", encoding="utf-8")
    path = folder / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    return path


def row() -> dict:
    return {
        "event_kind": "check",
        "recorded_at": datetime(2026, 12, 1, tzinfo=UTC),
        "study": "tiny",
        "game": "citywright",
        "run": "mirror-3p",
        "variant": "v1.1",
        "number": "seat_win_rate:1",
        "kind": "win_rate",
        "test": "baseline",
        "verdict": "pass",
    }


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
    )


def test_a_study_file_is_named_by_its_place_in_its_repository_else_its_path(tmp_path):
    repo = tmp_path / "repo"
    inside = study_in(repo / "studies")
    git(repo, "init", "-q")
    assert study_identity(inside) == "git:studies/study.yaml"
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, capture_output=True)
    study_in(clone / "studies")  # the same path in another checkout (CI): the same study
    assert study_identity(clone / "studies" / "study.yaml") == "git:studies/study.yaml"
    outside = study_in(tmp_path / "plain")
    assert study_identity(outside) == f"file:{outside.resolve().as_posix()}"
    shipped = Path(api.__file__).resolve().parent.parent / "configs" / "citywright" / "ci.yaml"
    if shipped.is_file():
        assert study_identity(shipped) == "shipped:citywright/ci"


def test_another_study_file_of_the_same_name_is_refused_before_playing(tmp_path, monkeypatch):
    a = study_in(tmp_path / "a")
    b = study_in(tmp_path / "b")  # the same text, the same study: name, another file
    history = tmp_path / "h.duckdb"
    append_event(history, "tiny", "citywright", [row()], study_id=study_identity(a))
    before = history.read_bytes()

    def played(*args, **kwargs):
        raise AssertionError("a game was played before the history was refused")

    monkeypatch.setattr(api, "save_baseline", played)
    monkeypatch.setattr(api, "run_check", played)
    out = tmp_path / "b.json"
    result = CliRunner().invoke(
        app,
        ["baseline", "save", str(b), "-o", str(out), "--results", str(tmp_path / "r"), "-q", "--history", str(history)],
    )
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {history}: a history of study 'tiny' from the study file file:")
    assert "a different study file of the same name needs a history of its own" in lines[0]
    assert history.read_bytes() == before and not out.exists()
    # the study's own file may append, also after an edit of its text
    api.check_history_target(history, "tiny", "citywright", a)
    a.write_text(STUDY.replace("games: 30", "games: 40"), encoding="utf-8")
    with api.reserve_history(history, "tiny", "citywright", a) as held:
        assert held.append([row()]) == 2
    with pytest.raises(HistoryError, match="needs a history of its own"):
        api.check_history_target(history, "tiny", "citywright", b)


def test_a_history_written_before_the_identity_adopts_the_first_study_file_that_appends(tmp_path):
    history = tmp_path / "h.duckdb"
    append_event(history, "tiny", "citywright", [row()])  # no study_id: as written before this version
    with store.opened(history) as (_, meta):
        assert "study_id" not in meta
    append_event(history, "tiny", "citywright", [row()], study_id="git:ci/study.yaml")
    with store.opened(history) as (_, meta):
        assert meta["study_id"] == "git:ci/study.yaml"
    with pytest.raises(HistoryError, match="from the study file git:ci/study.yaml, not git:other.yaml"):
        append_event(history, "tiny", "citywright", [row()], study_id="git:other.yaml")
