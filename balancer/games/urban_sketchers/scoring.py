"""Urban Sketchers' score components and the final scoring of hand-typed end-of-game holdings
(``balancer score``: End of the Game 2-5, :func:`score_position`), readable code over the variant's
:class:`.rules.Rules`. A game's own final scoring is compiled (``fast.final_components``,
``fast.theme_tiles``); its readable oracle over a reference state lives in the tests
(``tests/games/urban_sketchers/us_reference/scoring.py``).
"""

from __future__ import annotations

from .rules import Rules

COMPONENTS: tuple[str, ...] = ("publishing", "sets", "majorities", "prestige", "leftovers")
"""Score components per seat: publishing (Publish step 1), sets of four themes (2), theme majorities
(3), the Prestige track (4), 1 point per 5 money and resources left (5)."""


def majority_points(counts: list[int], values: tuple[int, ...], needs_tiles: bool = True) -> list[int]:
    """Points of one theme's majority (final scoring 3) for each player's tile count.

    Players are ranked by count; tied players share the values of the places they occupy, summed
    and divided evenly, rounded down; places past the last value are worth 0. With ``needs_tiles``
    a player without a tile of the theme takes no place.

    >>> majority_points([3, 3, 1], (9, 5, 2))    # two tie for first: (9+5)//2 each, the next 2
    [7, 7, 2]
    >>> majority_points([2, 2, 2, 1], (9, 5, 2)) # three-way tie: (9+5+2)//3, nothing else
    [5, 5, 5, 0]
    """
    order = sorted((c for c in counts if c > 0 or not needs_tiles), reverse=True)
    out = []
    for c in counts:
        if needs_tiles and c <= 0:
            out.append(0)
            continue
        place = order.index(c)
        tied = order.count(c)
        out.append(sum(values[place : place + tied]) // tied)
    return out


POSITION_KEYS: tuple[str, ...] = ("vp", "prestige", "money", "resources", "themes")


def parse_position(text: str, n_themes: int = 4) -> list[dict[str, list[int] | int]]:
    """End-of-game holdings for ``balancer score``: one line per player, in seat order, of
    ``key=value`` words: ``vp`` (points from publishing), ``prestige`` (space), ``money`` (with
    unpublished sketchbooks' money), ``resources`` (count), ``themes`` (tiles per theme, comma
    separated, in the config's theme order). Blank lines and ``#`` comments are skipped.

    >>> parse_position("vp=16 prestige=3 money=12 resources=3 themes=2,1,1,1")[0]["themes"]
    [2, 1, 1, 1]

    Raises ValueError naming the line for an unknown or missing key or a bad number.
    """
    players = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        entry: dict[str, list[int] | int] = {}
        for word in line.split():
            key, sep, value = word.partition("=")
            if not sep or key not in POSITION_KEYS:
                raise ValueError(f"line {lineno}: {word!r} is not one of {', '.join(k + '=' for k in POSITION_KEYS)}")
            try:
                if key == "themes":
                    counts = [int(x) for x in value.split(",")]
                    if len(counts) != n_themes:
                        raise ValueError
                    entry[key] = counts
                else:
                    entry[key] = int(value)
            except ValueError:
                want = f"{n_themes} whole numbers separated by commas" if key == "themes" else "a whole number"
                raise ValueError(f"line {lineno}: {key}= needs {want}, got {value!r}") from None
            given = entry[key]
            if min(given) < 0 if isinstance(given, list) else given < 0:
                raise ValueError(f"line {lineno}: {key}= must be 0 or more")
        missing = [k for k in POSITION_KEYS if k not in entry]
        if missing:
            raise ValueError(f"line {lineno}: missing {', '.join(k + '=' for k in missing)}")
        players.append(entry)
    if not players:
        raise ValueError("no player lines")
    return players


def score_position(rules: Rules, players: list[dict]) -> dict[str, int]:
    """Final scoring (End of the Game 2-5) of :func:`parse_position` holdings, as
    ``seat_<s>_<component>`` and ``seat_<s>_total`` points. Raises ValueError for a Prestige space
    off the track."""
    last = len(rules.prestige_points) - 1
    n = len(players)
    themes = [p["themes"] for p in players]
    out: dict[str, int] = {}
    maj = [0] * n
    for t in range(4):
        for s, v in enumerate(
            majority_points([themes[q][t] for q in range(n)], rules.majority, rules.majority_needs_tiles)
        ):
            maj[s] += v
    for s, p in enumerate(players):
        if not 0 <= p["prestige"] <= last:
            raise ValueError(f"line for seat {s + 1}: prestige= must be a space 0-{last}")
        comps = {
            "publishing": p["vp"],
            "sets": min(p["themes"]) * rules.set_points,
            "majorities": maj[s],
            "prestige": rules.prestige_points[p["prestige"]],
            "leftovers": (p["money"] + p["resources"]) // rules.per_money,
        }
        for k, v in comps.items():
            out[f"seat_{s + 1}_{k}"] = v
        out[f"seat_{s + 1}_total"] = sum(comps.values())
    return out
