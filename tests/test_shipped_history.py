"""A study named by its shipped name (``citywright/ci``) together with ``--history`` (issue 50, item 1).

``baseline save citywright/ci --history H`` and ``check citywright/ci --history H`` ended in
``FileNotFoundError: 'citywright/ci'``: the history's rows hash the study file and ask git about its
folder, and were handed the name instead of the shipped file it names.
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

from balancer import api
from balancer.data import CONFIGS_DIR
from balancer.study.model import CheckSettings

SHIPPED = CONFIGS_DIR / "citywright" / "ci.yaml"


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_baseline_rows_of_a_study_named_by_its_shipped_name_hash_the_shipped_file():
    # One cell, one tracked number: the row's study hash must be the shipped file's own (computed here
    # from its bytes), which the name alone cannot give.
    baseline = {
        "study": "citywright-ci",
        "game": "citywright",
        "cells": [
            {
                "run": "mirror-3p",
                "variant": "v1.1",
                "config_sha256": "0" * 64,
                "seed": 1,
                "numbers": {"seat_win_rate/1": {"mean": 0.3, "variance": 0.21, "games": 100}},
            }
        ],
    }
    rows, _ = api.baseline_history_rows(baseline, "citywright/ci", CheckSettings(), None)
    assert [r["number"] for r in rows] == ["seat_win_rate/1"]
    assert rows[0]["study_sha256"] == _sha(SHIPPED)


def test_check_rows_of_a_study_named_by_its_shipped_name_hash_the_shipped_file():
    # A check with no items still records its event's fields (none here, so the rows are empty);
    # what matters is that the shipped name is read as the shipped file, not opened as a path.
    result = SimpleNamespace(
        study=SimpleNamespace(study="citywright-ci", game="citywright"), warnings=[], items=[], values={}, seed=5
    )
    rows, values = api.check_history_rows(result, "citywright/ci.yaml")
    assert rows == [] and values == {}
