"""Urban Sketchers: a dice draft for 2-4 players filling travel sketchbooks and publishing them
(``../shared/rules/urban-sketchers.txt``; numbers in ``configs/urban_sketchers/base.yaml``).

Round (Round Structure): the First player rolls the 4 coloured dice and 1/3/5 white dice (2/3/4
players); in turn order everyone takes two turns, one die each; the round ends with one die left,
and the First player token passes clockwise. The game ends after the round in which the
Total-published token reaches 6/9/12.

A turn (Choose a Die): place a die on one of the player's own colour-action spaces (travel red,
sketch blue, publish yellow, funding green; once per round each) with the matching colour for free,
or with a white die paying the difference to the player who used the matching coloured die on that
action, else to the bank against the die tile beside the actions; Opportunist ignores the cost (the
other player is paid by the bank). Or place any die on a free Supply space for free. Then:

- Travel: move the traveller (1 money a space) and pick up cards (1 money each), Wanderer moves
  anywhere once; the red improvement takes 2/3 off the total; the board refills after.
- Sketch: cards from hand into the two sketchbooks, one at a time, paying each card's cost less
  the sketchbook's discounts (cards' discount icons, discount tiles), Efficient takes 2 resources
  off one card, and 0, 1, 2 ... money for the 1st, 2nd, 3rd ... card in a sketchbook this action;
  at most 6 cards and 3 bonus tiles a sketchbook; then one bonus tile (or 1 money) per bonus icon
  (the blue improvement: at least one; advanced: one more).
- Publish (steps 1-7): victory points and money by size (the longer and money tiles), theme tiles
  (the extra-theme tile), the Published and Prestige tracks with their rewards (unflip, improvement
  or 3 money, 5 money), Prestige by the longest region streak (streak tiles, yellow improvement).
- Funding: 4 money + 1 per sketchbook published (the player's own, as the worked example counts),
  3 per flipped theme tile of the funding theme, the green improvement's +3 (advanced: a bonus tile).
- Supply: as many resources as the die differs from the space's tile (+1/+2 purple improvement),
  in chosen types; a full Backpack (12) loses its oldest resource for each new one.
- Any time in the turn (but while rewards and bonus tiles are being chosen): flip two theme tiles of
  adjacent large-tile spaces for the benefit between them (unflip an opportunity tile, a bonus
  tile or 1 money instead of it, a Prestige space), the benefit's choice made in the same decision.

Set Up 11 (discarding dealt cards for their resources) is the first decisions of the game, seat by
seat. Final scoring: unpublished sketchbooks' money; 7 per set of four themes; majorities 9/5/2 per
theme with ties split and rounded down; the Prestige space's points; 1 per 5 money and resources.
Tie-breaker: most theme tiles, then a shared victory.

Every decision inside an action is a separate decision of the agent (``rules.legal_moves``).

Two engines play the same games. The readable one is the reference: ``rules.py`` (state as lists,
legal decisions, transitions), ``agents.py`` (the agents), ``scoring.py`` (final scoring); the
protocol's ``legal_moves``, ``apply``, ``transcript`` and the agents' ``choose`` use it. The compiled
one, ``fast.py`` (numba over one int64 state buffer and a variant compiled to ints and one rule
table), translates the rules and the ``random`` and ``greedy`` agents decision for decision: the same
legal decisions in the same order, the same choices, the same draws from the same generators
(``tests/games/urban_sketchers/test_us_fast.py`` checks whole games, states and decisions).
:func:`play_game` (the runner's entry) plays tables of ``random`` and ``greedy`` seats on it
(:func:`play_game_fast`; Set Up and final scoring stay the reference's) and any other table on the
reference (:func:`play_game_reference`); ``rollout`` runs its greedy playouts on it.

Agents: ``random``, ``greedy`` (one action ahead on a heuristic value) and ``rollout`` (flat Monte
Carlo over greedy playouts; accepted by name, see :func:`check_agent`); see ``agents``.

Assumptions (all in the YAML, marked ``assumed``): the card list, the board (12-space ring), the dice
tiles (1-6, one beside the colour actions and one per Supply space), the points per sketchbook size
below six, the track lengths, values and rewards, the theme pairings, the bonus-tile mix, the resource
names, the traveller's start, publish's colour, whose publications count for Funding, the blue
improvement's reading, 4 improvement tiles of each type; and these readings, each a named YAML
choice: players start with 0 money (``setup.money``); a player with no die to place passes
(``dice.none_placeable``); a full Backpack returns its single oldest resource
(``resources.full_backpack``); theme-tile pairs are flipped at the player's own decisions but not
while rewards or bonus tiles are being chosen, nor after the action (``theme_board.pair_flips``);
Publish needs a sketchbook with at least one card (``publish.min_cards``); a card beyond six earns
1 + 5 money (``publish.beyond_six``); Prestige past its last space pays 5 money a step
(``tracks.prestige_overflow_per``); a streak tile needs a card of its region in the sketchbook
(``bonus_tiles.streak_needs_card``).

Score components per seat: publishing, sets, majorities, prestige, leftovers. Metrics: game_rounds
(the game's length, the same on every seat: reported per game), paid_players, paid_bank,
received_from_players, actions_<action>, dice_<colour> (dice of that colour taken, for any action),
white_dice_on_actions (white dice placed on a colour action, paying its difference), published,
mean_publish_size, improvement_<type> (0/1: took that improvement), prestige_overflow_money.
"""

from __future__ import annotations

import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)   # before the compiled modules load: numba's cache misses cross-module changes

from functools import lru_cache

import numpy as np

from ...core.game import Outcome, ranks_and_win_shares
from ...core.seeding import game_rngs
from . import fast
from .agents import AGENTS, SEARCH_AGENTS, GreedyAgent, RandomAgent, RolloutAgent, make
from .config import ACTIONS, COLOURS, UrbanSketchersConfig, bonus_kind_names, deck_report
from .rules import (K_BONUS, K_BONUS_MONEY, K_END, K_EXTRA_THEME, K_FUND, K_IMPROVE, K_IMPROVE_MONEY, K_PASS, K_PICK,
                    K_PLACE, K_RESOURCE, K_SETUP_DISCARD, K_SETUP_DONE, K_SKETCH, K_STEP, K_THEME_PAIR, K_UNFLIP, K_WANDER,
                    P_OVER, Move, Rules, State, apply_move, compile_rules, legal_moves as _legal_moves,
                    new_state)
from .scoring import COMPONENTS, final_components, parse_position, score_position, tiebreak

NAME = "urban_sketchers"
CONFIG_MODEL = UrbanSketchersConfig
DEFAULT_CONFIG = "configs/urban_sketchers/base.yaml"
MAX_MOVES = 100_000
EXTRA_AGENTS: tuple[str, ...] = SEARCH_AGENTS
"""Agents :func:`check_agent` accepts beyond :data:`AGENTS` (``balancer games`` lists them)."""
IMPROVEMENT_NAMES = ("travel", "sketch", "publish", "funding", "supply")

__all__ = ["NAME", "CONFIG_MODEL", "AGENTS", "EXTRA_AGENTS", "new_game", "legal_moves", "apply", "is_over", "outcome",
           "play_game", "play_game_reference", "play_game_fast", "transcript", "make_agent", "check_agent", "is_legal_move", "describe_config",
           "score_table_text"]


@lru_cache(maxsize=32)
def _compiled(cfg_json: str, n: int) -> Rules:
    return compile_rules(UrbanSketchersConfig.model_validate_json(cfg_json), n)


_BY_ID: dict[tuple[int, int], tuple[UrbanSketchersConfig, Rules]] = {}


def compiled(cfg: UrbanSketchersConfig, n: int) -> Rules:
    """The variant compiled for ``n`` players (cached). ValueError for an unsupported count."""
    hit = _BY_ID.get((id(cfg), n))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    if n not in cfg.players:
        raise ValueError(f"{n} players is not supported by variant {cfg.variant!r} "
                         f"(supported: {', '.join(map(str, cfg.player_counts))})")
    rules = compile_rules(cfg, n)
    _BY_ID[(id(cfg), n)] = (cfg, rules)
    return rules


def new_game(cfg: UrbanSketchersConfig, n_players: int, seed: np.random.SeedSequence | int) -> State:
    """A game after Set Up 1-10 (its own chance from child 0 of the seed). ValueError for an
    unsupported player count."""
    rules = compiled(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    return new_state(rules, game_rng)


def legal_moves(state: State) -> list[Move]:
    """Every legal decision of the seat to move (``rules.legal_moves``); [] once the game is over."""
    return _legal_moves(state)


def is_legal_move(state: State, move: Move) -> bool:
    """True when ``move`` is one of :func:`legal_moves`."""
    return tuple(move) in set(_legal_moves(state))


def apply(state: State, move: Move) -> State:
    """Play ``move`` in place and return the state. ValueError for an illegal move."""
    if not is_legal_move(state, move):
        raise ValueError(f"illegal move {move}")
    apply_move(state, tuple(move))
    return state


def is_over(state: State) -> bool:
    """True after final scoring is due (End of the Game)."""
    return state.phase == P_OVER


def make_agent(cfg: UrbanSketchersConfig, name: str) -> RandomAgent | GreedyAgent | RolloutAgent:
    """An agent by name (one of :data:`AGENTS`, or ``rollout``); ValueError for an unknown name."""
    return make(cfg, name)


def check_agent(name: str, cfg: UrbanSketchersConfig | None = None) -> str | None:
    """None for an agent this game can seat (:data:`AGENTS` and :data:`EXTRA_AGENTS`), else the
    error message (``cfg`` is not needed: every variant seats the same agents).

    ``rollout`` (flat Monte Carlo over greedy playouts, ``agents.rollout`` in the YAML) is accepted
    but not listed in :data:`AGENTS`, which the conformance suite plays through whole games at every
    player count, many of them with a rollout seat: with the shipped parameters (and its playouts on
    the compiled engine) one four-player game with a single rollout seat takes ~1.6 CPU seconds,
    with rollout at every seat ~4.3 (about a minute more for the suite).
    """
    if name in AGENTS or name in EXTRA_AGENTS:
        return None
    return f"unknown agent {name!r}; known agents: {', '.join(AGENTS + EXTRA_AGENTS)}"


def outcome(state: State) -> Outcome:
    """Final scores (End of the Game 1-5), components, tie-breaker (most theme tiles) and metrics."""
    s = state
    n = s.rules.n
    comps = final_components(s)
    scores = [sum(v[p] for v in comps.values()) for p in range(n)]
    metrics: dict[str, list[float]] = {
        "game_rounds": [float(s.round + 1)] * n,
        "paid_players": [float(x) for x in s.st_paid_players],
        "paid_bank": [float(x) for x in s.st_paid_bank],
    }
    metrics["received_from_players"] = [float(x) for x in s.st_received]
    for a, name in enumerate(ACTIONS):
        metrics[f"actions_{name}"] = [float(s.st_actions[p][a]) for p in range(n)]
    for c, name in enumerate((*COLOURS, "white")):
        metrics[f"dice_{name}"] = [float(s.st_colours[p][c]) for p in range(n)]
    metrics["white_dice_on_actions"] = [float(x) for x in s.st_white]
    metrics["published"] = [float(x) for x in s.st_pub_count]
    metrics["mean_publish_size"] = [s.st_pub_sizes[p] / s.st_pub_count[p] if s.st_pub_count[p] else 0.0
                                    for p in range(n)]
    for t, name in enumerate(IMPROVEMENT_NAMES):
        metrics[f"improvement_{name}"] = [float(s.st_imp_taken[p][t]) for p in range(n)]
    metrics["prestige_overflow_money"] = [float(x) for x in s.st_prestige_money]
    return Outcome(scores=scores, tiebreak=tiebreak(s), components={k: comps[k] for k in COMPONENTS},
                   metrics=metrics, turns=list(s.st_turns))


def play_game(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """One whole game; ``agents`` names each seat's agent. Tables of ``random`` and ``greedy`` seats
    play on the compiled engine (:mod:`.fast`, the same games as the reference), others on the
    reference engine (:func:`play_game_reference`). ValueError for an unsupported player count or an
    unknown agent."""
    if all(a in fast.AGENT_KINDS for a in agents):
        return play_game_fast(cfg, agents, seed)
    return play_game_reference(cfg, agents, seed)


def play_game_reference(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """:func:`play_game` on the readable engine (``rules``, ``agents``), whatever the agents."""
    players = [make(cfg, a) for a in agents]
    state = new_game(cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    while state.phase != P_OVER:
        seat = state.seat
        apply_move(state, players[seat].choose(state, seat, agent_rng))
    return outcome(state)


_FAST: dict[tuple[int, int], tuple[UrbanSketchersConfig, fast.Layout, np.ndarray, fast.FastWeights]] = {}


def fast_tables(cfg: UrbanSketchersConfig, n: int) -> tuple[fast.Layout, np.ndarray, fast.FastWeights]:
    """(layout, rule table, greedy weights) of the compiled engine for ``n`` players (cached)."""
    hit = _FAST.get((id(cfg), n))
    if hit is None or hit[0] is not cfg:
        rules = compiled(cfg, n)
        lay, table = fast.compile_fast(rules)
        hit = _FAST[(id(cfg), n)] = (cfg, lay, table, fast.fast_weights(cfg, rules))
    return hit[1], hit[2], hit[3]


def play_game_fast(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int,
                   record: np.ndarray | None = None) -> Outcome:
    """:func:`play_game` on the compiled engine, for seats of :data:`.fast.AGENT_KINDS` only (ValueError
    otherwise). Set Up 1-10 and final scoring are the reference's. With ``record`` (int64[k, 4]), its
    first rows receive the game's decisions, in order (rows past the game's length are left as they were)."""
    unknown = [a for a in agents if a not in fast.AGENT_KINDS]
    if unknown:
        raise ValueError(f"the compiled engine plays {', '.join(fast.AGENT_KINDS)}; not {unknown[0]!r}")
    rules = compiled(cfg, len(agents))
    lay, table, weights = fast_tables(cfg, len(agents))
    game_rng, agent_rng = game_rngs(seed)
    state = fast.load(new_state(rules, game_rng))
    kinds = np.array([fast.AGENT_KINDS[a] for a in agents], np.int64)
    rec = np.zeros((0, 4), np.int64) if record is None else record
    fast.play(state, lay, table, weights, kinds, game_rng, agent_rng, fast.workspace(lay), rec)
    return outcome(fast.to_reference(state, rules))


def describe_move(state: State, move: Move, cfg: UrbanSketchersConfig) -> str:
    """One line of a transcript for ``move`` (before it is applied), in the YAML's names: cards by
    their ``id``, bonus tiles by their ``bonus_tiles.mix`` kind, money amounts of the variant."""
    kind, a, b, c = move
    res, themes = cfg.resources.names, cfg.themes.names
    p = state.seat

    def card(index: int) -> str:
        return f"card {cfg.cards.deck[index].id}"

    if kind == K_PLACE:
        action, arg = divmod(b, 8)
        col = (*COLOURS, "white")[state.dcol[a]]
        text = f"places the {col} {state.dice[a]} on {ACTIONS[action]}"
        if action == 2:
            text += f" (sketchbook {arg + 1}, {len(state.books[p][arg])} cards)"
        elif action == 4:
            text += f" (space {arg + 1}, tile {state.sup_tile[arg]})"
        return text + (", flipping Opportunist" if c else "")
    if kind == K_SKETCH:
        eff = f", Efficient off {res[c // 4]} and {res[c % 4]}" if c >= 0 else ""
        return f"sketches {card(a)} into sketchbook {b + 1}{eff}"
    texts = {
        K_SETUP_DISCARD: lambda: f"discards {card(a)} for its resources",
        K_SETUP_DONE: lambda: "keeps the rest of the hand",
        K_THEME_PAIR: lambda: (f"flips a theme pair for {cfg.sketch.money_instead_of_bonus} money instead of a bonus tile"
                               if state.rules.pairs[a][2] == 1 and b < 0 else
                               f"flips a theme pair for {('an unflip', 'a bonus tile', 'a Prestige space')[state.rules.pairs[a][2]]}"),
        K_PASS: lambda: "has no die to place and passes",
        K_STEP: lambda: f"steps to space {a + 1}",
        K_PICK: lambda: f"picks up {card(state.board[state.pos[p]])}",
        K_WANDER: lambda: f"flips Wanderer to space {a + 1}",
        K_END: lambda: "ends the action",
        K_BONUS: lambda: (f"takes bonus tile {bonus_kind_names(cfg)[state.rules.tile_kind[state.display[a]]]} "
                          f"into sketchbook {b + 1}"),
        K_BONUS_MONEY: lambda: f"takes {cfg.sketch.money_instead_of_bonus} money instead of a bonus tile",
        K_FUND: lambda: f"takes funding, flipping {a} theme tile(s)",
        K_RESOURCE: lambda: f"takes {res[a]}",
        K_EXTRA_THEME: lambda: f"takes the extra theme tile {themes[a]}",
        K_UNFLIP: lambda: f"unflips {('Wanderer', 'Efficient', 'Opportunist')[a]}",
        K_IMPROVE: lambda: f"{('takes', 'flips to advanced', 'takes advanced')[b]} the {IMPROVEMENT_NAMES[a]} improvement",
        K_IMPROVE_MONEY: lambda: f"takes {cfg.tracks.improvement_money} money instead of an improvement",
    }
    return texts[kind]()


def transcript(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A decision-by-decision account of one game (the same decisions as :func:`play_game`), then scores."""
    players = [make(cfg, a) for a in agents]
    state = new_game(cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    lines = [f"Urban Sketchers {cfg.variant}, {len(agents)} players: "
             + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents))]
    last_round = -1
    while state.phase != P_OVER:
        if state.phase != 0 and state.round != last_round:
            last_round = state.round
            dice = ", ".join(f"{(*COLOURS, 'white')[c]} {v}" for c, v in zip(state.dcol, state.dice))
            lines.append(f"\nRound {state.round + 1}, first player seat {state.first + 1}; dice {dice}; "
                         f"published {state.total_pub}")
        seat = state.seat
        move = players[seat].choose(state, seat, agent_rng)
        lines.append(f"  seat {seat + 1}: {describe_move(state, move, cfg)}")
        apply_move(state, move)
    out = outcome(state)
    for s in range(len(agents)):
        lines.append(f"Seat {s + 1} ({agents[s]}): {out.scores[s]} points = "
                     + " + ".join(f"{k} {v[s]}" for k, v in out.components.items()))
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    winners = [s + 1 for s in range(len(agents)) if shares[s] > 0]
    lines.append("Winner: seat " + ", ".join(map(str, winners)))
    return "\n".join(lines)


def score_table_text(cfg: UrbanSketchersConfig, text: str) -> dict[str, int]:
    """``balancer score``: final points (End of the Game 2-5) of end-of-game holdings, one line per
    player (:func:`.scoring.parse_position`). ValueError names the bad line."""
    players = parse_position(text, len(cfg.themes.names))
    if len(players) not in cfg.players:
        raise ValueError(f"{len(players)} player lines; this variant is for {', '.join(map(str, cfg.player_counts))} players")
    return score_position(compiled(cfg, len(players)), players)


def describe_config(cfg: UrbanSketchersConfig) -> str:
    """The card-distribution check ``balancer validate`` prints for this game."""
    return deck_report(cfg)


from ...core.registry import spec_from_module  # noqa: E402

SPEC = spec_from_module(sys.modules[__name__], display_name="Urban Sketchers",
                        default_config="urban_sketchers/base.yaml", check_agent=check_agent,
                        extra_agents=EXTRA_AGENTS, max_protocol_moves=MAX_MOVES,
                        score_table_text=score_table_text, describe_config=describe_config)
"""This game in the registry (:mod:`balancer.core.registry`)."""
