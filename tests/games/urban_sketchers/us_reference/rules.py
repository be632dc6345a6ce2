"""Urban Sketchers' readable reference engine: the state, the legal decisions and the transitions
(the tests' oracle; never imported by a run). Plain Python over small integer lists, one decision at
a time, a move a 4-tuple ``(kind, a, b, c)``; the constants, :class:`Rules` and :func:`compile_rules`
are the compiled engine's (:mod:`balancer.games.urban_sketchers.rules`), re-exported here.
"""

from __future__ import annotations

import numpy as np

from balancer.games.urban_sketchers.rules import (
    B_EXTRA_THEME,
    B_LONGER,
    B_MONEY,
    B_STREAK0,
    BEN_BONUS,
    BEN_PRESTIGE,
    BEN_UNFLIP,
    EFFICIENT,
    FUNDING,
    IMP_FUNDING,
    IMP_PUBLISH,
    IMP_SKETCH,
    IMP_SUPPLY,
    IMP_TRAVEL,
    K_BONUS,
    K_BONUS_MONEY,
    K_END,
    K_EXTRA_THEME,
    K_FUND,
    K_IMPROVE,
    K_IMPROVE_MONEY,
    K_PASS,
    K_PICK,
    K_PLACE,
    K_RESOURCE,
    K_SETUP_DISCARD,
    K_SETUP_DONE,
    K_SKETCH,
    K_STEP,
    K_THEME_PAIR,
    K_UNFLIP,
    K_WANDER,
    KIND_NAMES,
    OPPORTUNIST,
    P_FUNDING,
    P_MAIN,
    P_OVER,
    P_RESOLVE,
    P_SETUP,
    P_SKETCH,
    P_SUPPLY,
    P_TRAVEL,
    PUBLISH,
    R_IMPROVEMENT,
    R_MONEY,
    R_UNFLIP,
    SKETCH,
    SUPPLY,
    TRAVEL,
    WANDERER,
    WHITE,
    Move,
    Rules,
    compile_rules,
)

__all__ = [
    "TRAVEL",
    "SKETCH",
    "PUBLISH",
    "FUNDING",
    "SUPPLY",
    "WHITE",
    "WANDERER",
    "EFFICIENT",
    "OPPORTUNIST",
    "IMP_TRAVEL",
    "IMP_SKETCH",
    "IMP_PUBLISH",
    "IMP_FUNDING",
    "IMP_SUPPLY",
    "B_STREAK0",
    "B_MONEY",
    "B_EXTRA_THEME",
    "B_LONGER",
    "R_UNFLIP",
    "R_IMPROVEMENT",
    "R_MONEY",
    "BEN_UNFLIP",
    "BEN_BONUS",
    "BEN_PRESTIGE",
    "K_SETUP_DISCARD",
    "K_SETUP_DONE",
    "K_THEME_PAIR",
    "K_PLACE",
    "K_PASS",
    "K_STEP",
    "K_PICK",
    "K_WANDER",
    "K_END",
    "K_SKETCH",
    "K_BONUS",
    "K_BONUS_MONEY",
    "K_FUND",
    "K_RESOURCE",
    "K_EXTRA_THEME",
    "K_UNFLIP",
    "K_IMPROVE",
    "K_IMPROVE_MONEY",
    "KIND_NAMES",
    "P_SETUP",
    "P_MAIN",
    "P_TRAVEL",
    "P_SKETCH",
    "P_FUNDING",
    "P_SUPPLY",
    "P_RESOLVE",
    "P_OVER",
    "Move",
    "Rules",
    "compile_rules",
    "State",
    "new_state",
    "gain_resource",
    "book_discounts",
    "card_need",
    "efficient_options",
    "longest_streak",
    "book_money",
    "advance_prestige",
    "publish",
    "choice_pending",
    "continue_draws",
    "refill_display_draws",
    "place_cost",
    "place_moves",
    "theme_pair_moves",
    "legal_moves",
    "apply_move",
]


class State:
    """Everything about a game in progress. Per-player values are lists indexed by seat (0-based).

    Cards are deck indices 0..64, bonus tiles ids 0..29 (kind ``rules.tile_kind[id]``); -1 marks an
    empty board space or display slot. ``bp[p]`` is the Backpack in order of arrival (oldest first).
    """

    __slots__ = (
        "rules",
        "rng",
        "phase",
        "seat",
        "setup_seat",
        "round",
        "first",
        "tturn",
        "acted",
        "over",
        "end_triggered",
        # table
        "dice",
        "dcol",
        "dused",
        "occ",
        "cuser",
        "cval",
        "act_tile",
        "sup_tile",
        "sup_occ",
        "theme_at",
        "deck",
        "discard",
        "board",
        "bag",
        "display",
        "bdiscard",
        "total_pub",
        "reserve",
        "theme_supply",
        "imp_supply",
        # players
        "money",
        "bp",
        "hand",
        "books",
        "btiles",
        "vp",
        "prestige",
        "pubs",
        "th_up",
        "th_down",
        "opp",
        "imp",
        "pos",
        # the action in progress
        "t_cost",
        "s_fee",
        "s_icons",
        "s_cards",
        "sup_left",
        "p_bonus",
        "p_xtheme",
        "x_allowed",
        "p_imp",
        "p_unflip",
        # statistics (metrics)
        "st_paid_players",
        "st_paid_bank",
        "st_actions",
        "st_colours",
        "st_white",
        "st_pub_sizes",
        "st_pub_count",
        "st_imp_taken",
        "st_turns",
        "st_prestige_money",
        "st_received",
    )
    # The slots' types (annotations only: no class attribute, so they do not clash with __slots__).
    rules: Rules
    rng: (
        np.random.Generator | None
    )  # None on a copy of a compiled position (bridge.from_buffer), which resolves no chance
    phase: int  # P_SETUP .. P_OVER
    seat: int  # 0-based seat who decides next
    setup_seat: int
    round: int
    first: int  # the First player's seat
    tturn: int  # turns played this round
    acted: bool
    over: bool
    end_triggered: bool
    # table
    dice: list[int]  # values rolled, 1..faces
    dcol: list[int]  # each die's colour (WHITE for the white dice)
    dused: list[bool]
    occ: list[list[bool]]  # [colour action][seat]
    cuser: list[int]
    cval: list[int]
    act_tile: int
    sup_tile: list[int]
    sup_occ: list[bool]
    theme_at: list[int]
    deck: list[int]
    discard: list[int]
    board: list[int]
    bag: list[int]
    display: list[int]
    bdiscard: list[int]
    total_pub: int
    reserve: list[int]
    theme_supply: list[int]
    imp_supply: list[int]
    # players (indexed by seat)
    money: list[int]
    bp: list[list[int]]  # Backpack, oldest first
    hand: list[list[int]]
    books: list[list[list[int]]]  # [seat][sketchbook] -> cards
    btiles: list[list[list[int]]]  # [seat][sketchbook] -> bonus tiles
    vp: list[int]
    prestige: list[int]
    pubs: list[int]
    th_up: list[list[int]]
    th_down: list[list[int]]
    opp: list[list[int]]
    imp: list[list[int]]
    pos: list[int]
    # the action in progress
    t_cost: int
    s_fee: list[int]
    s_icons: int
    s_cards: int
    sup_left: int
    p_bonus: int
    p_xtheme: int
    x_allowed: list[int]
    p_imp: int
    p_unflip: int
    # statistics (metrics)
    st_paid_players: list[int]
    st_paid_bank: list[int]
    st_actions: list[list[int]]
    st_colours: list[list[int]]
    st_white: list[int]
    st_pub_sizes: list[int]
    st_pub_count: list[int]
    st_imp_taken: list[list[int]]
    st_turns: list[int]
    st_prestige_money: list[int]
    st_received: list[int]

    def clone(self, rng: np.random.Generator | None = None, stats: bool = True, seat: int | None = None) -> State:
        """An independent copy (lists copied); ``rng`` replaces the chance generator if given.
        With ``stats=False`` the copy's statistics (the ``st_*`` metrics, which no rule and no
        agent reads) are write-only scratch lists shared by all such copies: for look-aheads,
        whose metrics are thrown away. With ``seat``, only that seat's own nested lists (Backpack,
        hand, theme tiles, opportunity tiles, improvements, sketchbooks) are copied and the other
        seats' are shared: for a look-ahead in which only ``seat`` decides (no move of another
        seat changes those lists; tests check the original is untouched). Written out field by
        field: it is the agents' hot path."""
        c = State.__new__(State)
        c.rules = self.rules
        c.rng = self.rng if rng is None else rng
        c.phase = self.phase
        c.seat = self.seat
        c.setup_seat = self.setup_seat
        c.round = self.round
        c.first = self.first
        c.tturn = self.tturn
        c.acted = self.acted
        c.over = self.over
        c.end_triggered = self.end_triggered
        c.act_tile = self.act_tile
        c.total_pub = self.total_pub
        c.t_cost = self.t_cost
        c.s_icons = self.s_icons
        c.s_cards = self.s_cards
        c.sup_left = self.sup_left
        c.p_bonus = self.p_bonus
        c.p_xtheme = self.p_xtheme
        c.p_imp = self.p_imp
        c.p_unflip = self.p_unflip
        c.dice = self.dice[:]
        c.dcol = self.dcol[:]
        c.dused = self.dused[:]
        c.cuser = self.cuser[:]
        c.cval = self.cval[:]
        c.sup_tile = self.sup_tile[:]
        c.sup_occ = self.sup_occ[:]
        c.theme_at = self.theme_at[:]
        c.deck = self.deck[:]
        c.discard = self.discard[:]
        c.board = self.board[:]
        c.bag = self.bag[:]
        c.display = self.display[:]
        c.bdiscard = self.bdiscard[:]
        c.reserve = self.reserve[:]
        c.theme_supply = self.theme_supply[:]
        c.imp_supply = self.imp_supply[:]
        c.money = self.money[:]
        c.vp = self.vp[:]
        c.prestige = self.prestige[:]
        c.pubs = self.pubs[:]
        c.pos = self.pos[:]
        c.s_fee = self.s_fee[:]
        c.x_allowed = self.x_allowed[:]
        c.occ = [y[:] for y in self.occ]
        if seat is None:
            c.bp = [y[:] for y in self.bp]
            c.hand = [y[:] for y in self.hand]
            c.th_up = [y[:] for y in self.th_up]
            c.th_down = [y[:] for y in self.th_down]
            c.opp = [y[:] for y in self.opp]
            c.imp = [y[:] for y in self.imp]
            c.books = [[b[:] for b in x] for x in self.books]
            c.btiles = [[b[:] for b in x] for x in self.btiles]
        else:
            c.bp = self.bp[:]
            c.bp[seat] = self.bp[seat][:]
            c.hand = self.hand[:]
            c.hand[seat] = self.hand[seat][:]
            c.th_up = self.th_up[:]
            c.th_up[seat] = self.th_up[seat][:]
            c.th_down = self.th_down[:]
            c.th_down[seat] = self.th_down[seat][:]
            c.opp = self.opp[:]
            c.opp[seat] = self.opp[seat][:]
            c.imp = self.imp[:]
            c.imp[seat] = self.imp[seat][:]
            c.books = self.books[:]
            c.books[seat] = [b[:] for b in self.books[seat]]
            c.btiles = self.btiles[:]
            c.btiles[seat] = [b[:] for b in self.btiles[seat]]
        if stats:
            c.st_paid_players = self.st_paid_players[:]
            c.st_paid_bank = self.st_paid_bank[:]
            c.st_white = self.st_white[:]
            c.st_pub_sizes = self.st_pub_sizes[:]
            c.st_pub_count = self.st_pub_count[:]
            c.st_turns = self.st_turns[:]
            c.st_prestige_money = self.st_prestige_money[:]
            c.st_received = self.st_received[:]
            c.st_actions = [y[:] for y in self.st_actions]
            c.st_colours = [y[:] for y in self.st_colours]
            c.st_imp_taken = [y[:] for y in self.st_imp_taken]
        else:
            _scratch_stats(c)
        return c

    @property
    def seat_to_move(self) -> int:
        """0-based seat who decides next."""
        return self.seat


_SCRATCH_STATS: dict[int, tuple] = {}


def _scratch_stats(c: State) -> None:
    """Point c's statistics at the write-only lists shared by look-ahead copies (State.clone)."""
    n = c.rules.n
    lists = _SCRATCH_STATS.get(n)
    if lists is None:
        lists = _SCRATCH_STATS[n] = (*([0] * n for _ in range(8)), *([[0] * 5 for _ in range(n)] for _ in range(3)))
    (
        c.st_paid_players,
        c.st_paid_bank,
        c.st_white,
        c.st_pub_sizes,
        c.st_pub_count,
        c.st_turns,
        c.st_prestige_money,
        c.st_received,
        c.st_actions,
        c.st_colours,
        c.st_imp_taken,
    ) = lists


# --------------------------------------------------------------------------------------------------
# setup and rounds


def _shuffled(items: list[int], rng: np.random.Generator) -> list[int]:
    return [items[i] for i in rng.permutation(len(items))]


def new_state(rules: Rules, rng: np.random.Generator) -> State:
    """A game after Set Up 1-10; the Set Up 11 discards are the first decisions (phase P_SETUP)."""
    n = rules.n
    s = State.__new__(State)
    s.rules, s.rng = rules, rng
    s.phase, s.seat, s.setup_seat, s.round, s.first, s.tturn = P_SETUP, 0, 0, 0, 0, 0
    s.acted, s.over, s.end_triggered = False, False, False
    # Set Up 2: dice tiles at random; the first beside the colour actions, then one per Supply space
    tiles = _shuffled(list(rules.tile_values), rng)
    s.act_tile = tiles[0]
    s.sup_tile = tiles[1 : 1 + rules.n_supply]
    s.sup_occ = [False] * rules.n_supply
    s.theme_at = _shuffled(list(range(4)), rng)  # Set Up 3
    s.bag = _shuffled(list(range(len(rules.tile_kind))), rng)  # Set Up 4
    s.display = [s.bag.pop() if s.bag else -1 for _ in range(rules.display)]
    s.bdiscard = []
    s.imp_supply = [rules.imp_per_type] * 5
    s.theme_supply = [rules.themes_per_type] * 4
    s.reserve = [rules.res_per_type] * 4
    s.total_pub = 0
    s.money = [rules.start_money] * n  # setup.money (assumed: Set Up gives none)
    s.bp = [[] for _ in range(n)]
    s.books = [[[] for _ in range(rules.books)] for _ in range(n)]
    s.btiles = [[[] for _ in range(rules.books)] for _ in range(n)]
    s.vp, s.prestige, s.pubs = [0] * n, [0] * n, [0] * n
    s.th_up = [[0] * 4 for _ in range(n)]
    s.th_down = [[0] * 4 for _ in range(n)]
    s.opp = [[1, 1, 1] for _ in range(n)]  # Set Up 9
    s.imp = [[0] * 5 for _ in range(n)]
    s.pos = [(p * rules.spaces) // n for p in range(n)]
    s.deck = _shuffled(list(range(rules.n_cards)), rng)  # Set Up 10
    s.discard = []
    s.board = [s.deck.pop() for _ in range(rules.spaces)]
    s.hand = [[s.deck.pop() for _ in range(rules.hand)] for _ in range(n)]
    s.dice, s.dcol, s.dused = [], [], []
    s.occ = [[False] * n for _ in range(4)]
    s.cuser, s.cval = [-1] * 4, [0] * 4
    s.t_cost, s.s_fee, s.s_icons, s.s_cards, s.sup_left = 0, [0] * rules.books, 0, 0, 0
    s.p_bonus, s.p_xtheme, s.x_allowed, s.p_imp, s.p_unflip = 0, 0, [], 0, 0
    s.st_paid_players, s.st_paid_bank, s.st_white = [0] * n, [0] * n, [0] * n
    s.st_pub_sizes, s.st_pub_count, s.st_turns, s.st_prestige_money = [0] * n, [0] * n, [0] * n, [0] * n
    s.st_received = [0] * n
    s.st_actions = [[0] * 5 for _ in range(n)]
    s.st_colours = [[0] * 5 for _ in range(n)]
    s.st_imp_taken = [[0] * 5 for _ in range(n)]
    return s


def _chance(s: State) -> np.random.Generator:
    """The game's chance generator; a copy of a compiled position (``rng`` None) resolves no chance."""
    if s.rng is None:
        raise ValueError("this state has no chance generator (a reference copy of a compiled position)")
    return s.rng


def _roll(s: State) -> None:
    """Round Structure 1: the First player rolls the four coloured dice and the white dice."""
    r = s.rules
    k = 4 + r.n_white
    s.dice = [int(v) + 1 for v in _chance(s).integers(0, r.faces, size=k)]
    s.dcol = [0, 1, 2, 3] + [WHITE] * r.n_white
    s.dused = [False] * k
    s.occ = [[False] * r.n for _ in range(4)]
    s.cuser, s.cval = [-1] * 4, [0] * 4
    s.sup_occ = [False] * r.n_supply


def _start_round(s: State) -> None:
    _roll(s)
    s.tturn = 0
    s.seat = s.first
    s.phase = P_MAIN
    s.acted = False


def _end_turn(s: State) -> None:
    """After a turn: next seat clockwise; after 2 turns each (one die left) the round ends, the
    end of the game is checked, and the First player token passes (Round Structure 3)."""
    r = s.rules
    s.st_turns[s.seat] += 1
    s.tturn += 1
    if s.tturn < 2 * r.n:
        s.seat = (s.first + s.tturn) % r.n
        s.phase = P_MAIN
        s.acted = False
        return
    if s.end_triggered or s.round + 1 >= r.max_rounds:
        s.over = True
        s.phase = P_OVER
        return
    s.round += 1
    s.first = (s.first + 1) % r.n
    _start_round(s)


# --------------------------------------------------------------------------------------------------
# shared helpers


def gain_resource(s: State, p: int, res: int) -> None:
    """One resource of type ``res`` from the reserve into p's Backpack; when it is full, the oldest
    resource goes back to the reserve first (Personal Boards F)."""
    bp = s.bp[p]
    if len(bp) >= s.rules.backpack:
        old = bp.pop(0)
        s.reserve[old] += 1
    bp.append(res)
    s.reserve[res] -= 1


def _pay_resources(s: State, p: int, need: list[int]) -> None:
    """Remove ``need[r]`` resources of each type from p's Backpack (oldest of each type first)."""
    bp = s.bp[p]
    for res in range(4):
        k = need[res]
        while k:
            bp.remove(res)
            s.reserve[res] += 1
            k -= 1


def book_discounts(s: State, p: int, b: int) -> list[int]:
    """Discounts per resource type in sketchbook b: cards' discount icons and discount tiles (Sketch)."""
    r = s.rules
    d = [0, 0, 0, 0]
    for c in s.books[p][b]:
        x = r.discount[c]
        if x >= 0:
            d[x] += 1
    for t in s.btiles[p][b]:
        k = r.tile_kind[t]
        if k < 4:
            d[k] += 1
    return d


def card_need(rules: Rules, card: int, disc: list[int]) -> list[int]:
    """Resources still to pay for ``card`` after the sketchbook's discounts."""
    c = rules.cost[card]
    return [
        c[0] - disc[0] if c[0] > disc[0] else 0,
        c[1] - disc[1] if c[1] > disc[1] else 0,
        c[2] - disc[2] if c[2] > disc[2] else 0,
        c[3] - disc[3] if c[3] > disc[3] else 0,
    ]


def efficient_options(need: list[int], amount: int) -> list[tuple[int, list[int]]]:
    """Distinct ways Efficient can lower ``need`` by ``amount`` resources of the player's choice:
    [(code, reduced need)], code r1*4+r2 (r1 <= r2) for amount 2; [] when nothing is left to pay.
    For an amount other than 2 the code is 0 and the reduction takes the first types in order."""
    total = need[0] + need[1] + need[2] + need[3]
    if total == 0 or amount <= 0:
        return []
    if amount != 2:
        left, out = amount, list(need)
        for res in range(4):
            take = min(left, out[res])
            out[res] -= take
            left -= take
        return [(0, out)]
    seen: dict[tuple[int, ...], int] = {}
    options = []
    for r1 in range(4):
        if not need[r1]:
            continue
        for r2 in range(r1, 4):
            out = list(need)
            out[r1] -= 1
            if out[r2]:
                out[r2] -= 1
            elif total >= 2:
                continue
            key = tuple(out)
            if key not in seen:
                seen[key] = r1 * 4 + r2
                options.append((r1 * 4 + r2, out))
    return options


def longest_streak(rules: Rules, cards: list[int], tiles: list[int]) -> int:
    """Publish step 5: the longest run of consecutive cards of one region, a streak tile of that
    region making its run one longer (Bonus Tiles); with ``bonus_tiles.streak_needs_card`` only for
    a region the sketchbook has a card of (else a tile alone is a streak of 1)."""
    best = [0] * rules.n_regions
    run_region, run = -1, 0
    for c in cards:
        g = rules.region[c]
        if g >= 0 and g == run_region:
            run += 1
        else:
            run_region, run = g, 1
        if g >= 0 and run > best[g]:
            best[g] = run
    for t in tiles:
        k = rules.tile_kind[t]
        if B_STREAK0 <= k < B_STREAK0 + rules.n_regions and (best[k - B_STREAK0] > 0 or not rules.streak_needs_card):
            best[k - B_STREAK0] += 1
    return max(best) if best else 0


def book_money(rules: Rules, cards: list[int], tiles: list[int]) -> tuple[int, int]:
    """(victory points, money) of publishing a sketchbook (Publish steps 1-2, Bonus Tiles): the
    longer tile counts one more card; each card beyond six gives ``beyond_six_money`` (5) on top of
    its card money (``publish.beyond_six: extra``) or instead of it (``instead``); money tiles 4 each."""
    longer = money_tiles = 0
    for t in tiles:
        k = rules.tile_kind[t]
        if k == B_LONGER:
            longer += 1
        elif k == B_MONEY:
            money_tiles += 1
    size = len(cards) + longer
    top = rules.max_cards
    vp = rules.vp[size if size <= top else top]
    paid = size if (size <= top or rules.beyond_extra) else top  # cards that earn money_per_card
    money = (
        paid * rules.money_per_card + (size - top) * rules.beyond_money * (size > top) + money_tiles * rules.money_tile
    )
    return vp, money


def _reward(s: State, p: int, code: int) -> None:
    if code == R_UNFLIP:
        s.p_unflip += 1
    elif code == R_IMPROVEMENT:
        s.p_imp += 1
    elif code == R_MONEY:
        s.money[p] += s.rules.reward_money


def advance_prestige(s: State, p: int, steps: int) -> None:
    """Move p's Prestige disc ``steps`` spaces, taking each space's reward; past the last space,
    ``prestige_overflow`` (5) money instead (Publish step 5: "every time that happens"), for every
    step (``tracks.prestige_overflow_per: step``) or once per advance (``advance``)."""
    r = s.rules
    last = len(r.prestige_points) - 1
    paid = False
    for _ in range(steps):
        if s.prestige[p] < last:
            s.prestige[p] += 1
            code = r.prestige_reward[s.prestige[p]]
            if code >= 0:
                _reward(s, p, code)
        elif r.overflow_per_step or not paid:
            s.money[p] += r.prestige_overflow
            s.st_prestige_money[p] += r.prestige_overflow
            paid = True


def _refill(
    slots: list[int], pile: list[int], discard: list[int], rng: np.random.Generator
) -> tuple[list[int], list[int]]:
    """Fill the empty (-1) slots from the top of ``pile``; an empty pile takes back the shuffled
    ``discard``. Returns the (pile, discard) lists to keep."""
    for i, x in enumerate(slots):
        if x < 0:
            if not pile and discard:
                pile, discard = _shuffled(discard, rng), []
            if pile:
                slots[i] = pile.pop()
    return pile, discard


def _refill_board(s: State) -> None:
    """Travel: refill empty spaces from the deck, reshuffling the discard pile when it runs out."""
    s.deck, s.discard = _refill(s.board, s.deck, s.discard, _chance(s))


def _refill_display(s: State) -> None:
    """Bonus Tiles: refill the display from the bag; an empty bag takes back the discarded tiles."""
    s.bag, s.bdiscard = _refill(s.display, s.bag, s.bdiscard, _chance(s))


def publish(s: State, p: int, b: int) -> None:
    """Publish sketchbook b (Publish steps 1-7). Choices (the extra theme, rewards) become pending."""
    r = s.rules
    cards, tiles = s.books[p][b], s.btiles[p][b]
    vp, money = book_money(r, cards, tiles)
    s.vp[p] += vp  # 1
    s.money[p] += money  # 2
    gained = []
    for c in cards:  # 3
        for t in r.themes[c]:
            if s.theme_supply[t] > 0:
                s.theme_supply[t] -= 1
                s.th_up[p][t] += 1
                if t not in gained:
                    gained.append(t)
    extra = sum(1 for t in tiles if r.tile_kind[t] == B_EXTRA_THEME)
    if extra and gained:
        s.p_xtheme += extra
        s.x_allowed = sorted(gained)
    s.pubs[p] += 1  # 4
    s.total_pub += 1
    if s.pubs[p] < len(r.published_reward) and r.published_reward[s.pubs[p]] >= 0:
        _reward(s, p, r.published_reward[s.pubs[p]])  # 6 (Published track)
    steps = longest_streak(r, cards, tiles) + r.prestige_extra[s.imp[p][IMP_PUBLISH]]
    advance_prestige(s, p, steps)  # 5, 6 (Prestige track)
    s.st_pub_sizes[p] += len(cards)
    s.st_pub_count[p] += 1
    s.discard.extend(cards)  # 7
    s.bdiscard.extend(tiles)
    s.books[p][b] = []
    s.btiles[p][b] = []
    if s.total_pub >= r.end_total:
        s.end_triggered = True


def _continue(s: State) -> None:
    """After a decision: resolve pending choices (extra theme, improvements, unflips, bonus tiles),
    else end the turn if the action is done, else back to choosing a die."""
    p = s.seat
    if s.p_xtheme:
        if any(s.theme_supply[t] for t in s.x_allowed):
            s.phase = P_RESOLVE
            return
        s.p_xtheme = 0
    if s.p_imp:
        s.phase = P_RESOLVE
        return
    if s.p_unflip:
        if 0 in s.opp[p]:
            s.phase = P_RESOLVE
            return
        s.p_unflip = 0
    if s.p_bonus:
        s.phase = P_RESOLVE
        return
    if s.acted:
        _end_turn(s)
    else:
        s.phase = P_MAIN


def choice_pending(s: State) -> bool:
    """True when :func:`_continue` would stop at a pending choice (phase P_RESOLVE) rather than end
    the turn or go back to choosing a die; the same tests in the same order, without its changes."""
    if s.p_xtheme and any(s.theme_supply[t] for t in s.x_allowed):
        return True
    if s.p_imp:
        return True
    if s.p_unflip and 0 in s.opp[s.seat]:
        return True
    return bool(s.p_bonus)


def continue_draws(s: State, rng: np.random.Generator) -> None:
    """Draw from ``rng`` what :func:`_continue` on ``s`` would draw from the state's generator: the
    next round's dice when it ends the turn that ends the round (Round Structure 1, 3) and the game
    goes on. For look-aheads that value a move without applying it to a copy (the agents)."""
    if choice_pending(s) or not s.acted:
        return
    r = s.rules
    if s.tturn + 1 >= 2 * r.n and not (s.end_triggered or s.round + 1 >= r.max_rounds):
        rng.integers(0, r.faces, size=4 + r.n_white)


def refill_display_draws(s: State, rng: np.random.Generator) -> None:
    """Draw from ``rng`` what :func:`_refill_display` would draw now: one shuffle of the discarded
    tiles when the bag runs out before the display's empty slots are filled (see :func:`_refill`)."""
    empty = sum(1 for t in s.display if t < 0)
    if empty > len(s.bag) and s.bdiscard:
        rng.permutation(len(s.bdiscard))


# --------------------------------------------------------------------------------------------------
# legal decisions


def place_cost(s: State, p: int, die: int, action: int) -> tuple[int, int]:
    """(money, payee seat or -1 for the bank) of placing ``die`` on p's space of colour ``action``
    (Choose a Die): free with the matching colour; a white die pays the difference to the player who
    used the matching coloured die on this action, else to the bank against the actions' die tile."""
    if s.dcol[die] != WHITE:
        return 0, -1
    v = s.dice[die]
    if s.cuser[action] >= 0:
        return abs(v - s.cval[action]), s.cuser[action]
    return abs(v - s.act_tile), -1


def place_moves(s: State) -> list[Move]:
    """Every die placement of the seat to move (one die per distinct colour and value)."""
    r, p = s.rules, s.seat
    out: list[Move] = []
    seen = set()
    money = s.money[p]
    opp_ready = s.opp[p][OPPORTUNIST]
    for d in range(len(s.dice)):
        if s.dused[d]:
            continue
        key = (s.dcol[d], s.dice[d])
        if key in seen:
            continue
        seen.add(key)
        col = s.dcol[d]
        for a in range(4):
            if s.occ[a][p] or (col != WHITE and col != r.action_colour[a]):
                continue
            cost, _ = place_cost(s, p, d, a)
            args = [0]
            if a == PUBLISH:  # publish.min_cards (assumed 1: an empty sketchbook is not published)
                args = [b for b in range(r.books) if len(s.books[p][b]) >= r.publish_min]
            for arg in args:
                if cost <= money:
                    out.append((K_PLACE, d, a * 8 + arg, 0))
                if cost > 0 and opp_ready:
                    out.append((K_PLACE, d, a * 8 + arg, 1))
        for k in range(r.n_supply):
            if not s.sup_occ[k]:
                out.append((K_PLACE, d, SUPPLY * 8 + k, 0))
    return out


def theme_pair_moves(s: State) -> list[Move]:
    """Theme Tiles: the pairs of face-up theme tiles of two themes whose large tiles frame a benefit,
    each with its benefit's choice: ``(K_THEME_PAIR, pair, opportunity tile, 0)`` to unflip,
    ``(K_THEME_PAIR, pair, display slot, sketchbook)`` for a bonus tile or ``(K_THEME_PAIR, pair, -1,
    0)`` for ``sketch.money_instead_of_bonus`` money instead (Bonus Tiles: "instead of choosing a
    tile, you may gain 1 money", whenever a bonus tile is gained), ``(K_THEME_PAIR, pair, 0, 0)``
    for a Prestige space. Allowed at any time of the player's turn but while rewards and bonus
    tiles are being chosen (the choice is part of the move, so nothing waits)."""
    r, p = s.rules, s.seat
    up = s.th_up[p]
    out: list[Move] = []
    for i, (x, y, ben) in enumerate(r.pairs):
        if not (up[s.theme_at[x]] and up[s.theme_at[y]]):
            continue
        if ben == BEN_UNFLIP:
            out.extend((K_THEME_PAIR, i, o, 0) for o in range(3) if not s.opp[p][o])
        elif ben == BEN_BONUS:
            out.append((K_THEME_PAIR, i, -1, 0))  # the money instead of the tile
            for b in range(r.books):
                if len(s.btiles[p][b]) < r.max_tiles:
                    out.extend((K_THEME_PAIR, i, slot, b) for slot, t in enumerate(s.display) if t >= 0)
        else:
            out.append((K_THEME_PAIR, i, 0, 0))
    return out


def legal_moves(s: State) -> list[Move]:
    """Every legal decision of the seat to move, as ``(kind, a, b, c)`` tuples; [] once the game is over.

    K_PLACE moves carry ``b = action * 8 + arg`` (arg: sketchbook for Publish, space for Supply)
    and ``c = 1`` when the Opportunist tile is flipped to ignore the cost.
    """
    r, p, ph = s.rules, s.seat, s.phase
    if ph == P_MAIN:
        out = place_moves(s)
        if not out:
            out = [(K_PASS, 0, 0, 0)]
        return out + theme_pair_moves(s)
    if ph == P_TRAVEL:
        budget = s.money[p] + r.travel_discount[s.imp[p][IMP_TRAVEL]] - s.t_cost
        pos = s.pos[p]
        out = [(K_END, 0, 0, 0)]
        if s.board[pos] >= 0 and budget >= r.pick_money:
            out.append((K_PICK, 0, 0, 0))
        if budget >= r.step_money:
            out.extend((K_STEP, v, 0, 0) for v in r.neighbours[pos])
        if s.opp[p][WANDERER]:
            out.extend((K_WANDER, v, 0, 0) for v in range(r.spaces) if v != pos)
        return out + theme_pair_moves(s)
    if ph == P_SKETCH:
        out = [(K_END, 0, 0, 0)]
        bp = s.bp[p]
        h0, h1, h2, h3 = bp.count(0), bp.count(1), bp.count(2), bp.count(3)
        eff_ready = s.opp[p][EFFICIENT]
        for b in range(r.books):
            if len(s.books[p][b]) >= r.max_cards:
                continue
            if s.money[p] < r.extra_card_money[s.s_fee[b]]:
                continue
            disc = book_discounts(s, p, b)
            done = set()
            for c in s.hand[p]:
                if c in done:
                    continue
                done.add(c)
                need = card_need(r, c, disc)
                if need[0] <= h0 and need[1] <= h1 and need[2] <= h2 and need[3] <= h3:
                    out.append((K_SKETCH, c, b, -1))
                if eff_ready:
                    for code, less in efficient_options(need, r.efficient):
                        if less[0] <= h0 and less[1] <= h1 and less[2] <= h2 and less[3] <= h3:
                            out.append((K_SKETCH, c, b, code))
        return out + theme_pair_moves(s)
    if ph == P_FUNDING:
        k = s.th_up[p][s.theme_at[r.funding_space]]
        return [(K_FUND, i, 0, 0) for i in range(k + 1)] + theme_pair_moves(s)
    if ph == P_SUPPLY:
        out = [(K_END, 0, 0, 0)]
        out.extend((K_RESOURCE, res, 0, 0) for res in range(4) if s.reserve[res] > 0)
        return out + theme_pair_moves(s)
    if ph == P_RESOLVE:
        if s.p_xtheme:
            return [(K_EXTRA_THEME, t, 0, 0) for t in s.x_allowed if s.theme_supply[t] > 0]
        if s.p_imp:
            out = [(K_IMPROVE_MONEY, 0, 0, 0)]
            imp = s.imp[p]
            room = sum(1 for x in imp if x) < r.slots
            for t in range(5):
                if imp[t] == 1:
                    out.append((K_IMPROVE, t, 1, 0))
                elif imp[t] == 0 and room and s.imp_supply[t] > 0:
                    out.append((K_IMPROVE, t, 0, 0))
                    if s.p_imp >= 2:
                        out.append((K_IMPROVE, t, 2, 0))
            return out
        if s.p_unflip:
            return [(K_UNFLIP, o, 0, 0) for o in range(3) if not s.opp[p][o]]
        if s.p_bonus:
            out = [(K_BONUS_MONEY, 0, 0, 0)]
            for b in range(r.books):
                if len(s.btiles[p][b]) < r.max_tiles:
                    out.extend((K_BONUS, i, b, 0) for i, t in enumerate(s.display) if t >= 0)
            return out
    if ph == P_SETUP:
        out = [(K_SETUP_DONE, 0, 0, 0)]
        seen = set()
        for c in s.hand[p]:
            if c not in seen:
                seen.add(c)
                out.append((K_SETUP_DISCARD, c, 0, 0))
        return out
    return []


# --------------------------------------------------------------------------------------------------
# transitions


def _start_action(s: State, p: int, action: int, arg: int, value: int) -> None:
    r = s.rules
    s.acted = True
    s.st_actions[p][action] += 1
    if action == TRAVEL:
        s.phase, s.t_cost = P_TRAVEL, 0
    elif action == SKETCH:
        s.phase, s.s_fee, s.s_icons, s.s_cards = P_SKETCH, [0] * r.books, 0, 0
    elif action == FUNDING:
        s.phase = P_FUNDING
    elif action == PUBLISH:
        publish(s, p, arg)
        _continue(s)
    else:
        s.sup_left = abs(value - s.sup_tile[arg]) + r.supply_extra[s.imp[p][IMP_SUPPLY]]
        if s.sup_left:
            s.phase = P_SUPPLY
        else:
            _continue(s)


def apply_move(s: State, mv: Move) -> None:
    """Play decision ``mv`` (assumed legal: see :func:`legal_moves`) for the seat to move, in place."""
    r, p = s.rules, s.seat
    kind, a, b, c = mv
    if kind == K_PLACE:
        action, arg = divmod(b, 8)
        s.dused[a] = True
        col = s.dcol[a]
        s.st_colours[p][col] += 1
        if action == SUPPLY:
            s.sup_occ[arg] = True
        else:
            s.occ[action][p] = True
            cost, payee = place_cost(s, p, a, action)
            if col == WHITE:
                s.st_white[p] += 1
                if c:  # Opportunist: the payee gets it from the bank
                    s.opp[p][OPPORTUNIST] = 0
                    if payee >= 0:
                        s.money[payee] += cost
                else:
                    s.money[p] -= cost
                    if payee >= 0:
                        s.money[payee] += cost
                        s.st_paid_players[p] += cost
                        s.st_received[payee] += cost
                    else:
                        s.st_paid_bank[p] += cost
            else:
                s.cuser[action], s.cval[action] = p, s.dice[a]
        _start_action(s, p, action, arg, s.dice[a])
    elif kind == K_STEP:
        s.t_cost += r.step_money
        s.pos[p] = a
    elif kind == K_PICK:
        s.t_cost += r.pick_money
        s.hand[p].append(s.board[s.pos[p]])
        s.board[s.pos[p]] = -1
    elif kind == K_WANDER:
        s.opp[p][WANDERER] = 0
        s.pos[p] = a
    elif kind == K_END:
        if s.phase == P_TRAVEL:
            pay = s.t_cost - r.travel_discount[s.imp[p][IMP_TRAVEL]]
            if pay > 0:
                s.money[p] -= pay
                s.st_paid_bank[p] += pay
            _refill_board(s)
        elif s.phase == P_SKETCH:
            if s.s_cards:
                base = max(s.s_icons, r.sketch_bonus[1]) if s.imp[p][IMP_SKETCH] else s.s_icons
                if s.imp[p][IMP_SKETCH] == 2:
                    base += r.sketch_bonus[2]
                s.p_bonus += base
        else:
            s.sup_left = 0
        _continue(s)
    elif kind == K_SKETCH:
        need = card_need(r, a, book_discounts(s, p, b))
        if c >= 0:
            s.opp[p][EFFICIENT] = 0
            need = next(less for code, less in efficient_options(need, r.efficient) if code == c)
        _pay_resources(s, p, need)
        fee = r.extra_card_money[s.s_fee[b]]
        s.money[p] -= fee
        s.st_paid_bank[p] += fee
        s.s_fee[b] += 1
        s.hand[p].remove(a)
        s.books[p][b].append(a)
        s.s_icons += r.bonus[a]
        s.s_cards += 1
    elif kind == K_FUND:
        theme = s.theme_at[r.funding_space]
        pubs = s.total_pub if r.fund_all else s.pubs[p]
        lvl = s.imp[p][IMP_FUNDING]
        s.money[p] += r.fund_money + r.fund_per_pub * pubs + r.fund_flip * a + r.funding_extra[lvl]
        s.th_up[p][theme] -= a
        s.th_down[p][theme] += a
        s.p_bonus += r.funding_tiles[lvl]
        _continue(s)
    elif kind == K_RESOURCE:
        gain_resource(s, p, a)
        s.sup_left -= 1
        if not s.sup_left:
            _continue(s)
    elif kind == K_BONUS:
        tile = s.display[a]
        s.display[a] = -1
        s.btiles[p][b].append(tile)
        _bonus_taken(s)
    elif kind == K_BONUS_MONEY:
        s.money[p] += r.bonus_money
        _bonus_taken(s)
    elif kind == K_EXTRA_THEME:
        s.theme_supply[a] -= 1
        s.th_up[p][a] += 1
        s.p_xtheme -= 1
        _continue(s)
    elif kind == K_IMPROVE:
        imp = s.imp[p]
        if b == 1:
            imp[a] = 2
            s.p_imp -= 1
        else:
            imp[a] = 1 if b == 0 else 2
            s.imp_supply[a] -= 1
            s.p_imp -= 1 if b == 0 else 2
        s.st_imp_taken[p][a] = 1
        _continue(s)
    elif kind == K_IMPROVE_MONEY:
        s.money[p] += r.improvement_money
        s.p_imp -= 1
        _continue(s)
    elif kind == K_UNFLIP:
        s.opp[p][a] = 1
        s.p_unflip -= 1
        _continue(s)
    elif kind == K_THEME_PAIR:
        x, y, ben = r.pairs[a]
        for t in (s.theme_at[x], s.theme_at[y]):
            s.th_up[p][t] -= 1
            s.th_down[p][t] += 1
        if ben == BEN_UNFLIP:
            s.opp[p][b] = 1
        elif ben == BEN_BONUS:
            if b < 0:  # money instead of a bonus tile
                s.money[p] += r.bonus_money
            else:
                s.btiles[p][c].append(s.display[b])
                s.display[b] = -1
            _refill_display(s)
        else:
            advance_prestige(s, p, 1)  # its rewards wait until the action is over
        if s.phase == P_MAIN:
            _continue(s)
    elif kind == K_PASS:
        _end_turn(s)
    elif kind == K_SETUP_DISCARD:
        s.hand[p].remove(a)
        s.discard.append(a)
        for res in range(4):
            for _ in range(r.cost[a][res]):
                if len(s.bp[p]) < r.backpack and s.reserve[res] > 0:
                    s.bp[p].append(res)
                    s.reserve[res] -= 1
    elif kind == K_SETUP_DONE:
        s.setup_seat += 1
        if s.setup_seat < r.n:
            s.seat = s.setup_seat
        else:
            s.first = r.first_player
            _start_round(s)
    else:
        raise ValueError(f"unknown move kind {kind}")


def _bonus_taken(s: State) -> None:
    s.p_bonus -= 1
    if not s.p_bonus:
        _refill_display(s)
    _continue(s)
