"""Metric specs (balancer/core/metrics.py): the declaration, its run.json form, the fallback for
runs that do not record it, and the one place the results format's naming convention is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.core.metrics import MetricSpec, MetricSpecs, ScoreCategory, convention_spec, spec_of
from balancer.core.registry import metric_specs_of
from balancer.games import GAMES, get_spec

SPECS = MetricSpecs(
    scores=(ScoreCategory("districts"), ScoreCategory("handicap", position_bonus=True)),
    metrics=(
        MetricSpec("length", "game", "count", "turns"),
        MetricSpec("bridges", "seat", "count", "bridges"),
        MetricSpec("took_bridge", "seat", "indicator"),
        MetricSpec("beat_the_automa", "seat", "indicator", solo_result=True),
    ),
)


def test_json_round_trip() -> None:
    assert MetricSpecs.from_json(SPECS.to_json()) == SPECS


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_round_trips_through_run_json(name: str) -> None:
    specs = get_spec(name).metrics
    assert specs is not None
    assert MetricSpecs.from_json(specs.to_json()) == specs


def test_lookups() -> None:
    assert SPECS.position_bonus == "handicap"
    assert SPECS.solo_result == "beat_the_automa"
    assert SPECS.indicators == ("took_bridge", "beat_the_automa")
    # the column, the plain name and the summary key find the same spec
    assert SPECS.metric("metric_bridges") is SPECS.metric("bridges") is SPECS.metric("bridges_per_player")
    assert SPECS.metric("undeclared") is None


def test_labels_and_rates_come_from_the_declaration() -> None:
    # a per-game metric not named game_<x> is still per game; an indicator is a rate whatever
    # its name; a count is not a rate even when every value is 0 or 1
    assert spec_of("length_per_player", SPECS).label == "length per game"
    assert spec_of("took_bridge", SPECS).is_rate
    assert not spec_of("bridges", SPECS, [0.0, 1.0, 1.0]).is_rate
    assert spec_of("bridges", SPECS).label == "bridges per player"


def test_convention_for_undeclared_metrics() -> None:
    # the naming convention of the results format (a game that declares nothing)
    assert convention_spec("game_turns_per_player") == MetricSpec("game_turns", "game", "count")
    assert convention_spec("metric_solo_win").kind == "indicator"
    assert convention_spec("bonus_taken", [0.0, 1.0]).kind == "indicator"
    assert convention_spec("captures", [0.0, 1.0, 2.0]).kind == "count"
    assert convention_spec("game_").per == "seat"  # nothing after the prefix: not a per-game name
    assert spec_of("game_turns", SPECS).label == "turns per game"  # not declared there: convention


def test_bad_declarations_are_refused() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        MetricSpec("x", kind="fraction")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="per must be one of"):
        MetricSpec("x", per="table")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="solo result is a 0/1 indicator"):
        MetricSpec("x", kind="count", solo_result=True)
    with pytest.raises(ValueError, match="declared twice"):
        MetricSpecs(metrics=(MetricSpec("x"), MetricSpec("x")))
    with pytest.raises(ValueError, match="at most one score category"):
        MetricSpecs(scores=(ScoreCategory("a", True), ScoreCategory("b", True)))
    with pytest.raises(ValueError, match="malformed"):
        MetricSpecs.from_json({"metrics": [{"kind": "count"}]})


def test_specs_of_a_run() -> None:
    recorded = {"game": "citywright", "metric_specs": SPECS.to_json()}
    assert metric_specs_of(recorded) == SPECS  # run.json's own record wins
    # an old run.json without the record: the registered game's declaration
    assert metric_specs_of({"game": "citywright"}) == get_spec("citywright").metrics
    # a game that is not registered, or no run.json at all: nothing declared
    assert metric_specs_of({"game": "toy"}) is None
    assert metric_specs_of(None) is None
    with pytest.raises(ValueError, match="must be an object"):
        metric_specs_of({"game": "citywright", "metric_specs": [1]})


def test_run_json_records_the_declaration_and_the_report_reads_it(tmp_path) -> None:
    import json

    import balancer
    from balancer.report import render_report

    root = Path(__file__).resolve().parents[2]
    res = balancer.run(root / "configs" / "citywright" / "v1.1.yaml", 2, "greedy", games=2, seed=1, out=tmp_path / "r")
    meta = json.loads((res.out_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["metric_specs"] == get_spec("citywright").metrics.to_json()
    # the report follows run.json's record, not the game's current one: declare wasted_tiles per
    # game, and the page says so (the other metrics as before)
    recorded = MetricSpecs.from_json(meta["metric_specs"])
    changed = [MetricSpec(m.name, "game", m.kind, m.unit) if m.name == "wasted_tiles" else m for m in recorded.metrics]
    meta["metric_specs"] = MetricSpecs(recorded.scores, tuple(changed)).to_json()
    (res.out_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    html = render_report(res.out_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "wasted tiles per game" in html and "wasted tiles per player" not in html
    assert "empty cells per player" in html
    # a malformed record is refused naming run.json and the key
    meta["metric_specs"] = {"metrics": [{"per": "seat"}]}
    (res.out_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match=r"run\.json: metric_specs: malformed"):
        render_report(res.out_dir, tmp_path / "r2.html")


def test_a_metric_named_in_a_designers_words() -> None:
    """Issue 50: Urban Sketchers' ``paid_players`` was labelled 'paid players per player' on figures and
    pages alike (the name's words, then 'per player'). A game may give a metric's words; every page and
    figure names it by :func:`balancer.report.render.metric_label`, which reads them."""
    from balancer.core.metrics import per_seat
    from balancer.report.render import metric_label

    paid, bank = per_seat("count", "money", "paid_players", "paid_bank", words={"paid_players": "money paid to others"})
    assert paid.label == "money paid to others" and bank.label == "paid bank per player"  # words only where given
    specs = MetricSpecs(metrics=(paid, bank))
    assert metric_label("paid_players_per_player", specs) == "money paid to others"  # the summary's key
    assert metric_label("metric_paid_players", specs) == "money paid to others"  # the results column
    # run.json keeps the words, and writes no 'words' key for a metric without them (run.json as before)
    assert MetricSpecs.from_json(specs.to_json()) == specs
    assert [sorted(m) for m in specs.to_json()["metrics"]] == [
        ["kind", "name", "per", "solo_result", "unit", "words"],
        ["kind", "name", "per", "solo_result", "unit"],
    ]
