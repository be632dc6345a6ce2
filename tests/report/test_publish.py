"""--figures / --tables: every figure and table of a page as files (balancer.report.publish), one
implementation for every command."""

from __future__ import annotations

import csv
import re

from balancer.report.figures import new_figure, svg_string
from balancer.report.publish import collecting, page_tables, publish, slug


def _page(svg: str) -> str:
    return f"""<html><head><title>Game: v1 → v2</title></head><body>
<header><ul class="facts"><li><span>players</span><b>2</b></li><li><span>games</span><b>200</b></li></ul>
<dl><dt>agents</dt><dd>2 × greedy</dd><dt>seed</dt><dd>7 (game i is seeded from i)</dd></dl></header>
<h2>Seat win rates</h2>
<figure>{svg}<figcaption>Share of games won from each seat.</figcaption></figure>
<table><caption>Seat win rates (%): from → to</caption>
<thead><tr><th></th><th>from → to</th><th>difference</th></tr></thead>
<tbody><tr><td>seat 1</td><td>137.65 → 136.90</td><td>−0.75</td></tr>
<tr><td>seat 2</td><td>1 → 2</td><td>+1</td></tr></tbody></table>
<h2>Score</h2><table><caption>Points per player: from → to</caption><tr><td>total</td><td>3</td></tr></table>
</body></html>"""


def test_slug_says_what_a_title_shows():
    assert slug("Seat win rates (%)") == "seat-win-rates"
    assert slug("Change v1.0 → v1.1: seats") == "change-v1.0-v1.1-seats"
    assert slug("") == "figure"


def test_a_long_name_ends_at_a_whole_clause():
    # 64 characters in all: cut at 60 the name read '...-it-reached-95' (the 95 of '95% intervals');
    # it ends at the comma instead. A name that fits keeps every clause; one without a comma is cut at a word.
    assert slug("Search trajectory: each trial at the rung it reached, 95% intervals") == (
        "search-trajectory-each-trial-at-the-rung-it-reached"
    )
    assert slug("Mean score by seat with the seat bonus subtracted, with 95% t intervals") == (
        "mean-score-by-seat-with-the-seat-bonus-subtracted"
    )
    assert slug("Seats, by rate") == "seats-by-rate"
    assert slug("one two three four five six seven eight nine ten eleven twelve") == (
        "one-two-three-four-five-six-seven-eight-nine-ten-eleven"
    )


def test_publish_names_files_after_what_they_show_with_captions(tmp_path):
    """A figure drawn while the page is rendered is collected by svg_string; it is written as SVG,
    PNG and PDF named after its title, its caption (title, figcaption, the page's title and facts:
    games, agents, seed) in captions.md and in each file's metadata; each table of the page becomes
    one CSV named after its caption, cells as the page shows them (a table read back equals it)."""
    with collecting() as figs:
        fig = new_figure((4, 3))
        fig.add_subplot().set_title("Seat win rates of both variants")
        html = _page(svg_string(fig))
    out = publish(html, figs, tmp_path / "f", tmp_path / "t")
    names = sorted(p.name for p in out.figures)
    assert names == [f"seat-win-rates-of-both-variants.{x}" for x in ("pdf", "png", "svg")]
    caption = (
        "Seat win rates of both variants. Share of games won from each seat. Game: v1 → v2. "
        "players: 2; games: 200; agents: 2 × greedy; seed: 7."
    )
    assert f"- `seat-win-rates-of-both-variants.svg` (`.png`, `.pdf`): {caption}" in (
        tmp_path / "f" / "captions.md"
    ).read_text(encoding="utf-8")
    assert (
        "games: 200; agents: 2 × greedy; seed: 7"
        in (tmp_path / "f" / "seat-win-rates-of-both-variants.svg").read_text()
    )
    pdf = (tmp_path / "f" / "seat-win-rates-of-both-variants.pdf").read_bytes()
    assert b"/Title (Seat win rates of both variants)" in pdf and b"/Subject" in pdf
    assert sorted(p.name for p in out.tables) == ["points-per-player.csv", "seat-win-rates.csv"]
    with open(tmp_path / "t" / "seat-win-rates.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [["", "from → to", "difference"], ["seat 1", "137.65 → 136.90", "−0.75"], ["seat 2", "1 → 2", "+1"]]
    assert "`seat-win-rates.csv`: Seat win rates (%): from → to." in (tmp_path / "t" / "captions.md").read_text()


def test_outside_collecting_nothing_is_kept():
    fig = new_figure((2, 2))
    with collecting() as figs:
        pass
    svg_string(fig)
    assert figs == []


def test_report_command_writes_every_table_of_its_page(tmp_path, monkeypatch):
    """``balancer report RUN --figures F --tables T``: one CSV per table of the page (counted in its
    HTML), every figure of the page as three files, names that are words, not numbers."""
    from tests.test_cli_refusals import invoke  # the CLI runner of the command-line tests

    monkeypatch.chdir(tmp_path)
    run = invoke("run", "citywright/v1.1", "-p", "2", "-n", "6", "-j", "1", "-q", "-o", "r")
    assert run.exit_code == 0, run.output
    result = invoke("report", "r", "-o", "r.html", "--figures", "f", "--tables", "t")
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    tables = page_tables(html).tables
    csvs = sorted(p.name for p in (tmp_path / "t").glob("*.csv"))
    assert len(csvs) == len(tables) >= 3
    svgs = sorted(p.stem for p in (tmp_path / "f").glob("*.svg"))
    assert len(svgs) == len(re.findall(r"<svg\b", html)) and all(not re.search(r"\d+$", s) for s in svgs)
    assert sorted(p.stem for p in (tmp_path / "f").glob("*.pdf")) == svgs


def test_report_refuses_to_publish_into_the_run_s_own_folder(tmp_path, monkeypatch):
    """``report RUN --figures RUN`` wrote the page's figures among the run's results (exit 0; the new-user
    try of issue 50): one line, exit 2, nothing written there."""
    from tests.test_cli_refusals import invoke

    monkeypatch.chdir(tmp_path)
    assert invoke("run", "citywright/v1.1", "-p", "2", "-n", "4", "-j", "1", "-q", "-o", "r").exit_code == 0
    before = sorted(p.name for p in (tmp_path / "r").iterdir())
    for option in ("--figures", "--tables"):
        result = invoke("report", "r", "-o", "r.html", option, "r")
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and "the run's own results folder" in lines[0], result.output
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == before and not (tmp_path / "r.html").exists()


def test_history_command_writes_its_tables(tmp_path):
    """``balancer history H --tables T``: every table of the history page as CSV (its figures keep the
    history page's own --figures files)."""
    import datetime

    from balancer.history.store import append_event
    from tests.test_cli_refusals import invoke

    path = tmp_path / "h.duckdb"
    for e in (1, 2):
        row = {
            "event_kind": "check", "recorded_at": datetime.datetime(2026, 12, e, tzinfo=datetime.UTC), "study": "s",
            "game": "g", "run": "r", "variant": "v", "number": "n000", "kind": "metric", "test": "baseline",
            "estimate": float(e), "games": 100, "verdict": "pass", "commit_sha": f"{e}abc{e}" * 5,
        }  # fmt: skip
        append_event(path, "s", "g", [row])
    result = invoke("history", path, "-o", tmp_path / "p.html", "--tables", tmp_path / "t")
    assert result.exit_code == 0, result.output
    tables = page_tables((tmp_path / "p.html").read_text(encoding="utf-8")).tables
    assert len(list((tmp_path / "t").glob("*.csv"))) == len(tables) >= 1
    assert (tmp_path / "t" / "captions.md").is_file()
    # the drift table breaks a number's name after its slashes (it broke as 'mirror-' over
    # '3p/v1.1/wasted_tiles_per_player') and keeps 'sha (#1)' on one line; its CSV holds the plain name
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert "<td>r/<wbr>v/<wbr>n000</td>" in html and '<td class="text nw">' in html
    with open(next((tmp_path / "t").glob("latest-point*.csv")), encoding="utf-8", newline="") as f:
        assert list(csv.reader(f))[1][0] == "r/v/n000"


def test_study_figures_and_tables_are_named_after_what_they_show(tmp_path, monkeypatch):
    """``balancer study --figures --tables``: files named after the figures' titles (was
    ``tiny-2-mirror-2p``), captions with the study's game, seed and each run's players, agents and
    games; a figure's two tables named apart (its values, its changes)."""
    from tests.test_cli_refusals import invoke

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.yaml").write_text(
        "study: tiny\ntitle: A tiny study\ngame: citywright\nseed: 5\n"
        "variants: {v1.0: citywright/v1.0, v1.1: citywright/v1.1}\n"
        "runs:\n  mirror-2p: {players: 2, agents: [greedy], games: 8}\n"
        "figures:\n  - {title: Seats, run: mirror-2p, show: seat_win_rate}\n",
        encoding="utf-8",
    )
    result = invoke(
        "study", "tiny.yaml", "-j", "1", "-q", "-o", "t.html", "--results", "r", "--figures", "f", "--tables", "t"
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "f").glob("*.svg")) == ["seats.svg"]
    assert {"seats.csv", "seats-changes-between-variants.csv"} <= {p.name for p in (tmp_path / "t").glob("*.csv")}
    caption = (tmp_path / "f" / "captions.md").read_text(encoding="utf-8")
    assert "Seats. A tiny study. game: citywright; seed: 5; mirror-2p: 2 players, agents greedy, 8 games." in caption


def test_a_users_captions_md_is_never_replaced(tmp_path):
    """A figures folder of a paper may hold the user's own captions.md: publish refuses it (one line
    naming it) before writing any file, and leaves it as it was; a captions.md balancer wrote (it begins
    '# Figures: ' / '# Tables: ', as publish writes it: see the test above) is replaced. Found by the
    hostile pass of issue 52 (h9): 'report r1 --figures figs' replaced figs/captions.md, exit 0."""
    import pytest

    from balancer.outdir import UnsafeOutputError

    with collecting() as figs:
        fig = new_figure((4, 3))
        fig.add_subplot().set_title("Seat win rates of both variants")
        html = _page(svg_string(fig))
    for folder in ("f", "t"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "captions.md").write_text("Figure 3: my own words\n", encoding="utf-8")
        args = (tmp_path / "f", None) if folder == "f" else (None, tmp_path / "t")
        with pytest.raises(UnsafeOutputError, match=r"captions\.md: exists and was not written by balancer"):
            publish(html, figs, *args)
        assert (tmp_path / folder / "captions.md").read_text(encoding="utf-8") == "Figure 3: my own words\n"
        assert sorted(p.name for p in (tmp_path / folder).iterdir()) == ["captions.md"]  # nothing else written
        (tmp_path / folder / "captions.md").unlink()
        publish(html, figs, *args)  # balancer's own list, written now ...
        publish(html, figs, *args)  # ... is replaced on the next page
        assert (tmp_path / folder / "captions.md").read_text(encoding="utf-8").startswith(("# Figures: ", "# Tables: "))


def test_a_table_is_named_after_its_subject_not_a_colon_in_its_brackets(tmp_path):
    """A study's table captioned 'Wasted tiles per player, two players (v1.0: 16 turns, v1.1: 12
    turns): by variant' was written as 'wasted-tiles-per-player-two-players-v1.0.csv': its subject was
    cut at the colon inside the brackets, so the file read as v1.0's alone. The subject ends at the
    first colon outside brackets, and the brackets' text is left out as in every name (slug)."""
    caption = "Wasted tiles per player, two players (v1.0: 16 turns, v1.1: 12 turns)"
    html = f"""<html><head><title>A study</title></head><body>
<table><caption>{caption}: by variant</caption><tr><td>v1.0</td><td>15.2</td></tr></table>
<table><caption>{caption}: changes between variants</caption><tr><td>v1.1</td><td>-8.5</td></tr></table>
</body></html>"""
    out = publish(html, [], None, tmp_path / "t")
    assert [p.name for p in out.tables] == [
        "wasted-tiles-per-player-two-players.csv",
        "wasted-tiles-per-player-two-players-changes-between-variants.csv",
    ]


def test_figures_and_tables_in_one_folder_keep_both_captions(tmp_path):
    """'report RUN --figures D --tables D' wrote the figures' captions.md, then the tables' over it:
    the figures' captions were lost, exit 0 (issue 50 retry). One folder gets one captions.md that
    lists the figures, then the tables."""
    with collecting() as figs:
        fig = new_figure((4, 3))
        fig.add_subplot().set_title("Seat win rates of both variants")
        html = _page(svg_string(fig))
    out = publish(html, figs, tmp_path / "d", tmp_path / "d")
    text = (tmp_path / "d" / "captions.md").read_text(encoding="utf-8")
    assert text.startswith("# Figures: ") and "\n# Tables: " in text
    assert "`seat-win-rates-of-both-variants.svg`" in text and "`seat-win-rates.csv`" in text
    assert out.captions == [tmp_path / "d" / "captions.md"]


def test_history_figures_and_tables_in_one_folder_keep_both_captions(tmp_path):
    """``history H --figures D --tables D``: the history page writes its own figure and captions.md,
    then the tables' captions.md replaced it (the figure's caption lost, exit 0; the same defect as
    a0c96c5 fixed for every other command). One captions.md: the figure, then the tables."""
    import datetime

    from balancer.history.store import append_event
    from tests.test_cli_refusals import invoke

    path = tmp_path / "h.duckdb"
    for e in (1, 2):
        row = {
            "event_kind": "check", "recorded_at": datetime.datetime(2026, 12, e, tzinfo=datetime.UTC), "study": "s",
            "game": "g", "run": "r", "variant": "v", "number": "n000", "kind": "metric", "test": "baseline",
            "estimate": float(e), "games": 100, "verdict": "pass", "commit_sha": f"{e}abc{e}" * 5,
        }  # fmt: skip
        append_event(path, "s", "g", [row])
    d = tmp_path / "d"
    result = invoke("history", path, "-o", tmp_path / "p.html", "--figures", d, "--tables", d)
    assert result.exit_code == 0, result.output
    text = (d / "captions.md").read_text(encoding="utf-8")
    assert text.startswith("# Figures: s history\n") and "`history-s.svg`" in text, text
    tables = text[text.index("\n# Tables: ") :]
    assert [line for line in tables.splitlines() if line.startswith("- `")] and all(
        (d / name).is_file() for name in re.findall(r"`([^`]+\.csv)`", tables)
    )
    # and alone, each folder keeps its own list as before
    result = invoke(
        "history", path, "-o", tmp_path / "p2.html", "--figures", tmp_path / "f", "--tables", tmp_path / "t"
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "f" / "captions.md").read_text(encoding="utf-8").startswith("# Figures: ")
    assert (tmp_path / "t" / "captions.md").read_text(encoding="utf-8").startswith("# Tables: ")


def test_an_interval_in_a_table_is_two_numbers_in_its_csv(tmp_path):
    """--tables wrote an interval as the page's text in one cell ('21.0 – 31.7', '26.3 (21.0 to 31.7)'),
    which a spreadsheet reads as text (issue 50 item 8: an interval written four ways). A column of
    'a to b' cells becomes '<heading> low' and '<heading> high'; a column of 'v (a to b)' cells keeps
    its value beside them; signs and thousands as a CSV reader reads numbers; '–' stays in the first
    column of its cell; a cell of several intervals is left as text. Expected rows written by hand."""
    html = """<html><head><title>T</title></head><body>
<table><caption>Seat win rates</caption>
<tr><th>seat</th><th>win rate (%)</th><th>95% CI</th><th>depth</th><th>numbers</th></tr>
<tr><td>1</td><td>26.3</td><td>21.0 to 31.7</td><td>1.25 (−1,021.50 to +2.00)</td><td>a 1.0 (0.5 to 1.5); b 2.0 (1.5 to 2.5)</td></tr>
<tr><td>2</td><td>–</td><td>–</td><td>–</td><td>–</td></tr>
</table></body></html>"""
    publish(html, [], None, tmp_path / "t")
    with open(tmp_path / "t" / "seat-win-rates.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [
        ["seat", "win rate (%)", "95% CI low", "95% CI high", "depth", "depth low", "depth high", "numbers"],
        ["1", "26.3", "21.0", "31.7", "1.25", "-1021.50", "+2.00", "a 1.0 (0.5 to 1.5); b 2.0 (1.5 to 2.5)"],
        ["2", "–", "–", "", "–", "", "", "–"],
    ]
    assert float(rows[1][5]) == -1021.5 and float(rows[1][6]) == 2.0


def test_every_page_writes_an_interval_one_way():
    """Issue 50 item 8: the pages wrote an interval as 'a – b' (run report, flow), 'a–b', '(a to b)'
    (study), '[a, b]' (ladder, tune), '[a–b]' (sweep, tune) and '(a-b)' (pairs). Every template now
    writes 'a to b' (in a column of intervals) or 'v (a to b)' (beside its value): no interval of two
    template values joined by a dash or a comma in brackets is left."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "balancer/report/templates"
    value = r"\{\{[^{}]*\}\}"
    for path in sorted(folder.glob("*.j2")):
        text = path.read_text(encoding="utf-8")
        assert not re.findall(rf"{value}\s?[–-]\s?{value}", text), path.name  # a – b, a–b, a-b
        assert not re.findall(rf"\[{value}, {value}\]", text), path.name  # [a, b]
    report = (folder / "report.html.j2").read_text(encoding="utf-8")
    assert "{{ r.ci_low | pct }} to {{ r.ci_high | pct }}" in report


def test_a_users_figure_or_table_of_the_same_name_is_never_replaced(tmp_path):
    """A figure or a table of the user's under a name the page's files take (one no captions.md of
    balancer's there lists) is refused, one error naming it, before any file of the page is written: the
    folder is left exactly as it was. The new user's try of the hardening pass: 'report ... --figures
    bad/myfigs' replaced their own seat-win-rates.png (and --tables their own CSV), exit 0. The page's
    names are known by construction: its figure is titled 'Seat win rates of both variants', its first
    table's caption is 'Seat win rates (%): ...' (see the first test of this file)."""
    import pytest

    from balancer.outdir import UnsafeOutputError

    with collecting() as figs:
        fig = new_figure((4, 3))
        fig.add_subplot().set_title("Seat win rates of both variants")
        html = _page(svg_string(fig))
    for folder, name in (("f", "seat-win-rates-of-both-variants.png"), ("t", "seat-win-rates.csv")):
        base = tmp_path / folder
        (base / folder).mkdir(parents=True)
        (base / folder / name).write_bytes(b"mine")
        (base / folder / "other.png").write_bytes(b"also mine")  # a name the page does not take: no matter
        with pytest.raises(UnsafeOutputError, match=rf"{re.escape(name)}: exists and was not written by balancer"):
            publish(html, figs, base / "f", base / "t")  # both folders: refused before either is written
        assert (base / folder / name).read_bytes() == b"mine"
        assert sorted(p.name for p in base.rglob("*")) == sorted([folder, name, "other.png"])  # nothing else
        (base / folder / name).unlink()
        publish(html, figs, base / "f", base / "t")  # balancer's own files, listed in its captions.md ...
        publish(html, figs, base / "f", base / "t")  # ... are replaced on the next page
        assert (base / folder / "other.png").read_bytes() == b"also mine"


def test_report_figures_refuses_a_users_png_and_writes_again_into_its_own_folder(tmp_path, monkeypatch):
    """The command line of the new user's try: 'report RUN -o r5.html --figures myfigs' with their own
    seat-win-rates.png there: one line naming it, exit 2, the PNG and the folder untouched and no page
    written; the same command run twice into a folder of balancer's own works (its captions.md lists
    the files it replaces). The name is the one the run page's seat figure takes (the first run below)."""
    from tests.test_cli_refusals import invoke

    monkeypatch.chdir(tmp_path)
    assert invoke("run", "citywright/v1.1", "-p", "2", "-n", "4", "-j", "1", "-q", "-o", "r").exit_code == 0
    first = invoke("report", "r", "-o", "ours.html", "--figures", "ours", "--tables", "ours")
    assert first.exit_code == 0, first.output
    again = invoke("report", "r", "-o", "ours.html", "--figures", "ours", "--tables", "ours")
    assert again.exit_code == 0, again.output  # a second report into the same folder: balancer's own files
    png = sorted(p.name for p in (tmp_path / "ours").glob("*.png"))[0]
    csv_name = sorted(p.name for p in (tmp_path / "ours").glob("*.csv"))[0]
    for option, name in (("--figures", png), ("--tables", csv_name)):
        mine = tmp_path / f"mine{option}"
        mine.mkdir()
        (mine / name).write_bytes(b"my own")
        result = invoke("report", "r", "-o", "r5.html", option, str(mine))
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1, result.output
        assert name in lines[0] and "not written by balancer" in lines[0], result.output
        assert (mine / name).read_bytes() == b"my own" and sorted(p.name for p in mine.iterdir()) == [name]
        assert not (tmp_path / "r5.html").exists()  # the page it wrote first is taken back


def test_a_long_subjects_changes_table_keeps_its_figures_name(tmp_path):
    """Águeda's study figure 'Coins gained per player, four players' was written as
    coins-gained-per-player-four-players.svg and .csv, but its changes table as
    coins-gained-per-player.csv: the whole caption, '...: changes between variants', was cut at 60
    characters back to its last whole clause. A figure and its tables share its name: the changes
    table is the figure's name and the words after the caption's colon (issue 50)."""
    title = "Coins gained per player, four players"
    with collecting() as figs:
        fig = new_figure((4, 3))
        fig.add_subplot().set_title(title)
        svg = svg_string(fig)
    html = f"""<html><head><title>A study</title></head><body><h2>1. {title}</h2><div>{svg}</div>
<table><caption>{title}: by variant</caption><tr><td>v1.0</td><td>15.2</td></tr></table>
<table><caption>{title}: changes between variants</caption><tr><td>v1.1</td><td>-8.5</td></tr></table>
</body></html>"""
    out = publish(html, figs, tmp_path / "f", tmp_path / "t")
    stem = "coins-gained-per-player-four-players"  # slug of the title: lower case words joined by '-'
    assert sorted(p.name for p in out.figures) == [f"{stem}.{ext}" for ext in ("pdf", "png", "svg")]
    assert [p.name for p in out.tables] == [f"{stem}.csv", f"{stem}-changes-between-variants.csv"]


def test_a_titled_panel_over_an_untitled_one_is_named_after_its_title(tmp_path):
    """Tried as a new user would (issue 49): compare's leader-wins figure (a titled curve over an untitled
    B - A panel) was named '<heading>: <title>' cut at 60 characters, 'how-the-game-feels-games-won-by-the-
    seat-leading-at-each'; panels that each have a title (Margin; Length) still take the heading."""
    with collecting() as figs:
        fig = new_figure((4, 3))
        top, _ = fig.subplots(2, 1)
        top.set_title("Games won by the seat leading at each checkpoint")
        two = new_figure((4, 3))
        for ax, title in zip(two.subplots(1, 2), ("Margin", "Length")):
            ax.set_title(title)
        html = _page(svg_string(fig) + svg_string(two)).replace(
            "<h2>Seat win rates</h2>", "<h2>How the game feels</h2>"
        )
    out = publish(html, figs, tmp_path / "f", None)
    assert sorted(p.stem for p in out.figures if p.suffix == ".svg") == [
        "games-won-by-the-seat-leading-at-each-checkpoint",
        "how-the-game-feels-margin-length",
    ]
