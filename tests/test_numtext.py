"""Never ``-0.0`` (issue 50, item 7): a value that rounds to zero is written without a sign, in every
formatter of pages, tables and terminal lines (they all go through :func:`balancer.numtext.number_text`).

-0.0004 is a lower interval end that rounds to zero at one decimal in percent (-0.04 points), as the
study page's ``[-0.0, 8.3]`` had; before, each formatter wrote ``format(value, spec)``: ``-0.0``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from balancer.check.output import _fmt as check_fmt
from balancer.numtext import number_text
from balancer.report.compare import fmt_diff
from balancer.report.history import fmt_move, fmt_value
from balancer.report.pages import fmt_scaled
from balancer.report.render import fmt_num, fmt_pct
from balancer.tune.write import _est_text

TINY = -0.0004


@pytest.mark.parametrize(
    ("value", "spec", "text"),
    [
        (TINY, ".1f", "0.0"),
        (-0.0, ".3g", "0"),
        (0.0, "+.1f", "0.0"),
        (-0.06, ".1f", "-0.1"),  # rounds away from zero: keeps its sign
        (0.06, "+.1f", "+0.1"),
        (-1234.5, ",.1f", "-1,234.5"),
        (-2e-7, ".3g", "-2e-07"),  # not zero in this notation
        (math.nan, ".1f", "nan"),
    ],
)
def test_number_text_drops_the_sign_of_what_shows_as_zero_only(value, spec, text):
    assert number_text(value, spec) == text


def test_every_formatter_writes_a_value_rounding_to_zero_without_a_sign():
    assert fmt_scaled(TINY, 100, 1) == "0.0"  # the study page's interval ends (its fmt filter)
    assert fmt_pct(TINY) == "0.0"
    assert fmt_num(-0.001) == "0.00"
    assert fmt_value(-0.0, "metric") == "0"
    assert fmt_value(TINY, "win_rate") == "0.0%"
    assert fmt_move(TINY, "win_rate") == "0.0 pp"
    assert fmt_diff(-0.001, 1.0, 2) == "0.00"
    assert check_fmt(SimpleNamespace(kind="win_rate"), TINY, signed=True) == "0.0 pp"
    assert check_fmt(SimpleNamespace(kind="win_rate"), TINY) == "0.0%"
    assert _est_text("seat_win_rate:1", {"mean": 0.04, "ci_low": TINY, "ci_high": 0.083}) == "4.0% (0.0 to 8.3)"


def test_check_and_tune_write_an_interval_as_the_pages_do():
    """Issue 50 item 8 (one notation for an interval): check's table (terminal, Markdown summary, JUnit)
    and tune's lines wrote '[a, b]', the pages 'a to b'. A seat that moved from 25% to 30%, its
    difference's interval 1.0 to 9.0 points, by construction."""
    from balancer.check.output import row

    item = SimpleNamespace(
        name="mirror-2p/v1.1/seat_win_rate:1", test="baseline", kind="win_rate", baseline_mean=0.25, now=0.30,
        difference=0.05, ci_low=0.01, ci_high=0.09, verdict="fail", powered=True, games=1000, detectable=0.04,
    )  # fmt: skip
    assert row(item)["interval"] == "+1.0 pp to +9.0 pp"
