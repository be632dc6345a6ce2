"""``balancer run``: play a variant and write its run directory."""

from __future__ import annotations

from pathlib import Path

import typer

from balancer import api
from balancer.api import errors as library

from .app import (
    TableAgents,
    TablePlayers,
    _command_line,
    _load,
    _note,
    _players,
    _resume_command,
    _sigterm_as_interrupt,
    app,
)
from .errors import _report_failures, library_errors, say, shown_path


@app.command()
def run(
    config: Path = typer.Argument(..., help="Rule-variant YAML file."),
    players: TablePlayers = None,
    n_games: int = typer.Option(1000, "--games", "-n", help="Number of games to play (at least 1)."),
    agents: TableAgents = "greedy",
    seed: int = typer.Option(
        1,
        "--seed",
        help="Run seed, 0 to 2^63-1; game i uses SeedSequence(seed, "
        "spawn_key=(i,)), so results do not depend on --jobs.",
    ),
    jobs: int = typer.Option(
        -1, "--jobs", "-j", help="Worker processes; -1 uses all cores, -2 all but one; capped at the number of cores."
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Output directory [default: results/<game>-<variant>-<players>p; a variant file of your own adds 8 hex digits of its path].",
    ),
    force: bool = typer.Option(False, "--force", help="Overwrite results already in the output directory."),
    chunk_size: int | None = typer.Option(
        None, "--chunk-size", help="Games per parallel task [default: about games/(jobs*8), 10-2000]."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no win-rate summary."),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        envvar="BALANCER_SCHEDULER",
        metavar="ADDRESS",
        help="Play on the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://host:8786) instead of local processes; --jobs is then "
        "ignored (see docs/cluster.md).",
    ),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Continue the interrupted run in the output directory: "
        "play only the chunks missing from its manifest.json "
        "(the other arguments must be the same).",
    ),
    until_ci: float | None = typer.Option(
        None,
        "--until-ci",
        metavar="HALF_WIDTH",
        help="Play in batches until every seat (and, for a mixed table, "
        "agent) win rate has a 95% interval of at most +/-HALF_WIDTH "
        "(0.01 = 1 point), then stop; --games is ignored. The results "
        "equal a plain run of the games it played.",
    ),
    max_games: int = typer.Option(200_000, "--max-games", help="With --until-ci: the most games to play."),
    flow: bool = typer.Option(
        True,
        "--flow/--no-flow",
        help="Keep how the game feels (margin, scores by seat, length) in summary.json; "
        "--no-flow leaves it out, and the trajectories (with them a long game's run can take several "
        "times the CPU and memory: see the run page of the docs).",
    ),
) -> None:
    """Play games between AI players and write results.parquet, run.json and summary.json.

    Exit 1 when some games raised (the others are written; each failing game is listed with the
    'balancer play' command that replays it). Ctrl-C keeps the finished chunks and prints the
    --resume command.
    """
    cfg, _ = _load(config)
    players = _players(players, agents, cfg, 4)
    out_dir = out if out is not None else api.default_run_dir(config, cfg, players)
    where = "--out " if out is not None else "output directory "

    def interrupted(exc: KeyboardInterrupt) -> str:
        if not isinstance(exc, library.RunInterrupted):
            return "interrupted; nothing was written"
        return (
            f"interrupted: {exc.done:,} of {exc.games:,} games are saved in {out_dir} "
            f"(the chunk in flight was discarded); continue with: {_resume_command(out_dir)}"
        )

    failed = None
    errors = library_errors(
        interrupted=interrupted, about=str(config), out=where, cannot_write=f"{where}{out_dir}", writing="results"
    )
    with errors:
        try:
            with _sigterm_as_interrupt():
                result = api.run(
                    config, players, agents, n_games, seed, jobs, out_dir, force=force, resume=resume,
                    chunk_size=chunk_size, scheduler=scheduler or None, until_ci=until_ci, max_games=max_games,
                    progress=not quiet, command=_command_line(), note=_note, log=None if quiet else _note,
                    flow=flow,
                )  # fmt: skip
        except library.GamesFailedError as exc:  # the results line first, then the failing games
            failed = exc
        else:
            until = result.until
            if until_ci is not None and until is not None:
                reached = "reached" if until.widest_half_width <= until_ci else "NOT reached (--max-games)"
                typer.echo(
                    f"--until-ci {until_ci:g}: played {until.games:,} games in {len(until.batches)} batches; "
                    f"the widest interval ({until.widest}) is +/-{until.widest_half_width:.4f}, {reached}; "
                    f"theory asks for {until.theory_games:,.0f} games (z^2 p(1-p)/h^2)"
                )
    out_dir = api.normalised(out_dir)  # as the run created it: out/a/../X is out/X, and out/a need not exist
    if failed is not None:
        if api.run_dir(out_dir).results.is_file():
            typer.echo(f"results: {shown_path(api.run_dir(out_dir).results)} (without the failing games)")
        _report_failures(failed)
        raise typer.Exit(1)
    typer.echo(f"results: {shown_path(api.run_dir(out_dir).results)}")
    finished = api.RunResult(out_dir)
    for k, line in enumerate(api.run_completion_lines(finished)):
        say(("WARNING: " if k == 0 else "") + line)
    if not quiet and players == 1:
        # a solo seat always "wins" its table: the game's own result (its declared solo result), if it has one
        summary = finished.summary
        solo = api.solo_result(finished, cfg.game)
        if solo is not None:
            typer.echo(
                f"solo win rate: {solo['rate']:.1%} ({solo['ci_low']:.1%} to {solo['ci_high']:.1%}, "
                f"{solo['wins']:,} of {solo['games']:,} games)"
            )
        for row in summary.get("score_by_seat", [])[:1]:
            typer.echo(f"solo score: {row['mean']:.1f} points ({row['ci_low']:.1f} to {row['ci_high']:.1f})")
    elif not quiet:
        rates = finished.seat_win_rates()
        typer.echo("seat win rates: " + "  ".join(f"{s}: {r:.1%}" for s, r, _ in rates["seat"]))
        if len(rates["agent"]) > 1:
            typer.echo("agent win rates: " + "  ".join(f"{a}: {r:.1%}" for a, r, _ in rates["agent"]))
