"""A plain ``mcts`` is shown with its budget on the run report (issue 50 item 8: the page said
"1 × mcts", which says nothing of how hard it searched); run.json records the variant's budget."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from balancer import api
from balancer.report.render import describe_agents

V11 = Path(__file__).resolve().parents[2] / "configs" / "citywright" / "v1.1.yaml"


def test_a_plain_mcts_is_described_with_the_run_s_budget():
    assert describe_agents(["mcts", "greedy"], 60) == "1 × mcts@60, 1 × greedy"
    assert describe_agents(["mcts@200", "greedy"], 60) == "1 × mcts@200, 1 × greedy"  # names its own
    assert describe_agents(["mcts", "greedy"], None) == "1 × mcts, 1 × greedy"  # a run.json from before


def test_run_json_records_the_variant_s_budget_of_a_plain_mcts(tmp_path):
    budget = yaml.safe_load(V11.read_text(encoding="utf-8"))["agents"]["mcts"]["iterations"]
    api.run("citywright/v1.1", 2, "mcts,greedy", games=2, seed=1, out=tmp_path / "m")
    assert json.loads((tmp_path / "m" / "run.json").read_text())["mcts_iterations"] == budget
    api.run("citywright/v1.1", 2, "greedy", games=2, seed=1, out=tmp_path / "g")
    assert "mcts_iterations" not in json.loads((tmp_path / "g" / "run.json").read_text())
