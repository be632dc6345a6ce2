"""Urban Sketchers' readable final scoring (End of the Game and Determine Victory, steps 1-5) and the
tie-breaker over a reference :class:`.rules.State`: the tests' oracle of the compiled
``fast.final_components`` and ``fast.theme_tiles``. A theme's majority points and the score of
hand-typed holdings (``balancer score``) are the package's (:mod:`balancer.games.urban_sketchers.scoring`),
re-exported here."""

from __future__ import annotations

from balancer.games.urban_sketchers.scoring import COMPONENTS, majority_points

from .rules import R_MONEY, Rules, State, book_money

__all__ = ["COMPONENTS", "majority_points", "final_components", "unpublished_money", "tiebreak"]


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
