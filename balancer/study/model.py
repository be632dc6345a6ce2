"""The study file: a pydantic model with ``extra="forbid"`` and error messages naming file and key."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from balancer.config import (
    RULE_CHECK_ERRORS,
    ConfigError,
    format_key_path,
    key_typos,
    read_yaml_mapping,
    without_unknown_keys,
)
from balancer.core.seeding import MAX_GAMES
from balancer.data import builtin_config, locate_config
from balancer.ladder.model import Ladder, expand_study_data

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
"""Study names, run names and variant labels: each becomes a folder (``results/<study>/<run>/<variant>/``)
and part of file names, so letters, digits, '.', '_' and '-' only, never a path or markup."""
MAX_NAME_LENGTH = 64
"""The longest study name, run name or variant label (a file name holds 255 bytes)."""

SHOWS = ("seat_win_rate", "agent_win_rate")
"""What a figure can show besides ``metric:<name>`` (a per-player metric of the game) and
``matchups:<label>`` (2 players: the match-up matrix of a label column, e.g. an Urgency deck)."""


class StudyError(Exception):
    """A study file that cannot be used: its str is one line per problem, naming file and key.

    Given a list, ``lines`` keeps every problem (one line each, as :class:`~balancer.config.ConfigError`
    does), so that the command line prints them one per line."""

    def __init__(self, lines: str | list[str]):
        if isinstance(lines, list):
            self.lines: list[str] = list(lines)
        super().__init__(lines if isinstance(lines, str) else "\n".join(lines))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Bound(_Strict):
    """A designer's target for one tracked number: ``between: [low, high]``, ``at_most: x`` or
    ``at_least: x`` (win rates as fractions, metrics in their own unit). Checked by ``balancer check``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)
    between: tuple[float, float] | None = None
    at_most: float | None = None
    at_least: float | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Bound:
        given = [k for k in ("between", "at_most", "at_least") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of between: [low, high], at_most: x, at_least: x")
        if self.between is not None and not self.between[0] < self.between[1]:
            raise ValueError(f"between: low must be below high, got {list(self.between)}")
        return self

    @property
    def sides(self) -> list[tuple[float, int]]:
        """``(reference, +1)``: fails above the reference; ``(reference, -1)``: fails below it."""
        if self.between is not None:
            return [(self.between[0], -1), (self.between[1], 1)]
        if self.at_most is not None:
            return [(self.at_most, 1)]
        return [(self.at_least, -1)]  # type: ignore[list-item]

    def text(self) -> str:
        if self.between is not None:
            return f"between {self.between[0]:g} and {self.between[1]:g}"
        return f"at most {self.at_most:g}" if self.at_most is not None else f"at least {self.at_least:g}"


EXPECT_KEY = (
    r"(seat_win_rate(:[1-8])?|agent_win_rate(:[A-Za-z0-9_.\-]+)?|completion|margin|length"
    r"|lead_changes|comeback|decided_at|leader_wins|[a-z_][a-z0-9_]*_per_player)"
)
"""Keys of ``expect:``: ``seat_win_rate`` (every seat) or ``seat_win_rate:<seat>``, ``agent_win_rate``
(every agent) or ``agent_win_rate:<agent>``, ``completion`` (the share of games that end by the rules,
e.g. ``completion: {at_least: 0.999}``), ``margin`` or ``length`` (a game's winner minus runner-up in
points, its most turns by a player), ``lead_changes``, ``comeback``, ``decided_at`` or ``leader_wins``
(from the game's trajectory; :mod:`balancer.check.values` defines each), or a metric as named in
summary.json (``<name>_per_player``)."""


TRACKED_GAME_NUMBERS = ("completion", "margin", "length", "lead_changes", "comeback", "decided_at", "leader_wins")
"""Numbers of every game that ``check.metrics`` may name besides the game's ``<metric>_per_player``
(:mod:`balancer.check.values`)."""
FLOW_ALIASES = {"comebacks": "comeback", "leader_wins_curve": "leader_wins", "decided": "decided_at"}
"""Names of how the game feels as the report words them, and the number ``check`` tracks for each
(said in the refusal of ``check.metrics``)."""


class Run(_Strict):
    """One table to play under every variant: player count, agents by seat (one name = mirror table), games."""

    players: int = Field(ge=1, le=8, description="players at the table")
    agents: list[str] = Field(min_length=1, description="one agent for every seat, or one per seat (seats rotate)")
    games: int = Field(ge=1, le=MAX_GAMES, description="games per variant")
    expect: dict[str, Bound] = Field(
        default_factory=dict, description="designer targets checked by 'balancer check', under every variant"
    )

    @field_validator("expect")
    @classmethod
    def _expect_keys(cls, expect: dict[str, Bound]) -> dict[str, Bound]:
        for key in expect:
            if not re.fullmatch(EXPECT_KEY, key):
                raise ValueError(
                    f"{key!r} is not a tracked number; use seat_win_rate, seat_win_rate:<seat>, "
                    "agent_win_rate, agent_win_rate:<agent>, completion, margin, length or <metric>_per_player"
                )
        return expect

    @model_validator(mode="after")
    def _agents_fit(self) -> Run:
        if len(self.agents) not in (1, self.players):
            raise ValueError(f"agents: give 1 agent or {self.players} (one per seat), got {len(self.agents)}")
        return self

    @property
    def table(self) -> list[str]:
        """Agents by seat for game 0."""
        return self.agents * self.players if len(self.agents) == 1 else list(self.agents)


Published = dict[str, float] | list[float] | float


class Figure(_Strict):
    """A figure of the report: one run, shown for every variant, with published values beside ours.

    ``show``: ``seat_win_rate`` (published: a list of percentages by seat), ``agent_win_rate``
    (published: agent -> percentage), ``metric:<name>`` (published: the value, per player) or
    ``matchups:<label>`` (a heatmap of the label's match-up matrix, 2-player runs; nothing published).
    """

    title: str = Field(min_length=1)
    run: str
    show: str
    published: dict[str, Published] | None = None

    @field_validator("show")
    @classmethod
    def _known_show(cls, show: str) -> str:
        if show not in SHOWS and not re.fullmatch(r"(metric|matchups):[a-z_][a-z0-9_]*", show):
            raise ValueError(f"{show!r} is not one of {', '.join(SHOWS)}, metric:<name>, matchups:<label>")
        return show


class Tolerance(_Strict):
    """The smallest change ``balancer check`` must find (with probability 1 - miss_rate), per kind of number."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)
    win_rate: float = Field(0.02, gt=0, lt=1, description="absolute change of a win rate (0.02 = 2 points)")
    metric_sd: float = Field(
        0.1, gt=0, description="change of a metric mean, in standard deviations of its per-game value in the baseline"
    )
    numbers: dict[str, float] = Field(
        default_factory=dict,
        description="a tolerance of its own per tracked number (seat_win_rate:4) or name (seat_win_rate, "
        "wasted_tiles_per_player): a win rate's as a fraction, a metric's in standard deviations",
    )

    @field_validator("numbers")
    @classmethod
    def _positive(cls, numbers: dict[str, float]) -> dict[str, float]:
        for name, value in numbers.items():
            if not 0 < value < 1e6:
                raise ValueError(f"numbers.{name}: a tolerance is above 0, got {value}")
        return numbers


class CheckSettings(_Strict):
    """Settings of ``balancer check`` for this study (each can be overridden on the command line)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)
    tolerance: Tolerance = Field(default_factory=Tolerance)
    false_alarm: float = Field(0.01, gt=0, lt=0.5, description="chance that an unchanged study fails (all numbers)")
    miss_rate: float = Field(0.1, gt=0, lt=0.5, description="chance of passing a change as large as the tolerance")
    max_games: int | None = Field(
        None, ge=1, le=MAX_GAMES, description="game cap per cell [default: the baseline's games]"
    )
    looks: int = Field(4, ge=1, le=20, description="looks (batches) per cell at which it may stop")
    metrics: list[str] | None = Field(
        None, description="metrics to track (<name>_per_player, completion, margin or length); default all metrics"
    )


class Study(_Strict):
    """A whole study file (see ``configs/citywright/appendix.yaml``)."""

    study: str = Field(
        pattern=NAME_PATTERN, max_length=MAX_NAME_LENGTH, description="name; results go to results/<study>/"
    )
    title: str = Field(min_length=1)
    game: str
    seed: int = Field(ge=0, le=2**63 - 1)
    variants: dict[str, str] = Field(min_length=1, description="label -> config file, relative to the study file")
    runs: dict[str, Run] = Field(min_length=1)
    figures: list[Figure] = Field(default_factory=list)
    check: CheckSettings = Field(default_factory=CheckSettings, description="settings of 'balancer check'")
    ladder: Ladder | None = Field(
        None, description="a skill ladder: rungs, players and games, expanded into runs (see balancer/ladder/model.py)"
    )

    @model_validator(mode="before")
    @classmethod
    def _expand_ladder(cls, data: Any) -> Any:
        return expand_study_data(data)

    @model_validator(mode="after")
    def _references(self) -> Study:
        """Figures naming runs and variants of the file, and names fit to be folders: every problem
        found, one ``key.path: problem`` line each."""
        problems = [line for i, fig in enumerate(self.figures) for line in self._figure_problems(i, fig)]
        problems += self._tracked_name_problems()
        for where, names in (("variants", self.variants), ("runs", self.runs)):
            for name in names:
                shown = name if len(name) <= 40 else name[:37] + "..."
                if not re.fullmatch(NAME_PATTERN, name):
                    problems.append(
                        f"{where}.{shown}: {'labels' if where == 'variants' else 'run names'} use "
                        "letters, digits, '.', '_' and '-' only, starting with a letter or digit "
                        "(each is a folder name)"
                    )
                elif len(name) > MAX_NAME_LENGTH:
                    problems.append(f"{where}.{shown}: {len(name)} characters, at most {MAX_NAME_LENGTH}")
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def _tracked_name_problems(self) -> list[str]:
        """``check.metrics`` names and ``expect:`` metric keys that are no number of the game: a typo,
        or a measure ``check`` does not track, was accepted here and found only after the games were
        played, when ``baseline save`` had written a baseline without it (and blamed the file). A game
        that declares no metrics is not checked (its metric columns are known only from its results)."""
        from balancer.core.registry import get_spec

        specs = get_spec(self.game).metrics
        if specs is None:
            return []
        metrics = [f"{m.name}_per_player" for m in specs.metrics]
        known = [*TRACKED_GAME_NUMBERS, *metrics]

        def why(name: str, expect: bool = False) -> str:
            close = difflib.get_close_matches(name, known, n=1)
            if name in FLOW_ALIASES:
                hint = f" (check tracks {name.replace('_', ' ')} per game as {FLOW_ALIASES[name]!r})"
            else:
                hint = f" (did you mean {close[0]!r}?)" if close else ""
            if expect:
                return f"{name!r} is no metric of {self.game}; its metrics are {', '.join(metrics)}{hint}"
            return (
                f"{name!r} is not a number check tracks for {self.game}; it tracks "
                f"{', '.join(TRACKED_GAME_NUMBERS)} and the metrics {', '.join(metrics)}{hint}"
            )

        problems = [
            f"check.metrics[{i}]: {why(name)}" for i, name in enumerate(self.check.metrics or []) if name not in known
        ]
        for run_name, run in self.runs.items():
            problems += [
                f"runs.{run_name}.expect.{key}: {why(key, expect=True)}"
                for key in run.expect
                if key.endswith("_per_player") and key not in metrics
            ]
        return problems

    def _figure_problems(self, i: int, fig: Figure) -> list[str]:
        """The problems of figure ``i``: an unknown run, published values that do not fit what it shows."""
        if fig.run not in self.runs:
            return [f"figures[{i}].run: unknown run {fig.run!r}; runs are {', '.join(self.runs)}"]
        run = self.runs[fig.run]
        if fig.show.startswith("matchups:"):
            if run.players != 2:
                return [f"figures[{i}].show: a match-up matrix needs a 2-player run, {fig.run!r} has {run.players}"]
            if fig.published:
                return [f"figures[{i}].published: a match-up matrix takes no published values"]
        problems = []
        for label, value in (fig.published or {}).items():
            if label not in self.variants:
                problems.append(
                    f"figures[{i}].published.{label}: unknown variant; variants are {', '.join(self.variants)}"
                )
            elif fig.show == "seat_win_rate" and (not isinstance(value, list) or len(value) != run.players):
                problems.append(f"figures[{i}].published.{label}: give {run.players} seat percentages as a list")
            elif fig.show == "agent_win_rate" and (not isinstance(value, dict) or set(value) - set(run.agents)):
                problems.append(f"figures[{i}].published.{label}: give agent: percentage for agents of run {fig.run!r}")
            elif fig.show.startswith("metric:") and not isinstance(value, (int, float)):
                problems.append(f"figures[{i}].published.{label}: give one number")
        return problems

    @field_validator("game")
    @classmethod
    def _registered_game(cls, game: str) -> str:
        from balancer.core.registry import get_spec

        try:
            get_spec(game)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        return game


def is_file_quietly(path: Path) -> bool:
    """``path.is_file()``, False also for a path the system refuses (a name too long, ...)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _path_of(loc: tuple[Any, ...]) -> str:
    """A pydantic error location in the file's own spelling: ``runs.m.agents[0]``, ``figures[2].show``."""
    return format_key_path(loc)


@dataclass
class StudyFile:
    """A study file read: where it is (a shipped name located), its mapping, its model (None when the
    file has problems) and the problems of its schema and own checks, one line each."""

    path: Path
    data: dict
    study: Study | None
    problems: list[str]


def read_study(path: Path | str) -> StudyFile:
    """Read a study file and validate its schema, collecting every problem (:class:`StudyFile`).
    Raises StudyError (one line) only for a file that cannot be a study at all: missing, not YAML,
    not a mapping, a rule variant."""
    path = locate_config(path)  # a shipped study by name: citywright/appendix
    if not is_file_quietly(path):
        raise StudyError(f"{path}: no such study file")
    try:
        data = read_yaml_mapping(path)  # size limit, safe loading, duplicate keys refused with line:column
    except ConfigError as exc:
        if "expected a mapping" in str(exc) or "empty file" in str(exc):
            raise StudyError(
                f"{path}: a study file is a mapping of keys (study, title, game, seed, variants, runs, figures, check)"
            ) from None
        raise StudyError(str(exc)) from None
    if "study" not in data and ("extends" in data or "variant" in data or "runs" not in data):
        raise StudyError(
            f"{path}: a rule variant, not a study file (a study has study:, variants:, runs: and "
            f"figures:); play a variant with 'balancer run {path}'"
        )
    study, lines = _validated(path, data)
    return StudyFile(path, data, study, lines)


def load_study(path: Path | str) -> tuple[Study, dict[str, Path]]:
    """Read and validate a study file. Returns (study, variant label -> absolute config path).

    Raises StudyError naming the file and key of every problem, one line each: a missing file, bad
    YAML, unknown keys, wrong types, every variant config that does not exist (the configs
    themselves are checked when loaded: :func:`balancer.study.runner.check_study`).
    """
    read = read_study(path)
    configs, missing = variant_files(read.path, read.data)
    lines = read.problems + [line for line in missing if line not in read.problems]
    if lines:
        raise StudyError(lines)
    assert read.study is not None  # no problem: the model validated
    return read.study, configs


def _validated(path: Path, data: dict) -> tuple[Study | None, list[str]]:
    """The study model of ``data``, or None and one ``<file>: <key path>: <problem>`` line per problem:
    every schema problem (an unknown key with the key it is a likely typo of), and the file's own
    checks (figures naming runs, ...) that unknown keys would have kept from running."""
    try:
        return Study.model_validate(data), []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        lines = _error_lines(path, errors, key_typos(errors, Study), data)
        lines += [line for line in _name_lines(path, data) if line not in lines]
    repaired, _ = without_unknown_keys(data, errors, Study)
    repaired = _with_missing_text(repaired if repaired is not None else data, errors)
    if repaired is not None:
        try:
            Study.model_validate(repaired)
        except ValidationError as again:
            checks = [e for e in again.errors(include_url=False) if e["type"] in RULE_CHECK_ERRORS and not e["loc"]]
            lines += [line for line in _error_lines(path, checks, {}) if line not in lines]
    return None, list(dict.fromkeys(lines))


def _name_lines(path: Path, data: dict) -> list[str]:
    """The figures of a study file's mapping that name a run or variant label it does not have, in the
    words of :meth:`Study._figure_problems`, read from the mapping alone: any field error (a seed below
    0, another figure's ``show:``) keeps pydantic from running the model's own checks, and the unknown
    name was told only in a later pass."""
    try:
        data = expand_study_data(data)  # a ladder's cells are runs too
    except ValueError:
        return []  # the ladder's own line says what is wrong
    runs, variants, figures = data.get("runs"), data.get("variants"), data.get("figures")
    if not isinstance(runs, dict) or not isinstance(figures, list):
        return []
    lines = []
    for i, fig in enumerate(figures):
        run = fig.get("run") if isinstance(fig, dict) else None
        if not isinstance(run, str):
            continue  # the schema's line says what a figure needs
        if run not in runs:
            lines.append(f"{path}: figures[{i}].run: unknown run {run!r}; runs are {', '.join(map(str, runs))}")
            continue
        published, show = fig.get("published"), fig.get("show")
        if isinstance(published, dict) and isinstance(variants, dict) and not str(show).startswith("matchups:"):
            lines += [
                f"{path}: figures[{i}].published.{label}: unknown variant; variants are {', '.join(map(str, variants))}"
                for label in published
                if label not in variants
            ]
    return lines


def _with_missing_text(data: dict, errors: list[Any]) -> dict | None:
    """``data`` with a placeholder for every missing top-level text key (``title``), so that the
    file's own checks (figures naming runs, ...) run in the same pass as the missing key's line;
    None when nothing was added and ``data`` is the file itself (its checks already ran)."""
    missing = [
        e["loc"][0]
        for e in errors
        if e["type"] == "missing"
        and len(e["loc"]) == 1
        and e["loc"][0] in Study.model_fields
        and Study.model_fields[e["loc"][0]].annotation is str
    ]
    if not missing:
        return data if any(e["type"] == "extra_forbidden" for e in errors) else None
    return {**data, **{key: "(missing)" for key in missing}}


def _yaml_word(key: Any) -> str:
    """How YAML spells a key it read as something other than text: ``true``, ``null``, ``4``."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return "null" if key is None else str(key)


def _kind_of(key: Any) -> str:
    return "a boolean" if isinstance(key, bool) else "null" if key is None else "a number"


def _key_as_read(data: Any, loc: tuple[Any, ...]) -> Any:
    """The key of the mapping at ``loc[:-1]`` in ``data`` equal to ``loc[-1]`` as YAML read it (pydantic
    reports a key read as ``true`` as ``1``); ``loc[-1]`` when it cannot be found."""
    node = data
    for part in loc[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return loc[-1]
    if isinstance(node, dict):
        for key in node:
            if key == loc[-1] and not isinstance(key, str):
                return key
    return loc[-1]


def _error_lines(path: Path, errors: list[Any], typos: dict[tuple[Any, ...], str], data: Any = None) -> list[str]:
    """A line per pydantic error of a study file (a model check of several lines: a line each); a
    mapping's key that is not text is named as YAML read it (``data``: the file's mapping)."""
    lines = []
    for err in errors:
        msg = err["msg"].removeprefix("Value error, ")
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
            if loc in typos:
                msg += f" (did you mean {typos[loc]!r}?)"
        if len(loc) >= 2 and loc[-1] == "[key]":  # a mapping's key itself (YAML's unquoted true, 4, null)
            key = _key_as_read(data, loc[:-1])
            msg = f'key {_yaml_word(key)} is {_kind_of(key)}, not text; write it in quotes: "{_yaml_word(key)}": ...'
            loc = loc[:-2]
        for part in msg.split("\n") if err["type"] in RULE_CHECK_ERRORS else [msg]:
            where = loc
            m = re.match(r"^(\S+?): (.*)$", part, re.S)
            if m and not loc:
                where, part = (m.group(1),), m.group(2)
            lines.append(f"{path}: {_path_of(where)}: {part}")
    return lines


def variant_files(path: Path, data: dict) -> tuple[dict[str, Path], list[str]]:
    """Label -> config file of every variant a study file's ``variants:`` names (relative to the
    file, or a shipped name such as ``citywright/v1.1``), and a line for every file that does not
    exist. Read from the file's mapping, so that missing files are named even when other keys are wrong."""
    variants = data.get("variants")
    configs: dict[str, Path] = {}
    lines: list[str] = []
    for label, rel in variants.items() if isinstance(variants, dict) else []:
        if not isinstance(rel, str) or not rel:
            continue  # the schema's line says what is wrong
        cfg_path = (path.parent / rel).resolve()
        if not is_file_quietly(cfg_path) and (shipped := builtin_config(rel)) is not None:
            cfg_path = shipped  # a shipped variant by name: citywright/v1.1
        if not is_file_quietly(cfg_path):
            lines.append(f"{path}: variants.{label}: no such config file {rel!r} (looked for {cfg_path})")
        else:
            configs[str(label)] = cfg_path
    return configs, lines
