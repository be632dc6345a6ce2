"""Águeda: City of Umbrellas rule parameters: the pydantic model of `configs/agueda/*.yaml`.

Every number a rule uses lives here, read from YAML; the rules code never writes one itself
(docs/architecture.md, "Parameters apart from rules"). Sections refer to the rulebook's headings
(shared/rules/agueda.txt): "Setup", "Pick Umbrellas", "Place Umbrellas", "Update Mural",
"Attract Tourists", "Game End & Final Scoring", "Winning the Game", "Solo Mode".

Where the rulebook is silent (market shape, row length, paintbrush spaces, shop-card and tour-guide
texts) the YAML value carries an ``assumed:`` note (one line of why); docs/games/agueda.md lists them.
Colours are named in ``umbrellas.colours``; everywhere else a colour is written by that name.
Board spaces are 1-based in the YAML (space 1 is the leftmost), as a printed board is read.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ...core.config import MAX_RULE_INT, GameConfig, RuleInt, Strict

SHOP_KINDS: tuple[str, ...] = (
    "umbrellas",
    "rows_with",
    "adjacent_pairs",
    "varied_rows",
    "completed_rows",
    "coins",
    "tourists",
)
"""The shop-card vocabulary (end-game conditions over the final board), in the order of their codes:

- ``umbrellas``: ``points`` for every ``per`` umbrellas of the marked colour(s) on the board;
- ``rows_with``: ``points`` for each row holding at least ``at_least`` umbrellas of the marked colour(s);
- ``adjacent_pairs``: ``points`` for each pair of side-by-side umbrellas in a row of the same colour
  (with markers: of the same marked colour);
- ``varied_rows``: ``points`` for each row holding at least ``at_least`` different colours;
- ``completed_rows``: ``points`` for each row with no empty space;
- ``coins``: ``points`` for every ``per`` coins left;
- ``tourists``: ``points`` for every ``per`` tourists standing on tourist tiles at the end.

Every kind may cap its total with ``max_points``.
"""

TAKE_KINDS: tuple[str, ...] = ("line", "row", "column", "most_common_colour")
"""How a tour-guide card takes umbrellas from the market (Solo Mode, Gameplay step 2):
``line`` the market line ``index`` (1-based, as listed in ``market.lines``), ``row``/``column`` that
market row/column (1-based), ``most_common_colour`` every umbrella of the colour the market holds
most of (ties: the colour listed first in ``umbrellas.colours``)."""


class Umbrellas(Strict):
    """Components: 120 umbrella tokens, 20 in each of 6 colours, in the draw bag."""

    colours: list[str] = Field(min_length=2, max_length=8, description="colour names, one per umbrella colour")
    per_colour: int = Field(ge=1, le=200, description="umbrellas of each colour in the bag")
    assumed: str | None = None

    @field_validator("colours")
    @classmethod
    def _distinct(cls, colours: list[str]) -> list[str]:
        if len(set(colours)) != len(colours):
            raise ValueError("colour names must differ")
        return colours


class Line(Strict):
    """One line of the market: its cells as [row, column] pairs (1-based)."""

    cells: list[list[RuleInt]] = Field(
        min_length=1, max_length=4, description="at most 4 cells (the engine's move size)"
    )


class Market(Strict):
    """Setup step 4 and Pick Umbrellas: the market grid, filled row by row, left to right, and its lines."""

    rows: int = Field(ge=1, le=5)
    columns: int = Field(ge=1, le=5)
    lines: list[Line] = Field(min_length=1, max_length=16, description="the lines a player may take")
    coins_by_umbrellas: dict[RuleInt, RuleInt] = Field(
        description="coins taking a line that holds that many umbrellas gives (+) or costs (-); a cost is "
        'paid first and needs the coins (Pick Umbrellas: "the diagonal with 1 umbrella", "a column '
        'with 3 umbrellas")'
    )
    coins_by: Literal["umbrellas_held", "line_length"] = Field(
        description="what sets a line's coins in coins_by_umbrellas: umbrellas_held (the umbrellas it holds now) "
        "or line_length (the spaces it has, full or not); they differ only when the bag could not refill it"
    )
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Market:
        seen: set[tuple[int, int]] = set()
        for i, line in enumerate(self.lines):
            for cell in line.cells:
                if len(cell) != 2:
                    raise ValueError(f"lines[{i}]: a cell is [row, column], got {cell}")
                r, c = cell
                if not (1 <= r <= self.rows and 1 <= c <= self.columns):
                    raise ValueError(f"lines[{i}]: cell [{r}, {c}] is outside the {self.rows}x{self.columns} market")
                if (r, c) in seen:
                    raise ValueError(f"lines[{i}]: cell [{r}, {c}] belongs to two lines")
                seen.add((r, c))
            missing = [k for k in range(1, len(line.cells) + 1) if k not in self.coins_by_umbrellas]
            if missing:
                raise ValueError(f"lines[{i}] can hold {missing} umbrellas but coins_by_umbrellas has no entry for it")
        return self


class Coins(Strict):
    """Setup: 20 coins in the bank; each player takes 2."""

    bank: int = Field(ge=0, le=1000, description="coins in the box (the bank before setup)")
    start: int = Field(ge=0, le=100, description="coins each player takes at setup")
    assumed: str | None = Field(None, description="what was assumed here (the empty bank), one line of why")


class Board(Strict):
    """Player board: 3 rows of umbrella spaces, two paintbrush spaces in each row."""

    rows: Literal[3] = Field(description="rows of the player board (3: one per mural row and tourist tile)")
    row_length: int = Field(ge=2, le=12, description="umbrella spaces in each row")
    paintbrush: list[list[RuleInt]] = Field(description="per row, the 1-based spaces marked with a paintbrush")
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Board:
        if len(self.paintbrush) != self.rows:
            raise ValueError(f"paintbrush: give one list per row ({self.rows}), got {len(self.paintbrush)}")
        for r, spaces in enumerate(self.paintbrush):
            if len(set(spaces)) != len(spaces) or any(not 1 <= s <= self.row_length for s in spaces):
                raise ValueError(f"paintbrush[{r}]: spaces must be distinct and within 1..{self.row_length}")
        return self


class Mural(Strict):
    """Update Mural and Final Scoring: the 2x3 mural (3 rows of 2 tiles) and its points."""

    rows: list[list[str]] = Field(min_length=3, max_length=3, description="the two colours of each mural row")
    points: dict[RuleInt, RuleInt] = Field(description="flipped tiles -> points (4/5/6 tiles: 2/4/6 points)")
    assumed: str | None = None


class Tourists(Strict):
    """Setup steps 7-8 and Attract Tourists."""

    in_suitcases: int = Field(ge=0, le=10, description="tourists starting in suitcases")
    locked_per_mural_row: int = Field(ge=0, le=5, description="tourists beside each mural row, unlocked by it")
    tiles: list[list[str]] = Field(
        min_length=3, max_length=3, description="the two colours of each tourist tile, top row first at setup"
    )
    assumed: str | None = None


class Scoring(Strict):
    """Game End & Final Scoring: points per empty umbrella space."""

    empty_space: int = Field(ge=-MAX_RULE_INT, le=0)


class End(Strict):
    """Game End: the trigger. ``bag_empty_triggers_end`` covers a case the rulebook never meets;
    ``max_turns`` is a safety stop, not a rule (results say which games it ended: ``ended_by``)."""

    bag_empty_triggers_end: bool
    max_turns: int = Field(
        ge=1,
        le=100 * MAX_RULE_INT,
        description="turns of all seats together after which a game that has not ended stops (a safety stop, "
        "recorded as ended_by turn_cap)",
    )
    assumed: str | None = None


class ShopCard(Strict):
    """One shop card written in the vocabulary of :data:`SHOP_KINDS`."""

    name: str = Field(min_length=1, max_length=60)
    kind: Literal["umbrellas", "rows_with", "adjacent_pairs", "varied_rows", "completed_rows", "coins", "tourists"]
    markers: int = Field(0, ge=0, le=3, description="question-mark spots: shop markers placed at random at setup")
    points: int = Field(ge=0, le=50)
    at_least: int = Field(1, ge=1, le=12, description="threshold of rows_with and varied_rows")
    per: int = Field(1, ge=1, le=50, description="divisor of umbrellas, coins and tourists")
    max_points: int | None = Field(None, ge=0, le=MAX_RULE_INT, description="cap on this card's points")
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> ShopCard:
        if self.kind in ("umbrellas", "rows_with") and self.markers == 0:
            raise ValueError(f"{self.name}: a {self.kind} card counts marked colours; give markers >= 1")
        if self.kind in ("varied_rows", "completed_rows", "coins", "tourists") and self.markers:
            raise ValueError(f"{self.name}: a {self.kind} card uses no shop markers; set markers: 0")
        return self


class Shops(Strict):
    """Setup steps 2-3: 2 of the 18 shop cards, shop markers on their question-mark spots at random."""

    per_game: Literal[2]
    fixed: list[str] | None = Field(None, description="names of the shop cards of every game, or null to draw them")
    cards: list[ShopCard] = Field(min_length=2)
    spare_markers: Literal["unused"] = Field(
        description="the shop markers left after Setup step 3 (placed on the Agueda Souvenirs space) play no part "
        "(the only choice implemented)"
    )
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Shops:
        names = [c.name for c in self.cards]
        if len(set(names)) != len(names):
            raise ValueError("shop card names must differ")
        if self.fixed is not None:
            if len(self.fixed) != self.per_game or len(set(self.fixed)) != len(self.fixed):
                raise ValueError(f"fixed: name {self.per_game} different shop cards")
            unknown = [f for f in self.fixed if f not in names]
            if unknown:
                raise ValueError(f"fixed: unknown shop cards {unknown}; known: {names}")
        return self


class TourGuide(Strict):
    """One tour-guide card (Solo Mode): what it takes from the market and what it scores for the AI."""

    name: str = Field(min_length=1, max_length=60)
    take: Literal["line", "row", "column", "most_common_colour"]
    index: int = Field(0, ge=0, le=16, description="1-based line, row or column (0 for most_common_colour)")
    points_per_umbrella: int = Field(ge=0, le=10)
    points: int = Field(0, ge=0, le=20, description="flat points for the AI when revealed")
    assumed: str | None = None


class AiEndCard(Strict):
    """One difficulty level of the Solo End Game Scoring card."""

    points: int = Field(ge=0, le=200, description="flat points")
    per_umbrella: int = Field(ge=0, le=10, description="points per umbrella the AI collected")
    colour_group_at_least: int = Field(ge=1, le=40, description="size of a colour group that scores group_points")
    group_points: int = Field(ge=0, le=40, description="points per colour group of at least that size")


class Solo(Strict):
    """Solo Mode: the tour-guide deck, the AI's end-game card and the chosen difficulty."""

    difficulty: str
    deck: list[TourGuide] = Field(min_length=1, max_length=30)
    end_card: dict[str, AiEndCard] = Field(min_length=1)
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Solo:
        if self.difficulty not in self.end_card:
            raise ValueError(f"difficulty: {self.difficulty!r} is not on the end card; allowed: {list(self.end_card)}")
        return self


class GreedyWeights(Strict):
    """The greedy agent's value of one turn (agent parameters, not rules; documented in agents.py)."""

    flip: float = Field(ge=0, le=MAX_RULE_INT, description="per mural tile flipped, besides the mural points it adds")
    unlock: float = Field(ge=0, le=MAX_RULE_INT, description="per tourist unlocked")
    fill: float = Field(ge=0, le=MAX_RULE_INT, description="per umbrella placed (an empty space less at the end)")
    coin: float = Field(ge=0, le=MAX_RULE_INT, description="per coin gained (and lost per coin spent)")
    suitcase: float = Field(ge=0, le=MAX_RULE_INT, description="per tourist in a suitcase after the turn")
    tile_match: float = Field(
        ge=0, le=MAX_RULE_INT, description="per umbrella placed in a colour of that row's tourist tile"
    )
    shops: float = Field(ge=0, le=MAX_RULE_INT, description="per shop-card point the board would score now")
    assumed: str | None = None


class Lookahead(Strict):
    """The lookahead agent: the greedy agent's best ``candidates`` moves, each played out ``rollouts``
    times to the end with the greedy policy; the move with the best mean final margin is played."""

    candidates: int = Field(ge=1, le=50)
    rollouts: int = Field(ge=1, le=100)


class Heuristic(Strict):
    """The compiled interface's value of an unfinished game (kernel.py): per seat
    ``1 / (1 + exp(-margin / scale))``, the margin being its estimate minus the best other's (solo:
    minus the AI's score now). A seat's estimate is its score now plus the progress terms below
    (each weight times the seat's count; 0 leaves the term out). Agent parameters: what a search
    believes, not a rule."""

    scale: float = Field(gt=0, le=100, description="points of estimate margin per logistic unit")
    suitcase: float = Field(default=0.0, ge=-100, le=100, description="per tourist in the suitcase")
    tourists: float = Field(default=0.0, ge=-100, le=100, description="per tourist standing on a tourist tile")
    coins: float = Field(default=0.0, ge=-100, le=100, description="per coin")
    reach: float = Field(
        default=0.0,
        ge=-100,
        le=100,
        description="per point the best Attract Tourists open now would score (tiles free, tourists in the suitcase)",
    )
    mural: float = Field(default=0.0, ge=-100, le=100, description="per mural tile flipped")
    empty: float = Field(
        default=0.0, ge=-100, le=100, description="per empty board space (on top of the -1 the score counts now)"
    )
    assumed: str | None = None


class Agents(Strict):
    """Agent parameters (not rules): what the players are, never what the game is."""

    greedy: GreedyWeights
    lookahead: Lookahead
    heuristic: Heuristic


class AguedaConfig(GameConfig):
    """An Águeda rule variant (the whole YAML file after `extends:` is resolved)."""

    game: Literal["agueda"]
    players: list[Literal[1, 2, 3, 4, 5]] = Field(min_length=1, description="player counts (1 = solo mode)")  # type: ignore[assignment]  # narrows GameConfig.players
    umbrellas: Umbrellas
    market: Market
    coins: Coins
    board: Board
    mural: Mural
    tourists: Tourists
    scoring: Scoring
    end: End
    shops: Shops
    solo: Solo
    agents: Agents

    @model_validator(mode="after")
    def _check(self) -> AguedaConfig:
        colours = self.umbrellas.colours
        for where, pairs in (("mural.rows", self.mural.rows), ("tourists.tiles", self.tourists.tiles)):
            for i, pair in enumerate(pairs):
                if len(pair) != 2:
                    raise ValueError(f"{where}[{i}]: give two colours, got {pair}")
                bad = [c for c in pair if c not in colours]
                if bad:
                    raise ValueError(f"{where}[{i}]: unknown colours {bad}; colours are {colours}")
        mural = [c for pair in self.mural.rows for c in pair]
        if sorted(mural) != sorted(colours):
            raise ValueError(f"mural.rows: the mural holds each colour exactly once ({colours}), got {mural}")
        if any(not 0 <= k <= len(colours) for k in self.mural.points):
            raise ValueError(f"mural.points: flipped-tile counts must be within 0..{len(colours)}")
        most = max(self.players)
        if self.coins.start * most > self.coins.bank:
            raise ValueError(
                f"coins.start: {most} player(s) taking {self.coins.start} coins each need "
                f"{self.coins.start * most}, more than the bank's {self.coins.bank} (coins.bank)"
            )
        cells = self.market.rows * self.market.columns
        if self.umbrellas.per_colour * len(colours) < cells:
            raise ValueError(f"umbrellas: the bag holds fewer umbrellas than the {cells} market spaces")
        if 2 * max(c.markers for c in self.shops.cards) > len(colours):
            raise ValueError(f"shops.cards: two cards could need more markers than the {len(colours)} shop markers")
        for i, card in enumerate(self.solo.deck):
            limit = {
                "line": len(self.market.lines),
                "row": self.market.rows,
                "column": self.market.columns,
                "most_common_colour": 0,
            }[card.take]
            if (limit and not 1 <= card.index <= limit) or (not limit and card.index):
                raise ValueError(
                    f"solo.deck[{i}] ({card.name}): index {card.index} for take {card.take!r} "
                    f"must be {'within 1..' + str(limit) if limit else '0'}"
                )
        return self

    def colour(self, name: str) -> int:
        """Code (0-based index in ``umbrellas.colours``) of a colour name."""
        return self.umbrellas.colours.index(name)
