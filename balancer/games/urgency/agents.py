"""Urgency agents, compiled with numba: ``random``, ``greedy``, ``expectimax`` and ``expectimax1``.

Every agent makes three kinds of decision (:mod:`.rules`): which token to move, which rule card to
put into play (Rosette card, pile, discard pile, the set-in-stone order, the full-force four), and,
with Eagle cards, whether to roll or trigger a card instead.

random: uniform among the legal decisions.

greedy: moves by the first rule of this priority list that some legal move meets (issue #5):
  1. score a token (exact landing on 15);
  2. capture (land on an opponent's token in the centre row), the most advanced victim first;
  3. land on a safe rosette (tile 8);
  4. land on any rosette (roll again);
  5. advance the rearmost threatened token (a token on an unsafe centre tile with an opponent's
     token 1-4 tiles behind it on the opponent's path);
  6. enter a new token;
  7. advance the foremost token.
  Within rules 2-4 the token furthest along moves. Greedy uses no chance: the same position gives
  the same move.

expectimax: two plies over the exact dice distribution (4 dice: 0-4 with probabilities 1/16,
4/16, 6/16, 4/16, 1/16; a forced next roll is certain; other dice counts binomial): for each own
move, the expected value over the opponent's roll of the opponent's best reply, or, when the move
earns a roll again, over the own next roll of the own best move. ``expectimax1`` looks one ply:
the evaluation after the move (with the same roll-again expectation). The search sees the basic
rules only (movement, basic attack, scoring, rosettes, safe tiles of cards in play, dice counts of
cards in play); card triggers are not simulated. The evaluation of a position for player p is
f(p) - f(opponent) with
  f = eval_scored x tokens scored + eval_progress x (sum of tiles of tokens on the board)
      - eval_danger x eval_progress x sum over threatened tokens of (P(hit) x tile)
      + eval_safe x tokens on safe centre tiles + eval_supply x tokens in the supply,
P(hit) being the probability that the opponent's next roll is one of the distances from its tokens
1-4 tiles behind. A winning move is worth more than any evaluation. Ties go to the first move in
tile order.

Cards (greedy and both expectimax): the option whose effect comes first in the config's
``agents.card_priority``; ties go to the first option. Eagle (greedy and expectimax): trigger an
``instead_of_roll`` card when it has a target, the first such card in the order they came into play:
an attack when an opponent's token is on an unsafe tile it names, set_opponent_next_roll when the
opponent has a token on tile 11 or further, move_opponent when the opponent has a token in the
centre row or beyond, reenter when the named tile is free and a token is in the supply; roll
otherwise (extra_move, set_next_roll and the rest are never preferred to a roll).

Every random choice draws from the numpy Generator passed in.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from .rules import (
    ACTIVE,
    CAPT,
    CAPTURED_N,
    CB,
    CF,
    DECK,
    DICE_N,
    E_ATTACK,
    E_MOVE_OPP,
    E_REENTER,
    E_SET_OPP_NEXT,
    F_EFF,
    F_TILES,
    F_VAL,
    MASK,
    MAX_TOKENS,
    NEXT_ROLL,
    NPLAY,
    OPT_N,
    OPTS,
    P_C_HI,
    P_C_LO,
    P_DICE,
    P_MAX_TURNS,
    P_PIP,
    P_ROSETTES,
    P_SAFE,
    P_TO_WIN,
    P_TOKENS,
    PH_CHOOSE,
    PH_OVER,
    PH_PICK,
    PHASE,
    PIP_ONE,
    PS,
    RAS,
    ROLLV,
    SCORED,
    SCORED_AT,
    SCORED_TILE,
    STATE_SIZE,
    SUP,
    TURNS,
    apply_decision,
    below,
    decisions,
    dice_of,
    new_state,
    popcount,
    reenter_tile,
    roll_pips,
    safe_mask,
    seat_to_move,
)

AGENTS: tuple[str, ...] = ("random", "greedy", "expectimax", "expectimax1")
"""Agent names; a seat's name may add ``+<deck>`` (``greedy+ibex``) to play that deck."""
RANDOM, GREEDY, EXPECTIMAX, EXPECTIMAX1 = range(4)
WIN_VALUE = 1.0e6


# ----------------------------------------------------------------------------------- cards


@nb.njit(cache=True)
def pick_card(S, R, kind, prio, rng):
    """The card to choose among the PICK options: random, or the best by ``prio`` (rank of each
    effect code, lower is better)."""
    n = S[OPT_N]
    if kind == RANDOM:
        return S[OPTS + below(rng, n)]
    best, best_rank = S[OPTS], 1 << 30
    for i in range(n):
        c = S[OPTS + i]
        if prio[R[CB + CF * (c) + F_EFF]] < best_rank:
            best, best_rank = c, prio[R[CB + CF * (c) + F_EFF]]
    return best


@nb.njit(cache=True)
def has_target(S, R, p, c):
    """Does Eagle card ``c`` of ``p`` have something to act on now (see the module docstring)?"""
    o = 1 - p
    mo = S[o * PS + MASK]
    e = R[CB + CF * (c) + F_EFF]
    if e == E_ATTACK:
        return (mo & R[CB + CF * (c) + F_TILES] & ~safe_mask(S, R)) != 0
    if e == E_SET_OPP_NEXT:
        return (mo >> 11) != 0
    if e == E_MOVE_OPP:
        return (mo >> R[P_C_LO]) != 0
    if e == E_REENTER:
        return S[p * PS + SUP] > 0 and reenter_tile(S, R, p, R[CB + CF * (c) + F_VAL]) > 0
    return False


@nb.njit(cache=True)
def choose_instead(S, R, kind, rng, kinds, args, n):
    """ROLL or TRIGGER in the Eagle's choice phase; returns the index into (kinds, args)."""
    if kind == RANDOM:
        return below(rng, n)
    p = S[ACTIVE]
    for i in range(1, n):
        if has_target(S, R, p, args[i]):
            return i
    return 0


# ----------------------------------------------------------------------------------- greedy


@nb.njit(cache=True)
def threatened(t, mo, lo, hi, safe):
    """A token on tile ``t`` can be hit: an unsafe centre tile with an opponent's token 1-4 behind."""
    if t < lo or t > hi or (safe >> t) & 1:
        return False
    for q in range(max(1, t - 4), t):
        if (mo >> q) & 1:
            return True
    return False


@nb.njit(cache=True)
def greedy_move(S, R, moves, n):
    """Index of greedy's move among ``moves[:n]`` (tiles moved from) by the priority list."""
    p = S[ACTIVE]
    r = S[ROLLV]
    mo = S[(1 - p) * PS + MASK]
    lo, hi = R[P_C_LO], R[P_C_HI]
    safe = safe_mask(S, R)
    ros = R[P_ROSETTES]
    return greedy_index(moves, n, r, mo, lo, hi, safe, ros)


@nb.njit(cache=True, inline="always")
def move_rank(f, r, mo, lo, hi, safe, ros):
    """Greedy's priority of moving the token on tile ``f`` with roll ``r`` as one number: the first
    rule of the priority list (module docstring) that the move meets, 0 to 6, and within a rule a
    key (at most SCORED_TILE < 64), as ``(6 - rule) * 64 + key``: the larger, the sooner greedy
    plays it."""
    t = f + r
    if t == SCORED_TILE:
        cls, key = 0, f
    elif lo <= t <= hi and (mo >> t) & 1:
        cls, key = 1, t
    elif (ros >> t) & 1 and (safe >> t) & 1:
        cls, key = 2, f
    elif (ros >> t) & 1:
        cls, key = 3, f
    elif f > 0 and threatened(f, mo, lo, hi, safe):
        cls, key = 4, SCORED_TILE - f  # the rearmost first
    elif f == 0:
        cls, key = 5, 0
    else:
        cls, key = 6, f
    return (6 - cls) * 64 + key


@nb.njit(cache=True, inline="always")
def greedy_index(moves, n, r, mo, lo, hi, safe, ros):
    """Index among ``moves[:n]`` (tiles moved from, roll ``r``) of the first rule of greedy's
    priority list (module docstring) that a move meets; within a rule the larger key wins; the
    first such move (:func:`move_rank`, the largest first)."""
    best, best_rank = 0, -1
    for i in range(n):
        rank = move_rank(moves[i], r, mo, lo, hi, safe, ros)
        if rank > best_rank:
            best, best_rank = i, rank
    return best


@nb.njit(cache=True)
def greedy_scores(S, R, prio, args, n, out):
    """Greedy's knowledge of each of the ``n`` legal decisions (``args`` as :func:`choose` reads
    them) into ``out[:n]``, the larger the better, so that greedy's decision is the first of the
    largest: a card to pick, minus its priority rank (:func:`pick_card`: the lowest rank); in the
    Eagle's choice, 1 for a card with something to act on, 0.5 for rolling (the first decision),
    0 for a card with nothing to act on (:func:`choose_instead`); a token move, its
    :func:`move_rank`."""
    ph = S[PHASE]
    if ph == PH_PICK:
        for i in range(n):
            out[i] = -prio[R[CB + CF * (args[i]) + F_EFF]]
        return
    if ph == PH_CHOOSE:
        p = S[ACTIVE]
        out[0] = 0.5
        for i in range(1, n):
            out[i] = 1.0 if has_target(S, R, p, args[i]) else 0.0
        return
    p = S[ACTIVE]
    r = S[ROLLV]
    mo = S[(1 - p) * PS + MASK]
    safe = safe_mask(S, R)
    for i in range(n):
        out[i] = move_rank(args[i], r, mo, R[P_C_LO], R[P_C_HI], safe, R[P_ROSETTES])


# ----------------------------------------------------------------------------------- expectimax


@nb.njit(cache=True)
def roll_probs(S, R, p, out):
    """Probability of each roll 0-4 for player ``p``'s next roll (int64 -> float64[5])."""
    for k in range(5):
        out[k] = 0.0
    if S[p * PS + NEXT_ROLL] >= 0:
        out[S[p * PS + NEXT_ROLL]] = 1.0
        return
    n = dice_of(S, R, p)
    q = R[P_PIP] / PIP_ONE  # roll.pip_chance: 1/2 gives binomial(n, k) / 2^n exactly
    c = 1
    for k in range(n + 1):  # binomial(n, k) q^k (1 - q)^(n - k)
        out[k] = c * q**k * (1.0 - q) ** (n - k)
        c = c * (n - k) // (k + 1)


@nb.njit(cache=True)
def side_value(m, sup, sc, mo, po, lo, hi, safe, w):
    """f(p) of the module docstring; ``po`` the opponent's roll probabilities."""
    v = w[0] * sc + w[3] * sup
    for t in range(1, SCORED_TILE):
        if (m >> t) & 1:
            v += w[1] * t
            if lo <= t <= hi:
                if (safe >> t) & 1:
                    v += w[4]
                else:
                    ph = 0.0
                    for q in range(max(1, t - 4), t):
                        if (mo >> q) & 1:
                            ph += po[t - q]
                    v -= w[2] * w[1] * ph * t
    return v


@nb.njit(cache=True)
def evaluate(pos, lo, hi, safe, w, pp, po, to_win):
    """Value of ``pos`` (m_p, sup_p, sc_p, m_o, sup_o, sc_o) for p; pp/po the roll probabilities."""
    if pos[2] >= to_win:
        return WIN_VALUE
    if pos[5] >= to_win:
        return -WIN_VALUE
    return side_value(pos[0], pos[1], pos[2], pos[3], po, lo, hi, safe, w) - side_value(
        pos[3], pos[4], pos[5], pos[0], pp, lo, hi, safe, w
    )


@nb.njit(cache=True)
def base_move(pos, f, r, lo, hi, safe, out):
    """Basic rules only: p (pos[0..2]) moves a token from ``f`` by ``r``; writes the position to
    ``out`` and returns the landing tile, or -1 if the move is illegal."""
    t = f + r
    if t > SCORED_TILE or (f == 0 and pos[1] == 0) or (f > 0 and not (pos[0] >> f) & 1):
        return -1
    if t < SCORED_TILE and (pos[0] >> t) & 1:
        return -1
    cap = t < SCORED_TILE and lo <= t <= hi and (pos[3] >> t) & 1
    if cap and (safe >> t) & 1:
        return -1
    for k in range(6):
        out[k] = pos[k]
    if f == 0:
        out[1] -= 1
    else:
        out[0] &= ~(1 << f)
    if t == SCORED_TILE:
        out[2] += 1
    else:
        out[0] |= 1 << t
        if cap:
            out[3] &= ~(1 << t)
            out[4] += 1
    return t


@nb.njit(cache=True)
def swap(pos, out):
    for k in range(3):
        out[k] = pos[k + 3]
        out[k + 3] = pos[k]


@nb.njit(cache=True)
def best_reply(pos, lo, hi, safe, ros, w, pp, po, to_win, sign_self):
    """Expected value (for the original player) over the roll of the side to move in ``pos`` (its
    tokens first) of that side's best move by the evaluation. ``sign_self`` +1 when the side to
    move is the original player, -1 for the opponent."""
    tmp = np.empty(6, np.int64)
    probs = pp if sign_self > 0 else po
    other = po if sign_self > 0 else pp
    total = 0.0
    stay = evaluate(pos, lo, hi, safe, w, probs, other, to_win)
    for r in range(5):
        if probs[r] == 0.0:
            continue
        best = -1.0e18
        found = False
        if r > 0:
            for f in range(SCORED_TILE):
                if base_move(pos, f, r, lo, hi, safe, tmp) < 0:
                    continue
                v = evaluate(tmp, lo, hi, safe, w, probs, other, to_win)
                if v > best:
                    best = v
                found = True
        total += probs[r] * (best if found else stay)
    return total * sign_self


@nb.njit(cache=True)
def expectimax_move(S, R, moves, n, depth, w):
    """Index of the best move among ``moves[:n]`` (see the module docstring)."""
    p = S[ACTIVE]
    o = 1 - p
    lo, hi = R[P_C_LO], R[P_C_HI]
    safe = safe_mask(S, R)
    ros = R[P_ROSETTES]
    to_win = R[P_TO_WIN]
    pp = np.empty(5)
    po = np.empty(5)
    roll_probs(S, R, p, pp)
    roll_probs(S, R, o, po)
    pos = np.array(
        [S[p * PS + MASK], S[p * PS + SUP], S[p * PS + SCORED], S[o * PS + MASK], S[o * PS + SUP], S[o * PS + SCORED]],
        np.int64,
    )
    after = np.empty(6, np.int64)
    flipped = np.empty(6, np.int64)
    best, best_v = 0, -1.0e18
    for i in range(n):
        t = base_move(pos, moves[i], S[ROLLV], lo, hi, safe, after)
        if after[2] >= to_win:
            return i
        again = t < SCORED_TILE and (ros >> t) & 1
        if again:
            v = best_reply(after, lo, hi, safe, ros, w, pp, po, to_win, np.int64(1))
        elif depth >= 2:
            swap(after, flipped)
            v = best_reply(flipped, lo, hi, safe, ros, w, pp, po, to_win, np.int64(-1))
        else:
            v = evaluate(after, lo, hi, safe, w, pp, po, to_win)
        if v > best_v:
            best, best_v = i, v
    return best


# ----------------------------------------------------------------------------------- dispatch


@nb.njit(cache=True)
def choose(S, R, kind, prio, w, rng, kinds, args, n):
    """Index of the agent's decision among the ``n`` legal ones in (kinds, args)."""
    ph = S[PHASE]
    if ph == PH_PICK:
        c = pick_card(S, R, kind, prio, rng)
        for i in range(n):
            if args[i] == c:
                return i
        return 0
    if ph == PH_CHOOSE:
        return choose_instead(S, R, kind, rng, kinds, args, n)
    if kind == RANDOM:
        return below(rng, n)
    if kind == GREEDY:
        return greedy_move(S, R, args, n)
    return expectimax_move(S, R, args, n, 2 if kind == EXPECTIMAX else 1, w)


@nb.njit(cache=True, inline="always")  # no library level between play_seated and the rules (issue 47)
def play_new_game(R, decks, agent_kinds, prio, weights, game_rng, agent_rng):
    """Set up and play one whole game in a single compiled call; returns the final state."""
    S = new_state(R, decks, game_rng)
    kinds = np.empty(16, np.int64)
    args = np.empty(16, np.int64)
    while S[PHASE] != PH_OVER:
        seat = seat_to_move(S)
        n = decisions(S, R, kinds, args)
        i = choose(S, R, agent_kinds[seat], prio, weights[seat], agent_rng, kinds, args, n)
        apply_decision(S, R, kinds[i], args[i], game_rng)
    return S


@nb.njit(cache=True)
def play_new_game_no_chance_agents(R, decks, agent_kinds, prio, weights, game_rng):
    """:func:`play_new_game` for a table without a ``random`` agent: the other agents never draw, so
    the game's generator can stand in for theirs (same games; one generator fewer to hand to numba,
    which costs about 20 microseconds a call)."""
    return play_new_game(R, decks, agent_kinds, prio, weights, game_rng, game_rng)


# ----------------------------------------------------------------------------------- no-card fast path


@nb.njit(cache=True, inline="always")
def highest_bit(x):
    """The index of the highest set bit of ``x`` (> 0)."""
    return 63 - np.int64(leading_zeros(np.uint64(x)))


@nb.njit(cache=True, inline="always")
def lowest_bit(x):
    """The index of the lowest set bit of ``x`` (> 0)."""
    return np.int64(trailing_zeros(np.uint64(x)))


@nb.njit(cache=True, inline="always")
def race_legal(mp, mo, has_supply, r, centre_safe):
    """The legal moves of the race as a bit set of the tiles moved from (bit 0: enter a token):
    a token of ``mp`` (or a new one when ``has_supply``) moves ``r`` tiles, to at most the scoring
    space, never onto an own token, nor onto an opponent's token on a safe centre tile
    (``centre_safe``: the safe tiles of the centre row). The same set as :func:`~.rules.decisions`."""
    from_mask = (mp | (1 if has_supply else 0)) & ((1 << (SCORED_TILE + 1 - r)) - 1)
    blocked = ((from_mask << r) & (mp | (mo & centre_safe))) >> r
    return from_mask & ~blocked


@nb.njit(cache=True, inline="always")
def greedy_from(legal, r, mo, centre, safe, ros):
    """Greedy's move as the tile moved from, by the priority list (module docstring), over the
    legal set ``legal`` (bits: tiles moved from): the same move as :func:`greedy_index` over the
    same moves listed in tile order, computed on bit sets (the first non-empty rule wins; within a
    rule the furthest token, or for rule 5 the rearmost)."""
    land = legal << r
    if (land >> SCORED_TILE) & 1:
        return SCORED_TILE - r
    x = land & mo & centre
    if x:
        return highest_bit(x) - r
    x = land & ros & safe
    if x:
        return highest_bit(x) - r
    x = land & ros
    if x:
        return highest_bit(x) - r
    m = mo & ~1
    x = legal & ((m << 1) | (m << 2) | (m << 3) | (m << 4)) & centre & ~safe
    if x:
        return lowest_bit(x)
    if legal & 1:
        return 0
    return highest_bit(legal)


@nb.njit(cache=True)
def play_race_fast(R, agent_kinds, game_rng, agent_rng):
    """The game without rule cards for ``random`` and ``greedy`` seats, written as one loop over a
    few integers with the legal moves as a bit set (:func:`race_legal`, :func:`greedy_from`): the
    same rules, the same draws in the same order and the same choices as :func:`play_new_game`
    (tests/games/urgency/test_fast_path.py checks that they agree game by game), much faster. A
    random seat takes the k-th legal move in tile order, k drawn as :func:`~.rules.below` draws it.
    Returns a state array with the fields :func:`~.scoring.final_rows` reads (masks, supplies,
    scored, turns, captures, roll agains) and the round each token scored in (``SCORED_AT``, as
    :func:`~.rules.score_token` writes it)."""
    S = np.zeros(STATE_SIZE, np.int64)
    lo, hi = R[P_C_LO], R[P_C_HI]
    ros, safe, to_win, dice, max_turns = R[P_ROSETTES], R[P_SAFE], R[P_TO_WIN], R[P_DICE], R[P_MAX_TURNS]
    centre = ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
    centre_safe = centre & safe
    mask = np.zeros(2, np.int64)
    sup = np.full(2, R[P_TOKENS], np.int64)
    sc = np.zeros(2, np.int64)
    p = 0
    total = 0
    over = False
    while not over and total < max_turns:
        total += 1
        S[p * PS + TURNS] += 1
        o = 1 - p
        again = True
        while again:
            again = False
            r = roll_pips(game_rng, dice, R)
            if r == 0:
                break
            mp, mo = mask[p], mask[o]
            legal = race_legal(mp, mo, sup[p] > 0, r, centre_safe)
            if legal == 0:
                break
            if agent_kinds[p] == RANDOM:
                x = legal
                for _ in range(below(agent_rng, popcount(legal))):
                    x &= x - 1
                f = lowest_bit(x)
            else:
                f = greedy_from(legal, r, mo, centre, safe, ros)
            t = f + r
            if f == 0:
                sup[p] -= 1
            else:
                mask[p] = mp & ~(1 << f)
            if t == SCORED_TILE:
                S[SCORED_AT + MAX_TOKENS * p + sc[p]] = (total + 1) // 2  # the round (rules.score_token)
                sc[p] += 1
                if sc[p] >= to_win:
                    over = True
                    break
                continue
            mask[p] |= 1 << t
            if (centre >> t) & 1 and (mo >> t) & 1:
                mask[o] = mo & ~(1 << t)
                sup[o] += 1
                S[p * PS + CAPT] += 1
                S[o * PS + CAPTURED_N] += 1
            if (ros >> t) & 1:
                again = True
                S[p * PS + RAS] += 1
        p = 1 - p
    for q in range(2):
        S[q * PS + MASK] = mask[q]
        S[q * PS + SUP] = sup[q]
        S[q * PS + SCORED] = sc[q]
        S[q * PS + DICE_N] = dice
        S[q * PS + DECK] = -1
    return S


# ----------------------------------------------------------------------------------- whole chunks

RECORD_LEN = 2 * 8 + 2 * MAX_TOKENS
"""The length of :func:`play_seated`'s record of a game: :data:`CHUNK_FIELDS` per seat (2 x 8), then
each seat's ``SCORED_AT`` slots (the round each of its tokens scored in; the trajectory)."""

CHUNK_FIELDS: tuple[str, ...] = (
    "scored",
    "turns",
    "captures",
    "captured",
    "roll_agains",
    "tokens_on_board",
    "cards_in_play",
    "deck",
)
"""The per-seat numbers :func:`play_seated` records of each finished game, in this order (the
fields :func:`~.scoring.final_rows` reads, and the deck code)."""


@nb.njit(cache=True)
def record_final(S, out, g):
    """Write the :data:`CHUNK_FIELDS` of the finished state ``S`` to ``out[g]`` (int64[2, 8])."""
    for p in range(2):
        b = p * PS
        m = S[b + MASK]
        on_board = 0
        while m:
            m &= m - 1
            on_board += 1
        out[g, p, 0] = S[b + SCORED]
        out[g, p, 1] = S[b + TURNS]
        out[g, p, 2] = S[b + CAPT]
        out[g, p, 3] = S[b + CAPTURED_N]
        out[g, p, 4] = S[b + RAS]
        out[g, p, 5] = on_board
        out[g, p, 6] = S[b + NPLAY]
        out[g, p, 7] = S[b + DECK]


@nb.njit(cache=True, inline="always")  # into the core loop's copy: no library level of its own (issue 47)
def play_seated(T, kinds, decks, ws, game_rng, agent_rng, record):
    """Urgency's table for the core loop (:mod:`balancer.core.table_loop`): one game of the rule
    table ``T`` (``kernel.Table``), seat s played by agent ``kinds[s]`` with deck ``decks[s, 0]``
    (a deck code held as a float), ``ws`` = (the evaluation weights per seat, ``race``). ``race``:
    :func:`play_race_fast` (no cards, greedy and random seats only: the bit-set race), else
    :func:`play_new_game`. Recorded as :data:`CHUNK_FIELDS` per seat (int64[2 * 8], seat-major), then
    the ``SCORED_AT`` slots of both seats (int64[2 * MAX_TOKENS]; :data:`RECORD_LEN` in all)."""
    weights, race = ws
    if race:
        S = play_race_fast(T.rules, kinds, game_rng, agent_rng)
    else:
        d = np.empty(2, np.int64)
        for s in range(2):
            d[s] = int(decks[s, 0])
        S = play_new_game(T.rules, d, kinds, T.prio, weights, game_rng, agent_rng)
    record_final(S, record[:16].reshape((1, 2, 8)), 0)
    for i in range(2 * MAX_TOKENS):
        record[16 + i] = S[SCORED_AT + i]
