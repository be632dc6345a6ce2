"""balancer's conformance suite on Pig: every check at every player count of the shipped variant."""

from pathlib import Path

import pytest

from balancer.testing import conformance_checks

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "pig" / "pig.yaml"


@pytest.mark.parametrize("check", conformance_checks("pig", CONFIG), ids=str)
def test_conformance(check):
    check()
