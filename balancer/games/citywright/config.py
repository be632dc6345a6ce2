"""Citywright rule parameters: the pydantic model of `configs/citywright/*.yaml`.

Every number a rule uses lives here, read from YAML; the rules code never writes one itself
(docs/architecture.md, "Parameters apart from rules"). Sections refer to the Citywright v1.1 rulebook.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ...core.config import MAX_RULE_INT, GameConfig, RuleInt, Strict

DISTRICTS: tuple[str, ...] = ("residential", "commercial", "park", "industrial")
"""The four districts (§2.3), in the order of their codes 1..4 (0 is an empty cell)."""


# Scoring points are 0 or more: the greedy agent's search bounds rely on no rule taking points away.


class ShapeSpec(Strict):
    """One ruler shape (§2.4): rows of '#' (cell), '*' (free-pick star cell), '.' (no cell)."""

    rows: list[str] = Field(min_length=1, description="drawing of the shape, one string per row")
    copies: int = Field(ge=0, le=MAX_RULE_INT, description="cards of this shape in its deck")

    @field_validator("rows")
    @classmethod
    def _check_rows(cls, rows: list[str]) -> list[str]:
        width = len(rows[0])
        for row in rows:
            if len(row) != width:
                raise ValueError("all rows of a shape must have the same length")
            if set(row) - set("#*."):
                raise ValueError("rows use only '#' (cell), '*' (star cell) and '.' (no cell)")
        if sum(row.count("*") for row in rows) > 1:
            raise ValueError("a shape has at most one '*' star cell")
        return rows

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(row, column) of every cell, in reading order."""
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch != "."]

    @property
    def star(self) -> tuple[int, int] | None:
        """(row, column) of the star cell, or None for a four-cell ruler."""
        for r, row in enumerate(self.rows):
            if "*" in row:
                return (r, row.index("*"))
        return None


class Rulers(Strict):
    """§2.4: the two decks. Four-cell rulers go to edge slots, five-cell rulers to corner slots."""

    four_cell: dict[str, ShapeSpec]
    five_cell: dict[str, ShapeSpec]
    no_ruler_left: Literal["turn_lost"] = Field(
        description="a turn whose player finds every slot empty (decks too small for the round) is lost: the "
        "game moves on to the next player (the only choice implemented; §5 says 'You cannot pass')"
    )
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Rulers:
        for name, shape in self.four_cell.items():
            if len(shape.cells) != 4 or shape.star is not None:
                raise ValueError(f"four_cell.{name}: a four-cell ruler has exactly 4 cells and no '*'")
        for name, shape in self.five_cell.items():
            if len(shape.cells) != 5 or shape.star is None:
                raise ValueError(f"five_cell.{name}: a five-cell ruler has exactly 5 cells, one of them '*'")
        if set(self.four_cell) & set(self.five_cell):
            raise ValueError("shape names must differ between the two decks")
        if not self.four_cell or not self.five_cell:
            raise ValueError("both decks need at least one shape")
        return self

    @property
    def names(self) -> list[str]:
        """All shape names, four-cell first, in file order; a shape's id is its index here."""
        return list(self.four_cell) + list(self.five_cell)


class RoundPlan(Strict):
    """§4.1: rounds in a game and turns per player in each round."""

    rounds: int = Field(ge=1, le=20)
    turns: int = Field(ge=1, le=20)
    assumed: str | None = None


class Residential(Strict):
    """§6.1 largest cluster: largest_points per largest_per_tiles tiles (rounded down); second: size x points."""

    largest_points: int = Field(ge=0, le=MAX_RULE_INT)
    largest_per_tiles: int = Field(ge=1, le=MAX_RULE_INT)
    second_points_per_tile: int = Field(ge=0, le=MAX_RULE_INT)


class Tier(Strict):
    at_least: int = Field(ge=0, le=MAX_RULE_INT)
    points: int = Field(ge=0, le=MAX_RULE_INT)


class Commercial(Strict):
    """§6.2 tiers by commercial count N, +per_tile_beyond for each tile over `beyond`, +isolated per lone tile."""

    tiers: list[Tier]
    beyond: int = Field(ge=0, le=MAX_RULE_INT)
    per_tile_beyond: int = Field(ge=0, le=MAX_RULE_INT)
    isolated: int = Field(ge=0, le=MAX_RULE_INT)

    @field_validator("tiers")
    @classmethod
    def _ascending(cls, tiers: list[Tier]) -> list[Tier]:
        if [t.at_least for t in tiers] != sorted({t.at_least for t in tiers}):
            raise ValueError("tiers must be listed with strictly increasing at_least")
        return tiers


class Park(Strict):
    """§6.3 +touching per park next to residential/commercial, +per_row / +per_column with a park."""

    touching: int = Field(ge=0, le=MAX_RULE_INT)
    per_row: int = Field(ge=0, le=MAX_RULE_INT)
    per_column: int = Field(ge=0, le=MAX_RULE_INT)


class Industrial(Strict):
    """§6.4 +ring per industrial tile on the outer ring, +per_group_points per group_size tiles (rounded down)."""

    ring: int = Field(ge=0, le=MAX_RULE_INT)
    per_group_points: int = Field(ge=0, le=MAX_RULE_INT)
    group_size: int = Field(ge=1, le=MAX_RULE_INT)


class Scoring(Strict):
    residential: Residential
    commercial: Commercial
    park: Park
    industrial: Industrial


class TwoPlayer(Strict):
    """§9: the reduced deck and discard-for-tile."""

    reduced_deck: bool
    remove_copies: dict[str, RuleInt]
    discard_for_tile: bool


class Solo(Strict):
    """§10.2: the rival apprentice removes the ruler at the opposite end of the drafted ruler's line."""

    rival_apprentice: bool


class Versatile(Strict):
    distinct_shapes: int = Field(ge=1, le=MAX_RULE_INT)
    points: int = Field(ge=-MAX_RULE_INT, le=MAX_RULE_INT)
    assumed: str | None = None


class Mastery(Strict):
    same_shape: int = Field(ge=1, le=MAX_RULE_INT)
    points: int = Field(ge=-MAX_RULE_INT, le=MAX_RULE_INT)
    assumed: str | None = None


class TreeLined(Strict):
    points: int = Field(ge=-MAX_RULE_INT, le=MAX_RULE_INT)
    solo_park_at_least: int = Field(ge=0, le=MAX_RULE_INT)
    all_parks_zero: Literal["every_player", "no_one"] = Field(
        description="when every Park subtotal is 0: every_player (all are tied for the highest and get "
        "Tree-lined, Q10) or no_one (§10.3's 'no table to lead': nobody leads, nobody gets it)"
    )
    assumed: str | None = None


class Achievements(Strict):
    """§7: Versatile and Mastery from ruler ticks, Tree-lined from the highest Park subtotal."""

    enabled: bool
    versatile: Versatile
    mastery: Mastery
    tree_lined: TreeLined
    assumed: str | None = None


class Specialists(Strict):
    """Weights of each scoring category in a specialist's greedy objective (agent parameters, not rules)."""

    assumed: str | None = None
    residential: dict[str, float]
    commercial: dict[str, float]
    park: dict[str, float]
    industrial: dict[str, float]

    @model_validator(mode="after")
    def _check(self) -> Specialists:
        for name in DISTRICTS:
            weights = getattr(self, name)
            if set(weights) != set(DISTRICTS):
                raise ValueError(f"{name}: give one weight for each of {', '.join(DISTRICTS)}")
            if any(w < 0 for w in weights.values()):
                raise ValueError(f"{name}: weights must be 0 or more")
        return self


class Heuristic(Strict):
    """The value in [0, 1] a search reads (``kernel.heuristic``, ``kernel.returns`` solo): agent
    parameters, not rules."""

    scale: float = Field(
        10.0, gt=0, le=1000, description="points of score margin per unit of the logistic 1/(1+exp(-margin/scale))"
    )
    solo_par: float = Field(
        130.0, ge=0, le=1000, description="solo (§10.3 prints no rank table): the final total valued 0.5"
    )
    potential: float = Field(
        0.0,
        ge=0,
        le=10,
        description="weight of a table's progress toward its next step of points (a residential cluster, a "
        "commercial tier, an industrial pair: the step's points times the share of it reached), times the share "
        "of the seat's turns still to play",
    )
    room: float = Field(
        0.0,
        ge=0,
        le=10,
        description="points per empty cell a seat can still fill: min(empty cells, tiles its remaining turns "
        "bring, 4 a turn), a cramped table's lost future",
    )
    assumed: str | None = None


class Agents(Strict):
    specialists: Specialists
    heuristic: Heuristic = Heuristic()


class Table(Strict):
    size: int = Field(ge=3, le=8, description="side of the square drawing table, cells (§2.1); at most 8")


class Site(Strict):
    size: Literal[4] = Field(description="side of the site board (§2.2); the slot layout needs 4")
    tiles_per_district: Literal[4] = Field(description="tiles of each district on the site board (§3.4)")


class CitywrightConfig(GameConfig):
    """A Citywright rule variant (the whole YAML file after `extends:` is resolved)."""

    game: Literal["citywright"]
    players: list[Literal[1, 2, 3, 4]] = Field(min_length=1, description="player counts this variant supports")  # type: ignore[assignment]  # narrows GameConfig.players
    table: Table
    site: Site
    rulers: Rulers
    rounds: dict[Literal["1", "2", "3", "4"], RoundPlan]
    scoring: Scoring
    seat_bonus: dict[Literal["1", "2", "3", "4"], list[RuleInt]] = Field(
        description="seat bonus printed on the score sheet (§6.5), by player count, in seat order",
        json_schema_extra={"unit": "points"},
    )
    two_player: TwoPlayer
    solo: Solo
    achievements: Achievements
    agents: Agents

    @model_validator(mode="after")
    def _check(self) -> CitywrightConfig:
        """Every rule check of the whole variant; all problems found, one ``key.path: problem`` line each."""
        problems = []
        for n in self.players:
            for table, name in ((self.rounds, "rounds"), (self.seat_bonus, "seat_bonus")):
                if str(n) not in table:
                    problems.append(f'{name}: no entry "{n}", but players lists {n}')
        for key, plan in self.rounds.items():
            # each turn drafts one ruler from the 20 slots (§2.2, §5); solo, the rival removes a second (§10.2)
            drafts = int(key) * plan.turns * (2 if key == "1" and self.solo.rival_apprentice else 1)
            if drafts > 20:
                problems.append(
                    f"rounds.{key}.turns: {key} player(s) x {plan.turns} turns"
                    f"{' x 2 (rival apprentice)' if key == '1' and self.solo.rival_apprentice else ''}"
                    f" = {drafts} rulers a round, but the site board has 20 ruler slots"
                )
        for key, bonus in self.seat_bonus.items():
            if len(bonus) != int(key):
                problems.append(f"seat_bonus.{key}: needs {key} values, one per seat, got {len(bonus)}")
        unknown = set(self.two_player.remove_copies) - set(self.rulers.names)
        if unknown:
            problems.append(
                f"two_player.remove_copies: unknown shapes {sorted(unknown)}; shapes are {self.rulers.names}"
            )
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def round_plan(self, n_players: int) -> RoundPlan:
        """The §4.1 round plan for n_players; raises ValueError for an unsupported count."""
        key = str(n_players)
        if n_players not in self.players:
            raise ValueError(f"{n_players} players is not supported by this variant (supported: {self.player_counts})")
        return self.rounds[key]  # type: ignore[index]
