"""Urban Sketchers rules as the compiled engine reads them: the codes of decisions, phases and
components, and the variant's numbers (:class:`Rules`, compiled from the YAML for a player count by
:func:`compile_rules`; ``fast.compile_fast`` flattens them into the rule table). The engine asks for
one decision at a time: a turn is the placement of a die (``PLACE``), then the action's own decisions
one by one (each Travel step and pick-up, each card sketched with its sketchbook and its use of
Efficient, each bonus tile, each resource, each reward). A move is ``(kind, a, b, c)``; the kinds are
the ``K_*`` constants below (the compiled interface encodes it as one int64, ``kernel.encode``).

The state, legal decisions and transitions are compiled (``fast.py``); their readable reference, the
tests' oracle, is ``tests/games/urban_sketchers/us_reference/rules.py``, which no run imports.

Codes: dice colours 0-3 red, blue, yellow, green and 4 white; actions 0-4 travel, sketch, publish,
funding, supply; resources, themes, regions by their index in the config; opportunity tiles 0
Wanderer, 1 Efficient, 2 Opportunist; improvement types 0-4 travel (red), sketch (blue), publish
(yellow), funding (green), supply (purple); bonus tile kinds as :data:`.config.BONUS_KINDS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import COLOURS, UrbanSketchersConfig, bonus_kind_names

# actions
TRAVEL, SKETCH, PUBLISH, FUNDING, SUPPLY = range(5)
WHITE = 4
# opportunity tiles
WANDERER, EFFICIENT, OPPORTUNIST = range(3)
# improvement types (same order as the actions they improve)
IMP_TRAVEL, IMP_SKETCH, IMP_PUBLISH, IMP_FUNDING, IMP_SUPPLY = range(5)
# bonus tile kinds
B_STREAK0, B_MONEY, B_EXTRA_THEME, B_LONGER = 4, 7, 8, 9
# rewards and theme-pair benefits
R_UNFLIP, R_IMPROVEMENT, R_MONEY = range(3)
BEN_UNFLIP, BEN_BONUS, BEN_PRESTIGE = range(3)

# move kinds
K_SETUP_DISCARD = 0  # (card): Set Up 11, discard a card from hand for its printed resources
K_SETUP_DONE = 1  # keep the rest of the hand
K_THEME_PAIR = 2  # (pair, x, y): Theme Tiles, flip two theme tiles for the benefit between them (theme_pair_moves;
# for the bonus-tile pair x = -1 is the money instead of a tile)
K_PLACE = 3  # (die, action, arg, opportunist): Choose a Die; arg = sketchbook (publish) or Supply space
K_PASS = 4  # no die can be placed (not in the rulebook; see place_moves)
K_STEP = 5  # (space): Travel, move to an adjacent space
K_PICK = 6  # Travel, pick up the card on the traveller's space
K_WANDER = 7  # (space): Wanderer, move anywhere for free
K_END = 8  # end Travel / Sketch / Supply
K_SKETCH = 9  # (card, sketchbook, efficient): sketch a card; efficient -1 or r1*4+r2
K_BONUS = 10  # (display slot, sketchbook): take a bonus tile
K_BONUS_MONEY = 11  # 1 money instead of a bonus tile
K_FUND = 12  # (k): Funding, flipping k theme tiles of the funding theme
K_RESOURCE = 13  # (r): Supply, take one resource of type r
K_EXTRA_THEME = 14  # (theme): the extra-theme bonus tile's choice
K_UNFLIP = 15  # (tile): unflip an opportunity tile
K_IMPROVE = 16  # (type, mode): mode 0 new basic, 1 flip to advanced, 2 new on its advanced side (two improvements)
K_IMPROVE_MONEY = 17  # 3 money instead of an improvement

KIND_NAMES = (
    "setup-discard",
    "setup-done",
    "theme-pair",
    "place",
    "pass",
    "step",
    "pick",
    "wander",
    "end",
    "sketch",
    "bonus",
    "bonus-money",
    "fund",
    "resource",
    "extra-theme",
    "unflip",
    "improve",
    "improve-money",
)

# phases
P_SETUP, P_MAIN, P_TRAVEL, P_SKETCH, P_FUNDING, P_SUPPLY, P_RESOLVE, P_OVER = range(8)

Move = tuple[int, int, int, int]


@dataclass(frozen=True)
class Rules:
    """A variant compiled for a player count: plain tuples the hot paths index."""

    n: int
    first_player: int
    start_money: int  # money of each player at the start (setup.money)
    n_white: int
    faces: int
    action_colour: tuple[int, ...]  # colour code of travel, sketch, publish, funding
    tile_values: tuple[int, ...]
    n_supply: int
    hand: int
    spaces: int
    neighbours: tuple[tuple[int, ...], ...]
    dist: tuple[tuple[int, ...], ...]  # shortest-path steps between spaces
    next_step: tuple[tuple[int, ...], ...]  # first step of a shortest path from a to b (a itself if a == b)
    step_money: int
    pick_money: int
    max_cards: int
    max_tiles: int
    extra_card_money: tuple[int, ...]
    bonus_money: int
    efficient: int
    books: int
    fund_money: int
    fund_per_pub: int
    fund_all: bool
    fund_flip: int
    vp: tuple[int, ...]
    money_per_card: int
    beyond_money: int
    beyond_extra: bool  # publish.beyond_six: extra (1 + 5 a card beyond six) or instead (5)
    publish_min: int  # publish.min_cards: cards a sketchbook needs to be published
    money_tile: int
    prestige_points: tuple[int, ...]
    prestige_reward: tuple[int, ...]  # reward code per Prestige space, -1 none
    prestige_overflow: int
    overflow_per_step: bool  # tracks.prestige_overflow_per: step (every step) or advance (once)
    published_reward: tuple[int, ...]  # reward code per Published space, -1 none
    reward_money: int
    improvement_money: int
    slots: int
    imp_per_type: int
    travel_discount: tuple[int, int, int]  # by improvement level 0, 1, 2
    sketch_bonus: tuple[int, int, int]
    prestige_extra: tuple[int, int, int]
    funding_extra: tuple[int, int, int]
    funding_tiles: tuple[int, int, int]
    supply_extra: tuple[int, int, int]
    display: int
    tile_kind: tuple[int, ...]  # kind of each of the bonus tiles, by tile id
    streak_needs_card: bool  # bonus_tiles.streak_needs_card: a streak tile needs a card of its region
    pairs: tuple[tuple[int, int, int], ...]  # (space, space, benefit)
    funding_space: int
    end_total: int
    max_rounds: int
    set_points: int
    majority: tuple[int, ...]
    majority_needs_tiles: bool
    per_money: int
    tie_later_seat: bool  # final_scoring.tie: later_seat (True) or shared (False)
    unpublished_track: bool  # final_scoring.unpublished_money: with_track_money (True) or sketchbook_money_only
    res_per_type: int
    backpack: int
    themes_per_type: int
    n_cards: int
    cost: tuple[tuple[int, int, int, int], ...]  # by card id (0-based index in the deck)
    cost_total: tuple[int, ...]
    discount: tuple[int, ...]  # resource code or -1
    bonus: tuple[int, ...]  # 0/1
    region: tuple[int, ...]  # region code or -1
    themes: tuple[tuple[int, ...], ...]
    n_regions: int


def _paths(neighbours: list[list[int]]) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """All-pairs BFS: (distance, first step) tables; unreachable pairs get distance 10**6."""
    n = len(neighbours)
    dist, first = [], []
    for a in range(n):
        d = [10**6] * n
        f = [a] * n
        d[a] = 0
        frontier = [a]
        while frontier:
            nxt = []
            for u in frontier:
                for v in neighbours[u]:
                    if d[v] > d[u] + 1:
                        d[v] = d[u] + 1
                        f[v] = v if u == a else f[u]
                        nxt.append(v)
            frontier = nxt
        dist.append(tuple(d))
        first.append(tuple(f))
    return tuple(dist), tuple(first)


def compile_rules(cfg: UrbanSketchersConfig, n: int) -> Rules:
    """The variant's numbers as :class:`Rules` for ``n`` players. Raises ValueError for an
    unsupported player count."""
    if n not in cfg.players:
        raise ValueError(
            f"{n} players is not supported by variant {cfg.variant!r} "
            f"(supported: {', '.join(map(str, cfg.player_counts))})"
        )
    key = str(n)
    res, themes, regions = cfg.resources.names, cfg.themes.names, cfg.regions
    a = cfg.actions
    nb = cfg.travel_board.neighbours()
    dist, first = _paths(nb)
    kinds = bonus_kind_names(cfg)
    tile_kind = tuple(kinds.index(k) for k, c in cfg.bonus_tiles.mix.items() for _ in range(c))
    reward_code = {"unflip": R_UNFLIP, "improvement": R_IMPROVEMENT, "money": R_MONEY}
    last = len(cfg.tracks.prestige_points) - 1
    prestige_reward = tuple(
        reward_code[cfg.tracks.prestige_rewards[i]] if i in cfg.tracks.prestige_rewards else -1 for i in range(last + 1)
    )
    top = max([0, *cfg.tracks.published_rewards])
    published_reward = tuple(
        reward_code[cfg.tracks.published_rewards[i]] if i in cfg.tracks.published_rewards else -1
        for i in range(top + 1)
    )
    imp = cfg.improvements

    def lv(pair: list[int]) -> tuple[int, int, int]:
        return (0, pair[0], pair[1])

    deck = cfg.cards.deck
    ben = {"unflip": BEN_UNFLIP, "bonus": BEN_BONUS, "prestige": BEN_PRESTIGE}
    return Rules(
        n=n,
        first_player=cfg.setup.first_player % n,
        start_money=cfg.setup.money,
        n_white=cfg.dice.white[key],  # type: ignore[index]
        faces=cfg.dice.faces,
        action_colour=tuple(COLOURS.index(c) for c in (a.travel, a.sketch, a.publish, a.funding)),
        tile_values=tuple(cfg.dice_tiles.values),
        n_supply=cfg.dice_tiles.supply_spaces[key],  # type: ignore[index]
        hand=cfg.setup.hand,
        spaces=cfg.travel_board.spaces,
        neighbours=tuple(tuple(x) for x in nb),
        dist=dist,
        next_step=first,
        step_money=cfg.travel.step_money,
        pick_money=cfg.travel.pick_money,
        max_cards=cfg.sketch.max_cards,
        max_tiles=cfg.sketch.max_bonus_tiles,
        extra_card_money=tuple(cfg.sketch.extra_card_money),
        bonus_money=cfg.sketch.money_instead_of_bonus,
        efficient=cfg.sketch.efficient_reduction,
        books=cfg.sketch.sketchbooks,
        fund_money=cfg.funding.money,
        fund_per_pub=cfg.funding.per_published,
        fund_all=cfg.funding.count_published == "all",
        fund_flip=cfg.funding.theme_flip_money,
        vp=tuple(cfg.publish.victory_points),
        money_per_card=cfg.publish.money_per_card,
        beyond_money=cfg.publish.beyond_six_money,
        beyond_extra=cfg.publish.beyond_six == "extra",
        publish_min=cfg.publish.min_cards,
        money_tile=cfg.publish.money_tile,
        prestige_points=tuple(cfg.tracks.prestige_points),
        prestige_reward=prestige_reward,
        prestige_overflow=cfg.tracks.prestige_overflow_money,
        overflow_per_step=cfg.tracks.prestige_overflow_per == "step",
        published_reward=published_reward,
        reward_money=cfg.tracks.reward_money,
        improvement_money=cfg.tracks.improvement_money,
        slots=imp.slots,
        imp_per_type=imp.per_type,
        travel_discount=lv(imp.travel_discount),
        sketch_bonus=lv(imp.sketch_bonus),
        prestige_extra=lv(imp.prestige_extra),
        funding_extra=lv(imp.funding_money),
        funding_tiles=lv(imp.funding_bonus_tiles),
        supply_extra=lv(imp.supply_extra),
        display=cfg.bonus_tiles.display,
        tile_kind=tile_kind,
        streak_needs_card=cfg.bonus_tiles.streak_needs_card,
        pairs=tuple((p.spaces[0], p.spaces[1], ben[p.benefit]) for p in cfg.theme_board.pairs),
        funding_space=cfg.theme_board.funding_space,
        end_total=cfg.end.total_published[key],  # type: ignore[index]
        max_rounds=cfg.end.max_rounds,
        set_points=cfg.final_scoring.set_points,
        majority=tuple(cfg.final_scoring.majority),
        majority_needs_tiles=cfg.final_scoring.majority_needs_tiles,
        per_money=cfg.final_scoring.per_money,
        tie_later_seat=cfg.final_scoring.tie == "later_seat",
        unpublished_track=cfg.final_scoring.unpublished_money == "with_track_money",
        res_per_type=cfg.resources.per_type,
        backpack=cfg.resources.backpack,
        themes_per_type=cfg.themes.tiles_per_type,
        n_cards=len(deck),
        cost=tuple(tuple(c.cost.get(r, 0) for r in res) for c in deck),  # type: ignore[misc]
        cost_total=tuple(sum(c.cost.values()) for c in deck),
        discount=tuple(res.index(c.discount) if c.discount != "none" else -1 for c in deck),
        bonus=tuple(int(c.bonus) for c in deck),
        region=tuple(regions.index(c.region) if c.region != "none" else -1 for c in deck),
        themes=tuple(tuple(themes.index(t) for t in c.themes) for c in deck),
        n_regions=len(regions),
    )
