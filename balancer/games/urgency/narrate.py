"""Urgency transcript text: the words for decisions and for the events the rules record.

The compiled rules record what happens between decisions in an event log when a transcript asks
for it (:func:`~.rules.log_event`: turn starts, rolls, passes, card activations with what they did,
tokens removed, roll agains); :class:`Narrator` turns those events into transcript lines, so every
card effect and capture is narrated where it happens.
"""

from __future__ import annotations

from .config import ANIMAL_DECKS, Card, UrgencyConfig
from .rules import (
    K_DISCARD,
    K_PILE,
    K_PLAY,
    K_QUEUE,
    K_ROSETTE,
    LG_AGAIN,
    LG_CARD,
    LG_IN_PLAY,
    LG_NO_MOVE,
    LG_REMOVED,
    LG_ROLL,
    LG_STOP,
    LG_TURN,
    MOVE,
    PICK,
    ROLL,
    SCORED_TILE,
)

_WHEN = {
    "own_roll": "on their roll{of}",
    "opponent_roll": "on the opponent's roll{of}",
    "land_tile": "landing on tile {v}",
    "land_rosette": "landing on a rosette",
    "land_centre": "landing in the centre row",
    "capture": "on their capture",
    "captured": "when a token of theirs is removed",
    "score": "on their score",
    "opponent_score": "on the opponent's score",
    "turn_start": "at the start of their turn",
    "instead_of_roll": "instead of rolling",
    "always": "always",
}

_PICK = {
    K_ROSETTE: "keeps the Rosette card {card} (the other Rosette card leaves the game)",
    K_PILE: "puts {card} into play from their next pile (the other card goes to their discard pile)",
    K_DISCARD: "puts {card} into play from their discard pile (their final card)",
    K_QUEUE: "sets {card} next in the order their cards come into play",
    K_PLAY: "puts {card} into play",
}


def cards_of(cfg: UrgencyConfig) -> list[tuple[str, Card]]:
    """Card id -> ("Deck: name", card), ids in deck order as :func:`~.rules.compile_rules` numbers them."""
    out = []
    for deck in ANIMAL_DECKS:
        spec = cfg.decks.get(deck)
        out += [(f"{deck.title()}: {c.name}", c) for c in (spec.cards if spec else [])]
    return out


def _token(which: str, seat: int) -> str:
    return f"seat {seat + 1}'s {which} token"


def card_effect(card: Card, p: int, a: int, b: int) -> str:
    """What card ``card`` of seat ``p`` (0-based) did, from the event numbers ``a``, ``b`` that
    :func:`~.rules.apply_effect` records for its effect."""
    e, o = card.effect, 1 - p
    do = e.do
    if do == "roll_again":
        return "roll again" if a else "no effect (a roll again counts only on its owner's turn)"
    if do == "set_next_roll":
        return f"sets seat {p + 1}'s next roll to {a}"
    if do == "set_opponent_next_roll":
        return f"sets seat {o + 1}'s next roll to {a}"
    if do == "change_roll":
        return f"changes the roll from {a - 1} to {b}" if a else "no effect (no roll to change)"
    if do == "extra_move":
        if a == 0:
            return f"no effect (seat {p + 1} has no token on the board)"
        if b == 0 or b == a:
            return f"no effect ({_token(e.target, p)}, on tile {a}, cannot move {e.value:+d})"
        return f"extra move: {_token(e.target, p)} moves from tile {a} " + (
            "and scores" if b == SCORED_TILE else f"to tile {b}"
        )
    if do == "attack":
        tiles = ", ".join(map(str, e.tiles))
        return f"attacks tile(s) {tiles}" + ("" if a else f": no seat {o + 1} token there that is not safe")
    if do == "move_opponent":
        if a == 0:
            return f"no effect (seat {o + 1} has no token on the board)"
        if b == a:
            return f"no effect ({_token(e.target, o)}, on tile {a}, has no free tile to move to)"
        return f"moves {_token(e.target, o)} from tile {a} to tile {b}"
    if do == "reenter":
        return (
            f"enters a token from seat {p + 1}'s supply onto tile {a}"
            if a
            else f"no effect (no token in the supply, or tile {e.value} taken)"
        )
    return do  # dice, safe_tiles: always-on effects, never fired


def card_line(cfg_cards: list[tuple[str, Card]], p: int, c: int, a: int, b: int) -> str:
    """``Deck: Name (seat 1's card, on the opponent's roll of 4): sets seat 1's next roll to 4``."""
    name, card = cfg_cards[c]
    v = card.trigger.value
    when = _WHEN[card.trigger.when].format(of="" if v is None else f" of {v}", v=v)
    return f"{name} (seat {p + 1}'s card, {when}): {card_effect(card, p, a, b)}"


class Narrator:
    """Transcript lines for decisions and recorded events. Turns are numbered for the whole game
    (seat 1 plays the odd turns, seat 2 the even ones; a roll again stays in its turn); a decision
    made during another seat's turn (a card chosen when the opponent scores) carries that turn's number."""

    INDENT = "      "

    def __init__(self, cfg: UrgencyConfig):
        self.cards = cards_of(cfg)
        self.lines: list[str] = []
        self.turn = 0
        self.pending: str | None = None  # a roll not yet followed by the move it allows
        self.attacker = -1  # seat whose card attack is removing tokens (-1: none)

    def head(self, seat: int) -> str:
        return f"  turn {self.turn:3d} seat {seat + 1}: "

    def flush(self) -> None:
        if self.pending is not None:
            self.lines.append(self.pending)
            self.pending = None

    def events(self, events: list[tuple[int, int, int, int, int]], lost: int = 0) -> None:
        """Narrate recorded events, in order; ``lost``: events the log had no room for."""
        for kind, p, c, a, b in events:
            if kind != LG_REMOVED:
                self.attacker = -1
            if kind == LG_TURN:
                self.flush()
                self.turn += 1
            elif kind == LG_ROLL:
                self.flush()
                self.pending = self.head(p) + f"rolls {a}" + (" (set by a card: no dice rolled)" if b else "")
            elif kind == LG_NO_MOVE:
                why = "a roll of 0 moves nothing" if a == 0 else f"no token can move {a}"
                line = (
                    f"{self.pending}: no move"
                    if self.pending is not None
                    else self.head(p) + f"no move with the roll of {a}"
                )
                self.pending = None
                self.lines.append(f"{line} ({why})")
            elif kind == LG_CARD:
                self.flush()
                self.lines.append(self.INDENT + card_line(self.cards, p, c, a, b))
                if self.cards[c][1].effect.do == "attack":
                    self.attacker = p
            elif kind == LG_REMOVED:
                self.flush()
                verb = "removes" if self.attacker >= 0 else "captures"
                self.lines.append(
                    self.INDENT + f"seat {2 - p} {verb} seat {p + 1}'s token on tile {a}, which returns to their supply"
                )
            elif kind == LG_AGAIN:
                self.flush()
                why = f"landed on the rosette on tile {a}" if a else "a card"
                self.lines.append(self.INDENT + f"seat {p + 1} rolls again ({why})")
            elif kind == LG_IN_PLAY:
                self.flush()
                self.lines.append(
                    self.INDENT + f"seat {p + 1}'s card {self.cards[c][0]} comes into play (next in their order)"
                )
            elif kind == LG_STOP:
                self.flush()
                self.lines.append(f"  the game stops after {self.turn} turns (cards.max_turns)")
        if lost:
            self.flush()
            self.lines.append(self.INDENT + f"({lost} more events not recorded: the event log is full)")

    def decision(self, seat: int, kind: int, arg: int, roll: int, pick_kind: int) -> None:
        """The line of a decision (before it is applied): ``roll`` the current roll, ``pick_kind`` the
        kind of card choice (K_*) when ``kind`` is PICK."""
        if kind == MOVE and self.pending is not None:
            line, self.pending = f"{self.pending}, {move_words(arg, roll)}", None
            self.lines.append(line)
            return
        self.flush()
        self.lines.append(
            self.head(seat) + describe_decision([name for name, _ in self.cards], kind, arg, roll, pick_kind)
        )


def move_words(arg: int, roll: int) -> str:
    """ "enters a token and scores it", "moves the token on tile 5 to tile 8": a token move by ``roll``
    from tile ``arg`` (0 = the supply)."""
    t = arg + roll
    what = "enters a token" if arg == 0 else f"moves the token on tile {arg}"
    where = "and scores it" if t == SCORED_TILE else f"to tile {t}"
    return f"{what} {where}"


def describe_decision(names: list[str], kind: int, arg: int, roll: int, pick_kind: int) -> str:
    """The words of one decision (kind, arg) before it is applied, without the seat: ``names`` the card
    names by id, ``roll`` the current roll, ``pick_kind`` the kind of card choice (K_*) for a PICK."""
    if kind == MOVE:
        return f"with the roll of {roll}, {move_words(arg, roll)}"
    if kind == PICK:
        return _PICK[pick_kind].format(card=names[arg])
    if kind == ROLL:
        return "rolls rather than trigger a card"
    return f"triggers {names[arg]} instead of rolling"
