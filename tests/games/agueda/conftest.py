"""Fixtures of the Águeda tests: the v1 config, loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.config import load_config
from balancer.games.agueda.config import AguedaConfig

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "agueda"


def load_agueda(name: str = "v1.yaml") -> AguedaConfig:
    cfg = load_config(CONFIGS / name)
    assert isinstance(cfg, AguedaConfig)
    return cfg


@pytest.fixture(scope="session")
def ag_cfg() -> AguedaConfig:
    """Águeda v1 (configs/agueda/v1.yaml)."""
    return load_agueda()
