"""The readable reference engine of Urban Sketchers is the tests' (``us_reference/`` beside this file,
docs/architecture.md): no module under ``balancer/`` imports from ``tests`` or ``us_reference``, the
package's rules, agents and scoring hold no reference state or transitions, and importing the game,
then playing a ``rollout`` table and a transcript, loads none of the reference modules."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ("tests", "us_reference")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_module_under_balancer_imports_from_the_tests():
    bad = [
        (str(path.relative_to(ROOT)), name)
        for path in sorted((ROOT / "balancer").rglob("*.py"))
        for name in _imported(path)
        if name.split(".")[0] in REFERENCE
    ]
    assert bad == []


def test_the_package_holds_no_reference_engine():
    from balancer.games.urban_sketchers import agents, fast, kernel, rules, scoring

    for module, names in [
        (rules, ("State", "new_state", "legal_moves", "apply_move")),
        (agents, ("RolloutAgent", "GreedyAgent", "RandomAgent", "OnReference", "playout", "margin", "Weights")),
        (scoring, ("final_components", "tiebreak", "unpublished_money")),
        (fast, ("load", "to_reference")),
        (kernel, ("to_reference",)),
    ]:
        assert [n for n in names if hasattr(module, n)] == [], module.__name__


CHILD = """
import json, sys
import balancer.games.urban_sketchers as us
from balancer.config import load_config
from balancer.core.seeding import game_seed
cfg = load_config(sys.argv[1])
ro = cfg.agents.rollout.model_copy(update={"playouts": 1, "candidates": 2, "horizon_rounds": 1})
cfg = cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"rollout": ro})})
loaded = [sorted(m for m in sys.modules if m.split(".")[0] in ("tests", "us_reference"))]
us.play_game(cfg, ["rollout", "greedy"], game_seed(3, 0))
us.transcript(cfg, ["greedy", "random"], game_seed(3, 1))
loaded.append(sorted(m for m in sys.modules if m.split(".")[0] in ("tests", "us_reference")))
print(json.dumps(loaded))
"""


@pytest.mark.timeout(900)  # a fresh interpreter loads the compiled engine (or compiles it after a change)
def test_a_run_loads_no_reference_module():
    """In a fresh interpreter whose path reaches the reference package, importing the game, a game
    with a ``rollout`` seat and a transcript load no module of ``tests`` or ``us_reference``."""
    here = str(Path(__file__).resolve().parent)
    config = str(ROOT / "configs" / "urban_sketchers" / "base.yaml")
    env_path = [str(ROOT), here]
    out = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path[:0] = {env_path!r}\n" + CHILD, config],
        capture_output=True,
        text=True,
        check=True,
        timeout=880,
        cwd=ROOT,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [[], []]
