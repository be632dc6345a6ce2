"""A history page does not sound surer than its checks (issue 50, a designer's second hour): a check that
passed underpowered (it could not detect a change of its tolerance) is no evidence of "no drift", so the
page's "In short", its drift rows and ``balancer history``'s terminal say how many checks were
underpowered and name the numbers, instead of "No number drifted ... unnoticed"."""

from __future__ import annotations

from datetime import UTC, datetime

from typer.testing import CliRunner

from balancer.cli import app
from balancer.history.store import append_event

UNQUALIFIED = "No number drifted beyond its tolerance since the baseline unnoticed"


def _row(kind: str, number: str, estimate: float, powered: bool | None) -> dict:
    # a win rate of 50 games (variance 0.25): its 95% interval is about +/-14 points, a tolerance of 2
    # points cannot be detected (check's 'powered' false), as in the user's 16-26 points against 2
    return {
        "event_kind": kind,
        "recorded_at": datetime(2026, 12, 7, tzinfo=UTC),
        "study": "s",
        "game": "g",
        "run": "r",
        "variant": "v",
        "number": number,
        "kind": "win_rate",
        "test": "baseline" if kind == "check" else "saved",
        "estimate": estimate,
        "variance": 0.25,
        "games": 50,
        "seed": 1 if kind == "baseline" else 2,
        "tolerance": 0.02,
        "detectable": 0.2 if powered is False else None,
        "powered": powered,
        "verdict": "pass" if kind == "check" else "baseline",
    }


def _history(path, powered_second: bool) -> None:
    # two numbers: a baseline, then one check each; the first number's check is underpowered, the
    # second's is underpowered only when powered_second is False
    append_event(path, "s", "g", [_row("baseline", "a", 0.5, None), _row("baseline", "b", 0.5, None)])
    append_event(path, "s", "g", [_row("check", "a", 0.51, False), _row("check", "b", 0.5, powered_second)])


def test_an_underpowered_pass_is_not_called_no_drift(tmp_path):
    hist, page = tmp_path / "h.duckdb", tmp_path / "h.html"
    _history(hist, powered_second=True)
    result = CliRunner().invoke(app, ["history", str(hist), "-o", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    # one of the two checks (a's) was underpowered: a is named, "no drift" is said only of b
    said = "1 of 2 checks since the baseline were underpowered (each could not detect a drift of its tolerance)"
    assert said in html and said in result.output
    assert "no drift is claimed for 1 of 2 numbers: r/v/a;" in html
    assert UNQUALIFIED not in html and UNQUALIFIED not in result.output
    assert "The other 1 of 2 numbers did not drift beyond their tolerance unnoticed." in result.output
    # the row of a says its one check was underpowered; b's says a plain yes
    assert html.count("yes, 1 of 1 underpowered") == 1 and html.count(">yes</td>") == 1


def test_all_underpowered_and_all_powered(tmp_path):
    hist, page = tmp_path / "h.duckdb", tmp_path / "h.html"
    _history(hist, powered_second=False)
    result = CliRunner().invoke(app, ["history", str(hist), "-o", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert "2 of 2 checks since the baseline were underpowered" in html and "r/v/a, r/v/b;" in html
    assert "The other" not in html and UNQUALIFIED not in html
    # every check powered: the claim stands, unqualified, on the page and in the terminal
    hist2, page2 = tmp_path / "h2.duckdb", tmp_path / "h2.html"
    append_event(hist2, "s", "g", [_row("baseline", "a", 0.5, None)])
    append_event(hist2, "s", "g", [_row("check", "a", 0.5, True)])
    result = CliRunner().invoke(app, ["history", str(hist2), "-o", str(page2)])
    assert result.exit_code == 0, result.output
    assert f"{UNQUALIFIED} (1 numbers)." in page2.read_text(encoding="utf-8")
    assert result.output.splitlines()[0] == f"{UNQUALIFIED} (1 numbers)."
