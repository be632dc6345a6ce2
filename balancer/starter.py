"""``balancer init GAME DIR``: a starter rule variant and study for a designer to edit.

``DIR/variant.yaml`` extends the game's shipped main variant by name (``extends: citywright/v1.1``)
and changes nothing yet; ``DIR/study.yaml`` plays it against that variant on mirror tables of the
game's greedy agent and shows the seat win rates of both. Nothing else is written, and nothing is
overwritten unless asked.
"""

from __future__ import annotations

import re
from pathlib import Path

from balancer.data import builtin_config
from balancer.outdir import Spelled, write_atomic

VARIANT_FILE = "variant.yaml"
STUDY_FILE = "study.yaml"
STARTER_VARIANT = "mine"
STARTER_GAMES = 2000


class StarterError(Spelled, ValueError):
    """``balancer init`` cannot write its files (unknown game, a file in the way); the message names it
    (and says ``force=True``, or ``--force`` in :meth:`~balancer.sim.errors.Spelled.cli_message`)."""


def _variant_text(game: str, parent: str, title: str) -> str:
    return f"""\
# A rule variant of {title}. It extends the shipped variant {parent}: every key not set here
# comes from there. Run `balancer show {parent}` to see every key (value, comment, rulebook section,
# `assumed` note); to test a rule change, write a key here, nested under its parent keys as printed
# there, with its new value. Also:
#   balancer show {VARIANT_FILE} --diff {parent}   lists what this file changes
#   balancer validate --schema {game}   gives every key as a JSON schema, for editor completion
# then play it:  balancer run {VARIANT_FILE} --games 2000   or the study beside it:  balancer study {STUDY_FILE}
extends: {parent}
variant: {STARTER_VARIANT}
"""


def _study_text(game: str, parent: str, parent_label: str, title: str, players: int, agent: str) -> str:
    return f"""\
# My variant ({VARIANT_FILE}) against the shipped {parent}: the same seeds for both (common random
# numbers), {STARTER_GAMES:,} games of {players}-player mirror tables of {agent}.
#   balancer study {STUDY_FILE} -o reports/{game}-{STARTER_VARIANT}.html
study: {game}-{STARTER_VARIANT}
title: "{title}: my variant against {parent_label}"
game: {game}
seed: 1
variants:
  {parent_label}: {parent}
  {STARTER_VARIANT}: {VARIANT_FILE}

runs:
  mirror-{players}p: {{players: {players}, agents: [{agent}], games: {STARTER_GAMES}}}

figures:
  - {{title: "Seat win rates, {players} players", run: mirror-{players}p, show: seat_win_rate}}
"""


def write_starter(game: str, directory: Path | str, force: bool = False) -> list[Path]:
    """Write ``directory/variant.yaml`` and ``directory/study.yaml`` for ``game`` (created with its
    parents); return their paths.

    Raises StarterError for an unknown game, a ``directory`` that is a file, or an existing starter
    file when not ``force`` (nothing is written then).
    """
    from balancer.config import load_config
    from balancer.core.registry import unknown_game
    from balancer.games import GAMES, get_spec

    if game not in GAMES:
        raise StarterError(unknown_game(game))
    spec = get_spec(game)
    parent = spec.default_config.removesuffix(".yaml")
    shipped = builtin_config(parent)
    if shipped is None:  # a game of another package (examples/pig): its YAML files are its own, named by path
        raise StarterError(
            f"{game}: its main variant {parent} does not ship with balancer; copy the game's own YAML to start a variant"
        )
    cfg = load_config(shipped)
    counts = cfg.player_counts
    players = 4 if 4 in counts else max(counts)
    agent = "greedy" if "greedy" in spec.agents else spec.agents[0]
    label = cfg.variant if cfg.variant != STARTER_VARIANT else f"{cfg.variant}-shipped"
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise StarterError(f"{out}: exists and is not a directory")
    files = {
        out / VARIANT_FILE: _variant_text(game, parent, spec.display_name),
        out / STUDY_FILE: _study_text(game, parent, label, spec.display_name, players, agent),
    }
    existing = [str(p) for p in files if p.exists()]
    if existing and not force:
        raise StarterError.spelled(
            lambda o: f"{', '.join(existing)}: already exists; use {o.force} to replace the starter files"
        )
    out.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        write_atomic(path, text)  # a new temporary file renamed into place; a link at path is refused
    return list(files)


def _shipped_path(value: str, source: Path) -> str:
    """A path of a shipped file's (relative to ``source``) as a name that finds the same file from
    anywhere: its shipped name (``citywright/v1.1``), else the path unchanged."""
    from balancer.data import shipped_name

    return shipped_name(source.parent / value) or value


def _replace_block(text: str, key: str, lines: list[str]) -> str:
    """``text`` with the top-level ``key:`` and the indented lines under it replaced by ``lines``."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if line.startswith(f"{key}:"):
            out.extend(f"{x}\n" for x in lines)
            skipping = True
            continue
        if skipping and (line.startswith((" ", "\t")) or not line.strip()):
            if not line.strip():
                out.append(line)
                skipping = False
            continue
        skipping = False
        out.append(line)
    return "".join(out)


def copy_shipped(name: str, directory: Path | str, force: bool = False) -> list[Path]:
    """Copy the shipped study, sweep or tune file ``name`` (``citywright/appendix``) into
    ``directory`` as ``<stem>.yaml`` for a designer to edit; return the files written.

    The copy finds the shipped variants it names from anywhere (``v1.1.yaml`` becomes
    ``citywright/v1.1``), and where the folder holds the designer's variant (``variant.yaml``, as
    ``balancer init GAME DIR`` writes it) it points at it: a study plays it beside the shipped
    variants, a sweep or tune starts from it (``base: variant.yaml``). Raises StarterError for a
    name that is no shipped file, a rule variant, a ``directory`` that is a file, or an existing
    file when not ``force`` (nothing is written then)."""
    import yaml

    from balancer.data import missing_note
    from balancer.files import is_study, is_sweep_or_tune, read_yaml_head

    source = builtin_config(name)
    if source is None:
        raise StarterError(f"--from {name}: not a file shipped with balancer{missing_note(name)}")
    head = read_yaml_head(source)
    kind = "sweep" if is_sweep_or_tune(head) and "sweep" in head else "tune" if is_sweep_or_tune(head) else None
    kind = kind or ("study" if is_study(head) else None)
    if kind is None:
        raise StarterError(
            f"--from {name}: a rule variant, not a study, sweep or tune; 'balancer init GAME DIR' writes a "
            f"variant to edit (write extends: {name} in it to start from this one)"
        )
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise StarterError(f"{out}: exists and is not a directory")
    target = out / source.name
    if target.exists() and not force:
        raise StarterError.spelled(lambda o: f"{target}: already exists; use {o.force} to replace it")
    mine = out / VARIANT_FILE
    own_label = None
    if mine.is_file():
        data = yaml.safe_load(mine.read_text(encoding="utf-8"))
        own_label = str(data.get("variant") or mine.stem) if isinstance(data, dict) else mine.stem
    text = source.read_text(encoding="utf-8")
    note = f"# Copied from the shipped {name} by `balancer init --from {name}`"
    if kind == "study":
        variants = {str(k): _shipped_path(str(v), source) for k, v in head["variants"].items()}
        if own_label is not None and own_label not in variants:
            variants[own_label] = VARIANT_FILE
            note += f"; it also plays your variant ({VARIANT_FILE}, as {own_label})"
        text = _replace_block(text, "variants", ["variants:"] + [f"  {k}: {v}" for k, v in variants.items()])
    else:
        base = VARIANT_FILE if own_label is not None else _shipped_path(str(head["base"]), source)
        if own_label is not None:
            note += f"; it {kind}s your variant ({VARIANT_FILE})"
        text = _replace_block(text, "base", [f"base: {base}"])
    text = _clone_paths_named(text, source, target)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(target, f"{note}.\n{text}")
    return [target]


_CLONE_PATH = re.compile(r"(--write |-o )?configs/([a-z_]+)/([A-Za-z0-9_.-]+?)\.yaml\b")


def _clone_paths_named(text: str, source: Path, target: Path) -> str:
    """``text`` with the repository paths of its comment lines (``configs/citywright/ci.yaml``, which
    only a clone has) named as they work in the copy's folder: the shipped file itself as the copy
    (``my-variant/ci.yaml``), a file a command writes (``--write``, ``-o``) beside it, any other shipped
    file by its shipped name (``citywright/v1.1``)."""

    def named(m: re.Match[str]) -> str:
        flag, game, stem = m.group(1) or "", m.group(2), m.group(3)
        if f"{game}/{stem}.yaml" == f"{source.parent.name}/{source.name}":
            return f"{flag}{target.as_posix()}"
        if flag:
            return f"{flag}{(target.parent / f'{stem}.yaml').as_posix()}"
        return f"{game}/{stem}" if builtin_config(f"{game}/{stem}") is not None else m.group(0)

    return "".join(
        _CLONE_PATH.sub(named, line) if line.lstrip().startswith("#") else line
        for line in text.splitlines(keepends=True)
    )
