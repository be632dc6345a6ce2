"""Seat rotation and how a run's seating is described (``balancer/core/tables.py``)."""

from __future__ import annotations

from collections import Counter

from balancer.core.tables import seat_agents, seat_design, uneven_rotation_note
from balancer.report.render import describe_seat_design

TABLE = ["greedy", "random", "park"]


def times_in_each_seat(agents, games):
    return Counter((s, a) for i in range(games) for s, a in enumerate(seat_agents(agents, i)))


def test_a_multiple_of_the_seats_seats_every_agent_everywhere_equally():
    # 99 games of 3 seats: each (seat, agent) pair exactly 33 times
    assert set(times_in_each_seat(TABLE, 99).values()) == {33}
    assert seat_design(TABLE, 99).endswith("equally often")
    assert uneven_rotation_note(TABLE, 99) is None


def test_another_count_is_described_as_uneven_with_the_real_counts():
    # 100 games of 3 seats: 100 = 3 x 33 + 1, so game 99 adds one more sitting to three pairs
    counts = times_in_each_seat(TABLE, 100)
    assert sorted(set(counts.values())) == [33, 34]
    text = seat_design(TABLE, 100)
    assert "not a multiple of the 3 seats" in text and "33 or 34 times" in text
    assert "equally often" not in describe_seat_design(text)
    assert "33 or 34 times" in uneven_rotation_note(TABLE, 100)


def test_mirror_and_solo_tables_need_no_rotation():
    assert uneven_rotation_note(["greedy"] * 3, 100) is None
    assert seat_design(["greedy"] * 3, 100) == "mirror table: greedy in every seat"
    solo = describe_seat_design(seat_design(["greedy"], 7))
    assert solo.startswith("Solo: greedy plays alone") and "rules alone" not in solo
