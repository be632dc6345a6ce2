"""Urban Sketchers rule parameters: the pydantic model of ``configs/urban_sketchers/*.yaml``.

Every number a rule uses lives here, read from YAML; the rules code never writes one itself
(docs/architecture.md, "Parameters apart from rules"). Section names refer to the Urban Sketchers
rulebook. :func:`deck_report` is the card-distribution check.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Literal

from pydantic import Field, model_validator

from ...core.config import MAX_RULE_INT, GameConfig, RuleInt, Strict

COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "green")
"""The four coloured dice (Components); a die's colour code is its index, white is 4."""
ACTIONS: tuple[str, ...] = ("travel", "sketch", "publish", "funding", "supply")
"""The five actions (Actions); codes 0-4. Supply is the neutral one."""
BONUS_KINDS: tuple[str, ...] = (
    "discount_0",
    "discount_1",
    "discount_2",
    "discount_3",
    "streak_0",
    "streak_1",
    "streak_2",
    "money",
    "extra_theme",
    "longer",
)
"""Bonus tile kinds (Bonus Tiles) by code; discount_r and streak_g name resource r and region g."""
REWARDS: tuple[str, ...] = ("unflip", "improvement", "money")
"""Track rewards (Track Rewards) by code."""
BENEFITS: tuple[str, ...] = ("unflip", "bonus", "prestige")
"""Theme-pair benefits (Theme Tiles) by code."""


class Resources(Strict):
    names: list[str] = Field(min_length=4, max_length=4, description="the four resource types")
    per_type: int = Field(ge=1, le=MAX_RULE_INT, description="tokens of each type in the reserve (Components)")
    backpack: int = Field(ge=1, le=MAX_RULE_INT, description="Backpack capacity, resources (Personal Boards F)")
    full_backpack: Literal["discard_oldest"] = Field(
        description="a resource gained with a full Backpack: the oldest one goes back to the reserve first (the "
        "rulebook: the player 'may discard older ones'; no choice of which)"
    )
    assumed: str | None = None


class Themes(Strict):
    names: list[str] = Field(min_length=4, max_length=4)
    tiles_per_type: int = Field(ge=1, le=MAX_RULE_INT)
    assumed: str | None = None


class Dice(Strict):
    faces: int = Field(ge=2, le=MAX_RULE_INT)
    white: dict[Literal["2", "3", "4"], Annotated[int, Field(ge=0, le=MAX_RULE_INT)]] = Field(
        description="white dice by player count (Set Up 7)"
    )
    none_placeable: Literal["pass"] = Field(
        description="a player with no die they can place (Choose a Die) passes the turn"
    )
    assumed: str | None = None


class ActionColours(Strict):
    travel: Literal["red", "blue", "yellow", "green"]
    sketch: Literal["red", "blue", "yellow", "green"]
    funding: Literal["red", "blue", "yellow", "green"]
    publish: Literal["red", "blue", "yellow", "green"]
    assumed: str | None = None

    @model_validator(mode="after")
    def _distinct(self) -> ActionColours:
        if len({self.travel, self.sketch, self.funding, self.publish}) != 4:
            raise ValueError("the four colour actions need four different colours")
        return self


MAX_SUPPLY_SPACES = 8
"""Supply spaces a variant may have: a die placement encodes its space as ``action * 8 + space``
(``rules.legal_moves``), in both engines."""


class DiceTiles(Strict):
    values: list[RuleInt] = Field(min_length=2)
    supply_spaces: dict[Literal["2", "3", "4"], Annotated[int, Field(ge=0, le=MAX_SUPPLY_SPACES)]] = Field(
        description=f"Supply spaces by player count (Choose a Die), 0-{MAX_SUPPLY_SPACES}"
    )
    assumed: str | None = None


class Setup(Strict):
    hand: int = Field(ge=0, le=MAX_RULE_INT)
    money: int = Field(ge=0, le=MAX_RULE_INT, description="money each player starts with (Set Up gives none)")
    start_spaces: Literal["spread"]
    first_player: int = Field(ge=0, le=MAX_RULE_INT)
    assumed: str | None = None


class TravelBoard(Strict):
    spaces: int = Field(ge=2, le=MAX_RULE_INT)
    edges: Literal["ring"] | list[Annotated[list[RuleInt], Field(min_length=2, max_length=2)]] = Field(
        description="'ring', or the board's connections as pairs of spaces 0..spaces-1"
    )
    assumed: str | None = None

    @model_validator(mode="after")
    def _edges_on_board(self) -> TravelBoard:
        if self.edges != "ring":
            for i, (a, b) in enumerate(self.edges):
                if not (0 <= a < self.spaces and 0 <= b < self.spaces and a != b):
                    raise ValueError(f"edges[{i}]: {[a, b]} must be two different spaces 0-{self.spaces - 1}")
        return self

    def neighbours(self) -> list[list[RuleInt]]:
        """Adjacency lists of the board's spaces (0-based)."""
        n = self.spaces
        pairs = [(i, (i + 1) % n) for i in range(n)] if self.edges == "ring" else list(self.edges)
        out: list[list[RuleInt]] = [[] for _ in range(n)]
        for a, b in pairs:
            if b not in out[a]:
                out[a].append(b)
            if a not in out[b]:
                out[b].append(a)
        return [sorted(x) for x in out]


class Travel(Strict):
    step_money: int = Field(
        ge=1, le=MAX_RULE_INT, description="money per space moved (at least 1, so every Travel ends)"
    )
    pick_money: int = Field(ge=0, le=MAX_RULE_INT)


class Sketch(Strict):
    max_cards: int = Field(ge=1, le=MAX_RULE_INT)
    max_bonus_tiles: int = Field(ge=0, le=MAX_RULE_INT)
    extra_card_money: list[RuleInt] = Field(min_length=1)
    money_instead_of_bonus: int = Field(ge=0, le=MAX_RULE_INT)
    efficient_reduction: int = Field(ge=0, le=MAX_RULE_INT)
    sketchbooks: int = Field(ge=1, le=4)

    @model_validator(mode="after")
    def _long_enough(self) -> Sketch:
        if len(self.extra_card_money) < self.max_cards:
            raise ValueError("extra_card_money: needs one value per card a sketchbook can hold (max_cards)")
        return self


class Funding(Strict):
    money: int = Field(ge=0, le=MAX_RULE_INT)
    per_published: int = Field(ge=0, le=MAX_RULE_INT)
    count_published: Literal["own", "all"]
    theme_flip_money: int = Field(ge=0, le=MAX_RULE_INT)
    assumed: str | None = None


class Note(Strict):
    assumed: str | None = None


class Publish(Strict):
    victory_points: list[RuleInt] = Field(min_length=2)
    money_per_card: int = Field(ge=0, le=MAX_RULE_INT)
    min_cards: int = Field(ge=1, le=MAX_RULE_INT, description="cards a sketchbook needs before it can be published")
    beyond_six_money: int = Field(ge=0, le=MAX_RULE_INT)
    beyond_six: Literal["extra", "instead"] = Field(
        description="a card beyond six (longer tiles) earns beyond_six_money on top of its money_per_card (extra) "
        "or instead of it (instead)"
    )
    money_tile: int = Field(ge=0, le=MAX_RULE_INT)
    assumed: str | None = None


Reward = Literal["unflip", "improvement", "money"]


class Tracks(Strict):
    prestige_points: list[RuleInt] = Field(min_length=2)
    prestige_rewards: dict[RuleInt, Reward]
    prestige_overflow_money: int = Field(ge=0, le=MAX_RULE_INT)
    prestige_overflow_per: Literal["step", "advance"] = Field(
        description="prestige_overflow_money for every step past the last space (step) or once per advance (advance)"
    )
    published_rewards: dict[RuleInt, Reward]
    reward_money: int = Field(ge=0, le=MAX_RULE_INT)
    improvement_money: int = Field(ge=0, le=MAX_RULE_INT)
    assumed: str | None = None

    @model_validator(mode="after")
    def _on_track(self) -> Tracks:
        last = len(self.prestige_points) - 1
        bad = [k for k in self.prestige_rewards if not 1 <= k <= last]
        if bad:
            raise ValueError(f"prestige_rewards: spaces {bad} are not on the track (1..{last})")
        if any(k < 1 for k in self.published_rewards):
            raise ValueError("published_rewards: spaces start at 1")
        return self


class Improvements(Strict):
    slots: int = Field(ge=0, le=5)
    per_type: int = Field(ge=0, le=MAX_RULE_INT)
    travel_discount: list[RuleInt] = Field(min_length=2, max_length=2)
    sketch_bonus: list[RuleInt] = Field(min_length=2, max_length=2)
    prestige_extra: list[RuleInt] = Field(min_length=2, max_length=2)
    funding_money: list[RuleInt] = Field(min_length=2, max_length=2)
    funding_bonus_tiles: list[RuleInt] = Field(min_length=2, max_length=2)
    supply_extra: list[RuleInt] = Field(min_length=2, max_length=2)
    assumed: str | None = None


class BonusTiles(Strict):
    display: int = Field(ge=1, le=MAX_RULE_INT)
    mix: dict[str, RuleInt]
    streak_needs_card: bool = Field(
        description="a region's streak tile makes the streak one longer only if the sketchbook has a card of that "
        "region (true), or also makes a streak of 1 from none (false)"
    )
    assumed: str | None = None


class Pair(Strict):
    spaces: list[RuleInt] = Field(min_length=2, max_length=2)
    benefit: Literal["unflip", "bonus", "prestige"]


class ThemeBoard(Strict):
    pairs: list[Pair]
    funding_space: int = Field(ge=0, le=3)
    pair_flips: Literal["own_decisions"] = Field(
        description="when a pair may be flipped ('During your turn'): at any of the player's own decisions, the die "
        "and every decision inside the action, but not while rewards or bonus tiles are being chosen "
        "and not after the action, which ends the turn"
    )
    assumed: str | None = None

    @model_validator(mode="after")
    def _spaces(self) -> ThemeBoard:
        for p in self.pairs:
            a, b = p.spaces
            if not (0 <= a <= 3 and 0 <= b <= 3 and a != b):
                raise ValueError(f"pairs: spaces {p.spaces} must be two different spaces 0-3")
        return self


class End(Strict):
    total_published: dict[Literal["2", "3", "4"], Annotated[int, Field(ge=1, le=MAX_RULE_INT)]]
    max_rounds: int = Field(ge=1, le=MAX_RULE_INT)
    assumed: str | None = None


class FinalScoring(Strict):
    set_points: int = Field(ge=0, le=MAX_RULE_INT)
    majority: list[RuleInt] = Field(min_length=1)
    majority_needs_tiles: bool
    per_money: int = Field(ge=1, le=MAX_RULE_INT)
    unpublished_money: Literal["sketchbook_money_only", "with_track_money"] = Field(
        description="End of the Game 1: an unpublished sketchbook earns the money its publication would give: "
        "sketchbook_money_only (its cards and bonus tiles, without the track rewards a publication's track "
        "advance would bring) or with_track_money (also the money rewards of the Published sketchbooks track "
        "spaces the unpublished sketchbooks would reach, one space each in sketchbook order)"
    )
    tie: Literal["shared", "later_seat"] = Field(
        description="players equal on Victory points and theme tiles: shared (they share the victory) or "
        "later_seat (the one latest in turn order wins, a common convention against the first player's edge)"
    )
    assumed: str | None = None


class Greedy(Strict):
    money: float
    resource: float
    hand_card: float
    hand_cap: int = Field(ge=0, le=MAX_RULE_INT)
    book_fraction: float
    growth: float
    theme_tile: float
    opportunity: float
    improvement: float
    advanced: float
    bonus_tile: float
    card_bonus_icon: float = Field(description="a card's value per bonus icon, points (Travel)")
    card_theme_icon: float = Field(description="a card's value per theme icon, points (Travel)")
    card_cost_share: float = Field(description="share of ``resource`` a card's cost takes off its value (Travel)")
    wander_steps: int = Field(
        ge=1, le=MAX_RULE_INT, description="Travel uses Wanderer for a card this many steps away or more"
    )
    assumed: str | None = None


class Rollout(Strict):
    playouts: int = Field(ge=1, le=MAX_RULE_INT, description="playouts per candidate choice")
    candidates: int = Field(ge=1, le=MAX_RULE_INT, description="best choices by the greedy value that get playouts")
    horizon_rounds: int = Field(
        ge=0, le=MAX_RULE_INT, description="rounds a playout runs on; 0: to the end of the game"
    )
    assumed: str | None = None


class Heuristic(Strict):
    """The compiled interface's value of an unfinished game (``kernel.heuristic``), for searches that
    stop before the end: an agent parameter, not a rule."""

    scale: float = Field(
        gt=0,
        le=1000,
        description="points: a seat's value is 1 / (1 + exp(-margin / scale)), "
        "margin = its value minus the best other seat's (or each other seat's: contest)",
    )
    progress: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="a seat's value: (1 - progress) x its score if the game ended now + progress x the greedy "
        "value of its holdings (agents.greedy's weights: sketchbooks, hand, money, resources, tiles, tracks)",
    )
    contest: Literal["best", "pairwise", "share"] = Field(
        default="best",
        description="whom a seat's value is measured against: the best other seat (sigmoid of the margin over "
        "it), every other seat (the mean of the sigmoids of the margins over each), or every seat (softmax share "
        "exp(value / scale) / sum of exp(value / scale)); the three agree at two players",
    )
    assumed: str | None = None


class Agents(Strict):
    greedy: Greedy
    rollout: Rollout
    heuristic: Heuristic


class Card(Strict):
    """One travel card (Cards and Personal Boards A-D)."""

    id: int = Field(ge=0, le=MAX_RULE_INT)
    cost: dict[str, RuleInt]
    discount: str
    bonus: bool
    region: str
    themes: list[str]


class Cards(Strict):
    deck: list[Card] = Field(min_length=1)
    assumed: str | None = None


class UrbanSketchersConfig(GameConfig):
    """An Urban Sketchers rule variant (the whole YAML file after ``extends:`` is resolved)."""

    game: Literal["urban_sketchers"]
    players: list[Literal[2, 3, 4]] = Field(min_length=1)  # type: ignore[assignment]  # narrows GameConfig.players
    resources: Resources
    themes: Themes
    regions: list[str] = Field(min_length=1, max_length=3)
    dice: Dice
    actions: ActionColours
    dice_tiles: DiceTiles
    setup: Setup
    travel_board: TravelBoard
    travel: Travel
    sketch: Sketch
    funding: Funding
    supply: Note
    publish: Publish
    tracks: Tracks
    opportunities: Note
    improvements: Improvements
    bonus_tiles: BonusTiles
    theme_board: ThemeBoard
    end: End
    final_scoring: FinalScoring
    agents: Agents
    cards: Cards

    @model_validator(mode="after")
    def _check(self) -> UrbanSketchersConfig:
        res, themes, regions = self.resources.names, self.themes.names, self.regions
        for names, key in ((res, "resources.names"), (themes, "themes.names"), (regions, "regions")):
            twice = sorted({x for x in names if names.count(x) > 1})
            if twice:
                raise ValueError(f"{key}: {', '.join(twice)} named more than once; each name must be different")
        for n in self.players:
            k = str(n)
            for table, name in (
                (self.dice.white, "dice.white"),
                (self.dice_tiles.supply_spaces, "dice_tiles.supply_spaces"),
                (self.end.total_published, "end.total_published"),
            ):
                if k not in table:
                    raise ValueError(f'{name}: no entry "{n}", but players lists {n}')
            if 1 + self.dice_tiles.supply_spaces[k] > len(self.dice_tiles.values):  # type: ignore[index]
                raise ValueError(
                    f"dice_tiles: {n} players need {1 + self.dice_tiles.supply_spaces[k]} tiles "  # type: ignore[index]
                    f"(one for the colour actions, one per Supply space), values has {len(self.dice_tiles.values)}"
                )
            if n * self.setup.hand + self.travel_board.spaces > len(self.cards.deck):
                raise ValueError(
                    f"cards.deck: {len(self.cards.deck)} cards cannot fill the travel board and deal {n} hands"
                )
        if len(self.publish.victory_points) != self.sketch.max_cards + 1:
            raise ValueError("publish.victory_points: needs one value per sketchbook size 0..sketch.max_cards")
        kinds = bonus_kind_names(self)
        unknown = set(self.bonus_tiles.mix) - set(kinds)
        if unknown:
            raise ValueError(f"bonus_tiles.mix: unknown kinds {sorted(unknown)}; allowed: {', '.join(kinds)}")
        if sum(self.bonus_tiles.mix.values()) < 1:
            raise ValueError("bonus_tiles.mix: at least one tile")
        if any(v < 0 for v in self.bonus_tiles.mix.values()):
            raise ValueError("bonus_tiles.mix: counts must be 0 or more")
        ids = [c.id for c in self.cards.deck]
        if len(set(ids)) != len(ids):
            raise ValueError("cards.deck: card ids must be unique")
        for i, c in enumerate(self.cards.deck):
            where = f"cards.deck[{i}]"
            if set(c.cost) - set(res) or any(v < 0 for v in c.cost.values()):
                raise ValueError(f"{where}.cost: card id {c.id}: resources {', '.join(res)} with counts 0 or more")
            if c.discount != "none" and c.cost.get(c.discount, 0) < 1:
                raise ValueError(
                    f"{where}.discount: card id {c.id}: the discount resource {c.discount!r} must be part of the cost"
                )
            if c.region != "none" and c.region not in regions:
                raise ValueError(f"{where}.region: card id {c.id}: {c.region!r}; allowed: none, {', '.join(regions)}")
            if set(c.themes) - set(themes):
                raise ValueError(f"{where}.themes: card id {c.id}: themes must be among {', '.join(themes)}")
        return self


def bonus_kind_names(cfg: UrbanSketchersConfig) -> list[str]:
    """The YAML names of the bonus tile kinds, in code order (:data:`BONUS_KINDS`)."""
    return (
        [f"discount_{r}" for r in cfg.resources.names]
        + [f"streak_{g}" for g in cfg.regions]
        + ["money", "extra_theme", "longer"]
    )


def deck_distribution(cfg: UrbanSketchersConfig) -> dict[str, dict[str, RuleInt]]:
    """The travel deck's distribution, to compare with the printed deck: cards by total cost, by
    resource units in costs, by discount resource, by region, theme icons by theme, icons per card,
    bonus icons. Values are card (or icon) counts."""
    deck = cfg.cards.deck
    return {
        "total_cost": dict(sorted(Counter(str(sum(c.cost.values())) for c in deck).items())),
        "cost_units": {r: sum(c.cost.get(r, 0) for c in deck) for r in cfg.resources.names},
        "discount": {r: sum(c.discount == r for c in deck) for r in [*cfg.resources.names, "none"]},
        "region": {g: sum(c.region == g for c in deck) for g in [*cfg.regions, "none"]},
        "theme_icons": {t: sum(c.themes.count(t) for c in deck) for t in cfg.themes.names},
        "icons_per_card": dict(sorted(Counter(str(len(c.themes)) for c in deck).items())),
        "bonus_icon": {"yes": sum(c.bonus for c in deck), "no": sum(not c.bonus for c in deck)},
    }


def deck_report(cfg: UrbanSketchersConfig) -> str:
    """:func:`deck_distribution` as text lines (``balancer validate`` prints it)."""
    lines = [f"travel deck: {len(cfg.cards.deck)} cards; bonus tiles: {sum(cfg.bonus_tiles.mix.values())}"]
    for name, counts in deck_distribution(cfg).items():
        lines.append(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "\n".join(lines)
