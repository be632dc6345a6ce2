"""``balancer init --from citywright/appendix DIR`` (issue 50): a shipped study, sweep or tune copied beside
the designer's variant to edit, its variant paths pointing at the shipped variants by name and at the
designer's own variant.yaml where the folder has one."""

from __future__ import annotations

from typer.testing import CliRunner

from balancer.cli import app
from balancer.data import CONFIGS_DIR
from balancer.starter import copy_shipped, write_starter
from balancer.study import load_study
from balancer.sweep import load_sweep
from balancer.tune import load_tune

runner = CliRunner()


def test_a_study_copy_plays_the_shipped_variants_and_the_designers(tmp_path):
    folder = tmp_path / "my-variant"
    write_starter("citywright", folder)  # variant.yaml, named 'mine'
    (copy,) = copy_shipped("citywright/appendix", folder)
    assert copy == folder / "appendix.yaml"
    _, configs = load_study(copy)  # loads from its new folder: every variant path resolves
    assert configs == {
        "v1.0": CONFIGS_DIR / "citywright" / "v1.0.yaml",
        "v1.1": CONFIGS_DIR / "citywright" / "v1.1.yaml",
        "mine": folder / "variant.yaml",
    }
    assert copy.read_text().startswith("# Copied from the shipped citywright/appendix")


def test_a_tune_copy_tunes_the_designers_variant_and_a_sweep_without_one_the_shipped_base(tmp_path):
    folder = tmp_path / "mine"
    write_starter("citywright", folder)
    (tune,) = copy_shipped("citywright/tune-seat-bonus", folder)
    assert load_tune(tune, probe=False).base.path.resolve() == (folder / "variant.yaml").resolve()
    bare = tmp_path / "bare"
    (sweep,) = copy_shipped("citywright/sweep-seat-bonus", bare)  # no variant.yaml there: the shipped base, by name
    assert "base: citywright/v1.1\n" in sweep.read_text()
    assert load_sweep(sweep, probe=False).base.path.resolve() == (CONFIGS_DIR / "citywright" / "v1.1.yaml").resolve()


def test_init_from_on_the_command_line_and_its_refusals(tmp_path):
    folder = tmp_path / "d"
    ok = runner.invoke(app, ["init", "--from", "citywright/appendix", str(folder)])
    assert ok.exit_code == 0, ok.output
    assert (folder / "appendix.yaml").is_file() and not (folder / "variant.yaml").exists()
    again = runner.invoke(app, ["init", "--from", "citywright/appendix", str(folder)])
    assert again.exit_code == 2 and "already exists; use --force" in again.output
    variant = runner.invoke(app, ["init", "--from", "citywright/v1.0", str(folder)])
    assert variant.exit_code == 2 and "a rule variant, not a study, sweep or tune" in variant.output
    typo = runner.invoke(app, ["init", "--from", "citywright/appendx", str(folder)])
    assert typo.exit_code == 2 and "closest: citywright/appendix" in typo.output


def test_a_copy_names_no_path_of_the_repository(tmp_path):
    """Issue 50 item 5, retry: the copied comments said 'balancer tune configs/citywright/tune-seat-bonus-2p.yaml
    ... --write configs/citywright/v1.1-tuned-2p.yaml', a path only a clone has. In the copy the shipped
    file is the copy itself, a file a command writes lands beside it, another shipped file goes by name."""
    folder = tmp_path / "my-variant"
    (tune,) = copy_shipped("citywright/tune-seat-bonus-2p", folder)
    text = tune.read_text(encoding="utf-8")
    assert "configs/" in (CONFIGS_DIR / "citywright" / "tune-seat-bonus-2p.yaml").read_text()  # the premise
    assert "configs/" not in text
    assert f"#   balancer tune {tune.as_posix()} -o reports/citywright-tune-2p.html" in text
    assert f"--write {(folder / 'v1.1-tuned-2p.yaml').as_posix()}" in text
    (ci,) = copy_shipped("citywright/ci", folder)
    assert "configs/" not in ci.read_text(encoding="utf-8")
    assert "# citywright/appendix for the full study)." in ci.read_text(encoding="utf-8")
    assert load_tune(tune, probe=False).base.path.resolve() == (CONFIGS_DIR / "citywright" / "v1.1.yaml").resolve()
