"""Urgency's compiled interface (:mod:`balancer.core.kernel`: ``Kernel``, ``Engine``).

A thin shape over the compiled rules of :mod:`.rules`, which stay the one place where Urgency's
legality and transitions are written: ``legal`` lists :func:`~.rules.decisions` (token moves
straight from :func:`~.rules.gen_moves`), ``apply`` is :func:`~.rules.apply_decision` (the decision,
then the game's own steps: rolls, passes, turn starts, roll agains, up to the next decision), the
state ``S`` is the rules' int64 array (``STATE_SIZE`` entries) and the rule table ``T`` is a
:class:`Table` around the rules' int64 array.

Moves. One int64 per decision, ``code = kind << 8 | arg`` (:func:`code`, :func:`kind_of`,
:func:`arg_of`); ``kind`` is the rules' decision kind:

- ``MOVE`` (0): move a token by the current roll from tile ``arg`` (1-14), or enter one (``arg``
  0). Since MOVE is 0, a token move's code is the tile it leaves: 0-14.
- ``PICK`` (1): card id ``arg`` (the order of :func:`~.rules.compile_rules`) among the offered cards:
  the Rosette card kept at Setup, the card of a pile put into play (the other is discarded), the
  final card from the discard pile, a set-in-stone card or a full-force card. Codes 256 + card.
- ``ROLL`` (2, code 512) or ``TRIGGER`` (3, code 768 + card): an Eagle's choice at the start of
  its turn, roll the dice or trigger its ``instead_of_roll`` card ``arg``.

A turn is already a sequence of single decisions (the roll is chance, resolved inside ``apply``), so
nothing is split further. At most 16 moves are legal at once (8 token moves, 8 offered cards, a roll
and the Eagle cards in play).

Hidden information (Rule Cards, Setup; ``cards.visibility`` in the YAML). A seat cannot see:

- the cards of any face-down pile (its own too) except the pile it is choosing from right now, and
  in the set-in-stone and full-force setups, the 6 cards it is choosing among;
- the opponent's set-in-stone order (its queued cards not yet in play);
- the opponent's Rosette draw (2 cards), except the one it keeps, which is in play face up;
- the cards offered to the opponent while the opponent chooses (copies of the above).

Everything else is public: the board, supplies and scores, the cards in play, both discard piles
(face up: ``cards.visibility.discard_pile``, assumed), each seat's animal deck
(``cards.visibility.animal_decks``, assumed) and so the list of cards it holds, forced next rolls,
the Eagle's lock, the pending card choices. :func:`determinize` deals, from one seat's point of view,
each player's unseen deck cards again over that player's unseen pile and queue slots, and the
opponent's unseen Rosette cards from the Rosette cards that seat has not seen (the shared deck's
undrawn cards included). Dice are chance, never hidden: without cards (``no-cards.yaml``) nothing is
hidden and determinize changes nothing.

Values. ``returns``: the win shares of the two seats (1 to the seat with more tokens scored, 0.5
each when equal, only possible at the ``cards.max_turns`` stop), as ``ranks_and_win_shares`` of the
Outcome. ``heuristic``: before the end, the logistic of the progress margin, seat 1's
``15 x scored + the tiles of its tokens on the board`` minus seat 2's, divided by
``agents.heuristic_scale`` (tiles; compiled into ``T``): 1 / (1 + exp(-margin / scale)) for seat 1,
the complement for seat 2; at the end, ``returns``. ``policy``: the ``greedy`` agent's decision
(deterministic, it draws nothing; about as cheap as a uniform move, see docs/games/urgency.md, Speed).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numba as nb
import numpy as np

from ...core.game import Outcome
from ...core.kernel import ENDED_BY, GAME_AGENT, RULES, TURN_CAP, Engine, Kernel
from ...core.table_loop import register_table
from . import rules
from .agents import EXPECTIMAX1, GREEDY, RANDOM, choose, greedy_move, greedy_scores, play_seated
from .config import ANIMAL_DECKS, EFFECTS, UrgencyConfig
from .narrate import cards_of, describe_decision
from .rules import (
    DECK,
    DOFF,
    INPLAY,
    K_PILE,
    K_PLAY,
    K_QUEUE,
    MASK,
    NEXTPILE,
    NPLAY,
    NQUEUE,
    NROS,
    OPT_N,
    OPTS,
    P_CARDS,
    P_TO_WIN,
    PH_MOVE,
    PH_OVER,
    PH_PICK,
    PHASE,
    PICK_KIND,
    PICKER,
    PILES,
    PS,
    QUEUE,
    QUSED,
    ROLLV,
    ROS,
    SCORED,
    SCORED_TILE,
    below,
    compile_rules,
    decisions,
    gen_moves,
    load_options,
    seat_to_move,
)
from .scoring import METRICS, final_rows, state_standings

N_PLAYERS = 2
MAX_MOVES = 16
"""A bound on ``legal``'s count: 8 token moves, 8 offered cards, or a roll and the Eagle cards in play."""
KIND_SHIFT = 8
ARG_MASK = (1 << KIND_SHIFT) - 1
HIDDEN = -2
"""What :func:`observation` shows in place of a value the seat cannot see."""


class Table(NamedTuple):
    """The rule table ``T`` of one variant (2 players).

    rules: the variant's numbers and cards (:func:`~.rules.compile_rules`).
    decks: int64[2], the deck code of each seat for :func:`new_state`: the config's ``default_deck``,
        -1 for one dealt at random from the game's chance (``default_deck: random``, or no cards).
    prio: int64[len(EFFECTS)], the rank of each effect in ``agents.card_priority`` (the policy's
        card choice). weights: float64[5], the expectimax evaluation weights (unused by the kernel,
        kept with the rest of the agents' parameters).
    heuristic_scale: ``agents.heuristic_scale``, in tiles (see the module docstring).
    """

    rules: np.ndarray
    decks: np.ndarray
    prio: np.ndarray
    weights: np.ndarray
    heuristic_scale: float


register_table(Table, play_seated)  # the fast path of whole chunks (agents.play_seated), the core loop's table


# ----------------------------------------------------------------------------------------- codes


@nb.njit(cache=True, inline="always")
def code(kind, arg):
    """The move code of decision (kind, arg): ``kind << 8 | arg``."""
    return (kind << KIND_SHIFT) | arg


@nb.njit(cache=True, inline="always")
def kind_of(move):
    return move >> KIND_SHIFT


@nb.njit(cache=True, inline="always")
def arg_of(move):
    return move & ARG_MASK


def move_code(kind: int, arg: int) -> int:
    """:func:`code` for Python callers: the move code of decision (kind, arg)."""
    return (int(kind) << KIND_SHIFT) | int(arg)


def unpack(move: int) -> tuple[int, int]:
    """(kind, arg) of a move code."""
    move = int(move)
    return move >> KIND_SHIFT, move & ARG_MASK


# ------------------------------------------------------------------------------------ the kernel


@nb.njit(cache=True)
def new_state(T, rng):
    """A game after Setup with the table's decks, advanced to the first decision (:func:`~.rules.new_state`)."""
    return rules.new_state(T.rules, T.decks, rng)


@nb.njit(cache=True)
def to_move(S, T):
    return seat_to_move(S)


@nb.njit(cache=True)
def legal(S, T, out):
    """The legal decisions' codes in :func:`~.rules.decisions`' order; 0 once the game is over."""
    if S[PHASE] == PH_MOVE:
        return gen_moves(S, T.rules, out)  # MOVE is 0: a token move's code is its tile
    kinds = np.empty(MAX_MOVES, np.int64)
    args = np.empty(MAX_MOVES, np.int64)
    n = decisions(S, T.rules, kinds, args)
    for i in range(n):
        out[i] = code(kinds[i], args[i])
    return n


@nb.njit(cache=True)
def apply(S, T, move, rng):
    """Play ``move`` and advance to the next decision (:func:`~.rules.apply_decision`)."""
    rules.apply_decision(S, T.rules, kind_of(move), arg_of(move), rng)


@nb.njit(cache=True)
def is_over(S, T):
    return S[PHASE] == PH_OVER


@nb.njit(cache=True)
def scores(S, T, out):
    """Tokens scored per seat."""
    for p in range(N_PLAYERS):
        out[p] = S[p * PS + SCORED]


@nb.njit(cache=True)
def returns(S, T, out):
    """Win shares: 1 to the seat with more tokens scored (the winner of a finished game), 0.5 each when equal."""
    a, b = S[SCORED], S[PS + SCORED]
    out[0] = 1.0 if a > b else (0.5 if a == b else 0.0)
    out[1] = 1.0 - out[0]


@nb.njit(cache=True)
def ended_by(S, T):
    """How a finished game ended: ``RULES`` when a seat has scored ``to_win`` tokens (How to Win),
    else ``TURN_CAP``: the ``cards.max_turns`` safety stop ended it (e.g. an Ibex deck whose cards
    make every roll even, so no token can land exactly on tile 15). Reads only the scored tokens, so
    it also reads the final state of the no-card fast path (:func:`~.agents.play_race_fast`)."""
    for p in range(N_PLAYERS):
        if S[p * PS + SCORED] >= T.rules[P_TO_WIN]:
            return RULES
    return TURN_CAP


@nb.njit(cache=True)
def progress(S, p):
    """Tiles player ``p`` has advanced: 15 per token scored plus the tile of each token on the board."""
    m = S[p * PS + MASK]
    v = SCORED_TILE * S[p * PS + SCORED]
    for t in range(1, SCORED_TILE):
        if (m >> t) & 1:
            v += t
    return v


@nb.njit(cache=True)
def heuristic(S, T, out):
    """At the end :func:`returns`; before, the logistic of the progress margin over ``T.heuristic_scale``."""
    if S[PHASE] == PH_OVER:
        returns(S, T, out)
        return
    margin = progress(S, np.int64(0)) - progress(S, np.int64(1))
    out[0] = 1.0 / (1.0 + np.exp(-margin / T.heuristic_scale))
    out[1] = 1.0 - out[0]


@nb.njit(cache=True)
def policy(S, T, out, rng):
    """The ``greedy`` agent's decision (it draws nothing from ``rng``)."""
    R = T.rules
    if S[PHASE] == PH_MOVE:
        n = gen_moves(S, R, out)
        return out[greedy_move(S, R, out, n)]
    kinds = np.empty(MAX_MOVES, np.int64)
    args = np.empty(MAX_MOVES, np.int64)
    n = decisions(S, R, kinds, args)
    i = choose(S, R, np.int64(GREEDY), T.prio, T.weights, rng, kinds, args, n)
    return code(kinds[i], args[i])


@nb.njit(cache=True)
def move_scores(S, T, moves, n, out):
    """The greedy agent's knowledge of each legal move (:func:`~.agents.greedy_scores`): its rank in
    greedy's priority list for a token move, a card's priority to pick, in the Eagle's choice a card
    with something to act on over rolling over one with nothing; greedy plays the first largest."""
    args = np.empty(n, np.int64)
    for i in range(n):
        args[i] = arg_of(moves[i])
    greedy_scores(S, T.rules, T.prio, args, n, out)


# ----------------------------------------------------------------------------- hidden information


@nb.njit(cache=True)
def pile_seen(S, seat, p, i):
    """Can ``seat`` see the card in player ``p``'s pile slot ``i`` (0-5, pile ``i // 2``)? Only ``p``
    itself, while it chooses from that pile (or, set in stone / full force, among all its pile cards)."""
    if p != seat or S[PHASE] != PH_PICK or S[PICKER] != p:
        return False
    kind = S[PICK_KIND]
    if kind == K_PILE:
        return i // 2 == S[p * PS + NEXTPILE]
    return kind == K_QUEUE or kind == K_PLAY


@nb.njit(cache=True)
def hidden_mask(S, T, seat, mask):
    """Mark in ``mask`` (bool[len(S)], cleared by the caller) every entry of ``S`` that ``seat``
    cannot see (the module docstring): unseen pile cards, the opponent's queued order and Rosette
    draw, and the offered cards unless ``seat`` is choosing among them. Nothing without cards."""
    if T.rules[P_CARDS] == 0:
        return
    for p in range(N_PLAYERS):
        b = p * PS
        for i in range(6):
            if S[b + PILES + i] >= 0 and not pile_seen(S, seat, p, i):
                mask[b + PILES + i] = True
        if p != seat:
            for i in range(S[b + QUSED], S[b + NQUEUE]):
                mask[b + QUEUE + i] = True
            for i in range(S[b + NROS]):
                mask[b + ROS + i] = True
    mine = S[PHASE] == PH_PICK and S[PICKER] == seat
    for i in range(8):
        if not (mine and i < S[OPT_N]):
            mask[OPTS + i] = True


@nb.njit(cache=True)
def _shuffle(pool, n, rng):
    """Fisher-Yates over ``pool[:n]`` with one :func:`~.rules.below` draw per step."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]


@nb.njit(cache=True)
def determinize(S, T, seat, rng):
    """Resample what ``seat`` cannot see (:func:`hidden_mask`), keeping what it can.

    For each player, the cards in the slots ``seat`` cannot see (unseen pile cards; the opponent's
    queued cards) are gathered, sorted (so the result depends only on what ``seat`` sees) and dealt
    back over the same slots in a random order. The opponent's Rosette draw becomes its kept card (if
    it has kept one) and cards drawn from the Rosette cards ``seat`` has not seen. The offered cards
    are then listed again from the new slots (:func:`~.rules.load_options`), stale ones cleared."""
    R = T.rules
    if R[P_CARDS] == 0:
        return  # without cards nothing is hidden
    mask = np.zeros(S.shape[0], np.bool_)
    hidden_mask(S, T, seat, mask)
    pool = np.empty(16, np.int64)
    slots = np.empty(16, np.int64)
    for p in range(N_PLAYERS):
        b = p * PS
        n = 0
        for j in range(b + PILES, b + QUEUE + 4):  # the pile and queue slots (PILES, DISC, QUEUE)
            if mask[j]:
                pool[n] = S[j]
                slots[n] = j
                n += 1
        pool[:n] = np.sort(pool[:n])
        _shuffle(pool, np.int64(n), rng)
        for i in range(n):
            S[slots[i]] = pool[i]
    o = 1 - seat
    bo, bs = o * PS, seat * PS
    k = S[bo + NROS]
    if k > 0:
        lo, hi = R[DOFF], R[DOFF + 1]  # the Rosette deck's card ids
        kept = -1
        if S[bo + NPLAY] > 0 and lo <= S[bo + INPLAY] < hi:
            kept = S[bo + INPLAY]
        ros = np.empty(hi - lo, np.int64)
        n = 0
        for c in range(lo, hi):
            seen = c == kept
            for i in range(S[bs + NROS]):
                if S[bs + ROS + i] == c:
                    seen = True
            if not seen:
                ros[n] = c
                n += 1
        _shuffle(ros, np.int64(n), rng)
        i0 = 0
        if kept >= 0:
            S[bo + ROS] = kept
            i0 = 1
        for i in range(i0, k):
            S[bo + ROS + i] = ros[i - i0]
    if S[PHASE] == PH_PICK:
        load_options(S, R)
        for i in range(S[OPT_N], 8):
            S[OPTS + i] = 0
    else:
        for i in range(8):
            S[OPTS + i] = 0


# ------------------------------------------------------------------------- seats beside MCTS
# Urgency's agents at a compiled table (``GameSpec.seat_agent``, ``game_agent``): code ``GAME_AGENT + kind``
# (kind RANDOM, GREEDY, EXPECTIMAX or EXPECTIMAX1 of :mod:`.agents`).


@nb.njit(cache=True)
def game_agent(agent, S, T, row, out, rng):
    """One decision of Urgency's agent ``agent - GAME_AGENT`` (:func:`~.agents.choose` over the
    decisions of :func:`~.rules.decisions`, with the table's card priority and weights) written as
    its move code into ``out[0]``; returns 1, or -1 for a code that is no Urgency agent."""
    kind = agent - GAME_AGENT
    if kind < RANDOM or kind > EXPECTIMAX1:
        return -1
    kinds = np.empty(MAX_MOVES, np.int64)
    args = np.empty(MAX_MOVES, np.int64)
    n = decisions(S, T.rules, kinds, args)
    i = choose(S, T.rules, kind, T.prio, T.weights, rng, kinds, args, n)
    out[0] = code(kinds[i], args[i])
    return 1


KERNEL = Kernel(
    to_move=to_move,
    legal=legal,
    apply=apply,
    is_over=is_over,
    scores=scores,
    returns=returns,
    heuristic=heuristic,
    determinize=determinize,
    policy=policy,
    ended_by=ended_by,
    move_scores=move_scores,
)


# ---------------------------------------------------------------------------------- Python hooks


def priority(cfg: UrgencyConfig) -> np.ndarray:
    """Rank of each effect code in ``agents.card_priority`` (lower is better; unlisted effects last)."""
    order = cfg.agents.card_priority
    return np.array([order.index(e) if e in order else len(order) for e in EFFECTS], np.int64)


def weights(cfg: UrgencyConfig) -> np.ndarray:
    """The expectimax evaluation weights (:mod:`.agents`), float64[5]."""
    a = cfg.agents
    return np.array([a.eval_scored, a.eval_progress, a.eval_danger, a.eval_supply, a.eval_safe])


def default_decks(cfg: UrgencyConfig) -> np.ndarray:
    """The deck code of a seat named without ``+deck``, for both seats: -1 (dealt at random, or no cards)
    or the config's ``default_deck``."""
    d = -1 if cfg.default_deck == "random" or not cfg.cards.enabled else ANIMAL_DECKS.index(cfg.default_deck)
    return np.array([d, d], np.int64)


_CARD_NAMES: dict[int, list[str]] = {}


@lru_cache(maxsize=32)
def _table(model: type[UrgencyConfig], cfg_json: str) -> Table:
    cfg = model.model_validate_json(cfg_json)  # the config's own model: the registry's holds the generic agents' keys
    R = compile_rules(cfg)
    names = [name for name, _ in cards_of(cfg)]
    if len(names) > ARG_MASK + 1:
        raise ValueError(f"{len(names)} rule cards: a move code holds card ids below {ARG_MASK + 1}")
    T = Table(R, default_decks(cfg), priority(cfg), weights(cfg), float(cfg.agents.heuristic_scale))
    _CARD_NAMES[id(T)] = names
    return T


_BY_ID: dict[int, tuple[UrgencyConfig, Table]] = {}


def table(cfg: UrgencyConfig) -> Table:
    """The rule table of ``cfg`` (cached by the config's content, and by the object for speed)."""
    hit = _BY_ID.get(id(cfg))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    T = _table(type(cfg), cfg.model_dump_json())
    _BY_ID[id(cfg)] = (cfg, T)
    return T


def compile_table(cfg: UrgencyConfig, n_players: int) -> Table:
    """``Engine.compile``: the table of ``cfg``; ValueError unless ``n_players`` is 2."""
    if n_players != N_PLAYERS:
        raise ValueError(f"{n_players} player(s) is not supported by Urgency (supported: 2)")
    return table(cfg)


def observation(S: np.ndarray, T: Table, seat: int) -> np.ndarray:
    """``S`` with every entry ``seat`` cannot see (:func:`hidden_mask`) replaced by :data:`HIDDEN`."""
    mask = np.zeros(S.shape[0], np.bool_)
    hidden_mask(S, T, seat, mask)
    out = S.copy()
    out[mask] = HIDDEN
    return out


def deck_labels(S: np.ndarray, cards_enabled: bool) -> list[str]:
    """The deck of each seat as a label ("none" without cards)."""
    return [ANIMAL_DECKS[d] if cards_enabled else "none" for d in S[[DECK, PS + DECK]].tolist()]


def outcome(S: np.ndarray, T: Table) -> Outcome:
    """Tokens scored per seat (the score), turns, metrics, the deck of each seat, and the game's
    trajectory (``standings``: tokens scored at the end of every round, :func:`~.scoring.standings`,
    from the round each token scored in, which the state keeps)."""
    rows = final_rows(S)
    return Outcome(
        scores=rows["scored"],
        tiebreak=[(), ()],
        components={"scored": rows["scored"]},
        metrics={m: [float(v) for v in rows[m]] for m in METRICS},
        turns=rows["turns"],
        labels={"deck": deck_labels(S, bool(T.rules[P_CARDS]))},
        ended_by=ENDED_BY[int(ended_by(S, T))],
        standings=state_standings(S),
    )


def with_decks(T: Table, decks: np.ndarray) -> Table:
    """``T`` whose games deal ``decks`` (int64[2], -1 for the config's default) at setup."""
    U = T._replace(decks=np.asarray(decks, np.int64))
    _CARD_NAMES[id(U)] = _CARD_NAMES[id(T)]
    return U


def card_names(T: Table) -> list[str]:
    """Card id -> "Deck: name" of the variant ``T`` was compiled from."""
    return _CARD_NAMES[id(T)]


def describe_move(S: np.ndarray, T: Table, move: int) -> str:
    """One line for ``move`` before it is applied, e.g. "seat 1: with the roll of 3, moves the token
    on tile 5 to tile 8" or "seat 2: keeps the Rosette card Rosette: Crown (...)"."""
    seat = int(to_move(S, T))
    kind, arg = unpack(move)
    line = describe_decision(card_names(T), kind, arg, int(S[ROLLV]), int(S[PICK_KIND]))
    return f"seat {seat + 1}: {line}"


ENGINE = Engine(
    kernel=KERNEL,
    compile=compile_table,
    new_state=new_state,
    n_players=lambda T: N_PLAYERS,
    max_moves=lambda T: MAX_MOVES,
    observation=observation,
    outcome=outcome,
    describe_move=describe_move,
)
"""Urgency's compiled interface, as registered in its ``SPEC``."""
