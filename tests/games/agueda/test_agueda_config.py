"""Águeda config validation: a wrong value names its key and what is allowed (exit 2 at the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.config import ConfigError, load_config

V1 = Path(__file__).resolve().parents[3] / "configs" / "agueda" / "v1.yaml"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "variant.yaml"
    path.write_text(f"extends: {V1}\nvariant: test\n{body}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "body,needle",
    [
        ("board: {row_length: 5}\n", "paintbrush[0]"),
        ("mural: {rows: [[red, orange], [yellow, green], [blue, pink]]}\n", "unknown colours ['pink']"),
        ('shops: {fixed: ["Shop 03", "No Such Shop"]}\n', "unknown shop cards ['No Such Shop']"),
        ("solo: {difficulty: nightmare}\n", "'nightmare' is not on the end card"),
        ("market: {lines: [{cells: [[1, 1], [1, 2], [1, 3], [2, 1]]}]}\n", "no entry for it"),
        ("players: [2, 6]\n", "players"),
        # start money the bank cannot give: 2 coins each for up to 5 players need 10
        (
            "coins: {bank: 1, start: 2}\n",
            "coins.start: 5 player(s) taking 2 coins each need 10, more than the bank's 1",
        ),
        ("coins: {bank: 9}\n", "coins.start"),
        ("players: [1, 2]\ncoins: {bank: 3}\n", "coins.start: 2 player(s) taking 2 coins each need 4"),
    ],
)
def test_bad_values_name_the_key(tmp_path, body, needle):
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, body))
    # the message names the file that set the key (the variant, or v1.yaml for an inherited key)
    assert needle in str(err.value) and ("variant.yaml" in str(err.value) or "v1.yaml" in str(err.value))


def test_a_bank_that_covers_every_start_is_accepted(tmp_path):
    assert load_config(write(tmp_path, "coins: {bank: 10}\n")).coins.bank == 10  # 5 players x 2 = 10


def test_the_empty_bank_is_an_assumed_value():
    from balancer.config import assumed_notes, resolve_yaml

    notes = [n for n in assumed_notes(resolve_yaml(V1).data) if n.startswith("coins:")]
    assert len(notes) == 1 and "bank cannot pay" in notes[0]


def test_cli_exits_2_on_a_bad_config(tmp_path):
    res = CliRunner().invoke(app, ["play", str(write(tmp_path, "solo: {difficulty: nightmare}\n")), "--players", "2"])
    assert res.exit_code == 2 and "nightmare" in res.output


def test_the_study_files_are_valid():
    from balancer.study.model import load_study

    for name in ("seats.yaml", "solo.yaml", "row-length.yaml"):
        study, configs = load_study(V1.parent / name)
        assert study.game == "agueda" and configs
