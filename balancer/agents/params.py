"""Parameters of the generic search agents, as they appear under ``agents.mcts`` in a game's YAML.

They are agent parameters, not rules: a variant file that changes them changes how the players play,
never what the rules are. Every knob of the search is here, in one model a tuner can search (as
TAG's ``MCTSParams``); :meth:`MCTSParams.to_array` is the flat float64 row the compiled search reads
(layout: the ``P_*`` indices below).

Agent names: ``mcts`` is the game's ``mcts`` with the YAML's parameters; ``mcts@N`` the same with a
budget of N iterations per decision (N a whole number, 1 to :data:`MAX_ITERATIONS`, digits only:
``mcts@1000``, not ``mcts@1e3`` nor ``mcts@1_000``), rolling out :attr:`MCTSParams.deeper`'s depth
once N reaches its budget. Any other name is not an MCTS name.
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np
from pydantic import Field

from ..core.config import Strict

MAX_ITERATIONS = 1_000_000
"""The largest budget per decision an agent name or a YAML may ask for (the tree holds one node per
iteration)."""

_NAME = re.compile(r"^mcts(?:\+([a-z][a-z0-9_]*))?(?:@([0-9]+))?$")  # ASCII digits only: mcts@٥٠ is no budget

NAME_NOTE = "mcts@N: mcts with a budget of N iterations per decision (1 to 1,000,000), e.g. mcts@1000"
"""The line a game's ``GameSpec.agent_note`` can carry for ``balancer games``."""

# the layout of MCTSParams.to_array() (what balancer.agents.mcts.search reads)
P_ITERATIONS = 0
P_EXPLORATION = 1
P_ROLLOUT = 2
P_DEPTH = 3
P_FINAL = 4
P_WIDENING = 5
P_WIDENING_EXPONENT = 6
P_BIAS = 7
P_EXPANSION = 8
P_EPSILON = 9
P_MINIMAX = 10
N_PARAMS = 11

ROLLOUT_RANDOM = 0
ROLLOUT_POLICY = 1
ROLLOUT_SCORES = 2
EXPANSION_UNIFORM = 0
EXPANSION_PRIOR = 1
FINAL_VISITS = 0
FINAL_VALUE = 1
NO_DEPTH_LIMIT = -1


class DeeperRollouts(Strict):
    """Longer rollouts for larger budgets: from ``iterations`` per decision on (``mcts@N`` with N at
    least that), rollouts run ``depth`` decisions instead of :attr:`MCTSParams.depth`."""

    iterations: int = Field(
        ge=1, le=MAX_ITERATIONS, description="the smallest budget per decision that rolls out deeper"
    )
    depth: int | None = Field(
        ge=0, le=100_000, description="rollout decisions at that budget and above; null = play to the end"
    )


class MCTSParams(Strict):
    """Information-set MCTS (one tree per searching seat, a determinization per iteration, values per
    seat backed up max^n style, UCT selection with availability counts); see
    :mod:`balancer.agents.mcts`.

    iterations: the budget per decision (never seconds, so that a seed gives the same game on any
    machine). exploration: UCT's c. rollout: how moves are drawn below the tree. depth: rollout
    decisions before ``heuristic`` stands in for the end (None: play to the end). final: which root
    move is played. widening, widening_exponent: progressive widening (off when ``widening`` is 0):
    a node visited n times grows a new child only while it has fewer than ``widening * (n + 1) **
    widening_exponent`` children legal in the iteration's determinization, so that a node with
    thousands of legal moves is searched below its first few instead of only being sampled flat.
    minimax: implicit minimax backups (Lanctot, Winands, Pepels & Sturtevant, "Monte Carlo Tree
    Search with Heuristic Evaluations using Implicit Minimax Backups", CIG 2014; off at 0): every
    node also keeps the max^n backup of ``heuristic`` over the tree below it, and selection mixes it
    in with weight ``minimax``. deeper: a rollout depth for larger budgets (:class:`DeeperRollouts`),
    so that a game's stronger level ``mcts@N`` can also look further ahead than its default ``mcts``
    (:meth:`rollout_depth` is the depth a budget plays with).
    """

    iterations: int = Field(
        1000,
        ge=1,
        le=MAX_ITERATIONS,
        description="iterations (determinize, select, expand, roll out, back up) per decision",
    )
    exploration: float = Field(
        0.7,
        ge=0.0,
        le=100.0,
        description="UCT exploration constant c in mean + c sqrt(ln(available) / visits); values are in [0, 1]",
    )
    rollout: Literal["random", "policy", "scores"] = Field(
        "policy",
        description="rollout moves: uniform random, the game's cheap compiled policy, or the best move "
        "score (a uniform move with probability epsilon)",
    )
    depth: int | None = Field(
        None,
        ge=0,
        le=100_000,
        description="rollout decisions before the game's heuristic value stands in for the end; null = play to the end",
    )
    final: Literal["visits", "value"] = Field(
        "visits", description="the move played: the most visited child (robust), or the best mean value"
    )
    widening: float = Field(
        0.0,
        ge=0.0,
        le=1000.0,
        description="progressive widening constant k (0 = off): a node visited n times has at most "
        "max(1, k (n + 1)^exponent) children legal in the current determinization",
    )
    widening_exponent: float = Field(
        0.5, ge=0.0, le=1.0, description="progressive widening exponent (used when widening > 0)"
    )

    bias: float = Field(
        0.0,
        ge=0.0,
        le=100.0,
        description="progressive bias weight b (0 = off): selection adds b * prior / (visits + 1), the "
        "prior being the move's score scaled to [0, 1] among its siblings",
    )
    expansion: Literal["uniform", "prior"] = Field(
        "uniform", description="which untried move grows the tree: drawn uniformly, or the best move score first"
    )
    epsilon: float = Field(
        0.1, ge=0.0, le=1.0, description="with rollout: scores, the chance of a uniform move instead of the best-scored"
    )
    minimax: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="implicit minimax backups' weight alpha (0 = off; Lanctot et al. 2014): selection uses "
        "(1 - alpha) x mean + alpha x the child's max^n backup of the heuristic values at the tree's leaves",
    )

    deeper: DeeperRollouts | None = Field(
        None,
        description="from a budget on, a different rollout depth: {iterations: 200, depth: 8} rolls out 8 "
        "decisions at 200 iterations a decision and above (mcts@200, mcts@1000); null = depth at every budget",
    )

    def rollout_depth(self) -> int | None:
        """The rollout depth this budget plays with: :attr:`deeper`'s depth once :attr:`iterations`
        reaches its budget, :attr:`depth` otherwise (None: to the end)."""
        if self.deeper is not None and self.iterations >= self.deeper.iterations:
            return self.deeper.depth
        return self.depth

    def to_array(self) -> np.ndarray:
        """The flat float64 row of length :data:`N_PARAMS` that the compiled search reads (indices
        ``P_*``; rollout/final as their codes, the depth of :meth:`rollout_depth`, None as
        :data:`NO_DEPTH_LIMIT`)."""
        row = np.zeros(N_PARAMS, np.float64)
        row[P_ITERATIONS] = self.iterations
        row[P_EXPLORATION] = self.exploration
        row[P_ROLLOUT] = {"random": ROLLOUT_RANDOM, "policy": ROLLOUT_POLICY, "scores": ROLLOUT_SCORES}[self.rollout]
        depth = self.rollout_depth()
        row[P_DEPTH] = NO_DEPTH_LIMIT if depth is None else depth
        row[P_FINAL] = FINAL_VALUE if self.final == "value" else FINAL_VISITS
        row[P_WIDENING] = self.widening
        row[P_WIDENING_EXPONENT] = self.widening_exponent
        row[P_BIAS] = self.bias
        row[P_EXPANSION] = EXPANSION_PRIOR if self.expansion == "prior" else EXPANSION_UNIFORM
        row[P_EPSILON] = self.epsilon
        row[P_MINIMAX] = self.minimax
        return row


def is_mcts_name(name: str, *, well_formed: bool = True) -> bool:
    """Whether ``name`` names the generic search: ``mcts``, ``mcts@N``, ``mcts+STYLE`` or
    ``mcts+STYLE@N``, well formed (:func:`parse_mcts_name` accepts it). With ``well_formed=False``
    also a malformed name of that family (``mcts@``, ``mcts@x``, ``mcts+``), which
    :func:`parse_mcts_name` refuses with a message of its own; ``mctsx`` or ``MCTS`` never."""
    if not (name == "mcts" or name.startswith(("mcts@", "mcts+"))):
        return False
    if not well_formed:
        return True
    try:
        parse_mcts_name(name)
    except ValueError:
        return False
    return True


def parse_mcts_name(name: str) -> int | None | Literal[False]:
    """For ``mcts`` None (the YAML's budget), for ``mcts@N`` the budget N, for any other name False.
    A value style may stand between the two (``mcts+STYLE``, ``mcts+STYLE@N``: see :func:`mcts_style`).

    Raises ValueError for a malformed budget (``mcts@``, ``mcts@x``, ``mcts@1e3``, ``mcts@0``,
    ``mcts@10000000``) or style (``mcts+``, ``mcts+Park``).
    """
    if not is_mcts_name(name, well_formed=False):
        return False
    match = _NAME.match(name)
    if match is None:
        head = name.partition("@")[0]
        if not _NAME.match(head):
            raise ValueError(
                f"agent {name!r}: after mcts+ give a value style in lower-case letters, e.g. mcts+commercial@200"
            )
        raise ValueError(f"agent {name!r}: the budget after @ must be a whole number of iterations, e.g. mcts@1000")
    if match.group(2) is None:
        return None
    digits = match.group(2)
    if len(digits) > 1 and digits[0] == "0":
        # mcts@050 and mcts@50 would play alike but count as two agents in the results
        fixed = name.rpartition("@")[0] + f"@{int(digits) or 1}"
        raise ValueError(f"agent {name!r}: write the budget without leading zeros, e.g. {fixed}")
    budget = int(digits)
    if not 1 <= budget <= MAX_ITERATIONS:
        raise ValueError(f"agent {name!r}: the budget must be 1 to {MAX_ITERATIONS:,} iterations")
    return budget


def mcts_style(name: str) -> str | None:
    """The value style of an MCTS name: ``commercial`` for ``mcts+commercial`` or
    ``mcts+commercial@200``, None for ``mcts``/``mcts@N`` and for names that are not MCTS names.

    A style changes only the value the search backs up (a game's ``compile_table`` hook reads it,
    e.g. Citywright's specialists: own district's points weighted as the greedy specialist weights
    them); which styles a game has, it says (``GameSpec.value_styles``)."""
    match = _NAME.match(name)
    return None if match is None else match.group(1)


def params_for_name(name: str, base: MCTSParams) -> MCTSParams | None:
    """The parameters of agent ``name`` at a table whose YAML gives ``base`` (``agents.mcts``):
    ``base`` for ``mcts``, ``base`` with ``iterations=N`` for ``mcts@N``, None for a name that is not
    an MCTS name. Raises ValueError for a malformed MCTS name (see :func:`parse_mcts_name`)."""
    budget = parse_mcts_name(name)
    if budget is False:
        return None
    if budget is None:
        return base
    return base.model_copy(update={"iterations": budget})
