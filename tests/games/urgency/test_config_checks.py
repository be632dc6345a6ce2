"""Bad Urgency input refused up front: decks a variant lacks, an empty deck list, impossible roll
triggers, and the no-cards variant's assumptions (no card texts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from balancer.cli import app
from balancer.config import assumed_notes, load_config, resolve_yaml
from balancer.games import get_spec, urgency
from balancer.sim.runner import RunRequestError, check_run

ROOT = Path(__file__).resolve().parents[3]
STANDARD = ROOT / "configs" / "urgency" / "standard.yaml"
NO_CARDS = ROOT / "configs" / "urgency" / "no-cards.yaml"
UrgencyConfig = get_spec("urgency").config_model  # the game's model with the generic agents' keys (agents.mcts)


def _two_decks(tmp_path: Path) -> Path:
    cfg = tmp_path / "two-decks.yaml"
    cfg.write_text(f"extends: {STANDARD}\nvariant: two-decks\ncards: {{animal_decks: [ibex, bull]}}\n")
    return cfg


def _data(**cards) -> dict:
    data = resolve_yaml(STANDARD).data
    data["cards"] = {**data["cards"], **cards}
    return data


def test_a_deck_the_variant_does_not_use_is_refused_before_any_game(tmp_path):
    cfg = load_config(_two_decks(tmp_path))
    assert urgency.check_agent("greedy+ibex", cfg) is None
    assert "not one of variant 'two-decks'" in urgency.check_agent("greedy+lion", cfg)
    with pytest.raises(RunRequestError, match="lion"):
        check_run(urgency, cfg, ["greedy+lion", "greedy"], 10, 1)


@pytest.mark.parametrize("command", [["run", "--games", "2"], ["play"]])
def test_cli_refuses_a_missing_deck_with_exit_2(tmp_path, command):
    cfg = _two_decks(tmp_path)
    out = tmp_path / "out"
    extra = ["--out", str(out)] if command[0] == "run" else []
    result = CliRunner().invoke(app, [command[0], str(cfg), "--agents", "greedy+lion,greedy", *command[1:], *extra])
    assert result.exit_code == 2, result.output
    assert "lion" in result.output + (result.stderr or "") and not out.exists()


def test_a_deck_on_a_variant_without_cards_is_refused():
    plain = load_config(NO_CARDS)
    msg = urgency.check_agent("greedy+ibex", plain)
    assert "without rule cards" in msg and "+ibex" in msg
    assert urgency.check_agent("greedy", plain) is None
    with pytest.raises(ValueError, match="without rule cards"):
        urgency.make_agent(plain, "random+bull")


@pytest.mark.parametrize(
    "decks,match",
    [([], "at least 1"), (["rosette"], "Rosette deck is shared"), (["ibex", "rosette"], "Rosette deck is shared")],
)
def test_animal_decks_needs_a_real_animal_deck(decks, match):
    with pytest.raises(ValidationError, match=match):
        UrgencyConfig.model_validate(_data(animal_decks=decks))
    with pytest.raises(ValidationError, match=match):  # also in a variant without cards
        UrgencyConfig.model_validate(_data(animal_decks=decks, enabled=False))


def test_a_roll_trigger_no_roll_can_meet_is_refused_with_its_key_path():
    data = resolve_yaml(STANDARD).data
    data["decks"]["ibex"]["cards"][2]["trigger"] = {"when": "own_roll", "value": 7}
    with pytest.raises(ValidationError, match=r"decks\.ibex\.cards\.2\.trigger\.value: own_roll 7 can never happen"):
        UrgencyConfig.model_validate(data)
    # 4 is the highest roll of the standard dice (4 binary dice): still accepted
    data["decks"]["ibex"]["cards"][2]["trigger"] = {"when": "opponent_roll", "value": 4}
    UrgencyConfig.model_validate(data)
    # 2 dice, the Tortoise's deck rule off and its dice card naming 2: no roll exceeds 2, so 3 is refused
    data["dice"] = 2
    data["decks"]["tortoise"]["dice_while_in_play"] = None
    for c in data["decks"]["tortoise"]["cards"]:
        if c["effect"]["do"] == "dice":
            c["effect"]["value"] = 2
    # the published Ibex card (the opponent's 4) then names a roll nobody can make
    with pytest.raises(ValidationError, match=r"decks\.ibex\.cards\.0\.trigger\.value: opponent_roll 4 .* exceeds 2"):
        UrgencyConfig.model_validate(data)
    data["dice"] = 4
    assert UrgencyConfig.model_validate(data).max_roll == 4


def test_the_no_cards_variant_carries_no_card_assumptions():
    notes = assumed_notes(resolve_yaml(NO_CARDS).data)
    assert notes and not any(n.startswith(("decks.", "cards")) for n in notes)
    assert any(n.startswith("decks.") for n in assumed_notes(resolve_yaml(STANDARD).data))
    plain = load_config(NO_CARDS)
    assert plain.decks == {} and not plain.cards.enabled
    assert urgency.play_game(plain, ["greedy", "random"], 3).labels == {"deck": ["none", "none"]}


def test_the_agent_note_names_every_deck_and_each_is_a_valid_suffix():
    std = load_config(STANDARD)
    for deck in ("ibex", "bull", "lion", "tortoise", "eagle", "lizard"):
        assert deck in urgency.AGENT_NOTE
        assert urgency.check_agent(f"expectimax1+{deck}", std) is None
    assert "rosette" not in urgency.AGENT_NOTE and "+<deck>" in urgency.AGENT_NOTE


def test_an_unknown_animal_deck_is_blamed_on_the_variant_that_names_it(tmp_path):
    # the typo is in the variant's cards.animal_decks, not in decks.yaml where the decks are defined
    bad = tmp_path / "dragon.yaml"
    bad.write_text(f"extends: {STANDARD}\nvariant: dragon\ncards: {{animal_decks: [dragon, bull]}}\n")
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {bad}: cards.animal_decks: no deck 'dragon'; decks are bull, eagle, "
        "ibex, lion, lizard, rosette, tortoise"
    )


def test_random_decks_need_two_animal_decks():
    """default_deck: random deals the seats different decks, so one animal deck cannot serve it."""
    with pytest.raises(ValidationError, match="cards.animal_decks needs at least 2 decks"):
        UrgencyConfig.model_validate(_data(animal_decks=["bull"]))
    data = _data(animal_decks=["bull"])
    data["default_deck"] = "bull"  # naming the deck is a mirror-deck table, allowed
    assert UrgencyConfig.model_validate(data).default_deck == "bull"


def test_run_and_its_report_say_that_a_table_uses_one_deck_twice(tmp_path):
    """`run` prints the mirror-deck note, run.json keeps it and the report shows it; a dealt table has none."""
    out = tmp_path / "bulls"
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "run",
            str(STANDARD),
            "--agents",
            "greedy+bull,greedy+bull",
            "--games",
            "4",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "note: both seats play the Bull deck" in result.stderr and "one deck twice" in result.stderr
    assert "printed game cannot" in json.loads((out / "run.json").read_text())["table_note"]
    page = tmp_path / "bulls.html"
    assert runner.invoke(app, ["report", str(out), "-o", str(page)]).exit_code == 0
    html = page.read_text()
    assert "Both seats play the Bull deck" in html and "one deck twice" in html
    dealt = tmp_path / "dealt"
    result = runner.invoke(app, ["run", str(STANDARD), "--games", "4", "--jobs", "1", "--quiet", "--out", str(dealt)])
    assert result.exit_code == 0 and "one deck twice" not in result.stderr
    assert "table_note" not in json.loads((dealt / "run.json").read_text())


@pytest.mark.parametrize(
    "key,value,match",
    [
        (("roll", "pip_chance"), 0.0, "greater than 0"),
        (("roll", "pip_chance"), 1.0, "less than 1"),
        (("board", "tile_15"), "path_tile", "scoring_space"),
        (("cards", "change_roll_range"), "four", "dice_in_play"),
    ],
)
def test_the_assumed_readings_refuse_other_values(key, value, match):
    """roll.pip_chance is a chance strictly between 0 and 1; board.tile_15 and cards.change_roll_range
    name the one reading the engine implements."""
    data = resolve_yaml(STANDARD).data
    data[key[0]][key[1]] = value
    with pytest.raises(ValidationError, match=match):
        UrgencyConfig.model_validate(data)
