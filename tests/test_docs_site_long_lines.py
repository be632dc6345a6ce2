"""The docs site at a 1,280 px window (issue 50): a code block's line longer than the column was cut at
the column's edge with no sign of more (Material's thin scroll bar is hidden until used, as overlay
scroll bars are). docs/stylesheets/extra.css keeps the line whole and scrolling, and draws a shadow at
the right edge while the line goes on. Built with ``mkdocs build --strict`` and looked at in headless
Chromium (skipped as the report's browser test is, when Chromium or Playwright is missing)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.test_browser import browser  # noqa: F401 - the fixture: Chromium at 1,280 x 900

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]


def _right_edge_darkness(png: bytes) -> float:
    """How much darker the last 4 pixel columns of a code block are than its middle (0 to 255): about
    60 to 75 with the shadow, 0 to 3 without it (the copy button's faint outline), measured."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    w, h = image.size
    rows = range(h // 4, 3 * h // 4)  # clear of the rounded corners and the text's first line
    edge = [image.getpixel((x, y)) for x in range(w - 4, w) for y in rows]
    middle = [image.getpixel((x, y)) for x in range(w // 2 - 2, w // 2 + 2) for y in range(1, 3)]  # above the text
    return sum(middle) / len(middle) - sum(edge) / len(edge)


def test_a_long_command_line_shows_that_it_goes_on(browser, tmp_path):  # noqa: F811 - the fixture
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    page = browser.new_page()
    try:
        page.goto((site / "commands" / "compare" / "index.html").as_uri())
        blocks = page.locator(".md-content pre > code")
        wide = [i for i in range(blocks.count()) if blocks.nth(i).evaluate("e => e.scrollWidth > e.clientWidth + 1")]
        assert 0 in wide  # the page's first command (compare ... --games 5000) is wider than the column
        for i in wide:
            block = blocks.nth(i)
            assert block.evaluate("e => getComputedStyle(e).whiteSpace") == "pre"  # whole lines, not wrapped
            on = _right_edge_darkness(block.screenshot())
            assert on > 20, f"block {i}: no shadow where the line goes on"
            block.evaluate("e => { e.scrollLeft = e.scrollWidth }")  # at the end of the line: no shadow
            end = _right_edge_darkness(block.screenshot())
            assert end < 10, f"block {i}: a shadow at the end of its lines"
        page.goto((site / "commands" / "games" / "index.html").as_uri())  # 'balancer games': a short block
        short = page.locator(".md-content pre > code").first
        assert short.evaluate("e => e.scrollWidth <= e.clientWidth")
        assert _right_edge_darkness(short.screenshot()) < 10  # has no shadow
    finally:
        page.close()
