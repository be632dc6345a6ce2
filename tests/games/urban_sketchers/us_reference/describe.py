"""The readable transcript line of a decision on a reference state: the oracle of the compiled
describer (``balancer.games.urban_sketchers.kernel.describe``)."""

from __future__ import annotations

from balancer.games.urban_sketchers.config import ACTIONS, COLOURS, UrbanSketchersConfig, bonus_kind_names
from balancer.games.urban_sketchers.kernel import IMPROVEMENT_NAMES

from .rules import (
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
    Move,
    State,
)


def describe(state: State, move: Move, cfg: UrbanSketchersConfig) -> str:
    """One line of a transcript for reference decision ``move`` (before it is applied) in reference
    state ``state``, in the YAML's names: cards by their ``id``, bonus tiles by their
    ``bonus_tiles.mix`` kind, money amounts of the variant."""
    kind, a, b, c = move
    res, themes = cfg.resources.names, cfg.themes.names
    p = state.seat

    def card(index: int) -> str:
        return f"card {cfg.cards.deck[index].id}"

    if kind == K_PLACE:
        action, arg = divmod(b, 8)
        colour = (*COLOURS, "white")[state.dcol[a]]
        text = f"places the {colour} {state.dice[a]} on {ACTIONS[action]}"
        if action == 2:
            text += f" (sketchbook {arg + 1}, {len(state.books[p][arg])} cards)"
        elif action == 4:
            text += f" (space {arg + 1}, tile {state.sup_tile[arg]})"
        return text + (", flipping Opportunist" if c else "")
    if kind == K_SKETCH:
        eff = f", Efficient off {res[c // 4]} and {res[c % 4]}" if c >= 0 else ""
        return f"sketches {card(a)} into sketchbook {b + 1}{eff}"
    texts = {
        K_SETUP_DISCARD: lambda: f"discards {card(a)} for its resources",
        K_SETUP_DONE: lambda: "keeps the rest of the hand",
        K_THEME_PAIR: lambda: (
            f"flips a theme pair for {cfg.sketch.money_instead_of_bonus} money instead of a bonus tile"
            if state.rules.pairs[a][2] == 1 and b < 0
            else f"flips a theme pair for {('an unflip', 'a bonus tile', 'a Prestige space')[state.rules.pairs[a][2]]}"
        ),
        K_PASS: lambda: "has no die to place and passes",
        K_STEP: lambda: f"steps to space {a + 1}",
        K_PICK: lambda: f"picks up {card(state.board[state.pos[p]])}",
        K_WANDER: lambda: f"flips Wanderer to space {a + 1}",
        K_END: lambda: "ends the action",
        K_BONUS: lambda: (
            f"takes bonus tile {bonus_kind_names(cfg)[state.rules.tile_kind[state.display[a]]]} into sketchbook {b + 1}"
        ),
        K_BONUS_MONEY: lambda: f"takes {cfg.sketch.money_instead_of_bonus} money instead of a bonus tile",
        K_FUND: lambda: f"takes funding, flipping {a} theme tile(s)",
        K_RESOURCE: lambda: f"takes {res[a]}",
        K_EXTRA_THEME: lambda: f"takes the extra theme tile {themes[a]}",
        K_UNFLIP: lambda: f"unflips {('Wanderer', 'Efficient', 'Opportunist')[a]}",
        K_IMPROVE: lambda: (
            f"{('takes', 'flips to advanced', 'takes advanced')[b]} the {IMPROVEMENT_NAMES[a]} improvement"
        ),
        K_IMPROVE_MONEY: lambda: f"takes {cfg.tracks.improvement_money} money instead of an improvement",
    }
    return texts[kind]()
