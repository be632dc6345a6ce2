"""Compare two rule variants of one game with common random numbers (``balancer compare``).

Both variants are played with the same agents, player count, number of games and seed, so game *i*
of A and game *i* of B share their seed and their deals wherever the rules allow (docs/architecture.md,
"Determinism"); their results are then compared game by game with
:func:`balancer.stats.paired.paired_differences`.

Layout of ``out_dir``::

    a-<variant A>/      results.parquet, run.json, summary.json (balancer.sim.runner.run_to_dir)
    b-<variant B>/      the same for B
    comparison.json     what was compared, and the paired differences

A run already in ``a-...``/``b-...`` whose ``run.json`` matches the request (same config hash,
seed, games, agents by seat, players) is reused instead of played again; one that does not match is
never overwritten unless ``force``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from balancer.config import config_sha256, load_config
from balancer.games import get_spec
from balancer.naming import input_label, safe_name
from balancer.outdir import write_atomic
from balancer.sim.progress import Overall, cells_overall
from balancer.sim.rundir import COMPARISON_FILE, RunDir
from balancer.sim.runner import (
    RESULTS_FILE,
    ResultsExistError,
    check_out_dir,
    check_run,
    engine_sha256,
    parse_agents,
    run_to_dir,
)
from balancer.stats.fairness import seat_spread_headline
from balancer.stats.paired import adjust_family, paired_differences

__all__ = [
    "play_comparison",
    "play_comparisons",
    "run_dir_name",
    "default_compare_names",
    "agents_label",
    "COMPARISON_FILE",
]


def run_dir_name(side: str, variant: str) -> str:
    """``run_dir_name("a", "v1.0") -> "a-v1.0"`` (the variant made safe for a file name)."""
    return f"{side}-{safe_name(variant)}"


def agents_label(agents: str | Sequence[str], limit: int = 40) -> str:
    """An agents request's part of a default name: ``""`` for the default (greedy in every seat),
    else the seats' agents joined by '-' and made safe (``"mcts,greedy" -> "mcts-greedy"``,
    ``"mcts@200" -> "mcts_200"``; one name when every seat has the same agent), or 8 hex digits of
    their SHA-256 when longer than ``limit`` characters."""
    import hashlib

    names = [a.strip() for a in (agents.split(",") if isinstance(agents, str) else agents) if str(a).strip()]
    if len(set(names)) == 1:
        names = names[:1]
    if not names or names == ["greedy"]:
        return ""
    label = "-".join(safe_name(n) for n in names)
    return label if len(label) <= limit else hashlib.sha256(",".join(names).encode()).hexdigest()[:8]


def default_compare_names(
    config_a: Path | str,
    config_b: Path | str,
    players: int,
    agents: str | Sequence[str] = "greedy",
    others: Sequence[Path | str] = (),
) -> str:
    """``compare-<game>-<a>-vs-<b>-<p>p`` (for ``results/`` and ``reports/``) from the game and the
    variants' own names (``compare-citywright-v1.0-vs-v1.1-4p``); a variant that is not a shipped
    file also carries a short hash of its resolved path (:func:`balancer.naming.input_label`), so
    distinct inputs get distinct names. ``others``: more variants compared against A
    (``compare-citywright-v1.0-vs-v1.1-v1.1-tuned-4p``). Agents other than the default (greedy in
    every seat) end the name (:func:`agents_label`: ``...-4p-mcts-greedy``), so a comparison with
    other agents never lands in the folder of an earlier one. Raises ConfigError for a missing or
    invalid config."""
    cfg_a, cfg_b = load_config(config_a), load_config(config_b)
    a, b = input_label(config_a, cfg_a.variant), input_label(config_b, cfg_b.variant)
    for other in others:
        b += "-" + input_label(other, load_config(other).variant)
    label = agents_label(agents)
    return f"compare-{safe_name(cfg_a.game)}-{a}-vs-{b}-{players}p" + (f"-{label}" if label else "")


def _matching_run(
    run_dir: Path, sha: str, seed: int, games: int, agents: list[str], engine: str | None = None
) -> bool | None:
    """True if ``run_dir`` holds finished results of exactly this request, False if it holds other
    results, None if it holds none."""
    run = RunDir(run_dir)
    if not run.holds_results():
        return None
    expected = {"config_sha256": sha, "seed": seed, "games": games, "agents": agents, "n_players": len(agents)}
    if engine is not None:
        expected["engine_sha256"] = engine
    return run.is_finished(expected)


def _other_comparison(path: Path, request: dict[str, Any]) -> bool:
    """True when ``path`` (a ``comparison.json``) exists and holds another request than ``request``
    (any key differs, or the file cannot be read as one); False when absent or the same request."""
    try:
        if not path.exists() and not path.is_symlink():
            return False
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    return not isinstance(found, dict) or any(found.get(k) != v for k, v in request.items())


def _completion_of(run_dir: Path) -> dict[str, Any] | None:
    """The ``completion`` of a side's ``summary.json`` (games a safety stop ended), or None."""
    try:
        summary = json.loads(RunDir(run_dir).summary_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = summary.get("completion") if isinstance(summary, dict) else None
    return found if isinstance(found, dict) else None


def play_comparison(
    config_a: Path,
    config_b: Path,
    players: int,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int,
    out_dir: Path,
    force: bool = False,
    progress: bool = True,
    command: str = "",
    confidence: float = 0.95,
    file: str = COMPARISON_FILE,
    overall: Overall | None = None,
    base_played: bool = False,
) -> dict[str, Any]:
    """Play variants A and B with the same seed and write their paired comparison.

    Args:
        config_a, config_b: rule-variant YAML files of the same game (A is "from", B is "to").
        players: seats per game.
        agents: one agent name for every seat (``["greedy"]``), or one per seat (rotated every game);
            a single comma-separated string is also accepted.
        games: games per variant (at least 1).
        seed: run seed shared by both variants (common random numbers).
        jobs: worker processes (-1 = all cores); results do not depend on it.
        out_dir: directory for ``a-<variant>/``, ``b-<variant>/`` and ``comparison.json``.
        force: play both variants again even if matching results exist, overwriting them.
        progress: show a progress bar per run.
        command: the command line, recorded in each ``run.json``.
        confidence: level of the intervals (default 0.95).
        overall: the progress count to show (a page of several what-ifs counts all its runs);
            by default the count of this comparison's runs.
        base_played: A was played for this page already (by the comparison of an earlier
            variant): it is reused, even with ``force``.

    Returns:
        the dict written to ``out_dir/comparison.json``: the request (``game``, ``config_a``,
        ``config_b``, ``variant_a``, ``variant_b``, ``config_sha256_a/b``, ``n_players``,
        ``agents`` by seat of game 0, ``games``, ``seed``), ``run_a``/``run_b`` (directory names in
        ``out_dir``), ``reused`` (``{"a": bool, "b": bool}``), and every key of
        :func:`balancer.stats.paired.paired_differences` (``paired``, ``seat_win_rate``,
        ``agent_win_rate``, ``score``, ``metrics``, ...).

    Raises:
        balancer.config.ConfigError: a config is missing or invalid.
        ValueError: the configs are of different games (naming both files), or the request is bad
            (unknown agent, unsupported player count, games < 1, ...); nothing is played or written.
        ResultsExistError: a run directory holds results of a different request and not ``force``.
    """
    config_a, config_b, out_dir = Path(config_a), Path(config_b), Path(out_dir)
    cfg_a, cfg_b = load_config(config_a), load_config(config_b)
    if cfg_a.game != cfg_b.game:
        raise ValueError(
            f"cannot compare variants of different games: {config_a} is {cfg_a.game!r}, {config_b} is {cfg_b.game!r}"
        )
    spec = get_spec(cfg_a.game)
    if players < 1:
        raise ValueError(f"players: must be at least 1, got {players}")
    seats = parse_agents(",".join(agents) if not isinstance(agents, str) else agents, players)
    for path, cfg in ((config_a, cfg_a), (config_b, cfg_b)):
        try:
            check_run(spec, cfg, seats, games, seed, jobs)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    if out_dir.exists() and not out_dir.is_dir():
        raise NotADirectoryError(f"{out_dir}: exists and is not a directory")

    variant_a, variant_b = str(getattr(cfg_a, "variant", "")), str(getattr(cfg_b, "variant", ""))
    sides = {
        "a": (config_a, cfg_a, out_dir / run_dir_name("a", variant_a), config_sha256(config_a)),
        "b": (config_b, cfg_b, out_dir / run_dir_name("b", variant_b), config_sha256(config_b)),
    }
    # Decide for both sides before playing anything, so a refusal leaves nothing half done.
    request = {
        "game": cfg_a.game, "config_sha256_a": sides["a"][3], "config_sha256_b": sides["b"][3],
        "n_players": players, "agents": seats, "games": games, "seed": seed,
    }  # fmt: skip
    if not force and _other_comparison(out_dir / file, request):
        raise ResultsExistError.spelled(
            lambda o: (
                f"{out_dir / file} holds a comparison of a different request than {config_a} vs "
                f"{config_b} with these options; use {o.force} to overwrite it, or choose another {o.out}"
            )
        )
    reuse: dict[str, bool] = {}
    for side, (path, _, run_dir, sha) in sides.items():
        if side == "a" and base_played:
            reuse[side] = True
            continue
        match = _matching_run(run_dir, sha, seed, games, seats, engine_sha256(spec))
        reuse[side] = bool(match) and not force
        if match is False and not force:
            raise ResultsExistError.spelled(
                lambda o: (
                    f"{run_dir} holds results of a different run than {path} "  # noqa: B023 (raised at once)
                    f"with these options; use {o.force} to overwrite them, or choose another {o.out}"  # noqa: B023
                )
            )
        if not reuse[side]:
            check_out_dir(run_dir, force, resume=None)

    if overall is None:
        overall = _overall(sides, reuse, games)
    for side, (path, cfg, run_dir, _) in sides.items():
        if not reuse[side]:
            overall.begin_cell(run_dir.name, games)
            run_to_dir(
                spec,
                cfg,
                path,
                seats,
                games,
                seed,
                jobs,
                run_dir,
                force=force,
                command=command,
                progress=progress,
                resume=None,
                overall=overall,
                checked=True,  # both sides, above
            )

    import polars as pl

    table_a = pl.scan_parquet(sides["a"][2] / RESULTS_FILE, glob=False)
    table_b = pl.scan_parquet(sides["b"][2] / RESULTS_FILE, glob=False)
    diffs = paired_differences(table_a, table_b, confidence)
    diffs["fairness"] = seat_spread_headline(table_a, table_b, confidence)
    diffs.update(flow_rows(sides["a"][2], sides["b"][2], table_a, table_b, confidence))
    mark_mechanical(diffs, changed_sections(cfg_a, cfg_b), table_a, table_b)
    diffs["multiplicity"] = holm_page([diffs], confidence)
    result: dict[str, Any] = {
        "game": cfg_a.game,
        "config_a": str(config_a),
        "config_b": str(config_b),
        "variant_a": variant_a,
        "variant_b": variant_b,
        "config_sha256_a": sides["a"][3],
        "config_sha256_b": sides["b"][3],
        "same_rules": sides["a"][3] == sides["b"][3],
        "n_players": players,
        "agents": seats,
        "games": games,
        "seed": seed,
        "run_a": sides["a"][2].name,
        "run_b": sides["b"][2].name,
        "reused": reuse,
        "command": command,
        "completion": {side: _completion_of(run_dir) for side, (_, _, run_dir, _) in sides.items()},
        "mcts_iterations": {side: _mcts_iterations(cfg) for side, (_, cfg, _, _) in sides.items()},
        "checkpoint": spec.checkpoint,  # what ends a checkpoint of the trajectories (the leader-wins figure's axis)
        **diffs,
    }
    write_atomic(out_dir / file, json.dumps(result, indent=2, allow_nan=False) + "\n")
    return result


def play_comparisons(
    base: Path,
    variants: Sequence[Path],
    players: int,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int,
    out_dir: Path,
    force: bool = False,
    progress: bool = True,
    command: str = "",
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Several what-ifs on one page: play the base and every variant on the same seeds, compare each
    variant with the base (:func:`play_comparison`, the base played once and reused), and rank them by
    the fairness headline (the change of seat spread, fairest first).

    Layout of ``out_dir``: ``a-<base>/``, ``b-<variant>/`` per variant, ``comparison-b-<variant>.json``
    per variant (its comparison with the base), and ``comparison.json``: the request (``game``,
    ``config_a``, ``variant_a``, ``configs_b``, ``n_players``, ``agents``, ``games``, ``seed``),
    ``comparisons`` (each variant's comparison dict, in the order given), ``ranking`` (indices into
    ``comparisons``, fairest first) and ``multiplicity``: ONE Holm family across the page (every
    variant's headline and rows: :func:`holm_page`), so a page of many what-ifs flags no more often
    than a page of one. ``run_a``/``run_b`` name the base's and the first variant's runs.

    Raises what :func:`play_comparison` raises; ValueError when two variants would share a run folder
    (the same ``variant:`` name); ResultsExistError when
    ``comparison.json`` holds another request and not ``force``. Nothing is played before the checks.
    """
    base, out_dir = Path(base), Path(out_dir)
    paths = [Path(v) for v in variants]
    cfg_base = load_config(base)
    names = [str(getattr(load_config(v), "variant", "")) for v in paths]
    folders = [run_dir_name("b", n) for n in names]
    for i, folder in enumerate(folders):
        if folders.index(folder) != i:
            raise ValueError(
                f"{paths[i]}: its variant name {names[i]!r} is also {paths[folders.index(folder)]}'s; "
                "give each variant its own 'variant:' name"
            )
    seats = parse_agents(",".join(agents) if not isinstance(agents, str) else agents, players)
    request = {
        "game": cfg_base.game, "config_sha256_a": config_sha256(base),
        "config_sha256_b": [config_sha256(v) for v in paths], "n_players": players,
        "agents": seats,
        "games": games, "seed": seed,
    }  # fmt: skip
    if not force and _other_comparison(out_dir / COMPARISON_FILE, request):
        raise ResultsExistError.spelled(
            lambda o: (
                f"{out_dir / COMPARISON_FILE} holds a comparison of a different request than {base} vs "
                f"{', '.join(map(str, paths))} with these options; use {o.force} to overwrite it, or choose another {o.out}"
            )
        )
    # one count across the page's runs, the base played once: the second variant's run was
    # 'compare [1/1] b-<variant>', and with --force the base was played again for every variant
    engine = engine_sha256(get_spec(cfg_base.game))
    runs = [(out_dir / run_dir_name("a", str(getattr(cfg_base, "variant", ""))), base)]
    runs += [(out_dir / folder, path) for path, folder in zip(paths, folders)]
    overall = cells_overall(
        "compare",
        [games for run_dir, path in runs
         if force or not _matching_run(run_dir, config_sha256(path), seed, games, seats, engine)],
    )  # fmt: skip
    results = []
    for i, (path, folder) in enumerate(zip(paths, folders)):
        results.append(
            play_comparison(
                base,
                path,
                players,
                agents,
                games,
                seed,
                jobs,
                out_dir,
                force=force,
                progress=progress,
                command=command,
                confidence=confidence,
                file=f"comparison-{folder}.json",
                overall=overall,
                base_played=i > 0,
            )  # fmt: skip
        )
    multiplicity = holm_page(results, confidence)
    for folder, result in zip(folders, results):
        write_atomic(out_dir / f"comparison-{folder}.json", json.dumps(result, indent=2, allow_nan=False) + "\n")
    ranking = sorted(range(len(results)), key=lambda i: (results[i]["fairness"]["difference"], i))
    page = {
        **request,
        "config_a": str(base),
        "variant_a": str(getattr(cfg_base, "variant", "")),
        "configs_b": [str(p) for p in paths],
        "variants_b": names,
        "run_a": results[0]["run_a"],
        "run_b": results[0]["run_b"],
        "command": command,
        "confidence": confidence,
        "comparisons": results,
        "ranking": ranking,
        "multiplicity": multiplicity,
    }
    write_atomic(out_dir / COMPARISON_FILE, json.dumps(page, indent=2, allow_nan=False) + "\n")
    return page


ROW_SECTIONS = ("seat_win_rate", "agent_win_rate", "score", "metrics", "flow")
"""The sections of a comparison's rows (:func:`balancer.stats.paired.paired_differences`, and
``flow``: :func:`flow_rows`), every one in the page's Holm family."""


def flow_rows(run_a: Path, run_b: Path, table_a: Any, table_b: Any, confidence: float) -> dict[str, Any]:
    """How the game feels, B minus A game by game (issue 49; :func:`balancer.stats.flow.paired_flow`):
    ``flow`` (rows for the Holm family: margin and length from the results; leader wins, lead
    changes, comebacks and decided at when both runs hold ``trajectories.parquet``) and
    ``leader_wins_curve`` (the curve's per-checkpoint differences, descriptive: not in the family), and
    ``flow_trajectories`` (``{"a": bool, "b": bool}``: which run holds them, for the page to say why the
    trajectory rows are missing when one does not)."""
    import polars as pl

    from balancer.sim.results import ResultsFileError, read_trajectories
    from balancer.stats.flow import TRAJECTORIES_FILE, paired_flow, per_game_flow

    errors = (pl.exceptions.PolarsError, OSError)

    paths = [run / TRAJECTORIES_FILE for run in (run_a, run_b)]
    scans = [read_trajectories(run) for run in (run_a, run_b)]  # a reused run's file read as the report reads it
    traj = scans if all(t is not None for t in scans) else [None, None]
    try:
        flow = paired_flow(table_a, table_b, traj[0], traj[1], confidence)
    except (ValueError, *errors) as exc:
        # name the run's file that breaks the contract (checked again side by side, on this path only)
        for table, trajectories, run in ((table_a, traj[0], run_a), (table_b, traj[1], run_b)):
            try:
                per_game_flow(table, trajectories)
            except (ValueError, *errors) as broken:
                text = " ".join(str(broken).split())[:200]
                name = (
                    run / TRAJECTORIES_FILE if "trajector" in text or isinstance(broken, errors) else run / RESULTS_FILE
                )
                raise ResultsFileError(f"{name}: {text}") from None
        raise ResultsFileError(f"{paths[0]} or {paths[1]}: {' '.join(str(exc).split())[:200]}") from None
    return {
        "flow": flow["rows"],
        "leader_wins_curve": flow["leader_wins"],
        "flow_trajectories": {side: p.is_file() for side, p in zip("ab", paths)},
    }


def changed_sections(cfg_a: Any, cfg_b: Any) -> set[str]:
    """The top-level keys of two variants' configs whose values differ (``{"seat_bonus"}`` from
    v1.1 to v1.1-no-bonus); the variant's own name is no rule."""
    a, b = cfg_a.model_dump(), cfg_b.model_dump()
    return {k for k in set(a) | set(b) if k not in ("variant", "game") and a.get(k) != b.get(k)}


def mark_mechanical(diffs: dict[str, Any], changed: set[str], table_a: Any, table_b: Any) -> None:
    """Mark (``mechanical: True``, in place) the score components whose change follows from the rule
    change itself rather than from how the game is played: a component named after a changed section
    of the rules (the seat bonus's own points when ``seat_bonus`` changed), or one that is 0 in every
    game of one variant and not of the other (a source of points the change turned on or off), and
    the total when it moved by those points alone. Such rows are shown apart and left out of the flagged count (:func:`holm_page`)."""
    import polars as pl

    def all_zero(table: Any, column: str) -> bool | None:
        if column not in table.collect_schema().names():
            return None
        return bool(table.select((pl.col(column) == 0).all()).collect().item())

    for row in diffs.get("score") or []:
        name = str(row.get("name"))
        if name == "total" or row.get("identical"):
            continue
        za, zb = all_zero(table_a, f"score_{name}"), all_zero(table_b, f"score_{name}")
        if name in changed or (za is not None and zb is not None and za != zb):
            row["mechanical"] = True
    # the total too when it moved only by those points: every other component identical in every game
    # and the total's change theirs (v1.1 -> a smaller seat bonus: total -0.75 = the bonus's -0.75)
    rows = diffs.get("score") or []
    total = next((r for r in rows if r.get("name") == "total"), None)
    parts = [r for r in rows if r is not total]
    mech = [r for r in parts if r.get("mechanical")]
    if (
        total is not None
        and not total.get("identical")
        and mech
        and all(r.get("mechanical") or r.get("identical") for r in parts)
        and all(isinstance(r.get("difference"), (int, float)) for r in [total, *mech])
        and math.isclose(sum(r["difference"] for r in mech), total["difference"], rel_tol=1e-9, abs_tol=1e-9)
    ):
        total["mechanical"] = True


def holm_page(comparisons: Sequence[dict[str, Any]], confidence: float) -> dict[str, Any]:
    """One Holm family over every test of a page (in place): each comparison's fairness headline
    (``fairness``, when there) and its rows, the mechanical ones (:func:`mark_mechanical`) and rows
    identical in every game left out. A headline's ``verdict`` becomes "fairer" / "less fair" only
    when its Holm-adjusted p is below ``1 - confidence``, else "cannot tell". Returns the family's
    ``{method, family_size, alpha}``, also stored in each comparison's ``multiplicity``."""
    family: list[dict[str, Any]] = []
    for c in comparisons:
        head = c.get("fairness")
        if head:
            head["significant"] = head.get("verdict") != "cannot tell"
            head.pop("significant_alone", None)
            family.append(head)
        for key in ROW_SECTIONS:
            for row in c.get(key) or []:
                if "significant_alone" in row:  # paired_differences adjusted it alone: undo that
                    row["significant"] = row.pop("significant_alone")
                if row.get("mechanical"):
                    row["significant"], row["p_adjusted"] = False, None
                else:
                    family.append(row)
    multiplicity = adjust_family(family, confidence)
    for c in comparisons:
        head = c.get("fairness")
        if head:
            head["verdict"] = (
                ("fairer" if head["difference"] < 0 else "less fair") if head["significant"] else "cannot tell"
            )
        c["multiplicity"] = multiplicity
    return multiplicity


def _mcts_iterations(cfg: Any) -> int | None:
    """The variant's default MCTS budget (``agents.mcts.iterations``), shown beside a plain ``mcts``
    on the page (``mcts@60``); None when the game has none."""
    found = getattr(getattr(getattr(cfg, "agents", None), "mcts", None), "iterations", None)
    return int(found) if isinstance(found, int) else None


def _overall(sides: dict[str, tuple[Any, Any, Path, str]], reuse: dict[str, bool], games: int) -> Overall:
    """The count across the runs a comparison plays (the sides not reused), so that its progress
    names each run (``compare [1/2] a-v1.1``) and counts the games of both."""
    return cells_overall("compare", [games for side in sides if not reuse[side]])
