"""Golden playthroughs (docs/architecture.md, "Tests"; OpenSpiel's playthroughs).

`balancer play` transcripts for a few fixed seeds are stored in tests/data/golden/ and compared
with the current engine on every run, so an unintended change to the rules, the deals or the
agents shows up as a diff. This test only reads the files: an intended change is regenerated with
``python tests/regen_golden.py`` and the files' diff is reviewed with it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("regen_golden", Path(__file__).resolve().parent / "regen_golden.py")
regen_golden = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("regen_golden", regen_golden)  # dataclasses look their module up there
_spec.loader.exec_module(regen_golden)

HOW_TO_REGENERATE = (
    "If the rules, deals or agents changed on purpose, review this diff and regenerate with\n"
    "    python tests/regen_golden.py\n"
    "then commit the changed golden files with that change. Otherwise a rule changed by accident."
)


@pytest.mark.parametrize("case", regen_golden.CASES, ids=lambda c: c.filename.removesuffix(".txt"))
def test_transcript_matches_golden(case):
    path = regen_golden.GOLDEN / case.filename
    if not path.exists():
        pytest.fail(f"missing golden file {path.name} for `{case.command}`.\n{HOW_TO_REGENERATE}")
    expected = path.read_text(encoding="utf-8")
    actual = regen_golden.render(case)
    if actual != expected:
        pytest.fail(
            f"`{case.command}` no longer prints {path.name}:\n\n"
            f"{regen_golden.diff(expected, actual, path.name)}\n{HOW_TO_REGENERATE}",
            pytrace=False,
        )


def test_every_golden_file_has_a_case():
    """A golden file nobody compares any more is dead weight (or a case dropped by mistake)."""
    known = {case.filename for case in regen_golden.CASES}
    stale = sorted(p.name for p in regen_golden.GOLDEN.glob("*.txt") if p.name not in known)
    assert not stale, f"golden files without a case in tests/regen_golden.py CASES: {stale}"


def test_golden_cases_are_distinct():
    names = [case.filename for case in regen_golden.CASES]
    assert len(names) == len(set(names))
