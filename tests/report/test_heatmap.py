"""The match-up heatmap: one panel per matrix, every played cell annotated, bad shapes refused."""

from __future__ import annotations

import math

import pytest

from balancer.report.figures import matchup_heatmap, svg_string


def test_heatmap_annotates_every_played_cell():
    nan = math.nan
    rates = [[0.5, 0.7], [0.3, nan]]
    lows = [[0.4, 0.6], [0.2, nan]]
    highs = [[0.6, 0.8], [0.4, nan]]
    fig = matchup_heatmap(["bull", "ibex"], [("first", rates, lows, highs), ("second", rates, lows, highs)], "T")
    assert len(fig.axes) == 3  # two panels and the colour bar
    texts = [t.get_text() for t in fig.axes[0].texts]
    # the unplayed cell shows a dash (as on the ladder page: one heatmap drawing for every page)
    assert texts == ["50", "40–60", "70", "60–80", "30", "20–40", "–"]
    assert "<svg" in svg_string(fig)


def test_heatmap_refuses_a_bad_shape():
    with pytest.raises(ValueError, match="2 x 2"):
        matchup_heatmap(["a", "b"], [("p", [[0.5]], [[0.4]], [[0.6]])])
