"""Águeda: City of Umbrellas, 1 to 5 players (rulebook: shared/rules/agueda.txt).

Players. 2 to 5, or solo (1) against the tour-guide deck.

Actions. A turn (How to Play): take every umbrella of one line of the 3x3 market (the 5 diagonals,
1, 2, 3, 2 and 1 umbrellas long: a 1-umbrella line also gains a coin, a 3-umbrella line costs a coin
first, a 2-umbrella line is free); place them, in any order, into one row of the player board from
its leftmost empty space, what does not fit going back into the bag; a filled paintbrush space flips
the mural tile of that umbrella's colour, and a mural row with both tiles flipped unlocks its
tourist at once; then attract 1 tourist to an open tourist tile (score the umbrellas of one of its
two colours in that row), attract 2 to one open tile (score both colours), or take a break (tourists
back to the suitcases, tourist tiles shift down one, the bottom one to the top). No tourist in a
suitcase: a break is forced. The market is refilled at the end of every turn.

End and scoring. When a player fills all 3 rows every other player takes one last turn. Final
scoring: tourists (scored during play), mural (4/5/6 tiles flipped: 2/4/6 points), the 2 shop cards
in play, -1 per empty space. Tie-breakers: fewer empty spaces, more mural tiles, more coins, then a
shared victory. Solo: after each turn a tour-guide card takes umbrellas from the market for the AI
and scores for it; the game ends after the last card; the player wins only with more points than
the AI (its card points plus the Solo End Game Scoring card at the chosen difficulty). A solo
game's results row is the player's; ``metric_solo_win`` (1 or 0) and ``metric_ai_score`` say how it
went against the AI (the runner's win share of a one-seat game is always 1, as for Citywright).

Shop cards are data: 18 cards written in a small vocabulary of end-game conditions
(:data:`config.SHOP_KINDS`), with shop markers of random colours placed at setup. A study may fix
the pair (``shops.fixed``) or draw it at random. Each game's pair is reported per seat as the label
``shops`` (results column ``label_shops``, the two names sorted and joined by " + ").

Assumptions (all in ``configs/agueda/v1.yaml``, marked ``assumed``): the market shape and lines, row
length 7 and the paintbrush spaces, the mural's colour pairs and the tourist tiles' colours, the
texts of the shop cards (all 18) and of the tour-guide deck and the solo end card, what an empty
bank or bag does; the greedy agent's weights.

Score components reported per seat: tourists, mural, shops, empty_spaces. Metrics: coins_gained,
coins_spent, coins_left, umbrellas_returned, tourists_attracted, breaks, mural_tiles, empty_spaces,
game_turns (the game's length: every seat's turns), and solo ai_score and solo_win. Labels: shops.

Moves and the compiled interface (``kernel.py``). A turn is up to four decisions of the player, one
int64 code each: the line (0..4, or 99 when none can be taken), the board row (100 + row), the order
of the umbrellas (200 + p, one per distinct placement), the tourist option (300 break, 301 + 3 r /
302 + 3 r attract 1 to row r scoring the tile's first / second colour, 303 + 3 r attract 2). A
decision with one option is taken for the player (the line is always asked). ``legal_moves``,
``apply`` and the ``random`` agent (uniform per decision) come from the kernel; ``greedy`` and
``lookahead`` plan a whole turn and hand it out decision by decision (on the runner's fast path the
whole turn is played at once: the same game). Hidden: only the order of the tour-guide cards not yet
revealed (solo; ``determinize`` reshuffles them); the bag's draws are chance. ``returns``: the win
shares with the tie-breakers, solo the solo win (1 when the player's score beats the AI's, ties to
the AI); ``heuristic``: a logistic of the score margin, scale ``agents.heuristic.scale``.

Version history. v1 (``configs/agueda/v1.yaml``): the rulebook with the assumptions above.
"""

from __future__ import annotations

import dataclasses
import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)  # before the compiled modules load: numba's cache misses cross-module changes

import numpy as np

from ...core import protocol
from ...core.batch import DEFAULT_CHUNK_GAMES
from ...core.game import ranks_and_win_shares
from ...core.kernel import turn_cap_line
from ...core.protocol import Position
from ...core.seeding import game_rngs
from ...core.table_loop import play_chunk_records
from .agents import AGENTS, GREEDY, RANDOM, agent_params, workspace
from .config import AguedaConfig
from .kernel import (
    ENGINE,
    PH_LINE,
    agent_decision,
    checkpoint_bound,
    describe_turn,
    ended_by,
    last_turn,
    outcome_of,
    phase,
    play_table,
    record_length,
    records_batch,
    state,
    turn_count,
)
from .kernel import compile as compiled
from .rules import G_DECK, G_MOVES, MOVE_LEN, ROWS, State
from .scoring import N_FINAL
from .scoring import score_board_text as score_table_text  # `balancer score`

NAME = "agueda"
DISPLAY_NAME = "Águeda: City of Umbrellas"
"""The game's name as people write it (report titles; run.json records it as ``game_title``)."""
CONFIG_MODEL = AguedaConfig
DEFAULT_CONFIG = "configs/agueda/v1.yaml"
MAX_MOVES = 8_000
"""apply() calls (decisions) after which the conformance suite calls a game endless: up to 4
decisions a turn, and far more turns than any game takes (about 10 a player)."""

__all__ = [
    "NAME",
    "CONFIG_MODEL",
    "AGENTS",
    "ENGINE",
    "play_game",
    "transcript",
    "make_agent",
    "score_table_text",
    "state",
    "compiled",
]


# --------------------------------------------------------------------------- the Python protocol
# (new_game, legal_moves, apply, is_over, outcome: the registry derives them from ENGINE, core/protocol.py)


def game_state(pos: Position) -> State:
    """The rules' State of a game in progress (views into ``pos.S``: writing to it edits the game)."""
    return state(pos.S, pos.T)


class AguedaAgent:
    """``greedy`` or ``lookahead`` for the Python protocol: plans the whole turn at its first
    decision (the same search, and the same draws from ``rng``, as the runner's fast path) and hands
    it out decision by decision."""

    def __init__(self, cfg: AguedaConfig, name: str):
        self.name = name
        self.kind, self.weights = agent_params(cfg, name)
        self.candidates, self.rollouts = cfg.agents.lookahead.candidates, cfg.agents.lookahead.rollouts
        self._ws = workspace()
        self._plan = np.full(MOVE_LEN, -1, np.int64)
        self._turn = -1

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        if seat != pos.seat_to_move:
            raise ValueError(f"seat {seat + 1} is not to move")
        turn = turn_count(pos.S)
        fresh = phase(pos.S) == PH_LINE or turn != self._turn
        self._turn = turn
        return int(
            agent_decision(
                pos.S, pos.T, self.kind, self.weights, self.candidates, self.rollouts, rng, self._plan, fresh, *self._ws
            )
        )


def make_agent(cfg: AguedaConfig, name: str) -> AguedaAgent | protocol.UniformAgent:
    """An agent by name (one of :data:`AGENTS`); raises ValueError for an unknown name."""
    if name == "random":
        return protocol.UniformAgent()
    return AguedaAgent(cfg, name)


_WORKSPACE = workspace()
"""The greedy and lookahead searches' candidate buffers, shared by every play_game of a process."""


def play_game(cfg: AguedaConfig, agents: list[str], seed: np.random.SeedSequence | int):
    """Play one whole game at full speed (one compiled call, :func:`.kernel.play_table`). ``agents``
    lists the agent of each seat (its length is the player count). Raises ValueError for an
    unsupported player count or an unknown agent. Its trajectory (``Outcome.standings``): each seat's
    score as Final Scoring would count it at the end of every round and at the game's end
    (:func:`.kernel.play_table`)."""
    n = len(agents)
    T = compiled(cfg, n)
    kinds = np.zeros(n, np.int64)
    weights = np.zeros((n, 7))
    for s, name in enumerate(agents):
        kinds[s], weights[s] = agent_params(cfg, name)
    game_rng, agent_rng = game_rngs(seed)
    look = cfg.agents.lookahead
    traj = np.zeros((checkpoint_bound(T.rules), n), np.int64)
    S, rows, shops, ai, k = play_table(
        T, kinds, weights, look.candidates, look.rollouts, game_rng, agent_rng, *_WORKSPACE, traj
    )
    outcome = outcome_of(cfg, rows, shops, int(ai), ended_by(S, T))
    return dataclasses.replace(outcome, standings=traj[:k].astype(np.float64).tolist())


def play_chunk(cfg: AguedaConfig, agents: list[str], run_seed: int, start: int, stop: int, trajectories: bool = True):
    """Games ``start..stop-1`` of a run seeded ``run_seed`` in one compiled call
    (:func:`balancer.core.table_loop.play_chunk_records` on :func:`.kernel.play_seated`): the games :func:`play_game` plays with
    ``game_seed(run_seed, i)`` for the seats ``seat_agents(agents, i)``, with the same records
    (:func:`.kernel.records_batch`) and trajectories (none with ``trajectories=False``, as ``run
    --no-flow`` asks). Raises ValueError as :func:`play_game` does."""
    n = len(agents)
    T = compiled(cfg, n)
    kinds = np.zeros(n, np.int64)
    weights = np.zeros((n, 7))
    for s, name in enumerate(agents):
        kinds[s], weights[s] = agent_params(cfg, name)
    look = cfg.agents.lookahead
    ws = (look.candidates, look.rollouts, *workspace())
    records = play_chunk_records(
        T, kinds, weights, ws, run_seed, start, stop, record_length(T.rules, trajectories), scratch=True
    )  # wide rows (room for the safety stop's rounds), mostly empty: a buffer reused chunk after chunk
    used = n * N_FINAL + 5  # the finished game's numbers, then the checkpoints its rounds filled
    if trajectories and records.shape[0]:
        used += int(records[:, used - 1].max()) * n
    return records_batch(cfg, records[:, :used].copy(), n)  # a copy: the buffer is the next chunk's


def chunk_games(cfg: AguedaConfig, agents: list[str]) -> int:
    """The most games of a default chunk (about a second of play, ``GameSpec.chunk_games``): tables
    of greedy and random seats play a few thousand games a second, a lookahead seat about ten."""
    kinds = [agent_params(cfg, a)[0] for a in agents]
    return 5_000 if all(k in (RANDOM, GREEDY) for k in kinds) else DEFAULT_CHUNK_GAMES


# --------------------------------------------------------------------------- transcripts


def guide_take(take: str, index: int) -> str:
    """What a tour-guide card takes, in a transcript's words: ``line 3``, ``row 1``, ``column 2``, or
    ``the most common colour`` (that kind has no index)."""
    return "the most common colour" if take == "most_common_colour" else f"{take} {index}"


def draw_board(cfg: AguedaConfig, st: State, seat: int) -> list[str]:
    """The player board as text: one line per row, a colour's first letter per umbrella, '.' empty,
    paintbrush spaces in brackets; the tourist tile beside each row with its tourists."""
    names = cfg.umbrellas.colours
    rules_brush = [[s - 1 for s in row] for row in cfg.board.paintbrush]
    lines = []
    for r in range(ROWS):
        cells = []
        for j in range(cfg.board.row_length):
            c = int(st.board[seat, r, j])
            ch = names[c][0].upper() if c >= 0 else "."
            cells.append(f"[{ch}]" if j in rules_brush[r] else f" {ch} ")
        a, b = cfg.tourists.tiles[int(st.tile_at[seat, r])]
        lines.append("".join(cells) + f"   tile {a}/{b}, tourists {int(st.occ[seat, r])}")
    return lines


def transcript(cfg: AguedaConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A turn-by-turn account of one game (same moves as :func:`play_game` with this seed), one line
    per whole turn, then the final boards and the scores."""
    n = len(agents)
    game = protocol.new_game(ENGINE, cfg, n, seed)
    _, agent_rng = game_rngs(seed)
    players = [make_agent(cfg, a) for a in agents]
    names = cfg.umbrellas.colours
    st = game_state(game)
    head = "solo" if n == 1 else f"{n} players"
    lines = [
        f"Águeda {cfg.variant}, {head}: " + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents)),
        "Shop cards: "
        + "; ".join(
            cfg.shops.cards[int(st.shops[i])].name
            + (
                " [" + ", ".join(names[c] for c in range(len(names)) if (int(st.shop_mask[i]) >> c) & 1) + "]"
                if st.shop_mask[i]
                else ""
            )
            for i in range(2)
        ),
    ]
    turn = 0
    while not protocol.is_over(game):
        seat = game.seat_to_move
        market = " ".join(names[c][0].upper() if c >= 0 else "." for c in st.market)
        before = int(st.stats[seat, 0])
        coins = int(st.coins[seat])
        deck_pos = int(st.g[G_DECK])
        played = int(st.g[G_MOVES])
        while not protocol.is_over(game) and int(st.g[G_MOVES]) == played:  # the decisions of one turn
            protocol.apply(game, players[seat].choose(game, seat, agent_rng))
        turn += 1
        gained = int(st.stats[seat, 0]) - before
        lines.append(
            f"{turn:3d}. seat {seat + 1} [market {market}; coins {coins}]: "
            f"{describe_turn(cfg, game.T, last_turn(game.S))}" + (f" (+{gained})" if gained else "")
        )
        if game.T.rules.solo:
            card = cfg.solo.deck[int(st.deck[deck_pos])]
            lines.append(
                f"     tour guide: {card.name} ({guide_take(card.take, card.index)}); "
                f"AI took {int(st.ai.sum())} umbrellas so far"
            )
    out = protocol.outcome(game)
    if out.ended_by != "rules":
        lines.append(turn_cap_line(f"end.max_turns, {cfg.end.max_turns} turns", "the Game End never came"))
    lines.append("\nFinal boards:")
    for s in range(n):
        lines.append(
            f"Seat {s + 1} ({agents[s]}): {out.scores[s]} points = "
            + " + ".join(f"{k} {v[s]}" for k, v in out.components.items())
            + f"; coins {int(st.coins[s])}, mural tiles {int(out.tiebreak[s][1])}"
        )
        lines += ["  " + row for row in draw_board(cfg, st, s)]
    if n == 1:
        ai = int(out.metrics["ai_score"][0])
        verdict = "the player wins" if out.metrics["solo_win"][0] else "the AI wins (ties go to the AI)"
        lines.append(f"\nAI ({cfg.solo.difficulty}): {ai} points; {verdict}.")
        return "\n".join(lines)
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    winners = [s for s in range(n) if shares[s] > 0]
    if len(winners) == 1:
        lines.append(f"\nWinner: seat {winners[0] + 1} ({agents[winners[0]]}) with {out.scores[winners[0]]} points.")
    else:
        lines.append(
            "\nShared victory: "
            + ", ".join(f"seat {s + 1} ({agents[s]})" for s in winners)
            + f", {out.scores[winners[0]]} points, equal on every tie-breaker."
        )
    return "\n".join(lines)


from ...core.registry import spec_from_module  # noqa: E402
from .kernel import GAME_AGENT, game_agent  # noqa: E402
from .metrics import METRICS  # noqa: E402


def _seat_agent(cfg: AguedaConfig, name: str) -> tuple[int, np.ndarray] | None:
    """A greedy or lookahead seat beside MCTS seats: (code, its 7 weights, candidates, rollouts)."""
    kind, weights = agent_params(cfg, name)
    if kind == 0:
        return None
    look = cfg.agents.lookahead
    return GAME_AGENT + kind, np.concatenate([weights, [look.candidates, look.rollouts]])


SPEC = spec_from_module(
    sys.modules[__name__],
    display_name=DISPLAY_NAME,
    default_config="agueda/v1.yaml",
    engine=ENGINE,
    max_protocol_moves=MAX_MOVES,
    score_table_text=score_table_text,
    play_chunk=play_chunk,
    metrics=METRICS,
    chunk_games=chunk_games,
    seat_agent=_seat_agent,
    game_agent=game_agent,
)
"""This game in the registry (:mod:`balancer.core.registry`)."""
