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

Score components reported per seat: residential, commercial, park, industrial, achievements,
seat_bonus. Metrics: wasted_tiles, empty_cells, rulers_placed, forced_discards.
"""

from __future__ import annotations

import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)   # before the compiled modules load: numba's cache misses cross-module changes

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...core.game import Outcome, ranks_and_win_shares
from ...core.seeding import game_rngs
from .agents import AGENTS, MS_INDEX, N_SEQ, SEQS, agent_params, choose_move, play_new_game, workspace
from .config import CitywrightConfig
from .rules import (DISCARD_FOR_TILE, FORCED, N_EDGE, N_SLOTS, PLACE, SLOT_LINES, Rules, State, apply_move, compile_rules,
                    FINAL_COLUMNS, any_ruler, current_seat, filled_mask, final_rows, is_legal, new_state)
from .scoring import Geometry, ScoreParams, draw_table, parse_table, score_all, score_table

NAME = "citywright"
CONFIG_MODEL = CitywrightConfig
SLOT_NAMES = ([f"row {r + 1} left" for r in range(4)] + [f"row {r + 1} right" for r in range(4)]
              + [f"column {c + 1} top" for c in range(4)] + [f"column {c + 1} bottom" for c in range(4)]
              + ["top-left corner", "top-right corner", "bottom-right corner", "bottom-left corner"])

__all__ = ["NAME", "CONFIG_MODEL", "AGENTS", "Game", "Move", "new_game", "legal_moves", "apply", "is_over",
           "outcome", "play_game", "transcript", "score_table", "score_table_text", "parse_table", "draw_table"]


@lru_cache(maxsize=32)
def _compiled(cfg_json: str, n_players: int) -> tuple[Rules, Geometry, ScoreParams]:
    return compile_rules(CitywrightConfig.model_validate_json(cfg_json), n_players)


_BY_ID: dict[tuple[int, int], tuple[CitywrightConfig, tuple[Rules, Geometry, ScoreParams]]] = {}


def compiled(cfg: CitywrightConfig, n_players: int) -> tuple[Rules, Geometry, ScoreParams]:
    """The variant compiled for ``n_players`` (cached). Raises ValueError for an unsupported count."""
    hit = _BY_ID.get((id(cfg), n_players))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    out = _compiled(cfg.model_dump_json(), n_players)
    _BY_ID[(id(cfg), n_players)] = (cfg, out)
    return out


@dataclass
class Game:
    """A game in progress: the config, its compiled rules and the mutable state arrays."""

    cfg: CitywrightConfig
    rules: Rules
    geo: Geometry
    sp: ScoreParams
    state: State
    rng: np.random.Generator   # the game's own chance: site boards and deck shuffles

    @property
    def n_players(self) -> int:
        return self.rules.n_players

    @property
    def seat_to_move(self) -> int:
        """0-based seat whose turn it is."""
        return int(current_seat(self.state, self.rules.n_players))


class Move(NamedTuple):
    """A move (see ``rules`` for the kinds). ``districts`` land on the placement's non-star cells
    in order; ``star`` is the free pick's district (five-cell rulers). For DISCARD_FOR_TILE,
    ``placement`` is the cell and ``districts[0]`` the tile."""

    kind: int
    slot: int
    placement: int = 0
    districts: tuple[int, ...] = ()
    star: int = 0

    def array(self) -> np.ndarray:
        mv = np.zeros(8, np.int64)
        mv[0], mv[1], mv[2] = self.kind, self.slot, self.placement
        for j, d in enumerate(self.districts):
            mv[3 + j] = d
        mv[7] = self.star
        return mv

    @classmethod
    def from_array(cls, mv: np.ndarray, k: int) -> "Move":
        kind = int(mv[0])
        if kind == DISCARD_FOR_TILE:
            return cls(kind, int(mv[1]), int(mv[2]), (int(mv[3]),))
        return cls(kind, int(mv[1]), int(mv[2]), tuple(int(d) for d in mv[3:3 + k]), int(mv[7]))


def _check_players(cfg: CitywrightConfig, n_players: int) -> None:
    if n_players not in cfg.player_counts:
        noun = "player is" if n_players == 1 else "players is"
        raise ValueError(f"{n_players} {noun} not supported by variant {cfg.variant!r} "
                         f"(supported: {', '.join(map(str, cfg.player_counts))})")


def new_game(cfg: CitywrightConfig, n_players: int, seed: np.random.SeedSequence | int) -> Game:
    """A game after setup (§3). ``seed`` drives only the game's own chance (child 0 of
    :func:`balancer.core.seeding.game_rngs`). Raises ValueError for an unsupported player count."""
    _check_players(cfg, n_players)
    rules, geo, sp = compiled(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    return Game(cfg, rules, geo, sp, new_state(rules, cfg.table.size, game_rng), game_rng)


def legal_moves(game: Game) -> list[Move]:
    """Every legal move of the seat to move (§5, §9.2): each slot's ruler in each distinct placement
    with each distinct tile assignment and free pick; a forced discard for a ruler with no placement.
    Can be tens of thousands of moves: meant for tests and tools, not for agents."""
    st, rules = game.state, game.rules
    if st.g[3]:
        return []
    table = st.tables[game.seat_to_move]
    filled = int(filled_mask(table))
    site_districts = sorted({int(d) for d in st.site})
    moves: list[Move] = []
    if not any_ruler(st):
        return [Move(FORCED, -1)]
    for slot in range(N_SLOTS):
        shape = int(st.slots[slot])
        if shape < 0:
            continue
        counts = [0] * 5
        for j in range(4):
            counts[int(st.site[SLOT_LINES[slot, j]])] += 1
        ms = MS_INDEX[counts[1], counts[2], counts[3], counts[4]]
        five = bool(rules.shape_five[shape])
        any_p = False
        for p in range(int(rules.pl_off[shape]), int(rules.pl_off[shape + 1])):
            if int(rules.pl_mask[p]) & filled:
                continue
            any_p = True
            k = int(rules.pl_k[p])
            stars = site_districts if five else [0]
            for q in range(int(N_SEQ[ms, k])):
                seq = tuple(int(d) for d in SEQS[ms, k, q, :k])
                for sd in stars:
                    moves.append(Move(PLACE, slot, p, seq, sd))
        if not any_p:
            moves.append(Move(FORCED, slot))
        if rules.discard_for_tile and slot >= N_EDGE:
            for c in range(table.shape[0]):
                if table[c] == 0:
                    moves.extend(Move(DISCARD_FOR_TILE, slot, c, (d,)) for d in range(1, 5))
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
    """True after the last turn of the last round (§4.2)."""
    return bool(game.state.g[3])


class CitywrightAgent:
    """Adapter from the compiled agents to the :class:`balancer.core.game.Agent` protocol."""

    def __init__(self, cfg: CitywrightConfig, name: str):
        self.name = name
        self.kind, self.weights = agent_params(cfg, name)
        self._ws = None

    def choose(self, game: Game, seat: int, rng: np.random.Generator) -> Move:
        if seat != game.seat_to_move:
            raise ValueError(f"seat {seat + 1} is not to move")
        mv = np.zeros(8, np.int64)
        if self._ws is None:
            self._ws = workspace(game.rules, game.geo.size * game.geo.size)
        choose_move(game.state, game.rules, game.geo, game.sp, self.kind, self.weights, rng, mv, self._ws)
        k = int(game.rules.pl_k[mv[2]]) if mv[0] == PLACE else 0
        return Move.from_array(mv, k)


def make_agent(cfg: CitywrightConfig, name: str) -> CitywrightAgent:
    """An agent by name (one of :data:`AGENTS`); raises ValueError for an unknown name."""
    return CitywrightAgent(cfg, name)


def outcome(game: Game) -> Outcome:
    """Final scores (§6), achievements (§7), seat bonus (§6.5) and tie-break keys (§8) per seat."""
    pts = score_all(game.state.tables, game.geo, game.sp)
    return _outcome(final_rows(game.state, game.rules, pts))


def _outcome(rows: np.ndarray) -> Outcome:
    """:class:`Outcome` from :func:`~.rules.final_rows` (int64[n, 12], columns FINAL_COLUMNS)."""
    r = rows.tolist()
    components = {name: [row[j] for row in r] for j, name in enumerate(FINAL_COLUMNS[:6])}
    metrics = {name: [float(row[j]) for row in r] for j, name in
               ((8, "wasted_tiles"), (6, "empty_cells"), (9, "rulers_placed"), (10, "forced_discards"))}
    return Outcome(scores=[sum(row[:6]) for row in r], tiebreak=[(-row[6], row[7]) for row in r],
                   components=components, metrics=metrics, turns=[row[11] for row in r])


def play_game(cfg: CitywrightConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """Play one whole game at full speed. ``agents`` lists the agent of each seat (its length is
    the player count). Raises ValueError for an unsupported player count or an unknown agent."""
    n = len(agents)
    _check_players(cfg, n)
    rules, geo, sp = compiled(cfg, n)
    kinds, weights = _table_params(cfg, tuple(agents))
    game_rng, agent_rng = game_rngs(seed)
    return _outcome(play_new_game(rules, geo, sp, kinds, weights, game_rng, agent_rng))


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


def describe_move(game: Game, move: Move) -> str:
    """One line of a transcript for ``move`` (before it is applied)."""
    st, rules = game.state, game.rules
    names = game.cfg.rulers.names
    letters = ".RCPI"
    if move.slot < 0:
        return "finds no ruler left in any slot: the turn is lost"
    slot = SLOT_NAMES[move.slot]
    shape = names[int(st.slots[move.slot])]
    if move.kind == FORCED:
        return f"drafts {shape} from the {slot}: no legal placement, ruler and tiles discarded (§5)"
    if move.kind == DISCARD_FOR_TILE:
        r, c = divmod(move.placement, game.cfg.table.size)
        return (f"drafts {shape} from the {slot} and discards it for a {letters[move.districts[0]]} "
                f"at row {r + 1}, column {c + 1} (§9.2)")
    p = move.placement
    size = game.cfg.table.size
    cells = [int(c) for c in rules.pl_cells[p, : rules.pl_k[p]]]
    put = ", ".join(f"{letters[d]}@{c // size + 1},{c % size + 1}" for c, d in zip(cells, move.districts))
    star = int(rules.pl_star[p])
    if rules.shape_five[int(st.slots[move.slot])]:
        put += (f"; free pick {letters[move.star]}@{star // size + 1},{star % size + 1}" if star >= 0
                else f"; free pick {letters[move.star]} wasted off the table")
    ntiles = 5 if rules.shape_five[int(st.slots[move.slot])] else 4
    lost = ntiles - len(cells) - (1 if star >= 0 else 0)
    return f"drafts {shape} from the {slot}: {put}" + (f" ({lost} wasted off the table)" if lost else "")


def transcript(cfg: CitywrightConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A turn-by-turn account of one game (same moves as :func:`play_game` with this seed), then
    the final tables drawn and the scores."""
    n = len(agents)
    game = new_game(cfg, n, seed)
    _, agent_rng = game_rngs(seed)
    players = [make_agent(cfg, a) for a in agents]
    lines = [f"Citywright {cfg.variant}, {n} player(s): " + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents))]
    last_round = -1
    while not is_over(game):
        rnd = int(game.state.g[0])
        if rnd != last_round:
            last_round = rnd
            site = draw_table(game.state.site, 4).splitlines()
            lines.append(f"\nRound {rnd + 1}, start player seat {int(game.state.g[2]) + 1}. Site board:")
            lines += ["  " + row for row in site]
        seat = game.seat_to_move
        move = players[seat].choose(game, seat, agent_rng)
        lines.append(f"  seat {seat + 1}: {describe_move(game, move)}")
        apply(game, move)
    out = outcome(game)
    lines.append("\nFinal tables:")
    for s in range(n):
        lines.append(f"Seat {s + 1} ({agents[s]}): {out.scores[s]} points = "
                     + " + ".join(f"{k} {v[s]}" for k, v in out.components.items())
                     + f"; empty cells {int(-out.tiebreak[s][0])}, wasted tiles {int(out.metrics['wasted_tiles'][s])}")
        lines += ["  " + row for row in draw_table(game.state.tables[s], cfg.table.size).splitlines()]
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    winners = [s for s in range(n) if shares[s] > 0]
    if len(winners) == 1:
        lines.append(f"\nWinner: seat {winners[0] + 1} ({agents[winners[0]]}) with {out.scores[winners[0]]} points.")
    else:
        lines.append("\nShared victory (§8): " + ", ".join(f"seat {s + 1} ({agents[s]})" for s in winners)
                     + f", {out.scores[winners[0]]} points, equal on every tie-breaker.")
    return "\n".join(lines)


def score_table_text(cfg: CitywrightConfig, text: str) -> dict[str, int]:
    """``balancer score``: points of a drawn table (lines of R C P I .), no seat bonus.
    Raises ValueError naming the bad line."""
    return score_table(cfg, parse_table(text, cfg.table.size))


from ...core.registry import spec_from_module  # noqa: E402

SPEC = spec_from_module(sys.modules[__name__], display_name="Citywright", default_config="citywright/v1.1.yaml",
                        score_table_text=score_table_text)
"""This game in the registry (:mod:`balancer.core.registry`)."""
