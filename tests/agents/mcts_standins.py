"""Stand-in games for the MCTS tests and benchmark, each a compiled interface that follows
``balancer/core/kernel.py`` exactly (a :class:`~balancer.core.kernel.Kernel` of nine dispatchers and
an :class:`~balancer.core.kernel.Engine`), small enough that the right decision is known by hand.

- :func:`nim_engine`: Nim for 1-5 players (take 1..``max_take`` stones, taking the last one wins):
  perfect information, no chance.
- :func:`tree_engine`: any explicit game tree (decision nodes of any seat, chance nodes, leaves with a
  value per seat, a heuristic per node), for max^n, chance and depth cut-off positions built by hand.
- :func:`cards_engine`: "show or swap", a card game with hidden hands and chance: each player holds
  one hidden card; in seat order each either shows (keeps) or swaps it for a card drawn at random
  from the hidden deck (the old card goes face up to the discards); then the highest card wins.
- :func:`wide_engine`: a solo game of two decisions among ``width`` moves with large codes, for the
  child hash table and progressive widening.

``T`` is an int64 array (a NamedTuple of arrays for the tree); ``S`` one int64 array. The cheap
policy of every stand-in is the uniform random move (one ``rng.random()``), except Nim's, which
plays perfectly (so that a rollout by the policy has a known result).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from balancer.core.game import Outcome
from balancer.core.kernel import Engine, Kernel, ended_by_rules


@nb.njit
def _uniform(out, n, rng):
    return out[min(int(rng.random() * n), n - 1)]


@nb.njit
def _no_hidden(S, T, seat, rng):
    """determinize of a game without hidden information: nothing to resample."""
    return


def _outcome(scores: list[int], turns: list[int]) -> Outcome:
    n = len(scores)
    return Outcome(scores=scores, tiebreak=[(0,)] * n, components={"points": list(scores)}, metrics={}, turns=turns)


# --------------------------------------------------------------------------------------------------
# Nim: T = [n_players, max_take, start_pile]; S = [pile, to_move, decisions, winner]


@nb.njit
def nim_to_move(S, T):
    return S[1]


@nb.njit
def nim_legal(S, T, out):
    n = min(T[1], S[0])
    for k in range(n):
        out[k] = k + 1
    return max(n, 0)


@nb.njit
def nim_apply(S, T, move, rng):
    S[0] -= move
    S[2] += 1
    if S[0] == 0:
        S[3] = S[1]
    else:
        S[1] = (S[1] + 1) % T[0]


@nb.njit
def nim_is_over(S, T):
    return S[0] == 0


@nb.njit
def nim_scores(S, T, out):
    out[:] = 0
    if S[0] == 0:
        out[S[3]] = 1


@nb.njit
def nim_returns(S, T, out):
    out[:] = 0.0
    out[S[3]] = 1.0


@nb.njit
def nim_heuristic(S, T, out):
    """Uninformative: 1/n each before the end (the returns at the end)."""
    if S[0] == 0:
        nim_returns(S, T, out)
    else:
        out[:] = 1.0 / T[0]


@nb.njit
def nim_policy(S, T, out, rng):
    """Perfect play (Bouton): leave a multiple of max_take + 1 when possible, else take 1. With
    this policy a rollout's result is known: the seat to move wins iff the pile is not a multiple
    of max_take + 1 (two players)."""
    k = S[0] % (T[1] + 1)
    return k if k > 0 else 1


NIM_KERNEL = Kernel(
    nim_to_move,
    nim_legal,
    nim_apply,
    nim_is_over,
    nim_scores,
    nim_returns,
    nim_heuristic,
    _no_hidden,
    nim_policy,
    ended_by_rules,
)


@dataclass(frozen=True)
class NimConfig:
    max_take: int = 3
    pile: int = 10


def nim_engine() -> Engine:
    """Nim's engine; ``compile(NimConfig, n)``."""
    return Engine(
        kernel=NIM_KERNEL,
        compile=lambda cfg, n: np.array([n, cfg.max_take, cfg.pile], np.int64),
        new_state=lambda T, rng: np.array([T[2], 0, 0, -1], np.int64),
        n_players=lambda T: int(T[0]),
        max_moves=lambda T: int(T[1]),
        observation=lambda S, T, seat: S.copy(),
        outcome=lambda S, T: _outcome([int(S[3] == s) for s in range(T[0])], [0] * int(T[0])),
        describe_move=lambda S, T, m: f"seat {S[1] + 1} takes {m}",
    )


def nim_state(pile: int, to_move: int = 0) -> np.ndarray:
    """A Nim position: ``pile`` stones, ``to_move`` to play."""
    return np.array([pile, to_move, 0, -1], np.int64)


# --------------------------------------------------------------------------------------------------
# an explicit game tree


class TreeTable(NamedTuple):
    """T of a game tree of N nodes and E edges. kind: 0 decision, 1 chance, 2 leaf; for node i the
    edges first[i] .. first[i] + count[i] - 1 lead to child[e] by move code[e] (probability prob[e]
    at a chance node); value/heur: float64[N, P]."""

    kind: np.ndarray
    seat: np.ndarray
    first: np.ndarray
    count: np.ndarray
    child: np.ndarray
    code: np.ndarray
    prob: np.ndarray
    value: np.ndarray
    heur: np.ndarray


@nb.njit
def _tree_resolve(S, T, rng):
    """Resolve chance nodes from S[0] down to a decision node or a leaf."""
    while T.kind[S[0]] == 1:
        node = S[0]
        x = rng.random()
        e = T.first[node]
        last = e + T.count[node] - 1
        while e < last and x >= T.prob[e]:
            x -= T.prob[e]
            e += 1
        S[0] = T.child[e]


@nb.njit
def tree_to_move(S, T):
    return T.seat[S[0]]


@nb.njit
def tree_legal(S, T, out):
    node = S[0]
    if T.kind[node] != 0:
        return 0
    for i in range(T.count[node]):
        out[i] = T.code[T.first[node] + i]
    return T.count[node]


@nb.njit
def tree_apply(S, T, move, rng):
    node = S[0]
    for e in range(T.first[node], T.first[node] + T.count[node]):
        if T.code[e] == move:
            S[0] = T.child[e]
            break
    S[1] += 1
    _tree_resolve(S, T, rng)


@nb.njit
def tree_is_over(S, T):
    return T.kind[S[0]] == 2


@nb.njit
def tree_scores(S, T, out):
    for s in range(out.shape[0]):
        out[s] = int(round(100 * T.value[S[0], s]))


@nb.njit
def tree_returns(S, T, out):
    for s in range(out.shape[0]):
        out[s] = T.value[S[0], s]


@nb.njit
def tree_heuristic(S, T, out):
    for s in range(out.shape[0]):
        out[s] = T.heur[S[0], s]


@nb.njit
def tree_policy(S, T, out, rng):
    return _uniform(out, tree_legal(S, T, out), rng)


TREE_KERNEL = Kernel(
    tree_to_move,
    tree_legal,
    tree_apply,
    tree_is_over,
    tree_scores,
    tree_returns,
    tree_heuristic,
    _no_hidden,
    tree_policy,
    ended_by_rules,
)


def build_tree(spec: Any, n_players: int) -> tuple[TreeTable, dict[str, int]]:
    """The TreeTable of a nested spec, and the node id of every ``label``.

    A spec is a leaf ``[v_0, ..., v_{P-1}]`` (a list of values per seat), a decision node
    ``{"seat": s, "moves": {code: spec, ...}}``, or a chance node ``{"chance": [(p, spec), ...]}``;
    a dict may also carry ``"h": [...]`` (its heuristic; default 1/P each, a leaf's own values) and
    ``"label": name``. Node 0 is the root.
    """
    kind, seat, first, count, value, heur = [], [], [], [], [], []
    child, code, prob = [], [], []
    labels: dict[str, int] = {}
    flat = [1.0 / n_players] * n_players

    def add(node: Any) -> int:
        i = len(kind)
        if isinstance(node, list):
            kind.append(2), seat.append(0), first.append(0), count.append(0)
            value.append(list(node)), heur.append(list(node))
            return i
        if "chance" in node:
            edges = [(j, p, sub) for j, (p, sub) in enumerate(node["chance"])]
            kind.append(1), seat.append(0)
        else:
            edges = [(m, 1.0, sub) for m, sub in node["moves"].items()]
            kind.append(0), seat.append(node["seat"])
        first.append(0), count.append(len(edges)), value.append(flat), heur.append(list(node.get("h", flat)))
        if "label" in node:
            labels[node["label"]] = i
        kids = [(m, p, add(sub)) for m, p, sub in edges]
        first[i] = len(child)
        for m, p, k in kids:
            child.append(k), code.append(m), prob.append(p)
        return i

    add(spec)
    i64 = lambda x: np.array(x, np.int64)  # noqa: E731
    table = TreeTable(
        kind=i64(kind),
        seat=i64(seat),
        first=i64(first),
        count=i64(count),
        child=i64(child or [0]),
        code=i64(code or [0]),
        prob=np.array(prob if prob else [0.0], np.float64),
        value=np.array(value, np.float64),
        heur=np.array(heur, np.float64),
    )
    return table, labels


def tree_engine() -> Engine:
    """The engine of explicit trees; ``compile((spec, n_players), n)``."""
    return Engine(
        kernel=TREE_KERNEL,
        compile=lambda cfg, n: build_tree(cfg, n)[0],
        new_state=tree_new_state,
        n_players=lambda T: int(T.value.shape[1]),
        max_moves=lambda T: max(1, int(T.count.max())),
        observation=lambda S, T, seat: S.copy(),
        outcome=lambda S, T: _outcome([int(round(100 * v)) for v in T.value[S[0]]], [0] * T.value.shape[1]),
        describe_move=lambda S, T, m: f"move {m}",
    )


def tree_new_state(T: TreeTable, rng: np.random.Generator, node: int = 0) -> np.ndarray:
    """A tree position at ``node`` (chance below it resolved with ``rng``): S = [node, decisions]."""
    S = np.array([node, 0], np.int64)
    _tree_resolve(S, T, rng)
    return S


# --------------------------------------------------------------------------------------------------
# show or swap: T = [n_players, n_cards];
# S = [to_move, done, hand[P], discard[P] (-1: kept), n_deck, deck[C]]


@nb.njit
def _hand(T, s):
    return 2 + s


@nb.njit
def _discard(T, s):
    return 2 + T[0] + s


@nb.njit
def _n_deck(T):
    return 2 + 2 * T[0]


@nb.njit
def cards_to_move(S, T):
    return S[0]


@nb.njit
def cards_legal(S, T, out):
    """0 = show (keep the card), 1 = swap (when the deck is not empty)."""
    if S[1] == 1:
        return 0
    out[0] = 0
    if S[_n_deck(T)] == 0:
        return 1
    out[1] = 1
    return 2


@nb.njit
def cards_apply(S, T, move, rng):
    """Swap: the seat's card goes face up to its discard, a card drawn at random (``rng``) from the
    deck replaces it; the deck's last card fills the gap."""
    seat = S[0]
    if move == 1:
        nd = _n_deck(T)
        k = S[nd]
        j = min(int(rng.random() * k), k - 1)
        S[_discard(T, seat)] = S[_hand(T, seat)]
        S[_hand(T, seat)] = S[nd + 1 + j]
        S[nd + 1 + j] = S[nd + k]
        S[nd + k] = -1
        S[nd] = k - 1
    if seat == T[0] - 1:
        S[1] = 1
    else:
        S[0] = seat + 1


@nb.njit
def cards_is_over(S, T):
    return S[1] == 1


@nb.njit
def cards_scores(S, T, out):
    for s in range(T[0]):
        out[s] = S[_hand(T, s)]


@nb.njit
def cards_returns(S, T, out):
    """1 to the seat holding the highest card (cards are distinct), 0 to the others."""
    best = 0
    for s in range(T[0]):
        if S[_hand(T, s)] > S[_hand(T, best)]:
            best = s
    out[:] = 0.0
    out[best] = 1.0


@nb.njit
def cards_heuristic(S, T, out):
    if S[1] == 1:
        cards_returns(S, T, out)
    else:
        out[:] = 1.0 / T[0]


@nb.njit
def cards_determinize(S, T, seat, rng):
    """Deal the cards ``seat`` cannot see (the others' hands and the deck) again at random: pooled,
    sorted (so that two states with the same observation give the same deal), shuffled with ``rng``
    (Fisher-Yates), then dealt to the other seats in order and the rest to the deck."""
    n = T[0]
    nd = _n_deck(T)
    k = S[nd]
    pool = np.empty(n - 1 + k, np.int64)
    j = 0
    for s in range(n):
        if s != seat:
            pool[j] = S[_hand(T, s)]
            j += 1
    for i in range(k):
        pool[j] = S[nd + 1 + i]
        j += 1
    pool.sort()
    for i in range(pool.shape[0] - 1, 0, -1):
        r = min(int(rng.random() * (i + 1)), i)
        pool[i], pool[r] = pool[r], pool[i]
    j = 0
    for s in range(n):
        if s != seat:
            S[_hand(T, s)] = pool[j]
            j += 1
    for i in range(k):
        S[nd + 1 + i] = pool[j]
        j += 1


@nb.njit
def cards_policy(S, T, out, rng):
    return _uniform(out, cards_legal(S, T, out), rng)


CARDS_KERNEL = Kernel(
    cards_to_move,
    cards_legal,
    cards_apply,
    cards_is_over,
    cards_scores,
    cards_returns,
    cards_heuristic,
    cards_determinize,
    cards_policy,
    ended_by_rules,
)


def cards_state(T: np.ndarray, hands: list[int], to_move: int = 0, discards: list[int] | None = None) -> np.ndarray:
    """A show-or-swap position: ``hands`` per seat, the other cards in the deck (ascending)."""
    n, c = int(T[0]), int(T[1])
    discards = discards if discards is not None else [-1] * n
    used = set(hands) | {d for d in discards if d >= 0}
    deck = [x for x in range(c) if x not in used]
    S = np.full(2 + 2 * n + 1 + c, -1, np.int64)
    S[0], S[1] = to_move, 0
    S[2 : 2 + n] = hands
    S[2 + n : 2 + 2 * n] = discards
    S[2 + 2 * n] = len(deck)
    S[3 + 2 * n : 3 + 2 * n + len(deck)] = deck
    return S


def cards_new_state(T: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A deal: the cards shuffled with ``rng``, one to each seat in order, the rest to the deck."""
    n, c = int(T[0]), int(T[1])
    order = rng.permutation(c)
    S = cards_state(T, [int(x) for x in order[:n]])
    S[3 + 2 * n : 3 + 2 * n + c - n] = order[n:]
    return S


def cards_observation(S: np.ndarray, T: np.ndarray, seat: int) -> np.ndarray:
    """What ``seat`` sees: whose turn, over or not, its own card, every discard, the deck's size."""
    n = int(T[0])
    return np.array([S[0], S[1], S[2 + seat], *S[2 + n : 2 + 2 * n], S[2 + 2 * n]], np.int64)


def cards_engine() -> Engine:
    """Show or swap's engine; ``compile(n_cards, n)``."""
    return Engine(
        kernel=CARDS_KERNEL,
        compile=lambda cfg, n: np.array([n, int(cfg)], np.int64),
        new_state=cards_new_state,
        n_players=lambda T: int(T[0]),
        max_moves=lambda T: 2,
        observation=cards_observation,
        outcome=lambda S, T: _outcome([int(S[2 + s]) for s in range(T[0])], [1] * int(T[0])),
        describe_move=lambda S, T, m: f"seat {S[0] + 1} {'swaps' if m else 'shows'}",
    )


# --------------------------------------------------------------------------------------------------
# wide: solo, two decisions among `width` moves with codes i * stride + offset;
# T = [width, good_1, good_2, stride, offset]; S = [decisions, pick_1, pick_2]


@nb.njit
def wide_to_move(S, T):
    return 0


@nb.njit
def wide_legal(S, T, out):
    if S[0] >= 2:
        return 0
    for i in range(T[0]):
        out[i] = i * T[3] + T[4]
    return T[0]


@nb.njit
def wide_apply(S, T, move, rng):
    S[1 + S[0]] = (move - T[4]) // T[3]
    S[0] += 1


@nb.njit
def wide_is_over(S, T):
    return S[0] >= 2


@nb.njit
def wide_scores(S, T, out):
    out[0] = int(S[0] >= 1 and S[1] == T[1]) + int(S[0] >= 2 and S[2] == T[2])


@nb.njit
def wide_returns(S, T, out):
    """0.9 for the good first pick plus 0.1 for the good second pick."""
    out[0] = 0.9 * (S[1] == T[1]) + 0.1 * (S[2] == T[2])


@nb.njit
def wide_heuristic(S, T, out):
    if S[0] >= 2:
        wide_returns(S, T, out)
    else:
        out[0] = 0.5


@nb.njit
def wide_policy(S, T, out, rng):
    return _uniform(out, wide_legal(S, T, out), rng)


WIDE_KERNEL = Kernel(
    wide_to_move,
    wide_legal,
    wide_apply,
    wide_is_over,
    wide_scores,
    wide_returns,
    wide_heuristic,
    _no_hidden,
    wide_policy,
    ended_by_rules,
)


@nb.njit
def wide_move_scores(S, T, moves, n, out):
    """The wide game's knowledge: 1 for the good pick of this decision, 0 for every other."""
    good = T[1] if S[0] == 0 else T[2]
    for i in range(n):
        out[i] = 1.0 if (moves[i] - T[4]) // T[3] == good else 0.0


WIDE_KNOWING_KERNEL = WIDE_KERNEL._replace(move_scores=wide_move_scores)


def wide_engine(knowing: bool = False) -> Engine:
    """The wide game's engine; ``compile((width, good_1, good_2, stride, offset), 1)``. ``knowing``:
    with move scores that point at the good picks (:func:`wide_move_scores`), else none."""
    return Engine(
        kernel=WIDE_KNOWING_KERNEL if knowing else WIDE_KERNEL,
        compile=lambda cfg, n: np.array(cfg, np.int64),
        new_state=lambda T, rng: np.array([0, -1, -1], np.int64),
        n_players=lambda T: 1,
        max_moves=lambda T: int(T[0]),
        observation=lambda S, T, seat: S.copy(),
        outcome=lambda S, T: _outcome([int(S[1] == T[1]) + int(S[2] == T[2])], [2]),
        describe_move=lambda S, T, m: f"pick {m}",
    )
