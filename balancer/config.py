"""Rule-variant YAML loading: ``extends:`` + overrides, pydantic validation, clear error messages.

A config file is a YAML mapping with a ``game:`` key naming a registered game
(:mod:`balancer.games`). It may start from another file with ``extends: other.yaml`` (a path relative
to the extending file); mappings are merged key by key, the extending file winning, while lists and
scalars are replaced whole. The merged mapping is validated by the game's config model (its ``GameSpec.config_model``).

Every problem with the input raises :class:`ConfigError`, whose text names the file, the dotted key
path (``scoring.commercial.tiers[1].points``) and what would be allowed, one line per problem
(docs/architecture.md, "Conventions": untrusted input, safe loading only).
"""

from __future__ import annotations

import collections.abc
import copy
import difflib
import hashlib
import json
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from balancer.core.config import GameConfig
from balancer.data import builtin_config, locate_config, missing_note
from balancer.limits import MAX_DEPTH, InputLimitError, read_text_bounded

EXTENDS_KEY = "extends"
GAME_KEY = "game"
STUDY_KEY = "study"
MAX_YAML_BYTES = 1_000_000
"""The largest config or study file read (bytes). The biggest shipped config is about 17 kB; a file
past this is refused before parsing (PyYAML needs minutes and gigabytes for a 50 MB flow list)."""

KeyPath = tuple[Any, ...]
"""A location in a config: mapping keys (str) and list indices (int), outermost first."""


class ConfigError(Exception):
    """Bad config input. ``str(error)`` is one line per problem, each naming the file and key path."""

    def __init__(self, lines: str | list[str]):
        self.lines: list[str] = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))


# --------------------------------------------------------------------------------------------------
# YAML reading


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing duplicate keys in a mapping (which it would silently drop)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    mapping: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark
            ) from None
        if key in mapping:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        mapping[key] = loader.construct_object(value_node, deep=deep)
    return mapping


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


MAX_YAML_NODES = 1_000_000
"""The most nodes a YAML document may have once its aliases are expanded (a 1 MB file holds fewer than
this): a few nested ``*aliases`` of ``*aliases`` ("billion laughs") would otherwise make later steps
(merging, validation) walk billions of nodes."""


class YamlLimitError(yaml.MarkedYAMLError):
    """A YAML document nested deeper than :data:`balancer.limits.MAX_DEPTH` or larger than
    :data:`MAX_YAML_NODES` once expanded; ``problem_mark`` is where."""


def _compose_node(loader: Any, parent: Any, index: Any) -> Any:
    """PyYAML's ``compose_node`` counting nesting depth and expanded size, refusing past the limits
    before PyYAML's own recursion (one Python frame per level) could overflow."""
    depth = getattr(loader, "_depth", 0) + 1
    if depth > MAX_DEPTH:
        raise YamlLimitError(None, None, f"nested more than {MAX_DEPTH} levels deep", loader.peek_event().start_mark)
    loader._depth = depth
    try:
        node = yaml.composer.Composer.compose_node(loader, parent, index)
    finally:
        loader._depth = depth - 1
    sizes: dict[int, tuple[Any, int]] = loader.__dict__.setdefault("_sizes", {})
    if node is not None and id(node) not in sizes:  # an alias returns its anchor's node, sized already
        children = node.value if isinstance(node, yaml.SequenceNode) else []
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        size = 1 + sum(sizes[id(c)][1] if id(c) in sizes else 1 for c in children)
        if size > MAX_YAML_NODES:
            raise YamlLimitError(
                None, None, f"more than {MAX_YAML_NODES:,} values once its aliases are expanded", node.start_mark
            )
        sizes[id(node)] = (node, size)  # the node is kept so that its id is not reused
    return node


_UniqueKeyLoader.compose_node = _compose_node  # type: ignore[method-assign,assignment]


_PARSED: dict[str, Any] = {}
"""Texts parsed in this process -> their documents, never handed out (callers get a deep copy). One run
reads its variant and the files it extends six times (the command line's check, the run, its hash, its
run.json), and PyYAML's pure-Python parser takes about 30 ms for a variant with its decks."""

_PARSED_MAX = 16
"""The most texts :data:`_PARSED` keeps (it is emptied when full); a text over :data:`_PARSED_CHARS` is not kept."""

_PARSED_CHARS = 1 << 20


_HIDDEN_BREAKS = {"\u2028": "line separator", "\u2029": "paragraph separator", "\x85": "next line (NEL)"}
_HIDDEN_BREAK = re.compile("[\u2028\u2029\x85]")
"""Characters PyYAML reads as a line break and an editor shows within a line (issue 52): a value after
one inside what looks like a comment would be read as a key of the file."""


def _refuse_hidden_breaks(text: str) -> None:
    """Raise YamlLimitError (marked at its line and column, counted by newlines as an editor does) for a
    character of :data:`_HIDDEN_BREAKS`: refused, not read as a line break."""
    hidden = _HIDDEN_BREAK.search(text)
    if hidden is None:
        return
    line = text.count("\n", 0, hidden.start())
    column = hidden.start() - (text.rfind("\n", 0, hidden.start()) + 1)
    mark = yaml.Mark("", hidden.start(), line, column, "", 0)  # no snippet: the message names the character
    raise YamlLimitError(
        None,
        None,
        f"a {_HIDDEN_BREAKS[hidden.group()]} character (U+{ord(hidden.group()):04X}), which YAML reads as a line "
        "break where an editor shows none (after a '#' it would end the comment); remove it",
        mark,
    )


def load_yaml_text(text: str) -> Any:
    """``text`` parsed with the safe loader refusing duplicate keys (:class:`_UniqueKeyLoader`), nesting
    deeper than :data:`~balancer.limits.MAX_DEPTH` and aliases expanding past :data:`MAX_YAML_NODES`
    (:class:`YamlLimitError`, with its mark) and the line breaks an editor does not show (U+2028, U+2029,
    U+0085: :func:`_refuse_hidden_breaks`). Raises yaml.YAMLError. A text parsed before in this process
    is not parsed again: the result is a deep copy of the first parse (aliases stay shared objects)."""
    if text not in _PARSED:
        _refuse_hidden_breaks(text)
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
        if len(text) > _PARSED_CHARS:
            return data
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[text] = data
    return copy.deepcopy(_PARSED[text])


def yaml_error_text(path: Path, exc: yaml.YAMLError) -> str:
    """One line for a YAML error of ``path``: ``path:line:column: YAML syntax error: problem`` (a limit:
    ``path:line:column: problem``)."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = exc.problem or exc.context or "invalid YAML"
        return f"{where}: {problem}" if isinstance(exc, YamlLimitError) else f"{where}: YAML syntax error: {problem}"
    return f"{path}: YAML error: {exc}"


def read_yaml_mapping(path: Path) -> dict:
    """The top-level mapping of one YAML file (no ``extends:`` resolution), read with the safe
    loader, refusing duplicate keys; used for config and study files alike.

    Raises ConfigError for a missing or unreadable file, one larger than :data:`MAX_YAML_BYTES`,
    a YAML syntax error or a duplicate key (with line and column) or a document that is not a mapping.
    A built-in name (``citywright/v1.1``, :func:`balancer.data.locate_config`) reads the shipped file.
    """
    given, path = path, locate_config(path)
    try:
        exists, is_file = path.exists(), path.is_file()
    except OSError as exc:  # a name too long for the file system, a loop of links ...
        raise ConfigError(f"{_short_path(path)}: cannot read: {exc.strerror or exc}") from None
    if not exists:
        raise ConfigError(f"{path}: file not found{missing_note(given)}")
    if not is_file:
        raise ConfigError(f"{path}: not a file")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if size > MAX_YAML_BYTES:
        raise ConfigError(f"{path}: {size:,} bytes, more than the {MAX_YAML_BYTES:,} a config or study file may have")
    try:  # bounded again while reading: a device or pipe (/dev/zero) has no size to stat
        text = read_text_bounded(path, MAX_YAML_BYTES, "a config or study file")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except InputLimitError as exc:
        raise ConfigError(str(exc)) from None
    try:
        data = load_yaml_text(text)
    except yaml.YAMLError as exc:
        raise ConfigError(yaml_error_text(path, exc)) from None
    if data is None:
        raise ConfigError(f"{path}: empty file; expected a mapping with a '{GAME_KEY}:' key")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping (key: value lines) at the top level, got {_type_name(data)}")
    return data


# --------------------------------------------------------------------------------------------------
# extends + merge


def deep_merge(base: dict, override: dict) -> dict:
    """A new mapping: ``base`` updated by ``override``, recursively for keys whose values are both
    mappings; any other value (list, scalar, or a type change) in ``override`` replaces the base's."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


@dataclass
class ResolvedYaml:
    """A config mapping after ``extends:`` resolution.

    data: the merged mapping, without ``extends`` keys.
    origins: key path -> the file that last set it (for error messages).
    chain: the files read, the requested one first.
    """

    path: Path
    data: dict
    origins: dict[KeyPath, Path] = field(default_factory=dict)
    chain: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Lines found while resolving that validation reports first (an ``extend:`` read as ``extends:``)."""

    def origin(self, loc: KeyPath) -> Path:
        """The file that set the longest known prefix of ``loc`` (the requested file if none)."""
        for end in range(len(loc), 0, -1):
            found = self.origins.get(tuple(loc[:end]))
            if found is not None:
                return found
        return self.path


def _record_origins(data: Any, path: Path, prefix: KeyPath, origins: dict[KeyPath, Path]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            if not prefix and key == EXTENDS_KEY:
                continue
            origins[prefix + (key,)] = path
            _record_origins(value, path, prefix + (key,), origins)


def resolve_yaml(path: Path | str) -> ResolvedYaml:
    """Read ``path`` and every file it ``extends:`` (recursively), and merge them.

    ``path`` and each ``extends:`` may name a shipped file as ``<game>/<name>`` (``citywright/v1.1``)
    when no file of that name exists (:mod:`balancer.data`).

    Raises ConfigError for any unreadable file, an ``extends`` that is not a string or names a
    missing file, or a cycle of ``extends``.
    """
    return _resolve(locate_config(path), [])


def _short_path(path: Path, limit: int = 120) -> str:
    """``path`` for a message, its middle elided past ``limit`` characters."""
    text = str(path)
    return text if len(text) <= limit else f"{text[: limit // 2]}...{text[-limit // 2 :]}"


def _resolve(path: Path, stack: list[Path]) -> ResolvedYaml:
    key = path.resolve()
    if key in [p.resolve() for p in stack]:
        cycle = " -> ".join(str(p) for p in [*stack, path])
        raise ConfigError(f"{stack[-1]}: {EXTENDS_KEY}: cycle of extends: {cycle}")
    data = read_yaml_mapping(path)
    origins: dict[KeyPath, Path] = {}
    chain: list[Path] = [path]
    problems: list[str] = []
    if EXTENDS_KEY not in data and (typo := _extends_typo(data)) is not None:
        # read as the extends: it misspells (so that the file's other problems are found), and said
        problems.append(f"{path}: {typo}: unknown key {typo!r} (did you mean {EXTENDS_KEY!r}?)")
        data = {(EXTENDS_KEY if k == typo else k): v for k, v in data.items()}
    parent_name = data.get(EXTENDS_KEY)
    base: dict = {}
    if parent_name is not None:
        if not isinstance(parent_name, str) or not parent_name.strip():
            raise ConfigError(f"{path}: {EXTENDS_KEY}: expected the path of another YAML file, got {parent_name!r}")
        parent = path.parent / parent_name
        try:
            found = parent.exists()
        except OSError as exc:  # e.g. a name longer than the file system allows
            raise ConfigError(
                f"{path}: {EXTENDS_KEY}: cannot read {_short_path(parent)}: {exc.strerror or exc}"
            ) from None
        if not found and (shipped := builtin_config(parent_name)) is not None:
            parent, found = shipped, True  # a built-in variant: extends: citywright/v1.1
        if not found:
            raise ConfigError(
                f"{path}: {EXTENDS_KEY}: file not found: {_short_path(parent)}{missing_note(parent_name)}"
            )
        if not parent.is_file():  # /dev/zero, a FIFO, a folder: said by the file and key that name it
            raise ConfigError(
                f"{path}: {EXTENDS_KEY}: {_short_path(parent)} is not a file (a device, a pipe or a folder)"
            )
        resolved_parent = _resolve(parent, [*stack, path])
        if STUDY_KEY in resolved_parent.data:
            raise ConfigError(
                f"{path}: {EXTENDS_KEY}: {parent_name} is a study file, not a rule variant; extend a variant config"
            )
        own_game, parent_game = data.get(GAME_KEY), resolved_parent.data.get(GAME_KEY)
        if own_game is not None and parent_game is not None and own_game != parent_game:
            raise ConfigError(
                f"{path}: {GAME_KEY}: cannot change game ({own_game!r}) in a file that extends a "
                f"{parent_game!r} config ({parent_name})"
            )
        base = resolved_parent.data
        origins.update(resolved_parent.origins)
        chain.extend(resolved_parent.chain)
        problems.extend(resolved_parent.problems)
    own = {k: v for k, v in data.items() if k != EXTENDS_KEY}
    _record_origins(own, path, (), origins)
    return ResolvedYaml(path=path, data=deep_merge(base, own), origins=origins, chain=chain, problems=problems)


def _extends_typo(data: dict) -> str | None:
    """The top-level key of ``data`` that misspells ``extends`` (``extend``, ``Extends``, ``extnds``)
    and names a file (a string), or None."""
    for key, value in data.items():
        if isinstance(key, str) and isinstance(value, str):
            if difflib.get_close_matches(key.lower(), [EXTENDS_KEY], n=1, cutoff=0.8):
                return key
    return None


# --------------------------------------------------------------------------------------------------
# validation and error messages


def _model_for_game(resolved: ResolvedYaml) -> type[GameConfig]:
    """The config model of the game named by the ``game:`` key; ConfigError if missing or unknown."""
    from balancer.games import GAMES, get_spec

    known = ", ".join(sorted(GAMES))
    name = resolved.data.get(GAME_KEY)
    if name is None:
        raise ConfigError(f"{resolved.path}: {GAME_KEY}: required key missing; allowed: {known}")
    if not isinstance(name, str) or name not in GAMES:
        where = resolved.origin((GAME_KEY,))
        raise ConfigError(f"{where}: {GAME_KEY}: unknown game {name!r}, allowed: {known}")
    try:
        return get_spec(name).config_model
    except ImportError as exc:  # an installed game that does not import: its entry point and cause, one line
        raise ConfigError(f"{resolved.origin((GAME_KEY,))}: {GAME_KEY}: {exc}") from None


def load_config(path: Path | str) -> GameConfig:
    """Load, resolve ``extends:``, and validate the config at ``path`` with its game's config model.

    Validation is strict (pydantic strict mode): a quoted ``"4"`` is not an integer, ``"yes"`` not
    a boolean and ``4.0`` not an integer; an integer is still accepted where a float is expected.

    Returns the validated (frozen) pydantic model. Raises ConfigError (one line per problem).
    """
    resolved = resolve_yaml(path)
    if STUDY_KEY in resolved.data or ("runs" in resolved.data and "variants" in resolved.data):
        # a study given where a variant belongs (a study listing itself as a variant, a sweep's base):
        # one line, not a line per rule key it lacks
        raise ConfigError(f"{resolved.path}: a study file, not a variant; run it with 'balancer study {resolved.path}'")
    if len(resolved.chain) > 1 and "variant" in resolved.data and resolved.origins.get(("variant",)) != resolved.path:
        # a file that extends another without naming itself is its own variant, named after the file
        # (else it would take its parent's name, and reports would call both variants by one name)
        resolved.data["variant"] = resolved.path.stem
        resolved.origins[("variant",)] = resolved.path
    named_by_file = resolved.origins.get(("variant",)) == resolved.path and "variant" not in read_yaml_mapping(
        resolved.path
    )
    model = _model_for_game(resolved)
    try:
        config = model.model_validate(resolved.data, strict=True)
    except ValidationError as exc:
        lines = resolved.problems + validation_error_lines(resolved, model, exc)
        lines += rule_check_lines(resolved, model, exc, lines)
        if named_by_file:  # the name came from the file's name: say so, and how to give another
            lines = [
                line + " (the variant is named after its file; give it a shorter variant: name)"
                if f"{resolved.path}: variant: " in line
                else line
                for line in lines
            ]
        raise ConfigError(lines) from None
    if resolved.problems:
        raise ConfigError(resolved.problems)
    return config


def assumed_notes(data: Any, prefix: KeyPath = ()) -> list[str]:
    """Every ``assumed:`` note of a resolved config mapping, as ``"<parent key path>: <note>"``.

    ``data`` is a merged YAML mapping (``resolve_yaml(path).data``); the notes come in file order,
    e.g. ``["rounds.3: the rulebook's round table for 3 players is missing; ..."]``. A note at the
    top level is returned without a path. Non-string notes are written with ``str()``; ``assumed: true``
    with a sibling ``why:`` gives the why, ``assumed: false`` no note.
    """
    notes: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "assumed" and value is not None and value is not False and not isinstance(value, (dict, list)):
                # `assumed: true` beside a `why:` line (Urgency's cards): the why is the note
                text = str(data.get("why") if value is True and data.get("why") else value).strip()
                if text:
                    notes.append(f"{format_key_path(prefix)}: {text}" if prefix else text)
            else:
                notes.extend(assumed_notes(value, prefix + (key,)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            notes.extend(assumed_notes(value, prefix + (i,)))
    return notes


def config_sha256(path: Path | str) -> str:
    """Hex SHA-256 of the resolved, merged mapping as canonical JSON (sorted keys, no spaces).

    Formatting, comments and how a variant is split across ``extends:`` files do not change it;
    any change of a value does. Raises ConfigError like :func:`resolve_yaml`.
    """
    data = resolve_yaml(path).data
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def export_schema(game: str) -> dict:
    """The JSON schema of a game's config model (for editor completion of YAML).

    ``game`` is a registered name; KeyError for an unknown name.
    """
    from balancer.games import get_spec

    return get_spec(game).config_model.model_json_schema()


def format_key_path(loc: KeyPath) -> str:
    """``('scoring', 'tiers', 1, 'points')`` -> ``'scoring.tiers[1].points'``; ``()`` -> ``'(top level)'``."""
    out = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):  # a key YAML read as true is no index
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


_PATH_PREFIX = re.compile(r"^((?:[A-Za-z0-9_-]+|\[\d+\])(?:\.[A-Za-z0-9_-]+|\[\d+\])*): (.+)$", re.S)


def parse_key_path(text: str) -> KeyPath:
    """``'scoring.tiers[1].points'`` -> ``('scoring', 'tiers', 1, 'points')`` (inverse of format_key_path)."""
    parts: list[Any] = []
    for piece in re.findall(r"\[\d+\]|[^.\[\]]+", text):
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return tuple(parts)


def _split_message_path(
    err: Mapping[str, Any], model: type[BaseModel], loc: KeyPath, message: str
) -> tuple[KeyPath, str]:
    """A validator message ``"seat_bonus.4: needs 4 values"`` raised at ``loc`` ->
    (``loc + ('seat_bonus', '4')``, ``"needs 4 values"``), when its first part is a key of the
    model or the mapping at ``loc``; else (``loc``, ``message``)."""
    match = _PATH_PREFIX.match(message)
    if not match:
        return loc, message
    sub = parse_key_path(match.group(1))
    data = err.get("input")
    known = set(_allowed_keys(model, loc)) | (set(map(str, data)) if isinstance(data, dict) else set())
    if not sub or str(sub[0]) not in known:
        return loc, message
    return tuple(loc) + sub, match.group(2)


def key_typos(errors: list[Any], model: type[BaseModel]) -> dict[KeyPath, str]:
    """Unknown key path -> the key of the same mapping it is a likely typo of
    (:func:`difflib.get_close_matches`): first a missing required key (``tabel`` for ``table``),
    else any key the mapping allows (``seat_bonsu`` for ``seat_bonus``, set by an extended file)."""
    missing = {tuple(e.get("loc", ())) for e in errors if e.get("type") == "missing" and e.get("loc")}
    typo_of: dict[KeyPath, str] = {}
    for err in errors:
        loc = tuple(err.get("loc", ()))
        if err.get("type") != "extra_forbidden" or not loc or not isinstance(loc[-1], str):
            continue
        if _dotted(loc[-1], model, loc[:-1]):  # a key path written as one key: said so, never moved
            continue
        taken = {(*k[:-1], v) for k, v in typo_of.items()}
        candidates = [str(m[-1]) for m in missing if m[:-1] == loc[:-1] and (*loc[:-1], m[-1]) not in taken]
        close = difflib.get_close_matches(loc[-1], candidates, n=1, cutoff=0.6) or difflib.get_close_matches(
            loc[-1], _allowed_keys(model, loc[:-1]), n=1, cutoff=0.6
        )
        if close:
            typo_of[loc] = close[0]
    return typo_of


RULE_CHECK_ERRORS = ("value_error", "assertion_error")
"""The pydantic error types of a validator's own check (a rule check: ``seat_bonus.4: needs 4 values``)."""


def validation_error_lines(resolved: ResolvedYaml, model: type[BaseModel], exc: ValidationError) -> list[str]:
    """One message line per pydantic error: ``<file>: <key path>: <problem>; <what is allowed>``.

    An unknown key that is a likely typo of a missing required key of the same mapping (``tabel``
    for ``table``) gives one line, ``did you mean 'table'?``, and the "required key missing" line
    of that key is left out. A validator's message of several lines (each ``key.path: problem``,
    a rule check that lists every problem it found) gives a line each.
    """
    return _error_lines(resolved, model, exc.errors(include_url=False))


def _error_lines(resolved: ResolvedYaml, model: type[BaseModel], errors: list[Any]) -> list[str]:
    typo_of = key_typos(errors, model)
    suppressed = {(*loc[:-1], key) for loc, key in typo_of.items()}
    lines = []
    for err in errors:
        loc = tuple(err.get("loc", ()))
        if err.get("type") == "missing" and loc in suppressed:
            continue
        if loc in typo_of:
            allowed = _allowed_keys(model, loc[:-1])
            tail = f", allowed: {', '.join(allowed)}" if allowed else ""
            lines.append(
                f"{resolved.origin(loc)}: {format_key_path(loc)}: unknown key {loc[-1]!r} "
                f"(did you mean {typo_of[loc]!r}?){tail}"
            )
            continue
        if len(loc) >= 2 and loc[-1] == "[key]" and _quoted_key_allowed(err, loc[-2]):
            # YAML read an unquoted 4 as a number where the keys are text ('1'..'4')
            found = [(loc[:-2], f'key {loc[-2]} is a number; write "{loc[-2]}" (in quotes): "{loc[-2]}": ...')]
        elif len(loc) >= 2 and loc[-1] == "[key]":  # a mapping key itself is invalid
            found = [(loc[:-2], f"key {loc[-2]!r} not allowed: {_describe_error(err, model, loc)}")]
        elif err.get("type") in RULE_CHECK_ERRORS:  # a rule check may list several problems, a line each
            found = [
                _split_message_path(err, model, loc, part)
                for part in _describe_error(err, model, loc).split("\n")
                if part.strip()
            ]
        else:
            found = [(loc, _describe_error(err, model, loc))]
        lines.extend(f"{resolved.origin(where)}: {format_key_path(where)}: {problem}" for where, problem in found)
    return list(dict.fromkeys(lines))


def without_unknown_keys(data: Any, errors: list[Any], model: type[BaseModel]) -> tuple[Any, dict[KeyPath, KeyPath]]:
    """A copy of ``data`` with every unknown key of ``errors`` removed, or moved to the key it is a
    likely typo of (:func:`key_typos`), and the moves (unknown key path -> the path it was moved to);
    (None, {}) when no error is an unknown key."""
    unknown = [tuple(e["loc"]) for e in errors if e.get("type") == "extra_forbidden" and e.get("loc")]
    if not unknown:
        return None, {}
    typo_of = key_typos(errors, model)
    repaired = copy.deepcopy(data)
    moves: dict[KeyPath, KeyPath] = {}
    for loc in unknown:
        parent = repaired
        for part in loc[:-1]:
            try:
                parent = parent[part]
            except (KeyError, IndexError, TypeError):
                parent = None
                break
        if isinstance(parent, dict) and loc[-1] in parent:
            value = parent.pop(loc[-1])
            if loc in typo_of:  # read as the key it is a likely typo of, over what an extended file set
                meant = typo_of[loc]
                both = isinstance(value, dict) and isinstance(parent.get(meant), dict)
                parent[meant] = deep_merge(parent[meant], value) if both else value
                moves[loc] = (*loc[:-1], meant)
    return repaired, moves


def rule_check_lines(
    resolved: ResolvedYaml, model: type[BaseModel], exc: ValidationError, known: list[str]
) -> list[str]:
    """The rule checks' lines that the unknown keys of ``exc`` kept from running (pydantic runs a
    model's own check only once every field of it is valid): the data is validated again without
    those keys (a likely typo of another key read as that key, :func:`key_typos`), and every rule
    check's line not already in ``known`` is returned. A value that the requested file set and that
    is invalid (a type error) is read as the file it extends sets it, so that the rule checks of the
    other keys run too (a wrong-length seat bonus beside a mistyped table size). [] when ``exc`` has
    neither."""
    errors = exc.errors(include_url=False)
    repaired, moves = without_unknown_keys(resolved.data, errors, model)
    restored = _with_extended_values(resolved, errors, repaired if repaired is not None else resolved.data)
    if repaired is None and restored is None:
        return []
    repaired = restored if restored is not None else repaired
    origins = dict(resolved.origins)
    for loc, meant in moves.items():  # what a misspelt key set comes from the file that misspelt it
        _record_origins(_at(resolved.data, loc), resolved.origin(loc), meant, origins)
        origins[meant] = resolved.origin(loc)
    moved = ResolvedYaml(resolved.path, repaired, origins, resolved.chain)
    try:
        model.model_validate(repaired, strict=True)
    except ValidationError as again:
        checks = [e for e in again.errors(include_url=False) if e.get("type") in RULE_CHECK_ERRORS]
        return [line for line in _error_lines(moved, model, checks) if line not in known]
    return []


def _with_extended_values(resolved: ResolvedYaml, errors: list[Any], data: Any) -> Any:
    """A copy of ``data`` in which every invalid value of ``errors`` (not an unknown key, not a rule
    check) that the requested file set holds the value of the file it extends instead; None when no
    such value can be restored (no file extended, or it sets none there)."""
    if len(resolved.chain) < 2:
        return None
    bad = [
        tuple(e["loc"])
        for e in errors
        if e.get("loc")
        and e.get("type") not in ("extra_forbidden", *RULE_CHECK_ERRORS)
        and resolved.origin(tuple(e["loc"])) == resolved.path
    ]
    if not bad:
        return None
    try:
        base = resolve_yaml(resolved.chain[1]).data
    except ConfigError:
        return None
    out = copy.deepcopy(data)
    done = False
    for loc in bad:
        for end in range(len(loc), 0, -1):  # the longest part of the path that the extended file sets
            value = _at(base, loc[:end])
            parent = _at(out, loc[: end - 1]) if end > 1 else out
            if value is not None and isinstance(parent, dict) and loc[end - 1] in parent:
                parent[loc[end - 1]] = copy.deepcopy(value)
                done = True
                break
    return out if done else None


def _at(data: Any, loc: KeyPath) -> Any:
    """The value at ``loc`` in nested mappings and lists (None when the path is not there)."""
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _describe_error(err: Mapping[str, Any], model: type[BaseModel], loc: KeyPath) -> str:
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    msg = re.sub(r" or instance of \w+", "", str(err.get("msg", "invalid value")))  # no class names
    got = _short_repr(err.get("input"))
    if kind == "extra_forbidden":
        if _dotted(loc[-1], model, loc[:-1]):
            return f"unknown key {loc[-1]!r}: a key path is written nested: {_nested(str(loc[-1]), err.get('input'))}"
        allowed = _allowed_keys(model, loc[:-1])
        tail = f", allowed: {', '.join(allowed)}" if allowed else ""
        return f"unknown key {loc[-1]!r}{tail}"
    if kind == "missing":
        return "required key missing"
    if kind == "literal_error":
        expected = ctx.get("expected") or msg.removeprefix("Input should be ")
        if loc and loc[-1] == "[key]":
            return f"allowed keys: {expected}"
        return f"got {got}, allowed values: {expected}"
    if kind in ("value_error", "assertion_error"):
        return msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    expected = _expected_type(model, loc)
    value = err.get("input")
    if kind in ("int_type", "float_type", "bool_type") and isinstance(value, str) and _looks_like(kind, value):
        word = {"int_type": "an integer", "float_type": "a number", "bool_type": "true or false"}[kind]
        return f"expected {word}, got the string {got}; write the value without quotes"
    if kind == "int_from_float":
        return f"expected an integer, got {got}"
    suffix = f" (expected {expected})" if expected and kind.endswith(("_type", "_parsing")) else ""
    return f"{_lower_first(msg)}, got {got}{suffix}"


def _dotted(key: Any, model: type[BaseModel], parent: KeyPath) -> bool:
    """Whether ``key`` is a key path written as one key (``scoring.x``): it has a dot and its first
    part is a key the mapping at ``parent`` allows."""
    return isinstance(key, str) and "." in key and key.split(".")[0] in _allowed_keys(model, parent)


def _nested(key: str, value: Any) -> str:
    """``scoring.x``, 3 -> ``scoring: {x: 3}``: the dotted key as nested YAML mappings, in one line."""
    for part in reversed(key.split(".")[1:]):
        value = {part: value}
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6, sort_keys=False).strip()
    return f"{key.split('.')[0]}: {text.removesuffix('...').strip()}"


def _quoted_key_allowed(err: Mapping[str, Any], key: Any) -> bool:
    """Whether a mapping key refused as ``err`` is a number whose quoted text is allowed there
    (``4`` where the keys are ``'1'``..``'4'``, or any text)."""
    if not isinstance(key, int) or isinstance(key, bool):
        return False
    if err.get("type") == "string_type":
        return True
    expected = str((err.get("ctx") or {}).get("expected", ""))
    return err.get("type") == "literal_error" and f"'{key}'" in expected


def _looks_like(kind: str, text: str) -> bool:
    """Whether a quoted string would be a valid value of the expected type without its quotes."""
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    if kind == "bool_type":
        return isinstance(loaded, bool)
    if kind == "int_type":
        return isinstance(loaded, int) and not isinstance(loaded, bool)
    return isinstance(loaded, (int, float)) and not isinstance(loaded, bool)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _short_repr(value: Any, limit: int = 60) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


def unwrap_annotation(annotation: Any) -> Any:
    """An annotation without its ``Annotated[...]`` and ``X | None`` wrappers."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return unwrap_annotation(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return unwrap_annotation(args[0])
    return annotation


def model_field(model: type[BaseModel], key: Any) -> Any:
    """The pydantic FieldInfo of ``key`` (a field name or its alias, the YAML key) of ``model``, or None."""
    for name, info in model.model_fields.items():
        if key == name or key == info.alias:
            return info
    return None


def _follow(model: type[BaseModel], loc: KeyPath) -> tuple[Any, Any]:
    """Walk ``loc`` down from ``model``: (the unwrapped annotation at its end, the FieldInfo of the
    last model field on the way), or (None, None) where the path cannot be followed. Model fields by
    name or alias, ``dict[K, V]`` values by any key, ``list``/``tuple``/``set`` items by any index."""
    current: Any = model
    info: Any = None
    for part in loc:
        current = unwrap_annotation(current)
        origin = typing.get_origin(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            info = model_field(current, part)
            if info is None:
                return None, None
            current = info.annotation
        elif origin in (dict, collections.abc.Mapping):
            args = typing.get_args(current)
            current = args[1] if len(args) == 2 else Any
        elif origin in (list, tuple, set, frozenset):
            items = [a for a in typing.get_args(current) if a is not Ellipsis]
            current = items[0] if items else Any
        else:
            return None, None
    return unwrap_annotation(current), info


def annotation_at(model: type[BaseModel], loc: KeyPath) -> Any:
    """The type annotation at ``loc`` inside ``model`` (unwrapped), or None when the path cannot be followed."""
    return _follow(model, loc)[0]


def field_at(model: type[BaseModel], loc: KeyPath) -> Any:
    """The pydantic FieldInfo that describes ``loc`` inside ``model`` (a dict value or list item is
    described by the field that holds its container), or None when the path cannot be followed."""
    return _follow(model, loc)[1]


def _allowed_keys(model: type[BaseModel], loc: KeyPath) -> list[str]:
    """Field names (YAML keys) of the model at ``loc``; [] when it is not a model."""
    target = annotation_at(model, loc)
    if isinstance(target, type) and issubclass(target, BaseModel):
        return [info.alias or name for name, info in target.model_fields.items()]
    return []


def _expected_type(model: type[BaseModel], loc: KeyPath) -> str:
    """A short name of the type expected at ``loc`` (``int``, ``list[str]``), or '' if unknown."""
    target = annotation_at(model, loc)
    if target is None:
        return ""
    return type_words(target)


_SIMPLE_TYPES = {int: "int", float: "a number", str: "text", bool: "true or false", type(None): "null"}


def type_words(target: Any) -> str:
    """A type as a designer reads it, never a class path: ``int``, ``a number``, ``a mapping``,
    ``a list of int``, ``a mapping from '1', '2', '3' or '4' to a mapping``, ``one of 'a' or 'b'``."""
    origin, args = typing.get_origin(target), typing.get_args(target)
    if origin is typing.Annotated:
        return type_words(args[0])
    if origin is typing.Literal:
        words = [repr(a) for a in args]
        return words[0] if len(words) == 1 else "one of " + ", ".join(words[:-1]) + f" or {words[-1]}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(type_words(a) for a in args))
    if origin in (list, tuple, set, frozenset, collections.abc.Sequence):
        inner = [a for a in args if a is not Ellipsis]
        return "a list" + (f" of {type_words(inner[0])}" if len(inner) == 1 else "")
    if origin in (dict, collections.abc.Mapping):
        if len(args) == 2:
            key = type_words(args[0]).removeprefix("one of ")
            return f"a mapping from {key} to {type_words(args[1])}"
        return "a mapping"
    if isinstance(target, type):
        if issubclass(target, BaseModel) or issubclass(target, Mapping):
            return "a mapping"
        return _SIMPLE_TYPES.get(target, target.__name__)
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)", r"\1", str(target).replace("typing.", ""))
