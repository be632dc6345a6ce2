"""The MCTS parameters model and the ``mcts@N`` agent-name syntax (balancer/agents/params.py)."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from balancer.agents import params as P
from balancer.agents.params import MCTSParams, mcts_style, params_for_name, parse_mcts_name


@pytest.mark.parametrize(
    "name, expected",
    [
        ("mcts", None),  # the YAML's budget
        ("mcts@1", 1),
        ("mcts@1000", 1000),
        ("mcts@1000000", 1_000_000),
        ("greedy", False),  # not an MCTS name: the game's own check says whether it knows it
        ("random", False),
        ("mctsx", False),
        ("MCTS", False),
        ("mcts+commercial", None),  # a value style (the game says which it has), the YAML's budget
        ("mcts+commercial@200", 200),
        ("mcts+park_2@7", 7),
    ],
)
def test_parse_mcts_name(name, expected):
    assert parse_mcts_name(name) == expected


@pytest.mark.parametrize(
    "name, style",
    [("mcts", None), ("mcts@50", None), ("mcts+commercial", "commercial"), ("mcts+park@3", "park"), ("greedy", None)],
)
def test_mcts_style_is_the_word_after_the_plus(name, style):
    assert mcts_style(name) == style


@pytest.mark.parametrize(
    "name, phrase",
    [
        ("mcts@", "whole number"),
        ("mcts@x", "whole number"),
        ("mcts@1e3", "whole number"),
        ("mcts@1_000", "whole number"),
        ("mcts@-5", "whole number"),
        ("mcts@ 10", "whole number"),
        ("mcts@10@2", "whole number"),
        ("mcts@0", "1 to 1,000,000"),
        ("mcts@1000001", "1 to 1,000,000"),
        ("mcts@050", "without leading zeros, e.g. mcts@50"),  # else mcts@050 and mcts@50 count as two agents
        ("mcts@00", "without leading zeros"),
        ("mcts@\u0665\u0660", "whole number"),  # Arabic-Indic 5 0: str.isdigit, but not a budget
        ("mcts+", "value style in lower-case letters"),
        ("mcts+Park@20", "value style in lower-case letters"),
        ("mcts+park@", "whole number"),
        ("mcts+park@050", "without leading zeros, e.g. mcts+park@50"),
    ],
)
def test_malformed_mcts_names_are_refused_with_the_name(name, phrase):
    with pytest.raises(ValueError) as err:
        parse_mcts_name(name)
    assert repr(name) in str(err.value) and phrase in str(err.value)


def test_params_for_name_overrides_only_the_budget():
    base = MCTSParams(iterations=500, exploration=0.3, rollout="random", depth=7)
    assert params_for_name("mcts", base) is base
    at = params_for_name("mcts@40", base)
    assert at is not None and at.iterations == 40
    assert at.model_dump(exclude={"iterations"}) == base.model_dump(exclude={"iterations"})
    assert params_for_name("greedy", base) is None
    with pytest.raises(ValueError):
        params_for_name("mcts@0", base)


def test_to_array_layout():
    row = MCTSParams(
        iterations=321, exploration=1.5, rollout="random", depth=4, final="value", widening=2.0, widening_exponent=0.25
    ).to_array()
    assert row.dtype == np.float64 and row.shape == (P.N_PARAMS,)
    assert row[P.P_ITERATIONS] == 321 and row[P.P_EXPLORATION] == 1.5
    assert row[P.P_ROLLOUT] == P.ROLLOUT_RANDOM and row[P.P_DEPTH] == 4 and row[P.P_FINAL] == P.FINAL_VALUE
    assert row[P.P_WIDENING] == 2.0 and row[P.P_WIDENING_EXPONENT] == 0.25
    default = MCTSParams().to_array()
    assert default[P.P_ROLLOUT] == P.ROLLOUT_POLICY and default[P.P_DEPTH] == P.NO_DEPTH_LIMIT
    assert default[P.P_FINAL] == P.FINAL_VISITS and default[P.P_WIDENING] == 0.0
    # the game's knowledge is off unless asked for (today's searches stay as they were)
    assert default[P.P_BIAS] == 0.0 and default[P.P_EXPANSION] == P.EXPANSION_UNIFORM
    knowing = MCTSParams(bias=2.5, expansion="prior", rollout="scores", epsilon=0.25).to_array()
    assert knowing[P.P_BIAS] == 2.5 and knowing[P.P_EXPANSION] == P.EXPANSION_PRIOR
    assert knowing[P.P_ROLLOUT] == P.ROLLOUT_SCORES and knowing[P.P_EPSILON] == 0.25


def test_deeper_rollouts_start_at_their_budget():
    # the default rolls out 4 decisions; from 200 iterations a decision on, 8 (Urban Sketchers' stronger level)
    base = MCTSParams(iterations=32, depth=4, deeper={"iterations": 200, "depth": 8})
    depth_of = {
        name: params_for_name(name, base).to_array()[P.P_DEPTH]
        for name in ("mcts", "mcts@199", "mcts@200", "mcts@1000")
    }
    assert depth_of == {"mcts": 4, "mcts@199": 4, "mcts@200": 8, "mcts@1000": 8}
    # ... the default too, when its own budget reaches the step; depth null there: to the end
    assert MCTSParams(iterations=300, depth=4, deeper={"iterations": 200, "depth": 8}).rollout_depth() == 8
    to_end = MCTSParams(iterations=500, depth=4, deeper={"iterations": 500, "depth": None})
    assert to_end.to_array()[P.P_DEPTH] == P.NO_DEPTH_LIMIT
    # everything else is the base's: the two rows differ in the budget and the depth only
    low, high = params_for_name("mcts", base).to_array(), params_for_name("mcts@200", base).to_array()
    assert [i for i in range(P.N_PARAMS) if low[i] != high[i]] == [P.P_ITERATIONS, P.P_DEPTH]


@pytest.mark.parametrize(
    "bad",
    [
        {"deeper": {"iterations": 0, "depth": 8}},
        {"deeper": {"iterations": 200, "depth": -1}},
        {"deeper": {"iterations": 200}},
        {"deeper": {"from": 200, "depth": 8}},
        {"iterations": 0},
        {"iterations": 2_000_000},
        {"exploration": -1},
        {"rollout": "greedy"},
        {"depth": -1},
        {"final": "mean"},
        {"widening": -0.5},
        {"widening_exponent": 1.5},
        {"iteration": 10},
        {"bias": -1},
        {"expansion": "best"},
        {"epsilon": 1.5},
    ],
)
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValidationError):
        MCTSParams(**bad)


def test_a_seated_game_checks_mcts_names_by_the_search_and_others_by_the_game():
    from balancer.core.registry import get_spec

    check = get_spec("urgency").check_agent  # the game's own check knows greedy and random only
    assert check("mcts", None) is None and check("mcts@250", None) is None and check("greedy", None) is None
    assert "budget" in check("mcts@0", None) and "'mcts@0'" in check("mcts@0", None)
    assert "unknown agent 'expert'" in check("expert", None)
