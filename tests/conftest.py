"""Shared fixtures: the Citywright rule variants, loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from balancer.games.citywright.config import CitywrightConfig

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs" / "citywright"
DATA = Path(__file__).resolve().parent / "data"


def _merge(base: dict, override: dict) -> dict:
    """`extends:` by hand: mappings merge key by key (the override wins), anything else is replaced."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def load_citywright(name: str) -> CitywrightConfig:
    """Load ``configs/citywright/<name>``, resolving ``extends:`` by hand so these fixtures do not
    depend on ``balancer.config`` (tested on its own in tests/test_config.py)."""
    data = yaml.safe_load((CONFIGS / name).read_text(encoding="utf-8"))
    parent = data.pop("extends", None)
    if parent is not None:
        base = yaml.safe_load((CONFIGS / parent).read_text(encoding="utf-8"))
        base.pop("extends", None)
        data = _merge(base, data)
    return CitywrightConfig(**data)


@pytest.fixture(scope="session")
def cw_cfg() -> CitywrightConfig:
    """Citywright v1.1, the rulebook as printed."""
    return load_citywright("v1.1.yaml")


@pytest.fixture(scope="session")
def cw_cfg_v10() -> CitywrightConfig:
    """Citywright v1.0, rebuilt from the v1.1 appendix (extends v1.1)."""
    return load_citywright("v1.0.yaml")


@pytest.fixture(scope="session")
def cw_data() -> Path:
    """Directory of the hand-scored Citywright tables."""
    return DATA / "citywright"
