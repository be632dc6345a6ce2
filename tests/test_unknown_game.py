"""A game's name typed the way the docs spell its page (``urban-sketchers``), in another case or with
a typo: the message suggests the registered name, in ``init`` and ``validate --schema`` alike."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.core.registry import get_spec, unknown_game

runner = CliRunner()

KNOWN = "known games: agueda, citywright, urban_sketchers, urgency"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("urban-sketchers", "urban_sketchers"), ("Citywright", "citywright"), ("cityrwight", "citywright")],
)
def test_a_near_name_is_suggested(typed, meant):
    assert unknown_game(typed) == f"unknown game {typed!r} (did you mean {meant!r}?); {KNOWN}"
    with pytest.raises(KeyError, match="did you mean"):
        get_spec(typed)


def test_a_far_name_gets_the_list_only():
    assert unknown_game("chess") == f"unknown game 'chess'; {KNOWN}"


@pytest.mark.parametrize("command", [["init", "urban-sketchers"], ["validate", "--schema", "urban-sketchers"]])
def test_commands_suggest_the_registered_name(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, [*command, *(["x"] if command[0] == "init" else [])])
    assert res.exit_code == 2
    assert f"error: unknown game 'urban-sketchers' (did you mean 'urban_sketchers'?); {KNOWN}" in res.output
    assert list(tmp_path.iterdir()) == []  # nothing written
