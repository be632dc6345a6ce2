"""Urgency rules: the state as one int64 array, legal moves and transitions, compiled with numba.

The whole game, rule cards included, runs in compiled code over integer arrays: the cards of the
YAML are compiled into per-card codes (:func:`compile_rules`) and an interpreter applies them
(:func:`apply_effect`). Sections refer to the rulebook's headings (shared/rules/urgency.txt).

Positions. Each player's path is tiles 1-14 (1-4 own home row, 5-12 the shared centre row, 13-14
own home row); 15 is "scored", 0 the supply. Tile t of the centre row is the same square for both
players. A player's tokens on the board are a bit mask (bit t = a token on tile t); tokens are
interchangeable, so the supply and the scored tokens are counts.

Turn (Movement, Rosette Tiles, Attacks). A turn starts (``turn_start`` cards fire); an Eagle
player may trigger an ``instead_of_roll`` card instead of rolling; otherwise the player rolls (a
forced next roll from a card replaces the dice), ``opponent_roll`` cards of the opponent then
``own_roll`` cards of the roller fire, the player moves one token exactly the roll (a decision;
none on 0 or when no move is legal), landing fires ``land_*``, a basic attack fires ``capture`` /
``captured``, scoring fires ``opponent_score`` / ``score`` and lets the opponent put a card into
play (a decision of the opponent). A roll again is granted last, once.

Precedence (the designer's rulings, issue #5):
- cards override the rulebook: effects apply on top of the base rules;
- two contradicting triggered cards: the later-triggered wins (effects are applied in trigger
  order, each overwriting the last);
- cards triggered at the same moment: the active player orders them; balancer's fixed order is
  the opponent's cards first, then the active player's (so the active player's win a contradiction),
  each player's in the order they came into play; a roll again is applied after everything else;
- moving an opponent's token is not an attack (it never removes anything, and stops on the
  nearest tile free of both players' tokens);
- nothing moves back off the start (a token moved back stops on tile 1 at the latest);
- a token moved onto a rosette by the opponent earns no roll again; a token moved off a rosette
  by an action loses its roll again (the roll again is granted only if the token is still there);
- nobody scores the opponent's tokens (moving an opponent's token forward stops at tile 14).

Event log. With ``S[LOG_ON]`` set (transcripts only), the rules record turn starts, rolls, passes,
card activations with what they did, tokens removed and roll agains (:func:`log_event`), for
:mod:`.narrate`; in play the flag is 0 and nothing is recorded, and the log never changes a game.

Decisions: MOVE (a token from tile ``arg``, 0 = enter from the supply), PICK (card ``arg`` into play
/ into the order / kept), ROLL and TRIGGER (Eagle: card ``arg``), listed by :func:`decisions` (the one
list of what is legal) and played by :func:`apply_decision`. :mod:`.kernel` packs each into one int64
move code for the compiled game interface and the protocol.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .config import ANIMAL_DECKS, EFFECTS, MAX_TOKENS, TARGETS, TRIGGERS, UrgencyConfig

# ------------------------------------------------------------------------------------------ codes
(
    T_ALWAYS,
    T_OWN_ROLL,
    T_OPP_ROLL,
    T_LAND_TILE,
    T_LAND_ROSETTE,
    T_LAND_CENTRE,
    T_CAPTURE,
    T_CAPTURED,
    T_SCORE,
    T_OPP_SCORE,
    T_TURN_START,
    T_INSTEAD,
) = range(len(TRIGGERS))
(
    E_ROLL_AGAIN,
    E_SET_NEXT,
    E_SET_OPP_NEXT,
    E_CHANGE_ROLL,
    E_DICE,
    E_EXTRA_MOVE,
    E_SAFE,
    E_ATTACK,
    E_MOVE_OPP,
    E_REENTER,
) = range(len(EFFECTS))
FOREMOST, REARMOST = range(len(TARGETS))

# move kinds
MOVE, PICK, ROLL, TRIGGER = range(4)
# phases (what the seat to move decides)
PH_MOVE, PH_PICK, PH_CHOOSE, PH_OVER = range(4)
# steps of the turn machine
ST_SETUP, ST_TURN_START, ST_ROLL, ST_END = range(4)
# pick kinds
K_ROSETTE, K_PILE, K_DISCARD, K_QUEUE, K_PLAY = range(5)
MODES = ("standard", "first_pile_revealed", "set_in_stone", "full_force")

SCORED_TILE = 15

# -------------------------------------------------------------------------------- state layout
# per player p, at p * PS
(
    MASK,
    SUP,
    SCORED,
    NEXT_ROLL,
    LOCK,
    TURNS,
    CAPT,
    RAS,
    NPLAY,
    NEXTPILE,
    NDISC,
    NQUEUE,
    QUSED,
    OPPSC,
    DECK,
    NROS,
    CAPTURED_N,
    DICE_N,
) = range(18)
INPLAY = 18  # 8 card slots
PILES = 26  # 6 slots, pile k = slots 2k, 2k+1; -1 once used
DISC = 32  # 8 slots
QUEUE = 40  # 4 slots
ROS = 44  # 3 slots: the Rosette cards drawn
PS = 48
G = 2 * PS
(
    ACTIVE,
    PHASE,
    STEP,
    ROLLV,
    RA_CARD,
    RA_TILE,
    REQ_HEAD,
    REQ_TAIL,
    OPT_N,
    PICKER,
    PICK_KIND,
    WINNER,
    EV_N,
    EV_HEAD,
    TOTAL_TURNS,
    ROLLED,
    SAFEM,
) = range(G, G + 17)
REQ = G + 17  # 16 pick requests: player + 2 * kind + 16 * last
OPTS = G + 33  # 8 options (card ids)
EVQ = G + 41  # EVQ_CAP queued card activations: owner + 2 * card (more is an error, :func:`fire`)
EVQ_CAP = 64
SCORED_AT = G + 105
"""MAX_TOKENS slots per player (player p's at ``SCORED_AT + MAX_TOKENS * p``): the round (1-based; round r
holds game turns 2r - 1 and 2r) in which each of its scored tokens scored, in order, written by
:func:`score_token`; the game's trajectory (issue 49, :func:`~.scoring.standings`). Read by nothing
that decides: no move depends on it."""
LOG_ON = SCORED_AT + 2 * MAX_TOKENS  # 1: record what happens in the event log (transcripts only; 0 in play)
LOG_N = LOG_ON + 1  # events recorded since the log was last emptied (may exceed LOG_CAP: the rest is lost)
LOG = LOG_ON + 2  # LOG_CAP events, each packed by :func:`log_event`
LOG_CAP = 64
STATE_SIZE = LOG + LOG_CAP

# event log kinds (what :func:`log_event` records, for the transcript's narration)
LG_TURN, LG_ROLL, LG_NO_MOVE, LG_CARD, LG_REMOVED, LG_AGAIN, LG_IN_PLAY, LG_STOP = range(1, 9)

# rules.params
(
    P_TOKENS,
    P_DICE,
    P_TO_WIN,
    P_C_LO,
    P_C_HI,
    P_ROSETTES,
    P_SAFE,
    P_CARDS,
    P_MODE,
    P_ROS_DRAW,
    P_DISCARD,
    P_PILES,
    P_UNLOCK,
    P_MAX_TURNS,
    P_N_ANIMAL,
    P_FORCED_TRIG,
    P_LOCK_MOVE,
    P_PIP,
    P_PUSH_STAY,
    P_REENTER_BEHIND,
) = range(20)
PIP_ONE = 1 << 30  # R[P_PIP] is roll.pip_chance in units of 1/PIP_ONE


# the compiled rules: one int64 array (one array argument keeps numba's calls cheap)
DOFF = 20  # deck_off[8]: cards of deck d are ids deck_off[d] .. deck_off[d+1]-1
DDICE = 28  # deck_dice[7]: dice while any card of the deck is in play, 0 = no deck rule
ANIM = 35  # animal[7]: deck codes a seat may play
CB = 42  # per card id c: CF fields at CB + CF * c
F_TRIG, F_TVAL, F_EFF, F_VAL, F_TILES, F_TARGET, F_DECK = range(7)
CF = 7
Rules = np.ndarray
"""A variant compiled by :func:`compile_rules`: int64 array; ``R[P_*]`` the numbers, then the deck
tables (DOFF, DDICE, ANIM) and per card: trigger code, trigger value (-1 = any), effect code,
effect value, tiles (bit mask), target, deck code."""


def _mask(tiles) -> int:
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def compile_rules(cfg: UrgencyConfig) -> np.ndarray:
    """The variant's numbers and cards as one int64 array (see :data:`Rules`)."""
    cards: list[list[int]] = []
    deck_off, deck_dice = [0], []
    for name in ANIMAL_DECKS:
        spec = cfg.decks.get(name)
        for card in spec.cards if spec is not None else []:
            cards.append(
                [
                    TRIGGERS.index(card.trigger.when),
                    -1 if card.trigger.value is None else card.trigger.value,
                    EFFECTS.index(card.effect.do),
                    card.effect.value,
                    _mask(card.effect.tiles),
                    TARGETS.index(card.effect.target),
                    ANIMAL_DECKS.index(name),
                ]
            )
        deck_off.append(len(cards))
        deck_dice.append((spec.dice_while_in_play or 0) if spec is not None else 0)
    c = cfg.cards
    params = [
        cfg.tokens,
        cfg.dice,
        cfg.to_win,
        cfg.board.centre[0],
        cfg.board.centre[1],
        _mask(cfg.board.rosettes),
        _mask(cfg.board.safe),
        int(c.enabled),
        MODES.index(c.mode),
        c.rosette_draw,
        c.discard_at_setup,
        c.piles,
        c.unlock_scores,
        c.max_turns,
        len(c.animal_decks),
        int(c.forced_rolls_trigger),
        int(c.trigger_again_after == "move"),
        round(cfg.roll.pip_chance * PIP_ONE),
        int(c.push_token == "stop_at_1_and_14_or_stay"),
        int(c.reenter_occupied == "nearest_free_behind"),
    ]
    animal = [ANIMAL_DECKS.index(n) for n in c.animal_decks]
    R = np.zeros(CB + CF * len(cards), np.int64)
    R[: len(params)] = params
    R[DOFF : DOFF + 8] = deck_off
    R[DDICE : DDICE + 7] = deck_dice
    R[ANIM : ANIM + len(animal)] = animal
    R[CB:] = np.array(cards, np.int64).reshape(-1)
    return R


# ------------------------------------------------------------------------------------ helpers


@nb.njit(cache=True, inline="always")
def log_event(S, kind, p, c, a, b):
    """Record an event when ``S[LOG_ON]`` (transcripts): ``kind`` (LG_*), player ``p``, card ``c``
    and two small numbers ``a``, ``b`` (0-63) whose meaning depends on the kind (:func:`unpack_event`).
    Nothing is recorded in play, so the log never changes a game."""
    if S[LOG_ON]:
        n = S[LOG_N]
        if n < LOG_CAP:
            S[LOG + n] = kind | (p << 4) | (c << 5) | (a << 13) | (b << 19)
        S[LOG_N] = n + 1


def unpack_event(x: int) -> tuple[int, int, int, int, int]:
    """(kind, player, card, a, b) of an event packed by :func:`log_event`."""
    return x & 15, (x >> 4) & 1, (x >> 5) & 255, (x >> 13) & 63, (x >> 19) & 63


@nb.njit(cache=True, inline="always")
def below(rng, n):
    """A uniform integer in [0, n) drawn from ``rng`` (one double)."""
    return min(int(rng.random() * n), n - 1)


@nb.njit(cache=True, inline="always")
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True)
def roll_pips(rng, n, R):
    """A roll of ``n`` binary dice (Movement: the painted pips pointing up): each die shows a pip
    with probability ``roll.pip_chance`` (``R[P_PIP] / PIP_ONE``). At 1/2 every pattern of the n dice
    is equally likely, and the roll is the bits set in one uniform integer below 2^n (one double
    from ``rng``); otherwise one double per die."""
    if R[P_PIP] == PIP_ONE // 2:
        return popcount(below(rng, 1 << n))
    k = 0
    for _ in range(n):
        if rng.random() * PIP_ONE < R[P_PIP]:
            k += 1
    return k


@nb.njit(cache=True, inline="always")
def in_centre(params, t):
    return params[P_C_LO] <= t <= params[P_C_HI]


@nb.njit(cache=True)
def safe_mask_of(S, R):
    """Tiles that are safe now: the board's safe tiles and every ``safe_tiles`` card in play (of
    either player: a safe tile is safe for everyone, Definitions)."""
    m = R[P_SAFE]
    for p in range(2):
        b = p * PS
        for i in range(S[b + NPLAY]):
            c = S[b + INPLAY + i]
            if R[CB + CF * (c) + F_EFF] == E_SAFE:
                m |= R[CB + CF * (c) + F_TILES]
    return m


@nb.njit(cache=True)
def dice_count(S, R, p):
    """Dice player ``p`` rolls: the rulebook's number, a deck rule while any card of that deck is in
    play (Tortoise: 3), a ``dice`` card over both (the card that came into play last wins)."""
    b = p * PS
    n = R[P_DICE]
    for i in range(S[b + NPLAY]):
        c = S[b + INPLAY + i]
        if R[DDICE + R[CB + CF * (c) + F_DECK]] > 0:
            n = R[DDICE + R[CB + CF * (c) + F_DECK]]
    for i in range(S[b + NPLAY]):
        c = S[b + INPLAY + i]
        if R[CB + CF * (c) + F_EFF] == E_DICE:
            n = R[CB + CF * (c) + F_VAL]
    return n


@nb.njit(cache=True, inline="always")
def safe_mask(S, R):
    """The safe tiles now (cached in the state by :func:`put_in_play`, see :func:`safe_mask_of`)."""
    return S[SAFEM]


@nb.njit(cache=True, inline="always")
def dice_of(S, R, p):
    """Dice player ``p`` rolls now (cached by :func:`put_in_play`, see :func:`dice_count`)."""
    return S[p * PS + DICE_N]


@nb.njit(cache=True)
def move_target(S, R, p, f, r, safe):
    """Where a token of ``p`` on tile ``f`` (0 = supply) lands with ``r``, or -1 if that move is not
    legal (Movement: exact landing at 15 scores; own tokens never share a tile; an opponent's token
    on a safe centre tile cannot be landed on)."""
    t = f + r
    if t > SCORED_TILE:
        return -1
    if t == SCORED_TILE:
        return t
    if (S[p * PS + MASK] >> t) & 1:
        return -1
    if in_centre(R, t) and (S[(1 - p) * PS + MASK] >> t) & 1 and (safe >> t) & 1:
        return -1
    return t


@nb.njit(cache=True)
def gen_moves(S, R, out):
    """Legal MOVE decisions (tiles moved from, 0 = enter) for the active player and the current
    roll, in ``out``; returns their count (0 on a roll of 0)."""
    p = S[ACTIVE]
    r = S[ROLLV]
    if r <= 0:
        return 0
    safe = safe_mask(S, R)
    n = 0
    b = p * PS
    if S[b + SUP] > 0 and move_target(S, R, p, np.int64(0), r, safe) >= 0:
        out[n] = 0
        n += 1
    m = S[b + MASK]
    for f in range(1, SCORED_TILE):
        if (m >> f) & 1 and move_target(S, R, p, f, r, safe) >= 0:
            out[n] = f
            n += 1
    return n


@nb.njit(cache=True)
def has_move(S, R):
    """True when the active player has a legal token move with the current roll (no allocation)."""
    p = S[ACTIVE]
    r = S[ROLLV]
    if r <= 0:
        return False
    safe = S[SAFEM]
    b = p * PS
    if S[b + SUP] > 0 and move_target(S, R, p, np.int64(0), r, safe) >= 0:
        return True
    m = S[b + MASK]
    for f in range(1, SCORED_TILE - r + 1):
        if (m >> f) & 1 and move_target(S, R, p, f, r, safe) >= 0:
            return True
    return False


@nb.njit(cache=True)
def target_token(S, p, which):
    """Tile of player ``p``'s foremost or rearmost token on the board, or 0 if none."""
    m = S[p * PS + MASK]
    if m == 0:
        return 0
    if which == FOREMOST:
        for t in range(SCORED_TILE - 1, 0, -1):
            if (m >> t) & 1:
                return t
    for t in range(1, SCORED_TILE):
        if (m >> t) & 1:
            return t
    return 0


# ---------------------------------------------------------------------------- card activations
# Calls pass constants as np.int64(...) / np.bool_(...): a bare module constant or literal is typed
# Literal[int](k) and numba compiles the callee (and re-optimises every caller's module) once per value.


@nb.njit(cache=True)
def fire(S, R, trigger, p, value):
    """Queue the activations of player ``p``'s cards in play whose trigger is ``trigger`` with
    ``value`` (in the order they came into play). Raises ValueError when one moment sets off more
    than :data:`EVQ_CAP` activations: only cards that trigger each other for ever do that (a removed
    token re-entered where the other's card removes it again, ...), a flaw of the card texts that
    a game reports rather than cutting short (the runner lists the game with its replay command)."""
    b = p * PS
    for i in range(S[b + NPLAY]):
        c = S[b + INPLAY + i]
        if R[CB + CF * (c) + F_TRIG] == trigger and (
            R[CB + CF * (c) + F_TVAL] < 0 or R[CB + CF * (c) + F_TVAL] == value
        ):
            if S[EV_N] >= EVQ_CAP:
                raise ValueError(
                    "more than 64 card activations at one moment: rule cards that trigger each "
                    "other in a loop (see decks.yaml)"
                )
            S[EVQ + S[EV_N]] = p + 2 * c
            S[EV_N] += 1


@nb.njit(cache=True)
def fire_both(S, R, t_active, t_opp, value):
    """One moment that triggers cards of both players: the opponent's first, then the active
    player's (the active player orders simultaneous cards, so theirs win a contradiction)."""
    a = S[ACTIVE]
    fire(S, R, t_opp, 1 - a, value)
    fire(S, R, t_active, a, value)


@nb.njit(cache=True)
def remove_token(S, R, p, t):
    """Player ``p``'s token on tile ``t`` is removed to the supply (Remove); fires ``captured``."""
    S[p * PS + MASK] &= ~(1 << t)
    S[p * PS + SUP] += 1
    S[p * PS + CAPTURED_N] += 1
    log_event(S, LG_REMOVED, p, 0, t, 0)
    fire(S, R, np.int64(T_CAPTURED), p, t)


@nb.njit(cache=True)
def score_token(S, R, p):
    """Player ``p`` scores a token (Scoring): the opponent's ``opponent_score`` cards, then the
    scorer's ``score`` cards (their Rosette card's action), and the opponent's next rule card."""
    k = S[p * PS + SCORED]
    S[SCORED_AT + MAX_TOKENS * p + k] = max((S[TOTAL_TURNS] + 1) // 2, 1)  # the round now (the trajectory)
    S[p * PS + SCORED] = k + 1
    fire(S, R, np.int64(T_OPP_SCORE), 1 - p, np.int64(0))
    fire(S, R, np.int64(T_SCORE), p, np.int64(0))
    unlock(S, R, 1 - p)


@nb.njit(cache=True)
def own_move(S, R, p, f, t, by_roll):
    """Move player ``p``'s token from ``f`` (0 = supply) to ``t`` (15 = scores), already checked
    legal: basic attack in the centre row, scoring, and (``by_roll``) landing triggers and the
    rosette's roll again."""
    b = p * PS
    if f == 0:
        S[b + SUP] -= 1
    else:
        S[b + MASK] &= ~(1 << f)
        if S[RA_TILE] == f:
            S[RA_TILE] = 0  # moved off the rosette that earned the roll again
    if by_roll:
        S[b + LOCK] = 0  # a token moved by a roll (scoring too) frees the Eagle (cards.trigger_again_after)
    if t == SCORED_TILE:
        score_token(S, R, p)
        return
    S[b + MASK] |= 1 << t
    o = 1 - p
    if in_centre(R, t) and (S[o * PS + MASK] >> t) & 1:
        S[b + CAPT] += 1
        remove_token(S, R, o, t)
        fire(S, R, np.int64(T_CAPTURE), p, t)
    if by_roll:
        if (R[P_ROSETTES] >> t) & 1 and p == S[ACTIVE]:
            S[RA_TILE] = t
        if R[P_CARDS] == 0:
            return
        fire(S, R, np.int64(T_LAND_TILE), p, t)
        if (R[P_ROSETTES] >> t) & 1:
            fire(S, R, np.int64(T_LAND_ROSETTE), p, t)
        if in_centre(R, t):
            fire(S, R, np.int64(T_LAND_CENTRE), p, t)


@nb.njit(cache=True)
def free_tile(S, R, p, t):
    """True when player ``p`` may stand on tile ``t`` without landing on anyone (no own token;
    in the centre row, no opponent's token either)."""
    if (S[p * PS + MASK] >> t) & 1:
        return False
    if in_centre(R, t) and (S[(1 - p) * PS + MASK] >> t) & 1:
        return False
    return True


@nb.njit(cache=True)
def reenter_tile(S, R, p, v):
    """The tile a reenter card aimed at tile ``v`` brings player ``p``'s token onto, or 0 for none:
    ``v`` when p may stand there; else (``cards.reenter_occupied``, assumed) none under ``nothing``,
    the nearest tile behind ``v`` (down to 1) p may stand on under ``nearest_free_behind``."""
    if free_tile(S, R, p, v):
        return v
    if R[P_REENTER_BEHIND]:
        for t in range(v - 1, 0, -1):
            if free_tile(S, R, p, t):
                return t
    return 0


@nb.njit(cache=True)
def push_token(S, R, p, f, d):
    """Move player ``p``'s token on ``f`` by ``d`` tiles without an attack: it stops on tile 1 at
    the back (nothing moves off the start) and tile 14 at the front (nobody scores an opponent's
    token), and on the free tile nearest the target between there and ``f``. No triggers, no roll
    again; a token moved off the rosette that earned a roll again loses it. Returns the tile it ends
    on (``f`` if it could not move). Under ``cards.push_token: stop_at_1_and_14_or_stay`` a taken
    target leaves the token on ``f``."""
    # cards.push_token (assumed): stop_at_1_and_14_nearest_free walks back towards f to a free tile;
    # stop_at_1_and_14_or_stay (R[P_PUSH_STAY]) stays on f when the target is taken
    t = min(max(f + d, 1), SCORED_TILE - 1)
    step = 1 if t < f else -1
    if R[P_PUSH_STAY] and t != f and not free_tile(S, R, p, t):
        t = f
    while t != f and not free_tile(S, R, p, t):
        t += step
    if t == f:
        return f
    S[p * PS + MASK] = (S[p * PS + MASK] & ~(1 << f)) | (1 << t)
    if p == S[ACTIVE] and S[RA_TILE] == f:
        S[RA_TILE] = 0
    return t


@nb.njit(cache=True)
def apply_effect(S, R, p, c):
    """Apply card ``c`` of player ``p`` (the vocabulary of :data:`~.config.EFFECTS`)."""
    e = R[CB + CF * (c) + F_EFF]
    v = R[CB + CF * (c) + F_VAL]
    o = 1 - p
    if e == E_ROLL_AGAIN:
        log_event(S, LG_CARD, p, c, 1 if p == S[ACTIVE] else 0, 0)
        if p == S[ACTIVE]:
            S[RA_CARD] = 1
    elif e == E_SET_NEXT:
        log_event(S, LG_CARD, p, c, v, 0)
        S[p * PS + NEXT_ROLL] = v
    elif e == E_SET_OPP_NEXT:
        log_event(S, LG_CARD, p, c, v, 0)
        S[o * PS + NEXT_ROLL] = v
    elif e == E_CHANGE_ROLL:
        if S[ROLLED]:
            # cards.change_roll_range: dice_in_play, a changed roll is one the roller's dice can show
            r = min(max(S[ROLLV] + v, 0), dice_of(S, R, S[ACTIVE]))
            log_event(S, LG_CARD, p, c, S[ROLLV] + 1, r)
            S[ROLLV] = r
        else:
            log_event(S, LG_CARD, p, c, 0, 0)
    elif e == E_EXTRA_MOVE:
        f = target_token(S, p, R[CB + CF * (c) + F_TARGET])
        if f > 0:
            if v > 0:
                t = move_target(S, R, p, f, v, safe_mask(S, R))
                log_event(S, LG_CARD, p, c, f, max(t, 0))
                if t >= 0:
                    own_move(S, R, p, f, t, np.bool_(False))
            else:
                log_event(S, LG_CARD, p, c, f, push_token(S, R, p, f, v))
        else:
            log_event(S, LG_CARD, p, c, 0, 0)
    elif e == E_ATTACK:
        safe = safe_mask(S, R)
        m = R[CB + CF * (c) + F_TILES]
        hit = 0
        for t in range(1, SCORED_TILE):
            if (m >> t) & 1 and in_centre(R, t) and (S[o * PS + MASK] >> t) & 1 and not (safe >> t) & 1:
                hit |= 1 << t
        log_event(S, LG_CARD, p, c, popcount(hit), 0)
        for t in range(1, SCORED_TILE):
            if (hit >> t) & 1:
                S[p * PS + CAPT] += 1
                remove_token(S, R, o, t)
    elif e == E_MOVE_OPP:
        f = target_token(S, o, R[CB + CF * (c) + F_TARGET])
        if f > 0:
            log_event(S, LG_CARD, p, c, f, push_token(S, R, o, f, v))
        else:
            log_event(S, LG_CARD, p, c, 0, 0)
    elif e == E_REENTER:
        t = reenter_tile(S, R, p, v)
        if S[p * PS + SUP] > 0 and t > 0:
            log_event(S, LG_CARD, p, c, t, 0)
            S[p * PS + SUP] -= 1
            S[p * PS + MASK] |= 1 << t
        else:
            log_event(S, LG_CARD, p, c, 0, 0)


@nb.njit(cache=True)
def resolve(S, R):
    """Apply every queued card activation in order (new ones queue behind); stop once a player has
    won (How to Win: the game ends at the winning score, nothing after it happens)."""
    while S[EV_HEAD] < S[EV_N]:
        if S[SCORED] >= R[P_TO_WIN] or S[PS + SCORED] >= R[P_TO_WIN]:
            break
        x = S[EVQ + S[EV_HEAD]]
        S[EV_HEAD] += 1
        apply_effect(S, R, x % 2, x // 2)
    S[EV_HEAD] = 0
    S[EV_N] = 0


# --------------------------------------------------------------------------------- rule cards


@nb.njit(cache=True)
def push_request(S, p, kind, last):
    S[REQ + S[REQ_TAIL] % 16] = p + 2 * kind + 16 * last
    S[REQ_TAIL] += 1


@nb.njit(cache=True)
def put_in_play(S, R, p, c):
    """Card ``c`` comes into play for ``p``; refreshes the cached safe tiles and dice count."""
    b = p * PS
    S[b + INPLAY + S[b + NPLAY]] = c
    S[b + NPLAY] += 1
    S[SAFEM] = safe_mask_of(S, R)
    S[b + DICE_N] = dice_count(S, R, p)


@nb.njit(cache=True)
def unlock(S, R, p):
    """Player ``p``'s opponent has scored (Rule Cards): at scores 1..unlock_scores, ``p`` puts the
    next card of their order into play (set in stone), or chooses from their next pile, or, with no
    pile left, their final card from the discard pile."""
    if R[P_CARDS] == 0:
        return
    b = p * PS
    S[b + OPPSC] += 1
    if S[b + OPPSC] > R[P_UNLOCK]:
        return
    if S[b + QUSED] < S[b + NQUEUE]:
        log_event(S, LG_IN_PLAY, p, S[b + QUEUE + S[b + QUSED]], 0, 0)
        put_in_play(S, R, p, S[b + QUEUE + S[b + QUSED]])
        S[b + QUSED] += 1
    elif S[b + NEXTPILE] < R[P_PILES]:
        push_request(S, p, np.int64(K_PILE), np.int64(0))
    elif S[b + NDISC] > 0:
        push_request(S, p, np.int64(K_DISCARD), np.int64(0))


@nb.njit(cache=True)
def load_options(S, R):
    """Set PICK phase options for the request at the head of the queue."""
    x = S[REQ + S[REQ_HEAD] % 16]
    p = x % 2
    kind = (x // 2) % 8
    b = p * PS
    n = 0
    if kind == K_ROSETTE:
        for i in range(S[b + NROS]):
            S[OPTS + n] = S[b + ROS + i]
            n += 1
    elif kind == K_PILE:
        k = S[b + NEXTPILE]
        for i in range(2):
            S[OPTS + n] = S[b + PILES + 2 * k + i]
            n += 1
    elif kind == K_DISCARD:
        for i in range(S[b + NDISC]):
            S[OPTS + n] = S[b + DISC + i]
            n += 1
    else:
        for i in range(6):
            if S[b + PILES + i] >= 0:
                S[OPTS + n] = S[b + PILES + i]
                n += 1
    S[OPT_N] = n
    S[PICKER] = p
    S[PICK_KIND] = kind
    S[PHASE] = PH_PICK


@nb.njit(cache=True)
def apply_pick(S, R, c):
    """The picker chooses card ``c`` among the options (already checked legal)."""
    x = S[REQ + S[REQ_HEAD] % 16]
    S[REQ_HEAD] += 1
    p = x % 2
    kind = (x // 2) % 8
    last = x // 16
    b = p * PS
    if kind == K_ROSETTE:
        put_in_play(S, R, p, c)  # the other is removed from the game
    elif kind == K_PILE:
        k = S[b + NEXTPILE]
        for i in range(2):
            other = S[b + PILES + 2 * k + i]
            if other != c:
                S[b + DISC + S[b + NDISC]] = other
                S[b + NDISC] += 1
            S[b + PILES + 2 * k + i] = -1
        put_in_play(S, R, p, c)
        S[b + NEXTPILE] += 1
    elif kind == K_DISCARD:
        n = S[b + NDISC]
        j = 0
        for i in range(n):
            if S[b + DISC + i] != c:
                S[b + DISC + j] = S[b + DISC + i]
                j += 1
        S[b + NDISC] = j
        put_in_play(S, R, p, c)
    else:
        for i in range(6):
            if S[b + PILES + i] == c:
                S[b + PILES + i] = -1
        if kind == K_QUEUE:
            S[b + QUEUE + S[b + NQUEUE]] = c
            S[b + NQUEUE] += 1
        else:
            put_in_play(S, R, p, c)
        if last:  # the cards not chosen go to the discard pile
            for i in range(6):
                if S[b + PILES + i] >= 0:
                    S[b + DISC + S[b + NDISC]] = S[b + PILES + i]
                    S[b + NDISC] += 1
                    S[b + PILES + i] = -1
            S[b + NEXTPILE] = R[P_PILES]


@nb.njit(cache=True)
def has_instead(S, R, p):
    """Does ``p`` have an ``instead_of_roll`` card in play?"""
    b = p * PS
    for i in range(S[b + NPLAY]):
        if R[CB + CF * S[b + INPLAY + i] + F_TRIG] == T_INSTEAD:
            return True
    return False


@nb.njit(cache=True)
def instead_cards(S, R, p, out):
    """Player ``p``'s ``instead_of_roll`` cards that may be triggered now (none the turn after one
    was, until its owner has rolled or moved a token by a roll: ``cards.trigger_again_after``)."""
    b = p * PS
    if S[b + LOCK]:
        return 0
    n = 0
    for i in range(S[b + NPLAY]):
        c = S[b + INPLAY + i]
        if R[CB + CF * (c) + F_TRIG] == T_INSTEAD:
            out[n] = c
            n += 1
    return n


# ------------------------------------------------------------------------------------- setup


@nb.njit(cache=True, inline="always")  # a thin wrapper: no library level of its own (issue 47)
def new_state(R, decks, rng):
    """:func:`setup_state`, then advanced to the first decision."""
    S = setup_state(R, decks, rng)
    advance(S, R, rng)
    return S


@nb.njit(cache=True)
def deal_deck(R, rng, other):
    """A deck code drawn uniformly from the variant's animal decks other than ``other`` (the other
    seat's deck, -1 if it has none yet): the game has one copy of each deck (Game Components: "7
    animal decks"; Setup: each player selects one), so the two seats never share one. One double
    from ``rng``. Raises ValueError when no other deck is left (``cards.animal_decks`` has one deck
    and it is ``other``; the config and the agent checks refuse such a table before any game)."""
    n = R[P_N_ANIMAL]
    free = 0
    for i in range(n):
        if R[ANIM + i] != other:
            free += 1
    if free == 0:
        raise ValueError("no animal deck left to deal: both seats would hold the same deck")
    k = below(rng, free)
    for i in range(n):
        if R[ANIM + i] != other:
            if k == 0:
                return R[ANIM + i]
            k -= 1
    return -1


@nb.njit(cache=True)
def setup_state(R, decks, rng):
    """A game after Setup: ``decks`` (int64[2]) the deck code of each seat, -1 = dealt at random
    from the animal decks (:func:`deal_deck`: seat 1 first, then seat 2 from the decks left, so the
    seats never share a deck unless both name it). Shuffles each deck, discards, deals the piles,
    draws the Rosette cards and queues the setup decisions (call :func:`advance` for the first
    decision). Seat 1 moves first (the rulebook's random first player is the runner's seat rotation)."""
    S = np.zeros(STATE_SIZE, np.int64)
    prm = R
    for p in range(2):
        b = p * PS
        S[b + SUP] = prm[P_TOKENS]
        S[b + DICE_N] = prm[P_DICE]
        S[b + NEXT_ROLL] = -1
        d = decks[p]
        if d < 0 and prm[P_CARDS]:
            d = deal_deck(R, rng, decks[1] if p == 0 else S[DECK])
        S[b + DECK] = d
        for i in range(6):
            S[b + PILES + i] = -1
    if prm[P_CARDS]:
        for p in range(2):
            b = p * PS
            d = S[b + DECK]
            lo, hi = R[DOFF + d], R[DOFF + d + 1]
            cards = np.arange(lo, hi)
            rng.shuffle(cards)
            k = 0
            for _ in range(prm[P_DISCARD]):
                S[b + DISC + S[b + NDISC]] = cards[k]
                S[b + NDISC] += 1
                k += 1
            for i in range(2 * prm[P_PILES]):
                S[b + PILES + i] = cards[k]
                k += 1
        ros = np.arange(R[DOFF + 0], R[DOFF + 1])
        rng.shuffle(ros)
        k = 0
        for p in range(2):
            for i in range(prm[P_ROS_DRAW]):
                S[p * PS + ROS + i] = ros[k]
                S[p * PS + NROS] += 1
                k += 1
        for p in range(2):
            push_request(S, p, np.int64(K_ROSETTE), np.int64(0))
        mode = prm[P_MODE]
        for p in range(2):
            if mode == 1:
                push_request(S, p, np.int64(K_PILE), np.int64(0))
            elif mode == 2:
                for i in range(prm[P_PILES]):
                    push_request(S, p, np.int64(K_QUEUE), 1 if i == prm[P_PILES] - 1 else 0)
            elif mode == 3:
                for i in range(4):
                    push_request(S, p, np.int64(K_PLAY), 1 if i == 3 else 0)
    S[SAFEM] = prm[P_SAFE]
    S[STEP] = ST_SETUP
    S[ACTIVE] = 0
    return S


# -------------------------------------------------------------------------------- the turn machine


@nb.njit(cache=True)
def roll_dice(S, R, rng):
    """Roll (Movement): a forced next roll if a card set one, else the player's binary dice; then the
    roll cards fire (for a forced roll only if ``cards.forced_rolls_trigger``)."""
    p = S[ACTIVE]
    b = p * PS
    if R[P_LOCK_MOVE] == 0:
        S[b + LOCK] = 0
    forced = S[b + NEXT_ROLL] >= 0
    if forced:
        r = S[b + NEXT_ROLL]
        S[b + NEXT_ROLL] = -1
    else:
        r = roll_pips(rng, dice_of(S, R, p), R)
    S[ROLLV] = r
    S[ROLLED] = 1
    log_event(S, LG_ROLL, p, 0, r, 1 if forced else 0)
    if R[P_CARDS] and (not forced or R[P_FORCED_TRIG]):
        fire_both(S, R, np.int64(T_OWN_ROLL), np.int64(T_OPP_ROLL), r)
        resolve(S, R)


@nb.njit(cache=True)
def advance(S, R, rng):
    """Play the game's own steps (setup picks, turn starts, rolls, forced passes, roll agains)
    until a player has a decision to make or the game is over."""
    prm = R
    while True:
        if S[PHASE] == PH_OVER:
            return
        if S[REQ_HEAD] < S[REQ_TAIL]:
            load_options(S, R)
            return
        st = S[STEP]
        if st == ST_SETUP:
            S[STEP] = ST_TURN_START
        elif st == ST_TURN_START:
            p = S[ACTIVE]
            if S[TOTAL_TURNS] >= prm[P_MAX_TURNS]:
                S[PHASE] = PH_OVER
                log_event(S, LG_STOP, p, 0, 0, 0)
                return
            S[TOTAL_TURNS] += 1
            S[p * PS + TURNS] += 1
            log_event(S, LG_TURN, p, 0, 0, 0)
            S[RA_CARD] = 0
            S[RA_TILE] = 0
            S[ROLLED] = 0
            if R[P_CARDS]:
                fire(S, R, np.int64(T_TURN_START), p, np.int64(0))
                resolve(S, R)
            S[STEP] = ST_ROLL
            if end_if_won(S, R):
                return
            if S[REQ_HEAD] < S[REQ_TAIL]:
                continue
            if S[p * PS + LOCK] == 0 and has_instead(S, R, p):
                S[PHASE] = PH_CHOOSE
                return
        elif st == ST_ROLL:
            roll_dice(S, R, rng)
            S[STEP] = ST_END
            if end_if_won(S, R):
                return
            if has_move(S, R):
                S[PHASE] = PH_MOVE
                return
            log_event(S, LG_NO_MOVE, S[ACTIVE], 0, S[ROLLV], 0)
        else:  # ST_END
            if end_if_won(S, R):
                return
            p = S[ACTIVE]
            by_tile = S[RA_TILE] > 0 and (S[p * PS + MASK] >> S[RA_TILE]) & 1
            ra = S[RA_CARD] > 0 or by_tile
            if ra:
                log_event(S, LG_AGAIN, p, 0, S[RA_TILE] if by_tile else 0, 1 if S[RA_CARD] > 0 else 0)
            S[RA_CARD] = 0
            S[RA_TILE] = 0
            S[ROLLED] = 0
            if ra:
                S[p * PS + RAS] += 1
                S[STEP] = ST_ROLL
            else:
                S[ACTIVE] = 1 - p
                S[STEP] = ST_TURN_START


@nb.njit(cache=True)
def end_if_won(S, R):
    """Game over once a player has scored ``to_win`` tokens (How to Win)."""
    for p in range(2):
        if S[p * PS + SCORED] >= R[P_TO_WIN]:
            S[WINNER] = p
            S[PHASE] = PH_OVER
            return True
    return False


@nb.njit(cache=True, inline="always")  # a thin wrapper: no library level of its own (issue 47)
def apply_decision(S, R, kind, arg, rng):
    """Play a legal decision and advance to the next one (mutates ``S``)."""
    decide(S, R, kind, arg)
    advance(S, R, rng)


@nb.njit(cache=True)
def decide(S, R, kind, arg):
    """Play a legal decision and what it sets off (a capture, landing cards, a triggered card), but
    not the game's own steps after it (:func:`advance`): the state right after the decision."""
    ph = S[PHASE]
    if ph == PH_MOVE:
        p = S[ACTIVE]
        t = move_target(S, R, p, arg, S[ROLLV], safe_mask(S, R))
        own_move(S, R, p, arg, t, np.bool_(True))
        if R[P_CARDS]:
            resolve(S, R)
        S[STEP] = ST_END
    elif ph == PH_PICK:
        apply_pick(S, R, arg)
    else:
        if kind == ROLL:
            S[STEP] = ST_ROLL
        else:
            p = S[ACTIVE]
            S[p * PS + LOCK] = 1
            apply_effect(S, R, p, arg)
            resolve(S, R)
            S[STEP] = ST_END
    S[PHASE] = PH_MOVE


@nb.njit(cache=True)
def seat_to_move(S):
    return S[PICKER] if S[PHASE] == PH_PICK else S[ACTIVE]


@nb.njit(cache=True)
def decisions(S, R, kinds, args):
    """Every legal decision of the seat to move, as (kinds, args); returns the count."""
    ph = S[PHASE]
    n = 0
    if ph == PH_MOVE:
        n = gen_moves(S, R, args)
        for i in range(n):
            kinds[i] = MOVE
    elif ph == PH_PICK:
        for i in range(S[OPT_N]):
            kinds[n] = PICK
            args[n] = S[OPTS + i]
            n += 1
    elif ph == PH_CHOOSE:
        kinds[0] = ROLL
        args[0] = 0
        p = S[ACTIVE]
        n = 1
        for i in range(S[p * PS + NPLAY]):
            c = S[p * PS + INPLAY + i]
            if R[CB + CF * c + F_TRIG] == T_INSTEAD:
                kinds[n] = TRIGGER
                args[n] = c
                n += 1
    return n
