"""The reports in a real browser (issue 15): the run, compare, study and history (issue 27) pages, rendered by the CLI,
opened in headless Chromium (Debian's ``chromium`` package, driven by Playwright; no browser is
downloaded). Each page must log no console error and raise no script error, show every figure with a
non-zero size, and request nothing but itself (a self-contained file works offline and leaks nothing).

Skipped, saying why, when Chromium or Playwright is missing; ``make browser`` installs Chromium (as
root, with apt-get) and ``.ci/run`` calls it and sets ``BALANCER_REQUIRE_BROWSER=1``, so that in CI a
missing browser fails instead of skipping. Screenshots go to ``$BALANCER_SCREENSHOTS`` when set.
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


MIN_CHARTS = {"run-citywright": 4, "run-urban-sketchers": 3, "compare": 1, "study": 3, "history": 2}
"""Charts each page shows at least: Citywright seats, agents and two score charts; Urban Sketchers (a
mirror table, no agent chart) seats, scores and indicators; the study one per figure of STUDY; the
history one panel per number of :func:`write_history`."""


def write_history(path: Path) -> None:
    """A history of three events (a baseline and two checks, the second failing) of two numbers,
    written as ``balancer check --history`` would (no game is played)."""
    from datetime import UTC, datetime

    from balancer.history.store import append_event

    for event, (kind, shift, verdict) in enumerate(
        [("baseline", 0.0, "baseline"), ("check", 0.01, "pass"), ("check", 0.06, "fail")], start=1
    ):
        rows = []
        for number, est in (("seat_win_rate:1", 0.36), ("seat_win_rate:3", 0.27)):
            value = est + shift
            rows.append(
                {
                    "event_kind": kind,
                    "recorded_at": datetime(2026, 12, event, tzinfo=UTC),
                    "commit_sha": f"{event}a2b3c4d" * 5,
                    "commit_subject": f"rule change <{event}>",
                    "study": "browser",
                    "game": "citywright",
                    "run": "mirror-3p",
                    "variant": "v1.1",
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
    (d / "study.yaml").write_text(STUDY, encoding="utf-8")
    cli("study", d / "study.yaml", "-o", d / "study.html", "--results", d / "results", "-j", "1", "-q")
    write_history(d / "history.duckdb")
    cli("history", d / "history.duckdb", "-o", d / "history.html")
    return {p.stem: p for p in sorted(d.glob("*.html"))}


def open_page(context, path: Path) -> dict:
    """Load ``path`` and return what the page did: console errors, script errors, requests, figures."""
    page = context.new_page()
    errors, requests = [], []
    page.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("request", lambda req: requests.append(req.url))
    page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
    url = path.resolve().as_uri()
    page.goto(url, wait_until="load")
    page.wait_for_timeout(200)
    figures = page.evaluate("""() => Array.from(document.querySelectorAll('figure, svg, img, canvas')).filter(
        e => !e.parentElement.closest('svg')).map(e => {
          const r = e.getBoundingClientRect(), s = getComputedStyle(e);
          return {tag: e.tagName.toLowerCase(), id: e.id || (e.closest('section') || {}).id || '',
                  width: r.width, height: r.height,
                  visible: s.display !== 'none' && s.visibility !== 'hidden' && Number(s.opacity) > 0,
                  loaded: e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0)};
        })""")
    shots = os.environ.get("BALANCER_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"{path.stem}.png"), full_page=True)
    page.close()
    return {"url": url, "errors": errors, "requests": [r for r in requests if r != url], "figures": figures}


@pytest.mark.parametrize("kind", ["run-citywright", "run-urban-sketchers", "compare", "study", "history"])
def test_the_report_works_in_a_real_browser(browser, pages, kind):
    seen = open_page(browser, pages[kind])
    assert seen["errors"] == [], seen["errors"]
    assert seen["requests"] == [], f"the page requested {seen['requests']} (it must be self-contained)"
    charts = [f for f in seen["figures"] if f["tag"] in ("svg", "img", "canvas")]
    assert len(charts) >= MIN_CHARTS[kind], f"{len(charts)} charts in {kind}: {seen['figures']}"
    broken = [f for f in seen["figures"] if not (f["visible"] and f["loaded"] and f["width"] > 0 and f["height"] > 0)]
    assert broken == [], f"figures hidden, unloaded or of zero size in {kind}: {broken}"


def test_the_browser_test_sees_a_broken_page(browser, tmp_path):
    # the checks above can fail: a script error, a request for a remote file, an empty figure
    page = tmp_path / "broken.html"
    page.write_text(
        "<html><body><figure style='display:none'><svg width='0' height='0'></svg></figure>"
        "<img src='https://example.invalid/x.png'><script>undefinedFunction()</script></body></html>"
    )
    seen = open_page(browser, page)
    assert any("undefinedFunction" in e for e in seen["errors"])
    assert seen["requests"] == ["https://example.invalid/x.png"]
    assert {f["tag"] for f in seen["figures"] if not f["visible"] or f["width"] == 0} >= {"figure", "svg"}
