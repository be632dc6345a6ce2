"""Every figure and table of a page as files (``--figures DIR``, ``--tables DIR``), for every command.

One implementation for all the pages (report, compare, study, sweep, tune, ladder, history): while a
page is rendered inside :func:`collecting`, every figure it draws passes through
:func:`balancer.report.figures.svg_string`, which hands it to the collector; :func:`publish` then
writes each figure as SVG, PNG and PDF (:func:`balancer.report.figures.write_figure_files`) and reads
the page's own tables back from its HTML (:class:`_Tables`, the standard library's parser) into CSV.

File names say what a file shows: the figure's title (or its first panel's) or the table's caption,
made a file name (``seat-win-rates-of-both-variants.svg``, ``seat-win-rates.csv``), numbered only
when two share one. Each figure's caption (its title, the page's title and facts: games, agents,
seed) is written into its SVG, PNG and PDF metadata (Title and Description / Subject) and, with each
table's, into ``captions.md`` beside them.
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from balancer.outdir import UnsafeOutputError
from balancer.report.figures.style import collect, collecting

__all__ = [
    "collecting",
    "collect",
    "publish",
    "page_tables",
    "Published",
    "CAPTIONS_FILE",
    "listed_files",
    "refuse_users_files",
    "UsersFileError",
]

CAPTIONS_FILE = "captions.md"
FACT_TERMS = ("players", "agents", "agents by seat", "games", "seed")
"""The terms of a page's description list (``<dt>``) that go into every caption beside its facts."""


def slug(text: str, limit: int = 60) -> str:
    """A file name from a title: lower case words joined by '-' (``"Seat win rates (%)" ->
    "seat-win-rates"``), at most ``limit`` characters: a longer one cut at its last whole clause (before a comma or a
    semicolon), else at a word; ``"figure"`` when empty."""
    text = re.sub(r"\([^)]*\)", " ", text.lower())
    words = re.findall(r"[a-z0-9]+(?:\.[0-9]+)?|[,;]", text)
    out, clause = "", ""
    for w in words:
        if w in ",;":
            clause = out  # a name cut short ends at the last clause it holds whole
            continue
        if len(out) + len(w) + 1 > limit:
            return clause or out or "figure"
        out = f"{out}-{w}" if out else w
    return out or "figure"


def figure_title(fig: Any) -> str:
    """A figure's own title: its suptitle, else its panels' titles joined by '; ' (at most three)."""
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text().strip():
        return " ".join(sup.get_text().split())
    titles = []
    for ax in fig.get_axes():
        for loc in ("center", "left", "right"):
            t = " ".join(ax.get_title(loc=loc).split())
            if t and t not in titles:
                titles.append(t)
    return "; ".join(titles[:3]) if titles else ""


@dataclass
class _Table:
    caption: str = ""
    heading: str = ""
    rows: list[list[str]] = field(default_factory=list)


class _Tables(HTMLParser):
    """The ``<table>`` elements of a page (caption, the ``<h2>`` above, rows of cell texts), its
    ``<title>``, and its facts (``<ul class="facts">``: label and value of each item)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[_Table] = []
        self.title = ""
        self.facts: list[str] = []
        self._stack: list[str] = []
        self._text: list[str] = []
        self._heading = ""
        self._table: _Table | None = None
        self._row: list[str] | None = None
        self._in_facts = False
        self._skip = 0
        self._term = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("svg", "style", "script"):
            self._skip += 1
        if self._skip:
            return
        if tag == "ul" and "facts" in (dict(attrs).get("class") or "").split():
            self._in_facts = True
        if tag in ("h1", "h2", "h3", "caption", "td", "th", "title", "li", "dt", "dd"):
            self._text = []
        if tag == "table":
            self._table = _Table(heading=self._heading)
        elif tag == "tr" and self._table is not None:
            self._row = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("svg", "style", "script"):
            self._skip = max(0, self._skip - 1)
            return
        if self._skip:
            return
        text = " ".join("".join(self._text).split())
        if tag == "li" and self._in_facts:  # <span>label</span><b>value</b>: "label: value"
            self.facts.append(": ".join(" ".join(t.split()) for t in self._text if t.strip()))
            return
        if tag == "dt":
            self._term = text
        elif tag == "dd" and self._term in FACT_TERMS and self._table is None:
            self.facts.append(f"{self._term}: {text.split(' (')[0]}")
        if tag == "title":
            self.title = text
        elif tag in ("h2", "h3"):
            self._heading = text
        elif tag == "ul":
            self._in_facts = False
        elif tag == "caption" and self._table is not None:
            self._table.caption = text
        elif tag in ("td", "th") and self._row is not None:
            self._row.append(text)
        elif tag == "tr" and self._table is not None and self._row is not None:
            if self._row:
                self._table.rows.append(self._row)
            self._row = None
        elif tag == "table" and self._table is not None:
            if self._table.rows:
                self.tables.append(self._table)
            self._table = None

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._text.append(data)


def page_tables(html: str) -> _Tables:
    """Parse a page: its tables, title and facts (:class:`_Tables`)."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    return parser


@dataclass
class Published:
    """What :func:`publish` wrote: the figure files (three per figure), the CSV files, the captions."""

    figures: list[Path] = field(default_factory=list)
    tables: list[Path] = field(default_factory=list)
    captions: list[Path] = field(default_factory=list)


def _place(html: str, svg: str) -> tuple[str, str]:
    """The heading (the last ``<h2>``/``<h3>`` above) and the ``<figcaption>`` of an inline figure
    on the page, as text; ``("", "")`` when the figure is not on it."""
    at = html.find(svg) if svg else -1
    if at < 0:
        return "", ""
    heads = re.findall(r"<h[23][^>]*>(.*?)</h[23]>", html[:at], flags=re.S)
    after = html[at + len(svg) :]
    cap = re.match(r"\s*(?:</[a-z]+>\s*)*<figcaption[^>]*>(.*?)</figcaption>", after, flags=re.S)
    text = lambda t: " ".join(re.sub(r"<[^>]+>", "", unescape(t)).split())  # noqa: E731
    return (text(heads[-1]) if heads else ""), (text(cap.group(1)) if cap else "")


def _unique(stem: str, taken: set[str]) -> str:
    name, k = stem, 2
    while name in taken:
        name, k = f"{stem}-{k}", k + 1
    taken.add(name)
    return name


CAPTIONS_HEADINGS = (b"# Figures: ", b"# Tables: ")
"""How a ``captions.md`` balancer wrote begins: one that begins otherwise is the user's."""


def refuse_users_captions(folder: Path) -> None:
    """Raise UnsafeOutputError when ``folder`` holds a ``captions.md`` that balancer did not write (it
    does not begin with one of :data:`CAPTIONS_HEADINGS`): a figures folder of a paper may hold the
    user's own captions, which a page's list would replace. Read through ``O_NOFOLLOW|O_NONBLOCK``
    (a link, a FIFO or a device is left to :func:`balancer.outdir.refuse_foreign`, never opened)."""
    from balancer.outdir import UnsafeOutputError

    path = Path(folder) / CAPTIONS_FILE
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # missing, or replaced since: nothing of the user's is read or replaced here
        return
    with os.fdopen(fd, "rb") as f:
        head = f.read(max(len(h) for h in CAPTIONS_HEADINGS))
    if not head.startswith(CAPTIONS_HEADINGS):
        raise UnsafeOutputError(
            f"{path}: exists and was not written by balancer (not a list of a page's figures or tables); "
            "remove it, or choose another folder"
        )


def _figures_list(path: Path) -> list[str]:
    """The lines of a figures' ``captions.md`` balancer wrote at ``path`` (beginning ``# Figures: ``),
    without its trailing empty lines; none for anything else. Read as :func:`refuse_users_captions`
    reads (no link, FIFO or device is opened)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return []
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as f:
        text = f.read(1 << 20).decode("utf-8", errors="replace")
    return text.rstrip("\n").split("\n") if text.startswith(CAPTIONS_HEADINGS[0].decode()) else []


_LISTED = re.compile(r"- `([^`/]+)`")


def listed_files(folder: Path | None) -> frozenset[str]:
    """The names of the files the ``captions.md`` balancer wrote in ``folder`` lists (a figure's line
    ``- `stem.svg` (`.png`, `.pdf`): ...`` lists all three, a table's ``- `stem.csv`: ...`` its CSV):
    the files balancer wrote there, which a page's figures and tables may replace. None for a folder
    without one, or with the user's own captions.md. Read as :func:`refuse_users_captions` reads."""
    if folder is None:
        return frozenset()
    path = Path(folder) / CAPTIONS_FILE
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return frozenset()
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return frozenset()
    with os.fdopen(fd, "rb") as f:
        text = f.read(1 << 20).decode("utf-8", errors="replace")
    if not text.startswith(tuple(h.decode() for h in CAPTIONS_HEADINGS)):
        return frozenset()
    names: set[str] = set()
    for line in text.splitlines():
        m = _LISTED.match(line)
        if m is None:
            continue
        name = m.group(1)
        stem, dot, ext = name.rpartition(".")
        names |= {f"{stem}.{e}" for e in ("svg", "png", "pdf")} if dot and ext == "svg" else {name}
    return frozenset(names)


class UsersFileError(UnsafeOutputError):
    """A file of the user's where a page's figure or table would be written (an UnsafeOutputError:
    exit 2); raised before any of the page's files is written (:func:`refuse_users_files`)."""


def refuse_users_files(paths: list[Path], listed: frozenset[str]) -> None:
    """Raise UsersFileError (an UnsafeOutputError) naming the first of ``paths`` (the files a page is about to write into
    its --figures / --tables folder) that is a non-empty regular file not listed in ``listed`` (the
    names :func:`listed_files` read from balancer's captions.md there, before anything was written):
    a file of the user's of the same name is never replaced. A missing or empty file, and one balancer
    listed, pass; a link or another kind of file is left to :func:`balancer.outdir.refuse_foreign`.
    Creates and opens nothing (``lstat`` only)."""
    for path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size > 0 and path.name not in listed:
            raise UsersFileError(
                f"{path}: exists and was not written by balancer (not listed in a {CAPTIONS_FILE} of balancer's "
                "there); nothing was written: move it, or choose another folder"
            )


_NUM = r"[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?"
_INTERVAL = re.compile(rf"(?:(?P<v>{_NUM}) \((?P<lo>{_NUM}) to (?P<hi>{_NUM})\)|(?P<lo2>{_NUM}) to (?P<hi2>{_NUM}))")
"""A cell holding one interval as the pages write it (one notation): ``a to b`` alone (a column of
intervals) or ``v (a to b)`` (a value with its interval)."""


def _plain_number(text: str) -> str:
    """A number as a page shows it, as a CSV reader reads one: ``−4.0`` -> ``-4.0``, ``1,234`` -> ``1234``."""
    return text.replace("\u2212", "-").replace(",", "")


def split_intervals(rows: list[list[str]]) -> list[list[str]]:
    """A table's rows with each column of intervals as numbers apart: a column of ``a to b`` cells
    becomes ``<heading> low`` and ``<heading> high``, a column of ``v (a to b)`` cells ``<heading>``,
    ``<heading> low`` and ``<heading> high`` (signs as ``-``, no thousands separators), so that a CSV
    reader gets numbers, not text. A cell of such a column that holds no interval (``–``) is kept in
    the first of its columns. The first row is the heading when it holds no interval. A cell of several
    intervals (``seat 1 50.0 (45.0 to 55.0); seat 2 ...``) is left as it is."""
    if not rows:
        return rows
    found = [[_INTERVAL.fullmatch(c) for c in r] for r in rows]
    head = 1 if not any(found[0]) else 0
    kinds: dict[int, int] = {}  # column -> 2 (low, high) or 3 (value, low, high)
    for r in found[head:]:
        for j, m in enumerate(r):
            if m is not None:
                kinds[j] = max(kinds.get(j, 2), 3 if m["v"] else 2)
    if not kinds:
        return rows
    out: list[list[str]] = []
    for i, (row, matches) in enumerate(zip(rows, found)):
        cells: list[str] = []
        for j, text in enumerate(row):
            k = kinds.get(j)
            if k is None:
                cells.append(text)
            elif i < head:
                cells += ([text] if k == 3 else []) + [f"{text} low", f"{text} high"]
            elif (m := matches[j]) is not None:
                lo, hi = (m["lo"], m["hi"]) if m["v"] else (m["lo2"], m["hi2"])
                cells += ([_plain_number(m["v"] or "")] if k == 3 else []) + [_plain_number(lo), _plain_number(hi)]
            else:
                cells += [text] + [""] * (k - 1)
        out.append(cells)
    return out


def _csv_bytes(rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    width = max(len(r) for r in rows)
    for r in rows:
        writer.writerow(r + [""] * (width - len(r)))
    return buf.getvalue().encode("utf-8")


def publish(
    html: str,
    figures: list[tuple[Any, str]],
    figures_dir: Path | None = None,
    tables_dir: Path | None = None,
    about: str = "",
    figures_listed: Path | None = None,
    listed: dict[Path, frozenset[str]] | None = None,
) -> Published:
    """Write a page's figures (SVG, PNG, PDF into ``figures_dir``) and tables (CSV into
    ``tables_dir``), each directory with a ``captions.md``. ``figures``: what :func:`collecting`
    gathered while ``html`` was rendered (each figure with its inline svg). A figure is named after
    its own title, with the page's heading above it when that adds something, and captioned with its
    ``<figcaption>``. ``about``: what the page is of, for every caption; by
    default the page's title and facts (``"Citywright: v1.1 → v1.0. players 2; agents greedy; games
    200; seed 1"``). Links planted under a file's name are refused (UnsafeOutputError), as for every
    figure file (:func:`balancer.report.figures.write_figure_files`). Every file of the page's is
    checked before the first is written: one of the user's under the same name (not listed in
    balancer's ``captions.md`` there: :func:`listed_files`, or ``listed[folder]`` when the caller read
    it before writing anything) is refused (UnsafeOutputError), and nothing is written."""
    from balancer.outdir import own_directory, write_atomic
    from balancer.report.figures import write_figure_files

    for folder in (figures_dir, tables_dir):
        if folder is not None:
            refuse_users_captions(folder)  # before any file of the page is written
    parsed = page_tables(html)
    if not about:
        seen: dict[str, str] = {}
        for fact in parsed.facts:
            seen.setdefault(fact.split(":")[0], fact)
        facts = "; ".join(seen.values())
        about = f"{parsed.title}." + (f" {facts}." if facts else "")
    out = Published()
    # one folder for both: one captions.md listing the figures, then the tables (the tables' list replaced the figures')
    shared = (
        figures_dir is not None and tables_dir is not None and Path(figures_dir).resolve() == Path(tables_dir).resolve()
    )
    figure_lines: list[str] = []
    if figures_listed is not None and tables_dir is not None and figures_dir is None:
        if Path(figures_listed).resolve() == Path(tables_dir).resolve():
            figure_lines = _figures_list(Path(tables_dir) / CAPTIONS_FILE)
            shared = bool(figure_lines)
    # every file's name first, so that a file of the user's is refused before the first one is written
    plans: list[tuple[Any, str, str]] = []  # (figure, stem, caption)
    if figures_dir is not None:
        taken: set[str] = set()
        for i, (fig, svg) in enumerate(figures, 1):
            heading, figcaption = _place(html, svg)
            own = figure_title(fig)
            title = own or heading or f"figure {i}"
            # panels with titles of their own (Margin; Length): those alone do not say what the figure is. A
            # figure of one titled panel above an untitled one (compare's leader-wins curve over B - A) says it:
            # prefixed by its heading, its name was cut at 60 characters to '...-seat-leading-at-each'
            titled = [
                ax for ax in fig.get_axes() if any(ax.get_title(loc=c).strip() for c in ("center", "left", "right"))
            ]
            panels = getattr(fig, "_suptitle", None) is None and len(titled) > 1
            if own and panels and heading and slug(heading) not in slug(own):
                title = f"{heading}: {own}"  # panels' titles alone do not say what the figure is
            caption = " ".join(p.rstrip(".") + "." for p in (title, figcaption) if p) + f" {about}"
            plans.append((fig, _unique(slug(title), taken), caption))
    table_plans: list[tuple[_Table, str, str]] = []  # (table, stem, name)
    if tables_dir is not None:
        taken = set()
        for t in parsed.tables:
            name = t.caption or t.heading or "table"
            # the caption's subject (before its first colon outside brackets), as its figure is named
            # (seats.svg, seats.csv); when taken, the subject's name and what follows the colon
            # (seats-changes-between-variants.csv): never the whole caption cut at 60 characters, which
            # named a long subject's changes table apart from its figure (coins-gained-per-player.csv
            # beside coins-gained-per-player-four-players.svg)
            subject, colon, rest = re.sub(r"\([^)]*\)", " ", name).partition(":")
            short = slug(subject)
            stem = short if short not in taken or not colon else f"{short}-{slug(rest)}"
            table_plans.append((t, _unique(stem, taken), name))
    for folder, names in (
        (figures_dir, [f"{stem}.{ext}" for _, stem, _ in plans for ext in ("svg", "png", "pdf")]),
        (tables_dir, [f"{stem}.csv" for _, stem, _ in table_plans]),
    ):
        if folder is not None:
            known = listed.get(Path(folder)) if listed is not None else None
            refuse_users_files(
                [Path(folder) / n for n in names], known if known is not None else listed_files(Path(folder))
            )
    if figures_dir is not None:
        lines = [f"# Figures: {parsed.title}", ""]
        for fig, stem, caption in plans:
            out.figures += write_figure_files(fig, Path(figures_dir), stem, caption=caption)
            lines.append(f"- `{stem}.svg` (`.png`, `.pdf`): {caption}")
        figure_lines = lines
        path = Path(figures_dir) / CAPTIONS_FILE
        write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))
        out.captions.append(path)
    if tables_dir is not None:
        own_directory(Path(tables_dir))
        lines = [f"# Tables: {parsed.title}", ""]
        for t, stem, name in table_plans:
            path = Path(tables_dir) / f"{stem}.csv"
            write_atomic(path, _csv_bytes(split_intervals(t.rows)))
            out.tables.append(path)
            lines.append(f"- `{stem}.csv`: {name}{'' if name.endswith('.') else '.'} {about}")
        if shared:
            lines = [*figure_lines, "", *lines]
        path = Path(tables_dir) / CAPTIONS_FILE
        write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))
        if path not in out.captions:
            out.captions.append(path)
    return out
