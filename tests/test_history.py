"""Balance over commits (issue 27): the history file of checks and baselines, `balancer history`, and a
check that cannot pass blind.

The studies are tiny (a three-player random table, tens of games): the history's rows do not depend on
how many games were played, and the underpowered refusal happens before any game is played.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

import balancer
from balancer.cli import app
from balancer.history.store import HistoryError, _locked, append_event, read_history, read_values

V11 = Path(__file__).resolve().parent.parent / "configs" / "citywright" / "v1.1.yaml"

STUDY = """\
study: tiny
title: tiny history study
game: citywright
seed: 5
variants: {{v1.1: variant.yaml}}
runs:
  mirror-3p: {{players: 3, agents: [random], games: {games}}}
check: {{tolerance: {{win_rate: 0.05}}, metrics: []}}
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def make_study(folder: Path, games: int = 30, variant_extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "variant.yaml").write_text(f"extends: {V11}\n{variant_extra}", encoding="utf-8")
    path = folder / "study.yaml"
    path.write_text(STUDY.format(games=games), encoding="utf-8")
    return path


def cli(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def save(study: Path, base: Path, history: Path | None = None):
    extra = ["--history", history] if history else []
    result = cli(
        "baseline", "save", study, "-o", base, "--results", study.parent / "r", "-j", "1", "-q", "--force", *extra
    )
    assert result.exit_code == 0, result.output
    return result


def check(study: Path, base: Path, *extra: object):
    return cli("check", study, "--baseline", base, "-j", "1", "-q", *extra)


# --------------------------------------------------------------------------------------------------
# rows per run, with the commit


def test_rows_are_appended_per_run_with_the_commit_they_ran_at(tmp_path):
    repo = tmp_path / "repo"
    study = make_study(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "first rules")
    first = git(repo, "rev-parse", "HEAD")
    history = tmp_path / "h" / "history.duckdb"  # a directory that does not exist yet
    save(study, repo / "base.json", history)
    ok = check(study, repo / "base.json", "--history", history, "--allow-underpowered")
    assert ok.exit_code == 0, ok.output
    (repo / "variant.yaml").write_text(f'extends: {V11}\nseat_bonus: {{"3": [0, 0, 0]}}\n', encoding="utf-8")
    git(repo, "commit", "-qam", "no seat bonus at three players")
    second = git(repo, "rev-parse", "HEAD")
    ok = check(study, repo / "base.json", "--history", history, "--allow-underpowered")
    assert ok.exit_code in (0, 1), ok.output

    frame = balancer.read_history(history)
    # a three-player mirror table tracks 3 seat win rates (metrics: []): 3 rows per event, 3 events
    assert frame.height == 9
    assert frame["event"].to_list() == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert frame["event_kind"].to_list() == ["baseline"] * 3 + ["check"] * 6
    assert frame["commit_sha"].to_list() == [first] * 6 + [second] * 3
    assert frame["commit_subject"].to_list() == ["first rules"] * 6 + ["no seat bonus at three players"] * 3
    assert set(frame["branch"].to_list()) == {"main"} and not any(frame["dirty"].to_list())
    assert frame["number"].to_list()[:3] == ["seat_win_rate:1", "seat_win_rate:2", "seat_win_rate:3"]
    # the baseline event holds the baseline's own numbers; the checks compare against them
    base = json.loads((repo / "base.json").read_text())["cells"][0]["numbers"]
    assert frame["estimate"].to_list()[:3] == [base[f"seat_win_rate:{s}"]["mean"] for s in (1, 2, 3)]
    assert frame["baseline_value"].to_list()[3:6] == frame["estimate"].to_list()[:3]
    assert frame["verdict"].to_list()[:3] == ["baseline"] * 3
    assert frame["games"].to_list()[:3] == [30] * 3
    # the variant changed in the third event: said in its rows, with the warning
    assert frame["variant_changed"].to_list() == [False] * 6 + [True] * 3
    assert all("variant file changed" in w for w in frame["warnings"].to_list()[6:])
    assert frame["study_sha256"].n_unique() == 1 and frame["config_sha256"][6] != frame["config_sha256"][0]
    # the per-game values behind each estimate are kept: their mean is the estimate
    values = read_values(history, [2])
    seed, v = values[(2, "mirror-3p", "v1.1", "seat_win_rate:1")]
    assert seed == frame["seed"][3] and v.mean() == pytest.approx(frame["estimate"][3], abs=1e-6)


def test_outside_a_repository_the_commit_is_empty(tmp_path):
    study = make_study(tmp_path / "plain")
    save(study, tmp_path / "base.json", tmp_path / "h.duckdb")
    frame = balancer.read_history(tmp_path / "h.duckdb")
    assert frame.height == 3 and frame["commit_sha"].null_count() == 3


# --------------------------------------------------------------------------------------------------
# two writers at once


def _row(event_no: int, i: int) -> dict:
    return {
        "event_kind": "check",
        "recorded_at": __import__("datetime").datetime(2026, 12, 1, tzinfo=__import__("datetime").UTC),
        "study": "s",
        "game": "g",
        "run": "r",
        "variant": "v",
        "number": f"n{i:03d}",
        "kind": "metric",
        "test": "baseline",
        "estimate": float(event_no),
        "games": 100,
        "verdict": "pass",
    }


def _writer(path: str, tag: int, start, rows: int) -> None:
    start.wait()
    values = {("r", "v", f"n{i:03d}"): (tag, np.full(500, tag, dtype=float)) for i in range(rows)}
    append_event(path, "s", "g", [_row(tag, i) for i in range(rows)], values)


def test_two_concurrent_appends_both_land_whole(tmp_path):
    path = tmp_path / "h.duckdb"
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    rows = 200
    procs = [ctx.Process(target=_writer, args=(str(path), tag, start, rows)) for tag in (7, 8)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    frame, meta = read_history(path)
    assert meta["study"] == "s" and frame.height == 2 * rows
    # two events, each with all its rows and only its own (the estimate carries the writer's tag)
    by_event = {e: sorted(frame.filter(frame["event"] == e)["estimate"].unique().to_list()) for e in (1, 2)}
    assert sorted(v[0] for v in by_event.values()) == [7.0, 8.0] and all(len(v) == 1 for v in by_event.values())
    assert all(frame.filter(frame["event"] == e).height == rows for e in (1, 2))
    values = read_values(path, [1, 2])
    assert len(values) == 2 * rows and all(v.shape == (500,) for _, v in values.values())


def test_a_second_writer_waits_then_fails_with_one_line(tmp_path):
    path = tmp_path / "h.duckdb"
    append_event(path, "s", "g", [_row(1, 0)])
    with _locked(path):  # another writer holds the file
        with pytest.raises(HistoryError, match=r"h\.duckdb: another balancer has been writing it for 0\.2 s"):
            append_event(path, "s", "g", [_row(2, 0)], wait=0.2)
    assert read_history(path)[0].height == 1


# --------------------------------------------------------------------------------------------------
# foreign and corrupt files


def _foreign(kind: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{kind}.duckdb"
    if kind == "text":
        path.write_text("not a database\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "other-duckdb":
        con = duckdb.connect(str(path))
        con.execute("CREATE TABLE t (x INTEGER)")
        con.close()
    elif kind == "truncated":
        good = tmp_path / "good.duckdb"
        append_event(good, "tiny", "citywright", [_row(1, 0) | {"study": "tiny", "game": "citywright"}])
        path.write_bytes(good.read_bytes()[:20000])
    elif kind == "other-study":
        append_event(path, "another", "citywright", [_row(1, 0) | {"study": "another", "game": "citywright"}])
    elif kind == "other-game":
        append_event(path, "tiny", "agueda", [_row(1, 0) | {"study": "tiny", "game": "agueda"}])
    return path


@pytest.mark.parametrize("kind", ["text", "empty", "other-duckdb", "truncated", "other-study", "other-game"])
def test_a_foreign_or_corrupt_history_is_refused_and_left_unchanged(tmp_path, kind):
    study = make_study(tmp_path / "s")
    save(study, tmp_path / "base.json")
    bad = _foreign(kind, tmp_path)
    before = bad.read_bytes()
    result = check(study, tmp_path / "base.json", "--history", bad, "--allow-underpowered")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: "), result.output
    assert "balancer check" not in result.output  # refused before anything was played
    assert bad.read_bytes() == before
    again = cli(
        "baseline", "save", study, "-o", tmp_path / "b2.json", "--results", tmp_path / "r2", "-q", "--history", bad
    )
    assert again.exit_code == 2 and not (tmp_path / "b2.json").exists() and bad.read_bytes() == before
    if kind not in ("other-study", "other-game"):
        page = cli("history", bad, "-o", tmp_path / "h.html")
        assert page.exit_code == 2 and page.output.startswith(f"error: {bad}: ") and not (tmp_path / "h.html").exists()


def test_since_a_date_keeps_the_events_from_then_and_filters_that_keep_nothing_exit_2(tmp_path):
    # Events 1, 2, 3 recorded on 2026-12-01, -02, -03 at 12:00 UTC. --since 2026-12-02 keeps events 2 and 3;
    # 2026-12-02T13:00+02:00 is 11:00 UTC, so the same two; 2026-12-03T12:00:01 keeps none (exit 2, one line),
    # and so does a --number no number matches (the numbers are n000..n002). Found by hand: a date used to
    # raise polars' SchemaError (DuckDB's Etc/UTC against a UTC literal), a traceback.
    from datetime import UTC, datetime

    path = tmp_path / "h.duckdb"
    for e in (1, 2, 3):
        when = datetime(2026, 12, e, 12, tzinfo=UTC)
        append_event(path, "s", "g", [_row(e, i) | {"recorded_at": when} for i in range(3)])
    assert balancer.read_history(path, since="2026-12-02")["event"].unique().sort().to_list() == [2, 3]
    assert balancer.read_history(path, since="2026-12-02T13:00+02:00")["event"].unique().sort().to_list() == [2, 3]
    page = tmp_path / "p.html"
    result = cli("history", path, "-o", page, "--since", "2026-12-02")
    assert result.exit_code == 0, result.output
    page.unlink()
    for args, start in (
        (("--since", "2026-12-03T12:00:01"), "error: --since 2026-12-03T12:00:01: no event of "),
        (("--number", "seat*"), "error: --number 'seat*': matches no number of "),
    ):
        result = cli("history", path, "-o", page, *args)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith(start), result.output
        assert "Traceback" not in result.output and not page.exists()


def test_history_command_filters_and_refuses_a_missing_file(tmp_path):
    path = tmp_path / "h.duckdb"
    for e in (1, 2, 3):
        append_event(path, "s", "g", [_row(e, i) | {"commit_sha": f"{e}abc{e}" * 5} for i in range(3)])
    assert balancer.read_history(path, numbers=["n001"])["number"].unique().to_list() == ["n001"]
    assert balancer.read_history(path, numbers=["r/v/n00[02]"])["number"].unique().sort().to_list() == ["n000", "n002"]
    assert balancer.read_history(path, since="2abc2")["event"].unique().sort().to_list() == [2, 3]
    result = cli("history", path, "-o", tmp_path / "p.html", "--since", "nonsense!")
    assert result.exit_code == 2 and "--since" in result.output
    result = cli("history", path, "-o", tmp_path / "p.html", "--study", "other")
    assert result.exit_code == 2 and "a history of study 's', not 'other'" in result.output
    result = cli("history", tmp_path / "missing.duckdb", "-o", tmp_path / "p.html")
    assert result.exit_code == 2 and "no such history file" in result.output
    result = cli("history", path, "-o", tmp_path / "p.html", "--figures", tmp_path / "figs")
    assert result.exit_code == 0, result.output
    html = (tmp_path / "p.html").read_text()
    # the three numbers are three panels of one figure (issue 50 item 8: was a figure each), written once
    assert html.count("<svg") == 1 and "r/<wbr>v/<wbr>n000" in html and "One panel per number (3)" in html
    assert [p.name for p in (tmp_path / "figs").glob("*.png")] == ["history-s.png"]
    # with its caption in captions.md, as every other command's --figures (issue 50: history wrote none)
    captions = (tmp_path / "figs" / "captions.md").read_text(encoding="utf-8")
    assert captions.startswith("# Figures: ") and "`history-s.svg` (`.png`, `.pdf`): " in captions


# --------------------------------------------------------------------------------------------------
# a check that cannot pass blind


def test_an_underpowered_check_exits_2_naming_the_cell_unless_allowed(tmp_path):
    study = make_study(tmp_path, games=30)
    base = tmp_path / "base.json"
    save(study, base)
    result = check(study, base, "--history", tmp_path / "h.duckdb")
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and line.startswith(f"error: {study}: underpowered")
    # 30 baseline games: the baseline's own noise exceeds what a 5-point tolerance allows, so a new
    # baseline and check of m games each are needed: (c + z)^2 * 2 s^2 / tol^2, with c about 2.95 (the
    # last boundary of 4 looks at 0.01 / 3 numbers / 2 sides: z_{1-1/600} = 2.94, a little more for
    # the looks), z = z_0.95 = 1.645, s^2 the largest seat's variance: about 2 * 0.23 * 4.6^2 / 0.05^2
    var = max(
        n["variance"] for n in json.loads(base.read_text())["cells"][0]["numbers"].values() if n["kind"] == "win_rate"
    )
    hand = 2 * var * (2.95 + 1.645) ** 2 / 0.05**2
    m = int(re.search(r"mirror-3p/v1.1 needs a baseline and a check of about ([\d,]+) games", line)[1].replace(",", ""))
    assert 0.97 * hand < m < 1.03 * hand, (m, hand)
    assert not (tmp_path / "h.duckdb").exists()  # nothing played, nothing recorded

    junit, md = tmp_path / "j.xml", tmp_path / "s.md"
    result = check(
        study, base, "--allow-underpowered", "--junit", junit, "--markdown", md, "--history", tmp_path / "h.duckdb"
    )
    assert result.exit_code == 0, result.output
    assert "PASS (underpowered: 3 of 3 numbers cannot find their tolerance)" in result.output
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props["verdict"].startswith("PASS (underpowered")
    assert all(
        c.find("system-out").text.startswith("PASS (underpowered)") for c in ET.parse(junit).getroot().iter("testcase")
    )
    text = md.read_text()
    assert "PASS (underpowered: 3 of 3" in text and text.count("PASS (underpowered) |") == 3
    assert balancer.read_history(tmp_path / "h.duckdb")["powered"].to_list() == [False] * 3


def test_a_check_short_of_games_names_the_games_it_needs(tmp_path):
    # a baseline of 3,000 games is precise enough; a cap of 60 new games is not: the check needs
    # n = s^2 / ((tol / (c + z))^2 - s^2 / 3000) games, about 0.23 / (1.18e-4 - 7.7e-5), some 5,600
    study = make_study(tmp_path, games=3000)
    base = tmp_path / "base.json"
    save(study, base)
    result = check(study, base, "--max-games", "60")
    assert result.exit_code == 2, result.output
    var = max(
        n["variance"] for n in json.loads(base.read_text())["cells"][0]["numbers"].values() if n["kind"] == "win_rate"
    )
    hand = var / ((0.05 / (2.95 + 1.645)) ** 2 - var / 3000)
    n = int(re.search(r"mirror-3p/v1.1 needs ([\d,]+) games per check \(cap 60\)", result.output)[1].replace(",", ""))
    assert 0.9 * hand < n < 1.25 * hand, (n, hand)  # the real design's looks ask for a little more


def test_a_changed_variant_is_a_warning_in_every_output(tmp_path):
    study = make_study(tmp_path, games=30)
    base = tmp_path / "base.json"
    save(study, base)
    (tmp_path / "variant.yaml").write_text(f'extends: {V11}\nseat_bonus: {{"3": [1, 1, 0]}}\n', encoding="utf-8")
    junit, md = tmp_path / "j.xml", tmp_path / "s.md"
    result = check(study, base, "--allow-underpowered", "--junit", junit, "--markdown", md)
    assert "warning: mirror-3p/v1.1: the variant file changed since the baseline" in result.output
    assert "with 1 warning(s)" in result.output
    props = [p.get("value") for p in ET.parse(junit).getroot().iter("property") if p.get("name") == "warning"]
    assert len(props) == 1 and "variant file changed" in props[0]
    assert "**warning:** mirror-3p/v1.1: the variant file changed" in md.read_text()


def test_a_detached_head_takes_its_branch_from_the_ci_variables(tmp_path, monkeypatch):
    from balancer.history.record import commit_of

    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "f.txt").write_text("x")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "one")
    sha = git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "checkout", "-q", "--detach")  # as CI checks a commit out
    for name in ("GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME"):
        monkeypatch.delenv(name, raising=False)
    assert commit_of(tmp_path / "f.txt").branch is None
    monkeypatch.setenv("GITHUB_REF_NAME", "feature/x")
    c = commit_of(tmp_path / "f.txt")
    assert (c.sha, c.branch, c.subject, c.dirty) == (sha, "feature/x", "one", False)
    (tmp_path / "f.txt").write_text("changed")
    assert commit_of(tmp_path).dirty


def _point(event: int, estimate: float, **extra) -> dict:
    """A drawn point of seat_win_rate:1 at ``event``: interval +/- 2 points, baseline 30%."""
    return {"kind": "win_rate", "number": "seat_win_rate:1", "estimate": estimate, "ci_low": estimate - 0.02,
            "ci_high": estimate + 0.02, "baseline_value": 0.3, "event": event, "event_kind": "check",
            "commit_sha": None, "commit_time": None, "recorded_at": None} | extra  # fmt: skip


def test_panel_ticks_keep_the_commit_labels_readable_for_forty_events():
    from balancer.report.figures.history import Panel, history_figure, thinned_labels, y_label

    # 4.2 inches of axis hold int(4.2 // 0.45) = 9 labels. 8 events fit: every label kept. 40 events need a
    # step of ceil(40 / 9) = 5, counted back from the last (index 39): 39, 34, ..., 4 keep their labels.
    eight = [f"c{i}" for i in range(8)]
    assert thinned_labels(eight, 4.2) == eight
    forty = thinned_labels([f"c{i}" for i in range(40)], 4.2)
    assert [i for i, t in enumerate(forty) if t] == [4, 9, 14, 19, 24, 29, 34, 39]
    assert y_label("win_rate", "seat_win_rate:3") == "win rate (%)"
    assert y_label("metric", "wasted_tiles_per_player") == "wasted tiles per player"
    assert y_label("metric", "score") == "score (per player)"
    rows = [_point(e, 0.3, commit_sha=f"{e:07x}abc") for e in range(1, 41)]
    # one number: one panel of one column, its axis (6.5 - 0.2) - 0.7 = 5.6 inches: int(5.6 // 0.45) = 12
    # labels fit, so a step of ceil(40 / 12) = 4 from the last: 39, 35, ..., 3, ten labels
    ax = history_figure([Panel("r/v: seat_win_rate:1", rows)]).axes[0]
    assert len(ax.get_xticks()) == 40  # a tick per point, a label on 10 of them
    assert [i for i, t in enumerate(ax.get_xticklabels()) if t.get_text()] == list(range(3, 40, 4))
    assert ax.get_ylabel() == "win rate (%)"
    assert ax.figure.get_supxlabel().startswith("commit (short sha) and date")
    # every interval runs from 28% to 32%: room above and below it, not a bar into the frame (issue 50 item 8)
    low, high = ax.get_ylim()
    assert low < 28.0 - 0.05 * 4 and high > 32.0 + 0.05 * 4


def test_a_history_in_a_read_only_folder_is_read_but_not_appended_to(tmp_path, monkeypatch):
    # Tests run as root, where chmod cannot deny anything: the store's os.access and os.open are made to
    # answer as for another user in a read-only folder (no lock file yet, none may be created).
    import errno

    import balancer.history.store as store

    path = tmp_path / "ro" / "h.duckdb"
    append_event(path, "s", "g", [_row(1, i) for i in range(2)])
    Path(str(path) + ".lock").unlink()
    real_open, real_access = os.open, os.access

    def no_lock(name, *args, **kwargs):
        if str(name).endswith(".lock"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(name, *args, **kwargs)

    def read_only(name, mode, *args, **kwargs):
        return False if mode & os.W_OK and Path(name) in (path, path.parent) else real_access(name, mode)

    monkeypatch.setattr(store.os, "open", no_lock)
    monkeypatch.setattr(store.os, "access", read_only)
    before = path.read_bytes()
    assert balancer.read_history(path)["event"].unique().to_list() == [1]  # read without the lock
    with pytest.raises(HistoryError, match=r"h\.duckdb: cannot be appended to \(the file is not writable\)"):
        store.check_history_target(path, "s", "g")
    monkeypatch.setattr(store.os, "access", lambda n, m: False if Path(n) == path.parent else real_access(n, m))
    with pytest.raises(HistoryError, match=r"cannot be appended to \(.*ro is not a writable directory"):
        store.check_history_target(path, "s", "g")
    assert path.read_bytes() == before and not Path(str(path) + ".lock").exists()


def test_the_page_never_overwrites_the_history_or_a_file_that_is_not_a_page(tmp_path):
    # `-o` onto the history itself used to replace the whole database with HTML (exit 0). Refused, one line,
    # exit 2, both files byte for byte as they were; an existing HTML page is replaced (make history again);
    # a --figures that is a file is named as --figures before anything is written.
    path = tmp_path / "h.duckdb"
    append_event(path, "s", "g", [_row(1, i) for i in range(2)])
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    before = path.read_bytes()
    for out, says in (
        (path, ("or its lock; give an HTML file", "is also an input of this command")),
        (tmp_path / "h.duckdb.lock", ("or its lock; give an HTML file", "is also an input of this command")),
        (notes, ("exists and is not an HTML page; not overwritten", "exists and was not written by balancer")),
    ):
        result = cli("history", path, "-o", out)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith(f"error: --out {out}: "), result.output
        assert any(s in lines[0] for s in says), lines[0]
    assert path.read_bytes() == before and notes.read_text(encoding="utf-8") == "my notes\n"
    page = tmp_path / "page.html"
    for _ in range(2):
        assert cli("history", path, "-o", page).exit_code == 0
    result = cli("history", path, "-o", tmp_path / "p2.html", "--figures", notes)
    assert result.exit_code == 2 and result.output.startswith(f"error: --figures {notes}: "), result.output
    assert not (tmp_path / "p2.html").exists()


def test_check_refuses_a_history_that_is_also_its_junit_markdown_or_baseline_file(tmp_path):
    # `check --history h.duckdb --junit h.duckdb` wrote the JUnit XML over the history, then refused the
    # (now XML) file: the history was lost. Refused before playing, one line naming both options, exit 2.
    study = make_study(tmp_path / "s")
    base = tmp_path / "base.json"
    history = tmp_path / "h.duckdb"
    save(study, base, history)
    before = history.read_bytes()
    for flag in ("--junit", "--markdown"):
        result = check(study, base, "--history", history, flag, history, "--allow-underpowered")
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1, result.output
        # refused as the history (is also --junit) or, since issue 52, as an output balancer did not write
        assert lines[0] in (
            f"error: --history {history}: is also {flag} {history}; give the history a file of its own",
            f"error: {flag} {history}: exists and was not written by balancer (it has no generator mark); "
            f"use --force to replace it, or choose another {flag}",
        ), lines[0]
        assert history.read_bytes() == before
    result = cli("baseline", "save", study, "-o", history, "--results", tmp_path / "r", "-q", "--force",
                 "--history", history)  # fmt: skip
    assert result.exit_code == 2 and "is also --out" in result.output and history.read_bytes() == before


def _legend(fig) -> list[str]:
    return [t.get_text() for t in fig.legends[0].get_texts()]


def test_a_panel_of_one_point_draws_every_mark_its_legend_lists():
    from matplotlib.collections import PolyCollection

    from balancer.report.figures.history import Panel, history_figure

    # One check at 30% (interval 28% to 32%) against a baseline of 29%: a band and a step line of one
    # point have no width, so the interval is a bar from 28 to 32 and the baseline a tick at 29 (in %).
    row = _point(1, 0.30, baseline_value=0.29)
    fig = history_figure([Panel("r/v: seat_win_rate:1", [row])])
    drawn = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert list(drawn["95% interval"].get_ydata())[:2] == pytest.approx([28.0, 32.0])
    assert list(drawn["baseline"].get_ydata()) == pytest.approx([29.0, 29.0])
    assert not [c for c in fig.axes[0].collections if isinstance(c, PolyCollection)]  # no empty band
    assert _legend(fig) == ["95% interval", "estimate", "baseline"]
    # a baseline event has no baseline to compare with: no baseline mark, none in the legend
    saved = row | {"baseline_value": None, "event_kind": "baseline"}
    labels = _legend(history_figure([Panel("t", [saved])]))
    assert "baseline" not in labels and "baseline saved" in labels


def test_the_interval_is_a_bar_at_each_commit_not_a_band_between_them():
    import math

    from matplotlib.collections import PolyCollection

    from balancer.report.figures.history import Panel, history_figure

    # three checks at 30, 31, 29% (intervals +/- 2 points): one bar per point, 28-32, 29-33, 27-31 (in %),
    # broken between them (a band drawn between commits showed values nothing measured; issue 50 item 8)
    rows = [_point(e, p) for e, p in enumerate([0.30, 0.31, 0.29], start=1)]
    ax = history_figure([Panel("r/v: seat_win_rate:1", rows)]).axes[0]
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
    bars = next(line for line in ax.get_lines() if line.get_label() == "95% interval")
    ys = list(bars.get_ydata())
    assert [ys[0], ys[1], ys[3], ys[4], ys[6], ys[7]] == pytest.approx([28, 32, 29, 33, 27, 31])
    assert all(math.isnan(ys[i]) for i in (2, 5, 8)) and list(bars.get_xdata())[:2] == [0, 0]
    # nor is the estimate a line between commits: dots only
    dots = next(line for line in ax.get_lines() if line.get_label() == "estimate")
    assert dots.get_linestyle() == "None" and list(dots.get_ydata()) == pytest.approx([30, 31, 29])


def test_sixteen_numbers_over_fifty_commits_are_one_figure_of_small_multiples():
    from matplotlib.collections import PolyCollection

    from balancer.report.figures.history import Panel, bar_width, figure_height, history_figure

    # 16 numbers (the CI study's) at the default --last 50 were 16 figures of 2.9 inches each (about 4,500 px
    # and page margins: 6,600 px). Now one figure: two columns of 8 rows, 8 * 1.5 + 1.25 = 13.25 inches,
    # 1,272 px at 96 px an inch (at most 1,600 asserted), every panel on the same x of 50 commits, the labels
    # under the bottom row only. Number 3 drifted: its title says so and its latest commit (event 50) is
    # ringed, named in the legend; number 5's check at event 17 failed (a red cross).
    def series(k: int) -> list[dict]:
        return [_point(e, 0.25 + 0.001 * k * e, number=f"seat_win_rate:{k}", failed=(k, e) == (5, 17),
                       commit_sha=f"{e:07x}beef") for e in range(1, 51)]  # fmt: skip

    panels = [
        Panel(f"mirror-3p/v1.1: seat_win_rate:{k}", series(k), "drift" if k == 3 else "", 50 if k == 3 else None)
        for k in range(16)
    ]
    fig = history_figure(panels)
    assert len(fig.axes) == 16 and figure_height(16) == 13.25
    assert fig.get_figheight() * 96 <= 1600 and fig.get_figwidth() <= 6.5
    assert {ax.get_subplotspec().get_geometry()[:2] for ax in fig.axes} == {(8, 2)}
    first = fig.axes[0]
    assert all(ax.get_shared_x_axes().joined(first, ax) for ax in fig.axes)
    shown = [i for i, ax in enumerate(fig.axes) if ax.xaxis.get_tick_params()["labelbottom"]]
    assert shown == [14, 15]  # the commits labelled under the bottom row only
    assert fig.axes[15].get_xticklabels()[-1].get_text() == "0000032\n"  # the latest commit (50 = 0x32)
    # three numbers: two rows of two, the fourth place empty, so the panel above it carries the labels too
    three = history_figure(panels[:3]).axes
    assert len(three) == 3 and [i for i, ax in enumerate(three) if ax.xaxis.get_tick_params()["labelbottom"]] == [1, 2]
    for ax in fig.axes:
        assert not [c for c in ax.collections if isinstance(c, PolyCollection)]  # no band anywhere
        assert ax.get_title(loc="left").startswith("mirror-3p/v1.1: seat_win_rate:")
    flagged = fig.axes[3]
    assert flagged.get_title(loc="left").endswith("(drift)") and flagged._left_title.get_color() == "#B35900"
    assert fig.axes[2]._left_title.get_color() == "#1d1d1f"
    ring = next(line for line in flagged.get_lines() if line.get_label().startswith("drift beyond tolerance"))
    assert list(ring.get_xdata()) == [49]  # event 50 is the 50th commit on the shared axis
    assert "drift beyond tolerance, every check passed" in _legend(fig) and "check failed" in _legend(fig)
    # the bars are narrower where the commits stand closer: 50 commits on a 2.45-inch axis are 3.5 points
    # apart, the bars 0.4 of that, 1.4 points (3 points where there is room)
    assert bar_width(2.45, 50) == pytest.approx(0.4 * 2.45 * 72 / 50) and bar_width(5.6, 3) == 3.0


def test_long_panel_titles_stay_clear_of_the_next_panel():
    """A new user's history page (three columns of panels) ran 'mirror-2p/mine: forced_discards_per_player' into
    the next panel's y label: a title breaks after an underscore and keeps to its own column."""
    from balancer.report.figures.history import Panel, history_figure

    names = ["empty_cells_per_player", "forced_discards_per_player", "rulers_placed_per_player"] * 7  # 21: 3 columns
    rows = [
        {"event": e, "label": f"{e:07x}\n", "estimate": 1.0, "ci_low": 0.9, "ci_high": 1.1, "baseline": 1.0,
         "event_kind": "check", "failed": False, "number": "m", "kind": "metric"}
        for e in (1, 2)
    ]  # fmt: skip
    fig = history_figure([Panel(f"mirror-2p/mine: {n}", rows, "", None) for n in names])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = fig.axes
    assert {ax.get_subplotspec().get_geometry()[1] for ax in axes} == {3}
    for left, right in [*zip(axes[0::3], axes[1::3]), *zip(axes[1::3], axes[2::3])]:
        title = left._left_title.get_window_extent(renderer)
        label = right.yaxis.label.get_window_extent(renderer)
        assert title.x1 <= label.x0, (left.get_title(loc="left"), title.x1, label.x0)
    assert axes[1].get_title(loc="left").count("\n") >= 2  # 'mirror-2p/mine:', then the name in two lines
