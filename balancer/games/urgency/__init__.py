"""Urgency: a 2-player dice race with captures, roll agains and rule cards (rulebook: shared/rules/urgency.txt).

Players. Two, each with 7 tokens and 4 binary dice (the roll is the pips up, 0-4; each die shows
a pip with ``roll.pip_chance``, assumed 1/2: 1/16, 4/16, 6/16, 4/16, 1/16). Seat 1 moves first (the rulebook's random first player is the runner's seat
rotation).

Actions (Movement, Board Flow). Each turn a player rolls and moves one token exactly the roll:
a token already on its path (tiles 1-4 home row, 5-12 the shared centre row, 13-14 home row) or a
new one from the supply. Own tokens never share a tile; tokens jump over others; a player must
move if any move is legal; a roll of 0 moves nothing. Landing on a rosette (4, 8, 14) gives a roll
again; 8, the black rosette, is also safe. Landing on an opponent's token in the centre row
removes it to its owner's supply (basic attack) unless the tile is safe, which then cannot be
landed on (Attacks).

Scoring (How to Win). A token scores by landing exactly on 15, the space one past tile 14
(``board.tile_15: scoring_space``, assumed: the Board Flow diagram prints a "15" in each home row). First to score ``to_win`` tokens
(6 of 7; 7 without cards) wins. The score of a seat is its tokens scored.

Rule cards (Rule Cards, Setup). Each seat plays an animal deck (Ibex, Bull, Lion, Tortoise, Eagle,
Lizard; one copy of each, so two dealt decks always differ): shuffled, 1 discarded at random, 3 piles of 2. Each player draws 2 Rosette cards and
keeps 1 in play. At each of the opponent's scores 1-3 a player puts one card of their next pile
into play and discards the other; at the 4th, their final card comes from the discard pile. The
cards are data (``configs/urgency/decks.yaml``): a trigger and an effect each, in the vocabulary of
:mod:`.config`; :mod:`.rules` documents how they are applied and the precedence rulings.
Variants: ``no-cards.yaml`` (first to 7), ``first-pile.yaml`` (first pile chosen at setup, first
to 5), ``set-in-stone.yaml`` (3 cards and their order chosen at setup), ``full-force.yaml`` (4
chosen cards in play from the start).

Agents (:mod:`.agents`): random, greedy, expectimax (2 plies), expectimax1. A seat's deck is part
of its agent name: ``greedy+ibex`` plays the Ibex deck (one of the variant's
``cards.animal_decks``; a variant without cards takes no deck); a plain ``greedy`` plays the config's
``default_deck`` (``random``: a deck dealt per game and seat from the game's own chance, never the
deck the other seat holds, as the game has one copy of each; variants with the same decks see the
same deals). Both seats may name one deck (``greedy+bull,greedy+bull``): a mirror-deck experiment
the printed game cannot deal, which ``run``'s output, the report and the transcript say
(:func:`table_note`). Results carry the deck of each seat as ``label_deck`` ("none" without cards).

Assumptions (in the YAML, marked ``assumed``): every card text except the published facts (Ibex:
the opponent's 4 makes your next roll a 4; Eagle: the opponent's next roll 0, roll or trigger;
Tortoise: 3 dice, one card naming 4), an Eagle that triggered a card must move a token by a roll before it triggers another, a roll
set by a card fires no roll cards, the
active player's fixed ordering of simultaneous cards (opponent's first, own last), the
``max_turns`` safety stop, the Rosette card's "may take" action always taken, card actions move
the named token (foremost/rearmost) rather than one the player picks, and moves made by card
actions fire no landing triggers and earn no rosette roll again, a changed roll stays within the
dice in play (``cards.change_roll_range``), each die shows a pip with chance 1/2
(``roll.pip_chance``) and the Board Flow's "15" is the scoring space (``board.tile_15``). Cards
that set each other off for ever (more than 64 activations at one moment) stop the game with an
error (:func:`.rules.fire`).

Compiled interface (:mod:`.kernel`, ``ENGINE``): the rules' int64 state and decisions as the
generic kernel. A move is one int64 per decision, ``kind << 8 | arg``: a token move is the tile it
leaves (0-14, 0 = enter), PICK 256 + card id, ROLL 512, TRIGGER 768 + card id. Hidden from a seat:
unseen face-down pile cards (its own too, until it chooses from that pile), the opponent's
set-in-stone order and its Rosette draw but the kept card (``cards.visibility``, assumed: discard
piles face up, decks public); ``determinize`` deals exactly those again; without cards nothing is
hidden (dice are chance, resolved in ``apply``). ``returns``: the win shares. ``heuristic``: the
logistic of the progress margin (15 per token scored plus the tiles of tokens on the board) over
``agents.heuristic_scale``. ``policy``: the greedy agent. The protocol (``new_game`` ...
``outcome``) is :mod:`balancer.core.protocol` over it, so its moves are these codes; ``random`` is
the protocol's uniform agent; the other agents return one decision a call.

Score components: scored. Metrics: captures, captured, roll_agains, tokens_on_board, cards_in_play.
Labels: deck. Trajectory (issue 49): each seat's tokens scored at the end of every round (seat 1's turn
and seat 2's), the last checkpoint the game's end (:func:`.scoring.standings`).

Version history. 1: the rulebook as printed, with cards as data (issue #5). 2 (issue 14): random
decks are dealt without replacement (a table naming one deck twice is allowed and said); a move by
roll that scores releases the Eagle's lock; a changed roll is clamped to the dice in play; a card
loop is an error instead of a silently cut queue; the pip chance and tile 15 are YAML choices.
"""

from __future__ import annotations

import sys

from ...core.numba_cache import drop_stale_cache

drop_stale_cache(__file__)  # before the compiled modules load: numba's cache misses cross-module changes

import numpy as np

from ...core import protocol
from ...core.batch import DEFAULT_CHUNK_GAMES, GameBatch
from ...core.game import Outcome, ranks_and_win_shares
from ...core.kernel import RULES, TURN_CAP, turn_cap_line
from ...core.protocol import Position
from ...core.seeding import game_rngs
from ...core.table_loop import play_chunk_records
from .agents import (
    AGENTS,
    CHUNK_FIELDS,
    EXPECTIMAX,
    EXPECTIMAX1,
    GREEDY,
    RANDOM,
    RECORD_LEN,
    choose,
    play_new_game,
    play_new_game_no_chance_agents,
    play_race_fast,
)
from .config import ANIMAL_DECKS, UrgencyConfig
from .kernel import ENGINE, Table, move_code, table, unpack
from .kernel import outcome as kernel_outcome
from .narrate import Narrator, cards_of
from .rules import (
    LOG,
    LOG_CAP,
    LOG_N,
    LOG_ON,
    MASK,
    MOVE,
    P_TO_WIN,
    PICK_KIND,
    PS,
    ROLLV,
    SCORED,
    SCORED_TILE,
    SUP,
    TRIGGER,
    Rules,
    advance,
    decide,
    decisions,
    new_state,
    setup_state,
    unpack_event,
)
from .scoring import METRICS, standings

NAME = "urgency"
CONFIG_MODEL = UrgencyConfig
DEFAULT_CONFIG = "configs/urgency/standard.yaml"
MAX_MOVES = 20_000
_KIND = {"random": RANDOM, "greedy": GREEDY, "expectimax": EXPECTIMAX, "expectimax1": EXPECTIMAX1}
_DECKS = ANIMAL_DECKS[1:]
AGENT_NOTE = f"add +<deck> to choose a seat's deck in a variant with cards: {', '.join(_DECKS)}; e.g. greedy+ibex"
"""One line for ``balancer games`` after :data:`AGENTS`: agent names take a deck suffix."""

__all__ = [
    "NAME",
    "CONFIG_MODEL",
    "AGENTS",
    "AGENT_NOTE",
    "ENGINE",
    "new_game",
    "play_game",
    "transcript",
    "check_agent",
    "make_agent",
    "move_code",
    "table_note",
]


def compiled(cfg: UrgencyConfig) -> Rules:
    """The variant's rules compiled to one int64 array (:func:`~.rules.compile_rules`; cached)."""
    return table(cfg).rules


def check_agent(name: str, cfg: UrgencyConfig | None = None) -> str | None:
    """An error message for an agent name this game cannot seat, else None. Names are an agent,
    optionally ``+`` a deck: ``greedy``, ``expectimax+bull``. With ``cfg``, the deck must be one of
    the variant's ``cards.animal_decks``, and a variant without rule cards takes no deck."""
    agent, _, deck = name.partition("+")
    if agent not in _KIND or (deck and deck not in _DECKS) or (_ and not deck):
        return (
            f"unknown agent {name!r}; agents: {', '.join(AGENTS)}, each optionally with +<deck> "
            f"(decks: {', '.join(_DECKS)}), e.g. greedy+ibex"
        )
    if deck and cfg is not None:
        if not cfg.cards.enabled:
            return (
                f"agent {name!r}: variant {cfg.variant!r} plays without rule cards (cards.enabled: false), "
                f"so a seat has no deck; name the agent without +{deck}"
            )
        if deck not in cfg.cards.animal_decks:
            return (
                f"agent {name!r}: deck {deck!r} is not one of variant {cfg.variant!r}'s cards.animal_decks "
                f"({', '.join(cfg.cards.animal_decks)})"
            )
    return None


def parse_agent(cfg: UrgencyConfig, name: str) -> tuple[int, int]:
    """(agent code, deck code or -1 for the config's default) of an agent name; ValueError if
    :func:`check_agent` refuses it for ``cfg``."""
    problem = check_agent(name, cfg)
    if problem:
        raise ValueError(problem)
    agent, _, deck = name.partition("+")
    if deck:
        code = ANIMAL_DECKS.index(deck)
    elif cfg.cards.enabled and cfg.default_deck != "random":
        code = ANIMAL_DECKS.index(cfg.default_deck)
    else:
        code = -1
    return _KIND[agent], code


def _check_players(n_players: int) -> None:
    if n_players != 2:
        raise ValueError(f"{n_players} player(s) is not supported by Urgency (supported: 2)")


def new_game(
    cfg: UrgencyConfig, n_players: int, seed: np.random.SeedSequence | int, decks: tuple[int, int] = (-1, -1)
) -> Position:
    """A game after Setup, as the protocol's :class:`~balancer.core.protocol.Position` over the kernel
    (:mod:`.kernel`); ``decks``: deck codes of the seats (:data:`~.config.ANIMAL_DECKS`), -1 for the
    config's default deck. ``seed`` drives only the game's own chance (child 0 of
    :func:`balancer.core.seeding.game_rngs`). Raises ValueError unless ``n_players`` is 2."""
    _check_players(n_players)
    T = ENGINE.compile(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    return Position(ENGINE, cfg, T, new_state(T.rules, _deck_codes(T, decks), game_rng), game_rng)


def _deck_codes(T: Table, decks: tuple[int, ...]) -> np.ndarray:
    """The seats' deck codes for :func:`~.rules.new_state`: -1 replaced by the config's default deck."""
    return np.array([d if d >= 0 else int(T.decks[s]) for s, d in enumerate(decks)], np.int64)


class UrgencyAgent:
    """A compiled agent (greedy, expectimax, expectimax1) over the protocol's position: one decision
    a call, as a move code, chosen by :func:`~.agents.choose` among the kernel's legal decisions. The
    deck of a ``+deck`` name is used by :func:`play_game` and :func:`transcript` at setup."""

    def __init__(self, cfg: UrgencyConfig, name: str):
        self.name = name
        self.kind, self.deck = parse_agent(cfg, name)

    def choose(self, pos: Position, seat: int, rng: np.random.Generator) -> int:
        if seat != pos.seat_to_move:
            raise ValueError(f"seat {seat + 1} is not to move")
        kinds = np.empty(16, np.int64)
        args = np.empty(16, np.int64)
        T = pos.T
        n = decisions(pos.S, T.rules, kinds, args)
        i = choose(pos.S, T.rules, self.kind, T.prio, T.weights, rng, kinds, args, n)
        return move_code(int(kinds[i]), int(args[i]))


class UrgencyRandom(protocol.UniformAgent):
    """The ``random`` agent (:class:`~balancer.core.protocol.UniformAgent`: uniform over the kernel's
    legal moves, one ``rng.random()`` a decision), with the deck of a ``random+deck`` name."""

    def __init__(self, cfg: UrgencyConfig, name: str):
        self.name = name
        self.kind, self.deck = parse_agent(cfg, name)


def make_agent(cfg: UrgencyConfig, name: str) -> UrgencyAgent | UrgencyRandom:
    """An agent by name (see :func:`check_agent`); raises ValueError for an unknown name."""
    if name.partition("+")[0] == "random":
        return UrgencyRandom(cfg, name)
    return UrgencyAgent(cfg, name)


def table_note(cfg: UrgencyConfig, agents: list[str]) -> str | None:
    """A sentence for ``run``'s output and the report when both seats of the table play one deck
    (``greedy+bull,greedy+bull``, or plain seats with a fixed ``default_deck``): allowed, as a
    designer's mirror-deck experiment, but the printed game has one copy of each deck (Game
    Components, Setup), so no real table can be dealt that way. None otherwise (a ``random`` seat is
    always dealt a deck the other seat does not hold). Raises ValueError for an agent name
    :func:`check_agent` refuses."""
    if not cfg.cards.enabled or len(agents) != 2:
        return None
    # a generic agent's seat (mcts) plays the config's default deck
    codes = _deck_codes(table(cfg), tuple(-1 if is_generic_seat(a) else parse_agent(cfg, a)[1] for a in agents))
    if codes[0] < 0 or codes[0] != codes[1]:
        return None
    deck = ANIMAL_DECKS[int(codes[0])]
    return (
        f"both seats play the {deck.capitalize()} deck ({', '.join(agents)}): the table uses one deck twice, "
        "which the printed game cannot (it has one copy of each animal deck)"
    )


def play_game(cfg: UrgencyConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """Play one whole game at full speed (one compiled call; without cards, greedy and random seats
    use :func:`~.agents.play_race_fast`, which plays the same games). ``agents``: the agent name of
    each seat. A ``random`` seat draws exactly as the kernel's uniform move (one double a decision
    over the same legal list). Its trajectory (``Outcome.standings``): each seat's tokens scored at the
    end of every round (:func:`~.scoring.standings`), as :func:`play_chunk` records it. Raises
    ValueError for a player count other than 2 or an unknown agent."""
    _check_players(len(agents))
    T, decks, kinds, weights = _seated(cfg, tuple(agents))
    rules = T.rules
    game_rng, agent_rng = game_rngs(seed)
    if not cfg.cards.enabled and ((kinds == RANDOM) | (kinds == GREEDY)).all():
        S = play_race_fast(rules, kinds, game_rng, agent_rng)
    elif (kinds == RANDOM).any():
        S = play_new_game(rules, decks, kinds, T.prio, weights, game_rng, agent_rng)
    else:
        S = play_new_game_no_chance_agents(rules, decks, kinds, T.prio, weights, game_rng)
    return kernel_outcome(S, T)


def play_chunk(
    cfg: UrgencyConfig, agents: list[str], run_seed: int, start: int, stop: int, trajectories: bool = True
) -> GameBatch:
    """Games ``start..stop-1`` of a run seeded ``run_seed`` in one compiled call
    (:func:`balancer.core.table_loop.play_chunk_records` on :func:`~.agents.play_seated`): the games :func:`play_game` plays with
    ``game_seed(run_seed, i)`` for the seats ``seat_agents(agents, i)``, the same engine choice
    (the no-card race for greedy and random seats), the same records and trajectories
    (``GameBatch.standings``, :func:`~.scoring.standings`; left out with ``trajectories=False``, as
    ``run --no-flow`` asks). ``agents``: the seats of game 0. Raises ValueError as :func:`play_game` does."""
    _check_players(len(agents))
    T, decks, kinds, weights = _seated(cfg, tuple(agents))
    race = not cfg.cards.enabled and bool(((kinds == RANDOM) | (kinds == GREEDY)).all())
    records = play_chunk_records(
        T, kinds, decks.astype(np.float64)[:, None], (weights, race), run_seed, start, stop, RECORD_LEN
    )
    rows = records[:, : 2 * len(CHUNK_FIELDS)].reshape(-1, 2, len(CHUNK_FIELDS))
    field = {name: rows[:, :, k] for k, name in enumerate(CHUNK_FIELDS)}
    per_game = {
        f"game_{m}": np.repeat(field[m].sum(axis=1, keepdims=True), 2, axis=1)
        for m in ("turns", "captures", "roll_agains")
    }
    metrics = {m: (per_game[m] if m in per_game else field[m]).astype(np.float64) for m in METRICS}
    if cfg.cards.enabled:
        labels = {"deck": (field["deck"], ANIMAL_DECKS)}
    else:
        labels = {"deck": (np.zeros_like(field["deck"]), ("none",))}
    standing, checkpoints = (
        standings(records[:, 2 * len(CHUNK_FIELDS) :], field["scored"], field["turns"])
        if trajectories
        else (None, None)
    )
    return GameBatch(
        scores=field["scored"],
        tiebreak=np.zeros((stop - start, 2, 0), np.int64),
        components={"scored": field["scored"]},
        metrics=metrics,
        turns=field["turns"],
        labels=labels,
        ended_by=ended_by_codes(field["scored"], int(T.rules[P_TO_WIN])),
        standings=standing,
        checkpoints=checkpoints,
    )


def ended_by_codes(scored: np.ndarray, to_win: int) -> np.ndarray:
    """int64[g]: :func:`~.kernel.ended_by` of each game of a chunk from its tokens scored (int64[g, 2]):
    ``RULES`` (0) when a seat reached ``to_win``, else ``TURN_CAP`` (the ``cards.max_turns`` stop)."""
    return np.where((scored >= to_win).any(axis=1), RULES, TURN_CAP).astype(np.int64)


RACE_CHUNK_GAMES = 20_000
CARD_CHUNK_GAMES = 10_000


def chunk_games(cfg: UrgencyConfig, agents: list[str]) -> int:
    """The most games of a default chunk (``GameSpec.chunk_games``): the no-card race of greedy and
    random seats plays about 100,000 games a second, but a chunk of 20,000 (a fifth of a second)
    keeps the main process's memory low (each chunk's rows are built at once) for a per-chunk cost
    of a few milliseconds; tables of greedy and random seats with cards about 10,000 (a second),
    tables with expectimax seats about 600 (the runner's default then)."""
    kinds = [parse_agent(cfg, a)[0] for a in agents]
    if any(k not in (RANDOM, GREEDY) for k in kinds):
        return DEFAULT_CHUNK_GAMES
    return CARD_CHUNK_GAMES if cfg.cards.enabled else RACE_CHUNK_GAMES


_SEATED: dict[tuple[int, tuple[str, ...]], tuple] = {}


def _seated(cfg: UrgencyConfig, agents: tuple[str, ...]) -> tuple:
    """(rule table, deck codes, agent codes, weights per seat) of a table (cached per config object)."""
    key = (id(cfg), agents)
    hit = _SEATED.get(key)
    if hit is None or hit[0] is not cfg:
        parsed = [parse_agent(cfg, a) for a in agents]
        T = table(cfg)
        hit = (
            cfg,
            (
                T,
                _deck_codes(T, tuple(d for _, d in parsed)),
                np.array([k for k, _ in parsed], np.int64),
                np.tile(T.weights, (2, 1)),
            ),
        )
        _SEATED[key] = hit
    return hit[1]


def card_names(cfg: UrgencyConfig) -> list[str]:
    """Card id -> "Deck: name" (ids in deck order, as :func:`~.rules.compile_rules` numbers them)."""
    return [name for name, _ in cards_of(cfg)]


def draw_board(S: np.ndarray) -> str:
    """The two paths as text: one line per seat, tiles 1-14, 'x' a token, '.' empty; then supply and scored."""
    lines = []
    for p in range(2):
        b = p * PS
        m = int(S[b + MASK])
        tiles = "".join("x" if (m >> t) & 1 else "." for t in range(1, SCORED_TILE))
        lines.append(
            f"seat {p + 1}: {tiles[:4]} {tiles[4:12]} {tiles[12:]}  supply {int(S[b + SUP])}, "
            f"scored {int(S[b + SCORED])}"
        )
    return "\n".join(lines)


def _take_events(S: np.ndarray) -> tuple[list[tuple[int, int, int, int, int]], int]:
    """The events recorded since the last call (and how many the log had no room for); empties the log."""
    n = int(S[LOG_N])
    events = [unpack_event(int(x)) for x in S[LOG : LOG + min(n, LOG_CAP)]]
    S[LOG_N] = 0
    return events, max(n - LOG_CAP, 0)


def transcript(cfg: UrgencyConfig, agents: list[str], seed: np.random.SeedSequence | int) -> str:
    """A decision-by-decision account of one game (same decisions as :func:`play_game` with this
    seed), played through the protocol derived from the kernel: every roll, decision, card effect,
    capture, pass and roll again in the order they happen (:class:`~.narrate.Narrator`), the board
    right after each token move or triggered card, then the result. Turns are numbered for the whole
    game: seat 1 plays the odd turns, seat 2 the even ones."""
    _check_players(len(agents))
    players = [make_agent(cfg, a) for a in agents]
    T = ENGINE.compile(cfg, 2)
    rules = T.rules
    game_rng, agent_rng = game_rngs(seed)
    state = setup_state(rules, _deck_codes(T, (players[0].deck, players[1].deck)), game_rng)
    state[LOG_ON] = 1  # record events; the game itself is the same as new_game's
    pos = Position(ENGINE, cfg, T, state, game_rng)
    decks = kernel_outcome(state, T).labels["deck"]
    lines = [
        f"Urgency {cfg.variant}: " + ", ".join(f"seat {s + 1} {a} (deck {decks[s]})" for s, a in enumerate(agents)),
        "(turns are numbered for the whole game: seat 1 plays the odd ones, seat 2 the even ones; a card "
        "chosen when the opponent scores is listed under the turn of that score)",
    ]
    twice = table_note(cfg, agents)
    if twice:
        lines.append(f"(note: {twice})")
    say = Narrator(cfg)
    advance(state, rules, game_rng)
    say.events(*_take_events(state))
    progress = (0, 0, draw_board(state))  # (tokens scored in all, turn, board) when the last one was scored
    while not protocol.is_over(pos):
        seat = pos.seat_to_move
        move = players[seat].choose(pos, seat, agent_rng)
        if not protocol.is_legal_move(pos, move):
            raise ValueError(f"agent {agents[seat]!r} chose the illegal move {move}")
        kind, arg = unpack(move)
        say.decision(seat, kind, arg, int(state[ROLLV]), int(state[PICK_KIND]))
        # the kernel's apply is decide + advance (rules.apply_decision): taken in its two halves here
        # so that the board is drawn right after the decision, before the game's own steps that follow
        decide(state, rules, kind, arg)
        say.events(*_take_events(state))
        if kind in (MOVE, TRIGGER):
            say.flush()
            say.lines += ["      " + row for row in draw_board(state).splitlines()]
        advance(state, rules, game_rng)
        say.events(*_take_events(state))
        scored = int(state[SCORED] + state[PS + SCORED])
        if scored > progress[0]:
            progress = (scored, say.turn, draw_board(state))
    say.flush()
    lines += say.lines
    out = protocol.outcome(pos)
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    lines.append("")
    for s in range(2):
        lines.append(
            f"Seat {s + 1} ({agents[s]}, deck {out.labels['deck'][s]}): scored {out.scores[s]}, "
            f"turns {out.turns[s]}, " + ", ".join(f"{k} {int(v[s])}" for k, v in out.metrics.items())
        )
    winners = [s for s in range(2) if shares[s] > 0]
    if len(winners) == 1:
        lines.append(f"Winner: seat {winners[0] + 1} ({agents[winners[0]]}).")
    else:
        lines.append("Shared victory: the max_turns stop with equal tokens scored.")
    if out.ended_by != "rules":
        lines += stall_lines(progress[1], progress[2])
    return "\n".join(lines)


def stall_lines(turn: int, board: str) -> list[str]:
    """What a transcript says of a game the ``cards.max_turns`` stop ended: not by the rules, and the
    position where progress stopped (the board after the last token was scored, at game turn ``turn``;
    0: none was ever scored, the board after setup)."""
    when = f"after turn {turn}, when the last token was scored" if turn else "at the start: no token was ever scored"
    return [
        turn_cap_line("cards.max_turns", "no seat could finish"),
        f"Progress stopped {when}; the position then:",
        *("  " + row for row in board.splitlines()),
    ]


from ...core.generic_agents import is_generic_seat  # noqa: E402
from ...core.registry import spec_from_module  # noqa: E402
from .kernel import GAME_AGENT, game_agent, with_decks  # noqa: E402
from .metrics import METRICS as METRIC_SPECS  # noqa: E402


def _seat_agent(cfg: UrgencyConfig, name: str) -> tuple[int, np.ndarray]:
    """Urgency's agent ``name`` at a compiled table beside MCTS seats: (code, no parameters)."""
    kind, _ = parse_agent(cfg, name)
    return GAME_AGENT + kind, np.zeros(0)


def _mcts_table(cfg: UrgencyConfig, agents: list[str]):
    """The rule table of a table with MCTS seats: the ``+deck`` of each other seat dealt at setup
    (an MCTS seat, as any generic agent's, plays the config's default deck)."""
    _check_players(len(agents))
    T = table(cfg)
    return with_decks(T, _deck_codes(T, tuple(-1 if is_generic_seat(a) else parse_agent(cfg, a)[1] for a in agents)))


SPEC = spec_from_module(
    sys.modules[__name__],
    display_name="Urgency",
    default_config="urgency/standard.yaml",
    check_agent=check_agent,
    agent_note=AGENT_NOTE,
    max_protocol_moves=MAX_MOVES,
    engine=ENGINE,
    table_note=table_note,
    metrics=METRIC_SPECS,
    play_chunk=play_chunk,
    chunk_games=chunk_games,
    seat_agent=_seat_agent,
    game_agent=game_agent,
    compile_table=_mcts_table,
)
"""This game in the registry (:mod:`balancer.core.registry`)."""
