"""Shared fixtures: the Citywright rule variants, loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.config import load_config
from balancer.games.citywright.config import CitywrightConfig

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs" / "citywright"
DATA = Path(__file__).resolve().parent / "data"


def load_citywright(name: str) -> CitywrightConfig:
    """Load ``configs/citywright/<name>`` with the project's loader (``extends:`` resolved)."""
    cfg = load_config(CONFIGS / name)
    assert isinstance(cfg, CitywrightConfig)
    return cfg


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
