"""Outcomes by a pair label (balancer.stats.pairs) on a hand-made results table, and the
`balancer pairs` page."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.stats.pairs import pair_matrix, pair_table


def results() -> pl.DataFrame:
    """4 two-seat games: pair "A + B" in games 0-2, "A + C" in game 3.
    game 0: scores 10/7, seat 1 wins (margin 3); game 1: 5/9, seat 2 wins (4);
    game 2: 8/8 shared (0); game 3: 12/2, seat 1 wins (10)."""
    rows = []
    games = [
        ("A + B", 10, 7, 1.0, 0.0),
        ("A + B", 5, 9, 0.0, 1.0),
        ("A + B", 8, 8, 0.5, 0.5),
        ("A + C", 12, 2, 1.0, 0.0),
    ]
    for i, (pair, s1, s2, w1, w2) in enumerate(games):
        rows.append({"game_index": i, "seat": 1, "score": s1, "win_share": w1, "label_shops": pair})
        rows.append({"game_index": i, "seat": 2, "score": s2, "win_share": w2, "label_shops": pair})
    return pl.DataFrame(rows)


def test_pair_table_by_hand():
    t = {r["pair"]: r for r in pair_table(results(), "shops").iter_rows(named=True)}
    ab = t["A + B"]
    # seat 1: 1 + 0 + 0.5 = 1.5 of 3 games; seat 2 the same -> spread 0; margins 3, 4, 0 -> mean 7/3
    assert (ab["first"], ab["second"], ab["games"]) == ("A", "B", 3)
    assert ab["seat1_rate"] == pytest.approx(0.5) and ab["seat_spread"] == pytest.approx(0.0)
    assert ab["margin_mean"] == pytest.approx(7 / 3)
    assert ab["seat1_low"] < 0.5 < ab["seat1_high"] and ab["margin_low"] < 7 / 3 < ab["margin_high"]
    ac = t["A + C"]
    # one game: seat 1 wins -> rate 1, spread 1, margin 10, no interval for a mean of one game
    assert (ac["games"], ac["seat1_rate"], ac["seat_spread"], ac["margin_mean"]) == (1, 1.0, 1.0, 10.0)
    assert math.isnan(ac["margin_low"])


def test_pair_matrix_is_symmetric_with_gaps():
    names, m = pair_matrix(pair_table(results(), "shops"), "seat1_rate")
    assert names == ["A", "B", "C"]
    assert m[0, 1] == m[1, 0] == pytest.approx(0.5) and m[0, 2] == m[2, 0] == 1.0
    assert np.isnan(m[1, 2]) and np.isnan(m[0, 0])


def test_unknown_label_names_the_known_ones():
    with pytest.raises(KeyError, match="labels: shops"):
        pair_table(results(), "deck")


def test_pairs_command_writes_a_page(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    results().write_parquet(d / "results.parquet")
    out = tmp_path / "p.html"
    res = CliRunner().invoke(
        app, ["pairs", str(d), "--label", "shops", "-o", str(out), "--figures", str(tmp_path / "f")]
    )
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") == 3 and "A + B" in html
    assert len(list((tmp_path / "f").glob("*.png"))) == 3
    bad = CliRunner().invoke(app, ["pairs", str(d), "--label", "deck", "-o", str(out)])
    assert bad.exit_code == 2 and "label_deck" in bad.output


def _run_dir(tmp_path, df: pl.DataFrame):
    d = tmp_path / "run"
    d.mkdir()
    df.write_parquet(d / "results.parquet")
    return d


def test_pairs_refuses_a_per_seat_label_of_two_player_games(tmp_path, one_error_line):
    """Urgency's deck: one value per seat (lizard vs ibex), not a pair per game: exit 2, pointing
    to the study's match-up matrix, and no page written."""
    df = results().with_columns(
        pl.when(pl.col("seat") == 1).then(pl.lit("lizard")).otherwise(pl.lit("ibex")).alias("label_deck")
    )
    out = tmp_path / "x.html"
    res = CliRunner().invoke(app, ["pairs", str(_run_dir(tmp_path, df)), "--label", "deck", "-o", str(out)])
    line = one_error_line(res)
    assert "label 'deck' holds one value per seat" in line and "show: matchups:deck" in line
    assert not out.exists()


def test_pairs_refuses_a_label_of_single_values(tmp_path, one_error_line):
    df = results().with_columns(pl.lit("coast").alias("label_board"))  # the same for both seats, no " + "
    out = tmp_path / "x.html"
    res = CliRunner().invoke(app, ["pairs", str(_run_dir(tmp_path, df)), "--label", "board", "-o", str(out)])
    assert "label 'board' holds single values, not pairs 'A + B'" in one_error_line(res)
    assert not out.exists()


@pytest.mark.parametrize("where, message", [("file/x.html", "is a file, not a directory"), ("adir", "is a directory")])
def test_pairs_checks_the_output_path_first(tmp_path, where, message, one_error_line):
    d = _run_dir(tmp_path, results())
    (tmp_path / "file").write_text("not a directory")
    (tmp_path / "adir").mkdir()
    res = CliRunner().invoke(
        app, ["pairs", str(d), "--label", "shops", "-o", str(tmp_path / where), "--figures", str(tmp_path / "figs")]
    )
    line = one_error_line(res)
    assert line.startswith("error: --out ") and message in line
    assert not (tmp_path / "figs").exists() and list((tmp_path / "adir").iterdir()) == []
