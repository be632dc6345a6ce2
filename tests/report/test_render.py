"""The HTML report: one self-contained file, table values present, data names escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from balancer.report import render_report
from balancer.report.render import describe_seat_design, fmt_duration, fmt_p

EVIL = "<script>alert(1)</script>"

META = {
    "game": "toy",
    "variant": "v1.1 <b>bold</b>",
    "config_path": "configs/toy/v1.1.yaml",
    "config_sha256": "0123456789abcdef" * 4,
    "n_players": 2,
    "agents": ["greedy", EVIL],
    "seat_design": "rotated: each agent sits in each seat equally often",
    "games": 4,
    "seed": 7,
    "jobs": 2,
    "started": "2025-01-01T12:00:00",
    "elapsed_seconds": 125.4,
    "versions": {"balancer": "0.1.0", "polars": "1.0"},
    "command": "balancer run configs/toy/v1.1.yaml --games 4",
}


def results() -> pl.DataFrame:
    """4 games x 2 seats; seat 1 wins 2.5 (game 1 shared), seat 2 wins 1.5."""
    return pl.DataFrame(
        {
            "variant": ["v1.1"] * 8,
            "game": ["toy"] * 8,
            "n_players": [2] * 8,
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seed": [7] * 8,
            "seat": [1, 2] * 4,
            "agent": ["greedy", EVIL, EVIL, "greedy"] * 2,
            "score": [10, 5, 7, 7, 3, 9, 8, 2],
            "rank": [1, 2, 1, 1, 2, 1, 1, 2],
            "win_share": [1.0, 0.0, 0.5, 0.5, 0.0, 1.0, 1.0, 0.0],
            "turns": [5] * 8,
            "score_x": [6, 5, 7, 0, 3, 9, 8, 2],
            "score_y": [4, 0, 0, 7, 0, 0, 0, 0],
            "metric_wasted": [1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 0.0, 2.0],
        }
    )


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "results"
    directory.mkdir()
    results().write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(json.dumps(META))
    return directory


def test_report_is_one_self_contained_file(run_dir: Path, tmp_path: Path) -> None:
    out = render_report(run_dir, tmp_path / "out" / "report.html")
    assert out == tmp_path / "out" / "report.html"
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html"]
    html = out.read_text(encoding="utf-8")
    assert "<svg" in html or "data:image/png;base64," in html
    # no external resources: no http(s) src/href, no stylesheet links or scripts
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<link" not in html and "<script" not in html and "@import" not in html


def test_report_contains_seat_table_and_methods(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    seat_table = html[html.index('id="seats"') : html.index('id="agents"')]
    # seat 1: 2.5/4 = 62.5%, Wilson 21.9-90.8; seat 2: 1.5/4 = 37.5%, Wilson 9.2-78.1
    rows = re.findall(r"<tr><td>(\d)</td><td>([\d.]+)</td>\s*<td>([\d.]+) – ([\d.]+)</td>", seat_table)
    assert rows == [("1", "62.5", "21.9", "90.8"), ("2", "37.5", "9.2", "78.1")]
    assert "p = 0.62" in html  # chi2 = 0.25 on 1 df
    assert "No evidence of a seat effect at this sample size" in html
    assert "chance alone" not in html
    # tied games: a sentence of their own, not a row of the metrics table
    assert re.search(r"Tied games: 1 of 4 \(25\.0%", html)
    metrics_table = html[html.index('id="metrics"') : html.index('id="ties"')]
    assert "tied" not in metrics_table
    assert "wasted per player" in html
    assert "0123456789ab" in html and "0123456789abc" not in html
    assert "2 min 05 s" in html
    assert "each agent sits in each seat equally often" in html
    assert "balancer run configs/toy/v1.1.yaml --games 4" in html
    assert (run_dir / "summary.json").is_file()  # computed because it was missing


def test_report_escapes_names_from_data(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert EVIL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html
    assert "v1.1 &lt;b&gt;bold&lt;/b&gt;" in html


def test_report_recomputes_and_accepts_a_matching_summary(run_dir: Path, tmp_path: Path) -> None:
    from balancer.sim.results import write_summary

    write_summary(run_dir)
    html = render_report(run_dir, tmp_path / "r.html", title="My title").read_text(encoding="utf-8")
    assert "<td>62.5</td>" in html
    assert "<title>My title</title>" in html


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s["seat_win_rate"][0].update(rate=0.123),  # edited or stale rates
        lambda s: s.update(games=40),  # from another run
        lambda s: s.update(rows=80),
    ],
)
def test_report_refuses_a_stale_summary(run_dir: Path, tmp_path: Path, edit) -> None:
    from balancer.sim.results import ResultsFileError, write_summary

    summary = write_summary(run_dir)
    edit(summary)
    (run_dir / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(ResultsFileError, match=re.escape(f"{run_dir / 'summary.json'}: out of date")):
        render_report(run_dir, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("missing", ["results.parquet", "run.json"])
def test_report_names_missing_file(run_dir: Path, tmp_path: Path, missing: str) -> None:
    (run_dir / missing).unlink()
    with pytest.raises(FileNotFoundError, match=re.escape(missing)):
        render_report(run_dir, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_formatting_helpers() -> None:
    assert fmt_duration(42.04) == "42.0 s"
    assert fmt_duration(3725.2) == "1 h 02 min 05 s"
    assert fmt_p(0.0004) == "p < 0.001"
    assert fmt_p(0.0123) == "p = 0.012"
    assert describe_seat_design("mirror table").startswith("Mirror table")


def test_title_uses_the_display_name(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<title>Toy v1.1 &lt;b&gt;bold&lt;/b&gt;: balance report</title>" in html
    meta = {**META, "game_title": "Águeda: City of Umbrellas"}
    (run_dir / "run.json").write_text(json.dumps(meta))
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h1>Águeda: City of Umbrellas v1.1 &lt;b&gt;bold&lt;/b&gt;: balance report</h1>" in html


def big_results(games: int, agents: list[str], bonus: list[int] | None = None) -> pl.DataFrame:
    """``games`` 4-player games: seat ``g % 4`` wins game g outright; scores 10 + bonus (+5 for the winner)."""
    n = 4
    rows = [(g, s) for g in range(games) for s in range(1, n + 1)]
    win = [1.0 if s == g % n + 1 else 0.0 for g, s in rows]
    seat_bonus = [(bonus or [0] * n)[s - 1] for _, s in rows]
    data = {
        "game_index": [g for g, _ in rows],
        "seat": [s for _, s in rows],
        "agent": [agents[(s - 1) % len(agents)] for _, s in rows],
        "score": [10 + b + 5 * int(w) for b, w in zip(seat_bonus, win)],
        "rank": [1 if w else 2 for w in win],
        "win_share": win,
    }
    if bonus is not None:
        data["score_seat_bonus"] = seat_bonus
    return pl.DataFrame(data)


def make_run(tmp_path: Path, df: pl.DataFrame, **meta) -> Path:
    directory = tmp_path / "big"
    directory.mkdir()
    df.write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(
        json.dumps(
            {"game": "citywright", "variant": "v1.1", "n_players": 4, "seed": 1, "games": df.height // 4, **meta}
        )
    )
    return directory


def test_thousands_separators_everywhere(tmp_path: Path) -> None:
    run = make_run(tmp_path, big_results(10_000, ["greedy"]), games=12_000)
    html = render_report(run, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "10,000" in html and "10000" not in html
    assert "12,000 planned" in html
    assert "<title>Citywright v1.1: balance report</title>" in html


def test_mirror_table_has_a_sentence_instead_of_an_agent_chart(tmp_path: Path) -> None:
    run = make_run(tmp_path, big_results(40, ["greedy"]))
    html = render_report(run, tmp_path / "r.html").read_text(encoding="utf-8")
    agents = html[html.index('id="agents"') : html.index('id="scores"')]
    assert "Mirror table: every seat is played by greedy, so the agent win rate is 25% by construction." in agents
    assert "<svg" not in agents and "<table" not in agents


def test_mixed_table_keeps_the_agent_chart(tmp_path: Path) -> None:
    run = make_run(tmp_path, big_results(40, ["greedy", "random"]))
    html = render_report(run, tmp_path / "r.html").read_text(encoding="utf-8")
    agents = html[html.index('id="agents"') : html.index('id="scores"')]
    assert "<svg" in agents and "Mirror table" not in agents


def test_seat_table_without_the_seat_bonus(tmp_path: Path) -> None:
    run = make_run(tmp_path, big_results(40, ["greedy"], bonus=[2, 2, 1, 0]))
    html = render_report(run, tmp_path / "r.html").read_text(encoding="utf-8")
    table = html[html.index('id="no-bonus"') : html.index("</table>", html.index('id="no-bonus"'))]
    assert "tie-breakers" in table  # says why win rates without the bonus are not shown
    # every seat: 10 points, +5 in the 10 of 40 games it wins -> 11.25 without its bonus
    rows = re.findall(r"<tr><td>(\d)</td><td>([\d.]+)</td><td>([\d.]+)</td>\s*<td><b>([\d.]+)</b>", table)
    assert rows == [
        ("1", "13.2", "2.0", "11.2"),
        ("2", "13.2", "2.0", "11.2"),
        ("3", "12.2", "1.0", "11.2"),
        ("4", "11.2", "0.0", "11.2"),
    ]


def test_no_seat_bonus_table_without_the_column(run_dir: Path, tmp_path: Path) -> None:
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="no-bonus"' not in html


def test_methods_list_the_assumed_notes(run_dir: Path, tmp_path: Path) -> None:
    notes = ["rounds.4: the rulebook's round table for 4 players is missing", "top-level <note>"]
    (run_dir / "run.json").write_text(json.dumps({**META, "assumed": notes}))
    html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    methods = html[html.index('id="methods"') :]
    assert "<code>rounds.4</code>: the rulebook&#39;s round table for 4 players is missing" in methods
    assert "top-level &lt;note&gt;" in methods


# --------------------------------------------------------------------------- bad input


def test_report_out_is_a_directory_or_under_a_file(run_dir: Path, tmp_path: Path) -> None:
    from balancer.report.render import ReportOutputError

    with pytest.raises(ReportOutputError, match=re.escape(f"{tmp_path}: is a directory")):
        render_report(run_dir, tmp_path)
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(
        ReportOutputError, match=re.escape(f"{blocker / 'sub' / 'r.html'}: cannot be created: {blocker} is a file")
    ):
        render_report(run_dir, blocker / "sub" / "r.html")


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "not a readable Parquet file ("),
        (lambda p: p.write_text("not parquet at all"), "not a readable Parquet file ("),
        (lambda p: results().drop("win_share").write_parquet(p), "missing column win_share"),
        (lambda p: results().drop("seat", "agent").write_parquet(p), "missing columns seat, agent"),
        (lambda p: results().clear().write_parquet(p), "empty"),
    ],
)
def test_report_bad_parquet_names_the_file(run_dir: Path, tmp_path: Path, damage, message) -> None:
    from balancer.sim.results import ResultsFileError

    damage(run_dir / "results.parquet")
    with pytest.raises(ResultsFileError) as err:
        render_report(run_dir, tmp_path / "r.html")
    assert str(err.value).startswith(f"{run_dir / 'results.parquet'}: ")
    assert message in str(err.value)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("run.json", "{not json", "not valid JSON (Expecting property name"),
        ("run.json", "[1, 2]", "must hold a JSON object, got list"),
        ("run.json", json.dumps({**META, "elapsed_seconds": "soon"}), "elapsed_seconds: expected a number"),
        ("run.json", json.dumps({**META, "agents": "greedy"}), "agents: expected a list of agent names"),
        ("summary.json", '{"games": 4,', "not valid JSON"),
        ("summary.json", json.dumps({"seat_win_rate": 3}), "seat_win_rate: expected a list"),
    ],
)
def test_report_corrupt_json_names_the_file(run_dir: Path, tmp_path: Path, name, text, message) -> None:
    from balancer.sim.results import ResultsFileError

    (run_dir / name).write_text(text)
    with pytest.raises(ResultsFileError) as err:
        render_report(run_dir, tmp_path / "r.html")
    assert str(err.value).startswith(f"{run_dir / name}: ")
    assert message in str(err.value)
    assert not (tmp_path / "r.html").exists()


def test_report_is_written_atomically(run_dir: Path, tmp_path: Path, monkeypatch) -> None:
    import balancer.report.render as render

    def fail(*args, **kwargs):
        raise RuntimeError("render failed")

    monkeypatch.setattr(render, "render_html", fail)
    with pytest.raises(RuntimeError):
        render_report(run_dir, tmp_path / "new" / "deep" / "r.html")
    assert not (tmp_path / "new").exists()
