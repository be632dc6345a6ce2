"""Urban Sketchers final scoring (End of the Game and Determine Victory, steps 1-5) and the tie-breaker.

Readable reference code: it runs once per game, so it need not be fast.
"""

from __future__ import annotations

from .rules import R_MONEY, Rules, State, book_money

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


def final_components(s: State) -> dict[str, list[int]]:
    """Per-seat points by component (:data:`COMPONENTS`) at the end of the game. Unpublished
    sketchbooks are discarded for money as if published (step 1) before the leftovers count."""
    r: Rules = s.rules
    n = r.n
    themes = [[s.th_up[p][t] + s.th_down[p][t] for t in range(4)] for p in range(n)]
    sets = [min(themes[p]) * r.set_points for p in range(n)]
    maj = [0] * n
    for t in range(4):
        for p, v in enumerate(majority_points([themes[q][t] for q in range(n)], r.majority, r.majority_needs_tiles)):
            maj[p] += v
    prestige = [r.prestige_points[s.prestige[p]] for p in range(n)]
    leftovers = []
    for p in range(n):
        money = s.money[p] + unpublished_money(s, p)
        leftovers.append((money + len(s.bp[p])) // r.per_money)
    return {"publishing": list(s.vp), "sets": sets, "majorities": maj, "prestige": prestige, "leftovers": leftovers}


def unpublished_money(s: State, p: int) -> int:
    """Final scoring 1: the money p's unpublished sketchbooks give as if published: their cards' and
    bonus tiles' money, no track rewards (``final_scoring.unpublished_money: sketchbook_money_only``,
    assumed); under ``with_track_money`` also ``reward_money`` for each money space of the Published
    sketchbooks track they would reach, one space per sketchbook in sketchbook order (no other reward:
    step 1 gives money only)."""
    r = s.rules
    money = 0
    pubs = s.pubs[p]
    for b in range(r.books):
        if s.books[p][b]:
            money += book_money(r, s.books[p][b], s.btiles[p][b])[1]
            pubs += 1
            if r.unpublished_track and pubs < len(r.published_reward) and r.published_reward[pubs] == R_MONEY:
                money += r.reward_money
    return money


def tiebreak(s: State) -> list[tuple[int, ...]]:
    """The tie-breaker: most theme tiles (face up and flipped), per seat; players equal on it too
    share the victory (``final_scoring.tie: shared``, assumed) or, under ``later_seat``, the one
    latest in turn order wins (the seat index is a second key)."""
    if s.rules.tie_later_seat:
        return [(sum(s.th_up[p]) + sum(s.th_down[p]), p) for p in range(s.rules.n)]
    return [(sum(s.th_up[p]) + sum(s.th_down[p]),) for p in range(s.rules.n)]


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
