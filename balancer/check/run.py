"""``balancer check``: replay a study with a new seed and test every tracked number against its
baseline (and every ``expect:`` target) with the group-sequential test of
:mod:`balancer.stats.sequential`, cell by cell, in batches, stopping a cell once all its numbers are
decided. docs/statistics.md explains the test; the false-alarm rate is split over all tracked numbers
with Bonferroni's inequality.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from balancer.config import config_sha256
from balancer.games import get_spec
from balancer.outcomes import CheckResult, Item
from balancer.sim.batches import GameRaisedError, play_range_records
from balancer.sim.runner import MAX_SEED, engine_sha256, replay_command
from balancer.stats import sequential as sq
from balancer.study.model import CheckSettings, Study, load_study
from balancer.study.runner import load_variants

from .baseline import BaselineError, expect_items, probe_values
from .errors import CheckGameError, UnderpoweredError
from .values import AGENT, COMPLETION, FLOW_NUMBERS, SEAT, is_tracked, kind_of, moments, per_game_values

CHECK_SPAWN_KEY = 0x636865636B  # "check": the check seed is child (this key) of the baseline seed


def check_seed(baseline_seed: int) -> int:
    """The seed ``check`` plays with by default: derived from the baseline's seed (so a check is
    reproducible) and different from it (so it sees new games): the first 63 bits of
    ``SeedSequence(baseline_seed, spawn_key=(CHECK_SPAWN_KEY,))``."""
    state = np.random.SeedSequence(baseline_seed, spawn_key=(CHECK_SPAWN_KEY,)).generate_state(1, np.uint64)[0]
    return int(state) >> 1


def _tolerance(number: str, var: float, settings: CheckSettings) -> float:
    """The change a number's test must find: ``tolerance.win_rate`` for win rates, ``tolerance.metric_sd``
    baseline standard deviations (of the per-game value) for metrics."""
    own = settings.tolerance.numbers
    named = own.get(number, own.get(number.split(":")[0]))  # its own tolerance (check.tolerance.numbers)
    if kind_of(number) == "win_rate":
        return named if named is not None else settings.tolerance.win_rate
    return max((named if named is not None else settings.tolerance.metric_sd) * math.sqrt(var), 1e-12)


def plan_check(
    study: Study,
    study_path: Path,
    baseline: dict[str, Any],
    settings: CheckSettings,
    baseline_path: Path | str = "baseline",
) -> tuple[list[Item], list[str]]:
    """The items to test and notes for the reader. Raises BaselineError when the baseline belongs to
    another study or no longer matches its cells (naming what differs)."""
    where = str(baseline_path)
    if baseline["study"] != study.study:
        raise BaselineError(f"{where}: a baseline of study {baseline['study']!r}, not {study.study!r} ({study_path})")
    if baseline.get("game") not in (None, study.game):
        raise BaselineError(f"{where}: a baseline of game {baseline['game']!r}, the study plays {study.game!r}")
    cells = {(c["run"], c["variant"]): c for c in baseline["cells"]}
    wanted = {(r, v) for r in study.runs for v in study.variants}
    if set(cells) != wanted:
        missing = ", ".join(f"{r}/{v}" for r, v in sorted(wanted - set(cells))) or "none"
        extra = ", ".join(f"{r}/{v}" for r, v in sorted(set(cells) - wanted)) or "none"
        raise BaselineError(
            f"{where}: its cells do not match {study_path} (not in the baseline: {missing}; "
            f"only in the baseline: {extra}); save a new baseline"
        )
    notes: list[str] = []
    planned: list[Item] = []
    for (run_name, variant), cell in sorted(cells.items()):
        run = study.runs[run_name]
        if cell["players"] != run.players or list(cell["agents"]) != run.table:
            raise BaselineError(
                f"{where}: cell {run_name}/{variant} was played with {cell['players']} players "
                f"({', '.join(cell['agents'])}), the study now asks for {run.players} "
                f"({', '.join(run.table)}); save a new baseline"
            )
        check_cell_numbers(cell, baseline["cells"].index(cell), where, settings)
        numbers = {k: v for k, v in cell["numbers"].items() if is_tracked(k, settings.metrics)}
        for key, num in numbers.items():
            var, n_b = float(num["variance"]), int(num["games"])
            planned.append(
                Item(
                    run_name,
                    variant,
                    key,
                    kind_of(key),
                    "baseline",
                    [(num["mean"], 1), (num["mean"], -1)],
                    f"{num['mean']:.4g}",
                    float(num["mean"]),
                    var,
                    var / max(n_b, 1),
                    _tolerance(key, var, settings),
                    0.0,
                )
            )
        for key, bound in run.expect.items():
            for number, b in expect_items(run_name, variant, cell["numbers"], key, bound, str(study_path)):
                num = cell["numbers"][number]
                var = float(num["variance"])
                planned.append(
                    Item(
                        run_name,
                        variant,
                        number,
                        kind_of(number),
                        "expect",
                        b.sides,
                        b.text(),
                        float(num["mean"]),
                        var,
                        0.0,
                        _tolerance(number, var, settings),
                        0.0,
                    )
                )
    m = len(planned)
    for item in planned:
        item.alpha_side = settings.false_alarm / m / len(item.sides)  # Bonferroni over numbers and sides
    return planned, notes


def win_rate_numbers(agents: list[str]) -> list[str]:
    """The win rates a cell of the table ``agents`` (by seat, game 0) tracks: every seat's, and every
    agent's for a mixed table (in a mirror table an agent's rate is 1/n by construction)."""
    seats = [f"{SEAT}:{s}" for s in range(1, len(agents) + 1)]
    return seats + ([] if len(set(agents)) <= 1 else [f"{AGENT}:{a}" for a in dict.fromkeys(agents)])


def check_cell_numbers(cell: dict[str, Any], index: int, where: str, settings: CheckSettings) -> None:
    """Raise BaselineError (naming the file and ``cells.<i>.numbers.<number>``) when a baseline cell's
    numbers cannot be those ``baseline save`` writes for its table: a seat or agent win rate missing
    (deleted by hand) or impossible (``seat_win_rate:9`` of a 4-player cell, an agent not at the table,
    an agent rate of a mirror table), a key that is no tracked number, or a metric named in
    ``check.metrics`` that the cell lacks."""
    numbers = cell["numbers"]
    expected = win_rate_numbers(list(cell["agents"]))
    at = f"{where}: cells.{index}.numbers"
    for key in numbers:
        if key.startswith((SEAT + ":", AGENT + ":")) and key not in expected:
            raise BaselineError(
                f"{at}.{key}: no such number in cell {cell['run']}/{cell['variant']} "
                f"({cell['players']} players: {', '.join(cell['agents'])}); its win rates are "
                f"{', '.join(expected)}"
            )
        if (
            not key.startswith((SEAT + ":", AGENT + ":"))
            and not key.endswith("_per_player")
            and key not in (COMPLETION, *FLOW_NUMBERS)
        ):
            raise BaselineError(
                f"{at}.{key}: not a tracked number (seat_win_rate:<seat>, "
                "agent_win_rate:<agent>, completion, margin, length or <metric>_per_player)"
            )
    for key in expected + list(settings.metrics or []):
        if key not in numbers:
            why = "check.metrics tracks it" if key in (settings.metrics or []) else "every win rate is stored"
            raise BaselineError(
                f"{at}: {key} is missing from cell {cell['run']}/{cell['variant']} ({why}); "
                "the file was edited or truncated: save a new baseline"
            )


def missing_metrics(cell: dict[str, Any], reported: list[str], settings: CheckSettings) -> list[str]:
    """The tracked metrics the game reports (``reported``: keys of a probe game's per-game values) that
    the baseline cell lacks."""
    tracked = [k for k in reported if kind_of(k) == "metric" and (settings.metrics is None or k in settings.metrics)]
    return [k for k in tracked if k not in cell["numbers"]]


def _schedule(cap: int, looks: int, players: int) -> list[int]:
    games = sorted({max(players, players * math.ceil(cap * k / looks / players)) for k in range(1, looks + 1)})
    return games


def plan_cell(mine: list[Item], players: int, settings: CheckSettings, cap: float) -> list[int]:
    """The look schedule (new games after each look) of one cell whose items are ``mine``, at most
    ``cap`` games (``math.inf``: no cap): the games the planning formula asks for
    (:func:`balancer.stats.sequential.games_needed`), grown until the real design (its true
    information fractions) gives every number its power, or the cap is reached. Sets each item's
    ``design`` and ``detectable``."""
    need = max(
        sq.games_needed(i.tolerance, i.baseline_var, i.ref_var, settings.looks, i.alpha_side, settings.miss_rate)
        for i in mine
    )
    games = min(cap, need) if math.isfinite(need) else cap
    if not math.isfinite(games):
        games = 10**9  # the baseline alone is too noisy: no number of new games gives the power
    schedule = _schedule(players, settings.looks, players)
    for _ in range(20):  # the plan assumed equally informative looks; grow it until the real design is powered
        schedule = _schedule(max(int(math.ceil(games)), players), settings.looks, players)
        for i in mine:
            i.design = sq.design(schedule, i.alpha_side, settings.miss_rate, i.baseline_var, i.ref_var)
            i.detectable = sq.detectable_change(i.design, i.baseline_var, i.ref_var)
        if schedule[-1] >= cap or all(i.powered for i in mine):
            break
        games = min(cap, schedule[-1] * 1.02 + players)
    return schedule


def games_to_power(mine: list[Item], players: int, settings: CheckSettings) -> tuple[int | None, int]:
    """(new games per check, baseline games) that give every number of a cell its power:
    ``(n, baseline's games)`` when the baseline suffices and the check needs ``n`` games;
    ``(None, m)`` when the baseline's own noise is too large, where ``m`` is the games a new baseline
    *and* the check would each need (both of ``m`` games: ``(c_K + z) sqrt(2 s^2 / m) <= tolerance``,
    with equally informative looks). Leaves the items' designs as :func:`plan_cell` sets them without a cap."""
    probe = [dataclasses.replace(i) for i in mine]
    schedule = plan_cell(probe, players, settings, math.inf)
    if all(i.powered for i in probe):
        return schedule[-1], 0
    worst = max(_paired_games(i, settings) for i in mine)
    return None, players * math.ceil(worst / players)


def _paired_games(i: Item, settings: CheckSettings) -> float:
    """The games a new baseline and a check would each need for item ``i`` (``2 s^2 ((c_K + z) / D)^2``)."""
    c = sq.final_boundary(settings.looks, i.alpha_side) + float(stats.norm.isf(settings.miss_rate / 2))
    return 2 * i.baseline_var * (c / i.tolerance) ** 2


def driver_of(mine: list[Item], settings: CheckSettings) -> str:
    """The number of a cell that needs the most games, with its tolerance: ``seat_win_rate:3 at a
    tolerance of 2 points`` (what drives the cell's games)."""
    needs = [
        sq.games_needed(i.tolerance, i.baseline_var, i.ref_var, settings.looks, i.alpha_side, settings.miss_rate)
        for i in mine
    ]
    if all(math.isfinite(n) for n in needs):
        worst = mine[needs.index(max(needs))]
    else:  # the baseline is too noisy: the number that needs the largest new baseline, as games_to_power says
        worst = max(mine, key=lambda i: _paired_games(i, settings))
    tol = f"{100 * worst.tolerance:.3g} points" if worst.kind == "win_rate" else f"{worst.tolerance:.3g}"
    return f"{worst.number} at a tolerance of {tol}"


def underpowered_message(
    study_path: Path | str,
    weak: dict[tuple[str, str], tuple[int | None, int, int]],
    drivers: dict[tuple[str, str], str] | None = None,
) -> str:
    """One line: the cells that cannot find their tolerance, the games each would need and the number
    that drives them (``drivers``: :func:`driver_of`).
    ``weak``: (run, variant) -> (check games needed or None, baseline games needed, the cell's cap)."""
    parts = []
    drivers = drivers or {}
    for (run_name, variant), (need, base, cap) in sorted(weak.items()):
        by = f", driven by {drivers[(run_name, variant)]}" if (run_name, variant) in drivers else ""
        if need is not None:
            parts.append(f"{run_name}/{variant} needs {need:,} games per check (cap {cap:,}){by}")
        else:
            parts.append(
                f"{run_name}/{variant} needs a baseline and a check of about {base:,} games each "
                f"(the baseline's own noise is too large){by}"
            )
    return (
        f"{study_path}: underpowered: the check cannot find a change as large as its tolerance at its miss rate: "
        + "; ".join(parts)
        + "; raise check.max_games (--max-games) and the baseline's games, or give that number a larger "
        "tolerance (check.tolerance.numbers; 'balancer plan' shows the games each number needs), or pass "
        "--allow-underpowered"
    )


def baseline_power_warning(
    study_path: Path | str, baseline: dict[str, Any], settings: CheckSettings | None = None
) -> str | None:
    """One line warning that a just-saved ``baseline`` is too small for its study's check (``None``
    when every cell can find its tolerances): the cells ``check`` would refuse as underpowered, with
    the games each needs and the number that drives them (as :func:`underpowered_message` and
    ``balancer plan --baseline`` say), beside the games the study plays. Saving is fine; the check
    that follows is not. Plays nothing."""
    study_path = Path(study_path)
    study, _ = load_study(study_path)
    settings = settings or study.check
    items, _ = plan_check(study, study_path, baseline, settings, "baseline")
    parts = []
    for cell in sorted(baseline["cells"], key=lambda c: (c["run"], c["variant"])):
        run_name, variant = cell["run"], cell["variant"]
        run = study.runs[run_name]
        mine = [i for i in items if (i.run, i.variant) == (run_name, variant)]
        if not mine:
            continue
        cap = settings.max_games or int(cell["games"])
        plan_cell(mine, run.players, settings, cap)
        if all(i.powered for i in mine):
            continue
        need, base = games_to_power(mine, run.players, settings)
        games = (
            f"{need:,} games per check" if need is not None else f"a baseline and a check of about {base:,} games each"
        )
        parts.append(
            f"{run_name}/{variant} needs {games}, driven by {driver_of(mine, settings)}; "
            f"the study plays {int(cell['games']):,} (runs.{run_name}.games)"
        )
    if not parts:
        return None
    return (
        f"warning: {study_path}: the study's game counts are too few for its tolerances: "
        + "; ".join(parts)
        + "; 'balancer check' against this baseline will stop as underpowered (exit 2) unless "
        "--allow-underpowered; 'balancer plan' shows the games each number needs"
    )


def run_check(
    study_path: Path | str,
    baseline: dict[str, Any],
    baseline_path: Path | str = "baseline",
    settings: CheckSettings | None = None,
    seed: int | None = None,
    jobs: int = -1,
    log: Callable[[str], None] | None = None,
    allow_underpowered: bool = False,
) -> CheckResult:
    """Replay every cell of the study with ``seed`` (default :func:`check_seed` of the baseline's
    seed) in batches, test every tracked number, and return the verdicts.

    ``settings``: the study's ``check:`` settings unless given. ``allow_underpowered``: play even when
    some number cannot find its tolerance at the miss rate within its cap (the result says so);
    otherwise that is refused. Raises StudyError, ConfigError, BaselineError, UnderpoweredError or
    ValueError (bad input, before anything is played); CheckGameError when a game raises (an engine
    bug: the message names the game and the command that replays it).
    """
    t0 = time.perf_counter()
    study_path = Path(study_path)
    study, configs = load_study(study_path)
    settings = settings or study.check
    seed = check_seed(int(baseline["seed"])) if seed is None else seed
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"--seed: must be between 0 and 2^63-1, got {seed}")
    if seed == int(baseline["seed"]):
        raise ValueError(f"--seed {seed}: is the baseline's own seed; a check must play other games")
    items, notes = plan_check(study, study_path, baseline, settings, baseline_path)
    cells = {(c["run"], c["variant"]): c for c in baseline["cells"]}
    schedules: dict[tuple[str, str], list[int]] = {}
    weak: dict[tuple[str, str], tuple[int | None, int, int]] = {}
    drivers: dict[tuple[str, str], str] = {}
    for (run_name, variant), cell in sorted(cells.items()):
        run = study.runs[run_name]
        mine = [i for i in items if (i.run, i.variant) == (run_name, variant)]
        cap = settings.max_games or int(cell["games"])
        schedules[(run_name, variant)] = plan_cell(mine, run.players, settings, cap)
        if not all(i.powered for i in mine):
            need, base = games_to_power(mine, run.players, settings)
            weak[(run_name, variant)] = (need, base, cap)
            drivers[(run_name, variant)] = driver_of(mine, settings)
    if weak and not allow_underpowered:
        raise UnderpoweredError(underpowered_message(study_path, weak, drivers))
    game = get_spec(study.game)
    engine = engine_sha256(game)
    loaded = load_variants(study, configs, study_path, seed, jobs)
    probes = probe_values(study, loaded, seed, list(study.runs))
    for (run_name, variant), cell in sorted(cells.items()):
        if run_name in probes:
            lacking = missing_metrics(cell, list(probes[run_name]), settings)
            if lacking:
                raise BaselineError(
                    f"{baseline_path}: cells.{baseline['cells'].index(cell)}.numbers: "
                    f"{', '.join(lacking)} missing from cell {run_name}/{variant}, though the game "
                    "reports it; the file was edited, or the game gained a metric since: save a "
                    "new baseline"
                )
    warnings: list[str] = []
    cell_info: dict[tuple[str, str], dict[str, Any]] = {}
    for (run_name, variant), cell in sorted(cells.items()):
        now_sha = config_sha256(configs[variant])
        changed = cell["config_sha256"] != now_sha
        cell_info[(run_name, variant)] = {
            "config_sha256": now_sha,
            "engine_sha256": engine,
            "variant_changed": changed,
            "baseline_games": int(cell["games"]),
        }
        if changed:
            warnings.append(
                f"{run_name}/{variant}: the variant file changed since the baseline (its content "
                "hash differs from the baseline's config_sha256; or the baseline was edited)"
            )
        if cell.get("engine_sha256") not in (None, engine):
            notes.append(f"{run_name}/{variant}: the engine code changed since the baseline")
    played_values: dict[tuple[str, str, str], np.ndarray] = {}
    for run_name, variant in sorted(cells):
        run = study.runs[run_name]
        mine = [i for i in items if (i.run, i.variant) == (run_name, variant)]
        schedule = schedules[(run_name, variant)]
        if log:
            log(f"{run_name} / {variant}: up to {schedule[-1]:,} games in {len(schedule)} looks, seed {seed}")
        values: dict[str, list[np.ndarray]] = {}
        played = 0
        for k, target in enumerate(schedule):
            try:
                table, trajectories = play_range_records(game, loaded[variant], run.table, seed, played, target, jobs)
            except GameRaisedError as exc:
                first = exc.failures[0]
                raise CheckGameError(
                    f"{run_name}/{variant}: {len(exc.failures)} game(s) raised; first: game {first['game_index']}: "
                    f"{first['error']}\n  replay: {replay_command(configs[variant], run.table, seed, first['game_index'])}"
                ) from None
            for key, v in per_game_values(table, run.table, flow=True, trajectories=trajectories).items():
                values.setdefault(key, []).append(v)
            played = target
            for i in mine:
                if i.verdict is None and i.number not in values:  # the game no longer reports it
                    i.verdict, i.games = "fail", played
                    notes.append(f"{i.name}: no longer reported by the game (its baseline has it)")
                if i.verdict is not None:
                    continue
                assert i.design is not None  # planned above for every number of the cell
                n, mean, var = moments(np.concatenate(values[i.number]))
                se = math.sqrt(var / n + i.ref_var)
                # a target passes early only when its interval lies inside the target (no tolerance
                # beyond the bound); the tolerance still sets how many games a target's test plans for
                res = sq.look(i.design, k, mean, se, i.sides, i.tolerance if i.test == "baseline" else 0.0)
                i.now, i.difference, i.ci_low, i.ci_high, i.games = mean, res.difference, res.ci_low, res.ci_high, n
                i.now_var = var
                i.verdict = res.verdict
            if all(i.verdict is not None for i in mine):
                break
        for key, parts in values.items():
            played_values[(run_name, variant, key)] = np.concatenate(parts)
        if log:
            fails = sum(i.verdict == "fail" for i in mine)
            log(f"{run_name} / {variant}: {played:,} games, {fails} of {len(mine)} numbers failed")
        if COMPLETION in values:  # games a safety stop ended: said prominently, with their replay commands
            stopped = np.flatnonzero(np.concatenate(values[COMPLETION]) == 0)
            if stopped.size:
                replays = "".join(
                    f"\n  replay: {replay_command(configs[variant], run.table, seed, int(g))}" for g in stopped[:5]
                )
                notes.append(
                    f"{run_name}/{variant}: {stopped.size:,} of {played:,} games did not end by the rules (a "
                    f"safety stop ended them; the win rates include them){replays}"
                )
    unpowered = [i for i in items if not i.powered]
    if unpowered:
        notes.append(
            f"{len(unpowered)} of {len(items)} numbers can only find changes larger than their tolerance "
            f"(see 'detects'); raise --max-games or the baseline's games"
        )
    return CheckResult(
        study,
        seed,
        settings,
        items,
        notes,
        time.perf_counter() - t0,
        warnings=warnings,
        cells=cell_info,
        values=played_values,
        study_path=study_path,
    )
