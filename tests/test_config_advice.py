"""Config messages that say what to do (issue 50, item 6): an unquoted number as a mapping key, ``extend:``
for ``extends:``, a dotted key, and a file with three problems reporting all three."""

from __future__ import annotations

import pytest

from balancer.config import ConfigError, load_config


def _lines(tmp_path, text: str) -> list[str]:
    path = tmp_path / "variant.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    return str(err.value).splitlines()


def test_an_unquoted_number_key_says_to_quote_it(tmp_path):
    # seat_bonus's keys are the player counts as text ('1'..'4'); YAML reads an unquoted 4 as a number
    lines = _lines(tmp_path, "extends: citywright/v1.1\nseat_bonus: {4: [0, 1, 2, 3]}\n")
    assert lines == [f'{tmp_path / "variant.yaml"}: seat_bonus: key 4 is a number; write "4" (in quotes): "4": ...']


def test_extend_is_read_as_a_misspelt_extends(tmp_path):
    # without the hint, the file had no game: (it never reached its parent): "game: required key missing"
    lines = _lines(tmp_path, "extend: citywright/v1.1\nseat_bonus: {'4': [0, 1, 2, 3]}\n")
    assert lines == [f"{tmp_path / 'variant.yaml'}: extend: unknown key 'extend' (did you mean 'extends'?)"]


def test_a_dotted_key_says_how_to_nest_it(tmp_path):
    lines = _lines(tmp_path, "extends: citywright/v1.1\nscoring.residential.largest_points: 7\n")
    assert lines == [
        f"{tmp_path / 'variant.yaml'}: scoring.residential.largest_points: unknown key "
        "'scoring.residential.largest_points': a key path is written nested: scoring: {residential: "
        "{largest_points: 7}}"
    ]


def test_a_file_with_three_problems_reports_all_three(tmp_path):
    # 1. seat_bonus.4 has three values for four seats (a rule check of the whole config, which pydantic
    # runs only once every other key is valid); 2. a dotted key; 3. an unknown key of table. The dotted
    # key used to be read as a typo of 'scoring' and replace it (scoring: 3), so the rule check never ran.
    path = tmp_path / "variant.yaml"
    lines = _lines(
        tmp_path, "extends: citywright/v1.1\nseat_bonus: {'4': [0, 1, 2]}\nscoring.x: 3\ntable: {colour: 3}\n"
    )
    assert len(lines) == 3, lines
    assert any(line.startswith(f"{path}: seat_bonus.4: ") for line in lines), lines
    assert any(
        line.startswith(f"{path}: scoring.x: unknown key 'scoring.x': a key path is written nested") for line in lines
    )
    assert any(line.startswith(f"{path}: table.colour: unknown key 'colour'") for line in lines)


def test_extends_of_a_misspelt_shipped_name_suggests_the_closest(tmp_path):
    # `show citywright/v11` suggested citywright/v1.1; `extends: citywright/v1.11` said only "file not found"
    (line,) = _lines(tmp_path, "extends: citywright/v1.11\nvariant: mine\n")
    assert line.startswith(f"{tmp_path / 'variant.yaml'}: extends: file not found: ")
    assert "closest: citywright/v1.1" in line and "`balancer games` lists citywright's files" in line
