"""Properties of whole Citywright games (hypothesis over seeds, player counts, agent mixes and both
rule versions): every game ends, everyone gets their turns, tiles are conserved, charcoal never
erases, win shares sum to 1, games are reproducible, discarded-for-tile rulers stay out.

Games are stepped decision by decision through the public API (``new_game``/``apply``) so that
invariants can be checked after every turn; agents are the game's own plus a test policy that discards
corner rulers for tiles whenever it can (to exercise §9.2, which the built-in agents rarely choose).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import balancer.games.citywright as cw
from balancer.core import protocol
from balancer.core.game import ranks_and_win_shares
from balancer.core.seeding import game_rngs
from balancer.games.citywright.kernel import D4T0, DRAFT, PLACE0, turn_array
from balancer.games.citywright.rules import DISCARD_FOR_TILE, FORCED, G_PHASE, PLACE

AGENTS = ["random", "greedy", "residential", "commercial", "park", "industrial"]
SETTINGS = settings(max_examples=50, deadline=None)


def expected_turns(version: str, n: int) -> int:
    # §4.1 everyone takes 12 turns (§9.1 2p 3 x 4, §10.1 solo 3 x 4, 3-4p 4 x 3);
    # appendix: v1.0 two players played 4 rounds of 4 turns = 16.
    return 16 if (version, n) == ("v1.0", 2) else 12


class DiscardForTile:
    """Test policy: draft a corner ruler and discard it for a random tile on a random empty cell
    whenever §9.2 allows it (with probability 0.7), else play like the random agent."""

    name = "d4t"

    def __init__(self, cfg):
        self.fallback = cw.make_agent(cfg, "random")
        self.discarding = False

    def choose(self, game: cw.Game, seat: int, rng: np.random.Generator) -> int:
        moves = protocol.legal_moves(game)
        if game.S[G_PHASE] == DRAFT:
            corners = [s for s in range(16, 20) if s in moves]
            self.discarding = bool(
                game.rules.discard_for_tile and corners and (game.state.tables[seat] == 0).any() and rng.random() < 0.7
            )
            if self.discarding:
                return int(rng.choice(corners))
        elif self.discarding:
            self.discarding = False
            d4t = [m for m in moves if D4T0 <= m < PLACE0]
            return int(rng.choice(d4t))
        return self.fallback.choose(game, seat, rng)


@dataclass
class Played:
    game: cw.Game
    moves: int = 0
    overwritten: list = field(default_factory=list)  # (move number, seat, cell) of every erased cell
    d4t_gone: Counter = field(default_factory=Counter)  # shapes discarded for a tile (§9.2)
    five_cell_leaks: list = field(default_factory=list)  # moves after which the five-cell cards did not add up
    kinds: Counter = field(default_factory=Counter)


def five_cell_cards(game: cw.Game) -> Counter:
    """The five-cell cards still in the game: draw and discard piles and the rulers dealt this round,
    taken or not, except those discarded for a tile."""
    s = game.state
    cards = Counter(int(x) for x in s.piles[2, : s.pile_n[2]])
    cards += Counter(int(x) for x in s.piles[3, : s.pile_n[3]])
    cards += Counter(int(s.dealt[k]) for k in range(16, 20) if s.dealt[k] >= 0 and not s.gone[k])
    return cards


def play(cfg, agents: list, seed: int, agent_seed: int) -> Played:
    """Step one game to its end, checking legality of every decision and the invariants after
    every turn (``moves`` counts turns)."""
    n = len(agents)
    game = cw.new_game(cfg, n, seed)
    rng = np.random.default_rng(agent_seed)
    deck5 = Counter(int(x) for x in game.rules.deck5)
    out = Played(game)
    limit = game.rules.rounds * game.rules.turns * n
    while not protocol.is_over(game):
        assert out.moves < limit, "the game did not end after rounds x turns x players turns"
        seat = game.seat_to_move
        start = game.S.copy()
        before = game.state.tables.copy()
        decisions = []
        while True:
            assert game.seat_to_move == seat, "the seat to move changed within a turn"
            move = agents[seat].choose(game, seat, rng)
            assert protocol.is_legal_move(game, move), move
            decisions.append(move)
            protocol.apply(game, move)
            if game.S[G_PHASE] == DRAFT:
                break
        mv = turn_array(start, game.T, decisions)
        kind = int(mv[0])
        if kind == DISCARD_FOR_TILE:
            out.d4t_gone[int(cw.state_views(start, game.T.lay).slots[mv[1]])] += 1
        out.moves += 1
        out.kinds[kind] += 1
        after = game.state.tables
        for s, c in zip(*np.nonzero((before != 0) & (after != before))):
            out.overwritten.append((out.moves, int(s), int(c)))
        if five_cell_cards(game) != deck5 - out.d4t_gone:
            out.five_cell_leaks.append(out.moves)
    return out


@st.composite
def setups(draw, counts=(1, 2, 3, 4), extra_agents=()):
    version = draw(st.sampled_from(["v1.1", "v1.0"]))
    n = draw(st.sampled_from(counts))
    names = draw(st.lists(st.sampled_from(AGENTS + list(extra_agents)), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**32 - 1))
    agent_seed = draw(st.integers(0, 2**32 - 1))
    return version, names, seed, agent_seed


def make(cfgs, version: str, names: list[str]):
    cfg = supported(cfgs[version], names)
    return cfg, [DiscardForTile(cfg) if a == "d4t" else cw.make_agent(cfg, a) for a in names]


def cfgs_of(cw_cfg, cw_cfg_v10):
    return {"v1.1": cw_cfg, "v1.0": cw_cfg_v10}


def supported(cfg, names: list[str]):
    """The config, after rejecting player counts the variant does not have (v1.0 had no solo mode)."""
    assume(len(names) in cfg.player_counts)
    return cfg


@SETTINGS
@given(setup=setups(extra_agents=("d4t",)))
def test_every_game_ends_and_everyone_gets_rounds_x_turns_turns(cw_cfg, cw_cfg_v10, setup):
    version, names, seed, agent_seed = setup
    cfg, agents = make(cfgs_of(cw_cfg, cw_cfg_v10), version, names)
    p = play(cfg, agents, seed, agent_seed)
    n = len(names)
    turns = expected_turns(version, n)
    assert protocol.is_over(p.game) and protocol.legal_moves(p.game) == []
    assert p.moves == turns * n  # turns
    assert list(p.game.state.stats[:, 3]) == [turns] * n
    out = protocol.outcome(p.game)
    assert out.turns == [turns] * n


@SETTINGS
@given(setup=setups(extra_agents=("d4t",)))
def test_tiles_taken_equal_tiles_on_the_table_plus_tiles_wasted(cw_cfg, cw_cfg_v10, setup):
    # §5: every tile taken either lands or is lost (overhang, forced discard); §9.2 gives 1 tile.
    version, names, seed, agent_seed = setup
    cfg, agents = make(cfgs_of(cw_cfg, cw_cfg_v10), version, names)
    p = play(cfg, agents, seed, agent_seed)
    stats = p.game.state.stats
    for s in range(len(names)):
        on_table = int((p.game.state.tables[s] != 0).sum())
        assert stats[s, 4] == on_table + stats[s, 0], s
        # 4 tiles per edge ruler, 5 per corner ruler, 1 per discard-for-tile: between 1 and 5 per turn
        assert stats[s, 3] <= stats[s, 4] <= 5 * stats[s, 3]
    out = protocol.outcome(p.game)
    assert out.metrics["wasted_tiles"] == [float(x) for x in stats[:, 0]]
    assert out.metrics["empty_cells"] == [float((t == 0).sum()) for t in p.game.state.tables]


@SETTINGS
@given(setup=setups(extra_agents=("d4t",)))
def test_5_no_cell_is_ever_overwritten(cw_cfg, cw_cfg_v10, setup):
    # §5 "Charcoal doesn't erase: once placed, a tile never moves"; "No overwriting"; Q5.
    version, names, seed, agent_seed = setup
    cfg, agents = make(cfgs_of(cw_cfg, cw_cfg_v10), version, names)
    p = play(cfg, agents, seed, agent_seed)
    assert p.overwritten == []


@SETTINGS
@given(setup=setups())
def test_win_shares_of_a_game_sum_to_one(cw_cfg, cw_cfg_v10, setup):
    version, names, seed, _ = setup
    out = cw.play_game(supported(cfgs_of(cw_cfg, cw_cfg_v10)[version], names), names, seed)
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert abs(sum(shares) - 1.0) < 1e-12
    assert min(ranks) == 1
    # the categories add up to the score (§6.5 Total = districts + achievements + seat bonus)
    for s in range(len(names)):
        assert out.scores[s] == sum(v[s] for v in out.components.values())


@SETTINGS
@given(setup=setups())
def test_same_seed_gives_identical_outcomes(cw_cfg, cw_cfg_v10, setup):
    version, names, seed, agent_seed = setup
    cfg = supported(cfgs_of(cw_cfg, cw_cfg_v10)[version], names)
    assert cw.play_game(cfg, names, seed) == cw.play_game(cfg, names, seed)
    # stepping through the public API with the same agents and generators is just as reproducible
    agents = [cw.make_agent(cfg, a) for a in names]
    a = play(cfg, agents, seed, agent_seed)
    b = play(cfg, agents, seed, agent_seed)
    assert np.array_equal(a.game.S, b.game.S)
    assert protocol.outcome(a.game) == protocol.outcome(b.game)


@SETTINGS
@given(setup=setups())
def test_play_game_plays_the_same_game_as_stepping_move_by_move(cw_cfg, cw_cfg_v10, setup):
    # play_game (one compiled call) and new_game/choose/apply (transcripts, tests) must be the same game:
    # the game's chance from game_rngs' first generator, the agents' choices from the second.
    version, names, seed, _ = setup
    cfg = supported(cfgs_of(cw_cfg, cw_cfg_v10)[version], names)
    game = cw.new_game(cfg, len(names), seed)
    _, agent_rng = game_rngs(seed)
    agents = [cw.make_agent(cfg, a) for a in names]
    while not protocol.is_over(game):
        seat = game.seat_to_move
        protocol.apply(game, agents[seat].choose(game, seat, agent_rng))
    fast = cw.play_game(cfg, names, seed)
    assert fast.standings is not None and fast.standings[-1] == fast.scores  # the trajectory ends at the scores
    assert protocol.outcome(game) == dataclasses.replace(fast, standings=None)  # stepping records no trajectory


@SETTINGS
@given(setup=setups(counts=(2,), extra_agents=("d4t", "d4t", "d4t")))
def test_9_2_discarded_for_tile_rulers_never_return(cw_cfg, cw_cfg_v10, setup):
    # §9.2 "The ruler never comes back": after every move, the five-cell cards in the draw pile, the
    # discard pile and this round's corner slots are the deck minus the rulers discarded for a tile.
    version, names, seed, agent_seed = setup
    cfg, agents = make(cfgs_of(cw_cfg, cw_cfg_v10), version, names)
    p = play(cfg, agents, seed, agent_seed)
    assert p.five_cell_leaks == []
    assert int(p.game.state.stats[:, 5].sum()) == sum(p.d4t_gone.values()) == p.kinds[DISCARD_FOR_TILE]


def test_the_d4t_policy_does_discard_for_tiles(cw_cfg):
    # guard for the property above: the test policy really exercises §9.2
    agents = [DiscardForTile(cw_cfg), DiscardForTile(cw_cfg)]
    cfg = cw_cfg
    p = play(cfg, agents, 1, 2)
    assert p.kinds[DISCARD_FOR_TILE] >= 4 and p.kinds[PLACE] + p.kinds[FORCED] >= 1
