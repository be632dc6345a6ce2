"""Report pages for every game, not only Citywright: per-game metrics, solo runs, labels, rates in
percent, game names, and wording that names no Citywright component."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from balancer.games import get_spec
from balancer.outcomes import Cell, StudyResult
from balancer.report import render_report
from balancer.report.compare import render_comparison_html
from balancer.report.render import display_name, is_rate_metric, label_sections, metric_label
from balancer.report.study import figure_data, render_study
from balancer.sim.results import summarize_dir
from balancer.stats.solo import solo_result
from balancer.study import load_study

EVIL = "<script>alert(1)</script>"


def _text(html: str) -> str:
    """The page's words: figures, styles and tags removed, whitespace collapsed."""
    html = re.sub(r"<svg.*?</svg>|<style>.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _section(html: str, section_id: str) -> str:
    start = html.index(f'id="{section_id}"')
    return html[start : html.index("</section>", start)]


def write_run(directory: Path, data: dict, **meta) -> Path:
    directory.mkdir(parents=True)
    n = max(data["seat"])
    games = len(data["seat"]) // n
    frame = {
        "variant": ["v1"] * len(data["seat"]),
        "game": [meta.get("game", "toy")] * len(data["seat"]),
        "n_players": [n] * len(data["seat"]),
        "seed": [1] * len(data["seat"]),
        "agent": ["greedy"] * len(data["seat"]),
        "turns": [5] * len(data["seat"]),
        **data,
    }
    pl.DataFrame(frame).write_parquet(directory / "results.parquet")
    info = {
        "game": "toy",
        "variant": "v1",
        "n_players": n,
        "games": games,
        "seed": 1,
        "agents": ["greedy"],
        "seat_design": "mirror table: greedy in every seat",
        **meta,
    }
    (directory / "run.json").write_text(json.dumps(info), encoding="utf-8")
    return directory


# --------------------------------------------------------------------------- 2. per-game metrics


def test_metric_label_says_per_game_for_game_metrics() -> None:
    assert metric_label("game_turns_per_player") == "turns per game"
    assert metric_label("game_roll_agains") == "roll agains per game"
    assert metric_label("wasted_tiles_per_player") == "wasted tiles per player"
    assert metric_label("captures") == "captures per player"


def test_run_report_names_game_metrics_per_game(tmp_path: Path) -> None:
    # 2 games of 2 seats; game_turns is the game's length on both seats (7 and 9 -> mean 8)
    run = write_run(
        tmp_path / "r",
        {
            "game_index": [0, 0, 1, 1],
            "seat": [1, 2, 1, 2],
            "score": [3, 1, 0, 2],
            "rank": [1, 2, 2, 1],
            "win_share": [1.0, 0.0, 0.0, 1.0],
            "metric_game_turns": [7.0, 7.0, 9.0, 9.0],
            "metric_captures": [1.0, 0.0, 2.0, 1.0],
        },
    )
    metrics = _text(_section(render_report(run, tmp_path / "r.html").read_text("utf-8"), "metrics"))
    assert "turns per game 8.00" in metrics
    assert "captures per player 1.00" in metrics
    assert "game turns" not in metrics


# --------------------------------------------------------------------------- 3. solo runs


def solo_data(wins: list[float] | None) -> dict:
    """4 solo games: score 10, 20, 30, 40; the solo seat 'wins' its table every game."""
    data = {
        "game_index": [0, 1, 2, 3],
        "seat": [1] * 4,
        "score": [10, 20, 30, 40],
        "rank": [1] * 4,
        "win_share": [1.0] * 4,
        "score_tourists": [6, 12, 18, 24],
        "score_mural": [4, 8, 12, 16],
        "label_shops": ["A + B", "A + B", "C + D", "A + B"],
    }
    if wins is not None:
        data["metric_solo_win"] = wins
    return data


def test_solo_report_headlines_the_solo_win_rate(tmp_path: Path) -> None:
    run = write_run(
        tmp_path / "solo",
        solo_data([1.0, 0.0, 1.0, 1.0]),
        variant="v1-solo-hard",
        game="agueda",
        game_title="Águeda: City of Umbrellas",
    )
    html = render_report(run, tmp_path / "solo.html").read_text("utf-8")
    text = _text(html)
    # no seat or agent win rates: the one seat always "wins" its table
    assert 'id="seats"' not in html and 'id="agents"' not in html and 'id="ties"' not in html
    assert "100.0" not in _text(_section(html, "solo")) and "seat test" not in text
    solo = _text(_section(html, "solo"))
    assert "solo game" in solo and "v1-solo-hard" in solo
    # 3 wins in 4 games: Wilson 95% interval (3/4, z = 1.96) = 30.1% to 95.4%
    assert "won 3 of 4 games" in solo and "75.0%" in solo and "30.1 to 95.4%" in solo
    # the score by source is still shown: tourists 15, mural 10 on average
    assert "tourists" in _text(_section(html, "scores")) and "15.0" in _text(_section(html, "scores"))
    # the label section counts the solo win, not the table's win share
    shops = _text(_section(html, "label-shops"))
    assert "Solo win rate by shops" in shops
    # A + B: games 0, 1, 3 -> 2 wins of 3 = 66.7%; C + D: game 2 -> 1 of 1 = 100.0%, listed first
    assert shops.index("C + D 100.0") < shops.index("A + B 66.7")


def test_solo_report_without_a_solo_result_says_nothing_of_one(tmp_path: Path) -> None:
    run = write_run(tmp_path / "solo", solo_data(None))
    html = render_report(run, tmp_path / "solo.html").read_text("utf-8")
    solo = _text(_section(html, "solo"))
    assert "solo game" in solo and "win rate" not in solo.replace("no seat or agent win rates", "")
    assert 'id="label-shops"' not in html and 'id="seats"' not in html


def test_solo_result_is_a_wilson_interval() -> None:
    summary = {"metrics": {"solo_win_per_player": {"mean": 0.5, "ci_low": 0.1, "ci_high": 0.9, "n": 2}}}
    agueda = get_spec("agueda").metrics  # declares solo_win the game's solo result
    result = solo_result(summary, agueda)
    # 1 win of 2 (z = 1.96): Wilson 9.45% to 90.55%
    assert result["wins"] == 1 and result["games"] == 2
    assert result["ci_low"] == pytest.approx(0.0945312, abs=1e-6)
    assert result["ci_high"] == pytest.approx(0.9054688, abs=1e-6)
    assert solo_result({"metrics": {}}, agueda) is None


# --------------------------------------------------------------------------- 4. rates in percent


def test_is_rate_metric() -> None:
    assert is_rate_metric("solo_win_per_player") and is_rate_metric("solo_win")
    assert is_rate_metric("bonus_taken", [0.0, 1.0, 1.0])
    assert not is_rate_metric("captures", [0.0, 1.0, 2.0])
    assert not is_rate_metric("captures") and not is_rate_metric("captures", [])


# --------------------------------------------------------------------------- 5. labels


def deck_results() -> pl.DataFrame:
    """4 two-player games with a per-seat deck label:
    game 0: bull (seat 1, wins) v eagle; game 1: eagle (wins) v bull; game 2: bull (wins) v eagle;
    game 3: bull v bull, seat 2 wins."""
    return pl.DataFrame(
        {
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seat": [1, 2] * 4,
            "n_players": [2] * 8,
            "win_share": [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            "label_deck": ["bull", "eagle", "eagle", "bull", "bull", "eagle", "bull", "bull"],
        }
    )


def test_label_section_of_a_per_seat_label() -> None:
    (section,) = label_sections(deck_results(), 2)
    assert section["name"] == "deck" and not section["per_game"]
    # bull: 5 appearances, wins in games 0, 2, 3 = 3/5 = 60%; eagle: 3 appearances, 1 win (game 1)
    rows = [(r["value"], r["games"], round(r["rate"], 4)) for r in section["rows"]]
    assert rows == [("bull", 5, 0.6), ("eagle", 3, 0.3333)]
    assert section["heatmap"] is not None and "<svg" in section["heatmap"]


def test_label_rows_rank_by_the_low_end_of_their_interval() -> None:
    # "lucky": 3 wins in 3 games (100%, but a wide interval); "steady": 60 wins in 80 games (75%).
    # Ranked by rate, lucky would lead; by the interval's low end (Wilson at n = 3 is 44%, at 80
    # games about 65%), steady leads.
    games = [("lucky", "x")] * 3 + [("steady", "x")] * 80
    wins = [1.0] * 3 + [1.0] * 60 + [0.0] * 20
    rows = {"game_index": [], "seat": [], "n_players": [], "win_share": [], "label_deck": []}
    for i, ((a, b), w) in enumerate(zip(games, wins)):
        for seat, deck, share in ((1, a, w), (2, b, 1.0 - w)):
            rows["game_index"].append(i)
            rows["seat"].append(seat)
            rows["n_players"].append(2)
            rows["win_share"].append(share)
            rows["label_deck"].append(deck)
    (section,) = label_sections(pl.DataFrame(rows), 2)
    order = [r["value"] for r in section["rows"]]
    assert order.index("steady") < order.index("lucky")


def test_label_section_without_a_heatmap_for_one_value() -> None:
    df = deck_results().with_columns(pl.lit("none").alias("label_deck"))
    (section,) = label_sections(df, 2)
    assert section["heatmap"] is None
    # every seat of every game has deck "none": a per-game label, by seat: seat 1 won games 0-2 (3/4)
    assert section["per_game"]
    (row,) = section["rows"]
    assert row["value"] == "none" and row["games"] == 4
    assert [round(c["rate"], 2) for c in row["seats"]] == [0.75, 0.25]


def test_run_report_has_the_label_section(tmp_path: Path) -> None:
    df = deck_results()
    data = {c: df[c].to_list() for c in df.columns if c != "n_players"}
    data["label_deck"] = [d if i != 1 else EVIL for i, d in enumerate(data["label_deck"])]
    run = write_run(tmp_path / "r", {**data, "score": [1] * 8, "rank": [1] * 8})
    html = render_report(run, tmp_path / "r.html").read_text("utf-8")
    section = _section(html, "label-deck")
    assert "Win rate by deck" in section and "few games have wide intervals" in section
    assert EVIL not in html and "&lt;script&gt;" in section
    assert "<svg" in section  # 2 players, 3 deck values: the match-up heatmap
    # its panels stand one above the other where they do not fit side by side (Urgency's 6 decks):
    # the caption said 'first (left) or second (right)'; it names the panels by their titles
    assert "(left)" not in section and "(right)" not in section and "each panel" in section


# --------------------------------------------------------------------------- 6. game names


def test_display_name_comes_from_the_game_module() -> None:
    assert display_name("agueda") == "Águeda: City of Umbrellas"
    assert display_name("agueda", {"game_title": "Other"}) == "Other"
    assert display_name("urban_sketchers") == "Urban Sketchers"


def test_report_title_uses_the_game_module_name_when_run_json_lacks_it(tmp_path: Path) -> None:
    run = write_run(
        tmp_path / "r",
        {"game_index": [0, 0], "seat": [1, 2], "score": [1, 0], "rank": [1, 2], "win_share": [1.0, 0.0]},
        game="agueda",
    )
    html = render_report(run, tmp_path / "r.html").read_text("utf-8")
    assert "<title>Águeda: City of Umbrellas v1: balance report</title>" in html
    meta = json.loads((run / "run.json").read_text()) | {"game_title": "A & <B>"}
    (run / "run.json").write_text(json.dumps(meta))
    html = render_report(run, tmp_path / "r.html").read_text("utf-8")
    assert "<h1>A &amp; &lt;B&gt; v1: balance report</h1>" in html


# --------------------------------------------------------------------------- 1. compare and study wording


def test_compare_page_is_game_neutral() -> None:
    row = {"difference": 1.0, "ci_low": 0.5, "ci_high": 1.5, "p_value": 0.01, "significant": True, "n": 10}
    comparison = {
        "game": "agueda",
        "variant_a": "v1",
        "variant_b": "rows-8",
        "games": 10,
        "seed": 1,
        "n_players": 2,
        "paired": True,
        "pairing": "paired",
        "confidence": 0.95,
        "metrics": [
            {**row, "name": "game_turns", "from": 20.0, "to": 21.0},
            {**row, "name": "coins_left", "from": 1.0, "to": 2.0},
        ],
    }
    html = render_comparison_html(comparison)
    text = _text(html)
    assert "site boards" not in text and "deals, shuffles, dice" in text
    assert "turns per game" in text and "coins left per player" in text and "game turns" not in text
    assert "<title>Águeda: City of Umbrellas: v1 → rows-8</title>" in html


STUDY = """
study: neutral
title: "Solo by difficulty"
game: citywright
seed: 3
variants: {{easy: {configs}/v1.0.yaml, hard: {configs}/v1.1.yaml}}
runs:
  solo: {{players: 2, agents: [greedy], games: 4}}
figures:
  - {{title: Solo wins, run: solo, show: "metric:solo_win"}}
  - {{title: Length, run: solo, show: "metric:game_turns"}}
  - {{title: Seats, run: solo, show: seat_win_rate, published: {{easy: [60, 40], hard: [50, 50]}}}}
"""


def study_result(tmp_path: Path, published: bool = True) -> StudyResult:
    configs = Path(__file__).resolve().parents[2] / "configs" / "citywright"
    path = tmp_path / "neutral.yaml"
    text = STUDY.format(configs=configs)
    if not published:  # the seat figure without its published values
        text = text.replace(", published: {easy: [60, 40], hard: [50, 50]}", "")
    path.write_text(text, encoding="utf-8")
    study, config_paths = load_study(path)
    cells = {}
    for variant, wins in (("easy", [1.0, 1.0, 1.0, 0.0]), ("hard", [1.0, 0.0, 0.0, 0.0])):
        # 4 games of 2 seats; seat 1 wins the games where solo_win is 1; game_turns 10 in every game
        seat_wins = [w for w in wins for _ in (0, 1)]
        data = {
            "game_index": [g for g in range(4) for _ in (0, 1)],
            "seat": [1, 2] * 4,
            "score": [1] * 8,
            "rank": [1] * 8,
            "win_share": [w if s == 1 else 1.0 - w for w, s in zip(seat_wins, [1, 2] * 4)],
            "metric_solo_win": seat_wins,
            "metric_game_turns": [10.0] * 8,
        }
        out = write_run(
            tmp_path / variant,
            data,
            variant=variant,
            games=4,
            elapsed_seconds=1.0,
            versions={"balancer": "0"},
            config_sha256="0" * 64,
        )
        meta = json.loads((out / "run.json").read_text())
        cells[("solo", variant)] = Cell(
            "solo", variant, config_paths[variant], out, summary=summarize_dir(out, meta), meta=meta
        )
    return StudyResult(study, path, cells, 2.0)


def test_study_shows_rates_in_percent_and_published_columns_only_where_published(tmp_path: Path) -> None:
    result = study_result(tmp_path)
    solo, length, seats = figure_data(result)
    assert solo.unit == "%" and solo.scale == 100.0 and not solo.has_published
    assert length.categories == ["turns per game"] and length.scale == 1.0
    assert seats.has_published
    html = render_study(result, {}, tmp_path / "s.html").read_text("utf-8")
    blocks = html.split("<h2>")
    solo_text, length_text, seat_text = (_text(b) for b in blocks[1:4])
    # easy: 3 of 4 games won = 75.0%; hard: 1 of 4 = 25.0%
    assert "solo win per player 75.0 (" in solo_text and " 25.0 (" in solo_text  # "(a to b)": issue 50
    assert "published" not in solo_text and "published" not in length_text
    assert "turns per game 10.0" in length_text
    # the seat figure has published values: its table has the column (easy seat 1: 60.0)
    assert "published" in seat_text and "60.0" in seat_text
    note = _text(blocks[0])
    assert "site boards" not in note and "deals, shuffles, dice" in note
    assert "published values" in note  # one figure has them


def test_study_without_published_values_has_no_legend_or_note(tmp_path: Path) -> None:
    result = study_result(tmp_path, published=False)
    html = render_study(result, {}, tmp_path / "s.html").read_text("utf-8")
    page = _text(html).replace(str(tmp_path), "TMP")  # the test's directory name says "published"
    assert "published" not in page and "black diamonds" not in html
    assert "ours, 95% CI" not in html and "easy (95% CI)" in html  # the figure legend


def test_a_long_label_table_comes_after_the_score_breakdown_and_is_collapsed(tmp_path: Path) -> None:
    """Issue 50 item 8: Águeda's table of about 150 shop pairs of 1 to 4 games each stood before the
    score breakdown; a label section now follows it, and a table of more than 20 values is folded
    in a <details> (its summary says how many)."""
    games = 60
    data = {
        "game_index": list(range(games)),
        "seat": [1] * games,
        "score": [10] * games,
        "rank": [1] * games,
        "win_share": [1.0] * games,
        "score_tourists": [6] * games,
        "label_shops": [f"S{i % 30} + T{i % 30}" for i in range(games)],  # 30 pairs of 2 games each
        "metric_solo_win": [float(i % 2) for i in range(games)],
    }
    run = write_run(tmp_path / "solo", data, variant="v1-solo", game="agueda", game_title="Águeda")
    html = render_report(run, tmp_path / "solo.html").read_text("utf-8")
    assert html.index('id="scores"') < html.index('id="label-shops"')
    section = _section(html, "label-shops")
    assert "<details>" in section and "<summary>The table of 30 values of shops" in section
