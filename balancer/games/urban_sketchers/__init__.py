"""Urban Sketchers: a dice draft for 2-4 players filling travel sketchbooks and publishing them
(the Urban Sketchers rulebook; numbers in ``configs/urban_sketchers/base.yaml``).

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

Every decision inside an action is a separate decision of the agent (``kernel.legal``).

Engine. The game runs on its compiled engine: ``fast.py`` (numba over one int64 state buffer and a
variant compiled to ints and one rule table: Set Up, the legal decisions in a fixed order, the
transitions with their draws, final scoring, and the ``random`` and ``greedy`` agents' decisions)
and ``kernel.py``, the game's compiled interface (:data:`ENGINE`, :mod:`balancer.core.kernel`) over
it, with the transcript's lines (``kernel.describe``, read from the compiled state). ``rules.py``
holds the codes (decision kinds, phases) and the variant's numbers (:class:`.rules.Rules`,
``rules.compile_rules``), ``scoring.py`` the score components and the readable scoring of hand-typed
holdings (``balancer score``), ``agents.py`` the protocol's agents, ``rollout`` included, all over the
compiled engine. The Python protocol (:func:`new_game`, :func:`legal_moves`, :func:`apply`, ...) is
derived from the interface: a position is a :class:`balancer.core.protocol.Position` holding the
compiled state, a move one int64 code per decision, ``kind | a << 8 | (b + 1) << 24 | (c + 1) << 32``
for the decision ``(kind, a, b, c)`` (:func:`encode_move`, :func:`decode_move`). :func:`play_game`
(the runner's entry) plays tables of ``random`` and ``greedy`` in one compiled call
(:func:`play_game_fast`), other tables through the protocol; ``balancer play`` (:func:`transcript`)
steps the protocol.

A readable reference engine (the state as lists, the legal decisions, the transitions, the reference
``random``, ``greedy`` and ``rollout`` agents, final scoring) is the tests' oracle and lives with them
(``tests/games/urban_sketchers/us_reference/``); no run imports it. The compiled engine and agents
play its games decision for decision: the same legal decisions in the same order, the same choices,
the same draws from the same generators (``test_us_fast.py``, ``test_us_kernel.py``).

Hidden information (``kernel.py``): the order of the travel deck and of the bonus bag, and the cards
dealt face down at Set Up 10 still in the other players' hands (cards picked up from the face-up
board are seen by all); the interface's determinize deals those again from the cards a seat has not
seen. Heuristic: the logistic of a seat's value over the best other seat's (``agents.heuristic``:
``scale``, and ``progress``, the weight of the greedy value of its holdings against its points if the
game ended now); no solo game. Move scores: the greedy agent's own values (a die by its turn
completed greedily). Rollout policy: the die at random, the action's decisions greedy.

Agents: ``random`` (uniform over the legal decisions, one ``rng.random()`` each: the interface's
``UniformAgent``), ``greedy`` (one action ahead on a heuristic value) and ``rollout`` (flat Monte
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
Trajectory (issue 49): each seat's points if the game ended now (the final scoring of the position) at
the end of every round, the last checkpoint the game's end (:func:`.fast.play`'s ``trail``).
"""

from __future__ import annotations

import dataclasses
import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)  # before the compiled modules load: numba's cache misses cross-module changes

import numpy as np

from ...core import protocol
from ...core.batch import GameBatch
from ...core.game import Outcome, ranks_and_win_shares
from ...core.kernel import turn_cap_line
from ...core.seeding import game_rngs
from ...core.table_loop import play_chunk_records
from . import fast, kernel
from .agents import AGENTS, SEARCH_AGENTS
from .agents import make_agent as _make_agent
from .config import COLOURS, UrbanSketchersConfig, deck_report
from .kernel import ENGINE, decode_move, encode_move
from .kernel import fast_tables as fast_tables  # the tests' door to the compiled tables
from .rules import Rules
from .scoring import parse_position, score_position

NAME = "urban_sketchers"
CONFIG_MODEL = UrbanSketchersConfig
DEFAULT_CONFIG = "configs/urban_sketchers/base.yaml"
MAX_MOVES = 100_000
EXTRA_AGENTS: tuple[str, ...] = SEARCH_AGENTS
"""Agents :func:`check_agent` accepts beyond :data:`AGENTS` (``balancer games`` lists them)."""

__all__ = [
    "NAME",
    "CONFIG_MODEL",
    "AGENTS",
    "EXTRA_AGENTS",
    "ENGINE",
    "play_game",
    "play_game_fast",
    "transcript",
    "make_agent",
    "check_agent",
    "describe_config",
    "score_table_text",
    "encode_move",
    "decode_move",
]


def compiled(cfg: UrbanSketchersConfig, n: int) -> Rules:
    """The variant's numbers (:class:`.rules.Rules`) for ``n`` players (cached). ValueError for an unsupported count."""
    return kernel.rules_for(cfg, n)


# --------------------------------------------------------------------------------------------------
# the Python protocol: the registry derives it from ENGINE (core/protocol.py; moves are its int codes)


def make_agent(cfg: UrbanSketchersConfig, name: str):
    """An agent of the Python protocol by name (one of :data:`AGENTS`, or ``rollout``); its ``choose``
    returns a decision's code. ValueError for an unknown name."""
    return _make_agent(cfg, name)


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


# --------------------------------------------------------------------------------------------------
# whole games


def play_game(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """One whole game; ``agents`` names each seat's agent. Tables of ``random`` and ``greedy`` seats
    play in one compiled call (:func:`play_game_fast`), others through the protocol (the same
    games). ValueError for an unsupported player count or an unknown agent."""
    if all(a in fast.AGENT_KINDS for a in agents):
        return play_game_fast(cfg, agents, seed)
    players = [make_agent(cfg, a) for a in agents]
    pos = protocol.new_game(ENGINE, cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    K = ENGINE.kernel
    while not K.is_over(pos.S, pos.T):
        seat = pos.seat_to_move
        K.apply(pos.S, pos.T, np.int64(players[seat].choose(pos, seat, agent_rng)), pos.rng)
    return ENGINE.outcome(pos.S, pos.T)


def play_game_fast(
    cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int, record: np.ndarray | None = None
) -> Outcome:
    """:func:`play_game` on the compiled engine in one call (Set Up, the decisions of
    :data:`.fast.AGENT_KINDS` seats only, final scoring), ValueError for other agents. With
    ``record`` (int64[k, 4]), its first rows receive the game's decisions ``(kind, a, b, c)``, in
    order (rows past the game's length are left as they were). Its trajectory (``Outcome.standings``):
    each seat's points if the game ended now at the end of every round, as :func:`play_chunk` records
    it (:func:`.kernel.trajectories_of`)."""
    unknown = [a for a in agents if a not in fast.AGENT_KINDS]
    if unknown:
        raise ValueError(f"the compiled engine plays {', '.join(fast.AGENT_KINDS)}; not {unknown[0]!r}")
    T = kernel.compile(cfg, len(agents))
    weights = kernel.variant_of(T)[2]
    game_rng, agent_rng = game_rngs(seed)
    S = kernel.new_state(T, game_rng)
    kinds = np.array([fast.AGENT_KINDS[a] for a in agents], np.int64)
    rec = np.zeros((0, 4), np.int64) if record is None else record
    trail = np.zeros((T.L.max_rounds, T.L.n), np.int64)
    fast.play(S, T.L, T.R, weights, kinds, game_rng, agent_rng, _workspace(T), rec, trail)
    standings, rounds = kernel.trajectories_of(trail[None], np.array([S[fast.G_ROUND] + 1]))
    return dataclasses.replace(ENGINE.outcome(S, T), standings=standings[0, : int(rounds[0])].tolist())


def play_chunk(
    cfg: UrbanSketchersConfig, agents: list[str], run_seed: int, start: int, stop: int, trajectories: bool = True
) -> GameBatch | None:
    """Games ``start..stop-1`` of a run seeded ``run_seed`` in one compiled call
    (:func:`balancer.core.table_loop.play_chunk_records` on :func:`.kernel.play_seated`): the games :func:`play_game_fast` plays with
    ``game_seed(run_seed, i)`` for the seats ``seat_agents(agents, i)``, with the same records
    (:func:`.kernel.records_batch`) and trajectories (left out with ``trajectories=False``, as
    ``run --no-flow`` asks). None (game-by-game play) for a table with an agent the compiled
    table loop does not seat (``rollout``, a Python agent over the compiled engine)."""
    if not all(a in fast.AGENT_KINDS for a in agents):
        return None
    T = kernel.compile(cfg, len(agents))
    weights = kernel.variant_of(T)[2]
    kinds = np.array([fast.AGENT_KINDS[a] for a in agents], np.int64)
    records = play_chunk_records(
        T, kinds, np.zeros((len(agents), 0)), (weights, _workspace(T)), run_seed, start, stop, kernel.record_length(T)
    )
    return kernel.records_batch(records, T, trajectories)


_WORKSPACES: dict[int, tuple[kernel.Table, fast.Workspace]] = {}


def _workspace(T: kernel.Table) -> fast.Workspace:
    hit = _WORKSPACES.get(id(T))
    if hit is None or hit[0] is not T:
        hit = _WORKSPACES[id(T)] = (T, fast.workspace(T.L))
    return hit[1]


def transcript(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A decision-by-decision account of one game through the protocol (the same decisions as
    :func:`play_game`), then scores. A game the ``end.max_rounds`` safety stop ended (recorded as
    ``turn_cap``) then says so and shows the position where progress stopped: the holdings after the
    last decision that changed any seat's points, prestige or published count (:func:`progress_key`),
    with the round of that decision (:func:`stall_lines`)."""
    players = [make_agent(cfg, a) for a in agents]
    pos = protocol.new_game(ENGINE, cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    L = pos.T.L
    lines = [
        f"Urban Sketchers {cfg.variant}, {len(agents)} players: "
        + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents))
    ]
    last_round = -1
    progress = (0, progress_key(pos.S, L), position_lines(pos.S, L))  # (round 1-based or 0, key, position)
    while not protocol.is_over(pos):
        S = pos.S
        if S[fast.G_PHASE] != 0 and S[fast.G_ROUND] != last_round:
            last_round = int(S[fast.G_ROUND])
            k = int(S[fast.G_NDICE])
            dice = ", ".join(
                f"{(*COLOURS, 'white')[int(c)]} {int(v)}"
                for c, v in zip(S[L.o_dcol : L.o_dcol + k], S[L.o_dice : L.o_dice + k])
            )
            lines.append(
                f"\nRound {last_round + 1}, first player seat {int(S[fast.G_FIRST]) + 1}; dice {dice}; "
                f"published {int(S[fast.G_TOTAL_PUB])}"
            )
        seat = pos.seat_to_move
        move = players[seat].choose(pos, seat, agent_rng)
        lines.append(f"  seat {seat + 1}: {protocol.describe_move(pos, move)}")
        protocol.apply(pos, move)
        key = progress_key(pos.S, L)
        if key != progress[1]:
            progress = (last_round + 1, key, position_lines(pos.S, L))
    out = protocol.outcome(pos)
    for s in range(len(agents)):
        lines.append(
            f"Seat {s + 1} ({agents[s]}): {out.scores[s]} points = "
            + " + ".join(f"{k} {v[s]}" for k, v in out.components.items())
        )
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    winners = [s + 1 for s in range(len(agents)) if shares[s] > 0]
    lines.append("Winner: seat " + ", ".join(map(str, winners)))
    if out.ended_by != "rules":
        lines += stall_lines(progress[0], progress[2])
    return "\n".join(lines)


def progress_key(S: np.ndarray, L: fast.Layout) -> tuple[int, ...]:
    """What counts as progress in a transcript: every seat's points (victory points scored during
    play), prestige and published sketchbooks. A game whose key stops changing is going nowhere."""
    n = L.n
    return tuple(int(x) for o in (L.o_vp, L.o_prestige, L.o_pubs) for x in S[o : o + n])


def position_lines(S: np.ndarray, L: fast.Layout) -> list[str]:
    """One line per seat of the holdings a stalled game is judged by: points, prestige, money,
    published sketchbooks, cards in hand and cards in sketchbooks in progress."""
    n = L.n
    books = S[L.o_books_n : L.o_books_n + n * L.books].reshape(n, L.books)
    return [
        f"seat {p + 1}: points {int(S[L.o_vp + p])}, prestige {int(S[L.o_prestige + p])}, "
        f"money {int(S[L.o_money + p])}, published {int(S[L.o_pubs + p])}, hand {int(S[L.o_hand_n + p])} cards, "
        f"{int(books[p].sum())} cards in sketchbooks in progress"
        for p in range(n)
    ]


def stall_lines(round_: int, position: list[str]) -> list[str]:
    """What a transcript says of a game the ``end.max_rounds`` safety stop ended: not by the rules,
    and the position where progress stopped (after the last decision that changed a seat's points,
    prestige or published count, in round ``round_``; 0: none ever did, the position after setup)."""
    when = (
        f"in round {round_}, at the last change of any seat's points, prestige or published count"
        if round_
        else "at the start: no seat's points, prestige or published count ever changed"
    )
    return [
        turn_cap_line("end.max_rounds", "the end of the game was never triggered"),
        f"Progress stopped {when}; the position then:",
        *("  " + row for row in position),
    ]


def score_table_text(cfg: UrbanSketchersConfig, text: str) -> dict[str, int]:
    """``balancer score``: final points (End of the Game 2-5) of end-of-game holdings, one line per
    player (:func:`.scoring.parse_position`). ValueError names the bad line."""
    players = parse_position(text, len(cfg.themes.names))
    if len(players) not in cfg.players:
        raise ValueError(
            f"{len(players)} player lines; this variant is for {', '.join(map(str, cfg.player_counts))} players"
        )
    return score_position(compiled(cfg, len(players)), players)


def describe_config(cfg: UrbanSketchersConfig) -> str:
    """The card-distribution check ``balancer validate`` prints for this game."""
    return deck_report(cfg)


from ...core.registry import spec_from_module  # noqa: E402
from .kernel import GAME_AGENT_GREEDY, game_agent  # noqa: E402
from .metrics import METRICS  # noqa: E402


def _seat_agent(cfg: UrbanSketchersConfig, name: str) -> tuple[int, np.ndarray] | None:
    """``greedy`` beside MCTS seats (its compiled decisions); the rollout agent (Python over the compiled
    engine) is no compiled table's game agent."""
    return (GAME_AGENT_GREEDY, np.zeros(0)) if name == "greedy" else None


SPEC = spec_from_module(
    sys.modules[__name__],
    display_name="Urban Sketchers",
    default_config="urban_sketchers/base.yaml",
    check_agent=check_agent,
    engine=ENGINE,
    extra_agents=EXTRA_AGENTS,
    max_protocol_moves=MAX_MOVES,
    score_table_text=score_table_text,
    describe_config=describe_config,
    metrics=METRICS,
    play_chunk=play_chunk,
    seat_agent=_seat_agent,
    game_agent=game_agent,
)
"""This game in the registry (:mod:`balancer.core.registry`)."""
