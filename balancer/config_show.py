"""A rule variant as a designer reads it (``balancer show``): every key of the resolved variant (after
``extends:``), with its value, the comment the YAML gives it, the rulebook section it implements, the
config model's description and, where the rulebook is silent, the ``assumed:`` note; and what one
variant changes against another.

Where each part comes from:

* values: the merged YAML (:func:`balancer.config.resolve_yaml`), plus the keys the config model fills
  with a default that no file writes (marked ``default``);
* comments: the YAML files' own ``#`` comments, read from PyYAML's tokens and node marks (no other YAML
  library): the comment at the end of a key's line (and its continuation lines, at the same column) and
  a block of comment lines directly above the key. A key a file sets without a comment takes the
  comment of the file it extends;
* rulebook section: the ``§`` numbers of the key's comment (Citywright), else the rulebook heading the
  comment starts with (``Setup:``, ``Set Up 7:``, ``Game End``), else the ``§`` of the model's
  description, else the section of the mapping holding the key;
* assumed notes: the ``assumed:`` key of a mapping (``assumed: true`` with a ``why:``: the why).

A list of mappings (score tiers, cards, shop cards) is shown one item at a time (``tiers[1]``), each
item as one value; any other list is one value.
"""

from __future__ import annotations

import json
import re
import textwrap
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from balancer.config import (
    EXTENDS_KEY,
    MAX_YAML_BYTES,
    ConfigError,
    KeyPath,
    _UniqueKeyLoader,
    annotation_at,
    load_config,
    model_field,
    resolve_yaml,
)
from balancer.core.config import GameConfig
from balancer.data import shipped_name
from balancer.limits import read_text_bounded

NOTE_KEYS = ("assumed", "why")
"""Keys that hold a mapping's ``assumed`` note rather than a rule value."""

WIDTH = 100
"""Columns of the text and YAML views."""


class Index(int):
    """A list index in a key path (``tiers[1]``), told apart from a mapping's integer key (``points.4``)."""


def key_text(path: KeyPath) -> str:
    """A key path dotted, list indices in brackets: ``scoring.commercial.tiers[1]``, ``mural.points.4``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, Index) else ("." if out else "") + str(part)
    return out or "(top level)"


class _Missing:
    """A key one of two variants does not have (:class:`Difference`)."""

    def __repr__(self) -> str:
        return "(not set)"


NOT_SET: Any = _Missing()
"""The value of a key a variant does not have, in a :class:`Difference`."""


@dataclass(frozen=True)
class Entry:
    """One key of a resolved variant.

    path: the key path (``('scoring', 'commercial', 'tiers', 1)``); ``key`` is it dotted
    (``scoring.commercial.tiers[1]``). value: the plain YAML value (for a mapping, or a list of
    mappings, None and ``group`` True). comment: the YAML's comment of the key ('' if none).
    section: the rulebook section (``§6.2``, ``Setup``; '' if none), the enclosing mapping's when
    the key has none of its own. description: the config model's description ('' if none).
    assumed: the ``assumed:`` note this key's mapping (or list item) declares ('' if none).
    default: the value is the config model's default, set in no file. source: the file that set the
    value (a shipped file by its shipped name, ``citywright/v1.1``). comment_from: the file whose
    comment it is (a file extending another takes the comment of the other for a key it sets without
    one).
    """

    path: KeyPath
    key: str
    value: Any
    group: bool
    comment: str = ""
    section: str = ""
    description: str = ""
    assumed: str = ""
    default: bool = False
    source: str = ""
    comment_from: str = ""


@dataclass(frozen=True)
class Difference:
    """A key whose resolved value differs between two variants: ``old`` in the other variant, ``new``
    in this one (:data:`NOT_SET` where a variant lacks the key); comment, section and description as
    in :class:`Entry` (this variant's, or the other's for a key this one lacks); assumed: the note in
    force for the key (its own or its nearest enclosing mapping's, '' if none)."""

    path: KeyPath
    key: str
    old: Any
    new: Any
    comment: str = ""
    section: str = ""
    description: str = ""
    assumed: str = ""


@dataclass
class VariantView:
    """A resolved variant, key by key (:func:`show_variant`), and with ``other`` set, what it changes
    against that variant (``differences``, in this variant's key order)."""

    config: str
    game: str
    variant: str
    files: list[str]
    entries: list[Entry]
    data: dict = field(repr=False)
    other: str | None = None
    other_variant: str | None = None
    differences: list[Difference] | None = None
    items: set[KeyPath] = field(default_factory=set, repr=False)
    """The keys that are items of a mapping the model types by name (``rulers.four_cell.I``), not fields."""

    def text(self, width: int = WIDTH) -> str:
        """The view for a terminal ``width`` columns wide (:func:`render_text`)."""
        return render_text(self, width)

    def yaml(self, width: int = WIDTH) -> str:
        """The view as a YAML file (:func:`render_yaml`): a complete variant that loads and validates."""
        return render_yaml(self, width)

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON: config, game, variant, files, entries (or, with ``other``, the
        differences, each with ``old`` and ``new``; a key a variant lacks has ``null`` and
        ``old_set``/``new_set`` false)."""
        out: dict[str, Any] = {"config": self.config, "game": self.game, "variant": self.variant, "files": self.files}
        if self.differences is None:
            out["entries"] = [{**asdict(e), "path": list(e.path)} for e in self.entries]
            return out
        out["other"], out["other_variant"] = self.other, self.other_variant
        out["differences"] = [
            {
                **asdict(d),
                "path": list(d.path),
                "old": None if d.old is NOT_SET else d.old,
                "new": None if d.new is NOT_SET else d.new,
                "old_set": d.old is not NOT_SET,
                "new_set": d.new is not NOT_SET,
            }
            for d in self.differences
        ]
        return out

    def json(self) -> str:
        """:meth:`as_dict` as indented JSON."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False, default=str)


# --------------------------------------------------------------------------------------------------
# comments of one YAML file


def _comment_columns(text: str) -> dict[int, int]:
    """line -> column of the ``#`` of the comment on that line (0-based), for every line holding one.

    The comment starts at the first ``#`` after the last YAML token on the line (a ``#`` inside a
    quoted string is part of its token); lines inside a multi-line token have none."""
    lines = text.splitlines()
    covered = [0] * (len(lines) + 1)
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        start, end = token.start_mark, token.end_mark
        if end.line > start.line:  # a multi-line scalar: every line it crosses is taken up to its end
            for crossed in range(start.line, end.line):
                covered[crossed] = len(lines[crossed]) if crossed < len(lines) else 0
        if end.line < len(covered):
            covered[end.line] = max(covered[end.line], end.column)
    found = {}
    for number, line in enumerate(lines):
        col = line.find("#", covered[number])
        while col > 0 and not line[col - 1].isspace():  # 'a#b' is a plain scalar's text, not a comment
            col = line.find("#", col + 1)
        if col >= 0:
            found[number] = col
    return found


def _node_lines(node: yaml.Node, loader: Any, prefix: KeyPath, out: dict[KeyPath, int]) -> None:
    """key path -> 0-based line where the key (or list item) starts, in document order."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = loader.construct_object(key_node, deep=True)
            path = (*prefix, key)
            out.setdefault(path, key_node.start_mark.line)
            _node_lines(value_node, loader, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            path = (*prefix, index)
            out.setdefault(path, item.start_mark.line)
            _node_lines(item, loader, path, out)


def file_comments(text: str) -> dict[KeyPath, str]:
    """key path -> the comment a YAML document gives that key: a block of comment lines directly above
    it (not the file's opening comment, before its first key) and the comment ending its line with the
    comment lines below at the same column. A line's comment belongs to the outermost key on the line;
    a block between a mapping's key and its first key, and the comment of an ``assumed:`` or ``why:``
    key, belong to the mapping. Raises yaml.YAMLError."""
    loader = _UniqueKeyLoader(text)
    try:
        root = loader.get_single_node()
        lines_of: dict[KeyPath, int] = {}
        if root is not None:
            _node_lines(root, loader, (), lines_of)
    finally:
        loader.dispose()
    lines = text.splitlines()
    columns = _comment_columns(text)

    def comment_at(number: int) -> str:
        """The comment's text, stripped; a line laid out by hand (a table's row: two or more spaces
        after the ``#``) keeps its spaces less one, so that it starts with a space (:func:`_is_row`)."""
        text = lines[number][columns[number] :].lstrip("#").rstrip()
        return text[1:] if text.startswith("  ") and text.strip() else text.strip()

    def comment_only(number: int) -> bool:
        return number in columns and not lines[number][: columns[number]].strip()

    continued: set[int] = set()  # comment lines that go on a comment ending the line above
    trailing: dict[int, str] = {}
    for number, col in columns.items():
        if number in continued or comment_only(number):
            continue
        parts, below = [comment_at(number)], number + 1
        while below < len(lines) and comment_only(below) and columns[below] == col:
            parts.append(comment_at(below))
            continued.add(below)
            below += 1
        trailing[number] = _joined(parts)
    first_key_line = min(lines_of.values(), default=0)
    out: dict[KeyPath, str] = {}
    taken: set[int] = set()
    for path, number in lines_of.items():
        if path == (EXTENDS_KEY,):
            continue
        above, block = number - 1, []
        while above >= 0 and comment_only(above) and above not in continued and above not in taken:
            block.append(comment_at(above))
            above -= 1
        leading = _joined(list(reversed(block))) if number > first_key_line else ""
        taken.update(range(above + 1, number))
        inline = trailing.pop(number, "")  # the outermost key of a line takes the line's comment
        text_ = "\n".join(p for p in (leading, inline) if p)  # comments from two places: two paragraphs
        if not text_:
            continue
        target = path[:-1] if path and path[-1] in NOTE_KEYS else path
        if leading and path[:-1] and lines_of.get(path[:-1], -2) == above:  # opens the mapping: the mapping's
            out[path[:-1]] = "\n".join(p for p in (out.get(path[:-1], ""), leading) if p)
            text_ = inline
        if text_:
            out[target] = "\n".join(p for p in (out.get(target, ""), text_) if p)
    return out


def _joined(parts: list[str]) -> str:
    """Comment lines as one text: prose joined by spaces; a table's row (:func:`_is_row`), the prose
    after it and the prose after an empty comment line each start a new line."""
    out, new_line = "", False
    for part in parts:
        if not part:
            new_line = bool(out)  # an empty comment line: a paragraph break
            continue
        if out:
            out += "\n" if new_line or _is_row(part) else " "
        out += part
        new_line = _is_row(part)
    return out


def _is_row(piece: str) -> bool:
    """Whether a line of a comment's text is a table's row (:func:`file_comments` keeps the row's
    spaces after the ``#`` less one; prose lines are stripped, so only rows start with a space)."""
    return piece.startswith(" ")


def _read_comments(path: Path) -> dict[KeyPath, str]:
    """:func:`file_comments` of one file of a variant's chain ({} if it cannot be read again)."""
    try:
        return file_comments(read_text_bounded(path, MAX_YAML_BYTES, "a config file"))
    except (OSError, ValueError, yaml.YAMLError):  # read once already; a file changed since shows no comments
        return {}


# --------------------------------------------------------------------------------------------------
# rulebook sections

_PARAGRAPH = re.compile(r"§\s?\d+(?:\.\d+)*")
_HEADING = re.compile(r"(?P<head>[A-Z][A-Za-z0-9 ,&-]{0,59}?)\s*(?::\s|:$|$)")


def section_of(comment: str) -> str:
    """The rulebook section a comment names: its ``§`` numbers (``§2.5, §7``), else the rulebook
    heading it starts with: the words before its first colon (``Setup: 7 tokens each`` -> ``Setup``,
    ``Set Up 7: ...`` -> ``Set Up 7``), or the whole comment when it is a title with no colon
    (``Game End``, ``Setup step 4, Pick Umbrellas``), or a heading and a one- to three-word title that
    make the whole comment (``Actions: Travel``). Bracketed asides are left out first; a heading
    starts with a capital letter, has no quotes, and has at most five words before a colon; a title
    has every word capitalised but a few (:func:`_is_title`). '' if none."""
    numbers = list(dict.fromkeys(m.replace(" ", "") for m in _PARAGRAPH.findall(comment)))
    if numbers:
        return ", ".join(numbers)
    if comment.startswith("appendix"):
        return "appendix"
    plain = re.sub(r"\s*\([^()]*\)", "", comment).strip()
    match = _HEADING.match(plain)
    if match is None:
        return ""
    head = match["head"].rstrip(" ,")
    words = re.findall(r"[A-Za-z]+", head)
    if ":" in plain[: match.end()]:
        rest = plain[match.end() :].strip()
        if len(words) > 5:
            return ""
        # a heading and its subheading and nothing else: "Actions: Travel"
        return f"{head}: {rest}" if rest and ":" not in rest and _is_title(rest, 3) else head
    return head if _is_title(head, 8) else ""


_TITLE_WORDS = frozenset({"a", "an", "and", "of", "the", "to", "or", "on", "in", "for", "step", "steps"})
"""The words a rulebook heading writes in lower case (``How to Win``, ``Setup step 4``)."""


def _is_title(text: str, most: int) -> bool:
    """Whether ``text`` reads as a rulebook title of at most ``most`` words: a capital first letter, and
    every word capitalised but those of :data:`_TITLE_WORDS` (``Setup steps 2-3, Final Scoring 2``)."""
    words = re.findall(r"[A-Za-z]+", text)
    return (
        bool(words)
        and text[:1].isupper()
        and len(words) <= most
        and all(w[0].isupper() or w in _TITLE_WORDS for w in words)
        and re.fullmatch(r"[A-Za-z0-9 ,&-]+", text) is not None
    )


# --------------------------------------------------------------------------------------------------
# the config model's metadata


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _first_paragraph(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def model_description(model: type[BaseModel], path: KeyPath) -> str:
    """The config model's description of the key at ``path``: its field's ``description``, else (for
    a mapping the model describes with a class) the first paragraph of that class's docstring; ''."""
    if path:
        parent = annotation_at(model, path[:-1])
        if _is_model(parent):
            info = model_field(parent, path[-1])
            if info is not None and info.description:
                return " ".join(info.description.split())
        if _is_model(parent):  # a mapping the model describes with a class (not a dict's item: one per item)
            target = annotation_at(model, path)
            if _is_model(target) and "__doc__" in vars(target):
                return _first_paragraph(target.__doc__)
    return ""


def _plain(value: Any) -> Any:
    """A default value as plain YAML data: models dumped, tuples and sets as lists."""
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(exclude_none=True))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in (sorted(value) if isinstance(value, (set, frozenset)) else value)]
    return getattr(value, "value", value) if not isinstance(value, (str, int, float, bool)) else value


def with_defaults(data: dict, model: type[BaseModel], prefix: KeyPath = ()) -> tuple[dict, set[KeyPath]]:
    """(``data`` with every key the model fills with a default added, null ones too, the paths added).
    Notes (``assumed``, ``why``) are not added; list items are left as written."""
    added: set[KeyPath] = set()
    target = annotation_at(model, prefix)
    out = dict(data)
    for key, value in data.items():
        if isinstance(value, dict):
            out[key], more = with_defaults(value, model, (*prefix, key))
            added |= more
    if _is_model(target):
        for name, info in target.model_fields.items():
            key = info.alias or name
            if key in out or name in out or name in NOTE_KEYS or info.is_required():
                continue
            out[key] = _plain(info.get_default(call_default_factory=True))
            added.add((*prefix, key))
    return out, added


# --------------------------------------------------------------------------------------------------
# the entries


def own_note(mapping: Any) -> str:
    """The ``assumed`` note a mapping declares: its ``assumed:`` text, or with ``assumed: true`` its
    ``why:``; '' for none, ``false`` or null."""
    if not isinstance(mapping, dict):
        return ""
    value = mapping.get("assumed")
    if value is None or value is False or isinstance(value, (dict, list)):
        return ""
    if value is True:
        return str(mapping.get("why") or "").strip()
    return " ".join(str(value).split())


def _is_list_of_mappings(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


def _walk(data: Any, prefix: KeyPath = ()) -> Iterator[tuple[KeyPath, Any, bool]]:
    """(path, value, group) of every key below ``prefix``, in file order; notes left out. A list of
    mappings is a group whose items are values (without their notes)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in NOTE_KEYS:
                continue
            path = (*prefix, key)
            if isinstance(value, dict) or _is_list_of_mappings(value):
                yield path, None, True
                yield from _walk(value, path)
            else:
                yield path, value, False
    elif isinstance(data, list):
        for index, item in enumerate(data):
            value = {k: v for k, v in item.items() if k not in NOTE_KEYS} if isinstance(item, dict) else item
            yield (*prefix, Index(index)), value, False


def _value_at(data: Any, path: KeyPath) -> Any:
    for part in path:
        data = data[part]
    return data


def _display_name(path: Path, given: str | Path | None = None) -> str:
    """A shipped file by its shipped name (``citywright/v1.1``), another by the path given."""
    return shipped_name(path) or str(given if given is not None else path)


def refuse_non_variant(config: Path | str, command: Callable[[str], str] | None = None) -> None:
    """ConfigError in one line when ``config`` is a sweep or tune file (naming its base variant) or a
    fragment without ``game:`` (naming a variant that extends it), which are not variants to show;
    nothing for anything else (the loader says what is wrong with it). ``command``: the command line
    the hint suggests for the variant named (``balancer show NAME`` by default; for ``--diff``,
    ``balancer show CONFIG --diff NAME``)."""
    from balancer.data import builtin_config, locate_config
    from balancer.files import fragment_users, is_sweep_or_tune, read_yaml_head

    suggest = command or (lambda name: f"balancer show {name}")
    path = locate_config(config)
    head = read_yaml_head(path)
    if is_sweep_or_tune(head) and isinstance(head.get("base"), str):
        kind = "sweep" if "sweep" in head else "tune"
        named = path.parent / head["base"]
        shipped = (
            None if named.exists() else builtin_config(head["base"])
        )  # base: citywright/v1.1, as the sweep reads it
        base = (
            _display_name(shipped) if shipped is not None else _display_name(named, Path(config).parent / head["base"])
        )
        raise ConfigError(f"{config}: a {kind} file, not a rule variant; its base variant: {suggest(base)}")
    users = fragment_users(path, head)
    if users:
        raise ConfigError(
            f"{config}: a fragment (no game:), not a rule variant; a variant extending it: "
            f"{suggest(_display_name(users[0], Path(config).parent / users[0].name))}"
        )


def show_variant(config: Path | str, other: Path | str | None = None) -> VariantView:
    """The resolved variant at ``config`` (a path or a shipped name), key by key (:class:`Entry`); with
    ``other``, also what ``config`` changes against it (:class:`Difference`; the ``variant`` name is
    not counted).

    Raises ConfigError (one line per problem, naming file and key) when either file does not load
    and validate, or when the two are variants of different games.
    """
    view = _view(config)
    if other is None:
        return view
    base = _view(other)
    if base.game != view.game:
        raise ConfigError(
            f"{other}: a variant of {base.game}, and {config} one of {view.game}: only variants of one game "
            "can be compared"
        )
    view.other, view.other_variant = base.config, base.variant
    view.differences = differences(view, base)
    return view


def _view(config: Path | str) -> VariantView:
    from balancer.games import get_spec

    cfg = load_config(config)  # every problem of the file, or the variant
    model: type[GameConfig] = get_spec(cfg.game).config_model
    resolved = resolve_yaml(config)
    data = dict(resolved.data)
    data["variant"] = cfg.variant  # a file extending another without naming itself is named after the file
    data, defaults = with_defaults(data, model)
    first = [k for k in model.model_fields if k in GameConfig.model_fields and k in data]  # game, variant, players
    data = {**{k: data[k] for k in first}, **{k: v for k, v in data.items() if k not in first}}
    comments = {path: _read_comments(path) for path in resolved.chain}
    entries: list[Entry] = []
    sections: dict[KeyPath, str] = {}
    for path, value, group in _walk(data):
        origin = resolved.origin(path)
        order = [origin, *(p for p in resolved.chain if p != origin)]
        commented = next((p for p in order if comments[p].get(path)), None)
        comment = comments[commented][path] if commented is not None else ""
        description = model_description(model, path)
        own = (
            section_of(comment)
            or next((section_of(c[path]) for p in order if (c := comments[p]).get(path)), "")
            or ", ".join(dict.fromkeys(_PARAGRAPH.findall(description)))
        )
        section = own or sections.get(path[:-1], "")
        sections[path] = section
        note = own_note(_value_at(data, path)) if (group or isinstance(path[-1], Index)) else ""
        entries.append(
            Entry(
                path=path,
                key=key_text(path),
                value=value,
                group=group,
                comment=comment,
                section=section,
                description=description,
                assumed=note,
                default=path in defaults,
                source="" if path in defaults else _display_name(origin),
                comment_from=_display_name(commented) if commented is not None else "",
            )
        )
    top_note = own_note(data)
    if top_note:  # an `assumed:` at the top level of a file (no shipped file has one)
        entries.insert(0, Entry(path=(), key="(top level)", value=None, group=True, assumed=top_note))
    items = {
        e.path
        for e in entries
        if e.group and e.path and typing.get_origin(annotation_at(model, e.path[:-1])) in (dict, Mapping)
    }
    return VariantView(
        items=items,
        config=_display_name(resolved.path, config),
        game=cfg.game,
        variant=cfg.variant,
        files=[_display_name(p) for p in resolved.chain],
        entries=entries,
        data=data,
    )


def _notes_in_force(view: VariantView) -> dict[KeyPath, str]:
    """path -> the assumed note in force there: its own, else its nearest enclosing mapping's."""
    notes: dict[KeyPath, str] = {}
    for entry in view.entries:
        notes[entry.path] = entry.assumed or (notes.get(entry.path[:-1], "") if entry.path else "")
    return notes


def _labelled(entry: Entry) -> str:
    """An entry's comment, led by ``(in <file>)`` when it comes from a file other than the one that set
    the value (its comment may describe that file's value)."""
    if entry.comment and entry.comment_from and entry.source and entry.comment_from != entry.source:
        return f"(in {entry.comment_from})" + ("\n" if _is_row(entry.comment) else " ") + entry.comment
    return entry.comment


def _comment_in_force(entry: Entry, by_path: dict[KeyPath, Entry]) -> str:
    """The entry's comment (:func:`_labelled`), else its nearest enclosing key's, led by that key."""
    if entry.comment:
        return _labelled(entry)
    for end in range(len(entry.path) - 1, 0, -1):
        outer = by_path.get(entry.path[:end])
        if outer is not None and outer.comment:
            return f"({outer.key}) {_labelled(outer)}"
    return ""


def differences(view: VariantView, base: VariantView) -> list[Difference]:
    """The keys whose values differ between ``base`` (old) and ``view`` (new): every value key (list
    items one by one), and every assumed note as ``<mapping>.assumed``; the ``variant`` name is not
    compared. A key that is a mapping in one and a value in the other (``decks: null``) is one
    difference, its keys below not listed; nor is the note of a list item listed whose value is.
    In ``view``'s order, then the keys only ``base`` has."""

    def values(v: VariantView) -> dict[KeyPath, tuple[Any, Entry]]:
        out: dict[KeyPath, tuple[Any, Entry]] = {}
        for entry in v.entries:
            out[entry.path] = (_value_at(v.data, entry.path) if entry.group else entry.value, entry)
            if entry.assumed:
                out[(*entry.path, "assumed")] = (entry.assumed, entry)
        out.pop(("variant",), None)
        return out

    def is_group(v: VariantView, path: KeyPath) -> bool:
        entry = by_view[id(v)].get(path)
        return entry is not None and entry.group

    by_view = {id(v): {e.path: e for e in v.entries} for v in (view, base)}
    new, old = values(view), values(base)
    by_path = {**by_view[id(base)], **by_view[id(view)]}
    notes_new, notes_old = _notes_in_force(view), _notes_in_force(base)
    found: list[Difference] = []
    whole: list[KeyPath] = []  # keys listed whole: nothing below them is listed again
    for path in [*new, *(p for p in old if p not in new)]:
        if any(path[: len(w)] == w for w in whole):
            continue
        a, b = old.get(path, (NOT_SET, None)), new.get(path, (NOT_SET, None))
        kinds = {is_group(base, path) if a[1] else None, is_group(view, path) if b[1] else None} - {None}
        if kinds == {True}:
            continue  # a mapping on both sides (or one): its keys are compared one by one
        if a[0] == b[0] and type(a[0]) is type(b[0]):
            continue
        whole.append(path)
        entry = b[1] or a[1]
        assert entry is not None
        found.append(
            Difference(
                path=path,
                key=key_text(path),
                old=a[0],
                new=b[0],
                comment=_comment_in_force(entry, by_path),
                section=entry.section,
                description=entry.description,
                assumed="" if path[-1] == "assumed" else (notes_new if b[1] else notes_old).get(entry.path, ""),
            )
        )
    return found


# --------------------------------------------------------------------------------------------------
# views


def flow(value: Any) -> str:
    """A value as one line of YAML flow style (``[1, 2]``, ``{rows: ['####'], copies: 7}``, ``'3'``)."""
    if value is NOT_SET:
        return "(not set)"
    text = yaml.safe_dump(value, default_flow_style=True, width=10**9, sort_keys=False, allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def short(text: str, limit: int = 240) -> str:
    """``text`` cut to ``limit`` characters (``...`` at the end) for a line of the text view."""
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _wrap(text: str, indent: str, width: int, label: str = "") -> list[str]:
    """``label + text`` wrapped at ``width``, each line at ``indent`` (the lines after the first
    under the text, past the label). A line of ``text`` laid out by hand (a comment table's row,
    two spaces or more at its start: :func:`file_comments`) keeps its spaces on a line of its own
    (one longer than ``width`` goes on, further in, on the next, broken between its cells)."""
    out: list[str] = []
    under = indent + " " * len(label)
    pieces = text.split("\n")
    rows = [piece for piece in pieces if _is_row(piece)]
    margin = min((len(row) - len(row.lstrip(" ")) for row in rows), default=0)  # the rows' common indent
    for number, piece in enumerate(pieces):
        lead = indent + label if number == 0 else under
        if _is_row(piece):
            out += _row_lines(piece[margin:], lead, under + "    ", width)
            continue
        out += _words(piece, width, lead, under)
    return out


def _words(text: str, width: int, first: str, rest: str) -> list[str]:
    """``text`` wrapped at ``width`` between its words only (never inside a word or at a hyphen), the
    first line at ``first``, the others at ``rest``."""
    return textwrap.wrap(
        text, width=width, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )


def _row_lines(row: str, lead: str, more: str, width: int) -> list[str]:
    """A comment table's row at ``lead``: on one line when it fits in ``width``, else broken between
    its cells (text apart by two spaces or more), the rest at ``more``; a cell too long for a line of
    its own is wrapped between its words."""
    if len(lead) + len(row) <= width:
        return [lead + row]
    parts = re.split(r"(\s{2,})", row)  # cell, gap, cell, gap, ...
    pieces: list[tuple[str, str]] = []  # (indent, the row's text) of each line
    at, piece = lead, parts[0]
    for gap, cell in zip(parts[1::2], parts[2::2], strict=True):
        if len(at) + len(piece) + len(gap) + len(cell) <= width:
            piece += gap + cell
            continue
        if piece.strip():  # (a row led by more spaces than fit starts at ``more``)
            pieces.append((at, piece))
        at, piece = more, cell
    pieces.append((at, piece))
    out: list[str] = []
    for first, text in pieces:
        out += _words(text, width, first, more)
    return [line.rstrip() for line in out]


def _key_line(indent: str, key: str, value: str, section: str, width: int) -> list[str]:
    """``key: value`` with ``[section]`` beside it (wrapped past ``width``)."""
    text = f"{key}: {value}" if value else f"{key}:"
    section_note = f"  [{section}]" if section else ""
    under = indent + " " * min(len(key) + 2, 24)  # a long value goes on under itself
    return _words(text + section_note, width, indent, under)


def render_text(view: VariantView, width: int = WIDTH) -> str:
    """The view for a terminal: a heading, then every key (nested as in the YAML; a top-level mapping
    after a blank line) as ``key: value  [section]`` with, beneath it, its comment, the config model's
    description (``model:``) and its ``assumed:`` note; a key set by no file ends ``(default)``. With
    differences: only the changed keys, ``key: old -> new  [section]``, with the same lines beneath,
    or ``no differences``."""
    if view.differences is not None:
        return _render_differences(view, width)
    out = [
        f"{view.config}: {view.game} variant {view.variant}"
        + (f" (extends {', '.join(view.files[1:])})" if len(view.files) > 1 else ""),
        *_wrap(
            "Every key: its value and [rulebook section], then its comment, the config model's description "
            "(model:) and, where the rulebook is silent, why the value was chosen (assumed:). To change a "
            "value, write its key into your variant, nested as here (--format yaml prints this variant as a "
            "file).",
            "",
            width,
        ),
        "",
    ]
    parent_section: dict[KeyPath, str] = {}
    commented = {e.path for e in view.entries if e.comment or e.default}  # keys that keep a line of their own
    described = {e.path for e in view.entries if e.description}
    folded: KeyPath | None = None  # a mapping shown on one line: its keys are not shown again
    for entry in view.entries:
        if folded is not None and entry.path[: len(folded)] == folded:
            continue
        folded = None
        depth = max(len(entry.path) - 1, 0)
        indent = "  " * depth
        if depth == 0 and (entry.group or entry.comment or entry.assumed) and out[-1]:
            out.append("")
        last = entry.path[-1] if entry.path else entry.key
        name = f"[{last}]" if isinstance(last, Index) else flow(last)
        inherited = parent_section.get(entry.path[:-1], "")
        section = entry.section if entry.section != inherited else ""
        parent_section[entry.path] = entry.section
        value = "" if entry.group else flow(entry.value) + (" (default)" if entry.default else "")
        mapping = _value_at(view.data, entry.path) if entry.group and entry.path else None
        if isinstance(mapping, dict):
            plain = {k: v for k, v in mapping.items() if k not in NOTE_KEYS}
            keep = commented if entry.path in view.items else commented | described  # an item's repeat them
            if plain and _one_line(plain, entry.path, keep, width - len(indent) - len(name) - 2):
                value, folded = flow(plain), entry.path
        out.extend(_key_line(indent, name, value, section, width))
        out.extend(_notes(_labelled(entry), entry.description, entry.assumed, indent + "    ", width))
    return "\n".join(out) + "\n"


def _notes(comment: str, description: str, assumed: str, indent: str, width: int) -> list[str]:
    lines = []
    if comment:
        lines += _wrap(comment, indent, width, "# ")
    if description and description != comment:
        lines += _wrap(description, indent, width, "model: ")
    if assumed:
        lines += _wrap(assumed, indent, width, "assumed: ")
    return lines


def _render_differences(view: VariantView, width: int) -> str:
    diffs = view.differences or []
    head = f"{view.config} ({view.variant}) against {view.other} ({view.other_variant})"
    if not diffs:
        return f"{head}: no differences\n"
    count = f"{len(diffs)} key{'s' if len(diffs) != 1 else ''} differ{'s' if len(diffs) == 1 else ''}"
    out = _wrap(f"{head}: {count} ({view.other}'s value -> {view.config}'s)", "", width)
    for diff in diffs:
        out.append("")
        change = f"{short(flow(diff.old))} -> {short(flow(diff.new))}"
        out.extend(_key_line("", diff.key, change, diff.section, width))
        out.extend(_notes(diff.comment, diff.description, diff.assumed, "    ", width))
    return "\n".join(out) + "\n"


def _yaml_comment(text: str, indent: str, width: int) -> list[str]:
    """``text`` as comment lines at ``indent``, each starting ``# ``: prose wrapped, a table's row
    (:func:`_is_row`) written as the file had it, so that the file read again keeps its table."""
    out: list[str] = []
    prose = False  # the line before was prose: a new paragraph of prose needs an empty line between
    for piece in text.split("\n"):
        if _is_row(piece):
            out.append(indent + "# " + piece)
            prose = False
        else:
            if prose:
                out.append(indent + "#")
            out += [indent + "# " + line for line in _wrap(piece, "", max(width - len(indent) - 2, 40))]
            prose = True
    return out


def _one_line(value: Any, path: KeyPath, commented: set[KeyPath], room: int) -> bool:
    """Whether a mapping is written in flow style on its key's line: its values are plain values or
    lists of them, none of its keys has a comment in the YAML, and it fits in ``room`` columns."""
    return (
        all(not isinstance(v, dict) and not _is_list_of_mappings(v) for v in value.values())
        and not any((*path, k) in commented for k in value)
        and len(flow(value)) <= room
    )


def _yaml_lines(
    data: Any, prefix: KeyPath, comments: dict[KeyPath, str], width: int, commented: set[KeyPath] | None = None
) -> list[str]:
    """Block YAML of a mapping at ``prefix``: a mapping per key (a small one without comments of its
    own keys in flow style: ``I: {rows: ['####'], copies: 7}``), lists of mappings as one flow item a
    line, everything else in flow style; each key's comment beside it when it fits, else above it.
    ``commented``: the keys with a comment in the YAML (not only the model's description)."""
    commented = commented or set()
    indent = "  " * len(prefix)
    out: list[str] = []
    for number, (key, value) in enumerate(data.items()):
        path = (*prefix, key)
        comment = comments.get(path, "") if key not in NOTE_KEYS else ""
        room = width - len(indent) - len(flow(key)) - 2
        nested = isinstance(value, dict) and value and not _one_line(value, path, commented, room)
        if not prefix and out and (nested or _is_list_of_mappings(value)):
            out.append("")
        head = f"{indent}{flow(key)}:" + ("" if nested or _is_list_of_mappings(value) else f" {flow(value)}")
        if comment and "\n" not in comment and len(head) + 3 + len(comment) <= width:
            out.append(f"{head}  # {comment}")
        else:
            if comment and prefix and number == 0:  # read back, a block right under the
                out.append("")  # mapping's key would be the mapping's comment: a blank line keeps it this key's
            out.extend(_yaml_comment(comment, indent, width) if comment else [])
            out.append(head)
        if nested:
            out.extend(_yaml_lines(value, path, comments, width, commented))
        elif _is_list_of_mappings(value):
            for index, item in enumerate(value):
                line = f"{indent}  - {flow(item)}"
                note = comments.get((*path, index), "")
                if note and ("\n" in note or len(line) + 3 + len(note) > width):
                    if index == 0:  # a blank line: read back, not the list's comment
                        out.append("")
                    out.extend(_yaml_comment(note, indent + "  ", width))
                    note = ""
                out.append(f"{line}  # {note}" if note else line)
    return out


def render_yaml(view: VariantView, width: int = WIDTH) -> str:
    """The resolved variant as one YAML file that loads and validates to the same config (no
    ``extends:``; defaults written out), each key's comment carried as a YAML comment. With
    differences: a variant extending the other that sets only the changed keys (a changed list
    whole; an ``assumed`` note the other has and this one lacks as ``assumed: null``), and names in a
    comment any other key the other has and this one lacks (``extends:`` cannot remove a key)."""
    comments = {e.path: e.comment or e.description for e in view.entries}
    commented = {e.path for e in view.entries if e.comment}
    if view.differences is not None:
        return _diff_yaml(view, comments, width, commented)
    head = [
        f"# {view.game} variant {view.variant}, resolved from {view.config} by `balancer show`: every key, "
        "with its comment.",
        "# For a variant of your own, keep the keys you change and start from the shipped one:",
        f"#   extends: {view.config}",
    ]
    return "\n".join([*head, *_yaml_lines(view.data, (), comments, width, commented)]) + "\n"


def _diff_yaml(view: VariantView, comments: dict[KeyPath, str], width: int, commented: set[KeyPath]) -> str:
    changed: dict = {"game": view.game, "variant": view.variant}
    absent = []
    for diff in view.differences or []:
        cut = next((i for i, part in enumerate(diff.path) if isinstance(part, Index)), len(diff.path))
        path = diff.path[:cut] if cut < len(diff.path) else diff.path
        removed_note = diff.new is NOT_SET and path[-1] == "assumed"  # `assumed: null` is no note
        if diff.new is NOT_SET and cut == len(diff.path) and not removed_note:
            absent.append(diff.key)
            continue
        target = changed
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = None if removed_note else _value_at(view.data, path)
    head = [
        f"# What {view.config} changes against {view.other} (`balancer show --diff`): a variant of its own.",
        f"extends: {view.other}",
    ]
    tail = [f"# not set in {view.config}, set in {view.other}: {key}" for key in absent]
    return "\n".join([*head, *_yaml_lines(changed, (), comments, width, commented), *tail]) + "\n"
