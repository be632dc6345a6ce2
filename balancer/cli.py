"""The ``balancer`` command line: a thin layer over balancer.config, balancer.sim and balancer.report.

Exit codes (DESIGN.md): 0 success, 1 a check failed, 2 bad input (config, arguments, files). Every
bad input prints one clear message on stderr naming the file or key, and writes nothing.
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer

from balancer import api
from balancer.config import ConfigError, export_schema, load_config, resolve_yaml
from balancer.games import GAMES, GameSpec, get_spec

app = typer.Typer(
    name="balancer",
    help="If I change this rule, who wins more often? Play many games between AI players and report win rates.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

BAD_INPUT = 2


# --------------------------------------------------------------------------------------------------
# helpers


def _fail(message: str) -> NoReturn:
    """Print ``message`` on stderr and exit with code 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(BAD_INPUT)


def _load(config: Path) -> tuple[Any, GameSpec]:
    """(validated config, its game's spec) (:func:`balancer.api.load_variant`), or exit 2 with the
    ConfigError text (one line when the file is a study, not a rule variant)."""
    try:
        return api.load_variant(config)
    except ConfigError as exc:
        _fail(str(exc))


def _note(line: str) -> None:
    """One note of the library (:data:`balancer.api.Note`) on stderr."""
    typer.echo(line, err=True)


def _compile_note(spec: GameSpec) -> None:
    """On stderr, when the game's compiled engine is not in numba's cache yet (the first game after
    installing or after an engine change compiles it: up to about a minute with no progress)."""
    note = api._compile_note(spec)
    if note:
        _note(note)


def _counts_text(counts: list[int] | None) -> str:
    """Player counts as the run's refusals write them (:func:`balancer.sim.runner.counts_text`):
    [1, 2, 3, 4] -> '1-4'; [2, 4] -> '2, 4'; None -> 'any'."""
    from balancer.sim.runner import counts_text

    return counts_text(counts)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While active, SIGTERM raises KeyboardInterrupt, so a killed run cleans up like Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _command_line() -> str:
    return " ".join(shlex.quote(a) for a in ["balancer", *sys.argv[1:]])


def _resume_command(out_dir: Path) -> str:
    """This command line with ``--resume`` (and ``--out``), without ``--force``."""
    args = [a for a in sys.argv[1:] if a != "--force"]
    if not any(a in ("--out", "-o") or a.startswith("--out=") for a in args):
        args += ["--out", str(out_dir)]
    if "--resume" not in args:
        args.append("--resume")
    return " ".join(shlex.quote(a) for a in ["balancer", *args])


def _check_out_file(flag: str, path: Path, kind: str = "a file") -> None:
    """Exit 2 (naming ``flag``) unless ``path`` can be written as a file: not a directory, not under
    a file, in a writable directory (:func:`balancer.report.render.check_report_target`). Creates nothing."""
    from balancer.report.render import ReportOutputError, check_report_target

    if path.is_dir():
        _fail(f"{flag} {path}: is a directory; give the path of {kind}")
    try:
        check_report_target(path)
    except ReportOutputError as exc:
        _fail(f"{flag} {exc}")


def _check_out_directory(flag: str, path: Path) -> None:
    """Exit 2 (naming ``flag``) unless ``path`` is or can be created as a writable directory
    (:func:`balancer.sim.runner.check_out_dir`, results checks left to the command). Creates nothing."""
    from balancer.sim.runner import OutDirError, check_out_dir

    try:
        check_out_dir(path, resume=True)
    except OutDirError as exc:
        _fail(f"{flag} {exc}")


MAX_PRINTED_FAILURES = 20


def _report_failures(exc: Any) -> None:
    """Print the failing games of a GamesFailedError on stderr: index, seed, error, replay command."""
    typer.echo(
        f"error: {exc.count:,} of {exc.games:,} games failed (all listed in {exc.out_dir / 'run.json'}):", err=True
    )
    for f in exc.failures[:MAX_PRINTED_FAILURES]:
        typer.echo(f"  game {f['game_index']} (seed {f['seed']}): {f['error']}", err=True)
        typer.echo(f"    replay: {f['replay']}", err=True)
    if exc.count > MAX_PRINTED_FAILURES:
        typer.echo(f"  ... and {exc.count - MAX_PRINTED_FAILURES:,} more", err=True)


# --------------------------------------------------------------------------------------------------
# commands


@app.command()
def games() -> None:
    """List the registered games, their agents (and the extra agents, names a game accepts beyond
    those the conformance suite plays) and the variants and studies that ship with balancer, each
    with its player counts; name a shipped file as <game>/<name> (citywright/v1.1) in any command,
    or copy one to edit with 'balancer init'."""
    from balancer.data import builtin_configs, builtin_name

    for name in sorted(GAMES):
        try:
            spec = get_spec(name)
            agents = ", ".join(spec.agents) or "?"
            extra = ", ".join(spec.extra_agents)
            agents += f" ({spec.agent_note})" if spec.agent_note else ""
        except Exception as exc:  # a game being written must not break the listing
            typer.echo(f"{name}: not available ({exc})")
            continue
        typer.echo(f"{name}  agents: {agents}" + (f"; also accepted: {extra}" if extra else ""))
        configs = builtin_configs(name)
        if not configs:
            typer.echo(f"  (no configs ship with {name})")
        for path in configs:
            typer.echo(f"  {builtin_name(path)}.yaml  {_describe_yaml(path)}")


@app.command()
def init(
    game: str = typer.Argument(..., help="Registered game whose starter files to write (see 'balancer games')."),
    directory: Path = typer.Argument(..., help="Folder to write variant.yaml and study.yaml into (created)."),
    force: bool = typer.Option(False, "--force", help="Replace starter files already in the folder."),
) -> None:
    """Write a starter rule variant (variant.yaml, extending the game's shipped main variant by name)
    and a study playing it against that variant (study.yaml) into DIRECTORY, for a designer to edit."""
    from balancer.data.starter import StarterError, write_starter

    try:
        written = write_starter(game, directory, force=force)
    except StarterError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{directory}: cannot write the starter files ({exc.strerror or exc})")
    for path in written:
        typer.echo(f"written: {path}")
    typer.echo(f"next: balancer validate {written[0]}; balancer study {written[1]}")


def _players(players: int | None, agents: str, cfg: Any, fallback: int) -> int:
    """The player count of a command (:func:`balancer.api.default_players`), or exit 2 for a count
    below 1."""
    from balancer.sim.runner import RunRequestError

    try:
        return api.default_players(players, agents, cfg, fallback)
    except RunRequestError as exc:
        _fail(str(exc))


def _extends(path: Path) -> str | None:
    """The ``extends:`` value of a YAML file, or None (unreadable files included)."""
    data = _read_yaml_head(path)
    return data.get("extends") if isinstance(data, dict) else None


def _read_yaml_head(path: Path) -> Any:
    """The top-level mapping of ``path`` (:func:`balancer.config.read_yaml_mapping`: size limit,
    safe loading), or None when it cannot be read, parsed or is not a mapping (the loaders say why)."""
    from balancer.config import read_yaml_mapping

    try:
        return read_yaml_mapping(path)
    except ConfigError:
        return None


def _is_study(head: Any) -> bool:
    """Whether a parsed YAML file (:func:`_read_yaml_head`) is a study file (:func:`balancer.api.is_study`)."""
    return api.is_study(head)


def _fragment_users(path: Path, head: Any) -> list[Path]:
    """The sibling YAML files that extend ``path`` when it is a fragment (a mapping without ``game:``
    or ``extends:``, e.g. Águeda's solo.yaml); [] otherwise."""
    if not isinstance(head, dict) or "game" in head or "extends" in head or "study" in head:
        return []
    return sorted(other for other in path.parent.glob("*.yaml") if other != path and _extends(other) == path.name)


def _describe_yaml(path: Path) -> str:
    """One line for ``balancer games``: a rule variant (name, player counts), a study (runs and
    variants), or why the file is neither."""
    from balancer.study import StudyError, load_study

    head = _read_yaml_head(path)  # None for bad YAML: load_config below says where (line:column)
    if _cli_sweep.is_sweep_or_tune(head):
        return _cli_sweep.describe(path, head)
    if _is_study(head):
        try:
            study, _ = load_study(path)
        except StudyError as exc:
            return f"INVALID study: {str(exc).splitlines()[0]}"
        return f"study {study.study}: runs {', '.join(study.runs)}; variants {', '.join(study.variants)}"
    users = _fragment_users(path, head)
    if users:
        return f"fragment, extended by {', '.join(u.name for u in users)}"
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        return f"INVALID: {str(exc).splitlines()[0]}"
    return f"{getattr(cfg, 'variant', '')}  players {_counts_text(getattr(cfg, 'player_counts', None))}"


@app.command()
def validate(
    config: Path = typer.Argument(
        ...,
        help="Rule-variant YAML file to check (its extends: chain is followed), a "
        "study file (its variants too), or a fragment (the files extending "
        "it are checked). With --schema, a registered game name also works.",
    ),
    schema: bool = typer.Option(
        False,
        "--schema",
        help="Print the JSON schema of the config's game instead "
        "(of a study file: the study schema), for editor "
        "completion of YAML.",
    ),
    assumed: bool = typer.Option(
        False,
        "--assumed",
        help="After OK, list every value the config marks "
        "'assumed' (where the rulebook is silent), one per "
        "line with its key path and why.",
    ),
) -> None:
    """Check a config: print 'OK: ...' and exit 0, or print every problem (file, key path, what is
    allowed) and exit 2. With --assumed, also list the config's assumed values."""
    if schema:
        game = str(config)
        if game not in GAMES and _is_study(_read_yaml_head(config)):
            from balancer.study.model import Study

            typer.echo(json.dumps(Study.model_json_schema(), indent=2))  # the study file's own schema
            return
        if game not in GAMES:
            try:
                named = resolve_yaml(config).data.get("game")
            except ConfigError as exc:
                _fail(str(exc))
            if not isinstance(named, str) or named not in GAMES:
                _fail(f"{config}: game: unknown or missing game {named!r}, allowed: {', '.join(sorted(GAMES))}")
            game = named
        typer.echo(json.dumps(export_schema(game), indent=2))
        return
    head = _read_yaml_head(config)
    if _cli_sweep.is_sweep_or_tune(head):
        _cli_sweep.validate_file(config, head)
        return
    if _is_study(head):
        _validate_study(config)
        return
    users = _fragment_users(config, head)
    if users:
        typer.echo(
            f"{config}: a fragment (no game:), extended by {', '.join(u.name for u in users)}; validating those instead"
        )
        for user in users:
            _validate_config(user, assumed)
        return
    _validate_config(config, assumed)


def _validate_config(config: Path, assumed: bool = False) -> None:
    """Print 'OK: ...' (and the game's own description of the config; with ``assumed``, every
    ``assumed:`` note of the resolved config), or exit 2 with the error."""
    cfg, spec = _load(config)
    counts = _counts_text(getattr(cfg, "player_counts", None))
    typer.echo(f"OK: {config} ({cfg.game} {getattr(cfg, 'variant', '')}, players {counts})")
    if spec.describe_config is not None:  # optional: a game's data check (e.g. a deck's distribution)
        typer.echo(spec.describe_config(cfg))
    if assumed:
        from balancer.config import assumed_notes

        notes = assumed_notes(resolve_yaml(config).data)
        typer.echo(
            f"assumed ({len(notes)}; the rulebook is silent, replace them in the YAML when the real values are known):"
        )
        for note in notes:
            typer.echo(f"  - {note}")


def _validate_study(path: Path) -> None:
    """Check a study file, its variant configs, that every cell can be played and that every metric
    or label a figure shows exists (one game of each such run is played to learn them); print
    'OK: study ...' or exit 2 naming the file and key."""
    from balancer.study import StudyError, load_study
    from balancer.study.runner import check_figures, figure_runs, load_variants, probe_tables

    try:
        study, configs = load_study(path)
        loaded = load_variants(study, configs, path, study.seed, 1)
        if figure_runs(study):
            # the metrics and labels a figure names: learnt from one game of its run, as `study` does
            _compile_note(get_spec(study.game))
            check_figures(study, path, probe_tables(study, loaded, study.seed, figure_runs(study)))
    except (StudyError, ConfigError, ValueError) as exc:
        _fail(str(exc))
    typer.echo(
        f"OK: study {study.study}: runs {', '.join(study.runs)}; variants {', '.join(study.variants)} "
        f"({study.game}, {path})"
    )


@app.command()
def run(
    config: Path = typer.Argument(..., help="Rule-variant YAML file."),
    players: int | None = typer.Option(
        None,
        "--players",
        "-p",
        help="Number of players (seats) per game [default: the number of --agents when a list is given, else the variant's only player count, else 4].",
    ),
    n_games: int = typer.Option(1000, "--games", "-n", help="Number of games to play (at least 1)."),
    agents: str = typer.Option(
        "greedy",
        "--agents",
        "-a",
        help="Agents: one name for every seat, or a comma list with exactly one per seat (seats rotate every game).",
    ),
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
        None, "--out", "-o", help="Output directory [default: results/<game>-<variant>-<players>p]."
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
) -> None:
    """Play games between AI players and write results.parquet, run.json and summary.json.

    Exit 1 when some games raised (the others are written; each failing game is listed with the
    'balancer play' command that replays it). Ctrl-C keeps the finished chunks and prints the
    --resume command.
    """
    from balancer.sim.runner import (
        GamesFailedError,
        ResultsExistError,
        RunInterrupted,
        RunRequestError,
        default_out_dir,
        seat_win_rates,
    )

    cfg, _ = _load(config)
    players = _players(players, agents, cfg, 4)
    out_dir = out if out is not None else default_out_dir(cfg.game, cfg.variant, players)
    where = "--out " if out is not None else "output directory "
    failed = None
    try:
        with _sigterm_as_interrupt():
            result = api.run(
                config, players, agents, n_games, seed, jobs, out_dir, force=force, resume=resume,
                chunk_size=chunk_size, scheduler=scheduler or None, until_ci=until_ci, max_games=max_games,
                progress=not quiet, command=_command_line(), note=_note, log=None if quiet else _note,
            )  # fmt: skip
        until = result.until
        if until_ci is not None and until is not None:
            reached = "reached" if until.widest_half_width <= until_ci else "NOT reached (--max-games)"
            typer.echo(
                f"--until-ci {until_ci:g}: played {until.games:,} games in {len(until.batches)} batches; "
                f"the widest interval ({until.widest}) is +/-{until.widest_half_width:.4f}, {reached}; "
                f"theory asks for {until.theory_games:,.0f} games (z^2 p(1-p)/h^2)"
            )
    except GamesFailedError as exc:
        failed = exc
    except RunInterrupted as exc:
        typer.echo(
            f"interrupted: {exc.done:,} of {exc.games:,} games are saved in {out_dir} "
            f"(the chunk in flight was discarded); continue with:\n  {_resume_command(out_dir)}",
            err=True,
        )
        raise typer.Exit(130) from None
    except (ResultsExistError, NotADirectoryError) as exc:
        _fail(f"{where}{exc}")
    except ConfigError as exc:
        _fail(str(exc))
    except RunRequestError as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(f"{config}: {exc}")
    except OSError as exc:
        _fail(f"{where}{out_dir}: cannot write results ({exc.strerror or exc})")
    except KeyboardInterrupt:
        typer.echo("interrupted; nothing was written", err=True)
        raise typer.Exit(130) from None
    if failed is not None:
        if (out_dir / "results.parquet").is_file():
            typer.echo(f"results: {out_dir / 'results.parquet'} (without the failing games)")
        _report_failures(failed)
        raise typer.Exit(1)
    typer.echo(f"results: {out_dir / 'results.parquet'}")
    if not quiet and players == 1:
        # a solo seat always "wins" its table: the game's own result (its declared solo result), if it has one
        from balancer.stats.solo import solo_result

        summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
        solo = solo_result(summary, get_spec(cfg.game).metrics)
        if solo is not None:
            typer.echo(
                f"solo win rate: {solo['rate']:.1%} ({solo['ci_low']:.1%} to {solo['ci_high']:.1%}, "
                f"{solo['wins']:,} of {solo['games']:,} games)"
            )
        for row in summary.get("score_by_seat", [])[:1]:
            typer.echo(f"solo score: {row['mean']:.1f} points ({row['ci_low']:.1f} to {row['ci_high']:.1f})")
    elif not quiet:
        rates = seat_win_rates(out_dir)
        typer.echo("seat win rates: " + "  ".join(f"{s}: {r:.1%}" for s, r, _ in rates["seat"]))
        if len(rates["agent"]) > 1:
            typer.echo("agent win rates: " + "  ".join(f"{a}: {r:.1%}" for a, r, _ in rates["agent"]))


@app.command()
def report(
    results_dir: Path = typer.Argument(..., help="Directory written by 'balancer run' (results.parquet, run.json)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="HTML file to write [default: reports/<dirname>.html]."),
) -> None:
    """Render the self-contained HTML report of a results directory (the summary is recomputed
    from results.parquet; a summary.json that disagrees with it is refused)."""
    if not results_dir.is_dir():
        _fail(f"{results_dir}: no such results directory")
    from balancer.sim.runner import MANIFEST_FILE

    if (results_dir / MANIFEST_FILE).is_file() and not (results_dir / "results.parquet").is_file():
        _fail(
            f"{results_dir}: an unfinished run ({MANIFEST_FILE}, no results.parquet yet); finish it by repeating "
            f"its 'balancer run' command with --resume, then report it"
        )
    for name in ("results.parquet", "run.json"):
        if not (results_dir / name).is_file():
            _fail(f"{results_dir}: missing {name}; is this a directory written by 'balancer run'?")
    from balancer.report.render import ReportOutputError

    target = out if out is not None else Path("reports") / f"{results_dir.resolve().name}.html"
    where = "--out " if out is not None else "report file "
    try:
        written = api.report(api.RunResult(results_dir), target)
    except ReportOutputError as exc:
        _fail(f"{where}{exc}")
    except (FileNotFoundError, ValueError) as exc:  # ResultsFileError names the file
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{results_dir}: cannot read ({exc.strerror or exc})")
    typer.echo(f"report: {written}")


@app.command()
def pairs(
    results_dir: Path = typer.Argument(..., help="Directory written by 'balancer run' whose games carry a pair label."),
    label: str = typer.Option(
        ..., "--label", "-l", help="Label naming a pair per game, e.g. 'shops' (column label_shops)."
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="HTML file to write [default: reports/<dirname>-<label>.html]."
    ),
    figures_dir: Path | None = typer.Option(None, "--figures", help="Also write the heatmaps as PNG files into DIR."),
) -> None:
    """Heatmaps of a run by a pair label: the first seat's win rate, the seat spread and the winning
    margin of every pair (e.g. Águeda's shop cards), and the most one-sided pairs."""
    from balancer.report.pairs import render_pairs

    if not results_dir.is_dir():
        _fail(f"{results_dir}: no such results directory")
    target = out if out is not None else Path("reports") / f"{results_dir.resolve().name}-{label}.html"
    _check_out_file("--out" if out is not None else "report file", target, "an HTML file")
    if figures_dir is not None:
        _check_out_directory("--figures", figures_dir)
    try:
        written = render_pairs(results_dir, label, target, figures_dir)
    except KeyError as exc:
        _fail(f"{results_dir}: --label {label}: {exc.args[0]}")
    except (FileNotFoundError, ValueError) as exc:
        _fail(f"{results_dir}: {exc}")
    typer.echo(f"pairs: {written}")


@app.command()
def score(
    config: Path = typer.Argument(..., help="Rule-variant YAML file whose scoring rules to use."),
    table_file: Path = typer.Argument(
        ...,
        help="Text file with a final position drawn as the game's section of the "
        "README shows (Citywright: a drawn table, one line per row, one "
        "character per cell; Águeda and Urban Sketchers: their own formats).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the breakdown as a JSON object."),
) -> None:
    """Score a hand-drawn final position (a table, a board) and print its category breakdown."""
    cfg, spec = _load(config)
    scorer = spec.score_table_text
    if scorer is None:
        _fail(f"game {cfg.game!r} cannot score a table from text")
    try:
        text = table_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        _fail(f"{table_file}: file not found")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{table_file}: cannot read: {exc}")
    try:
        breakdown = scorer(cfg, text)
    except ValueError as exc:
        _fail(f"{table_file}: {exc}")
    if as_json:
        typer.echo(json.dumps(breakdown, indent=2))
        return
    width = max(len(str(k)) for k in breakdown)
    for key, value in breakdown.items():
        typer.echo(f"{str(key).replace('_', ' '):<{width}}  {value:>5}")


@app.command()
def play(
    config: Path = typer.Argument(..., help="Rule-variant YAML file."),
    players: int | None = typer.Option(
        None,
        "--players",
        "-p",
        help="Number of players (seats) [default: the number of --agents when a list is given, else the variant's only player count, else 2].",
    ),
    seed: int = typer.Option(1, "--seed", help="Game seed (game 0 of a run with this seed), 0 to 2^63-1."),
    agents: str = typer.Option(
        "greedy", "--agents", "-a", help="One agent for every seat, or one per seat, comma-separated."
    ),
    game_index: int = typer.Option(
        0,
        "--game-index",
        min=0,
        help="Play game I of the run with this seed (its seed SeedSequence(seed, "
        "spawn_key=(I,)) and its seats, rotated I times), as a failing game "
        "of 'balancer run' is reported.",
    ),
) -> None:
    """Play one game and print its turn-by-turn transcript."""
    from balancer.core.seeding import game_seed
    from balancer.core.tables import seat_agents
    from balancer.sim.runner import RunRequestError, check_run, parse_agents

    cfg, spec = _load(config)
    players = _players(players, agents, cfg, 2)
    try:
        seats = parse_agents(agents, players)
        check_run(spec, cfg, seats, 1, seed, source=str(config))
        text = spec.transcript(cfg, seat_agents(seats, game_index), game_seed(seed, game_index))
    except RunRequestError as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(f"{config}: {exc}")
    typer.echo(text.rstrip("\n"))


@app.command()
def compare(
    config_a: Path = typer.Argument(..., help="Rule-variant YAML file to compare from (A)."),
    config_b: Path = typer.Argument(..., help="Rule-variant YAML file to compare to (B); same game as A."),
    players: int | None = typer.Option(
        None,
        "--players",
        "-p",
        help="Number of players (seats) per game [default: the number of --agents when a list is given, else the variant's only player count, else 4].",
    ),
    n_games: int = typer.Option(
        1000, "--games", "-n", help="Games per variant (at least 1); both variants play the same game seeds."
    ),
    agents: str = typer.Option(
        "greedy",
        "--agents",
        "-a",
        help="Agents: one name for every seat, or a comma list with exactly one per seat (seats rotate every game).",
    ),
    seed: int = typer.Option(
        1,
        "--seed",
        help="Run seed shared by both variants (common random numbers): "
        "game i uses SeedSequence(seed, spawn_key=(i,)) in A and B.",
    ),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Worker processes; -1 uses all cores."),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Output directory for both runs and comparison.json [default: results/compare-<a>-vs-<b>-<players>p].",
    ),
    report_html: Path | None = typer.Option(
        None,
        "--report",
        metavar="HTML",
        help="HTML comparison page to write [default: reports/compare-<a>-vs-<b>-<players>p.html].",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Play both variants again, overwriting results in the "
        "output directory (matching runs are reused otherwise).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
) -> None:
    """Play two rule variants with the same seeds and report paired differences (from -> to, 95% CI)."""
    from balancer.compare import default_compare_names
    from balancer.sim.runner import GamesFailedError, ResultsExistError

    cfg_a, _ = _load(config_a)  # exit 2 with file and key path on a bad config
    _load(config_b)
    players = _players(players, agents, cfg_a, 4)
    name = default_compare_names(config_a, config_b, players)
    out_dir = out if out is not None else Path("results") / name
    html = report_html if report_html is not None else Path("reports") / f"{name}.html"
    if out is not None and out.suffix.lower() in (".html", ".htm"):
        _fail(f"--out {out}: --out is the directory for both variants' results; give the HTML page with --report {out}")
    _check_out_file("--report" if report_html is not None else "report file", html, "an HTML file")
    _check_out_directory("--out" if out is not None else "output directory", out_dir)
    try:
        with _sigterm_as_interrupt():
            compared = api.compare(
                config_a, config_b, players, agents, n_games, seed, jobs, out_dir, force=force, progress=not quiet,
                command=_command_line(),
            )  # fmt: skip
    except GamesFailedError as exc:
        _report_failures(exc)
        raise typer.Exit(1) from None
    except ConfigError as exc:
        _fail(str(exc))
    except (ResultsExistError, NotADirectoryError, ValueError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("interrupted; finished runs are kept, and the same command continues the unfinished one", err=True)
        raise typer.Exit(130) from None
    written = api.report(compared, html)
    typer.echo(f"results: {out_dir / 'comparison.json'}")
    typer.echo(f"report: {written}")
    if not quiet:
        result = compared.comparison
        for row in result["agent_win_rate"] + result["seat_win_rate"]:
            if row["difference"] is None:
                continue
            mark = " *" if row["significant"] else ""
            typer.echo(f"{row['name']}: {row['from']:.1%} -> {row['to']:.1%} ({100 * row['difference']:+.1f} pp){mark}")


@app.command()
def study(
    study_file: Path = typer.Argument(
        ...,
        help="Study YAML file: variants, runs (players, agents, games) and "
        "figures with published values (see configs/citywright/appendix.yaml).",
    ),
    out_html: Path | None = typer.Option(
        None, "--out", "-o", metavar="HTML", help="HTML report to write [default: reports/<study>.html]."
    ),
    figures: Path | None = typer.Option(
        None, "--figures", metavar="DIR", help="Also write every figure as SVG and PNG files into DIR."
    ),
    results: Path = typer.Option(
        Path("results"), "--results", metavar="DIR", help="Where each cell's results go: DIR/<study>/<run>/<variant>/."
    ),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Worker processes; -1 uses all cores."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Replay every cell, even those already finished "
        "(finished cells of the same request are reused otherwise).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars or per-cell lines."),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        envvar="BALANCER_SCHEDULER",
        metavar="ADDRESS",
        help="Play on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); --jobs is then ignored.",
    ),
) -> None:
    """Run every cell of a study (variants x runs) and render one report with the published values beside ours
    (a study with a ladder: section gets the ladder report: seats by rung, match-ups, ratings, skill depth)."""
    from balancer.report.study import render_study
    from balancer.sim.runner import GamesFailedError, ResultsExistError
    from balancer.study import StudyError, load_study, run_study, study_changes

    try:
        spec, _ = load_study(study_file)
    except StudyError as exc:
        _fail(str(exc))
    html = out_html if out_html is not None else Path("reports") / f"{spec.study}.html"
    _check_out_file("--out" if out_html is not None else "report file", html, "an HTML file")
    if figures is not None:
        _check_out_directory("--figures", figures)
    _check_out_directory("--results", results)
    log = None if quiet else (lambda line: typer.echo(line, err=True))
    try:
        _compile_note(get_spec(spec.game))
        with _sigterm_as_interrupt():
            result = run_study(
                study_file,
                results_root=results,
                jobs=jobs,
                force=force,
                progress=not quiet,
                log=log,
                scheduler=scheduler or None,
            )
    except GamesFailedError as exc:
        _report_failures(exc)
        raise typer.Exit(1) from None
    except (StudyError, ConfigError) as exc:
        _fail(str(exc))
    except (ValueError, ResultsExistError) as exc:  # ResultsExistError: a cell another study is writing (run.lock)
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo(
            "interrupted; finished cells are kept and will be reused, the unfinished one is continued "
            "when the study is run again",
            err=True,
        )
        raise typer.Exit(130) from None
    try:
        if spec.ladder is not None:
            written = _cli_ladder.render_and_echo(result, html, figures)
        else:
            written = render_study(result, study_changes(result), html, figures_dir=figures)
    except (KeyError, ValueError, OSError) as exc:  # checked before playing; a last guard, never a traceback
        _fail(
            f"{study_file}: the report could not be made ({exc}); the finished cells are kept in "
            f"{results} and reused when the study is run again"
        )
    typer.echo(f"report: {written}")
    if figures is not None:
        typer.echo(f"figures: {figures}")
    typer.echo(
        f"{result.games:,} games in {len(result.cells)} cells; playing them took "
        f"{result.simulated_seconds:,.0f} s, this run {result.wall_seconds:,.0f} s"
    )


baseline_app = typer.Typer(
    help="Baselines of a study's numbers, for 'balancer check'.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(baseline_app, name="baseline")


@baseline_app.command("save")
def baseline_save(
    study_file: Path = typer.Argument(..., help="Study YAML file (see configs/citywright/ci.yaml)."),
    out: Path = typer.Option(
        ..., "--out", "-o", metavar="JSON", help="Baseline file to write, e.g. baselines/NAME.json."
    ),
    results: Path = typer.Option(
        Path("results"),
        "--results",
        metavar="DIR",
        help="Where the study's cells are played: DIR/<study>/<run>/<variant>/.",
    ),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Worker processes; -1 uses all cores."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing baseline file."),
    replay: bool = typer.Option(False, "--replay", help="Replay every cell (finished cells are reused otherwise)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars or per-cell lines."),
) -> None:
    """Run a study and store each cell's tracked numbers (seat and agent win rates, metric means, with
    games, successes or mean and variance), the seed, config and engine hashes and the version."""
    from balancer.check import save_baseline
    from balancer.sim.runner import GamesFailedError
    from balancer.study import StudyError, load_study

    try:
        spec, _ = load_study(study_file)
    except StudyError as exc:
        _fail(str(exc))
    _check_out_file("--out", out, "a JSON file")
    if out.exists() and not force:
        _fail(f"--out {out}: already exists; use --force to replace the baseline")
    _check_out_directory("--results", results)
    log = None if quiet else (lambda line: typer.echo(line, err=True))
    try:
        with _sigterm_as_interrupt():
            data = save_baseline(
                study_file, out, results_root=results, jobs=jobs, force_replay=replay, progress=not quiet, log=log
            )
    except GamesFailedError as exc:
        _report_failures(exc)
        raise typer.Exit(1) from None
    except (StudyError, ConfigError, ValueError) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"--out {out}: cannot write ({exc.strerror or exc})")
    except KeyboardInterrupt:
        typer.echo("interrupted; no baseline was written", err=True)
        raise typer.Exit(130) from None
    numbers = sum(len(c["numbers"]) for c in data["cells"])
    chosen = spec.check.metrics
    tracked = sum(1 for c in data["cells"] for key in c["numbers"] if ":" in key or chosen is None or key in chosen)
    note = (
        ""
        if tracked == numbers
        else (
            f"; check tracks {tracked} of them (the win rates and the metrics "
            f"in check.metrics), the rest are stored for a later choice"
        )
    )
    typer.echo(f"baseline: {out} ({len(data['cells'])} cells, {numbers} numbers, seed {data['seed']}{note})")


@app.command()
def check(
    study_file: Path = typer.Argument(..., help="Study YAML file whose baseline to check against."),
    baseline: Path = typer.Option(
        ..., "--baseline", "-b", metavar="JSON", help="Baseline written by 'balancer baseline save'."
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Seed to play [default: derived from the baseline's seed, never equal to it]."
    ),
    max_games: int | None = typer.Option(
        None,
        "--max-games",
        min=1,
        help="Game cap per cell [default: the study's check.max_games, else the baseline's games].",
    ),
    false_alarm: float | None = typer.Option(
        None,
        "--false-alarm",
        help="Chance that an unchanged study fails, over all numbers [default: the study's check: setting, else 0.01].",
    ),
    miss_rate: float | None = typer.Option(
        None,
        "--miss-rate",
        help="Chance of passing a change as large as the tolerance [default: the study's check: setting, else 0.1].",
    ),
    tolerance_win_rate: float | None = typer.Option(
        None,
        "--tolerance-win-rate",
        help="Smallest win-rate change to find, as a fraction [default: the study's, else 0.02 = 2 points].",
    ),
    tolerance_metric_sd: float | None = typer.Option(
        None,
        "--tolerance-metric-sd",
        help="Smallest metric change to find, in baseline standard "
        "deviations of its per-game value [default: the study's, else 0.1].",
    ),
    looks: int | None = typer.Option(None, "--looks", help="Looks (batches) per cell [default: the study's, else 4]."),
    junit: Path | None = typer.Option(
        None, "--junit", metavar="XML", help="Also write JUnit XML, one test case per number."
    ),
    markdown: Path | None = typer.Option(None, "--markdown", metavar="MD", help="Also write a Markdown summary table."),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Worker processes; -1 uses all cores."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No per-cell lines."),
) -> None:
    """Replay a study with a new seed and test every tracked number against its baseline and the study's
    expect: targets (group-sequential test; see docs/statistics.md). Exit 0 pass, 1 fail, 2 bad input."""
    from pydantic import ValidationError

    from balancer.check import BaselineError, load_baseline, print_table, run_check, write_junit, write_markdown
    from balancer.check.run import CheckGameError
    from balancer.sim.runner import ResultsExistError
    from balancer.study import StudyError, load_study

    try:
        spec, _ = load_study(study_file)
        data = load_baseline(baseline)
    except (StudyError, BaselineError) as exc:
        _fail(str(exc))
    for flag, path in (("--junit", junit), ("--markdown", markdown)):
        if path is not None:
            _check_out_file(flag, path)
    if junit is not None and markdown is not None and junit.resolve() == markdown.resolve():
        _fail(f"--junit and --markdown: both name {junit}; give two files")
    overrides: dict[str, Any] = {
        "max_games": max_games,
        "false_alarm": false_alarm,
        "miss_rate": miss_rate,
        "looks": looks,
    }
    settings_data = spec.check.model_dump()
    settings_data.update({k: v for k, v in overrides.items() if v is not None})
    for key, value in (("win_rate", tolerance_win_rate), ("metric_sd", tolerance_metric_sd)):
        if value is not None:
            settings_data["tolerance"][key] = value
    try:
        settings = type(spec.check).model_validate(settings_data)
    except ValidationError as exc:
        err = exc.errors()[0]
        _fail(f"--{'-'.join(map(str, err['loc'])).replace('_', '-')}: {err['msg']}")
    log = None if quiet else (lambda line: typer.echo(line, err=True))
    try:
        with _sigterm_as_interrupt():
            result = run_check(study_file, data, baseline, settings=settings, seed=seed, jobs=jobs, log=log)
    except CheckGameError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except (StudyError, BaselineError, ConfigError, ValueError, ResultsExistError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("interrupted; nothing was written", err=True)
        raise typer.Exit(130) from None
    print_table(result)
    for writer, path in ((write_junit, junit), (write_markdown, markdown)):
        if path is not None:
            try:
                typer.echo(f"written: {writer(result, path)}")
            except OSError as exc:
                _fail(f"{path}: cannot write ({exc.strerror or exc})")
    raise typer.Exit(0 if result.passed else 1)


# `sweep` and `tune` live in their own module; importing it registers them on `app`.
from balancer import cli_ladder as _cli_ladder  # noqa: E402,F401  (`ladder`)
from balancer import cli_sweep as _cli_sweep  # noqa: E402,F401


def main() -> None:  # pragma: no cover - console entry alternative
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
