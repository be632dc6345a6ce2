"""YAML paths into a variant and the files that set them (balancer/paths.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from balancer.config import load_config, resolve_yaml
from balancer.paths import PathError, get_path, inclusive_range, overlay, parse_path, point_label, variant_yaml

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


def test_a_shipped_base_is_extended_by_its_shipped_name_wherever_balancer_is_installed(tmp_path, monkeypatch):
    """Issue 31 item 4: a tuned or swept variant of a shipped config says ``extends: citywright/v1.1``,
    not a path into site-packages; a user's base stays a path relative to the written file."""
    import shutil

    import balancer.data as data
    from balancer.paths import relative_extends

    # an installed copy of the shipped configs, as pip lays them out in a virtual environment
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "balancer" / "data" / "configs"
    shutil.copytree(V11.parent, site / "citywright")
    monkeypatch.setattr(data, "CONFIGS_DIR", site)
    target = tmp_path / "project" / "tuned.yaml"
    target.parent.mkdir()
    assert relative_extends(target, site / "citywright" / "v1.1.yaml") == "citywright/v1.1"
    text = variant_yaml(target, site / "citywright" / "v1.1.yaml", resolve_yaml(V11).data, {"seat_bonus.4[3]": 2}, None)
    assert yaml.safe_load(text)["extends"] == "citywright/v1.1" and "site-packages" not in text
    target.write_text(text)
    assert load_config(target).seat_bonus["4"] == [2, 2, 1, 2]
    # a user's own base: relative to the written file
    mine = tmp_path / "mine" / "base.yaml"
    mine.parent.mkdir()
    mine.write_text(V11.read_text())
    assert relative_extends(target, mine) == "../mine/base.yaml"
    # sharing no folder but the root: the absolute path (a relative one would climb to the root)
    root = Path(tmp_path.anchor)
    assert relative_extends(root / "tuned.yaml", mine) == str(mine.resolve())
    # a file beside the target under the shipped name would win over the shipped one: keep the path
    (target.parent / "citywright").mkdir()
    (target.parent / "citywright" / "v1.1").write_text("")
    assert relative_extends(target, site / "citywright" / "v1.1.yaml").endswith("citywright/v1.1.yaml")
