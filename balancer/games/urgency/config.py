"""Urgency rule parameters: the pydantic model of `configs/urgency/*.yaml`.

Every number a rule uses lives here, read from YAML (docs/architecture.md, "Parameters apart from rules").
Sections name the Urgency rulebook's headings (shared/rules/urgency.txt). The rule cards are data:
a small vocabulary of triggers and effects (:data:`TRIGGERS`, :data:`EFFECTS`) whose words are the
rulebook's definitions (trigger, action, effect, safe, attack, remove, roll again).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ...core.config import MAX_RULE_INT, GameConfig, RuleInt, Strict

MAX_TOKENS = 7
"""The most tokens a player may have (Setup: 7 each); the state keeps a slot per token (:data:`.rules.SCORED_AT`)."""

TRIGGERS: tuple[str, ...] = (
    "always",  # an effect with no trigger: always active while the card is in play
    "own_roll",  # you roll `value` (any value when value is null)
    "opponent_roll",  # your opponent rolls `value` (any value when null)
    "land_tile",  # your token lands (by your own move) on tile `value`
    "land_rosette",  # your token lands (by your own move) on a rosette
    "land_centre",  # your token lands (by your own move) in the centre row
    "capture",  # your token removes an opponent's token by landing on it (basic attack)
    "captured",  # one of your tokens is removed
    "score",  # you score a token
    "opponent_score",  # your opponent scores a token
    "turn_start",  # your turn begins (before you roll)
    "instead_of_roll",  # Eagle: at the start of your turn you may trigger this card instead of rolling
)
"""Trigger words of the card vocabulary, in the order of their codes."""

EFFECTS: tuple[str, ...] = (
    "roll_again",  # roll again (Definitions: still the same turn; several count once)
    "set_next_roll",  # your next roll is `value` (no dice are rolled)
    "set_opponent_next_roll",  # your opponent's next roll is `value`
    "change_roll",  # this roll is changed by `value` (clamped to 0..the roller's dice: cards.change_roll_range)
    "dice",  # you roll `value` dice instead of the rulebook's number (effect: trigger always)
    "extra_move",  # move your `target` token by `value` tiles (an action; negative: back)
    "safe_tiles",  # tiles `tiles` are safe (effect: trigger always)
    "attack",  # special attack: remove the opponent's token on each tile in `tiles`, unless safe
    "move_opponent",  # move the opponent's `target` token by `value` (negative: back); not an attack
    "reenter",  # enter a token from your supply straight onto tile `value` (if empty of yours)
)
"""Effect words of the card vocabulary, in the order of their codes."""

TARGETS: tuple[str, ...] = ("foremost", "rearmost")
"""Which token an effect that moves one token picks: the one furthest along its path or the one
least far along (tokens on tiles 1-14 only; a token in the supply or scored is never moved)."""

ANIMAL_DECKS: tuple[str, ...] = ("rosette", "ibex", "bull", "lion", "tortoise", "eagle", "lizard")
"""The seven decks of the rulebook's Game Components, in the order of their codes."""


class Trigger(Strict):
    """When a card acts (Definitions: Trigger). ``value``: the roll or tile a trigger names."""

    when: Literal[TRIGGERS]  # type: ignore[valid-type]  # (not `on`: YAML 1.1 reads a bare on as true)
    value: int | None = Field(default=None, ge=0, le=15)


class Effect(Strict):
    """What a card does (Definitions: Action / Effect)."""

    do: Literal[EFFECTS]  # type: ignore[valid-type]
    value: int = Field(default=0, ge=-14, le=14, description="roll, dice count, tiles moved or tile, by effect")
    tiles: list[RuleInt] = Field(default_factory=list, description="tiles an attack or safe effect names (1-14)")
    target: Literal[TARGETS] = "foremost"  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _check(self) -> Effect:
        if any(not 1 <= t <= 14 for t in self.tiles):
            raise ValueError("tiles are numbered 1 to 14")
        if self.do in ("attack", "safe_tiles") and not self.tiles:
            raise ValueError(f"{self.do} needs the tiles it names (tiles: [...])")
        if self.do in ("set_next_roll", "set_opponent_next_roll") and not 0 <= self.value <= 4:
            raise ValueError(f"{self.do}: value is a roll, 0 to 4")
        if self.do == "dice" and not 1 <= self.value <= 4:
            raise ValueError("dice: value is a number of dice, 1 to 4")
        if self.do == "reenter" and not 1 <= self.value <= 14:
            raise ValueError("reenter: value is a tile, 1 to 14")
        return self


class Card(Strict):
    """One rule card. ``assumed: true`` marks a card whose printed text is not in the rulebook; ``why``
    says in one line why this text was chosen."""

    name: str = Field(min_length=1)
    trigger: Trigger
    effect: Effect
    assumed: bool = False
    why: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Card:
        if self.assumed and not (self.why or "").strip():
            raise ValueError("an assumed card says why in one line (why: ...)")
        if self.effect.do in ("dice", "safe_tiles") and self.trigger.when != "always":
            raise ValueError(
                f"{self.effect.do} is an effect that holds while the card is in play: trigger when: always"
            )
        if self.trigger.when == "always" and self.effect.do not in ("dice", "safe_tiles"):
            raise ValueError("only dice and safe_tiles can be always-on effects; other effects need a trigger")
        return self


class Deck(Strict):
    """One animal deck: its cards, and a rule of the whole deck (Tortoise: dice while any card is in play)."""

    dice_while_in_play: int | None = Field(
        default=None, ge=1, le=4, description="dice its owner rolls while any card of this deck is in play"
    )
    cards: list[Card] = Field(min_length=1)
    assumed: str | None = None


class Roll(Strict):
    """Movement: "roll dice, count the painted pips pointing up"."""

    pip_chance: float = Field(
        gt=0,
        lt=1,
        description="chance that one die shows its painted pip up; the roll is "
        "the number of dice that do (binary dice)",
    )
    assumed: str | None = None


class Board(Strict):
    """Board Flow and Rosette Tiles."""

    path_length: Literal[14] = Field(description="tiles on each player's path (1-4 home, 5-12 centre, 13-14 home)")
    tile_15: Literal["scoring_space"] = Field(
        description="what the '15' of each home row in the Board Flow diagram is: the space one past tile 14 where "
        "a token lands exactly to score (Scoring), not a 15th tile to stand on"
    )
    centre: list[RuleInt] = Field(
        min_length=2, max_length=2, description="first and last tile of the shared centre row"
    )
    rosettes: list[RuleInt] = Field(description="tiles that give a roll again")
    safe: list[RuleInt] = Field(description="tiles where attacks cannot remove tokens (the black rosette)")
    assumed: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Board:
        for name in ("rosettes", "safe"):
            if any(not 1 <= t <= 14 for t in getattr(self, name)):
                raise ValueError(f"{name}: tiles are numbered 1 to 14")
        if not 1 <= self.centre[0] <= self.centre[1] <= 14:
            raise ValueError("centre: [first, last] with 1 <= first <= last <= 14")
        return self


class Visibility(Strict):
    """Who sees which card (Setup, Rule Cards): the rulebook makes the piles face-down and says nothing
    of the discard pile or of whether the decks are known. Only the search agents' determinization
    reads this (:mod:`.kernel`); the rules play the same either way."""

    discard_pile: Literal["face_up"] = Field(
        description="discarded cards, the setup discard included, are seen by both players"
    )
    animal_decks: Literal["public"] = Field(
        description="each player knows which animal deck the other plays, so the list of cards it holds"
    )
    assumed: str | None = None


class Cards(Strict):
    """Rule Cards: which decks, how cards come into play (the variant's ``mode``)."""

    enabled: bool
    mode: Literal["standard", "first_pile_revealed", "set_in_stone", "full_force"] = "standard"
    animal_decks: list[str] = Field(
        min_length=1, description="decks a seat may play, at least one (the Rosette deck is shared, Setup)"
    )
    visibility: Visibility
    rosette_draw: int = Field(ge=1, le=3, description="Rosette cards each player draws; keeps 1 (Setup)")
    discard_at_setup: int = Field(ge=0, le=1, description="cards discarded at random from the deck (Setup)")
    piles: int = Field(ge=1, le=3, description="face-down piles of 2 (Setup)")
    unlock_scores: int = Field(
        ge=0,
        le=4,
        description="opponent scores that put a card into play; the last "
        "of them takes the final card from the discard pile (Rule Cards)",
    )
    trigger_again_after: Literal["roll", "move"] = Field(
        description="after triggering an instead_of_roll card, its owner must roll (roll) or move a token by a "
        "roll (move) before triggering one again"
    )
    change_roll_range: Literal["dice_in_play"] = Field(
        description="a change_roll card's result is clamped to 0..the dice its roller rolls now (3 for a Tortoise "
        "deck in play): a changed roll is still one the dice can show"
    )
    forced_rolls_trigger: bool = Field(
        description="does a roll set by a card (set_next_roll) fire own_roll / "
        "opponent_roll cards like a roll of the dice?"
    )
    push_token: Literal["stop_at_1_and_14_nearest_free", "stop_at_1_and_14_or_stay"] = Field(
        description="a card that moves a token by a number of tiles without an attack (extra_move with a negative "
        "value, move_opponent): the token stops at tile 1 at the back and 14 at the front, then "
        "stop_at_1_and_14_nearest_free: on the free tile nearest its target between there and where it stood; "
        "stop_at_1_and_14_or_stay: on its target if free, else it stays where it stood"
    )
    reenter_occupied: Literal["nothing", "nearest_free_behind"] = Field(
        description="a reenter card aimed at a tile its player cannot stand on (an own token there, or the "
        "opponent's in the centre row): nothing (the card does nothing) or nearest_free_behind (the token "
        "enters on the nearest tile behind the target it can stand on, nothing if there is none down to tile 1)"
    )
    max_turns: int = Field(
        ge=10,
        le=100 * MAX_RULE_INT,
        description="turns after which the game stops (a safety stop for card loops, recorded as ended_by "
        "turn_cap); the player with more tokens scored wins, equal counts share",
    )
    assumed: str | None = None


class Agents(Strict):
    """Agent parameters (not rules): the greedy card priority, the expectimax evaluation weights, the
    search heuristic's scale and the MCTS parameters."""

    card_priority: list[str] = Field(
        description="effect words, best first: the order greedy and expectimax put cards into play"
    )
    eval_scored: float
    eval_progress: float
    eval_supply: float
    eval_danger: float
    eval_safe: float
    heuristic_scale: float = Field(
        gt=0,
        description="tiles of progress margin (15 per token scored plus the "
        "tiles of tokens on the board) that the search heuristic's logistic is scaled by",
    )
    assumed: str | None = None


class UrgencyConfig(GameConfig):
    """An Urgency rule variant (the whole YAML file after `extends:` is resolved)."""

    game: Literal["urgency"]
    players: list[Literal[2]] = Field(min_length=1)  # type: ignore[assignment]  # narrows GameConfig.players
    tokens: int = Field(ge=1, le=MAX_TOKENS, description="tokens per player (Setup)")
    dice: int = Field(ge=1, le=4, description="binary dice per player (Setup)")
    roll: Roll
    to_win: int = Field(ge=1, le=MAX_TOKENS, description="tokens scored to win (How to Win)")
    board: Board
    cards: Cards
    default_deck: str = Field(
        description="deck of a seat named without '+deck': 'random' deals one per game "
        "and seat from cards.animal_decks, never the other seat's, else a deck name"
    )
    decks: dict[str, Deck] = Field(
        default_factory=dict,
        description="the Rosette deck and the animal decks, by name; none (null) in a variant without rule cards",
    )
    agents: Agents

    @field_validator("decks", mode="before")
    @classmethod
    def _no_decks(cls, value: object) -> object:
        return {} if value is None else value  # `decks: null`: a variant without cards drops the decks

    @model_validator(mode="after")
    def _check(self) -> UrgencyConfig:
        if self.to_win > self.tokens:
            raise ValueError(f"to_win: {self.to_win} is more than the {self.tokens} tokens a player has")
        unknown = set(self.decks) - set(ANIMAL_DECKS)
        if unknown:
            raise ValueError(f"decks: unknown decks {sorted(unknown)}; decks are {', '.join(ANIMAL_DECKS)}")
        if "rosette" in self.cards.animal_decks:
            raise ValueError("cards.animal_decks: the Rosette deck is shared, not a seat's animal deck")
        if self.cards.enabled:
            if "rosette" not in self.decks:
                raise ValueError("decks: no 'rosette' deck (cards need the shared Rosette deck)")
            for name in self.cards.animal_decks:
                if name not in self.decks:
                    raise ValueError(f"cards.animal_decks: no deck {name!r}; decks are {', '.join(sorted(self.decks))}")
            need = self.cards.discard_at_setup + 2 * self.cards.piles
            for name in self.cards.animal_decks:
                if len(self.decks[name].cards) < need:
                    raise ValueError(f"decks.{name}: {len(self.decks[name].cards)} cards, setup needs {need}")
            if len(self.decks["rosette"].cards) < 2 * self.cards.rosette_draw:
                raise ValueError("decks.rosette: too few cards for both players' Rosette draw")
            if self.default_deck != "random" and self.default_deck not in self.cards.animal_decks:
                raise ValueError(f"default_deck: {self.default_deck!r} is not 'random' or one of cards.animal_decks")
            if self.default_deck == "random" and len(set(self.cards.animal_decks)) < 2:
                raise ValueError(
                    "default_deck: random deals the two seats different decks (the game has one copy "
                    "of each deck), so cards.animal_decks needs at least 2 decks; or name the deck"
                )
        lo, hi = self.board.centre
        top = self.max_roll
        for name, deck in self.decks.items():
            for i, card in enumerate(deck.cards):
                when, value = card.trigger.when, card.trigger.value
                if when in ("own_roll", "opponent_roll") and value is not None and value > top:
                    raise ValueError(
                        f"decks.{name}.cards.{i}.trigger.value: {when} {value} can never happen: "
                        f"no roll exceeds {top} with this variant's dice (card {card.name!r})"
                    )
                if when == "land_tile" and value is not None and not 1 <= value <= 14:
                    raise ValueError(
                        f"decks.{name}.cards.{i}.trigger.value: land_tile names a tile, 1 to 14 (card {card.name!r})"
                    )
                if card.effect.do == "attack" and any(not lo <= t <= hi for t in card.effect.tiles):
                    raise ValueError(
                        f"decks.{name}.cards.{i}.effect.tiles: attacks name centre tiles ({lo}-{hi}), "
                        "the only tiles an opponent's token can be on"
                    )
        bad = set(self.agents.card_priority) - set(EFFECTS)
        if bad:
            raise ValueError(f"agents.card_priority: unknown effects {sorted(bad)}; effects are {', '.join(EFFECTS)}")
        return self

    @property
    def max_roll(self) -> int:
        """The highest roll any player can make: the most dice anyone can roll (``dice``, a deck's
        ``dice_while_in_play``, a ``dice`` card), and a roll set by a card when such rolls fire roll
        cards (``cards.forced_rolls_trigger``)."""
        top = self.dice
        for deck in self.decks.values():
            top = max(top, deck.dice_while_in_play or 0)
            for card in deck.cards:
                if card.effect.do == "dice" or (
                    self.cards.forced_rolls_trigger and card.effect.do in ("set_next_roll", "set_opponent_next_roll")
                ):
                    top = max(top, card.effect.value)
        return top
