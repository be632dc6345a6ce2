"""``balancer show`` and :func:`balancer.api.show` (issue 31, point 2): a shipped variant read without a
checkout, key by key (value, comment, rulebook section, assumed note), and what a variant changes
against another. Expected values are read off the shipped YAML files by hand (configs/<game>/)."""

from __future__ import annotations

import json
import textwrap

import pytest
import yaml
from typer.testing import CliRunner

from balancer import api
from balancer.cli import app
from balancer.config import ConfigError, load_config
from balancer.config_show import NOT_SET, _labelled, _wrap, file_comments, section_of

runner = CliRunner()

KNOWN = [
    # configs/citywright/v1.1.yaml: `residential:  # §6.1` above `largest_points: 5  # largest cluster: +5 ...`;
    # the key has no § of its own, so it is in its mapping's section
    ("citywright/v1.1", "scoring.residential.largest_points", 5, "§6.1", "largest cluster: +5 ..."),
    # configs/agueda/v1.yaml: `empty_space: -1  # Final Scoring 3: -1 per empty space`
    ("agueda/v1", "scoring.empty_space", -1, "Final Scoring 3", "Final Scoring 3: -1 per empty space"),
    # configs/urgency/standard.yaml: `tokens: 7  # Setup: 7 tokens each`
    ("urgency/standard", "tokens", 7, "Setup", "Setup: 7 tokens each"),
    # configs/urban_sketchers/base.yaml: `funding:  # Actions: Funding` above `money: 4  # 4 money from the bank`
    ("urban_sketchers/base", "funding.money", 4, "Actions: Funding", "4 money from the bank"),
]


@pytest.mark.parametrize(("config", "key", "value", "section", "comment"), KNOWN)
def test_show_lists_a_known_key_with_its_value_section_and_comment(config, key, value, section, comment):
    view = api.show(config)
    entry = next(e for e in view.entries if e.key == key)
    assert (entry.value, entry.section, entry.comment) == (value, section, comment)
    assert entry.source == config and not entry.default
    # the text view prints the key (nested: its last part), the value, and the comment beneath
    result = runner.invoke(app, ["show", config])
    assert result.exit_code == 0, result.output
    last = key.rsplit(".", 1)[-1]
    assert f"{last}: {value}" in result.stdout and f"# {comment}" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 100


def test_assumed_notes_are_shown_where_they_are_declared():
    view = api.show("citywright/v1.1")
    # v1.1.yaml: "3": {rounds: 4, turns: 3, assumed: "the rulebook's round table for 3 players is missing; ..."}
    rounds = next(e for e in view.entries if e.path == ("rounds", "3"))
    assert rounds.group and rounds.assumed.startswith("the rulebook's round table for 3 players is missing")
    # its keys do not repeat the note; the section §4.1 comes from `rounds:  # §4.1 everyone takes 12 turns`
    turns = next(e for e in view.entries if e.path == ("rounds", "3", "turns"))
    assert (turns.value, turns.assumed, turns.section) == (3, "", "§4.1")
    text = view.text()
    assert "assumed: the rulebook's round table for 3 players is missing" in text
    # a small mapping whose keys have no comments is one line: the round plan, a ruler shape
    assert "\n  '3': {rounds: 4, turns: 3}\n" in text and "\n    I: {rows: ['####'], copies: 7}\n" in text
    # a list item's `assumed: true` with a `why:` (configs/urgency/decks.yaml, the Crown card): the why
    cards = api.show("urgency/standard")
    crown = next(e for e in cards.entries if e.key == "decks.rosette.cards[1]")
    assert crown.value == {"name": "Crown", "trigger": {"when": "score"}, "effect": {"do": "roll_again"}}
    assert crown.assumed == "the plainest scoring benefit: keep the tempo"


def _two_key_variant(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(
        "extends: citywright/v1.1\nvariant: mine\n"
        "scoring:\n  residential: {largest_points: 6}\n  park:\n    per_row: 3   # one more per row\n"
    )
    return path


def test_diff_lists_exactly_the_two_keys_a_variant_changes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _two_key_variant(tmp_path)
    view = api.show("two.yaml", diff="citywright/v1.1")
    # v1.1: largest_points 5, per_row 2; the variant's name (mine against v1.1) is not a rule change
    assert [(d.key, d.old, d.new) for d in view.differences] == [
        ("scoring.residential.largest_points", 5, 6),
        ("scoring.park.per_row", 2, 3),
    ]
    park = view.differences[1]
    assert (park.section, park.comment) == ("§6.3", "one more per row")
    # a key set without a comment shows the comment of the file it extends, saying whose it is
    assert view.differences[0].comment == "(in citywright/v1.1) largest cluster: +5 ..."
    result = runner.invoke(app, ["show", "two.yaml", "--diff", "citywright/v1.1"])
    assert result.exit_code == 0
    assert "scoring.residential.largest_points: 5 -> 6  [§6.1]" in result.stdout
    assert "scoring.park.per_row: 2 -> 3  [§6.3]" in result.stdout
    assert "2 keys differ" in result.stdout
    data = json.loads(runner.invoke(app, ["show", "two.yaml", "--diff", "citywright/v1.1", "-f", "json"]).stdout)
    assert [(d["key"], d["old"], d["new"]) for d in data["differences"]] == [
        ("scoring.residential.largest_points", 5, 6),
        ("scoring.park.per_row", 2, 3),
    ]


def test_diff_of_v10_against_v11_lists_the_appendix_changes():
    # configs/citywright/v1.0.yaml against v1.1.yaml, by hand: players [1,2,3,4] -> [2,3,4];
    # rounds "2": rounds 3 -> 4 (turns stay 4); residential largest_points 5 -> 2, largest_per_tiles
    # 2 -> 1; seat_bonus "1" stays [0], "2" [0,1] -> [0,0], "3" [2,2,0] -> [0,0,0], "4" [2,2,1,0] -> [0,0,0,0];
    # two_player.reduced_deck true -> false: 8 keys
    view = api.show("citywright/v1.0", diff="citywright/v1.1")
    assert {d.key: (d.old, d.new) for d in view.differences} == {
        "players": ([1, 2, 3, 4], [2, 3, 4]),
        "rounds.2.rounds": (3, 4),
        "scoring.residential.largest_points": (5, 2),
        "scoring.residential.largest_per_tiles": (2, 1),
        "seat_bonus.2": ([0, 1], [0, 0]),
        "seat_bonus.3": ([2, 2, 0], [0, 0, 0]),
        "seat_bonus.4": ([2, 2, 1, 0], [0, 0, 0, 0]),
        "two_player.reduced_deck": (True, False),
    }
    # rounds.2.rounds has no comment of its own: its mapping's, led by the mapping's key
    rounds = next(d for d in view.differences if d.key == "rounds.2.rounds")
    assert rounds.comment == "(rounds.2) appendix: two players played 4 rounds of 4 turns (16 turns)"


@pytest.mark.parametrize("config", ["citywright/v1.1", "agueda/v1", "urgency/standard", "urban_sketchers/base"])
def test_diff_of_a_variant_against_itself_says_no_differences(config):
    assert api.show(config, diff=config).differences == []
    result = runner.invoke(app, ["show", config, "--diff", config])
    assert result.exit_code == 0 and result.stdout.strip().endswith(": no differences")


def test_a_mapping_replaced_by_a_value_is_one_difference():
    # configs/urgency/no-cards.yaml sets `decks: null` where standard has the 7 decks: one line, not 49 cards
    view = api.show("urgency/no-cards", diff="urgency/standard")
    decks = [d for d in view.differences if d.key.startswith("decks")]
    assert [d.key for d in decks] == ["decks"] and decks[0].new is None and isinstance(decks[0].old, dict)
    assert all(d.old is not NOT_SET or d.new is not NOT_SET for d in view.differences)


def test_a_key_whose_default_is_null_is_listed_too():
    # configs/agueda/v1.yaml sets agents.mcts without `deeper` (MCTSParams.deeper defaults to null): it is a
    # key a designer can set, so show lists it as a default, and the text says null
    view = api.show("agueda/v1")
    entry = next(e for e in view.entries if e.key == "agents.mcts.deeper")
    assert entry.value is None and entry.default
    result = runner.invoke(app, ["show", "agueda/v1"])
    assert result.exit_code == 0 and "    deeper: null (default)" in result.stdout
    # Urban Sketchers sets it: its own value, not a default
    view = api.show("urban_sketchers/base")
    assert [e.default for e in view.entries if e.key == "agents.mcts.deeper.depth"] == [False]


@pytest.mark.parametrize("config", ["citywright/v1.1", "citywright/v1.0", "agueda/v1", "urgency/standard", "urban_sketchers/base"])  # fmt: skip
def test_yaml_output_is_a_variant_that_loads_as_the_same_config(config, tmp_path):
    result = runner.invoke(app, ["show", config, "--format", "yaml"])
    assert result.exit_code == 0
    path = tmp_path / "mine.yaml"
    path.write_text(result.stdout)
    assert "extends" not in yaml.safe_load(result.stdout)  # the whole variant, no checkout needed
    assert load_config(path).model_dump() == load_config(config).model_dump()
    assert "  # §" in result.stdout or "  # Setup" in result.stdout or "  # Set Up" in result.stdout  # comments kept
    # edited, it validates as a variant of its own
    path.write_text(result.stdout.replace(f"variant: {load_config(config).variant}\n", "variant: mine\n", 1))
    assert load_config(path).variant == "mine"


def test_diff_yaml_is_a_variant_extending_the_other(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _two_key_variant(tmp_path)
    out = runner.invoke(app, ["show", "two.yaml", "--diff", "citywright/v1.1", "--format", "yaml"]).stdout
    data = yaml.safe_load(out)
    assert data == {
        "extends": "citywright/v1.1",
        "game": "citywright",
        "variant": "mine",
        "scoring": {"residential": {"largest_points": 6}, "park": {"per_row": 3}},
    }
    (tmp_path / "again.yaml").write_text(out)
    assert load_config(tmp_path / "again.yaml").model_dump() == load_config("two.yaml").model_dump()


@pytest.mark.parametrize(
    ("config", "other"),
    [
        ("citywright/v1.0", "citywright/v1.1"),
        ("agueda/rows-5", "agueda/v1"),
        ("urgency/no-cards", "urgency/standard"),  # drops two assumed notes: written as `assumed: null`
        ("urban_sketchers/rollout-light", "urban_sketchers/base"),
    ],
)
def test_diff_yaml_of_shipped_variants_loads_as_the_variant(config, other, tmp_path):
    out = runner.invoke(app, ["show", config, "--diff", other, "--format", "yaml"]).stdout
    assert yaml.safe_load(out)["extends"] == other
    (tmp_path / "d.yaml").write_text(out)
    assert load_config(tmp_path / "d.yaml").model_dump() == load_config(config).model_dump()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["citywright/v9"], "citywright/v9: file not found"),
        (["nope.yaml"], "nope.yaml: file not found"),
        (["bad.yaml"], "bad.yaml:2:1: YAML syntax error"),
        (["citywright/ladder"], "a study file"),
        # configs/citywright/sweep-seat-bonus.yaml: `base: v1.1.yaml`; configs/urgency/standard.yaml extends decks.yaml
        (
            ["citywright/sweep-seat-bonus"],
            "a sweep file, not a rule variant; its base variant: balancer show citywright/v1.1",
        ),
        (
            ["urgency/decks"],
            "a fragment (no game:), not a rule variant; a variant extending it: balancer show urgency/standard",
        ),
        (["citywright/v1.1", "--diff", "citywright/tune-seat-bonus"], "citywright/tune-seat-bonus: a tune file"),
        (["citywright/v1.1", "--diff", "citywright/nope"], "citywright/nope: file not found"),
        (["citywright/v1.1", "--diff", "agueda/v1"], "agueda/v1: a variant of agueda, and citywright/v1.1 one of"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("game: citywright\n: [\n")
    result = runner.invoke(app, ["show", *args])
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]  # nothing written


def test_the_library_raises_config_error_for_a_missing_file():
    with pytest.raises(ConfigError, match="citywright/v9: file not found"):
        api.show("citywright/v9")


def test_comments_are_read_from_the_yaml_tokens():
    text = textwrap.dedent(
        """\
        # the file's opening comment belongs to no key
        game: x
        name: "a # not a comment"   # the name
        block:                      # §3 a block
          # opening the block
          first: 1                  # one, continued
                                    # on the next line
          # a note above the second key
          second: [1, 2]
          assumed: "why"            # a note's comment is its mapping's
        """
    )
    assert file_comments(text) == {
        ("name",): "the name",
        # comments from three places (the key's line, the block opening the mapping, the note's line):
        # three paragraphs
        ("block",): "§3 a block\nopening the block\na note's comment is its mapping's",
        ("block", "first"): "one, continued on the next line",
        ("block", "second"): "a note above the second key",
    }


@pytest.mark.parametrize(
    ("comment", "section"),
    [
        ("§3.4 4 tiles of each district in the draw bag, remixed every round (§4.2)", "§3.4, §4.2"),
        ("Setup: 7 tokens each", "Setup"),
        ("Set Up 7: 2, 3 or 4 players", "Set Up 7"),
        ("Setup step 4, Pick Umbrellas", "Setup step 4, Pick Umbrellas"),
        ("Actions: Travel", "Actions: Travel"),
        ("Ibex cards alter die rolls", ""),  # a sentence, not a heading
        ("a turn that finds every slot empty is lost", ""),
    ],
)
def test_section_of_a_comment(comment, section):
    assert section_of(comment) == section


def test_init_points_at_show_not_at_a_file():
    from balancer.starter import _variant_text

    text = _variant_text("citywright", "citywright/v1.1", "Citywright")
    assert "Run `balancer show citywright/v1.1` to see every key" in text
    assert "copy a key of that file" not in text.lower()


def test_a_comment_table_keeps_its_rows_and_the_prose_flows():
    """A comment laid out by hand (rows with two or more spaces after the #) keeps each row on a line of
    its own with its spaces; prose lines around it are joined and wrapped as before."""
    text = textwrap.dedent(
        """\
        agents:
          mcts:
            iterations: 32
            # Tried on 4 Dec, one
            # sentence over two lines:
            #                 2p      4p
            #   depth 2      54.0%   26.4%
            #   depth 4      58.8%   31.0%
            # Depth 4 is kept.
            depth: 4
        """
    )
    comment = file_comments(text)[("agents", "mcts", "depth")]
    assert comment.split("\n") == [
        "Tried on 4 Dec, one sentence over two lines:",
        "                2p      4p",
        "  depth 2      54.0%   26.4%",
        "  depth 4      58.8%   31.0%",
        "Depth 4 is kept.",
    ]

    # every line after the first goes under the text, past the label (4 + 2 columns); the rows keep their
    # spaces, so "2p" stays 14 columns right of "depth" as in the file; a row too long for the width goes
    # on further in
    assert _wrap(comment, "    ", 60, "# ") == [
        "    # Tried on 4 Dec, one sentence over two lines:",
        " " * 20 + "2p      4p",
        "      depth 2      54.0%   26.4%",
        "      depth 4      58.8%   31.0%",
        "      Depth 4 is kept.",
    ]
    assert _wrap("  a row   " + "x" * 30 + "   " + "y" * 30, "", 50) == ["a row   " + "x" * 30, "    " + "y" * 30]


def test_a_wide_table_row_breaks_between_its_cells():
    # cells are text apart by two spaces or more; "26.4% (22.3 to 30.9)" is one cell and stays whole
    row = "  depth 2, 40      54.0% (49.1 to 58.8)  57.5% (52.6 to 62.3)  26.4% (22.3 to 30.9)"
    assert _wrap(row, "", 60) == [
        "depth 2, 40      54.0% (49.1 to 58.8)  57.5% (52.6 to 62.3)",
        "    26.4% (22.3 to 30.9)",
    ]
    # a single cell longer than a line is wrapped between its words, every line within the width
    long_cell = "  " + " ".join(["word"] * 30)
    assert all(len(line) <= 40 for line in _wrap(long_cell, "", 40))


def test_yaml_output_keeps_a_comment_table_as_comments_and_reads_back_the_same(tmp_path):
    """A table in the comment ending a key's line (continued below at the same column) is written
    above the key as comment lines, spaces kept, so the file loads and gives the same comment."""
    variant = tmp_path / "table.yaml"
    variant.write_text(
        "extends: agueda/v1\nvariant: table\ncoins:\n  start: 4   #   col a   col b\n             #   1       2\n",
        encoding="utf-8",
    )
    comment = file_comments(variant.read_text(encoding="utf-8"))[("coins", "start")]
    assert comment == "  col a   col b\n  1       2"
    result = runner.invoke(app, ["show", str(variant), "--format", "yaml"])
    assert result.exit_code == 0, result.output
    assert "\n  #   col a   col b\n  #   1       2\n  start: 4\n" in result.stdout
    saved = tmp_path / "saved.yaml"
    saved.write_text(result.stdout.replace("variant: table", "variant: saved"), encoding="utf-8")
    assert load_config(saved).coins.start == 4  # type: ignore[attr-defined]
    assert file_comments(saved.read_text(encoding="utf-8"))[("coins", "start")] == comment


def test_saved_yaml_keeps_each_comment_with_its_key_and_its_paragraphs(tmp_path):
    """Written above their keys, a table on a mapping's first key stays that key's (a blank line
    parts it from the mapping's key) and two paragraphs stay two (an empty comment line between)."""
    variant = tmp_path / "mine.yaml"
    variant.write_text(
        "extends: agueda/v1\n"
        "variant: mine\n"
        "coins:\n"
        "  bank: 20   #   size   note\n"
        "             #   20     bank\n"
        "  # above start\n"
        "  start: 4  # on start's line\n",
        encoding="utf-8",
    )
    before = file_comments(variant.read_text(encoding="utf-8"))
    assert before[("coins", "bank")] == "  size   note\n  20     bank"
    assert before[("coins", "start")] == "above start\non start's line"
    result = runner.invoke(app, ["show", str(variant), "--format", "yaml"])
    assert result.exit_code == 0, result.output
    saved = tmp_path / "saved.yaml"
    saved.write_text(result.stdout.replace("variant: mine", "variant: saved"), encoding="utf-8")
    after = file_comments(saved.read_text(encoding="utf-8"))
    assert after[("coins", "bank")] == before[("coins", "bank")]
    assert after[("coins", "start")] == before[("coins", "start")]


def test_rows_lose_only_their_common_indent_and_a_label_stands_apart():
    # rows written "#  a  b" / "#   c  d" keep one column between them: the common indent (1) goes
    comment = file_comments("x:\n  k: 1\n  #  col1  col2\n  #   x     y\n  j: 2\n")[("x", "j")]
    assert comment == " col1  col2\n  x     y"
    assert _wrap(comment, "", 100, "# ") == ["# col1  col2", "   x     y"]
    entry = type("E", (), {"comment": comment, "comment_from": "a.yaml", "source": "b.yaml"})()
    assert _labelled(entry).split("\n") == ["(in a.yaml)", " col1  col2", "  x     y"]  # type: ignore[arg-type]
