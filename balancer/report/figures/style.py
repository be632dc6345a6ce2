"""The one style of every report figure, and a figure as an inline SVG string or SVG, PNG and PDF files
(matplotlib, no pyplot, no global backend change).

:func:`svg_string` returns a standalone ``<svg>...</svg>`` element ready to paste into HTML: the XML
prologue is stripped, text stays text (``svg.fonttype = "none"``, styled by the page font), and
element ids are prefixed per figure so several figures can share one page.  Figures are drawn on
an Agg canvas and saved with the SVG backend; the caller's pyplot backend (e.g. a notebook's
inline backend) is never touched.

Labels come from data (agent names, variants) and are escaped by matplotlib's SVG writer; ``$``
is escaped so that a name is never parsed as mathtext.
"""

from __future__ import annotations

import contextvars
import io
import itertools
import math
import re
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from balancer.outdir import own_directory, refuse_foreign, write_atomic

#: Okabe-Ito colour-blind-safe palette; component i always gets colour i.
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
    "#000000",
)
BAR_COLOUR = "#0072B2"
FAIR_COLOUR = "#444444"
BASE_COLOUR = "#777777"

PAGE_WIDTH = 6.5
"""Inches: the text width of a printed page (letter or A4 with 1 in margins). Every report figure is at
most this wide, so that it prints, and shows on a page, at 100% with the font sizes below."""
FONT_SIZE = 9.0
"""Points: the body text of every figure (tick labels, axis labels, legends); titles are 10 pt."""
SMALL_SIZE = 7.5
"""Points: the smallest text of any figure (a heatmap cell's interval)."""
DPI = 200
"""Dots per inch of a figure's PNG file."""
FIGSIZE = (PAGE_WIDTH, 3.4)  # inches
FORMATS: tuple[str, ...] = ("svg", "png", "pdf")
"""The files a figure is saved as (:func:`write_figure_files`)."""

# The one matplotlib style of every report figure (:func:`style`): one font scale, page width, dpi.
STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "balancer",
    "pdf.fonttype": 42,
    "font.family": "sans-serif",
    "font.size": FONT_SIZE,
    "axes.titlesize": 10.0,
    "axes.labelsize": FONT_SIZE,
    "xtick.labelsize": FONT_SIZE,
    "ytick.labelsize": FONT_SIZE,
    "legend.fontsize": FONT_SIZE,
    "legend.title_fontsize": FONT_SIZE,
    "figure.titlesize": 10.0,
    "figure.figsize": FIGSIZE,
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#333333",
    "axes.axisbelow": True,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
}


def style(overrides: Mapping[RcKeyType, Any] | None = None) -> Any:
    """The context every report figure is drawn and saved in: :data:`STYLE`, with ``overrides``
    (``style({"axes.grid": False})`` for a heatmap)."""
    return matplotlib.rc_context(STYLE | dict(overrides or {}))


def wrap(text: str, width_in: float, size: float = 10.0) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``size`` points (a title's
    width: an average character of a sans-serif font is about 0.55 of its size); its own line
    breaks are kept."""
    chars = max(12, int(width_in * 72 / (0.55 * size)))
    lines = (textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False) for line in text.split("\n"))
    return "\n".join("\n".join(parts) for parts in lines)


_figure_ids = itertools.count(1)


def text_label(text: object) -> str:
    """A data label safe for matplotlib text: ``$`` escaped so mathtext never parses it."""
    return str(text).replace("$", r"\$")


def set_category_ticks(ax: matplotlib.axes.Axes, labels: Sequence[object]) -> None:
    """Category tick labels, slanted when they would not fit side by side."""
    texts = [text_label(lab) for lab in labels]
    ax.set_xticks(range(len(texts)), texts)
    if sum(len(t) for t in texts) > 48 or any(len(t) > 16 for t in texts):
        ax.tick_params(axis="x", labelrotation=25)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
            tick.set_rotation_mode("anchor")
    ax.set_xlim(-0.6, len(texts) - 0.4)


def new_figure(figsize: tuple[float, float] = FIGSIZE) -> Figure:
    """A figure of ``figsize`` inches, at most :data:`PAGE_WIDTH` wide, with constrained layout on an
    Agg canvas (no pyplot state)."""
    fig = Figure(figsize=(min(figsize[0], PAGE_WIDTH), figsize[1]), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _namespace_ids(svg: str, prefix: str) -> str:
    """Prefix every ``id`` and its ``#id`` references so figures on one page never collide."""
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if not ids:
        return svg

    def ref(match: re.Match[str]) -> str:
        name = match.group(2)
        return f"{match.group(1)}{prefix}{name}" if name in ids else match.group(0)

    svg = re.sub(r'(\bid=")([^"]+)(?=")', ref, svg)
    return re.sub(r"(#)([A-Za-z_][\w.:-]*)", ref, svg)


_collector: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("balancer_figures", default=None)


@contextmanager
def collecting() -> Iterator[list[Any]]:
    """Collect every figure drawn for a page inside the block, as ``(figure, inline svg)`` pairs (the
    list it yields fills as :func:`svg_string` draws them): what ``--figures`` writes as files
    (:mod:`balancer.report.publish`). Outside such a block nothing is kept."""
    figures: list[Any] = []
    token = _collector.set(figures)
    try:
        yield figures
    finally:
        _collector.reset(token)


def collect(fig: Any, svg: str) -> None:
    """Hand ``fig`` and its inline ``svg`` to the collector of :func:`collecting`, if one is open
    (the svg finds the figure's place, heading and caption on the page)."""
    found = _collector.get()
    if found is not None and not any(f is fig for f, _ in found):
        found.append((fig, svg))


def svg_string(fig: Figure) -> str:
    """Serialise a figure to an inline ``<svg>`` element (no XML prologue, ids made unique). Inside
    :func:`collecting` the figure is also kept, to be written as files."""
    buf = io.StringIO()
    with style():
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = _namespace_ids(text[text.index("<svg") :], f"f{next(_figure_ids)}-")
    collect(fig, text)
    return text


def is_missing(value: Any) -> bool:
    """None or NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def symmetric_span(lows: Sequence[float], highs: Sequence[float], floor: float = 1.0) -> float:
    """The half-width of an axis centred on 0 that holds every interval: the largest ``|end|``, or
    ``floor`` when every end is 0 (an axis of +-1e-9 would print as ``1e-9``)."""
    span = max([abs(v) for v in (*lows, *highs) if math.isfinite(v)], default=0.0)
    return span if span > 0 else floor


def dodge_offsets(n: int, positions: Sequence[float], spread: float = 0.4) -> list[float]:
    """Offsets along x of ``n`` series drawn at the same ``positions``, so that their whiskers sit
    side by side: spread evenly over ``spread`` of the smallest gap between two positions (1 for a
    single position), centred on 0; ``[0.0]`` for one series."""
    if n <= 1:
        return [0.0] * n
    xs = sorted(set(float(x) for x in positions))
    gap = min((b - a for a, b in zip(xs, xs[1:])), default=1.0)
    step = spread * gap / (n - 1)
    return [(j - (n - 1) / 2) * step for j in range(n)]


def nonzero_components(components: Mapping[str, Sequence[float | None]]) -> tuple[list[str], list[str]]:
    """(kept, dropped) component names: a component whose every value is 0 or missing (a scoring
    category switched off, e.g. achievements) is dropped, the others kept in order."""
    kept: list[str] = []
    dropped: list[str] = []
    for name, values in components.items():
        (kept if any(v is not None and not is_missing(v) and v != 0 for v in values) else dropped).append(name)
    return kept, dropped


def figure_files(fig: Figure, caption: str | None = None) -> dict[str, bytes]:
    """A figure's files in every format of :data:`FORMATS` (SVG, PNG at :data:`DPI`, PDF), as bytes,
    drawn in :data:`STYLE`, without dates (the same figure gives the same bytes). ``caption``: the
    figure's caption, kept in each file's metadata (SVG and PNG Title and Description, PDF Title and
    Subject; the title is the caption's first sentence)."""
    metadata: dict[str, dict[str, Any]] = {
        "svg": {"Date": None},
        "png": {"Software": None},
        "pdf": {"CreationDate": None, "ModDate": None},
    }
    if caption:
        title = caption.split(". ")[0]
        metadata["svg"] |= {"Title": title, "Description": caption}
        metadata["png"] |= {"Title": title, "Description": caption}
        metadata["pdf"] |= {"Title": title, "Subject": caption}
    out = {}
    with style():
        for fmt in FORMATS:
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=DPI, metadata=metadata[fmt])
            out[fmt] = buf.getvalue()
    return out


def write_figure_files(fig: Figure, directory: Path, stem: str, caption: str | None = None) -> list[Path]:
    """Write ``stem.svg``, ``stem.png`` (:data:`DPI` dpi) and ``stem.pdf`` into ``directory`` (the
    bytes of :func:`figure_files`); return their paths. Each is written through
    :func:`balancer.outdir.write_atomic`: a link planted under any of the names, or in place of
    ``directory``, is refused (UnsafeOutputError), never followed, and nothing is written."""
    own_directory(directory)
    paths = [directory / f"{stem}.{fmt}" for fmt in FORMATS]
    for path in paths:
        refuse_foreign(path)
    files = figure_files(fig, caption)
    for path, fmt in zip(paths, FORMATS):
        write_atomic(path, files[fmt])
    return paths
