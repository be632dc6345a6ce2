"""Every problem of a file in one pass (issue 31, point 3): a variant's unknown keys and its rule
checks together, a study's schema, missing variant files, variant configs and agents together,
each line in the file's own words (``runs.<run>.agents[0]``, not ``--agents``), with the key or agent
it is a likely typo of. No game is played: the studies below name no metric in a figure."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from balancer.cli import app
from balancer.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"

STUDY = f"""\
study: tiny
title: Tiny
game: citywright
seed: 5
variants:
  v1.1: {V11}
runs:
  mirror-4p: {{players: 4, agents: [greedy], games: 20}}
figures:
  - {{title: Seats, run: mirror-4p, show: seat_win_rate}}
"""


def validate(path: Path) -> tuple[int, list[str]]:
    """Exit code and the lines of ``balancer validate PATH`` (stdout and stderr)."""
    result = CliRunner().invoke(app, ["validate", str(path)])
    return result.exit_code, result.output.splitlines()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_variant_reports_two_key_typos_and_a_wrong_length_seat_bonus_at_once(tmp_path):
    # two misspelt keys (unknown keys: pydantic never runs the variant's own checks then) and a
    # 3-player seat bonus of 2 values (the rule check: one value per seat): three lines, one run
    path = write(
        tmp_path,
        "v.yaml",
        f'extends: {V11}\nvariant: typo\ntabel: {{size: 7}}\nsolo: {{rival_aprentice: true}}\nseat_bonus: {{"3": [2, 2]}}\n',
    )
    code, lines = validate(path)
    assert code == 2
    assert lines[0].startswith(f"error: {path}: ")  # the first line as every bad-input message starts
    body = [line.removeprefix("error: ") for line in lines]
    assert len(body) == 3, lines
    starts = [
        f"{path}: tabel: unknown key 'tabel' (did you mean 'table'?), allowed: game, ",
        f"{path}: solo.rival_aprentice: unknown key 'rival_aprentice' (did you mean 'rival_apprentice'?)",
    ]
    assert sorted(sum(line.startswith(start) for line in body[:2]) for start in starts) == [1, 1], body
    assert body[2] == f"{path}: seat_bonus.3: needs 3 values, one per seat, got 2"  # the rule check last


def test_a_misspelt_key_is_read_as_the_key_it_likely_means_for_the_rule_checks(tmp_path):
    # `seat_bonsu` is read as seat_bonus for the checks: its 4-player bonus of 3 values is reported too
    path = write(tmp_path, "v.yaml", f'extends: {V11}\nvariant: typo\nseat_bonsu: {{"4": [2, 2, 1]}}\n')
    try:
        load_config(path)
    except ConfigError as exc:
        lines = exc.lines
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"{path}: seat_bonsu: unknown key 'seat_bonsu' (did you mean 'seat_bonus'?)")
    assert lines[1] == f"{path}: seat_bonus.4: needs 4 values, one per seat, got 3"


def test_a_study_reports_a_figure_typo_and_an_agent_typo_in_its_own_words(tmp_path):
    study = write(
        tmp_path,
        "s.yaml",
        STUDY.replace("agents: [greedy]", "agents: [gredy]").replace("run: mirror-4p,", "run: mirror-4q,"),
    )
    code, lines = validate(study)
    assert code == 2
    assert [line.removeprefix("error: ") for line in lines] == [
        f"{study}: figures[0].run: unknown run 'mirror-4q'; runs are mirror-4p",
        f"{study}: runs.mirror-4p.agents[0]: unknown agent 'gredy' (did you mean 'greedy'?)",
    ]
    assert not any("--agents" in line for line in lines)


def test_a_study_without_its_title_still_checks_its_figures_in_the_same_pass(tmp_path):
    # a missing required key used to keep pydantic from running the study's own checks (a figure
    # naming a run that does not exist), so the figure's line came only after the title was added
    study = write(tmp_path, "s.yaml", STUDY.replace("title: Tiny\n", "").replace("run: mirror-4p,", "run: nope,"))
    code, lines = validate(study)
    assert code == 2
    assert [line.removeprefix("error: ") for line in lines] == [
        f"{study}: title: Field required",
        f"{study}: figures[0].run: unknown run 'nope'; runs are mirror-4p",
    ]


def test_a_study_names_every_missing_variant_file(tmp_path):
    study = write(
        tmp_path, "s.yaml", STUDY.replace(f"  v1.1: {V11}\n", f"  v1.1: {V11}\n  a: gone-1.yaml\n  b: gone-2.yaml\n")
    )
    code, lines = validate(study)
    assert code == 2
    assert [line.removeprefix("error: ") for line in lines] == [
        f"{study}: variants.a: no such config file 'gone-1.yaml' (looked for {tmp_path / 'gone-1.yaml'})",
        f"{study}: variants.b: no such config file 'gone-2.yaml' (looked for {tmp_path / 'gone-2.yaml'})",
    ]


def test_a_study_with_a_bad_variant_reports_the_variant_lines_and_the_other_problems(tmp_path):
    # a variant's own problems name its file; the study's agent typo is still checked under the good variant
    bad = write(tmp_path, "bad.yaml", f'extends: {V11}\nvariant: bad\nseat_bonus: {{"2": [0]}}\n')
    study = write(
        tmp_path,
        "s.yaml",
        STUDY.replace(f"  v1.1: {V11}\n", f"  v1.1: {V11}\n  bad: bad.yaml\n").replace("[greedy]", "[gredy]"),
    )
    code, lines = validate(study)
    assert code == 2
    assert [line.removeprefix("error: ") for line in lines] == [
        f"{bad}: seat_bonus.2: needs 2 values, one per seat, got 1",
        f"{study}: runs.mirror-4p.agents[0]: unknown agent 'gredy' (did you mean 'greedy'?)",
    ]


def test_clean_files_exit_0_with_one_ok_line(tmp_path):
    code, lines = validate(write(tmp_path, "v.yaml", f"extends: {V11}\nvariant: mine\n"))
    assert code == 0 and lines[0].startswith("OK: ") and "citywright mine" in lines[0]
    code, lines = validate(write(tmp_path, "s.yaml", STUDY))
    assert code == 0 and lines == [f"OK: study tiny: runs mirror-4p; variants v1.1 (citywright, {tmp_path / 's.yaml'})"]


TYPOS = {
    # a YAML line of a variant extending v1.1 -> the one problem it makes (independent of the others)
    "tabel: {size: 7}": "tabel: unknown key 'tabel'",
    "scoring: {parkk: {touching: 1}}": "scoring.parkk: unknown key 'parkk'",
    "solo: {rival_aprentice: true}": "solo.rival_aprentice: unknown key 'rival_aprentice'",
    "two_player: {reduced_dek: true}": "two_player.reduced_dek: unknown key 'reduced_dek'",
    'seat_bonus: {"3": [2, 2]}': "seat_bonus.3: needs 3 values",
    'rounds: {"2": {turns: 11}}': "rounds.2.turns: 2 player(s) x 11 turns = 22 rulers a round",
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.sampled_from(sorted(TYPOS)), min_size=1))
def test_any_k_injected_typos_give_exactly_k_problems(tmp_path, chosen):
    # unknown keys in four mappings and two rule checks (seat bonus length, rulers drafted a round),
    # in any combination: one line each, none left for the next run
    path = write(tmp_path, "v.yaml", f"extends: {V11}\nvariant: typo\n" + "\n".join(sorted(chosen)) + "\n")
    try:
        load_config(path)
    except ConfigError as exc:
        lines = exc.lines
    assert len(lines) == len(chosen), lines
    for line in chosen:
        assert sum(f"{path}: {TYPOS[line]}" in got for got in lines) == 1, (TYPOS[line], lines)


def test_a_sweep_reports_its_schema_and_its_agents_together(tmp_path):
    # a misspelt top-level key (pathz for paths: one line, not a missing paths too) no longer hides
    # the run's unknown agent
    sweep = write(
        tmp_path,
        "sw.yaml",
        f"sweep: s\ntitle: S\nbase: {V11}\nseed: 1\nruns:\n  mirror-4p: {{players: 4, agents: [gredy], games: 10}}\n"
        "pathz:\n  seat_bonus.4[3]: [0, 1]\n",
    )
    code, lines = validate(sweep)
    assert code == 2
    assert sorted(line.removeprefix("error: ") for line in lines) == [
        f"{sweep}: pathz: unknown key 'pathz' (did you mean 'paths'?)",
        f"{sweep}: runs.mirror-4p.agents[0]: unknown agent 'gredy' (did you mean 'greedy'?)",
    ]


def test_a_sweep_whose_base_name_is_too_long_for_the_file_system_names_the_sweep_file(tmp_path):
    # found by the fuzzing test: a 5,000-character base: made Path.is_file raise 'File name too long'
    # (Linux names are at most 255 bytes), and the message named only that path, not the sweep file
    sweep = write(tmp_path, "sweep.yaml", "sweep: fuzz\ntitle: A\nbase: " + "x" * 5000 + "\nruns: {}\n")
    code, lines = validate(sweep)
    assert code == 2
    assert lines and all(str(sweep) in line for line in lines), lines
    assert any(": base: no such variant file" in line for line in lines), lines


def test_a_mistyped_value_does_not_hide_the_rule_checks_of_the_other_keys(tmp_path):
    # a value of the wrong type kept pydantic from running the variant's rule checks, so a wrong-length
    # seat bonus beside it came only after the type was fixed (issue 50 item 6, the new-user try): the bad
    # value is read as the extended file sets it (v1.1's table size) for the checks, and both lines come
    path = write(
        tmp_path, "v.yaml", f'extends: {V11}\nvariant: typo\ntable: {{size: abc}}\nseat_bonus: {{"4": [0, 1]}}\n'
    )
    code, lines = validate(path)
    assert code == 2
    body = [line.removeprefix("error: ") for line in lines]
    assert body == [
        f"{path}: table.size: input should be a valid integer, got 'abc' (expected int)",
        f"{path}: seat_bonus.4: needs 4 values, one per seat, got 2",
    ], body


def test_a_study_variant_that_is_no_game_yaml_is_named_by_the_study_and_its_key(tmp_path):
    # a notes file, a results.parquet (bytes that are no UTF-8) and a YAML mapping of no game given as
    # variants: each is the study's typo, so each line names the study file and variants.<label>, with
    # the reason the file is not a variant (before: the file's own line, the study and key unnamed)
    notes = write(tmp_path, "notes.txt", "hello\n")
    parquet = tmp_path / "results.parquet"
    parquet.write_bytes(b"PAR1\x00\xff\xfe\x15PAR1")
    other = write(tmp_path, "other.yaml", "foo: 1\n")
    study = write(
        tmp_path,
        "s.yaml",
        STUDY.replace(f"  v1.1: {V11}\n", f"  v1.1: {V11}\n  n: notes.txt\n  p: results.parquet\n  o: other.yaml\n"),
    )
    code, lines = validate(study)
    assert code == 2
    assert [line.removeprefix("error: ") for line in lines] == [
        f"{study}: variants.n: {notes} is not a rule variant "
        "(expected a mapping (key: value lines) at the top level, got a string); give a variant config",
        f"{study}: variants.p: {parquet} is not a rule variant (not UTF-8 text); give a variant config",
        f"{study}: variants.o: {other} is not a rule variant (it has neither game: nor extends:); give a variant config",
    ]
