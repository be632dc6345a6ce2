"""Studies: the file's validation, every cell run once, finished cells reused, the report and its changes table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from balancer.report.study import figure_data, render_study
from balancer.study import StudyError, load_study, run_study, study_changes

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs" / "citywright"

TINY = f"""
study: tiny
title: "A tiny study"
game: citywright
seed: 5
variants: {{v1.0: {CONFIGS / "v1.0.yaml"}, v1.1: {CONFIGS / "v1.1.yaml"}}}
runs:
  specialists: {{players: 4, agents: [residential, commercial, park, industrial], games: 16}}
  mirror-2p: {{players: 2, agents: [greedy], games: 20}}
figures:
  - {{title: Specialists, run: specialists, show: agent_win_rate,
      published: {{v1.0: {{residential: 14.5, commercial: 25.9, park: 26.9, industrial: 32.7}},
                   v1.1: {{residential: 28.8, commercial: 19.5, park: 25.1, industrial: 26.6}}}}}}
  - {{title: Wasted, run: mirror-2p, show: "metric:wasted_tiles", published: {{v1.0: 20.5, v1.1: 4.7}}}}
  - {{title: Seats, run: mirror-2p, show: seat_win_rate, published: {{v1.0: [53, 47], v1.1: [50, 50]}}}}
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    return path


def test_the_appendix_study_file_is_valid():
    study, configs = load_study(CONFIGS / "appendix.yaml")
    assert list(study.variants) == ["v1.0", "v1.1"]
    assert set(configs.values()) == {CONFIGS / "v1.0.yaml", CONFIGS / "v1.1.yaml"}
    # every seat and specialist interval at most +/-1.5 points: n >= 1.96^2 p (1 - p) / 0.015^2 with the
    # fair share p = 1/players (the widest interval is at p = 1/2 for 2 players: 4,269 games)
    for run in study.runs.values():
        p = 1 / run.players
        assert run.games >= 1.959964**2 * p * (1 - p) / 0.015**2
        assert run.games % run.players == 0  # rotated seats stay balanced


def test_every_cell_runs_once_and_is_reused(tiny, tmp_path):
    root = tmp_path / "results"
    first = run_study(tiny, results_root=root, jobs=1, progress=False)
    assert len(first.cells) == 4 and not any(c.reused for c in first.cells.values())
    stamps = {k: (c.out_dir / "results.parquet").stat().st_mtime_ns for k, c in first.cells.items()}
    again = run_study(tiny, results_root=root, jobs=1, progress=False)
    assert all(c.reused for c in again.cells.values())
    assert stamps == {k: (c.out_dir / "results.parquet").stat().st_mtime_ns for k, c in again.cells.items()}
    # the same numbers come back
    assert [c.summary for c in first.cells.values()] == [c.summary for c in again.cells.values()]
    assert study_changes(first) == study_changes(again)
    # a changed variant is replayed, the others reused
    changed = tmp_path / "v11b.yaml"
    changed.write_text(f"extends: {CONFIGS / 'v1.1.yaml'}\nscoring: {{industrial: {{ring: 3}}}}\n", encoding="utf-8")
    tiny.write_text(TINY.replace(str(CONFIGS / "v1.1.yaml"), str(changed)), encoding="utf-8")
    third = run_study(tiny, results_root=root, jobs=1, progress=False)
    assert {k: c.reused for k, c in third.cells.items()} == {
        ("specialists", "v1.0"): True,
        ("specialists", "v1.1"): False,
        ("mirror-2p", "v1.0"): True,
        ("mirror-2p", "v1.1"): False,
    }


def test_report_has_figures_changes_and_files(tiny, tmp_path):
    result = run_study(tiny, results_root=tmp_path / "results", jobs=1, progress=False)
    changes = study_changes(result)
    # published wasted tiles fell 20.5 -> 4.7, a change of -15.8 tiles per player
    wasted = changes[1][0]
    assert wasted["published"] == pytest.approx(4.7 - 20.5)
    # 16 turns (v1.0, 2 players) against 12 on a 49-cell table: ours falls too, by far more than noise
    assert wasted["diff"] < 0 and wasted["ci_high"] < 0 and wasted["verdict"] == "agrees"
    # the specialists' published change for residential is 28.8 - 14.5 = +14.3 points
    res = next(r for r in changes[0] if r["category"] == "residential")
    assert res["published"] == pytest.approx(0.143)
    data = figure_data(result)
    assert [d.categories for d in data][2] == ["seat 1", "seat 2"]
    assert data[2].series[0].published == [0.53, 0.47]
    html = render_study(result, changes, tmp_path / "study.html", figures_dir=tmp_path / "figs")
    text = html.read_text()
    assert text.count("<svg") == 3 and "change v1.0 → v1.1" in text and "agrees" in text
    assert "The changes are paired differences" in text  # two variants, one seed: common random numbers
    # a metric's interval is the bootstrap-t from 20 to 1,000 games (issue 51); the note said Student t
    assert "for metrics the studentized bootstrap over games from 20 to 1,000 games, else Student t" in text
    # issue 31: the shipped variants by their shipped names, the study file and the cells' folders
    # relative to the page (tmp_path/study.html), no machine-local path; the cells' folder is the study's
    # name with its game and a hash of the file's path (a user's file: citywright-tiny-<8 hex>)
    from balancer.study.runner import study_folder

    folder = study_folder(tiny, result.study, tmp_path / "results")
    assert re.fullmatch(r"citywright-tiny-[0-9a-f]{8}", folder)
    assert "<code>tiny.yaml</code>" in text and "citywright/v1.0" in text and f"results/{folder}/" in text
    assert str(tmp_path) not in text and str(CONFIGS) not in text
    files = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert files == [  # issue 31: SVG, PNG and PDF of every figure; issue 50: named after their titles
        f"tiny-{stem}.{fmt}" for stem in ("seats", "specialists", "wasted") for fmt in ("pdf", "png", "svg")
    ]


@pytest.mark.parametrize(
    "edit, message",
    [
        (("seed: 5", "seed: 5\ncolour: red"), "colour: unknown key 'colour'"),
        (
            ("run: mirror-2p, show: seat_win_rate", "run: mirror-3p, show: seat_win_rate"),
            "figures[2].run: unknown run 'mirror-3p'",
        ),
        (("v1.1: [50, 50]", "v1.1: [50, 30, 20]"), "figures[2].published.v1.1: give 2 seat percentages"),
        (("show: seat_win_rate", "show: seat_rate"), "figures[2].show"),
        (("games: 20", "games: twenty"), "runs.mirror-2p.games"),
        (("v1.0.yaml", "v0.9.yaml"), "variants.v1.0: no such config file"),
    ],
)
def test_bad_study_files_name_the_file_and_key(tiny, edit, message):
    tiny.write_text(TINY.replace(*edit), encoding="utf-8")
    with pytest.raises(StudyError) as err:
        load_study(tiny)
    assert str(tiny) in str(err.value) and message in str(err.value)


def test_a_study_checks_every_cell_before_playing(tiny, tmp_path):
    tiny.write_text(
        TINY.replace("agents: [greedy], games: 20", "agents: [greedy, wizard], games: 20"), encoding="utf-8"
    )
    with pytest.raises(StudyError, match=r"runs\.mirror-2p\.agents\[1\]: unknown agent 'wizard'"):
        run_study(tiny, results_root=tmp_path / "results", jobs=1, progress=False)
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("results.parquet"))


def test_study_command_writes_report_and_figures_then_reuses(tiny, tmp_path):
    from typer.testing import CliRunner

    from balancer.cli import app

    runner = CliRunner()
    args = [
        "study",
        str(tiny),
        "-o",
        str(tmp_path / "s.html"),
        "--figures",
        str(tmp_path / "figs"),
        "--results",
        str(tmp_path / "results"),
        "--jobs",
        "1",
        "--quiet",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert (tmp_path / "s.html").is_file() and len(list((tmp_path / "figs").glob("*.png"))) == 3
    html_first = (tmp_path / "s.html").read_text()
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output

    # same numbers: only the timing line, the "(reused)" marks and the page-unique SVG id prefixes differ
    def strip(h: str) -> list[str]:
        return [
            re.sub(r"\bf\d+-", "f-", line).replace(" (reused)", "")
            for line in h.splitlines()
            if "this report run" not in line
        ]

    assert strip(html_first) == strip((tmp_path / "s.html").read_text())


def test_study_command_bad_file_exits_2_and_writes_nothing(tiny, tmp_path):
    from typer.testing import CliRunner

    from balancer.cli import app

    tiny.write_text(TINY.replace("seed: 5", "seed: -5"), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["study", str(tiny), "-o", str(tmp_path / "s.html"), "--results", str(tmp_path / "results")]
    )
    assert result.exit_code == 2 and "seed" in result.output
    assert not (tmp_path / "s.html").exists() and not (tmp_path / "results").exists()


def test_cells_played_by_other_engine_code_are_replayed(tiny, tmp_path, monkeypatch):
    # Finished results are reused only under the same engine code (balancer.sim.runner.engine_sha256):
    # a change to the rules or agents must never be mixed with numbers played before it.
    import balancer.sim.runner as sim
    import balancer.study.runner as study_runner

    root = tmp_path / "results"
    run_study(tiny, results_root=root, jobs=1, progress=False)
    real = sim.engine_sha256

    def changed(spec):
        return "0" * 64 if spec.name == "citywright" else real(spec)

    monkeypatch.setattr(sim, "engine_sha256", changed)
    monkeypatch.setattr(study_runner, "engine_sha256", changed)
    again = run_study(tiny, results_root=root, jobs=1, progress=False)
    assert not any(c.reused for c in again.cells.values())
    assert all(c.meta["engine_sha256"] == "0" * 64 for c in again.cells.values())


def test_engine_fingerprint_covers_the_game_package():
    from balancer.games import get_spec
    from balancer.sim.runner import engine_sha256

    cw = get_spec("citywright")
    assert len(engine_sha256(cw)) == 64 and engine_sha256(cw) == engine_sha256(cw)
    assert engine_sha256(cw) != engine_sha256(get_spec("urgency"))


MATCHUPS = f"""
study: tiny-matchups
title: "Deck match-ups"
game: urgency
seed: 3
variants: {{standard: {ROOT / "configs" / "urgency" / "standard.yaml"}}}
runs:
  decks: {{players: 2, agents: [greedy], games: 60}}
figures:
  - {{title: Match-ups, run: decks, show: "matchups:deck"}}
  - {{title: Seats, run: decks, show: seat_win_rate}}
"""


def test_matchups_figure_renders_a_heatmap_and_table(tmp_path):
    """show: matchups:<label> reads the cell's results, draws one heatmap per seat order, lists pairs."""
    path = tmp_path / "m.yaml"
    path.write_text(MATCHUPS, encoding="utf-8")
    result = run_study(path, results_root=tmp_path / "results", jobs=1, progress=False)
    data = figure_data(result)
    assert data[0].matrix and {r["order"] for r in data[0].matrix} == {"first", "second", "any"}
    assert sum(r["games"] for r in data[0].matrix if r["order"] == "first") == 60
    html = render_study(result, study_changes(result), tmp_path / "m.html", figures_dir=tmp_path / "figs").read_text()
    assert "row moves first" in html and "row moves second" in html and "win rate of the row" in html
    assert (tmp_path / "figs" / "tiny-matchups-match-ups.png").is_file()  # named after its title (issue 50)
    assert "paired differences" not in html  # one variant: there is no change to pair


def test_matchups_need_a_two_player_run(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        TINY.replace(
            "show: seat_win_rate, published: {v1.0: [53, 47], v1.1: [50, 50]}", 'show: "matchups:deck"'
        ).replace('run: mirror-2p, show: "matchups', 'run: specialists, show: "matchups'),
        encoding="utf-8",
    )
    with pytest.raises(StudyError, match="2-player run"):
        load_study(path)


def test_the_urgency_matchups_study_file_is_valid():
    study, _ = load_study(ROOT / "configs" / "urgency" / "matchups.yaml")
    assert study.figures[0].show == "matchups:deck" and study.runs["decks"].players == 2


def test_changes_of_three_variants_are_labelled_pair_by_pair(tmp_path):
    """Variants a, b, c: the change table holds a -> b, then b -> c, each block headed by its own
    pair, and no row of b -> c sits under the a -> b heading (it did: one heading for every row)."""
    (tmp_path / "c.yaml").write_text(f"extends: {CONFIGS / 'v1.1.yaml'}\nvariant: c\n", encoding="utf-8")
    path = tmp_path / "three.yaml"
    path.write_text(
        f"""
study: three
title: three variants
game: citywright
seed: 5
variants: {{a: {CONFIGS / "v1.0.yaml"}, b: {CONFIGS / "v1.1.yaml"}, c: c.yaml}}
runs:
  mirror-2p: {{players: 2, agents: [random], games: 8}}
figures:
  - {{title: Seats, run: mirror-2p, show: seat_win_rate}}
""",
        encoding="utf-8",
    )
    result = run_study(path, results_root=tmp_path / "results", jobs=1, progress=False)
    rows = study_changes(result)[0]
    assert [(r["from_variant"], r["to_variant"], r["category"]) for r in rows] == [
        ("a", "b", "seat 1"),
        ("a", "b", "seat 2"),
        ("b", "c", "seat 1"),
        ("b", "c", "seat 2"),
    ]
    text = render_study(result, study_changes(result), tmp_path / "three.html").read_text()
    table = text[text.index("change a → b") :]
    assert table.count("change a → b") == 1 and table.count("change b → c") == 1
    first_block = table[: table.index("change b → c")]
    assert first_block.count("<td>seat 1</td>") == 1 and first_block.count("<td>seat 2</td>") == 1
    assert "change a → c" not in text


def test_a_run_no_figure_shows_still_has_its_seat_win_rates_on_the_page(tmp_path):
    """A new user added a run to their study and found it on the page only in the Methods table: a run of
    two or more players that no figure shows gets its seat win rates, titled as such (one more figure)."""
    path = tmp_path / "s.yaml"
    path.write_text(
        f"""
study: unshown
title: "A run without a figure"
game: citywright
seed: 5
variants: {{v1.1: {CONFIGS / "v1.1.yaml"}}}
runs:
  shown: {{players: 2, agents: [random], games: 6}}
  extra-3p: {{players: 3, agents: [random], games: 6}}
figures:
  - {{title: Shown seats, run: shown, show: seat_win_rate}}
""",
        encoding="utf-8",
    )
    result = run_study(path, results_root=tmp_path / "results", jobs=1, progress=False)
    data = figure_data(result)
    assert [(d.run, d.show) for d in data] == [("shown", "seat_win_rate"), ("extra-3p", "seat_win_rate")]
    assert data[1].categories == ["seat 1", "seat 2", "seat 3"] and data[1].fair == pytest.approx(1 / 3)
    text = render_study(result, study_changes(result), tmp_path / "u.html").read_text()
    assert text.count("<svg") == 2 and "extra-3p: win rate by seat (a run no figure of the study file shows)" in text


def test_the_page_says_how_the_game_feels_in_every_cell(tiny, tmp_path):
    """Issue 49: the study page has how the game feels, cell by cell: each row's numbers are those of
    the cell's own summary.json (its flow), written by the run, here read back apart from the page:
    the mirror table's mean lead changes with its interval and its comebacks in percent."""
    import json

    from balancer.report.study import flow_rows

    result = run_study(tiny, results_root=tmp_path / "results", jobs=1, progress=False)
    rows = flow_rows(result)
    assert [(r["run"], r["variant"]) for r in rows] == [(c.run, c.variant) for c in result.cells.values()]
    cell = result.cells[("mirror-2p", "v1.1")]
    flow = json.loads((cell.out_dir / "summary.json").read_text())["flow"]
    row = next(r for r in rows if (r["run"], r["variant"]) == ("mirror-2p", "v1.1"))
    lead = flow["trajectory"]["lead_changes"]
    assert row["lead_changes"] == (lead["mean"], lead["ci_low"], lead["ci_high"]) and row["games"] == 20
    assert row["comebacks"][0] == flow["trajectory"]["comebacks"]["rate"]
    text = render_study(result, study_changes(result), tmp_path / "feel.html").read_text()
    assert "<h2>How the game feels</h2>" in text
    expected = f'{lead["mean"]:.2f} <span class="note">({lead["ci_low"]:.2f} to {lead["ci_high"]:.2f})</span>'
    assert expected.replace("-", "−") in text or expected in text
