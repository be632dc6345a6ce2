"""Citywright v1.1: a 1-4 player city-building draft (rulebook: shared/rules/citywright-v1.1.txt).

Players. 2, 3 or 4 apprentices, or solo against the rival apprentice (§10).

Actions. Each turn a player drafts one ruler from the 20 slots around the 4x4 site board (§5):
an edge ruler gives its row's or column's 4 tiles, a corner ruler its diagonal's 4 tiles plus a
required free pick that goes on the star cell. The tiles are laid on the player's 7x7 drawing table
in the ruler's shape, turned and flipped freely, overhang allowed, never overwriting; a ruler with
no legal placement is discarded with its tiles. Everyone takes 12 turns (§4.1). Two players may
discard a corner ruler for one tile of any type (§9.2); solo, the rival apprentice removes the
ruler at the other end of the drafted ruler's line (§10.2).

Scoring (§6). Residential clusters, commercial tiers and isolated shops, parks touching homes and
shops and spread over rows and columns, industry on the ring and in pairs; plus the seat bonus
(§6.5); achievements (§7) when switched on; tie-breakers (§8): fewer empty cells, then more
distinct shapes, then a shared victory.

Assumptions (all in ``configs/citywright/v1.1.yaml``, marked ``assumed``): rounds for 3 and 4
players (4 rounds of 3 turns), the achievements' thresholds and points, the specialists' weights.

Version history. v1.0 (``configs/citywright/v1.0.yaml``): largest residential cluster scored
size x 2, two players played 4 rounds of 4 turns with the full deck, no seat bonus. v1.1: the
rulebook as printed.

The compiled interface (``kernel.py``; its docstring has the details). A turn is up to four
decisions of the same player, one int64 each: (1) the slot whose ruler is drafted (or, when every
slot is empty, the pass that loses the turn); (2) the placement among that ruler's distinct legal
placements, or the forced discard when it has none, or (two players, corner ruler, §9.2) a
discard-for-tile cell and district; (3) the order of the line's tiles on the landed cells, when
there are several; (4) the free pick's district, when the star lands on the table. Hidden: the
order of the two draw piles (determinize reshuffles them). Values: win shares with the §8
tie-breakers; solo (§10.3 prints no rank table) a logistic of the total against
``agents.heuristic.solo_par``; the heuristic a logistic of the score margin over the best other seat
(``agents.heuristic``: scale, and the progress terms potential and room). The Python protocol (``new_game``, ``legal_moves``, ``apply``...) and the
``random`` agent (uniform per decision) are derived from it; the greedy and specialists plan a whole
turn with their own search and play it decision by decision.

Score components reported per seat: residential, commercial, park, industrial, achievements,
seat_bonus. Metrics: wasted_tiles, empty_cells, rulers_placed, forced_discards.
"""

from __future__ import annotations

import dataclasses
import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)  # before the compiled modules load: numba's cache misses cross-module changes

import numpy as np

from ...core import protocol
from ...core.batch import DEFAULT_CHUNK_GAMES, GameBatch
from ...core.game import Outcome, ranks_and_win_shares
from ...core.seeding import game_rngs
from ...core.table_loop import play_chunk_records
from .agents import AGENTS, RANDOM, agent_params, play_new_game, record_length
from .config import CitywrightConfig
from .greedy import Workspace, greedy_move, workspace_for
from .kernel import (
    DRAFT,
    ENGINE,
    checkpoints_of,
    compile_variant,
    describe_turn,
    outcome_of_rows,
    trajectory_buffer,
    turn_array,
    turn_decisions,
)
from .rules import FINAL_COLUMNS, G_PHASE, G_SLOT, State, state_views
from .scoring import draw_table, parse_table, score_table

NAME = "citywright"
CONFIG_MODEL = CitywrightConfig

__all__ = [
    "NAME",
    "CONFIG_MODEL",
    "AGENTS",
    "Game",
    "new_game",
    "play_game",
    "transcript",
    "score_table",
    "score_table_text",
    "parse_table",
    "draw_table",
    "ENGINE",
    "compile_variant",
]


class Game(protocol.Position):
    """A game in progress: the kernel's position ``S`` under the rule table ``T`` and the game's own
    chance stream (:class:`balancer.core.protocol.Position`), with the rules' views of it."""

    @property
    def state(self) -> State:
        """The position as the rules see it: numpy views into ``S`` (writing them writes ``S``)."""
        return state_views(self.S, self.T.lay)

    @property
    def rules(self):
        return self.T.rules

    @property
    def geo(self):
        return self.T.geo

    @property
    def sp(self):
        return self.T.sp

    def copy(self) -> Game:
        """An independent copy (position and chance stream)."""
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        return Game(self.engine, self.cfg, self.T, self.S.copy(), rng)


def new_game(cfg: CitywrightConfig, n_players: int, seed: np.random.SeedSequence | int) -> Game:
    """A game after setup (§3). ``seed`` drives only the game's own chance (child 0 of
    :func:`balancer.core.seeding.game_rngs`). Raises ValueError for an unsupported player count."""
    T = compile_variant(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    return Game(ENGINE, cfg, T, ENGINE.new_state(T, game_rng), game_rng)


class CitywrightAgent:
    """The greedy agent or a specialist through the Python protocol: at the start of its turn it
    searches the whole turn (:func:`~.agents.greedy_move`, drawing from the generator exactly as
    :func:`play_game` does) and returns it decision by decision."""

    def __init__(self, cfg: CitywrightConfig, name: str):
        self.name = name
        self.kind, self.weights = agent_params(cfg, name)
        self._ws: Workspace | None = None
        self._plan: list[int] = []
        self._slot = -1

    def plan(self, game: Game, rng: np.random.Generator) -> list[int]:
        """The decisions of the whole turn the agent plays from ``game`` (at the start of a turn)."""
        if self._ws is None:
            self._ws = workspace_for(game.T)  # the table's placement features, computed once
        mv = np.zeros(8, np.int64)
        greedy_move(game.state, game.rules, game.geo, game.sp, self.weights, rng, mv, self._ws)
        dec = np.zeros(4, np.int64)
        k = int(turn_decisions(game.S, game.T, mv, dec))
        return [int(d) for d in dec[:k]]

    def choose(self, game: Game, seat: int, rng: np.random.Generator) -> int:
        if seat != game.seat_to_move:
            raise ValueError(f"seat {seat + 1} is not to move")
        if game.S[G_PHASE] == DRAFT:
            self._plan = self.plan(game, rng)
            self._slot = self._plan[0]
        elif not self._plan or game.S[G_SLOT] != self._slot:
            raise ValueError(
                f"the {self.name} agent plans whole turns: it cannot take over a turn another player began"
            )
        return self._plan.pop(0)


def make_agent(cfg: CitywrightConfig, name: str):
    """An agent by name (one of :data:`AGENTS`); raises ValueError for an unknown name. ``random`` is
    the interface's uniform agent (:class:`balancer.core.protocol.UniformAgent`)."""
    if name == "random":
        return protocol.UniformAgent()
    return CitywrightAgent(cfg, name)


def play_game(cfg: CitywrightConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """Play one whole game at full speed (one compiled call through the interface). ``agents``
    lists the agent of each seat (its length is the player count). Raises ValueError for an
    unsupported player count or an unknown agent.

    Its trajectory (``Outcome.standings``, :func:`~.kernel.checkpoints_of`): each seat's score as if
    the game ended there (:func:`~.kernel.scores`) after every turn of the whole table, the last one
    the final scores."""
    T = compile_variant(cfg, len(agents))
    kinds, weights = _table_params(cfg, tuple(agents))
    game_rng, agent_rng = game_rngs(seed)
    traj = trajectory_buffer(T)
    rows = play_new_game(T, kinds, weights, game_rng, agent_rng, traj)
    return dataclasses.replace(outcome_of_rows(rows), standings=traj.astype(np.float64).tolist())


METRIC_COLUMNS = (("wasted_tiles", 8), ("empty_cells", 6), ("rulers_placed", 9), ("forced_discards", 10))
"""The metrics of a seat and their columns of :func:`~.rules.final_rows`, in the order
:func:`~.kernel.outcome_of_rows` reports them."""


def play_chunk(
    cfg: CitywrightConfig, agents: list[str], run_seed: int, start: int, stop: int, trajectories: bool = True
) -> GameBatch:
    """Games ``start..stop-1`` of a run seeded ``run_seed`` in one compiled call
    (:func:`balancer.core.table_loop.play_chunk_records` on :func:`~.agents.play_seated`): the games :func:`play_game` plays with
    ``game_seed(run_seed, i)`` for the seats ``seat_agents(agents, i)``, the same records as
    :func:`~.kernel.outcome_of_rows` (score the sum of the six components, tie-breakers fewer
    empty cells then more distinct shapes, §8), and the same trajectories (every game has
    :func:`~.kernel.checkpoints_of` checkpoints; none with ``trajectories=False``, as ``run --no-flow``
    asks). Raises ValueError as :func:`play_game` does."""
    n = len(agents)
    T = compile_variant(cfg, n)
    kinds, weights = _table_params(cfg, tuple(agents))
    width = len(FINAL_COLUMNS)
    records = play_chunk_records(
        T, kinds[:n], weights[:n], (), run_seed, start, stop, record_length(T.rules, trajectories)
    )
    rows = records[:, : n * width].reshape(-1, n, width)
    k = checkpoints_of(T.rules)
    return GameBatch(
        scores=rows[:, :, :6].sum(axis=2),
        tiebreak=np.stack([-rows[:, :, 6], rows[:, :, 7]], axis=2),
        components={name: rows[:, :, j] for j, name in enumerate(FINAL_COLUMNS[:6])},
        metrics={name: rows[:, :, j].astype(np.float64) for name, j in METRIC_COLUMNS},
        turns=rows[:, :, 11],
        standings=records[:, n * width :].reshape(-1, k, n).astype(np.float64) if trajectories else None,
        checkpoints=np.full(records.shape[0], k, np.int64) if trajectories else None,
    )


def chunk_games(cfg: CitywrightConfig, agents: list[str]) -> int:
    """The most games of a default chunk (about a second of play, ``GameSpec.chunk_games``): tables
    of random agents play about 10,000 four-player games a second, tables with a greedy seat
    (or a specialist) a few hundred (the runner's default)."""
    kinds, _ = _table_params(cfg, tuple(agents))
    return 10_000 if all(k == RANDOM for k in kinds[: len(agents)]) else DEFAULT_CHUNK_GAMES


_TABLES: dict[tuple[int, tuple[str, ...]], tuple[CitywrightConfig, np.ndarray, np.ndarray]] = {}


def _table_params(cfg: CitywrightConfig, agents: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(kinds int64[4], weights float64[4, 5]) of a table of agents, cached per config object
    (a run plays thousands of games with the same table). Raises ValueError for an unknown agent."""
    hit = _TABLES.get((id(cfg), agents))
    if hit is not None and hit[0] is cfg:
        return hit[1], hit[2]
    kinds = np.zeros(4, np.int64)
    weights = np.zeros((4, 5))
    for s, name in enumerate(agents):
        kinds[s], weights[s] = agent_params(cfg, name)
    if len(_TABLES) > 64:
        _TABLES.clear()
    _TABLES[(id(cfg), agents)] = (cfg, kinds, weights)
    return kinds, weights


def transcript(cfg: CitywrightConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A turn-by-turn account of one game (same moves as :func:`play_game` with this seed), then
    the final tables drawn and the scores."""
    n = len(agents)
    game = new_game(cfg, n, seed)
    _, agent_rng = game_rngs(seed)
    players = [make_agent(cfg, a) for a in agents]
    lines = [
        f"Citywright {cfg.variant}, {n} player(s): " + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents))
    ]
    last_round = -1
    while not protocol.is_over(game):
        rnd = int(game.state.g[0])
        if rnd != last_round:
            last_round = rnd
            site = draw_table(game.state.site, 4).splitlines()
            lines.append(f"\nRound {rnd + 1}, start player seat {int(game.state.g[2]) + 1}. Site board:")
            lines += ["  " + row for row in site]
        # one line per turn: the seat's decisions until the turn is played (the phase is back to the draft)
        seat = game.seat_to_move
        start = game.S.copy()
        decisions = []
        while True:
            decisions.append(players[seat].choose(game, seat, agent_rng))
            protocol.apply(game, decisions[-1])
            if game.S[G_PHASE] == DRAFT:
                break
        lines.append(f"  seat {seat + 1}: {describe_turn(start, game.T, turn_array(start, game.T, decisions))}")
    out = protocol.outcome(game)
    lines.append("\nFinal tables:")
    for s in range(n):
        lines.append(
            f"Seat {s + 1} ({agents[s]}): {out.scores[s]} points = "
            + " + ".join(f"{k} {v[s]}" for k, v in out.components.items())
            + f"; empty cells {int(-out.tiebreak[s][0])}, wasted tiles {int(out.metrics['wasted_tiles'][s])}"
        )
        lines += ["  " + row for row in draw_table(game.state.tables[s], cfg.table.size).splitlines()]
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    winners = [s for s in range(n) if shares[s] > 0]
    if len(winners) == 1:
        lines.append(f"\nWinner: seat {winners[0] + 1} ({agents[winners[0]]}) with {out.scores[winners[0]]} points.")
    else:
        lines.append(
            "\nShared victory (§8): "
            + ", ".join(f"seat {s + 1} ({agents[s]})" for s in winners)
            + f", {out.scores[winners[0]]} points, equal on every tie-breaker."
        )
    return "\n".join(lines)


def score_table_text(cfg: CitywrightConfig, text: str) -> dict[str, int]:
    """``balancer score``: points of a drawn table (lines of R C P I .), no seat bonus.
    Raises ValueError naming the bad line."""
    return score_table(cfg, parse_table(text, cfg.table.size))


from ...core.generic_agents import value_style  # noqa: E402
from ...core.registry import spec_from_module  # noqa: E402
from .agents import game_agent, seat_agent  # noqa: E402
from .config import DISTRICTS  # noqa: E402
from .kernel import Compiled, with_value_weights  # noqa: E402
from .metrics import METRICS  # noqa: E402


def mcts_table(cfg: CitywrightConfig, agents: list[str]) -> Compiled:
    """The rule table of a table with MCTS seats: an ``mcts+<district>`` seat (``mcts+commercial@200``)
    values its own points with that specialist's weights (``agents.specialists``), so its search
    plays as the specialists' greedy does, weighing its own district's points half again."""
    T = compile_variant(cfg, len(agents))
    styles = [value_style(a) for a in agents]
    if not any(styles):
        return T
    weights = np.ones((len(agents), len(DISTRICTS)))
    for seat, style in enumerate(styles):
        if style is not None:
            weights[seat] = agent_params(cfg, style)[1][: len(DISTRICTS)]
    return with_value_weights(cfg, T, weights)


SPEC = spec_from_module(
    sys.modules[__name__],
    display_name="Citywright",
    default_config="citywright/v1.1.yaml",
    score_table_text=score_table_text,
    engine=ENGINE,
    metrics=METRICS,
    play_chunk=play_chunk,
    chunk_games=chunk_games,
    seat_agent=seat_agent,
    game_agent=game_agent,
    compile_table=mcts_table,
    value_styles=DISTRICTS,
    style_note="mcts+<district>[@N]: mcts whose value counts its own district's points as that specialist does, "
    "e.g. mcts+commercial@200",
    checkpoint="turn of the table",  # every seat has taken one more turn (kernel.checkpoints_of)
)
"""This game in the registry (:mod:`balancer.core.registry`)."""
