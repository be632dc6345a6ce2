"""The search of a tune: Optuna proposes candidates, successive halving spends games on them,
the winner is confirmed with fresh seeds.

**How games are spent.** Every run's games are split into rungs (``search.rungs``, each ``eta``
times the games of the one before, the last the run's ``games``): rung 0 is a first look at every
candidate, and Optuna's :class:`~optuna.pruners.SuccessiveHalvingPruner` lets a candidate go on to
rung k+1 only when its objective at rung k is among the best 1/eta of all candidates measured at
rung k so far (the first ones go on when they are the best yet). So most candidates cost a first
look and only the promising ones are measured precisely.

**Common random numbers.** Rung k adds the games of *segment* k (from the rung before's games to
its own): a cell played with a seed derived from the tune's seed and k only. Every candidate plays
the same games in each segment, so candidates are compared on the same deals, and a candidate that
goes on adds only the next segment's games to those it has. Each segment is a cached cell
(:mod:`balancer.sweep.cells`): a candidate proposed again costs nothing, and ``--resume`` replays
the search (the sampler is seeded, so it proposes the same candidates) from the finished cells.

**Samplers.** ``tpe`` (Optuna's Tree-structured Parzen Estimator, multivariate, which handles
integer and categorical domains natively and tolerates noise), ``grid`` (every candidate of a
finite space, in random order: Optuna's brute-force sampler), ``random``. ``auto`` takes ``grid``
when the whole space fits the budget, else ``tpe``.

**Confirmation.** The best candidate at the top rung (smallest objective at its means) is played
again with a seed used by no segment (fresh deals), enough games for the file's precision, beside
the base variant with the same seed (a paired comparison), and each target gets a verdict.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import warnings
import zlib
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import numpy as np

from balancer.config import load_config
from balancer.naming import claim_folder, input_source
from balancer.numtext import number_text
from balancer.outcomes import Candidate, Cell, Confirmation, Evaluation, TuneResult
from balancer.outdir import refuse_links_below
from balancer.paths import changes_text, point_label, validate_point, variant_yaml
from balancer.sim.progress import eta_seconds, left_text
from balancer.stats.tracked import is_rate
from balancer.sweep.cells import cell_numbers, play_cell
from balancer.sweep.runner import write_text_if_changed
from balancer.sweep.targets import bootstrap_objective, estimate, signed_objective

from .model import Domain, TunePlan

SEED_TAG = 0x7E4E
"""First spawn key of the tune's derived seeds (segments: ``(SEED_TAG, k)``, confirmation: ``(SEED_TAG, 999)``)."""
CONFIRM_KEY = 999
STATE_FILE = "search.json"
Z95 = 1.959963984540054


def derived_seed(seed: int, *key: int) -> int:
    """A run seed in [0, 2^63) derived from the tune's ``seed`` and ``key`` (numpy SeedSequence)."""
    state = np.random.SeedSequence(seed, spawn_key=(SEED_TAG, *key)).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1])) & (2**63 - 1)


def segment_seed(seed: int, k: int) -> int:
    """The seed of segment ``k`` (the games rung k adds), the same for every candidate."""
    return derived_seed(seed, k)


def confirm_seed(seed: int) -> int:
    """The seed of the confirmation run: used by no segment, so its deals are fresh."""
    return derived_seed(seed, CONFIRM_KEY)


class _Stop(Exception):
    """Raised inside a trial when the games budget cannot pay for the next rung."""


def _suggest(trial: Any, path: str, domain: Domain) -> Any:
    if domain.choices is not None:
        index = trial.suggest_categorical(path, list(range(len(domain.choices))))
        return domain.choices[index]
    if domain.int_ is not None:
        return trial.suggest_int(path, domain.int_[0], domain.int_[1], step=int(domain.step or 1))
    low, high = domain.float_  # type: ignore[misc]
    if domain.step is not None:
        value = trial.suggest_float(path, low, high, step=float(domain.step))
        return round(value, 10)
    return trial.suggest_float(path, low, high, log=domain.log)


def make_sampler(name: str, seed: int, startup: int):
    """The Optuna sampler named ``name`` (tpe, grid, random), seeded."""
    import optuna

    sampler_seed = int(seed % (2**32))
    if name == "grid":
        with warnings.catch_warnings():  # "experimental" since Optuna 3.1; the interface we use is stable
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.samplers.BruteForceSampler(seed=sampler_seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=sampler_seed)
    return optuna.samplers.TPESampler(seed=sampler_seed, multivariate=True, n_startup_trials=startup)


class Tuner:
    """One tune's search state: candidates, cells used, games spent; see :func:`run_tune`."""

    def __init__(
        self,
        plan: TunePlan,
        results_root: Path,
        jobs: int,
        scheduler: str | None,
        log: Callable[[str], None] | None,
        command: str,
    ):
        self.plan, self.jobs, self.scheduler, self.log, self.command = plan, jobs, scheduler, log, command
        self.root = Path(results_root) / plan.folder
        for own in ("candidates", "confirm", *plan.tune.runs):  # refused before a game is played
            refuse_links_below(self.root.parent, self.root / own)
        self.candidates: dict[str, Candidate] = {}
        self.same_rules: dict[str, Candidate] = {}  # rules_key -> the candidate measured for those rules
        self.alias: dict[str, Candidate] = {}  # label -> the earlier candidate with the same rules
        self.numbers: dict[tuple[str, str, int], dict[str, np.ndarray]] = {}
        self.used: set[tuple[str, str, int]] = set()
        self.games = {"search": 0, "response": 0, "confirm": 0}
        self.played = 0
        self.phase = "search"
        self.top = max(len(r) for r in plan.rungs.values()) - 1
        self.warm: tuple[float, int, int] | None = None  # (time, games played, candidates) after the first cell

    # candidates ---------------------------------------------------------------------------------

    def candidate(self, values: dict[str, Any]) -> Candidate:
        """The candidate of ``values`` (created, with its variant file written, on first sight)."""
        label = point_label(list(values.values()))
        if label in self.candidates:
            return self.candidates[label]
        if label in self.alias:
            return self.alias[label]
        base = self.plan.base
        variant = f"{base.cfg.variant}-{label}"
        file = refuse_links_below(self.root.parent, self.root / "candidates" / f"{label}.yaml", "file")
        cand = Candidate(len(self.candidates), dict(values), label, file)
        try:
            validate_point(base.resolved, base.spec.config_model, values, variant)
        except ValueError as exc:
            cand.refused = str(exc)
        else:
            comment = [
                f"a candidate of the tune {self.plan.path}: {changes_text(values)}",
                "written by balancer; regenerated on every run",
            ]
            write_text_if_changed(file, variant_yaml(file, base.path, base.resolved.data, values, variant, comment))
            cand.cfg = load_config(file)
            key = rules_key(base.spec, cand.cfg, self.plan, self.wins_only)
            first = self.same_rules.setdefault(key, cand)
            if first is not cand:  # the same game under the rules as a candidate already there: tried once
                file.unlink(missing_ok=True)
                self.alias[label] = first
                self._line(
                    f"candidate {changes_text(values)}: the same rules as candidate {first.index} "
                    f"({changes_text(first.values)}); measured once"
                )
                return first
        self.candidates[label] = cand
        return cand

    @property
    def wins_only(self) -> bool:
        """Whether every term of the objective reads win rates only (a position bonus then counts
        only as differences: :func:`rules_key`)."""
        return all(is_rate(t.group) for t in self.plan.terms)

    def new_games(self, cand: Candidate, rung: int) -> int:
        """Games rung ``rung`` of ``cand`` would add to those the search used so far."""
        total = 0
        for run, sizes in self.plan.rungs.items():
            for k in range(rung + 1):
                if (cand.label, run, k) not in self.used:
                    total += sizes[k] - (sizes[k - 1] if k else 0)
        return total

    def evaluate(self, cand: Candidate, rung: int) -> Evaluation:
        """Measure ``cand`` at ``rung`` (every run's segments 0..rung, cached cells), count the new
        games against the current phase, and return (and keep) the evaluation."""
        if rung in cand.evaluations:
            return cand.evaluations[rung]
        spec, tune = self.plan.base.spec, self.plan.tune
        per_run: dict[str, dict[str, np.ndarray]] = {}
        for run_name, run in tune.runs.items():
            sizes = self.plan.rungs[run_name]
            parts = []
            for k in range(rung + 1):
                key = (cand.label, run_name, k)
                games = sizes[k] - (sizes[k - 1] if k else 0)
                if key not in self.numbers:
                    cell = play_cell(
                        spec,
                        cand.cfg,
                        cand.file,
                        run_name,
                        cand.label,
                        run.table,
                        games,
                        segment_seed(tune.seed, k),
                        refuse_links_below(self.root.parent, self.root / run_name / cand.label / f"seg-{k}"),
                        jobs=self.jobs,
                        scheduler=self.scheduler,
                        command=self.command,
                    )
                    if not cell.reused:
                        self.played += games
                        if self.warm is None:  # the first cell played paid the warm-up: the pace starts here
                            self.warm = (time.perf_counter(), self.played, self.measured())
                    self.numbers[key] = cell_numbers(cell, run.table)
                if key not in self.used:
                    self.used.add(key)
                    self.games[self.phase] += games
                parts.append(self.numbers[key])
            per_run[run_name] = {
                name: np.concatenate(
                    [p[name] if name in p else np.full(len(next(iter(p.values()))), np.nan) for p in parts]
                )
                for name in dict.fromkeys(n for p in parts for n in p)
            }
        boot_seed = zlib.crc32(f"{tune.seed}:{cand.label}:{rung}".encode())
        value, low, high = bootstrap_objective(self.plan.terms, per_run, seed=boot_seed)
        estimates = {run: {name: estimate(v, name) for name, v in nums.items()} for run, nums in per_run.items()}
        ev = Evaluation(
            rung,
            {r: self.plan.rungs[r][rung] for r in tune.runs},
            value,
            low,
            high,
            estimates,
            signed=signed_objective(self.plan.terms, per_run),
        )
        cand.evaluations[rung] = ev
        return ev

    # the search ----------------------------------------------------------------------------------

    def search(self) -> tuple[str, list[dict[str, Any]], str]:
        """Run the Optuna search until the budget is spent; return (sampler, trials, why it stopped)."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.ERROR)
        tune = self.plan.tune
        sampler_name = self.plan.sampler_name()
        eta = tune.search.eta
        pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=eta, min_early_stopping_rate=0)
        study = optuna.create_study(
            direction="minimize", sampler=make_sampler(sampler_name, tune.seed, tune.search.startup), pruner=pruner
        )
        trials: list[dict[str, Any]] = []
        state: dict[str, Any] = {"reason": "", "idle": 0}
        budget = tune.budget
        size = self.plan.space_size

        def objective(trial: Any) -> float:
            values = {path: _suggest(trial, path, dom) for path, dom in tune.space.items()}
            cand = self.candidate(values)
            cand.trials.append(trial.number)
            record = {"trial": trial.number, "candidate": cand.index, "rung": -1, "pruned": False, "new_games": 0}
            trials.append(record)
            if cand.refused is not None:
                record["refused"] = cand.refused
                self._line(
                    f"candidate {cand.index} {changes_text(values)}: refused by the config model ({cand.refused})"
                )
                return math.nan
            before = self.games["search"]
            for k in range(self.top + 1):
                need = self.new_games(cand, k)
                if budget.games is not None and self.games["search"] + need > budget.games:
                    state["reason"] = (
                        f"the games budget ({budget.games:,}) cannot pay for the next rung ({need:,} games)"
                    )
                    record["budget_stop"] = True
                    raise _Stop
                ev = self.evaluate(cand, k)
                record["rung"] = k
                record["new_games"] = self.games["search"] - before
                last = k == self.top
                if not last:
                    trial.report(ev.objective, step=eta**k)
                    pruned = trial.should_prune()
                else:
                    pruned = False
                verdict = "top rung" if last else ("stops here" if pruned else "goes on")
                self._line(
                    f"candidate {cand.index} {changes_text(values)}: {sum(ev.games.values()):,} games, "
                    f"objective {_num(ev.objective)} ({_num(ev.low)} to {_num(ev.high)}) -> {verdict}  "
                    f"({self.search_count()})"
                )
                if pruned:
                    record["pruned"] = True
                    raise optuna.TrialPruned()
            return cand.evaluations[self.top].objective

        def callback(study: Any, frozen: Any) -> None:
            distinct = sum(1 for c in self.candidates.values() if c.evaluations or c.refused)
            state["idle"] = 0 if trials and trials[-1]["new_games"] else state["idle"] + 1
            if state["reason"]:
                study.stop()
            elif budget.candidates is not None and distinct >= budget.candidates:
                state["reason"] = f"the candidates budget ({budget.candidates:,}) is spent"
                study.stop()
            elif size is not None and len(self.candidates) + len(self.alias) >= size and state["idle"] >= 3 * eta:
                state["reason"] = f"every one of the {size:,} candidates has been measured"
                study.stop()
            elif state["idle"] >= max(50, 10 * tune.search.startup):
                state["reason"] = f"the sampler proposed only measured candidates {state['idle']} times in a row"
                study.stop()

        try:
            study.optimize(objective, callbacks=[callback], catch=(_Stop,), n_trials=100_000)
        except _Stop:  # pragma: no cover - caught by optuna above
            pass
        if trials and trials[-1].get("budget_stop"):
            trials.pop()
        if not state["reason"]:
            state["reason"] = "every candidate of the grid was proposed" if sampler_name == "grid" else "trial cap"
        return sampler_name, trials, state["reason"]

    def _line(self, text: str) -> None:
        if self.log:
            self.log(text)

    def measured(self) -> int:
        """Distinct candidates measured or refused so far (what the candidates budget counts)."""
        return sum(1 for c in self.candidates.values() if c.evaluations or c.refused)

    def search_count(self) -> str:
        """The search's overall count against its budget with the time left (:func:`search_eta`):
        ``search games 1,200 of 8,000, candidates 5 of 40, about 3 min left in the search``."""
        budget = self.plan.tune.budget
        spent, measured = self.games["search"], self.measured()
        text = f"search games {spent:,}" + (f" of {budget.games:,}" if budget.games else "")
        if budget.candidates:
            text += f", candidates {measured:,} of {budget.candidates:,}"
        if self.warm is not None:
            at, played, cands = self.warm
            eta = search_eta(
                budget.games, spent, budget.candidates, measured,
                self.played - played, measured - cands, time.perf_counter() - at,
            )  # fmt: skip
            text += ", " + (left_text(eta) + " in the search" if eta is not None else "estimating the time left")
        return text

    # after the search ----------------------------------------------------------------------------

    def ranked(self) -> list[Candidate]:
        """Candidates measured at the highest rung any reached, best (smallest objective) first; among
        equal objectives (several floored at 0), the smaller objective before the floor
        (:attr:`Evaluation.signed`) first, so the nearer to the target is the best, not the first tried."""
        measured = [c for c in self.candidates.values() if c.evaluations]
        if not measured:
            return []
        top = max(max(c.evaluations) for c in measured)
        at_top = [c for c in measured if top in c.evaluations and math.isfinite(c.evaluations[top].objective)]

        def key(c: Candidate) -> tuple[float, float, int]:
            ev = c.evaluations[top]
            return (ev.objective, ev.signed if math.isfinite(ev.signed) else math.inf, c.index)

        return sorted(at_top, key=key)

    def response(self, best: Candidate) -> dict[str, list[Candidate]]:
        """Each path's neighbours of ``best`` (+/- ``response.steps`` steps, every choice of a
        categorical path), the other paths at the best, measured at the top rung: path -> candidates
        in value order (the best included)."""
        self.phase = "response"
        steps = self.plan.tune.response.steps
        out: dict[str, list[Candidate]] = {}
        if steps == 0:
            return out
        for path, domain in self.plan.tune.space.items():
            values = _neighbours(domain, best.values[path], steps)
            row = []
            for v in values:
                asked = {**best.values, path: v}
                cand = self.candidate(asked)
                if cand.refused is not None:
                    continue
                if self.top not in cand.evaluations:
                    self._line(f"response {path}={v}: measuring at the top rung")
                self.evaluate(cand, self.top)
                if cand.values != asked:  # the same game as a candidate measured before: shown at the values asked
                    cand = dataclasses.replace(cand, values=asked, label=point_label(list(asked.values())))
                row.append(cand)
            out[path] = row
        return out

    def confirm(self, best: Candidate) -> Confirmation:
        """Play ``best`` (and the base, when asked) with the confirmation seed; see the module docstring."""
        from balancer.sim.results import scan_results
        from balancer.stats.paired import paired_differences

        self.phase = "confirm"
        tune, base = self.plan.tune, self.plan.base
        seed = confirm_seed(tune.seed)
        games: dict[str, int] = {}
        best_cells: dict[str, Cell] = {}
        base_cells: dict[str, Cell] = {}
        best_nums: dict[str, dict[str, np.ndarray]] = {}
        base_nums: dict[str, dict[str, np.ndarray]] = {}
        paired: dict[str, dict[str, Any]] = {}
        for run_name, run in tune.runs.items():
            n = confirm_games(tune.confirm, best.top.estimates[run_name], run.players)  # type: ignore[union-attr]
            games[run_name] = n
            root = self.root / "confirm" / run_name
            self._line(f"confirmation {run_name}: {n:,} games of {changes_text(best.values)} (seed {seed})")
            cell = play_cell(
                base.spec,
                best.cfg,
                best.file,
                run_name,
                best.label,
                run.table,
                n,
                seed,
                refuse_links_below(self.root.parent, root / best.label),
                jobs=self.jobs,
                scheduler=self.scheduler,
                command=self.command,
            )
            self._count(cell, n)
            best_cells[run_name] = cell
            best_nums[run_name] = cell_numbers(cell, run.table)
            if tune.confirm.base:
                self._line(f"confirmation {run_name}: {n:,} games of the base {base.cfg.variant}")
                bcell = play_cell(
                    base.spec,
                    base.cfg,
                    base.path,
                    run_name,
                    "base",
                    run.table,
                    n,
                    seed,
                    refuse_links_below(self.root.parent, root / "base"),
                    jobs=self.jobs,
                    scheduler=self.scheduler,
                    command=self.command,
                )
                self._count(bcell, n)
                base_cells[run_name] = bcell
                base_nums[run_name] = cell_numbers(bcell, run.table)
                paired[run_name] = paired_differences(scan_results(bcell.out_dir), scan_results(cell.out_dir))
        best_est = {r: {k: estimate(v, k) for k, v in nums.items()} for r, nums in best_nums.items()}
        base_est = {r: {k: estimate(v, k) for k, v in nums.items()} for r, nums in base_nums.items()}
        boot = zlib.crc32(f"{tune.seed}:confirm".encode())
        best_obj = bootstrap_objective(self.plan.terms, best_nums, seed=boot)
        base_obj = bootstrap_objective(self.plan.terms, base_nums, seed=boot) if base_nums else None
        verdicts = []
        for term in self.plan.terms:
            verdicts.append(
                {
                    "title": term.title,
                    "run": term.run,
                    "verdict": term.verdict(best_est[term.run]),
                    "rows": term.verdicts(best_est[term.run]),
                    "base_verdict": term.verdict(base_est[term.run]) if base_est else None,
                    "base_rows": term.verdicts(base_est[term.run]) if base_est else [],
                }
            )
        return Confirmation(
            seed, games, best_cells, base_cells, best_est, base_est, best_obj, base_obj, verdicts, paired
        )

    def _count(self, cell: Cell, games: int) -> None:
        self.games["confirm"] += games
        if not cell.reused:
            self.played += games


def rules_key(spec: Any, cfg: Any, plan: TunePlan, wins_only: bool) -> str:
    """A digest equal for two candidates that are the same game under the rules: the rule table ``T``
    each run's table compiles (``spec.compile_table``, else ``spec.engine.compile``; a game without a
    compiled interface: the config itself, its name left out). When the objective reads win rates
    only, the game's position bonus (the score category its metrics mark ``position_bonus``, set by
    the config key of that name: points by player count, in seat order) is taken less its smallest
    value at each count of two or more players: the same points added to every seat change no
    game's ranks, so ``seat_bonus.4: [1, 1, 1, 1]`` and ``[0, 0, 0, 0]`` are one candidate."""
    import hashlib

    bonus = spec.metrics.position_bonus if spec.metrics is not None else None
    if wins_only and bonus is not None and isinstance(getattr(cfg, bonus, None), dict):
        table = getattr(cfg, bonus)
        if all(isinstance(v, list) and all(isinstance(x, (int, float)) for x in v) for v in table.values()):
            lowered = {k: [x - min(v) for x in v] if str(k) != "1" and v else list(v) for k, v in table.items()}
            cfg = cfg.model_copy(update={bonus: lowered})
    digest = hashlib.sha256()
    try:
        if spec.engine is None:
            raise TypeError("no compiled interface")
        for run in plan.tune.runs.values():
            agents = list(run.table)
            T = (
                spec.compile_table(cfg, agents)
                if spec.compile_table is not None
                else spec.engine.compile(cfg, len(agents))
            )
            _digest(T, digest)
    except TypeError:  # no compiled table to compare: the config the engine sees, without its name
        digest = hashlib.sha256(json.dumps(cfg.model_dump(mode="json", exclude={"variant"}), sort_keys=True).encode())
    return digest.hexdigest()


def _digest(x: Any, digest: Any) -> None:
    """Feed a rule table (nested tuples of arrays and scalars) into ``digest``; TypeError for anything else."""
    if isinstance(x, np.ndarray):
        digest.update(f"{x.dtype.str}{x.shape}".encode())
        digest.update(np.ascontiguousarray(x).tobytes())
    elif isinstance(x, (tuple, list)):
        digest.update(b"(")
        for y in x:
            _digest(y, digest)
        digest.update(b")")
    elif x is None or isinstance(x, (bool, int, float, str, bytes, np.generic)):
        digest.update(repr(x).encode() + b",")
    else:
        raise TypeError(f"not a rule table part: {type(x).__name__}")


def search_eta(
    budget_games: int | None,
    spent_games: int,
    budget_candidates: int | None,
    measured: int,
    games_after: int,
    candidates_after: int,
    seconds_after: float,
) -> float | None:
    """Seconds left in the search, which stops at whichever budget is spent first: the games left at
    the pace of the ``games_after`` games played in the ``seconds_after`` seconds since the first cell
    (its warm-up excluded), or the candidates left at the pace of the ``candidates_after`` measured
    since; None before a pace is known."""
    etas = []
    if budget_games is not None:
        etas.append(eta_seconds(budget_games, spent_games, games_after, seconds_after))
    if budget_candidates is not None:
        etas.append(eta_seconds(budget_candidates, measured, candidates_after, seconds_after))
    known = [e for e in etas if e is not None]
    return min(known) if known else None


def _neighbours(domain: Domain, value: Any, steps: int) -> list[Any]:
    """Values of ``domain`` around ``value``: +/- ``steps`` grid steps (a tenth of the range for a
    continuous float domain), every choice of a categorical one; in domain order."""
    grid = domain.grid()
    if grid is not None:
        if domain.choices is not None:
            return list(grid)
        i = min(range(len(grid)), key=lambda j: abs(grid[j] - value))
        return grid[max(0, i - steps) : i + steps + 1]
    low, high = domain.float_  # type: ignore[misc]
    if domain.log:
        ratio = (high / low) ** 0.1
        values = [value * ratio**k for k in range(-steps, steps + 1)]
    else:
        width = (high - low) / 10
        values = [value + k * width for k in range(-steps, steps + 1)]
    return [round(v, 10) for v in values if low - 1e-12 <= v <= high + 1e-12]


def confirm_games(confirm: Any, estimates: dict[str, dict[str, float]], players: int) -> int:
    """Games of a confirmation run: ``confirm.games``, or ``z^2 p (1 - p) / h^2`` for the widest seat or
    agent win rate at the candidate's estimates (at most ``max_games``), a multiple of ``players``."""
    if confirm.games is not None:
        n = confirm.games
    else:
        rates = [
            e["mean"]
            for k, e in estimates.items()
            if k.startswith(("seat_win_rate:", "agent_win_rate:")) and math.isfinite(e["mean"])
        ]
        p = max((r * (1 - r) for r in rates), default=0.25)
        n = min(confirm.max_games, math.ceil(Z95 * Z95 * p / confirm.half_width**2))
    return max(players, players * math.ceil(n / players))


def _num(x: float) -> str:
    return "nan" if not math.isfinite(x) else number_text(x, ".4f")


def state_path(results_root: Path | str, plan: TunePlan) -> Path:
    """``<results>/<folder>/search.json`` (:attr:`TunePlan.folder`): whether a search was started and finished."""
    return Path(results_root) / plan.folder / STATE_FILE


def read_state(results_root: Path | str, plan: TunePlan) -> dict[str, Any] | None:
    """The search state of an earlier invocation (None if there is none or it is unreadable)."""
    try:
        data = json.loads(state_path(results_root, plan).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_state(path: Path, data: dict[str, Any]) -> None:
    refuse_links_below(path.parent.parent, path, "file")  # <results>/<tune>/search.json
    write_text_if_changed(path, json.dumps(data, indent=1) + "\n")


RESPONSE_MOVES = 10
"""How many times the response may move to a better neighbour it found (each move measures the new
best's neighbours at the top rung; the objective only falls, so it stops by itself sooner)."""


def run_tune(
    plan: TunePlan,
    results_root: Path | str = "results",
    jobs: int = -1,
    scheduler: str | None = None,
    log: Callable[[str], None] | None = None,
    command: str = "",
    force: bool = False,
) -> TuneResult:
    """Search, measure the response around the optimum, and confirm it (see the module docstring).

    Writes ``<results>/<folder>/`` (:attr:`TunePlan.folder`: the tune's name, and a short hash of its
    path for a file not shipped with balancer): ``source.json`` (the tune file it holds; a folder of
    another tune file is refused with ResultsExistError unless ``force``:
    :func:`balancer.naming.claim_folder`), ``search.json`` (running, then finished, with a summary),
    ``candidates/<label>.yaml`` (each candidate's variant), ``<run>/<label>/seg-<k>/`` (cells),
    ``confirm/<run>/<label|base>/``. Raises what :func:`balancer.sim.runner.run_to_dir` raises
    (GamesFailedError when games raised; RunInterrupted on Ctrl-C, after which ``--resume``
    continues)."""
    from datetime import datetime

    t0 = time.perf_counter()
    tuner = Tuner(plan, Path(results_root), jobs, scheduler, log, command)
    claim_folder(tuner.root, "tune", input_source(plan.path), force)
    spath = state_path(results_root, plan)
    started = (read_state(results_root, plan) or {}).get("started") or datetime.now(UTC).isoformat(timespec="seconds")
    _write_state(spath, {"status": "running", "tune": plan.tune.tune, "file": str(plan.path), "started": started})
    sampler, trials, reason = tuner.search()
    ranked = tuner.ranked()
    best = ranked[0] if ranked else None
    response = tuner.response(best) if best is not None else {}
    for _ in range(RESPONSE_MOVES):
        # the response measures neighbours at the top rung: a better one becomes the best, and the
        # response is measured again around it, so the page's "others at the best" holds
        ranked = tuner.ranked()
        if not ranked or ranked[0] is best:
            break
        best = ranked[0]
        response = tuner.response(best)
    confirmation = tuner.confirm(best) if best is not None else None
    result = TuneResult(
        plan,
        sampler,
        list(tuner.candidates.values()),
        trials,
        best,
        ranked,
        response,
        confirmation,
        tuner.games["search"],
        tuner.games["response"],
        tuner.games["confirm"],
        tuner.played,
        reason,
        time.perf_counter() - t0,
    )
    _write_state(
        spath,
        {
            "status": "finished",
            "tune": plan.tune.tune,
            "file": str(plan.path),
            "started": started,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "sampler": sampler,
            "stopped": reason,
            "candidates": len(result.candidates),
            "trials": len(trials),
            "games_search": result.games_search,
            "games_response": result.games_response,
            "games_confirm": result.games_confirm,
            "best": best.values if best else None,
        },
    )
    return result
