"""YAML paths into a variant and the files that set them (balancer/sweep/paths.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from balancer.config import load_config, resolve_yaml
from balancer.sweep.paths import PathError, get_path, inclusive_range, overlay, parse_path, point_label, variant_yaml

V11 = Path(__file__).resolve().parents[2] / "configs" / "citywright" / "v1.1.yaml"
AGUEDA = Path(__file__).resolve().parents[2] / "configs" / "agueda" / "v1.yaml"


def test_parse_path():
    assert parse_path("seat_bonus.4[3]") == ("seat_bonus", "4", 3)
    assert parse_path("scoring.commercial.tiers[1].points") == ("scoring", "commercial", "tiers", 1, "points")
    for bad in ("", "a..b", "a[x]", ".a", "a.b["):
        with pytest.raises(PathError):
            parse_path(bad)


def test_get_path_reads_the_merged_variant_and_says_what_is_missing():
    data = resolve_yaml(V11).data
    assert get_path(data, parse_path("seat_bonus.4[3]")) == 0  # v1.1's score sheet: 2, 2, 1, 0
    assert get_path(data, parse_path("scoring.commercial.tiers[1].points")) == 15
    with pytest.raises(PathError, match=r"seat_bonus.4 has 4 values: \[4\] does not exist"):
        get_path(data, parse_path("seat_bonus.4[4]"))
    with pytest.raises(PathError, match="no key 'row_lenght' under board"):
        get_path(resolve_yaml(AGUEDA).data, parse_path("board.row_lenght"))
    # Águeda's coins_by_umbrellas has int keys in its YAML ({1: 1, 2: 0, 3: -1}); a path names them as text
    assert get_path(resolve_yaml(AGUEDA).data, parse_path("market.coins_by_umbrellas.3")) == -1


def test_overlay_sets_the_whole_list_a_path_runs_through_and_nothing_else():
    data = resolve_yaml(V11).data
    assert overlay(data, {"seat_bonus.4[3]": 2}) == {"seat_bonus": {"4": [2, 2, 1, 2]}}
    both = overlay(data, {"seat_bonus.4[0]": 3, "seat_bonus.4[3]": 1, "table.size": 8})
    assert both == {"seat_bonus": {"4": [3, 2, 1, 1]}, "table": {"size": 8}}


def test_variant_file_extends_the_base_and_loads_with_the_change(tmp_path):
    target = tmp_path / "point.yaml"
    text = variant_yaml(target, V11, resolve_yaml(V11).data, {"seat_bonus.4[3]": 2}, "v1.1-x", ["a comment"])
    assert text.startswith("# a comment\n")
    target.write_text(text)
    assert yaml.safe_load(text)["seat_bonus"] == {"4": [2, 2, 1, 2]}
    cfg = load_config(target)
    assert cfg.seat_bonus["4"] == [2, 2, 1, 2] and cfg.seat_bonus["3"] == [2, 2, 0] and cfg.variant == "v1.1-x"


def test_point_labels_are_safe_and_distinct():
    assert point_label([3]) == "3" and point_label([2, 0.5]) == "2_0.5" and point_label([True]) == "true"
    odd = [point_label(["a/b"]), point_label(["a b"]), point_label([[1, 2]])]
    assert len(set(odd)) == 3 and all("/" not in x and " " not in x for x in odd)


def test_inclusive_range():
    assert inclusive_range(5, 9, 1) == [5, 6, 7, 8, 9]
    assert inclusive_range(0.1, 0.5, 0.1) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert inclusive_range(3, 1, 1) == []
    with pytest.raises(ValueError):
        inclusive_range(0, 1, 0)
