"""Numbers move only on purpose (issue 51, item 5): a digest of fixed-seed results per game and agent table.

tests/data/digests.json holds, for every case of tests/regen_digests.py (each shipped game: a greedy mirror,
random players, a table with a tiny mcts budget; a few games each), the SHA-256 of its result rows. Any change
to a number (a rule, a deal, an agent's choice, the seeding, a column) fails here until it is accepted on
purpose. This test only reads the file.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("regen_digests", Path(__file__).resolve().parent / "regen_digests.py")
assert _spec is not None and _spec.loader is not None
regen_digests = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("regen_digests", regen_digests)  # dataclasses look their module up there
_spec.loader.exec_module(regen_digests)

HOW_TO_ACCEPT = (
    "If the numbers changed on purpose (a ruling, a bug fix, an agent change), accept them with\n"
    "    python tests/regen_digests.py\n"
    "add an entry to CHANGELOG.md saying which numbers moved and why, and commit both with the change.\n"
    "Otherwise a number moved by accident: find the change that moved it."
)


@pytest.mark.parametrize("case", regen_digests.CASES, ids=lambda c: c.key.replace(" ", "-"))
def test_fixed_seed_results_are_the_accepted_ones(case) -> None:
    stored = regen_digests.read().get(case.key)
    if stored is None:
        pytest.fail(f"no accepted digest for `{case.command}` in tests/data/digests.json.\n{HOW_TO_ACCEPT}")
    actual = regen_digests.digest(case)
    if actual != stored:
        pytest.fail(
            f"`{case.command}` gives other results than the accepted ones "
            f"({actual['rows']} rows, sha256 {str(actual['sha256'])[:12]}; accepted "
            f"{stored['rows']} rows, {str(stored['sha256'])[:12]}).\n{HOW_TO_ACCEPT}",
            pytrace=False,
        )


def test_every_case_has_an_accepted_digest_and_no_stale_one() -> None:
    assert set(regen_digests.read()) == {case.key for case in regen_digests.CASES}


def test_a_rule_change_moves_the_digest() -> None:
    # a deliberate change to one game's numbers: Citywright v1.0's scoring (other residential and seat-bonus
    # numbers than v1.1's) at the same seed and agents gives other rows, so it would fail the v1.1 case
    case = next(c for c in regen_digests.CASES if c.key.startswith("citywright/v1.1") and c.agents == "greedy")
    changed = regen_digests.Case("configs/citywright/v1.0.yaml", case.players, case.agents, case.games, case.seed)
    assert regen_digests.digest(changed)["sha256"] != regen_digests.read()[case.key]["sha256"]
