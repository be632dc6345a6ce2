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

Version history. v1 (``configs/agueda/v1.yaml``): the rulebook with the assumptions above.
"""

from __future__ import annotations

import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)   # before the compiled modules load: numba's cache misses cross-module changes

from dataclasses import dataclass
from itertools import permutations
from typing import NamedTuple

import numpy as np

from ...core.game import Outcome, ranks_and_win_shares
from ...core.seeding import game_rngs
from .agents import AGENTS, agent_params, choose_move, play_new_game, workspace
from .config import AguedaConfig
from .rules import (ATTRACT_ONE, ATTRACT_TWO, G_OVER, G_SEAT, MAX_LINE, MOVE_LEN, MV_K, MV_LINE, MV_ORDER, MV_ROW,
                    MV_TCOL, MV_TOURIST, MV_TROW, ROWS, TAKE_BREAK, Rules, State, apply_move, compile_rules,
                    empty_state, is_legal, line_legal, line_umbrellas, place_effects, setup)
from .scoring import score_board_text as score_table_text  # `balancer score`
from .scoring import (COMPONENTS, F_ATTRACTED, F_BREAKS, F_COINS, F_COINS_GAINED, F_COINS_SPENT, F_EMPTY_COUNT,
                      F_MURAL_TILES, F_RETURNED, F_TURNS, ai_score, final_rows)

NAME = "agueda"
DISPLAY_NAME = "Águeda: City of Umbrellas"
"""The game's name as people write it (report titles; run.json records it as ``game_title``)."""
CONFIG_MODEL = AguedaConfig
DEFAULT_CONFIG = "configs/agueda/v1.yaml"
MAX_MOVES = 2_000
"""apply() calls after which the conformance suite calls a game endless (5 players x 21 spaces)."""

__all__ = ["NAME", "CONFIG_MODEL", "AGENTS", "Game", "Move", "new_game", "legal_moves", "apply", "is_over",
           "outcome", "play_game", "transcript", "make_agent", "is_legal_move", "score_table_text"]

_BY_ID: dict[tuple[int, int], tuple[AguedaConfig, Rules]] = {}


def compiled(cfg: AguedaConfig, n_players: int) -> Rules:
    """The variant compiled for ``n_players`` (cached). Raises ValueError for an unsupported count."""
    hit = _BY_ID.get((id(cfg), n_players))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    rules = compile_rules(cfg, n_players)
    _BY_ID[(id(cfg), n_players)] = (cfg, rules)
    return rules


@dataclass
class Game:
    """A game in progress: the config, its compiled rules and the mutable state arrays."""

    cfg: AguedaConfig
    rules: Rules
    state: State
    rng: np.random.Generator   # the game's own chance: bag draws, shop cards and markers, solo deck

    @property
    def n_players(self) -> int:
        return self.rules.n_players

    @property
    def seat_to_move(self) -> int:
        """0-based seat whose turn it is."""
        return int(self.state.g[G_SEAT])


class Move(NamedTuple):
    """One turn (see :mod:`.rules` for the array form). ``line`` -1: no line could be taken.
    ``order``: the umbrellas' colour codes in placing order. ``tourist``: TAKE_BREAK (0),
    ATTRACT_ONE (1) or ATTRACT_TWO (2) at board row ``tourist_row``, scoring ``tourist_colour``
    (ATTRACT_ONE only)."""

    line: int
    row: int
    order: tuple[int, ...] = ()
    tourist: int = TAKE_BREAK
    tourist_row: int = -1
    tourist_colour: int = -1

    def array(self) -> np.ndarray:
        mv = np.full(MOVE_LEN, -1, np.int64)
        mv[MV_LINE], mv[MV_ROW], mv[MV_K] = self.line, self.row, len(self.order)
        mv[MV_TOURIST], mv[MV_TROW], mv[MV_TCOL] = self.tourist, self.tourist_row, self.tourist_colour
        for j, c in enumerate(self.order[:MAX_LINE]):
            mv[MV_ORDER + j] = c
        if len(self.order) > MAX_LINE:
            mv[MV_K] = MAX_LINE + 1   # never legal
        return mv

    @classmethod
    def from_array(cls, mv: np.ndarray) -> "Move":
        k = int(mv[MV_K])
        return cls(int(mv[MV_LINE]), int(mv[MV_ROW]), tuple(int(c) for c in mv[MV_ORDER:MV_ORDER + k]),
                   int(mv[MV_TOURIST]), int(mv[MV_TROW]), int(mv[MV_TCOL]))


def new_game(cfg: AguedaConfig, n_players: int, seed: np.random.SeedSequence | int) -> Game:
    """A game after Setup. ``seed`` drives only the game's own chance (child 0 of
    :func:`balancer.core.seeding.game_rngs`). Raises ValueError for an unsupported player count."""
    rules = compiled(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    st = empty_state(rules)
    setup(st, rules, game_rng)
    return Game(cfg, rules, st, game_rng)


def tourist_options(game: Game, row: int, order: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(tourist, tourist_row, tourist_colour) options legal after placing ``order`` into ``row``
    (Attract Tourists; a tourist unlocked by this placement may be used at once)."""
    st, rules = game.state, game.rules
    seat = game.seat_to_move
    arr = np.full(MAX_LINE, -1, np.int64)
    arr[:len(order)] = order
    _, _, done = place_effects(st, rules, seat, row, arr, len(order), np.zeros(rules.n_colours, np.int64))
    suit = int(st.suitcase[seat]) + int(done) * rules.locked_per_row
    out = [(TAKE_BREAK, -1, -1)]
    for r in range(ROWS):
        if st.occ[seat, r] != 0:
            continue
        tile = int(st.tile_at[seat, r])
        colours = sorted({int(rules.tile_col[tile, 0]), int(rules.tile_col[tile, 1])})
        if suit >= 1:
            out += [(ATTRACT_ONE, r, c) for c in colours]
        if suit >= 2:
            out.append((ATTRACT_TWO, r, -1))
    return out


def legal_moves(game: Game) -> list[Move]:
    """Every legal move of the seat to move: each line it may take, each row, each distinct order
    of the umbrellas, each tourist option. Empty once the game is over."""
    st, rules = game.state, game.rules
    if st.g[G_OVER]:
        return []
    seat = game.seat_to_move
    lines = [ln for ln in range(len(rules.line_len)) if line_legal(st, rules, seat, ln)]
    buf = np.zeros(MAX_LINE, np.int64)
    moves: list[Move] = []
    for line in lines or [-1]:
        taken = tuple(int(c) for c in buf[:line_umbrellas(st.market, rules.line_cells, rules.line_len, line, buf)]) if line >= 0 else ()
        for order in sorted(set(permutations(taken))):
            for row in range(ROWS):
                moves += [Move(line, row, order, *opt) for opt in tourist_options(game, row, order)]
    return moves


def is_legal_move(game: Game, move: Move) -> bool:
    """True when ``move`` is legal for the seat to move."""
    return bool(is_legal(game.state, game.rules, move.array()))


def apply(game: Game, move: Move) -> Game:
    """Play ``move`` in place (engines may mutate, DESIGN.md) and return the game.
    Raises ValueError for an illegal move."""
    mv = move.array()
    if not is_legal(game.state, game.rules, mv):
        raise ValueError(f"illegal move {move}")
    apply_move(game.state, game.rules, mv, game.rng)
    return game


def is_over(game: Game) -> bool:
    """True after the last turns (Game End), solo after the last tour-guide card."""
    return bool(game.state.g[G_OVER])


class AguedaAgent:
    """Adapter from the compiled agents to the :class:`balancer.core.game.Agent` protocol."""

    def __init__(self, cfg: AguedaConfig, name: str):
        self.name = name
        self.kind, self.weights = agent_params(cfg, name)
        self.candidates, self.rollouts = cfg.agents.lookahead.candidates, cfg.agents.lookahead.rollouts
        self._ws = workspace()

    def choose(self, game: Game, seat: int, rng: np.random.Generator) -> Move:
        if seat != game.seat_to_move:
            raise ValueError(f"seat {seat + 1} is not to move")
        mv = np.full(MOVE_LEN, -1, np.int64)
        choose_move(game.state, game.rules, self.kind, self.weights, self.candidates, self.rollouts, rng, mv,
                    *self._ws)
        return Move.from_array(mv)


def make_agent(cfg: AguedaConfig, name: str) -> AguedaAgent:
    """An agent by name (one of :data:`AGENTS`); raises ValueError for an unknown name."""
    return AguedaAgent(cfg, name)


def shop_pair(cfg: AguedaConfig, shops: np.ndarray) -> str:
    """The label of a game's shop cards: the two names sorted and joined by " + "."""
    return " + ".join(sorted(cfg.shops.cards[int(i)].name for i in shops))


def _outcome(cfg: AguedaConfig, rows: np.ndarray, shops: np.ndarray, ai: int) -> Outcome:
    """:class:`Outcome` from :func:`~.scoring.final_rows` (columns F_*), the shop cards and the
    solo AI's score."""
    r = rows.tolist()
    n = len(r)
    components = {name: [row[j] for row in r] for j, name in enumerate(COMPONENTS)}
    scores = [sum(row[:len(COMPONENTS)]) for row in r]
    metrics = {name: [float(row[j]) for row in r] for name, j in
               (("coins_gained", F_COINS_GAINED), ("coins_spent", F_COINS_SPENT), ("coins_left", F_COINS),
                ("umbrellas_returned", F_RETURNED), ("tourists_attracted", F_ATTRACTED), ("breaks", F_BREAKS),
                ("mural_tiles", F_MURAL_TILES), ("empty_spaces", F_EMPTY_COUNT))}
    metrics["game_turns"] = [float(sum(row[F_TURNS] for row in r))] * n   # game length, every seat's turns
    if n == 1:
        metrics["ai_score"] = [float(ai)]
        metrics["solo_win"] = [1.0 if scores[0] > ai else 0.0]   # Solo: the AI wins ties
    return Outcome(scores=scores, tiebreak=[(-row[F_EMPTY_COUNT], row[F_MURAL_TILES], row[F_COINS]) for row in r],
                   components=components, metrics=metrics, turns=[row[F_TURNS] for row in r],
                   labels={"shops": [shop_pair(cfg, shops)] * n})


def outcome(game: Game) -> Outcome:
    """Final Scoring and the tie-breakers (Winning the Game) per seat; solo, the AI's score too."""
    st, rules = game.state, game.rules
    ai = int(ai_score(st, rules)) if rules.solo else 0
    return _outcome(game.cfg, final_rows(st, rules), st.shops, ai)


def play_game(cfg: AguedaConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """Play one whole game at full speed. ``agents`` lists the agent of each seat (its length is
    the player count). Raises ValueError for an unsupported player count or an unknown agent."""
    n = len(agents)
    rules = compiled(cfg, n)
    kinds = np.zeros(n, np.int64)
    weights = np.zeros((n, 7))
    for s, name in enumerate(agents):
        kinds[s], weights[s] = agent_params(cfg, name)
    game_rng, agent_rng = game_rngs(seed)
    st = empty_state(rules)
    look = cfg.agents.lookahead
    rows, ai = play_new_game(st, rules, kinds, weights, look.candidates, look.rollouts, game_rng, agent_rng,
                             *workspace())
    return _outcome(cfg, rows, st.shops, int(ai))


# --------------------------------------------------------------------------- transcripts

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


def describe_move(game: Game, move: Move) -> str:
    """One line of a transcript for ``move`` (before it is applied)."""
    names = game.cfg.umbrellas.colours
    rules = game.rules
    if move.line < 0:
        take = "cannot take a line"
    else:
        d = int(rules.coins_by_count[len(move.order)])
        coin = " (+1 coin)" if d > 0 else f" (pays {-d} coin)" if d < 0 else ""
        take = f"takes line {move.line + 1}{coin} and places {', '.join(names[c] for c in move.order)} in row {move.row + 1}"
    if move.tourist == TAKE_BREAK:
        rest = "takes a break"
    elif move.tourist == ATTRACT_ONE:
        rest = f"attracts 1 tourist to row {move.tourist_row + 1} scoring {names[move.tourist_colour]}"
    else:
        rest = f"attracts 2 tourists to row {move.tourist_row + 1}"
    return f"{take}; {rest}"


def transcript(cfg: AguedaConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A turn-by-turn account of one game (same moves as :func:`play_game` with this seed), then
    the final boards and the scores."""
    n = len(agents)
    game = new_game(cfg, n, seed)
    _, agent_rng = game_rngs(seed)
    players = [make_agent(cfg, a) for a in agents]
    names = cfg.umbrellas.colours
    st = game.state
    head = "solo" if n == 1 else f"{n} players"
    lines = [f"Águeda {cfg.variant}, {head}: " + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents)),
             "Shop cards: " + "; ".join(
                 cfg.shops.cards[int(st.shops[i])].name
                 + (" [" + ", ".join(names[c] for c in range(len(names)) if (int(st.shop_mask[i]) >> c) & 1) + "]"
                    if st.shop_mask[i] else "") for i in range(2))]
    turn = 0
    while not is_over(game):
        seat = game.seat_to_move
        market = " ".join(names[c][0].upper() if c >= 0 else "." for c in st.market)
        move = players[seat].choose(game, seat, agent_rng)
        before = int(st.stats[seat, 0])
        coins = int(st.coins[seat])
        text = describe_move(game, move)
        deck_pos = int(st.g[4])
        apply(game, move)
        turn += 1
        gained = int(st.stats[seat, 0]) - before
        lines.append(f"{turn:3d}. seat {seat + 1} [market {market}; coins {coins}]: {text}"
                     + (f" (+{gained})" if gained else ""))
        if game.rules.solo:
            card = cfg.solo.deck[int(st.deck[deck_pos])]
            lines.append(f"     tour guide: {card.name} ({card.take} {card.index}); AI took "
                         f"{int(st.ai.sum())} umbrellas so far")
    out = outcome(game)
    lines.append("\nFinal boards:")
    for s in range(n):
        lines.append(f"Seat {s + 1} ({agents[s]}): {out.scores[s]} points = "
                     + " + ".join(f"{k} {v[s]}" for k, v in out.components.items())
                     + f"; coins {int(st.coins[s])}, mural tiles {int(out.tiebreak[s][1])}")
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
        lines.append("\nShared victory: " + ", ".join(f"seat {s + 1} ({agents[s]})" for s in winners)
                     + f", {out.scores[winners[0]]} points, equal on every tie-breaker.")
    return "\n".join(lines)


from ...core.registry import spec_from_module  # noqa: E402

SPEC = spec_from_module(sys.modules[__name__], display_name=DISPLAY_NAME, default_config="agueda/v1.yaml",
                        max_protocol_moves=MAX_MOVES, score_table_text=score_table_text)
"""This game in the registry (:mod:`balancer.core.registry`)."""
