"""Config loading: extends + merge, error messages naming file, key path and what is allowed."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

import balancer.games as games
from balancer.config import ConfigError, config_sha256, deep_merge, export_schema, load_config, resolve_yaml
from balancer.core.registry import GameSpec, known_agents_check
from balancer.games.citywright.config import CitywrightConfig

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "citywright"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Inner(_Strict):
    points: int = Field(ge=0)
    mode: Literal["fast", "slow"] = "fast"


class ToyConfig(_Strict):
    game: Literal["toy"]
    variant: str
    inner: Inner
    tags: list[str] = []


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """Register a toy game (only its config model is used here)."""
    toy = types.ModuleType("toy_config_game")
    unused = None  # the config layer reads nothing but the config model
    toy.SPEC = GameSpec(
        name="toy",
        display_name="Toy",
        config_model=ToyConfig,
        default_config="toy/none.yaml",
        agents=("a",),
        own_check_agent=known_agents_check(("a",)),
        own_play_game=unused,
        own_transcript=unused,
        own_make_agent=unused,
        new_game=unused,
        legal_moves=unused,
        apply=unused,
        is_over=unused,
        outcome=unused,
        is_legal_move=unused,
        source=Path(__file__),
        module="toy_config_game",
    )
    monkeypatch.setitem(sys.modules, "toy_config_game", toy)
    monkeypatch.setitem(games.GAMES, "toy", "toy_config_game")


def write(dir_: Path, name: str, text: str) -> Path:
    path = dir_ / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


BASE = "game: toy\nvariant: base\ninner: {points: 3, mode: slow}\ntags: [a, b]\n"


def test_deep_merge_child_wins_lists_replace():
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 1}
    assert deep_merge(base, {"a": {"y": [3]}, "c": 2}) == {"a": {"x": 1, "y": [3]}, "b": 1, "c": 2}
    assert base == {"a": {"x": 1, "y": [1, 2]}, "b": 1}


def test_extends_merges_recursively(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    write(tmp_path, "sub/mid.yaml", "extends: ../base.yaml\nvariant: mid\ntags: [c]\n")
    child = write(tmp_path, "sub/child.yaml", "extends: mid.yaml\ninner: {points: 9}\n")
    cfg = load_config(child)
    # child.yaml names no variant: it is variant "child" (its own file), not its parent's "mid"
    assert (cfg.variant, cfg.inner.points, cfg.inner.mode, cfg.tags) == ("child", 9, "slow", ["c"])
    assert "extends" not in resolve_yaml(child).data


def test_extends_cycle(tmp_path):
    write(tmp_path, "a.yaml", "extends: b.yaml\ngame: toy\n")
    write(tmp_path, "b.yaml", "extends: a.yaml\n")
    with pytest.raises(ConfigError, match="cycle") as err:
        load_config(tmp_path / "a.yaml")
    assert "a.yaml -> " in str(err.value) and "b.yaml" in str(err.value)


def test_extends_self_is_a_cycle(tmp_path):
    write(tmp_path, "a.yaml", "extends: a.yaml\ngame: toy\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_config(tmp_path / "a.yaml")


def test_missing_extends_file(tmp_path):
    path = write(tmp_path, "a.yaml", "extends: nowhere.yaml\ngame: toy\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert str(path) in text and "extends" in text and "nowhere.yaml" in text and "not found" in text


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.yaml")


def test_yaml_syntax_error_names_line(tmp_path):
    path = write(tmp_path, "bad.yaml", "game: toy\ninner: {points: 3\nvariant: x\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml:\d+:\d+: YAML syntax error"):
        load_config(path)


def test_duplicate_key_is_an_error(tmp_path):
    path = write(tmp_path, "dup.yaml", BASE + "variant: again\n")
    with pytest.raises(ConfigError, match=r"dup\.yaml:5:1: .*duplicate key 'variant'"):
        load_config(path)


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just a string\n"])
def test_not_a_mapping(tmp_path, text):
    with pytest.raises(ConfigError, match="mapping"):
        load_config(write(tmp_path, "x.yaml", text))


def test_missing_and_unknown_game(tmp_path):
    with pytest.raises(ConfigError, match="game: required key missing; allowed: .*citywright"):
        load_config(write(tmp_path, "a.yaml", "variant: x\n"))
    with pytest.raises(ConfigError, match="game: unknown game 'chess', allowed: .*toy"):
        load_config(write(tmp_path, "b.yaml", "game: chess\n"))


def test_unknown_key_names_file_path_and_allowed_keys(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", "extends: base.yaml\ninner: {point: 3}\n")
    with pytest.raises(ConfigError) as err:
        load_config(child)
    assert (
        str(err.value) == f"{child}: inner.point: unknown key 'point' (did you mean 'points'?), allowed: points, mode"
    )


def test_several_errors_several_lines(tmp_path):
    path = write(tmp_path, "x.yaml", "game: toy\nvariant: x\ninner: {points: many, mode: quick}\ncolour: red\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    lines = str(err.value).splitlines()
    assert len(lines) == 3 and all(line.startswith(f"{path}: ") for line in lines)
    text = str(err.value)
    assert "inner.points: " in text and "integer" in text and "'many'" in text
    assert "inner.mode: got 'quick', allowed values: 'fast' or 'slow'" in text
    assert "colour: unknown key 'colour', allowed: game, variant, inner, tags" in text


def test_error_names_the_file_that_set_the_key(tmp_path):
    base = write(tmp_path, "base.yaml", "game: toy\nvariant: base\ninner: {points: -1}\n")
    child = write(tmp_path, "child.yaml", "extends: base.yaml\nvariant: child\n")
    with pytest.raises(ConfigError, match=rf"^{base}: inner.points: .*greater than or equal to 0"):
        load_config(child)


def test_citywright_wrong_type_and_literal(tmp_path):
    path = write(
        tmp_path,
        "v.yaml",
        f"extends: {CONFIGS / 'v1.1.yaml'}\nscoring: {{residential: {{largest_points: five}}}}\nsite: {{size: 5}}\n",
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert f"{path}: scoring.residential.largest_points: " in text and "expected int" in text
    assert f"{path}: site.size: got 5, allowed values: 4" in text


@pytest.mark.parametrize(
    "body, expected",
    [
        (
            "rounds: nope",
            "rounds: input should be a valid dictionary, got 'nope' (expected a mapping from '1', '2', '3' or '4' to a mapping)",
        ),
        ("seat_bonus: {'4': 3}", "seat_bonus.4: input should be a valid list, got 3 (expected a list of int)"),
        (
            "agents: {specialists: {park: [1, 2]}}",
            "agents.specialists.park: input should be a valid dictionary, got a list (expected a mapping from text to a number)",
        ),
        ("scoring: {park: 5}", "scoring.park: input should be a valid dictionary, got 5 (expected a mapping)"),
    ],
)
def test_a_wrong_type_is_named_in_words_not_as_a_python_type(tmp_path, body, expected):
    # pydantic's own words would be "dict[Literal['1', ...], balancer...RoundPlan]", "Annotated[int,
    # FieldInfo(...)]" and "instance of Park": a designer editing YAML reads none of those
    path = write(tmp_path, "v.yaml", f"extends: {CONFIGS / 'v1.1.yaml'}\n{body}\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert f"{path}: {expected}" in text, text
    for leak in ("Annotated", "FieldInfo", "Literal", "balancer.", "instance of", "dict[", "list["):
        assert leak not in text


def test_citywright_unknown_key_lists_fields(tmp_path):
    path = write(
        tmp_path, "v.yaml", f"extends: {CONFIGS / 'v1.1.yaml'}\nscoring: {{residential: {{largest_point: 3}}}}\n"
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == (
        f"{path}: scoring.residential.largest_point: unknown key 'largest_point' (did you mean 'largest_points'?), "
        "allowed: largest_points, largest_per_tiles, second_points_per_tile"
    )


def test_v10_resolves_from_v11():
    v10 = load_config(CONFIGS / "v1.0.yaml")
    v11 = load_config(CONFIGS / "v1.1.yaml")
    assert v10.variant == "v1.0" and v11.variant == "v1.1"
    assert v10.scoring.residential.largest_points == 2
    assert v10.rounds["2"].rounds == 4 and v10.rounds["2"].turns == 4
    assert v10.scoring.commercial == v11.scoring.commercial
    assert v10.player_counts == [2, 3, 4]  # appendix: solo mode (§10) is new in v1.1
    assert v11.player_counts == [1, 2, 3, 4]


def test_config_sha256_tells_variants_apart(tmp_path):
    a = config_sha256(CONFIGS / "v1.0.yaml")
    assert a != config_sha256(CONFIGS / "v1.1.yaml") and len(a) == 64
    copy = write(tmp_path, "same.yaml", "# a comment\n" + (CONFIGS / "v1.1.yaml").read_text())
    assert config_sha256(copy) == config_sha256(CONFIGS / "v1.1.yaml")


def test_export_schema():
    schema = export_schema("citywright")
    assert schema["additionalProperties"] is False and "scoring" in schema["properties"]


# --------------------------------------------------------------------------------------------------
# strict validation, typo suggestions, validator key paths, assumed notes


def test_quoted_number_is_not_an_integer(tmp_path):
    path = write(tmp_path, "v.yaml", f'extends: {CONFIGS / "v1.1.yaml"}\nrounds: {{"2": {{turns: "4"}}}}\n')
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == (
        f"{path}: rounds.2.turns: expected an integer, got the string '4'; write the value without quotes"
    )


@pytest.mark.parametrize(
    "text, key",
    [
        ("table: {size: 7.0}\n", "table.size"),  # a float is not an integer
        ('solo: {rival_apprentice: "true"}\n', "solo.rival_apprentice"),
        ("variant: 11\n", "variant"),  # a number is not a string
    ],
)
def test_no_coercion_between_types(tmp_path, text, key):
    path = write(tmp_path, "v.yaml", f"extends: {CONFIGS / 'v1.1.yaml'}\n{text}")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    lines = str(err.value).splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}: {key}: ")


def test_an_integer_is_accepted_where_a_float_is_expected(tmp_path):
    path = write(
        tmp_path, "v.yaml", f"extends: {CONFIGS / 'v1.1.yaml'}\nagents: {{specialists: {{park: {{park: 4}}}}}}\n"
    )
    assert load_config(path).agents.specialists.park["park"] == 4.0


def test_typo_of_a_missing_key_is_one_message(tmp_path):
    text = (CONFIGS / "v1.1.yaml").read_text().replace("\ntable:", "\ntabel:")
    path = write(tmp_path, "v.yaml", text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    allowed = ", ".join(CitywrightConfig.model_fields)
    assert str(err.value) == f"{path}: tabel: unknown key 'tabel' (did you mean 'table'?), allowed: {allowed}"


def test_typo_nested_and_unrelated_unknown_key_keeps_missing(tmp_path):
    path = write(tmp_path, "x.yaml", "game: toy\nvariant: x\ninner: {pionts: 3}\ncolour: red\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    lines = str(err.value).splitlines()
    assert f"{path}: inner.pionts: unknown key 'pionts' (did you mean 'points'?), allowed: points, mode" in lines
    assert f"{path}: colour: unknown key 'colour', allowed: game, variant, inner, tags" in lines
    assert len(lines) == 2  # no "inner.points: required key missing"


def test_model_validator_message_gets_its_key_path(tmp_path):
    path = write(tmp_path, "v.yaml", f'extends: {CONFIGS / "v1.1.yaml"}\nseat_bonus: {{"4": [2, 2, 1]}}\n')
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == f"{path}: seat_bonus.4: needs 4 values, one per seat, got 3"


def test_nested_model_validator_message_gets_the_full_path(tmp_path):
    path = write(
        tmp_path, "v.yaml", f"extends: {CONFIGS / 'v1.1.yaml'}\nagents: {{specialists: {{park: {{park: -1}}}}}}\n"
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == f"{path}: agents.specialists.park: weights must be 0 or more"


def test_model_validator_message_without_a_path_stays_top_level(tmp_path):
    text = (CONFIGS / "v1.1.yaml").read_text()
    assert '\n  "3": [2, 2, 0]' in text
    path = write(tmp_path, "v.yaml", text.replace('\n  "3": [2, 2, 0]', ""))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == f'{path}: seat_bonus: no entry "3", but players lists 3'


def test_parse_key_path_inverts_format():
    from balancer.config import format_key_path, parse_key_path

    for loc in [("scoring", "tiers", 1, "points"), ("seat_bonus", "4"), ("a",)]:
        assert parse_key_path(format_key_path(loc)) == loc


def test_assumed_notes_have_dotted_paths():
    from balancer.config import assumed_notes

    data = {
        "game": "x",
        "assumed": "top",
        "rounds": {"3": {"rounds": 4, "assumed": "missing table"}},
        "tiers": [{"assumed": "guess"}],
        "other": {"assumed": None},
    }
    assert assumed_notes(data) == ["top", "rounds.3: missing table", "tiers[0]: guess"]
    cards = {"cards": [{"name": "A", "assumed": True, "why": "invented"}, {"name": "B", "assumed": False}]}
    assert assumed_notes(cards) == ["cards[0]: invented"]
    notes = assumed_notes(resolve_yaml(CONFIGS / "v1.1.yaml").data)
    assert any(n.startswith("rounds.4: the rulebook's round table") for n in notes)


def test_a_variant_without_its_own_name_is_named_after_its_file(tmp_path):
    # x8.yaml extends v1.1 and changes a rule but sets no variant: it must not pass for "v1.1"
    # (a compare of the two would read "v1.1 -> v1.1"); a file that names itself keeps its name
    v11 = Path(__file__).resolve().parents[1] / "configs" / "citywright" / "v1.1.yaml"
    (tmp_path / "x8.yaml").write_text(f'extends: {v11}\nseat_bonus:\n  "2": [0, 2]\n')
    assert load_config(tmp_path / "x8.yaml").variant == "x8"
    (tmp_path / "named.yaml").write_text(f"extends: {v11}\nvariant: mine\n")
    assert load_config(tmp_path / "named.yaml").variant == "mine"
    assert load_config(v11).variant == "v1.1"
