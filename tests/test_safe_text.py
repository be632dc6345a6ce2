"""Text from files made safe where it is shown (issue 52, item 7): a study's title or a variant's name with
ESC, CR, U+202E, HTML or Markdown reaches neither the terminal nor a --markdown summary raw (before the
fix, check printed the title raw: it coloured the terminal and could forge a PASS line, and the Markdown
summary rendered its HTML and links). One helper (balancer/text.py) everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.text import markdown_text, one_line, terminal_text

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
HOSTILE = "T\x1b[32m\rPASS \u202eFAKE <b>bold</b> [link](http://x) **st** | cell @someone"
"""A title that colours the terminal, returns to the line's start to write PASS over it, reverses what
follows, and in Markdown would be HTML, a link, emphasis, a new table cell and a mention."""
RAW = ("\x1b", "\r", "\u202e")


def study_text(title: str, variant: str = "v1.1") -> str:
    # the title in YAML's double quotes, with its control characters as YAML escapes (\e, \r, \u202e)
    quoted = (
        title.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\x1b", "\\e")
        .replace("\r", "\\r")
        .replace("\u202e", "\\u202E")
    )
    return f"""study: tiny
title: "{quoted}"
game: citywright
seed: 3
variants:
  "{variant}": {V11}
runs:
  m2: {{players: 2, agents: [random], games: 40}}
check:
  tolerance: {{win_rate: 0.05, metric_sd: 0.15}}
  false_alarm: 0.01
  miss_rate: 0.1
  looks: 1
"""


def test_the_helpers_by_hand():
    # each escape written out by hand: the Python escape of the character, as the terminal shows it
    assert terminal_text("a\x1b[31mb\rc\u202ed\u2028e\x85f\tg\nh") == "a\\x1b[31mb\\rc\\u202ed\\u2028e\\x85f\tg\nh"
    assert one_line("a\nb\tc") == "a\\nb\\tc"
    assert markdown_text("<b>x</b> | [l](u) *e* `c` @m") == "&lt;b&gt;x&lt;/b&gt; \\| \\[l\\](u) \\*e\\* \\`c\\` \\@m"
    assert markdown_text("25.0% of 1,600 games (v1.1)") == "25.0% of 1,600 games (v1.1)"  # plain text unchanged


@pytest.fixture
def checked(tmp_path, monkeypatch):
    """A baseline of a study titled :data:`HOSTILE`, then a check of it with --markdown and --junit:
    (the check's output, the Markdown, the JUnit XML)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "st.yaml").write_text(study_text(HOSTILE), encoding="utf-8")
    save = ["baseline", "save", "st.yaml", "-o", "b.json", "-j", "1", "-q", "--results", "res"]
    assert CliRunner().invoke(app, save).exit_code == 0
    check = ["check", "st.yaml", "--baseline", "b.json", "--max-games", "40", "--allow-underpowered", "-j", "1"]
    result = CliRunner().invoke(app, [*check, "--markdown", "m.md", "--junit", "j.xml"])
    assert result.exit_code in (0, 1), result.output
    return result.output, (tmp_path / "m.md").read_text(encoding="utf-8"), (tmp_path / "j.xml").read_text("utf-8")


def test_check_shows_a_hostile_title_escaped_on_the_terminal(checked):
    output, _, _ = checked
    for raw in RAW:
        assert raw not in output
    assert "T\\x1b[32m\\rPASS \\u202eFAKE" in output  # the title, shown as its escapes


def test_check_markdown_escapes_html_markdown_and_controls(checked):
    _, md, _ = checked
    title = md.splitlines()[0]
    assert title == (
        "### balancer check: T\\\\x1b\\[32m\\\\rPASS \\\\u202eFAKE &lt;b&gt;bold&lt;/b&gt; \\[link\\](http://x) "
        "\\*\\*st\\*\\* \\| cell \\@someone"
    )
    for raw in (*RAW, "<b>", "[link]"):
        assert raw not in md


def test_validate_assumed_shows_a_hostile_note_escaped(tmp_path, monkeypatch):
    # an assumed: note is text from the file; before, 'validate --assumed' printed it raw (ESC, CR, U+202E)
    monkeypatch.chdir(tmp_path)
    note = "T\\e[32m\\rPASS \\u202EFAKE"  # YAML's escapes inside double quotes
    (tmp_path / "v.yaml").write_text(
        f'variant: hostile\nextends: citywright/v1.1\nrounds:\n  "2": {{rounds: 3, turns: 4, assumed: "{note}"}}\n'
    )
    result = CliRunner().invoke(app, ["validate", "v.yaml", "--assumed"])
    assert result.exit_code == 0, result.output
    for raw in RAW:
        assert raw not in result.output
    assert "T\\x1b[32m\\rPASS \\u202eFAKE" in result.output
