"""The reports in a real browser (issue 15): the run, compare (two variants, and a base with several
what-ifs), study, sweep, ladder and history (issue 27) pages, rendered by the CLI at tiny game counts,
opened in headless Chromium (Debian's ``chromium`` package, driven by Playwright; no browser is
downloaded). Each page must log no console error and raise no script error, request nothing but itself
(a self-contained file works offline and leaks nothing), and show its figures as issue 50 (item 8) fixed
them: every figure visible with a non-zero size and a non-zero natural size (an ``<img>`` loaded, an
``<svg>`` with a view box), none taller than :data:`MAX_FIGURE_PX`, the history one figure of small
multiples (it was a figure per number, 6,600 px); and its tables with no horizontal overflow (no
page-wide scroll, no cell whose text overflows it) and no "from -> to" cell wrapped over two lines
("137.65 ->/136.90").

Skipped, saying why, when Chromium or Playwright is missing; ``make browser`` installs Chromium (as
root, with apt-get) and ``.ci/run`` calls it and sets ``BALANCER_REQUIRE_BROWSER=1``, so that in CI a
missing browser fails instead of skipping. A full-page screenshot of each page goes to the test's
temporary folder (``pages/shots``) and to ``$BALANCER_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app

pytestmark = pytest.mark.browser

CHROMIUM = Path(os.environ.get("BALANCER_CHROMIUM", "/usr/bin/chromium"))
ROOT = Path(__file__).resolve().parents[2]
CW = ROOT / "configs" / "citywright"
US = ROOT / "configs" / "urban_sketchers" / "base.yaml"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
]
"""Chromium flags that work on a closed network (no update, sync or field-trial requests)."""

STUDY = f"""\
study: browser
title: "A small study <for> the browser"
game: citywright
seed: 5
variants: {{v1.0: {CW / "v1.0.yaml"}, v1.1: {CW / "v1.1.yaml"}}}
runs:
  mirror-2p: {{players: 2, agents: [random], games: 40}}
  mixed-2p: {{players: 2, agents: [random, greedy], games: 20}}
figures:
  - {{title: Seat win rates, run: mirror-2p, show: seat_win_rate, published: {{v1.1: [50, 50]}}}}
  - {{title: Agents, run: mixed-2p, show: agent_win_rate}}
  - {{title: Wasted tiles, run: mirror-2p, show: "metric:wasted_tiles", published: {{v1.1: 5}}}}
"""


SWEEP = f"""\
sweep: browser-sweep
title: "A sweep <for> the browser"
base: {CW / "v1.1.yaml"}
seed: 3
runs:
  mirror-2p: {{players: 2, agents: [random], games: 20}}
paths:
  seat_bonus.2[1]: {{from: 0, to: 2}}
target:
  seat_win_rate: equal
"""

KINDS = [
    "run-citywright",
    "run-urban-sketchers",
    "compare",
    "compare-many",
    "study",
    "sweep",
    "ladder",
    "history",
]
"""The pages looked at, by the name of their HTML file."""

MIN_CHARTS = {
    "run-citywright": 4,
    "run-urban-sketchers": 3,
    "compare": 1,
    "compare-many": 1,
    "study": 3,
    "sweep": 2,
    "ladder": 2,
    "history": 1,
}
"""Charts each page shows at least: Citywright seats, agents and two score charts; Urban Sketchers (a
mirror table, no agent chart) seats, scores and indicators; the comparisons their differences; the study
one per figure of STUDY; the sweep a panel per tracked number; the ladder the seat chart and the match-up
heatmap; the history exactly one (:data:`EXACT_CHARTS`)."""

EXACT_CHARTS = {"history": 1}
"""Pages whose number of charts is known exactly: the history's 16 numbers are one figure of small
multiples (before issue 50 item 8, one figure each)."""

MAX_FIGURE_PX = 1600
"""No figure of any page is taller than this (CSS px at a 1,280 px wide window): the history of 16
numbers over 50 commits is about 1,270 px (it was 16 figures, 6,600 px in all)."""

ARROW_CELLS = ("compare", "compare-many", "ladder")
"""Pages with "from -> to" cells (the differences' tables, the ladder's summary)."""

HISTORY_NUMBERS, HISTORY_EVENTS = 16, 50
"""The history drawn: 16 numbers (the CI study's) over 50 events (the default ``--last 50``)."""


def write_history(path: Path, numbers: int = HISTORY_NUMBERS, events: int = HISTORY_EVENTS) -> None:
    """A history of ``events`` events (a baseline, then checks; one number's check fails at event 17) of
    ``numbers`` numbers (seat win rates of a three- and a four-player table in three variants), written as
    ``balancer check --history`` would (no game is played). Seat 3 of the three-player table creeps up 0.3
    points an event, each check passing: a drift the page flags."""
    from datetime import UTC, datetime, timedelta

    from balancer.history.store import append_event

    cells = [("mirror-3p", k) for k in range(1, 4)] + [("mirror-4p", k) for k in range(1, 5)]
    keys = [(run, f"v1.{i}", f"seat_win_rate:{k}") for i in range(3) for run, k in cells][:numbers]
    for event in range(1, events + 1):
        kind = "baseline" if event == 1 else "check"
        rows = []
        for run, variant, number in keys:
            failed = event == 17 and (run, number) == ("mirror-4p", "seat_win_rate:1")
            verdict = "baseline" if event == 1 else ("fail" if failed else "pass")
            est = 1 / 3 if run == "mirror-3p" else 0.25
            value = est + (0.003 * event if number.endswith(":3") and run == "mirror-3p" else 0.0)
            rows.append(
                {
                    "event_kind": kind,
                    "recorded_at": datetime(2026, 11, 1, tzinfo=UTC) + timedelta(hours=12 * event),
                    "commit_sha": f"{event:07x}" + "a2b3c4d" * 5,
                    "commit_subject": f"rule change <{event}>",
                    "study": "browser",
                    "game": "citywright",
                    "run": run,
                    "variant": variant,
                    "number": number,
                    "kind": "win_rate",
                    "test": "saved" if kind == "baseline" else "baseline",
                    "estimate": value,
                    "ci_low": value - 0.012,
                    "ci_high": value + 0.012,
                    "variance": value * (1 - value),
                    "games": 6000,
                    "seed": 1 if kind == "baseline" else 2,
                    "baseline_value": est,
                    "tolerance": 0.05,
                    "verdict": verdict,
                }
            )
        append_event(path, "browser", "citywright", rows)


def _missing() -> str | None:
    """Why the browser test cannot run here, or None."""
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM}: install it with 'make browser' (apt-get install chromium, as root)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser():
    why = _missing()
    if why:
        if os.environ.get("BALANCER_REQUIRE_BROWSER"):
            pytest.fail(f"BALANCER_REQUIRE_BROWSER is set but {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        profile = Path(os.environ.get("TMPDIR", "/tmp")) / f"balancer-chromium-{os.getpid()}"
        shutil.rmtree(profile, ignore_errors=True)
        profile.mkdir()  # an empty --user-data-dir, removed afterwards
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
            offline=True,
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def cli(*args: object) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """The HTML pages the CLI writes, by kind: two run reports (Citywright, a mixed table; Urban
    Sketchers, with its indicator section), a comparison and a study."""
    if _missing() and not os.environ.get("BALANCER_REQUIRE_BROWSER"):
        pytest.skip(_missing())
    d = tmp_path_factory.mktemp("pages")
    cli("run", CW / "v1.1.yaml", "-p", "2", "-a", "random,greedy", "-n", "40", "-j", "1", "-q", "--out", d / "cw")
    cli("report", d / "cw", "-o", d / "run-citywright.html")
    cli("run", US, "-p", "3", "-a", "random", "-n", "30", "-j", "1", "-q", "--out", d / "us")
    cli("report", d / "us", "-o", d / "run-urban-sketchers.html")
    cli(
        "compare",
        CW / "v1.0.yaml",
        CW / "v1.1.yaml",
        "-p",
        "2",
        "-a",
        "random",
        "-n",
        "40",
        "-j",
        "1",
        "-q",
        "--out",
        d / "cmp",
        "--report",
        d / "compare.html",
    )
    # a base and several what-ifs on one page (issue 50)
    cli("compare", CW / "v1.1.yaml", CW / "v1.0.yaml", CW / "achievements.yaml", "-p", "2", "-a", "random",
        "-n", "40", "-j", "1", "-q", "--out", d / "cmp-many", "--report", d / "compare-many.html")  # fmt: skip
    (d / "study.yaml").write_text(STUDY, encoding="utf-8")
    cli("study", d / "study.yaml", "-o", d / "study.html", "--results", d / "results", "-j", "1", "-q")
    (d / "sweep.yaml").write_text(SWEEP, encoding="utf-8")
    cli("sweep", d / "sweep.yaml", "-o", d / "sweep.html", "--results", d / "results", "-j", "1", "-q")
    cli("ladder", CW / "v1.1.yaml", "-a", "random,greedy", "-p", "2", "-n", "20", "--bootstrap", "50",
        "-o", d / "ladder.html", "--results", d / "results", "-j", "1", "-q")  # fmt: skip
    write_history(d / "history.duckdb")
    cli("history", d / "history.duckdb", "-o", d / "history.html")
    return {p.stem: p for p in sorted(d.glob("*.html"))}


LOOK = """() => {
  const view = document.documentElement.clientWidth;
  const figures = Array.from(document.querySelectorAll('figure, svg, img, canvas')).filter(
    e => !e.parentElement.closest('svg')).map(e => {
      const r = e.getBoundingClientRect(), s = getComputedStyle(e), tag = e.tagName.toLowerCase();
      let natural = [r.width, r.height];
      if (tag === 'img') natural = [e.naturalWidth, e.naturalHeight];
      if (tag === 'svg') {
        const box = e.viewBox && e.viewBox.baseVal;
        natural = box && box.width ? [box.width, box.height] : [e.width.baseVal.value, e.height.baseVal.value];
      }
      return {tag: tag, id: e.id || (e.closest('section') || {}).id || '',
              width: r.width, height: r.height, natural: natural,
              visible: s.display !== 'none' && s.visibility !== 'hidden' && Number(s.opacity) > 0,
              loaded: tag !== 'img' || (e.complete && e.naturalWidth > 0)};
    });
  const text = c => c.textContent.trim().replace(/\\s+/g, ' ').slice(0, 80);
  // a cell whose content is wider than the cell (cut off or spilling into the next)
  const spilled = Array.from(document.querySelectorAll('td, th')).filter(
    c => c.getClientRects().length && c.scrollWidth > c.clientWidth + 1).map(text);
  // a "from -> to" cell laid out on more than one line: its text's boxes start at more than one height
  const arrows = Array.from(document.querySelectorAll('td')).filter(c => /→|->/.test(c.textContent));
  const wrapped = arrows.filter(c => {
    const range = document.createRange();
    range.selectNodeContents(c);
    const size = parseFloat(getComputedStyle(c).fontSize);
    const tops = Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => r.top).sort((a, b) => a - b);
    return tops.length > 1 && tops[tops.length - 1] - tops[0] > 0.8 * size;
  }).map(text);
  // a table reaching past the window (the page scrolls sideways) unless a scrolling box holds it
  const wide = Array.from(document.querySelectorAll('table')).filter(t => {
    if (!t.getClientRects().length || t.getBoundingClientRect().right <= view + 1) return false;
    for (let p = t.parentElement; p; p = p.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX) && p !== document.documentElement) return false;
    }
    return true;
  }).map(t => (t.caption ? t.caption.textContent : text(t)).trim().slice(0, 80));
  return {figures: figures, spilled: spilled, arrows: arrows.length, wrapped: wrapped, wide: wide,
          scroll: [document.documentElement.scrollWidth, view]};
}"""
"""What a page shows, measured in the browser: its figures (drawn size, natural size, visible, loaded),
table cells whose text overflows them, "from -> to" cells wrapped over two lines, tables reaching past
the window, and the page's scroll width against the window's."""


def open_page(context, path: Path, shots: Path | None = None) -> dict:
    """Load ``path`` and return what the page did and shows: console errors, script errors, requests, and
    :data:`LOOK`'s measures. A full-page screenshot goes to ``shots`` (and ``$BALANCER_SCREENSHOTS``)."""
    page = context.new_page()
    errors, requests = [], []
    page.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("request", lambda req: requests.append(req.url))
    page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
    url = path.resolve().as_uri()
    page.goto(url, wait_until="load")
    page.wait_for_timeout(200)
    seen = page.evaluate(LOOK)
    for folder in (shots, os.environ.get("BALANCER_SCREENSHOTS")):
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(folder) / f"{path.stem}.png"), full_page=True)
    page.close()
    return {"url": url, "errors": errors, "requests": [r for r in requests if r != url]} | seen


def figure_problems(seen: dict) -> list[str]:
    """What is wrong with a page's figures and tables (empty when nothing): a figure hidden, unloaded or
    of zero drawn or natural size; one taller than :data:`MAX_FIGURE_PX`; a cell whose text overflows it;
    a wrapped "from -> to" cell; a table past the window; a page that scrolls sideways."""
    out = []
    for f in seen["figures"]:
        if not (f["visible"] and f["loaded"] and f["width"] > 0 and f["height"] > 0):
            out.append(f"hidden, unloaded or of zero size: {f}")
        elif f["tag"] != "figure" and not all(v > 0 for v in f["natural"]):
            out.append(f"zero natural size: {f}")
        if f["tag"] in ("svg", "img", "canvas") and f["height"] > MAX_FIGURE_PX:
            out.append(f"{f['height']:.0f} px tall (at most {MAX_FIGURE_PX}): {f}")
    out += [f"cell text overflows its cell: {t!r}" for t in seen["spilled"]]
    out += [f"'from -> to' cell wrapped over two lines: {t!r}" for t in seen["wrapped"]]
    out += [f"table wider than the window: {t!r}" for t in seen["wide"]]
    if seen["scroll"][0] > seen["scroll"][1] + 1:
        out.append(f"the page scrolls sideways: {seen['scroll'][0]} px in a {seen['scroll'][1]} px window")
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_the_report_works_in_a_real_browser(browser, pages, kind):
    seen = open_page(browser, pages[kind], pages[kind].parent / "shots")
    assert seen["errors"] == [], seen["errors"]
    assert seen["requests"] == [], f"the page requested {seen['requests']} (it must be self-contained)"
    charts = [f for f in seen["figures"] if f["tag"] in ("svg", "img", "canvas")]
    assert len(charts) >= MIN_CHARTS[kind], f"{len(charts)} charts in {kind}: {seen['figures']}"
    if kind in EXACT_CHARTS:
        assert len(charts) == EXACT_CHARTS[kind], f"{len(charts)} charts in {kind}: {seen['figures']}"
    assert figure_problems(seen) == [], f"{kind}: {figure_problems(seen)}"
    if kind in ARROW_CELLS:  # the wrapped-cell check looked at some cells
        assert seen["arrows"] > 0, f"no 'from -> to' cell in {kind}"
    assert (pages[kind].parent / "shots" / f"{kind}.png").stat().st_size > 0


def test_the_history_page_is_one_figure_of_every_number(browser, pages):
    # 16 numbers over 50 commits: one figure (was 16, 6,600 px with the page's margins), two columns of 8
    # panels, 13.25 inches tall: 1,272 CSS px at 96 px an inch (as laid out: the page shows it at its size)
    seen = open_page(browser, pages["history"])
    [svg] = [f for f in seen["figures"] if f["tag"] == "svg"]
    assert 1200 < svg["height"] <= MAX_FIGURE_PX, svg
    html = pages["history"].read_text(encoding="utf-8")
    assert f"One panel per number ({HISTORY_NUMBERS})" in html and "(drift)" in html


def test_the_browser_test_sees_a_broken_page(browser, tmp_path):
    # the checks above can fail: a script error, a request for a remote file, an empty figure, an image
    # that did not load, a figure too tall, a cell whose text overflows it, a wrapped "from -> to" cell, a
    # table past the window
    page = tmp_path / "broken.html"
    page.write_text(
        "<html><body><figure style='display:none'><svg width='0' height='0'></svg></figure>"
        "<img src='https://example.invalid/x.png'><script>undefinedFunction()</script>"
        "<svg width='100' height='2000' viewBox='0 0 100 2000'></svg>"
        "<table><tr><td style='max-width: 3em; overflow: hidden; white-space: nowrap'>a long cell text</td>"
        "<td style='width: 4em'>137.65 → 136.90</td></tr></table>"
        "<table style='width: 3000px'><tr><td>wide</td></tr></table></body></html>",
        encoding="utf-8",
    )
    seen = open_page(browser, page, tmp_path / "shots")
    assert any("undefinedFunction" in e for e in seen["errors"])
    assert seen["requests"] == ["https://example.invalid/x.png"]
    assert {f["tag"] for f in seen["figures"] if not f["visible"] or f["width"] == 0} >= {"figure", "svg"}
    problems = figure_problems(seen)
    assert any(p.startswith("hidden, unloaded or of zero size") and "'img'" in p for p in problems), problems
    assert any(p.startswith("2000 px tall") for p in problems), problems
    assert "cell text overflows its cell: 'a long cell text'" in problems
    assert "'from -> to' cell wrapped over two lines: '137.65 → 136.90'" in problems
    assert "table wider than the window: 'wide'" in problems and any("scrolls sideways" in p for p in problems)
    assert (tmp_path / "shots" / "broken.png").stat().st_size > 0
