"""``compare`` says when A and B played the same games (issue 50, a designer's second hour): the terminal
printed only "cannot tell which is fairer" for ``compare v1.1 v1.1`` or a rule change these agents never
meet, and the page drew an empty "nothing to compare" figure. Now one terminal line says it, and the
page says it in words instead of that figure."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from balancer.cli import app

V11 = Path(__file__).resolve().parent.parent / "configs" / "citywright" / "v1.1.yaml"
SAME = "A and B played the same games: identical in every game"


def _compare(tmp_path: Path, b: Path, name: str):
    page = tmp_path / f"{name}.html"
    args = ["compare", V11, b, "-p", "2", "-a", "random", "-n", "12", "-j", "1", "-q", "-o", tmp_path / name]
    result = CliRunner().invoke(app, [str(a) for a in [*args, "--report", page]])
    assert result.exit_code == 0, result.output
    return result.output, page.read_text(encoding="utf-8")


def test_a_rule_change_the_agents_never_meet_is_said_to_play_the_same_games(tmp_path):
    # the four-player seat bonus changed, played at two players: the rules differ (another config hash)
    # but no game of two players reads them, so every game is the same by construction
    b = tmp_path / "four.yaml"
    b.write_text(f'extends: {V11}\nvariant: four\nseat_bonus: {{"4": [3, 2, 1, 0]}}\n', encoding="utf-8")
    output, html = _compare(tmp_path, b, "four")
    assert f"{SAME} (the rule change never mattered to these agents)" in output.splitlines()
    assert "nothing to compare" not in html  # no empty figure ...
    assert "No difference to draw: the two variants played the same games" in html  # ... words instead
    assert "(the rule change never mattered to these agents)" in html


def test_a_variant_against_itself_and_a_real_change(tmp_path):
    output, html = _compare(tmp_path, V11, "self")
    assert f"{SAME} (their resolved rules are the same)" in output.splitlines()
    assert "nothing to compare" not in html and "No difference to draw" in html
    # a change every game meets (the two-player seat bonus): no such line, the chart is drawn
    b = tmp_path / "bonus.yaml"
    b.write_text(f'extends: {V11}\nvariant: bonus\nseat_bonus: {{"2": [0, 5]}}\n', encoding="utf-8")
    output, html = _compare(tmp_path, b, "bonus")
    assert SAME not in output and "No difference to draw" not in html and "<svg" in html
