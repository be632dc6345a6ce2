"""Every integer a compiled engine takes fits its type: each integer field of every registered game's
config model (nested models, list items, mapping keys and values included) has a lower and an upper
bound, and a value past a bound is refused by ``balancer validate`` naming the file and key."""

from __future__ import annotations

import collections.abc
import types
import typing
from pathlib import Path

import pytest
import yaml
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from typer.testing import CliRunner

from balancer.cli import app
from balancer.core.config import MAX_RULE_INT
from balancer.core.registry import GAMES, get_spec

ROOT = Path(__file__).resolve().parent.parent
INT64_MAX = 2**63 - 1


def _bounds(metadata: list) -> tuple[int | None, int | None]:
    """(lowest, highest) allowed value from pydantic constraint metadata (FieldInfo unwrapped)."""
    low = high = None
    for m in metadata:
        if isinstance(m, FieldInfo):
            lo, hi = _bounds(list(m.metadata))
            low, high = lo if lo is not None else low, hi if hi is not None else high
        elif isinstance(m, Ge):
            low = m.ge
        elif isinstance(m, Gt):
            low = m.gt + 1
        elif isinstance(m, Le):
            high = m.le
        elif isinstance(m, Lt):
            high = m.lt - 1
    return low, high


def integer_fields(annotation, metadata: list, path: str, seen: frozenset = frozenset()):
    """Yield ``(key path, low, high)`` for every integer reachable from ``annotation``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        yield from integer_fields(inner, [*metadata, *extra], path, seen)
    elif origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            if arg is not type(None):
                yield from integer_fields(arg, metadata, path, seen)
    elif origin in (list, tuple, set, frozenset, collections.abc.Sequence):
        for arg in typing.get_args(annotation):
            if arg is not Ellipsis:
                yield from integer_fields(arg, [], f"{path}[]", seen)
    elif origin in (dict, collections.abc.Mapping):
        key, value = typing.get_args(annotation)
        yield from integer_fields(key, [], f"{path}.<key>", seen)
        yield from integer_fields(value, [], f"{path}.<value>", seen)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return
        for name, info in annotation.model_fields.items():
            yield from integer_fields(
                info.annotation, list(info.metadata), f"{path}.{name}" if path else name, seen | {annotation}
            )
    elif annotation is int:
        yield (path, *_bounds(metadata))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_integer_field_of_the_config_model_is_bounded(game):
    fields = list(integer_fields(get_spec(game).config_model, [], ""))
    assert fields, "the walk found no integer field: it is not looking where the config keeps its numbers"
    unbounded = [
        f"{path} [{low}, {high}]"
        for path, low, high in fields
        if low is None or high is None or low < -INT64_MAX or high > INT64_MAX
    ]
    assert not unbounded, f"integer keys without both bounds: {unbounded}"
    # the generic bound keeps sums of a game's scores far inside int64 and Decimal(38, 9); agent
    # parameters (agents.*) are no scores: an MCTS budget goes to MAX_ITERATIONS iterations
    from balancer.agents.params import MAX_ITERATIONS

    for path, low, high in fields:
        limit = MAX_ITERATIONS if path.startswith("agents.") else 100 * MAX_RULE_INT
        assert max(abs(low), abs(high)) <= limit, f"{path} [{low}, {high}] exceeds {limit:,}"


def test_the_walk_sees_list_items_and_mapping_values():
    # a field added as list[int] or dict[str, int] must be caught, not skipped by the walk
    class Part(BaseModel):
        counts: dict[str, int]
        bonus: list[int]

    assert {p for p, lo, hi in integer_fields(Part, [], "") if lo is None} == {"counts.<value>", "bonus[]"}


@pytest.mark.parametrize(
    "key_path, value, message",
    [
        # the cases: a number past int64 (numba's TypingError once a game started) and one at
        # int64's edge (the summary's decimal sums overflowed after every game was played)
        (
            ("scoring", "residential", "largest_points"),
            99999999999999999999999,
            "scoring.residential.largest_points: input should be less than or equal to 1000",
        ),
        (
            ("seat_bonus", "4"),
            [0, 0, 0, 9223372036854775807],
            "seat_bonus.4[3]: input should be less than or equal to 1000",
        ),
        (
            ("rulers", "four_cell", "L", "copies"),
            -1,
            "rulers.four_cell.L.copies: input should be greater than or equal to 0",
        ),
    ],
)
def test_validate_refuses_an_integer_past_its_bound(tmp_path, key_path, value, message, one_error_line):
    data = yaml.safe_load((ROOT / "configs" / "citywright" / "v1.1.yaml").read_text())
    node = data
    for key in key_path[:-1]:
        node = node[key]
    assert key_path[-1] in node, f"{key_path} is not a key of the shipped config"
    node[key_path[-1]] = value
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(data))
    result = CliRunner().invoke(app, ["validate", str(path)])
    line = one_error_line(result)
    assert f"{path}: {message}" in line
    assert sorted(tmp_path.iterdir()) == [path]
