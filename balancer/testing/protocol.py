"""Conformance of a game's Python protocol, fast path and runner (docs/architecture.md, "Tests").

Same seed twice gives identical records; every game ends; results match the schema; win shares of a
game sum to 1; a random agent never gets an illegal move (PettingZoo's ``api_test``/``seed_test``,
TAG's ``ForwardModelTester``). Each check takes a :class:`Game` (and a player count).

Stepping a game by hand mirrors a game's ``transcript()``: ``new_game(cfg, n, seed)`` takes the
game's own chance from child 0 of :func:`balancer.core.seeding.game_rngs`, the agents share child 1,
and the seat to move is ``state.seat_to_move`` (0-based).
"""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from ..config import load_config
from ..core.game import Outcome, ranks_and_win_shares
from ..core.kernel import ENDED_BY
from ..core.registry import GameSpec, get_spec
from ..core.seeding import game_rngs, game_seed
from ..core.tables import seat_agents

SEEDS = (1, 2, 3)  # run seeds; game 0 of each, as `balancer play` seeds it
PROTOCOL = (
    "new_game",
    "legal_moves",
    "apply",
    "is_over",
    "outcome",
    "play_game",
    "transcript",
    "make_agent",
    "is_legal_move",
)
# docs/architecture.md, "Results": the columns every results.parquet starts with, in this order
RESULT_COLUMNS = [
    "variant",
    "game",
    "n_players",
    "game_index",
    "seed",
    "seat",
    "agent",
    "score",
    "rank",
    "win_share",
    "turns",
    "ended_by",
]
SUMMARY_KEYS = {
    "game",
    "variant",
    "n_players",
    "games",
    "seed",
    "seat_win_rate",
    "agent_win_rate",
    "metrics",
    "seat_uniformity_p",
}


@dataclass(frozen=True)
class Game:
    """A registered game under one variant: what every check is given."""

    spec: GameSpec
    path: Path
    cfg: Any


def load_game(name: str, config: str | Path) -> Game:
    """The registered game ``name`` with the variant at ``config`` (a YAML path), validated."""
    return Game(get_spec(name), Path(config), load_config(config))


# --------------------------------------------------------------------------------------------------
# helpers


def step_game(
    spec: GameSpec, cfg: Any, agents: list[str], seed: Any, check_legal: bool = False, max_moves: int | None = None
) -> tuple[Any, list[int]]:
    """Play one game move by move (new_game / make_agent(...).choose / apply until is_over).

    Returns (final state, moves applied per seat). With ``check_legal``, asserts that every chosen
    move is legal (``is_legal_move``) before applying it. Fails if the game has not ended after
    ``max_moves`` apply calls (default: the spec's ``max_protocol_moves``).
    """
    max_moves = max_moves or spec.max_protocol_moves
    n = len(agents)
    state = spec.new_game(cfg, n, seed)
    _, agent_rng = game_rngs(seed)
    players = [spec.make_agent(cfg, a) for a in agents]
    moves = [0] * n
    for _ in range(max_moves):
        if spec.is_over(state):
            return state, moves
        seat = int(state.seat_to_move)
        assert 0 <= seat < n, f"seat_to_move {seat} outside 0..{n - 1}"
        move = players[seat].choose(state, seat, agent_rng)
        if check_legal:
            assert spec.is_legal_move(state, move), (
                f"{agents[seat]} agent in seat {seat + 1} chose an illegal move {move!r} "
                f"(seed {seed}, after {sum(moves)} moves)"
            )
        state = spec.apply(state, move)
        moves[seat] += 1
    assert spec.is_over(state), f"game not over after {max_moves} apply calls (agents {agents}, seed {seed})"
    return state, moves


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_number(x: Any) -> bool:
    return (
        isinstance(x, (int, float, np.integer, np.floating))
        and not isinstance(x, (bool, np.bool_))
        and math.isfinite(float(x))
    )


def raises(error: type[BaseException], call: Callable[..., Any], *args: Any) -> None:
    """Assert that ``call(*args)`` raises ``error``."""
    try:
        call(*args)
    except error:
        return
    raise AssertionError(f"{getattr(call, '__name__', call)}{args!r} did not raise {error.__name__}")


def check_outcome(out: Outcome, n: int) -> None:
    """The Outcome schema the runner and the results columns rely on (core/game.py, docs/architecture.md)."""
    assert isinstance(out, Outcome)
    assert len(out.scores) == n and all(_is_int(s) for s in out.scores), f"scores must be {n} ints: {out.scores}"
    assert len(out.tiebreak) == n, f"tiebreak must have one tuple per seat: {out.tiebreak}"
    assert all(isinstance(t, tuple) for t in out.tiebreak)
    assert len({len(t) for t in out.tiebreak}) == 1, f"tiebreak tuples differ in length: {out.tiebreak}"
    assert out.components, "no score components"
    for name, values in out.components.items():
        assert isinstance(name, str) and name.isidentifier(), f"component name {name!r} (becomes score_{name})"
        assert len(values) == n and all(_is_int(v) for v in values), f"components[{name!r}]: {values}"
    for s in range(n):
        total = sum(values[s] for values in out.components.values())
        assert total == out.scores[s], f"seat {s + 1}: components sum to {total}, score is {out.scores[s]}"
    for name, measured in out.metrics.items():
        assert isinstance(name, str) and name.isidentifier(), f"metric name {name!r} (becomes metric_{name})"
        assert len(measured) == n and all(_is_number(v) for v in measured), f"metrics[{name!r}]: {measured}"
    assert len(out.turns) == n and all(_is_int(t) and t >= 0 for t in out.turns), f"turns: {out.turns}"
    assert max(out.turns) > 0, "no seat took a turn"
    assert out.ended_by in ENDED_BY, f"ended_by {out.ended_by!r} is not one of {ENDED_BY}"


def check_ranks(out: Outcome, n: int) -> None:
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert math.isclose(sum(shares), 1.0), f"win shares sum to {sum(shares)}: {shares}"
    assert min(ranks) == 1 and all(1 <= r <= n for r in ranks), f"ranks {ranks}"
    assert all((r == 1) == (w > 0) for r, w in zip(ranks, shares)), f"ranks {ranks} vs win shares {shares}"
    winners = sum(1 for w in shares if w > 0)
    assert all(w in (0.0, 1.0 / winners) for w in shares)


def mixed_table(spec: GameSpec, n: int) -> list[str]:
    """Seat s gets AGENTS[s mod len(AGENTS)]: every agent shows up over the player counts."""
    return [spec.agents[s % len(spec.agents)] for s in range(n)]


# --------------------------------------------------------------------------------------------------
# per game


def registry_entry(game: Game) -> None:
    """The spec registered as ``name`` has the protocol, and its default config is for this game."""
    spec, path, cfg = game.spec, game.path, game.cfg
    name = spec.name
    assert isinstance(cfg, spec.config_model), f"{path} is not a {spec.config_model.__name__}"
    assert cfg.game == name, f"{path}: game {cfg.game!r}, registered as {name!r}"
    missing = [f for f in PROTOCOL if not callable(getattr(spec, f, None))]
    assert not missing, f"{spec.module} lacks {missing}"
    agents = spec.agents
    assert isinstance(agents, tuple) and agents and all(isinstance(a, str) and a for a in agents)
    assert len(set(agents)) == len(agents), f"duplicate agent names: {agents}"
    assert "random" in agents, "the conformance suite needs a 'random' agent"
    counts = list(cfg.player_counts)
    assert counts and all(_is_int(c) and c >= 1 for c in counts) and counts == sorted(set(counts))


def unsupported_player_count_raises(game: Game) -> None:
    spec, cfg = game.spec, game.cfg
    counts = set(cfg.player_counts)
    bad = [n for n in (0, max(counts) + 1, *range(1, max(counts))) if n not in counts]
    for n in bad:
        raises(ValueError, spec.new_game, cfg, n, 1)
        raises(ValueError, spec.play_game, cfg, ["random"] * n, 1)


def unknown_agent_raises(game: Game) -> None:
    spec, cfg = game.spec, game.cfg
    raises(ValueError, spec.make_agent, cfg, "no-such-agent")
    raises(ValueError, spec.play_game, cfg, ["no-such-agent"] * min(cfg.player_counts), 1)


def declared_metrics_are_the_outcome_columns(game: Game) -> None:
    """The game's metric specs (its metrics.py) name exactly the score categories and metrics its
    outcomes carry, over all its player counts (Águeda's solo metrics exist only at one player); a
    per-game metric has one value on every seat; an indicator is 0 or 1."""
    spec, cfg = game.spec, game.cfg
    name = spec.name
    assert spec.metrics is not None, f"{name} declares no metric specs"
    declared = {m.name: m for m in spec.metrics.metrics}
    produced: set[str] = set()
    for n in cfg.player_counts:
        for run_seed in SEEDS:
            out = spec.play_game(cfg, seat_agents(mixed_table(spec, n), run_seed), game_seed(run_seed, 0))
            assert list(out.components) == [c.name for c in spec.metrics.scores]
            assert set(out.metrics) <= set(declared), f"undeclared: {set(out.metrics) - set(declared)}"
            produced |= set(out.metrics)
            for metric, values in out.metrics.items():
                if declared[metric].per == "game":
                    assert len(set(values)) == 1, f"{metric} differs between seats: {values}"
                if declared[metric].kind == "indicator":
                    assert set(values) <= {0.0, 1.0}, f"{metric} is not 0/1: {values}"
    assert produced == set(declared), f"declared but never written: {set(declared) - produced}"


# --------------------------------------------------------------------------------------------------
# per game and player count


def same_seed_same_outcome(game: Game, n: int) -> None:
    """seed_test: a seed fixes the whole game; different seeds give different games."""
    spec, cfg = game.spec, game.cfg
    outcomes = []
    for run_seed in SEEDS:
        seed = game_seed(run_seed, 0)
        first = spec.play_game(cfg, ["random"] * n, seed)
        again = spec.play_game(cfg, ["random"] * n, game_seed(run_seed, 0))
        assert first == again, f"seed {run_seed}: two plays differ\n{first}\n{again}"
        outcomes.append(first)
    assert spec.play_game(cfg, ["random"] * n, 5) == spec.play_game(cfg, ["random"] * n, 5)  # int seeds too
    greedy = spec.play_game(cfg, ["greedy"] * n, game_seed(1, 0)) if "greedy" in spec.agents else None
    if greedy is not None:
        assert greedy == spec.play_game(cfg, ["greedy"] * n, game_seed(1, 0))
    assert len({repr(o) for o in outcomes}) > 1, "every seed gave the same random game"


def stepping_equals_play_game(game: Game, n: int) -> None:
    """play_game (the runner's fast path) plays exactly the moves the step-by-step protocol plays."""
    spec, cfg = game.spec, game.cfg
    tables = [["random"] * n, mixed_table(spec, n)]
    if "greedy" in spec.agents:
        tables.append(["greedy"] * n)
    for run_seed, agents in zip(SEEDS, tables):
        seed = game_seed(run_seed, 0)
        state, _ = step_game(spec, cfg, agents, seed)
        stepped = spec.outcome(state)
        fast = spec.play_game(cfg, agents, seed)
        if fast.standings is not None:  # a trajectory (issue 49): every seat at every checkpoint, finite
            rows = fast.standings
            assert rows and all(len(r) == n and all(math.isfinite(v) for v in r) for r in rows), (
                f"agents {agents}, seed {run_seed}: Outcome.standings is not {n} finite values per checkpoint"
            )
            if stepped.standings is None:  # stepping may record none; where it does (Urgency's), they must agree
                fast = dataclasses.replace(fast, standings=None)
        assert stepped == fast, f"agents {agents}, seed {run_seed}:\nstepped {stepped}\nplay_game {fast}"


def games_end_with_a_valid_outcome(game: Game, n: int) -> None:
    """Every game ends within a bounded number of moves; its Outcome fits the results schema;
    win shares sum to 1; no legal move is left once it is over."""
    spec, cfg = game.spec, game.cfg
    for run_seed in SEEDS:
        state, moves = step_game(spec, cfg, ["random"] * n, game_seed(run_seed, 0))
        assert sum(moves) > 0
        out = spec.outcome(state)
        check_outcome(out, n)
        check_ranks(out, n)
        assert list(spec.legal_moves(state)) == [], "legal moves left after the game is over"
        assert spec.outcome(state) == out, "outcome() of a finished game changed when called again"
    for run_seed in range(10, 30):  # fast path: more seeds, mixed tables
        out = spec.play_game(cfg, seat_agents(mixed_table(spec, n), run_seed), game_seed(run_seed, 0))
        check_outcome(out, n)
        check_ranks(out, n)


def random_agent_never_moves_illegally(game: Game, n: int) -> None:
    """api_test: across whole games, every move the random agent picks is legal; and at the start
    of a game legal_moves() and is_legal_move() agree (a sample of the list)."""
    spec, cfg = game.spec, game.cfg
    for run_seed in (*SEEDS, 4, 5):
        step_game(spec, cfg, ["random"] * n, game_seed(run_seed, 0), check_legal=True)
    state = spec.new_game(cfg, n, game_seed(1, 0))
    legal = list(spec.legal_moves(state))
    assert legal, "no legal move at the start of a game"
    sample = np.random.default_rng(0).choice(len(legal), size=min(500, len(legal)), replace=False)
    assert all(spec.is_legal_move(state, legal[i]) for i in sample), "legal_moves() and is_legal_move() disagree"


def chosen_moves_are_in_legal_moves(game: Game, n: int) -> None:
    """The moves agents choose are members of legal_moves() (the first 3 moves of a random and of a
    greedy game; the list is long, so only a few positions)."""
    spec, cfg = game.spec, game.cfg
    for agent in ("random", "greedy"):
        if agent not in spec.agents:
            continue
        seed = game_seed(1, 0)
        state = spec.new_game(cfg, n, seed)
        _, rng = game_rngs(seed)
        player = spec.make_agent(cfg, agent)
        for _ in range(3):
            if spec.is_over(state):
                break
            move = player.choose(state, int(state.seat_to_move), rng)
            assert move in set(spec.legal_moves(state)), f"{agent} agent's move {move!r} is not in legal_moves()"
            state = spec.apply(state, move)


def every_agent_plays_a_full_game(game: Game, n: int) -> None:
    spec, cfg = game.spec, game.cfg
    for agent in spec.agents:
        out = spec.play_game(cfg, [agent] * n, game_seed(1, 0))
        check_outcome(out, n)
        check_ranks(out, n)
    # each agent also through make_agent(...).choose, with every move checked (the mixed table
    # of this player count; over all counts every agent is seated)
    step_game(spec, cfg, mixed_table(spec, n), game_seed(2, 0), check_legal=True)


def runner_writes_the_design_columns(game: Game, n: int, tmp_path: Path | None = None) -> None:
    """run_to_dir (jobs=1, 3 games of a rotating mixed table) writes the docs/architecture.md columns, one row
    per seat per game, equal to play_game with the runner's seeds, and a summary.json (into ``tmp_path``, else
    a temporary folder)."""
    if tmp_path is None:
        with tempfile.TemporaryDirectory() as tmp:
            return runner_writes_the_design_columns(game, n, Path(tmp))
    from ..sim.runner import run_to_dir

    spec, path, cfg = game.spec, game.path, game.cfg
    name = spec.name
    agents, games, seed = mixed_table(spec, n), 3, 11
    out_dir = run_to_dir(spec, cfg, path, agents, games, seed, jobs=1, out_dir=tmp_path / "run", progress=False)
    rows = sorted(pq.read_table(out_dir / "results.parquet").to_pylist(), key=lambda r: (r["game_index"], r["seat"]))
    first = spec.play_game(cfg, seat_agents(agents, 0), game_seed(seed, 0))
    expected = (
        RESULT_COLUMNS
        + [f"score_{k}" for k in first.components]
        + [f"metric_{k}" for k in first.metrics]
        + [f"label_{k}" for k in first.labels]
    )
    assert pq.read_schema(out_dir / "results.parquet").names == expected
    assert len(rows) == games * n
    for i in range(games):
        table = seat_agents(agents, i)
        out = spec.play_game(cfg, table, game_seed(seed, i))
        ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
        game_rows = rows[i * n : (i + 1) * n]
        assert math.isclose(sum(r["win_share"] for r in game_rows), 1.0)
        for s, row in enumerate(game_rows):
            assert row["variant"] == cfg.variant and row["game"] == name and row["n_players"] == n
            assert (row["game_index"], row["seed"], row["seat"], row["agent"]) == (i, seed, s + 1, table[s])
            assert (row["score"], row["rank"], row["win_share"], row["turns"]) == (
                out.scores[s],
                ranks[s],
                shares[s],
                out.turns[s],
            )
            assert all(row[f"score_{k}"] == v[s] for k, v in out.components.items())
            assert all(_approx(row[f"metric_{k}"], v[s]) for k, v in out.metrics.items())
            assert all(row[f"label_{k}"] == v[s] for k, v in out.labels.items())
            assert row["ended_by"] == out.ended_by
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert SUMMARY_KEYS <= set(summary), f"summary.json lacks {SUMMARY_KEYS - set(summary)}"
    assert (summary["game"], summary["variant"], summary["n_players"], summary["games"], summary["seed"]) == (
        name,
        cfg.variant,
        n,
        games,
        seed,
    )
    assert [e["seat"] for e in summary["seat_win_rate"]] == list(range(1, n + 1))
    stopped = sum(1 for r in rows if r["seat"] == 1 and r["ended_by"] != "rules")
    assert summary["completion"]["not_by_rules"] == stopped
    assert summary["completion"]["by_rules"] + stopped == games
    return None


def _approx(a: float, b: float) -> bool:
    """``a == pytest.approx(b)``: relative 1e-6, absolute 1e-12."""
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
