"""Urban Sketchers fixtures: the base variant, loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.config import load_config
from balancer.games.urban_sketchers.config import UrbanSketchersConfig

BASE = Path(__file__).resolve().parents[3] / "configs" / "urban_sketchers" / "base.yaml"


@pytest.fixture(scope="session")
def us_cfg() -> UrbanSketchersConfig:
    """Urban Sketchers as printed, with the assumed data of base.yaml."""
    cfg = load_config(BASE)
    assert isinstance(cfg, UrbanSketchersConfig)
    return cfg
