"""``play_comparison`` and its HTML page on the real Citywright engine (small game counts)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

from balancer.compare import COMPARISON_FILE, default_compare_names, play_comparison
from balancer.report.compare import render_comparison
from balancer.sim.runner import ResultsExistError
from balancer.stats.paired import IDENTICAL, PAIRED_TEST

V11 = Path(__file__).resolve().parent.parent / "configs" / "citywright" / "v1.1.yaml"
SPECIALISTS = ["residential", "commercial", "park", "industrial"]


def variant(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"extends: {V11}\n{body}", encoding="utf-8")
    return path


def all_rows(result: dict) -> list[dict]:
    return result["seat_win_rate"] + result["agent_win_rate"] + result["score"] + result["metrics"] + result["flow"]


def test_identical_variants_differ_by_exactly_zero_in_every_game(tmp_path):
    copy = variant(tmp_path, "copy", "")  # extends v1.1 and changes nothing
    out = tmp_path / "cmp"
    r = play_comparison(V11, copy, players=4, agents=["greedy"], games=40, seed=3, jobs=1, out_dir=out, progress=False)
    assert r["paired"] and r["identical"] and r["same_rules"]
    assert r["outcome_changed_games"] == 0 and r["turns_changed_games"] == 0
    assert r["games_paired"] == 40
    for row in all_rows(r):
        assert row["difference"] == 0.0 and (row["ci_low"], row["ci_high"]) == (0.0, 0.0)
        assert row["p_value"] == 1.0 and row["test"] == IDENTICAL and not row["significant"]
    # ... and the two tables agree game by game, not just on average.
    a = pl.read_parquet(out / r["run_a"] / "results.parquet").drop("variant")
    b = pl.read_parquet(out / r["run_b"] / "results.parquet").drop("variant")
    assert a.equals(b)
    assert json.loads((out / COMPARISON_FILE).read_text())["identical"] is True
    html = render_comparison(out, tmp_path / "same.html").read_text(encoding="utf-8")
    assert "identical in every game" in html
    # a paired page cites Student and Holm, not Welch's test it never used (a new user's finding)
    footer = html.split("<footer>")[1]
    assert "Student (1908)" in footer and "Holm (1979)" in footer and "Welch" not in footer


def test_doubling_industrial_ring_points_raises_the_industrial_specialists_win_rate(tmp_path):
    """Ring 2 -> 4 points per industrial tile on the outer ring (§6.4).

    By hand: the change adds 2 points for every industrial tile a player has on the 24 ring cells
    and nothing else. The industrial specialist weights industrial gains 3x, so it places by far the
    most industrial tiles, many of them on the ring, and gains several points per game more than
    its opponents do; with the deals shared game by game (common random numbers), its win rate
    must rise and the industrial score component must rise for the table as a whole.
    """
    ring4 = variant(tmp_path, "ring4", "variant: ring4\nscoring: {industrial: {ring: 4}}\n")
    out = tmp_path / "cmp"
    r = play_comparison(
        V11, ring4, players=4, agents=SPECIALISTS, games=400, seed=1, jobs=2, out_dir=out, progress=False
    )
    assert r["paired"] and not r["identical"]
    assert (r["run_a"], r["run_b"]) == ("a-v1.1", "b-ring4")
    industrial = next(x for x in r["agent_win_rate"] if x["agent"] == "industrial")
    assert industrial["test"] == PAIRED_TEST
    assert industrial["difference"] > 0 and industrial["significant"] and industrial["ci_low"] > 0
    assert industrial["to"] > industrial["from"]
    comp = next(x for x in r["score"] if x["name"] == "industrial")
    assert comp["difference"] > 0 and comp["significant"]
    # Nothing but industrial points changed in the rules: achievements and seat bonus are unchanged.
    seat_bonus = next(x for x in r["score"] if x["name"] == "seat_bonus")
    assert seat_bonus["test"] == IDENTICAL
    assert 0 < r["outcome_changed_games"] <= 400

    html = render_comparison(out, tmp_path / "reports" / "ring.html").read_text(encoding="utf-8")
    from_pct, to_pct = f"{100 * industrial['from']:.1f}", f"{100 * industrial['to']:.1f}"
    assert f"<td>industrial</td><td>{from_pct} → {to_pct}</td>" in html
    assert "paired t-test on per-game differences" in html and "◆" in html
    assert "<svg" in html and "<script" not in html
    assert "Common random numbers" in html and "Welch" not in html.split("<footer>")[1]  # paired: no Welch test


def test_matching_runs_are_reused_and_others_are_not_overwritten(tmp_path):
    copy = variant(tmp_path, "copy", "")
    out = tmp_path / "cmp"
    kwargs = dict(players=2, agents=["random"], games=20, seed=5, jobs=1, out_dir=out, progress=False)
    first = play_comparison(V11, copy, **kwargs)
    assert first["reused"] == {"a": False, "b": False}
    stamp = os.stat(out / "a-v1.1" / "results.parquet").st_mtime_ns
    again = play_comparison(V11, copy, **kwargs)
    assert again["reused"] == {"a": True, "b": True}
    assert os.stat(out / "a-v1.1" / "results.parquet").st_mtime_ns == stamp
    with pytest.raises(ResultsExistError, match="use force=True to overwrite"):  # the library's words
        play_comparison(V11, copy, **(kwargs | {"seed": 6}))
    forced = play_comparison(V11, copy, **(kwargs | {"seed": 6, "force": True}))
    assert forced["reused"] == {"a": False, "b": False} and forced["seed"] == 6


def test_bad_requests_are_refused_before_anything_is_written(tmp_path):
    copy = variant(tmp_path, "copy", "")
    out = tmp_path / "cmp"
    with pytest.raises(ValueError, match="unknown agent"):
        play_comparison(V11, copy, players=4, agents=["nobody"], games=5, seed=1, jobs=1, out_dir=out, progress=False)
    with pytest.raises(ValueError, match="games"):
        play_comparison(V11, copy, players=4, agents=["greedy"], games=0, seed=1, jobs=1, out_dir=out, progress=False)
    assert not out.exists()


def test_default_names_come_from_the_game_and_the_variants_own_names():
    # shipped files: the game and their variant: names, versions kept (not stems cut at the last dot)
    assert default_compare_names("citywright/v1.0", "citywright/v1.1", 4) == "compare-citywright-v1.0-vs-v1.1-4p"
    assert default_compare_names(V11.parent / "v1.0.yaml", V11, 2) == "compare-citywright-v1.0-vs-v1.1-2p"


def test_default_names_carry_agents_other_than_the_default():
    """Issue 50 item 7: a repeated compare with other agents collided on the default folder. The
    agents end the name unless greedy sits in every seat (the old names stay); one name when every
    seat has the same agent; an over-long list becomes 8 hex digits of its SHA-256."""
    import hashlib

    base = "compare-citywright-v1.0-vs-v1.1-2p"
    name = lambda agents: default_compare_names("citywright/v1.0", "citywright/v1.1", 2, agents)  # noqa: E731
    assert name("greedy") == name("greedy,greedy") == name(["greedy"]) == base
    assert name("mcts,greedy") == base + "-mcts-greedy"
    assert name("greedy,mcts") == base + "-greedy-mcts"  # seats differ: another request
    assert name("mcts@200") == name("mcts@200,mcts@200") == base + "-mcts_200"
    many = ",".join(["random"] * 3 + ["greedy"] * 3 + ["mcts@200"] * 3)
    assert name(many) == base + "-" + hashlib.sha256(many.encode()).hexdigest()[:8]
    others = default_compare_names("citywright/v1.0", "citywright/v1.1", 4, others=["citywright/v1.1-tuned"])
    assert others == "compare-citywright-v1.0-vs-v1.1-v1.1-tuned-4p"


def test_default_names_of_two_files_of_one_name_in_different_folders_differ(tmp_path):
    """Two ``variant.yaml`` (what ``balancer init`` writes) named after their file: each carries 8 hex
    digits of the SHA-256 of its resolved path, so the two comparisons never share an output."""
    import hashlib

    paths = []
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "variant.yaml"
        path.write_text("extends: citywright/v1.1\nseat_bonus: {'4': [0, 0, 1, 2]}\n", encoding="utf-8")
        paths.append(path)
    names = [default_compare_names("citywright/v1.1", p, 4) for p in paths]
    digests = [hashlib.sha256(str(p.resolve()).encode()).hexdigest()[:8] for p in paths]
    assert names == [f"compare-citywright-v1.1-vs-variant-{d}-4p" for d in digests]
    assert names[0] != names[1]


def test_an_earlier_comparison_is_never_replaced_without_force(tmp_path):
    copy = variant(tmp_path, "copy", "")
    ring4 = variant(tmp_path, "ring4", "variant: ring4\nscoring: {industrial: {ring: 4}}\n")
    out = tmp_path / "cmp"
    kw = dict(players=2, agents=["greedy"], games=4, seed=1, jobs=1, out_dir=out, progress=False)
    first = play_comparison(V11, copy, **kw)
    # the same request again: reuses both runs and writes the same comparison (now saying "reused")
    assert play_comparison(V11, copy, **kw)["reused"] == {"a": True, "b": True}
    before = (out / COMPARISON_FILE).read_bytes()
    # another B into the same folder (its run directory b-ring4 is new): refused, nothing replaced
    with pytest.raises(ResultsExistError, match="comparison.json holds a comparison of a different request"):
        play_comparison(V11, ring4, **kw)
    assert (out / COMPARISON_FILE).read_bytes() == before and not (out / "b-ring4").exists()
    # other options (more games) are another request too
    with pytest.raises(ResultsExistError):
        play_comparison(V11, copy, **{**kw, "games": 5})
    # --force replaces it
    assert play_comparison(V11, ring4, **kw, force=True)["variant_b"] == "ring4"
    assert json.loads((out / COMPARISON_FILE).read_text())["variant_b"] == "ring4" != first["variant_b"]


def test_configs_of_different_games_are_refused_naming_both_files(tmp_path, monkeypatch):
    import types

    import balancer.compare as compare

    games = {"a.yaml": "citywright", "b.yaml": "urgency"}
    monkeypatch.setattr(compare, "load_config", lambda p: types.SimpleNamespace(game=games[Path(p).name]))
    with pytest.raises(ValueError, match=r"a\.yaml is 'citywright', .*b\.yaml is 'urgency'"):
        play_comparison(
            tmp_path / "a.yaml",
            tmp_path / "b.yaml",
            players=2,
            agents=["greedy"],
            games=5,
            seed=1,
            jobs=1,
            out_dir=tmp_path / "cmp",
            progress=False,
        )


def test_names_from_data_are_escaped():
    from balancer.report.compare import render_comparison_html

    evil = "<script>alert(1)</script>"
    row = {
        "name": evil,
        "from": 0.2,
        "to": 0.3,
        "difference": 0.1,
        "ci_low": 0.05,
        "ci_high": 0.15,
        "p_value": 0.01,
        "test": "Welch t-test",
        "significant": True,
    }
    html = render_comparison_html(
        {
            "game": "citywright",
            "config_a": evil,
            "config_b": "b.yaml",
            "variant_a": evil,
            "variant_b": "v2",
            "n_players": 2,
            "agents": [evil, "greedy"],
            "games": 10,
            "seed": 1,
            "paired": False,
            "pairing": "player counts differ",
            "agent_win_rate": [row],
            "metrics": [row | {"name": "m$x$"}],
        }
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "Not paired:" in html and "Welch t-test" in html
    assert "Welch (1947)" in html.split("<footer>")[1]  # the unpaired page cites the test it used


def test_page_states_the_family_and_flags_on_adjusted_p():
    """Two rows: p = 0.01 and 0.04. Holm over 2: 0.02 and max(0.02, 0.04) = 0.04, both below 0.05,
    so both are flagged; the page names the family of 2 and the adjusted p-values."""
    from balancer.report.compare import render_comparison_html
    from balancer.stats.paired import adjust_family

    rows = [
        {"name": n, "from": 0.2, "to": 0.3, "difference": 0.1, "ci_low": 0.05, "ci_high": 0.15, "p_value": p,
         "test": "paired t-test on per-game differences", "significant": True, "identical": False}
        for n, p in (("seat 1", 0.01), ("seat 2", 0.04))
    ]  # fmt: skip
    family = adjust_family(rows, 0.95)
    assert [r["p_adjusted"] for r in rows] == pytest.approx([0.02, 0.04])
    html = render_comparison_html(
        {"game": "citywright", "variant_a": "a", "variant_b": "b", "n_players": 2, "games": 10, "seed": 1,
         "paired": True, "pairing": "paired", "seat_win_rate": rows, "multiplicity": family}
    )  # fmt: skip
    assert "2 of 2 differences are flagged" in html and "family of 2 tested rows" in html
    assert "Holm" in html and "0.020" in html


def test_fairness_headline_first_and_the_rule_s_own_points_apart(tmp_path):
    """Issue 50: the page answers "is B fairer?" first, and the seat bonus's own points (0 in every
    game without the bonus) are the rule change itself: marked mechanical, out of the Holm family,
    never flagged. The headline's spreads are the seats' rates' max minus min (checked against the
    seat rows); it is one test of the family with the other rows."""
    no_bonus = V11.parent / "v1.1-no-bonus.yaml"
    out = tmp_path / "cmp"
    r = play_comparison(
        V11, no_bonus, players=2, agents=["greedy"], games=60, seed=2, jobs=1, out_dir=out, progress=False
    )
    head = r["fairness"]
    rates = {side: [row[key] for row in r["seat_win_rate"]] for side, key in (("a", "from"), ("b", "to"))}
    assert head["spread_a"] == pytest.approx(max(rates["a"]) - min(rates["a"]))
    assert head["spread_b"] == pytest.approx(max(rates["b"]) - min(rates["b"]))
    assert head["ci_low"] <= head["difference"] <= head["ci_high"] and head["n"] == 60
    assert head["verdict"] in ("fairer", "less fair", "cannot tell") and head["p_adjusted"] is not None
    bonus = next(row for row in r["score"] if row["name"] == "seat_bonus")
    assert bonus["mechanical"] and not bonus["significant"] and bonus["p_adjusted"] is None
    tested = [row for row in all_rows(r) if row["p_adjusted"] is not None]
    assert r["multiplicity"]["family_size"] == len(tested) + 1  # the headline is one of the family
    html = render_comparison(out, tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert html.index('id="fairness"') < html.index('id="summary"') < html.index('id="differences"')
    assert "Seat spread (best minus worst seat&#39;s win rate)" in html and ">rule<" in html
    # the note read 'Not counted: total, seat bonus change as the rule change itself makes them (...)'
    note = " ".join(html.split('<p class="note">Not counted: ')[1].split("</p>")[0].split())
    assert note.startswith("total, seat bonus (the rule change itself moves them: points the changed rule gives")


def test_several_what_ifs_on_one_page_share_the_seeds_and_one_holm_family(tmp_path):
    """Issue 50: ``compare BASE V1 V2``: the base is played once; each variant is compared with it on
    the same seeds (its rows equal those of a comparison of the two alone, the p-values aside); the
    page ranks the variants by the change of seat spread, and every test of the page (each variant's
    headline and rows) is one Holm family, so its size is the sum of the comparisons' tested rows."""
    from balancer.compare import play_comparisons

    no_bonus, v10 = V11.parent / "v1.1-no-bonus.yaml", V11.parent / "v1.0.yaml"
    out = tmp_path / "many"
    kw = dict(players=2, agents=["greedy"], games=40, seed=4, jobs=1, progress=False)
    page = play_comparisons(V11, [no_bonus, v10], out_dir=out, **kw)
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["a-v1.1", "b-v1.0", "b-v1.1-no-bonus"]
    changes = [c["fairness"]["difference"] for c in page["comparisons"]]
    assert [changes[i] for i in page["ranking"]] == sorted(changes)
    tested = sum(
        1 + sum(1 for r in all_rows(c) if r["p_adjusted"] is not None) for c in page["comparisons"]
    )  # each headline and its tested rows
    assert page["multiplicity"]["family_size"] == tested
    assert all(c["multiplicity"] == page["multiplicity"] for c in page["comparisons"])
    alone = play_comparison(V11, no_bonus, out_dir=tmp_path / "alone", **kw)
    first = page["comparisons"][0]
    assert [r["difference"] for r in all_rows(first)] == [r["difference"] for r in all_rows(alone)]
    assert first["fairness"]["difference"] == alone["fairness"]["difference"]
    assert alone["multiplicity"]["family_size"] < page["multiplicity"]["family_size"]
    html = render_comparison(out, tmp_path / "many.html").read_text(encoding="utf-8")
    assert "Which is fairest?" in html and html.count('<section id="v') == 2


def test_the_difference_chart_leaves_out_what_has_nothing_to_show(tmp_path):
    """Issue 50 item 8: v1.1 -> v1.1 without its seat bonus plays the same games (the bonus is only
    counted at the end), so every metric and every score category but the bonus is equal in every
    game: no panel of metrics, and the bonus's own points (the rule change itself), and the total
    they alone moved, are not drawn; the
    legend has a word for an interval that excludes 0 without a flag after Holm."""
    from balancer.report.compare import build_context
    from balancer.report.publish import collecting

    out = tmp_path / "cmp"
    r = play_comparison(
        V11, V11.parent / "v1.1-no-bonus.yaml", players=2, agents=["greedy"], games=30, seed=2, jobs=1,
        out_dir=out, progress=False,
    )  # fmt: skip
    assert all(row["identical"] for row in r["metrics"])  # the premise: the same games
    with collecting() as figs:
        build_context(r)
    chart = figs[0][0]  # the difference chart, drawn before the seat chart
    titles = [ax.get_title(loc="left") for ax in chart.get_axes()]
    assert not any(t.startswith("Metrics") for t in titles)
    # the total moved by the bonus's own points alone: the rule change too, so no panel of points
    assert not any(t.startswith("Points") for t in titles)
    assert next(row for row in r["score"] if row["name"] == "total")["mechanical"]
    legend = [t.get_text() for t in chart.legends[0].get_texts()]
    assert "interval excludes 0, test not flagged" in legend


def test_metrics_in_different_units_get_their_own_panels():
    """Issue 50 item 8: Urgency's compare drew tokens, turns and rolls on one axis; each unit now
    has its own panel (the rows of one unit stay together)."""
    from balancer.report.compare import build_context
    from balancer.report.publish import collecting

    def row(name, d):
        return {"name": name, "from": 1.0, "to": 1.0 + d, "difference": d, "ci_low": d - 0.1, "ci_high": d + 0.1,
                "significant": False, "identical": False}  # fmt: skip

    comparison = {
        "game": "urgency", "variant_a": "a", "variant_b": "b", "agents": ["greedy", "greedy"],
        "metrics": [row("captures", 0.5), row("game_turns", -3.0), row("captured", 0.4), row("roll_agains", 0.2)],
    }  # fmt: skip
    with collecting() as figs:
        build_context(comparison)
    titles = [ax.get_title(loc="left") for ax in figs[0][0].get_axes()]
    assert titles == [
        "Metrics (difference in tokens)",
        "Metrics (difference in turns)",
        "Metrics (difference in rolls)",
    ]
    tokens = figs[0][0].get_axes()[0]
    assert [t.get_text() for t in tokens.get_yticklabels()] == ["captures per player", "captured per player"]


def test_a_plain_mcts_is_shown_with_its_budget():
    """Issue 50 item 8: the page said 'mcts' without its budget; it says the variants' (A's and B's
    when they differ); a name with its own budget stays as written."""
    from balancer.report.compare import with_budget

    assert with_budget("mcts", {"a": 60, "b": 60}) == "mcts@60"
    assert with_budget("mcts", {"a": 60, "b": 100}) == "mcts@60 / mcts@100"
    assert with_budget("mcts@200", {"a": 60, "b": 60}) == "mcts@200"
    assert with_budget("greedy", {"a": 60}) == "greedy" and with_budget("mcts", None) == "mcts"
    from balancer.compare import _mcts_iterations
    from balancer.config import load_config

    assert _mcts_iterations(load_config(V11)) == 60  # configs/citywright/v1.1.yaml agents.mcts.iterations


def test_a_total_that_moved_only_by_the_rule_s_own_points_is_the_rule_too():
    # v1.1 -> a smaller four-player seat bonus ([2, 2, 1, 0] -> [1, 1, 0, 0]), every other component
    # identical in every game: the total per player falls by the bonus's own 0.75 in every game. It was
    # flagged (and counted: "2 of 15 differences are flagged") beside the seat bonus marked "rule".
    import polars as pl

    from balancer.compare import mark_mechanical

    def rows(total_diff: float) -> dict:
        return {
            "score": [
                {"name": "total", "difference": total_diff, "identical": False},
                {"name": "residential", "difference": 0.0, "identical": True},
                {"name": "seat_bonus", "difference": -0.75, "identical": False},
            ]
        }

    a = pl.LazyFrame({"score_seat_bonus": [2, 2, 1, 0]})
    b = pl.LazyFrame({"score_seat_bonus": [1, 1, 0, 0]})
    diffs = rows(-0.75)
    mark_mechanical(diffs, {"seat_bonus"}, a, b)
    assert [bool(r.get("mechanical")) for r in diffs["score"]] == [True, False, True]
    # a total that moved by more than the bonus (play changed too) stays a tested row
    diffs = rows(-1.5)
    mark_mechanical(diffs, {"seat_bonus"}, a, b)
    assert [bool(r.get("mechanical")) for r in diffs["score"]] == [False, False, True]


def _flow_run(folder: Path, variant: str, scores, wins, standings=None) -> Path:
    """A made-up two-player run: results.parquet (3 games of 10 turns) and, given standings
    (per game, per checkpoint, the two seats'), trajectories.parquet."""
    folder.mkdir()
    rows = [
        {"variant": variant, "n_players": 2, "game_index": g, "seat": s + 1, "score": float(scores[g][s]),
         "win_share": float(wins[g][s]), "turns": 10}
        for g in range(3) for s in range(2)
    ]  # fmt: skip
    pl.DataFrame(rows).write_parquet(folder / "results.parquet")
    if standings is not None:
        traj = [
            {"variant": variant, "n_players": 2, "game_index": g, "checkpoint": k, "seat": s + 1,
             "standing": float(standings[g][k][s])}
            for g in range(3) for k in range(2) for s in range(2)
        ]  # fmt: skip
        schema = {"variant": pl.String, "n_players": pl.Int32, "game_index": pl.Int64, "checkpoint": pl.Int32,
                  "seat": pl.Int32, "standing": pl.Float64}  # fmt: skip
        pl.DataFrame(traj, schema=schema).write_parquet(folder / "trajectories.parquet")
    return folder


def test_flow_rows_pair_each_game_s_margin_and_trajectory(tmp_path):
    """Issue 49: compare's "How the game feels" rows, on three made-up two-player games whose answers
    are worked out by hand.

    Margins (winner minus runner-up): A 10-7=3, 5-5=0, 12-8=4; B 12-7=5, 9-3=6, 9-8=1; per-game
    differences 2, 6, -3: mean 5/3 (A 7/3 -> B 4). Length: 10 turns in every game (identical).
    Leader-wins credit (the leaders' mean win share) at checkpoints 0 and 1:
      A: g0 seat 1 leads, wins: 1, 1; g1 seat 2 leads then a tie, the win shared: 0.5, 0.5;
         g2 seat 1 leads then seat 2, seat 2 wins: 0, 1. Means 1, 0.5, 0.5.
      B: g0 1, 1; g1 seat 2 leads then seat 1, seat 1 wins: 0, 1; g2 seat 2 leads throughout, wins: 1, 1.
         Means 1, 0.5, 1. Per-game differences 0, 0, 0.5: mean 1/6; at checkpoint 0: 0, -0.5, 1;
         at checkpoint 1: 0, 0.5, 0: mean 1/6 each.
    Lead changes: A 0, 0 (a tie is skipped), 1; B 0, 1, 0: differences 0, 1, -1: mean 0.
    """
    from balancer.compare import ROW_SECTIONS, flow_rows

    assert "flow" in ROW_SECTIONS  # in the page's one Holm family
    a = _flow_run(tmp_path / "a", "A", [(10, 7), (5, 5), (8, 12)], [(1, 0), (0.5, 0.5), (0, 1)],
                  [[(1, 0), (10, 7)], [(0, 1), (5, 5)], [(3, 1), (8, 12)]])  # fmt: skip
    b = _flow_run(tmp_path / "b", "B", [(12, 7), (9, 3), (8, 9)], [(1, 0), (1, 0), (0, 1)],
                  [[(1, 0), (12, 7)], [(0, 1), (9, 3)], [(1, 3), (8, 9)]])  # fmt: skip
    scan = [pl.scan_parquet(run / "results.parquet") for run in (a, b)]
    out = flow_rows(a, b, *scan, confidence=0.95)
    rows = {r["name"]: r for r in out["flow"]}
    assert rows["margin"]["from"] == pytest.approx(7 / 3) and rows["margin"]["to"] == pytest.approx(4.0)
    assert rows["margin"]["difference"] == pytest.approx(5 / 3) and rows["margin"]["unit"] == "points"
    assert rows["length"]["identical"] and rows["length"]["difference"] == 0.0
    assert rows["leader wins"]["difference"] == pytest.approx(1 / 6)
    assert rows["lead changes"]["difference"] == pytest.approx(0.0)
    curve = {r["checkpoint"]: r["difference"] for r in out["leader_wins_curve"]}
    assert curve == {0: pytest.approx(1 / 6), 1: pytest.approx(1 / 6)}
    # without B's trajectories, only what the results alone say
    (b / "trajectories.parquet").unlink()
    out = flow_rows(a, b, *scan, confidence=0.95)
    assert [r["name"] for r in out["flow"]] == ["margin", "length"] and out["leader_wins_curve"] == []


def test_a_comparison_shows_how_the_game_feels(tmp_path):
    """Issue 49: ``compare`` of two Citywright variants holds the margin's paired difference in its
    Holm family, and the page shows it in its own section and panel."""
    no_bonus = V11.parent / "v1.1-no-bonus.yaml"
    out = tmp_path / "cmp"
    r = play_comparison(V11, no_bonus, players=3, agents=["greedy"], games=30, seed=9, jobs=1, out_dir=out,
                        progress=False)  # fmt: skip
    margin = next(row for row in r["flow"] if row["name"] == "margin")
    a = pl.read_parquet(out / r["run_a"] / "results.parquet")
    by_hand = (
        a.group_by("game_index")
        .agg(pl.col("score").sort(descending=True).head(2))
        .with_columns((pl.col("score").list.get(0) - pl.col("score").list.get(1)).alias("m"))
    )  # each game's best minus second best score, computed apart from balancer.stats.flow
    assert margin["from"] == pytest.approx(by_hand["m"].mean()) and margin["n"] == 30
    assert margin["p_adjusted"] is not None or margin["identical"]  # in the family unless identical
    html = render_comparison(out, tmp_path / "page.html").read_text(encoding="utf-8")
    assert '<section id="flow">' in html and "margin (points)" in html
    assert "How the game feels (difference in points)" in html or margin["identical"]


def test_the_leader_wins_curves_of_a_and_b_are_drawn_with_their_paired_difference(tmp_path):
    """Issue 49: with trajectories in both runs, compare's flow section draws A's and B's leader-wins curves
    (from each run's summary.json flow.trajectory) and the per-checkpoint paired differences; without them,
    no figure. A difference of two shares lies in [-1, 1]: the curve's t interval over the three made-up
    games (differences 0, -0.5, 1 at checkpoint 0: mean 1/6, t(2) interval about -1.7 to +2.1) is cut there."""
    from balancer.compare import flow_rows
    from balancer.report.compare import leader_chart
    from balancer.stats.flow import flow_measures

    a = _flow_run(tmp_path / "a", "A", [(10, 7), (5, 5), (8, 12)], [(1, 0), (0.5, 0.5), (0, 1)],
                  [[(1, 0), (10, 7)], [(0, 1), (5, 5)], [(3, 1), (8, 12)]])  # fmt: skip
    b = _flow_run(tmp_path / "b", "B", [(12, 7), (9, 3), (8, 9)], [(1, 0), (1, 0), (0, 1)],
                  [[(1, 0), (12, 7)], [(0, 1), (9, 3)], [(1, 3), (8, 9)]])  # fmt: skip
    scan = {side: pl.scan_parquet(run / "results.parquet") for side, run in (("a", a), ("b", b))}
    comparison = {"n_players": 2, **flow_rows(a, b, scan["a"], scan["b"], confidence=0.95)}
    first = comparison["leader_wins_curve"][0]
    assert (first["ci_low"], first["ci_high"]) == (-1.0, 1.0)
    summaries = {
        side: {"flow": flow_measures(scan[side], pl.scan_parquet(run / "trajectories.parquet")).to_dict()}
        for side, run in (("a", a), ("b", b))
    }
    chart = leader_chart(comparison, summaries, "A", "B")
    assert chart is not None and "<svg" in chart and "B - A, 95% paired interval" in chart
    assert "the end of each round" in chart  # a game that names no checkpoint: rounds
    comparison["checkpoint"] = "turn of the table"  # comparison.json's, from the game's spec (Citywright's)
    assert "the end of each turn of the table" in leader_chart(comparison, summaries, "A", "B")
    summaries["b"] = {"flow": flow_measures(scan["b"], None).to_dict()}  # B kept no trajectories
    assert leader_chart(comparison, summaries, "A", "B") is None


def test_the_flow_section_names_the_checkpoint_and_a_run_without_trajectories(tmp_path):
    """Tried as a new user would (issue 49): a Citywright page's caption said 'at the end of each round'
    under an axis of turns of the table; with one run's trajectories.parquet missing (a --no-flow run
    reused) the trajectory rows vanished without a word; the lead changes' panel read 'difference in
    per game'. The three made-up games of test_flow_rows_pair_each_game_s_margin_and_trajectory."""
    from balancer.compare import flow_rows
    from balancer.report.compare import render_comparison_html
    from balancer.stats.flow import flow_measures

    a = _flow_run(tmp_path / "a", "A", [(10, 7), (5, 5), (8, 12)], [(1, 0), (0.5, 0.5), (0, 1)],
                  [[(1, 0), (10, 7)], [(0, 1), (5, 5)], [(3, 1), (8, 12)]])  # fmt: skip
    b = _flow_run(tmp_path / "b", "B", [(12, 7), (9, 3), (8, 9)], [(1, 0), (1, 0), (0, 1)],
                  [[(1, 0), (12, 7)], [(0, 1), (9, 3)], [(1, 3), (8, 9)]])  # fmt: skip
    scan = {side: pl.scan_parquet(run / "results.parquet") for side, run in (("a", a), ("b", b))}
    summaries = {
        side: {"flow": flow_measures(scan[side], pl.scan_parquet(run / "trajectories.parquet")).to_dict()}
        for side, run in (("a", a), ("b", b))
    }
    base = {"n_players": 2, "games": 3, "variant_a": "v1.0", "variant_b": "v1.1", "run_a": "a-v1.0", "run_b": "b-v1.1",
            "checkpoint": "turn of the table"}  # fmt: skip
    both = {**base, **flow_rows(a, b, scan["a"], scan["b"], confidence=0.95)}
    assert both["flow_trajectories"] == {"a": True, "b": True}
    html = render_comparison_html(both, summaries)
    assert "seat leading at the end of each turn of the table, v1.0 (A, grey)" in html and "each round" not in html
    # A grey and B blue, as in the seat win rates above it (the curves were blue and orange there)
    chart = html.split('<section id="flow">')[1].split("</figure>")[0]
    assert "#999999" in chart and "#0072b2" in chart.lower() and "#e69f00" not in chart.lower()
    assert "How the game feels (difference in lead changes per game)" in html
    assert 'id="flow-no-trajectories"' not in html
    (a / "trajectories.parquet").unlink()  # A kept none
    one = {**base, **flow_rows(a, b, scan["a"], scan["b"], confidence=0.95)}
    assert one["flow_trajectories"] == {"a": False, "b": True}
    html = render_comparison_html(one, summaries)
    assert 'id="flow-no-trajectories"' in html and "A (v1.0, folder a-v1.0) kept no trajectories" in html
    assert "lead changes (per game)" not in html  # only margin and length rows


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda p: p.write_bytes(b"not parquet"), "cannot be read as Parquet"),
        (lambda p: pl.read_parquet(p).slice(1).write_parquet(p), "not every seat at every checkpoint"),
        (lambda p: (p.unlink(), p.mkdir()), "not a regular file"),
    ],
)
def test_a_broken_trajectories_file_of_a_reused_run_is_named_in_one_line(tmp_path, damage, says):
    """Tried as a new user would (issue 49): compare reuses finished runs, and read their
    trajectories.parquet unchecked: a cut file gave polars' traceback (exit 1), a broken contract a line
    naming no file, a directory was taken for no trajectories. Now one line naming the file (exit 2)."""
    from balancer.compare import flow_rows
    from balancer.sim.results import ResultsFileError

    a = _flow_run(tmp_path / "a", "A", [(10, 7), (5, 5), (8, 12)], [(1, 0), (0.5, 0.5), (0, 1)],
                  [[(1, 0), (10, 7)], [(0, 1), (5, 5)], [(3, 1), (8, 12)]])  # fmt: skip
    b = _flow_run(tmp_path / "b", "B", [(12, 7), (9, 3), (8, 9)], [(1, 0), (1, 0), (0, 1)],
                  [[(1, 0), (12, 7)], [(0, 1), (9, 3)], [(1, 3), (8, 9)]])  # fmt: skip
    path = b / "trajectories.parquet"
    damage(path)
    scan = [pl.scan_parquet(run / "results.parquet") for run in (a, b)]
    with pytest.raises(ResultsFileError) as err:
        flow_rows(a, b, *scan, confidence=0.95)
    text = str(err.value)
    assert text.startswith(f"{path}: ") and says in text and "\n" not in text


def test_the_compare_caption_says_which_checkpoints_few_games_reach(tmp_path):
    """The leader-wins figure of compare stops before the first checkpoint that fewer than 20 games of A or
    B reach (A: 40, 40, 30; B: 40, 40, 12 games: checkpoint 3, index 2) and its caption says so."""
    from balancer.report.compare import render_comparison_html

    def curve(games):
        return [{"checkpoint": k, "rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "games": g} for k, g in enumerate(games)]

    summaries = {side: {"flow": {"trajectory": {"leader_wins": curve(g)}}} for side, g in
                 (("a", [40, 40, 30]), ("b", [40, 40, 12]))}  # fmt: skip
    comparison = {
        "n_players": 2, "games": 40, "variant_a": "v1.0", "variant_b": "v1.1", "checkpoint": "round",
        "flow": [{"name": "margin", "kind": "flow", "unit": "points", "from": 1.0, "to": 1.0, "difference": 0.0,
                  "ci_low": 0.0, "ci_high": 0.0, "p_value": 1.0, "identical": True, "test": IDENTICAL}],
        "leader_wins_curve": [{"checkpoint": k, "difference": 0.0, "ci_low": -0.1, "ci_high": 0.1, "n": 40}
                              for k in range(3)],
    }  # fmt: skip
    html = " ".join(render_comparison_html(comparison, summaries).split())
    assert "Checkpoints that fewer than 20 games of A or B reach (3 and later) are not drawn" in html


def test_the_difference_chart_keeps_its_marks_off_the_frame_and_its_titles_off_the_ticks():
    """Issue 50 item 8 (built in 3e5579e, untested until now): a marker or whisker cap against the
    axis edge, a panel title touching the tick labels above, 'agents by seat' for a table whose seats
    rotate. Two made-up rows: the widest interval ends at +4 points; the x range runs 20% past it
    (-4.8 to +4.8), the title is padded 10 points (matplotlib's default 6) above its axes; the
    heading says the agents rotate."""
    from balancer.report.compare import build_context
    from balancer.report.figures.charts import difference_chart
    from balancer.report.publish import collecting

    rows = [
        {"name": "seat 1", "difference": 0.03, "ci_low": 0.02, "ci_high": 0.04, "significant": True},
        {"name": "seat 2", "difference": -0.03, "ci_low": -0.04, "ci_high": -0.02, "significant": True},
    ]
    with collecting() as found:
        difference_chart([("Seat win rates (difference in points)", rows, 100.0)])
    (ax,) = found[0][0].get_axes()
    low, high = ax.get_xlim()
    assert (low, high) == pytest.approx((-4.8, 4.8))  # 1.2 x the widest end, 4 points
    assert ax.titleOffsetTrans._t[1] * 72 == pytest.approx(10.0)  # the title's pad: 10 points above the frame
    heading = lambda agents: build_context({"game": "citywright", "agents": agents})["agents_heading"]  # noqa: E731
    assert heading(["greedy", "greedy"]) == "agents"
    assert heading(["greedy", "random"]) == "agents (rotated over seats)"


def test_the_fairness_sentence_of_solo_games_claims_no_spread():
    """A new user's `compare ... -p 1` printed a seat spread of 0.0 points and '100.0% -> 100.0%': one seat has
    no best and worst to be fairer about, so the sentence says so instead of 'cannot tell which is fairer'."""
    from balancer.report.compare import fairness_sentence

    solo = {"difference": 0.0, "ci_low": 0.0, "ci_high": 0.0, "spread_a": 0.0, "spread_b": 0.0,
            "rates_a": {"1": 1.0}, "rates_b": {"1": 1.0}, "best_a": 1, "worst_a": 1, "best_b": 1, "worst_b": 1}  # fmt: skip
    assert fairness_sentence(solo, "v1.1", "v1.0").startswith("Solo games: one seat, so no seat spread")
    two = {**solo, "rates_a": {"1": 0.6, "2": 0.4}, "rates_b": {"1": 0.5, "2": 0.5}, "spread_a": 0.2,
           "best_a": 1, "worst_a": 2, "difference": -0.2, "ci_low": -0.3, "ci_high": -0.1}  # fmt: skip
    assert fairness_sentence(two, "v1.1", "v1.0").startswith("Seat spread (best minus worst seat's win rate)")


def test_the_terminal_says_what_its_marks_mean():
    """compare's terminal marked rows with '*' and never said what it meant (a new user's finding): each mark
    used is explained once under the lines; no mark, no key."""
    from balancer.cli.compare import MARKS, difference_lines

    def row(name, significant=False, mechanical=False, difference=0.03):
        return {"name": name, "from": 0.5, "to": 0.5 + (difference or 0.0), "difference": difference,
                "significant": significant, "mechanical": mechanical}  # fmt: skip

    result = {"agent_win_rate": [row("greedy", difference=None)],
              "seat_win_rate": [row("seat 1", significant=True), row("seat 2", mechanical=True), row("seat 3")]}  # fmt: skip
    assert difference_lines(result) == [
        "seat 1: 50.0% -> 53.0% (+3.0 pp) *",
        "seat 2: 50.0% -> 53.0% (+3.0 pp) (rule)",
        "seat 3: 50.0% -> 53.0% (+3.0 pp)",
        MARKS["*"],
        MARKS["(rule)"],
    ]
    plain = {"agent_win_rate": [], "seat_win_rate": [row("seat 1")]}
    assert difference_lines(plain) == ["seat 1: 50.0% -> 53.0% (+3.0 pp)"]
