"""Pig's trajectory (issue 49): each seat's points banked at the end of every round, and at the game's
end (``Outcome.standings``), checked against the same game replayed move by move through the Python
protocol (``balancer play``'s loop), which knows nothing of checkpoints."""

from __future__ import annotations

import math
from pathlib import Path

import balancer_pig
import numpy as np
import pytest
from balancer_pig.kernel import SEATS

from balancer.config import load_config
from balancer.core import protocol
from balancer.core.seeding import game_rngs, game_seed

CFG = load_config(Path(__file__).resolve().parents[1] / "configs" / "pig" / "pig.yaml")


def replayed_standings(agents: list[str], seed) -> list[list[float]]:
    """The banked points after every turn whose end completes a round (turns taken in all a multiple
    of the seats), and after the last turn when it ends a partial round: read from the position after
    each move of the protocol's replay (the loop of ``balancer_pig.transcript``)."""
    game = protocol.new_game(balancer_pig.ENGINE, CFG, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    players = [balancer_pig.make_agent(CFG, name) for name in agents]
    n = len(agents)
    rows, turns = [], 0
    while not protocol.is_over(game):
        seat = game.seat_to_move
        protocol.apply(game, players[seat].choose(game, seat, agent_rng))
        S = game.S
        now = int(S[SEATS + n : SEATS + 2 * n].sum())
        if now != turns and (now % n == 0 or protocol.is_over(game)):
            rows.append([float(x) for x in S[SEATS : SEATS + n]])
        turns = now
    return rows


@pytest.mark.parametrize(
    ("agents", "index"), [(["greedy", "random"], 0), (["random", "random", "random"], 4), (["greedy"] * 4, 9)]
)
def test_standings_are_the_banked_points_at_each_round_s_end(agents, index):
    seed = game_seed(11, index)
    outcome = balancer_pig.play_game(CFG, agents, seed)
    assert outcome.standings == replayed_standings(agents, seed)
    n = len(agents)
    # one checkpoint per round, the last (partial) round included; its standings are the final scores
    assert len(outcome.standings) == math.ceil(sum(outcome.turns) / n)
    assert outcome.standings[-1] == [float(s) for s in outcome.scores]
    assert all(len(row) == n for row in outcome.standings)
    assert (np.diff(np.array(outcome.standings), axis=0) >= 0).all()  # banked points never drop


def test_a_game_cut_by_the_turn_cap_ends_its_trajectory_at_the_cap():
    capped = CFG.model_copy(update={"max_turns": 7})  # 7 turns of 3 seats: rounds end at 3 and 6, the game at 7
    outcome = balancer_pig.play_game(capped, ["random"] * 3, game_seed(2, 0))
    assert outcome.ended_by == "turn_cap" and sum(outcome.turns) == 7
    assert len(outcome.standings) == 3 and outcome.standings[-1] == [float(s) for s in outcome.scores]


def test_balancer_run_writes_trajectories_and_the_report_shows_how_the_game_feels(tmp_path):
    """The INSTALLED balancer and Pig (no PYTHONPATH, as test_cli.py): one jobs-2 run of small chunks."""
    import json
    import os
    import subprocess
    import sys

    import polars as pl

    from balancer.stats.flow import check_trajectories

    exe = Path(sys.executable).parent / "balancer"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    config = Path(__file__).resolve().parents[1] / "configs" / "pig" / "pig.yaml"
    for args in (
        f"run {config} -p 3 -a greedy,random,random -n 60 --seed 3 --jobs 2 --chunk-size 7 --quiet --out r",
        f"run {config} -p 3 -a greedy,random,random -n 60 --seed 3 --jobs 1 --quiet --out one",
        "report r -o r.html",
    ):
        done = subprocess.run([str(exe), *args.split()], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    traj = check_trajectories(pl.scan_parquet(tmp_path / "r" / "trajectories.parquet"))
    assert traj.equals(check_trajectories(pl.scan_parquet(tmp_path / "one" / "trajectories.parquet")))
    results = pl.read_parquet(tmp_path / "r" / "results.parquet")
    last = traj.filter(pl.col("checkpoint") == pl.col("checkpoint").max().over("game_index"))
    joined = results.join(last, on=["game_index", "seat"])
    assert joined.height == results.height == 180
    assert (joined["standing"] == joined["score"].cast(pl.Float64)).all()
    trajectory = json.loads((tmp_path / "r" / "summary.json").read_text())["flow"]["trajectory"]
    assert trajectory["games"] == 60 and trajectory["without_trajectory"] == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "High early means a runaway leader" in html  # the leader-wins curve's caption
    assert "comebacks (% of games)" in html and "decided at (share of the game)" in html
    assert "lead changes per game" in html
